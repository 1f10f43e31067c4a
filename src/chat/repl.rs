//! The interactive chat: the prompt loop, sending and answering, /retry,
//! and the slash commands.

use std::io;

use super::{Chat, ReplyOutcome, args, check_not_blank, compact, set_system, system_prompt, title_taken};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup, Reason};
use crate::store::context;
use crate::store::session::{self, Header, Message, Session};
use crate::store::titles;
use crate::sys;
use crate::terminal::compose;
use crate::terminal::prompt::{self, LineReader};
use crate::time;
use crate::{output, terminal, view};

impl Chat<'_> {
    pub(super) fn interactive(
        &self,
        target: Option<Header>,
        chose_by: Option<Reason>,
        title: Option<String>,
    ) -> Result<()> {
        let mut state = Interactive {
            current: target,
            pending_title: title,
            history: Vec::new(),
            unanswered: false,
            seen: 0,
            lines: LineReader::for_chat(),
        };
        self.greet(&mut state, chose_by)?;
        loop {
            // A Ctrl-C that came after the last reply (while it was saved)
            // is spent; a SIGTERM or SIGHUP (the terminal closed) still ends.
            if sys::take_signal().is_some_and(|signal| signal != sys::SIGINT) {
                return Err(Error::Interrupted);
            }
            if let Err(e) = self.news_from_elsewhere(&mut state) {
                go_on_after(e)?;
            }
            let Some(line) = read_line(&mut state, &mut |typed| self.complete(typed))? else { return Ok(()) };
            let text = message_text(&line);
            if text.is_empty() {
                continue;
            }
            if let Err(e) = check_not_blank(&text) {
                note_in_chat(&e);
                continue;
            }
            let next = match text.strip_prefix('/') {
                // A slash command is one line; a longer text that starts
                // with a slash (a pasted path, say) is a message.
                Some(command) if !command.contains('\n') => match self.slash_command(&mut state, command) {
                    Ok(next) => next,
                    // A refused title, a file /save cannot write, a lock
                    // another hermes holds: say so and go on.
                    Err(e) => {
                        go_on_after(e)?;
                        continue;
                    }
                },
                _ => Next::Send(text),
            };
            let result = match next {
                Next::Prompt => Ok(()),
                Next::Quit => return Ok(()),
                Next::Send(text) => self.send(&mut state, text),
                Next::Retry => self.retry(&mut state),
            };
            if let Err(e) = result {
                go_on_after(e)?;
            }
        }
    }

    /// Say which session this is (resumed, created for its title, or new).
    fn greet(&self, state: &mut Interactive, chose_by: Option<Reason>) -> Result<()> {
        match &state.current {
            Some(h) => {
                self.point_breadcrumb(h);
                state.history = self.show_resume(h, chose_by)?;
                state.seen = self.store.header(&h.id)?.map_or(0, |h| h.message_count);
            }
            None if state.pending_title.is_some() => {
                // --create-if-missing in a terminal: the named session exists
                // from now on, even before the first message.
                let header = self.create_session(state.pending_title.as_deref(), &[])?;
                self.point_breadcrumb(&header);
                crate::output::say!("New session '{}' ({}).", header.title, header.id);
                state.current = Some(header);
            }
            None => crate::output::say!("New session. Type a message, /help for commands, Ctrl-D to quit."),
        }
        Ok(())
    }

    /// Save what was typed and ask the agent. After a failed send, the
    /// next message joins the unanswered one (the same text typed again is
    /// not repeated), so failures do not pile up as separate messages.
    fn send(&self, state: &mut Interactive, text: String) -> Result<()> {
        let joined = match &state.current {
            Some(h) if state.unanswered => self.join_unanswered(h, &text)?,
            _ => None,
        };
        let header = match joined {
            Some(header) => header,
            None => {
                let message = Message::new("user", text.clone(), time::now());
                self.saved_here.borrow_mut().push(message.ts);
                match self.save_user_message(
                    state.current.as_ref(),
                    state.pending_title.as_deref(),
                    message,
                    || {},
                ) {
                    Ok((header, _bookkept)) => header,
                    // The prompt stays: the message can be sent again, or
                    // taken to a /new session.
                    Err(e) => {
                        go_on_after(e)?;
                        crate::output::note!("[the message was not saved]");
                        return Ok(());
                    }
                }
            }
        };
        if state.current.is_none() {
            self.point_breadcrumb(&header);
            state.seen = 0;
        }
        if state.history.last() != Some(&text) {
            state.history.push(text);
        }
        state.pending_title = None;
        state.current = Some(header.clone());
        self.answer(state, &header)
    }

    /// The unanswered last message with `text` joined to it; None if the
    /// last message is not an unanswered one of the user's after all.
    fn join_unanswered(&self, header: &Header, text: &str) -> Result<Option<Header>> {
        let mut joined = false;
        let header = self.store.edit_messages(&header.id, |messages| match messages.last_mut() {
            Some(last) if last.role == "user" => {
                joined = true;
                if last.content == text {
                    return false;
                }
                last.content = format!("{}\n\n{text}", last.content);
                last.ts = time::now();
                self.saved_here.borrow_mut().push(last.ts);
                true
            }
            _ => false,
        })?;
        Ok(joined.then_some(header))
    }

    /// Run the agent on the session as it stands and say how it went.
    fn answer(&self, state: &mut Interactive, header: &Header) -> Result<()> {
        state.unanswered = false;
        match state.lines.replying(|| self.reply(header, None, &mut || {}, &mut io::stdout().lock())) {
            Ok(ReplyOutcome::Interrupted) => {
                // On a terminal the reply's line is ended already.
                let before = if sys::isatty(1) { "" } else { "\n" };
                crate::output::note!(
                    "{before}[reply interrupted; the conversation is kept; /retry asks again]"
                );
                Ok(())
            }
            Ok(_) => Ok(()),
            // A failing agent, a reply that could not be saved or shown:
            // the chat goes on (the message itself is saved).
            Err(e) => {
                state.unanswered = matches!(e, Error::Agent(_));
                if state.unanswered {
                    note_in_chat(&e);
                    crate::output::note!(
                        "[the message is kept; /retry sends it again, or type more to add to it]"
                    );
                    Ok(())
                } else {
                    Err(e)
                }
            }
        }
    }

    /// `/retry`: ask the agent again about the last user message, whatever
    /// became of its reply (none, a failure, Ctrl-C, or one not liked). A
    /// reply it had stays in the file, marked replaced: shown as such,
    /// never sent to an agent again.
    fn retry(&self, state: &mut Interactive) -> Result<()> {
        let Some(h) = &state.current else {
            crate::output::say!("Nothing to retry yet.");
            return Ok(());
        };
        let mut retried = false;
        let header = self.store.edit_messages(&h.id, |messages| {
            let Some(question) = messages.iter().rposition(|m| m.role == "user") else { return false };
            retried = true;
            let mut replaced = false;
            for m in &mut messages[question + 1..] {
                if m.role == "assistant" && !m.is_replaced() {
                    m.replaced = Some(true);
                    replaced = true;
                }
            }
            replaced
        })?;
        state.current = Some(header.clone());
        if !retried {
            crate::output::say!("Nothing to retry: the session has no message of yours yet.");
            return Ok(());
        }
        self.answer(state, &header)
    }

    /// Say what another terminal added to this session since the prompt
    /// last drew (and show it), and give its messages to Up and Down.
    fn news_from_elsewhere(&self, state: &mut Interactive) -> Result<()> {
        let Some(h) = &state.current else { return Ok(()) };
        let count = self.store.header(&h.id)?.map_or(0, |h| h.message_count);
        let saved_here = std::mem::take(&mut *self.saved_here.borrow_mut());
        if count <= state.seen + saved_here.len() as u64 {
            state.seen = count;
            return Ok(());
        }
        let Some(session) = self.store.load(&h.id)? else { return Ok(()) };
        let from = (state.seen as usize).min(session.messages.len());
        state.seen = session.messages.len() as u64;
        let news: Vec<&Message> =
            session.messages[from..].iter().filter(|m| !saved_here.contains(&m.ts)).collect();
        if news.is_empty() {
            return Ok(());
        }
        crate::output::say!("{} from another terminal:", crate::text::counted(news.len(), "new message"));
        for m in &news {
            crate::output::say!("{}", view::render_message(m, 400));
        }
        // Up and Down step through the session's messages as the file has them.
        state.history = user_messages(&session);
        state.current = Some(session.header);
        Ok(())
    }

    /// What Tab makes of a slash command typed so far: the commands it
    /// starts, or after `/continue` or `/new`, the titles it starts.
    fn complete(&self, typed: &str) -> Vec<String> {
        let Some((command, partial)) = typed.split_once(' ') else {
            return SLASH_COMMANDS.iter().filter(|c| c.starts_with(typed)).map(|c| format!("{c} ")).collect();
        };
        if !matches!(command, "/continue" | "/c" | "/new") {
            return Vec::new();
        }
        let partial = partial.trim_start().to_lowercase();
        let mut titles: Vec<(f64, String)> = Vec::new();
        let _ = self.store.scan(|entry| {
            if let Ok(h) = entry.header
                && !h.title.is_empty()
                && h.title.to_lowercase().starts_with(&partial)
                && !titles.iter().any(|(_, t)| *t == h.title)
            {
                titles.push((h.updated_at, h.title));
            }
        });
        titles.sort_by(|a, b| b.0.total_cmp(&a.0));
        titles.into_iter().map(|(_, title)| format!("{command} {title}")).collect()
    }

    /// Show which session this is and how it was chosen, then its last
    /// few messages (from a question, not from the middle of an exchange).
    /// Returns its user messages, oldest first: the prompt's history.
    fn show_resume(&self, header: &Header, chose_by: Option<Reason>) -> Result<Vec<String>> {
        let session =
            self.store.load(&header.id)?.unwrap_or(Session { header: header.clone(), messages: vec![] });
        let h = &session.header;
        let why = match chose_by {
            Some(Reason::Breadcrumb) => ": this terminal's session",
            Some(Reason::Workspace) => ": the most recent in this workspace (none yet in this terminal)",
            Some(Reason::Latest) => ": the most recent of all (none in this terminal or workspace)",
            None => "",
        };
        crate::output::say!(
            "Resuming '{}' ({}), {}{why}.",
            crate::text::printable(&h.title, false),
            h.id,
            crate::text::counted(h.message_count as usize, "message")
        );
        let mut skip = session.messages.len().saturating_sub(RESUME_SHOWN);
        if skip > 0 && session.messages[skip].role != "user" && session.messages[skip - 1].role == "user" {
            skip -= 1;
        }
        if skip > 0 {
            crate::output::say!(
                "({} not shown: hermes sessions show {})",
                crate::text::counted(skip, "earlier message"),
                h.id
            );
        }
        for m in &session.messages[skip..] {
            crate::output::say!("{}", view::render_message(m, 400));
        }
        Ok(user_messages(&session))
    }

    /// The title for a session `/new` or `/title` is about to start. One held
    /// by another session is refused here, as `/title` refuses it for an
    /// existing session: otherwise the first message would silently join
    /// that session instead of starting a new one.
    fn title_for_new_session(&self, raw: &str) -> Result<String> {
        let title = titles::user_title(raw)?;
        if let Some(other) = titles::holder(self.store, &title, None)? {
            return Err(title_taken(&title, &other.id, true));
        }
        Ok(title)
    }

    /// Carry out a slash command, and say what comes next.
    fn slash_command(&self, state: &mut Interactive, command: &str) -> Result<Next> {
        let (name, rest) = match command.split_once(char::is_whitespace) {
            Some((n, r)) => (n, r.trim()),
            None => (command, ""),
        };
        match name {
            "help" | "?" => crate::output::say!("{}", SLASH_HELP.trim_end()),
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "retry" => return Ok(Next::Retry),
            "edit" => {
                let text = state.lines.cooked(|| compose::in_editor(rest))?;
                let text = message_text(&text);
                if text.is_empty() || check_not_blank(&text).is_err() {
                    crate::output::say!("Nothing sent: the editor left the message empty.");
                    return Ok(Next::Prompt);
                }
                // As Ctrl-X Ctrl-E: the text comes back to the prompt, to be
                // read and sent with Enter. Plain lines cannot be given text
                // to edit: there it is sent, unless the editor left it as it was.
                if state.lines.is_editor() {
                    state.lines.prefill(text);
                    return Ok(Next::Prompt);
                }
                if text == message_text(rest) {
                    crate::output::say!("Nothing sent: the editor left the message as it was.");
                    return Ok(Next::Prompt);
                }
                return Ok(Next::Send(text));
            }
            "continue" | "c" => self.continue_in(state, rest)?,
            "id" => match &state.current {
                Some(h) => crate::output::say!("{}", h.id),
                None => crate::output::say!("(new session: saved with its first message)"),
            },
            "title" => self.title(state, rest)?,
            "new" => {
                // Check the title before leaving the current session: a
                // refused `/new TITLE` changes nothing.
                state.pending_title =
                    if rest.is_empty() { None } else { Some(self.title_for_new_session(rest)?) };
                state.current = None;
                state.seen = 0;
                state.history.clear();
                state.unanswered = false;
                crate::output::say!("New session. It is saved with its first message.");
            }
            "save" => self.save(state, rest, false)?,
            "save!" => self.save(state, rest, true)?,
            "sessions" => view::list::print_recent(self.store, self.terminal.as_ref(), 10)?,
            "model" => self.model_command(state, rest)?,
            "system" => self.system_command(state, rest)?,
            "context" => self.context(state, rest)?,
            "compact" => self.compact(state, rest)?,
            _ => match crate::text::nearest(name, SLASH_COMMANDS.iter().map(|c| c.trim_start_matches('/'))) {
                Some(near) => {
                    crate::output::say!(
                        "Unknown command '/{name}'; did you mean /{near}? Type /help for the list."
                    )
                }
                None => crate::output::say!("Unknown command '/{name}'. Type /help for the list."),
            },
        }
        Ok(Next::Prompt)
    }

    /// `/context [N]`: show the budget and this session's size; with N,
    /// set the budget for this chat.
    fn context(&self, state: &Interactive, rest: &str) -> Result<()> {
        if !rest.is_empty() {
            self.budget.set(args::budget_arg(rest)?);
            self.noted.borrow_mut().clear();
        }
        let budget = self.budget.get();
        let Some(h) = &state.current else {
            crate::output::say!("Context budget: {}.", context::describe(budget));
            return Ok(());
        };
        let m = self.store.measure(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
        crate::output::say!(
            "Context budget: {}. This session: {} characters in {}; a turn sends {} characters{}.",
            context::describe(budget),
            context::thousands(m.chars),
            crate::text::counted(m.messages as usize, "message"),
            context::thousands(m.context_chars.min(budget)),
            if m.over(budget) { " (over the budget: /compact summarises the older messages)" } else { "" }
        );
        Ok(())
    }

    /// `/compact [N]`: ask the agent for a summary of the older messages
    /// (all but the last N).
    fn compact(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        let Some(h) = &state.current else {
            crate::output::say!("Nothing to compact yet.");
            return Ok(());
        };
        let Some(agent) = &self.agent else {
            return Err(Error::usage("no agent to write the summary (see 'man hermes')"));
        };
        let keep = match rest {
            "" => None,
            n => Some(n.parse().map_err(|_| {
                Error::usage(format!("/compact [N]: N is a number of messages to keep, not '{n}'"))
            })?),
        };
        crate::output::say!("Asking the agent for a summary...");
        match state.lines.cooked(|| compact::compact(self.store, agent, h, self.budget.get(), keep)) {
            Ok(outcome) => crate::output::say!("{}", outcome.describe()),
            // Ctrl-C stops the summary, not the chat.
            Err(Error::Interrupted) => crate::output::say!(),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// `/continue NAME`: switch to another session.
    fn continue_in(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        if rest.is_empty() {
            return Err(Error::usage("name the session to continue: /continue NAME"));
        }
        let header = match resolve::lookup(self.store, rest)? {
            Lookup::Found(header) => header,
            Lookup::Missing { did_you_mean } => {
                say_not_found_in_chat(rest, &did_you_mean);
                return Ok(());
            }
        };
        self.point_breadcrumb(&header);
        state.history = self.show_resume(&header, None)?;
        state.seen = self.store.header(&header.id)?.map_or(0, |h| h.message_count);
        self.saved_here.borrow_mut().clear();
        state.current = Some(header);
        state.pending_title = None;
        state.unanswered = false;
        Ok(())
    }

    /// `/title [NEW]`: show the title, or set it (a new session's is
    /// checked now and given with its first message).
    fn title(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        match (&state.current, rest) {
            (Some(h), "") if h.title.is_empty() => crate::output::say!("(untitled)"),
            (Some(h), "") => crate::output::say!("{}", crate::text::printable(&h.title, false)),
            (None, "") => {
                crate::output::say!("{}", state.pending_title.as_deref().unwrap_or("(untitled)"))
            }
            (Some(h), new) => {
                let header = titles::rename(self.store, &h.id, new)?;
                crate::output::say!(
                    "renamed {} to '{}'",
                    header.id,
                    crate::text::printable(&header.title, false)
                );
                state.current = Some(header);
            }
            (None, new) => {
                state.pending_title = Some(self.title_for_new_session(new)?);
                crate::output::say!(
                    "The new session will be titled '{}'.",
                    state.pending_title.as_deref().unwrap_or("")
                );
            }
        }
        Ok(())
    }

    /// `/save [FILE]`: the conversation as Markdown; a FILE that is there
    /// is kept unless `replace` (`/save! FILE`).
    fn save(&self, state: &Interactive, rest: &str, replace: bool) -> Result<()> {
        let Some(h) = &state.current else {
            crate::output::say!("Nothing to save yet.");
            return Ok(());
        };
        let session = self.store.load(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
        let file = if rest.is_empty() { format!("hermes-{}.md", h.id) } else { home_relative(rest) };
        if !replace {
            let how = format!("/save! {} replaces it", if rest.is_empty() { &file } else { rest });
            output::refuse_existing(std::path::Path::new(&file), &how)?;
        }
        output::write_file(std::path::Path::new(&file), view::markdown(&[session]).as_bytes())?;
        crate::output::say!("Saved to {file}.");
        Ok(())
    }
}

struct Interactive {
    current: Option<Header>,
    pending_title: Option<String>,
    /// The session's user messages, oldest first: Up, Down and Ctrl-R.
    history: Vec<String>,
    /// The last send failed (the agent did): its message has no reply.
    unanswered: bool,
    /// How many of the session's messages this prompt knows of: more in
    /// the file are another terminal's (see `news_from_elsewhere`).
    seen: u64,
    lines: LineReader,
}

/// What a typed line leads to.
enum Next {
    Prompt,
    Quit,
    Send(String),
    Retry,
}

/// The slash commands, for Tab and "did you mean".
const SLASH_COMMANDS: &[&str] = &[
    "/help",
    "/title",
    "/new",
    "/continue",
    "/retry",
    "/edit",
    "/save",
    "/sessions",
    "/id",
    "/model",
    "/system",
    "/context",
    "/compact",
    "/quit",
];

/// `/continue NAME` that matches nothing: the closest titles, as the
/// commands that would continue them.
fn say_not_found_in_chat(name: &str, did_you_mean: &[String]) {
    let name = crate::text::printable(name, false);
    crate::output::note!("No session found matching '{name}'.");
    match did_you_mean {
        [] => {}
        [title] => crate::output::note!("Did you mean: /continue {}", crate::text::printable(title, false)),
        titles => {
            crate::output::note!("Did you mean one of these?");
            for title in titles {
                crate::output::note!("  /continue {}", crate::text::printable(title, false));
            }
        }
    }
    crate::output::note!("/sessions lists recent ones; /new {name} starts one with that title.");
}

/// Messages shown when a session is resumed.
const RESUME_SHOWN: usize = 4;

const SLASH_HELP: &str = "\
/help              this list
/title [NEW]       show or set the session's title
/new [TITLE]       start a new session
/continue NAME     switch to another session (by title or ID)
/retry             ask again about the last message (a reply it had is kept
                   in the file, marked replaced)
/edit [TEXT]       write the message in $VISUAL, else $EDITOR, else vi; it
                   comes back to the prompt, to send with Enter
/save [FILE]       save the conversation as Markdown (default hermes-ID.md);
                   a FILE that is there is kept: /save! FILE replaces it
/sessions          recent sessions
/context [N]       show the context budget, or set it for this chat
/compact [N]       summarise the older messages (keeping the last N)
/id                the session's ID
/model [NAME]      show the model, or use NAME from the next message on
                   (kept in the session)
/system [TEXT]     show the session's system prompt, or set it
/quit              leave (also Ctrl-D)
Ctrl-C while a reply is running stops it and keeps the conversation.
Keys: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K/Y, Ctrl-L;
Up/Down and Ctrl-R: earlier messages; Alt-Enter or Ctrl-J: a new line;
Ctrl-X Ctrl-E: edit the line in $VISUAL/$EDITOR; Ctrl-C clears the line;
Tab completes a slash command, and a title after /continue or /new.
";

/// The next line typed at the prompt; None at the end (Ctrl-D). A line
/// cancelled (Ctrl-C) or too long to take is an empty one.
/// `complete` is what Tab may make of a slash command.
fn read_line(
    state: &mut Interactive,
    complete: &mut dyn FnMut(&str) -> Vec<String>,
) -> Result<Option<String>> {
    let prompt = prompt_for(state);
    match state.lines.read(&prompt, &state.history, complete) {
        Err(e @ Error::TooLarge(_)) => go_on_after(e).map(|()| Some(String::new())),
        Err(e) => Err(e),
        Ok(prompt::Line::Text(l)) => Ok(Some(l)),
        Ok(prompt::Line::Cancelled) => {
            crate::output::say!();
            Ok(Some(String::new()))
        }
        Ok(prompt::Line::End) => {
            crate::output::say!();
            Ok(None)
        }
    }
}

/// The prompt names the session: its title cut to a third of the screen.
fn prompt_for(state: &Interactive) -> String {
    let title = match (&state.current, &state.pending_title) {
        (Some(h), _) => h.title.as_str(),
        (None, Some(title)) => title.as_str(),
        (None, None) => return "new session> ".to_string(),
    };
    if title.is_empty() {
        return "> ".to_string();
    }
    let (_, width) = terminal::raw::window_size(1);
    let title = crate::text::printable(title, false);
    format!("{}> ", crate::text::fit_columns(&title, (width / 3).max(8)))
}

/// What a typed text sends: a line without its surrounding blanks; a
/// multi-line text (a paste) keeps its indentation, without blank lines
/// around it.
fn message_text(typed: &str) -> String {
    if !typed.contains('\n') {
        return typed.trim().to_string();
    }
    let lines: Vec<&str> = typed.trim_end().lines().skip_while(|l| l.trim().is_empty()).collect();
    lines.join("\n")
}

fn user_messages(session: &Session) -> Vec<String> {
    session.messages.iter().filter(|m| m.role == "user").map(|m| m.content.clone()).collect()
}

/// `~/x` as a shell would read it (no shell reads what /save is given).
fn home_relative(file: &str) -> String {
    match (file.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ => file.to_string(),
    }
}

/// An error inside the interactive loop: Ctrl-C's kin and a closed stdout
/// end the chat; any other is said, and the chat goes on.
fn go_on_after(e: Error) -> Result<()> {
    match e {
        Error::Interrupted | Error::BrokenPipe => Err(e),
        e => {
            note_in_chat(&e);
            Ok(())
        }
    }
}

/// An error inside the interactive loop, without the hint about --help
/// that a command line gets.
fn note_in_chat(e: &Error) {
    match e {
        Error::Usage(text) => output::notice(text),
        e => output::report(e),
    }
}

impl Chat<'_> {
    /// `/model`: say which model the next message uses and why; `/model
    /// NAME`: use NAME, and record it in the session now.
    fn model_command(&self, state: &mut Interactive, name: &str) -> Result<()> {
        if name.is_empty() {
            let session = state.current.as_ref().and_then(|h| h.model.clone());
            let said = match (self.model.borrow().clone(), session, self.default_model.clone()) {
                (Some(m), _, _) => format!("{m} (chosen in this chat)"),
                (None, Some(m), _) => format!("{m} (the session's)"),
                (None, None, Some(m)) => format!("{m} (the default: config.toml or $HERMES_MODEL)"),
                (None, None, None) => "none set: the agent's default".to_string(),
            };
            crate::output::say!("model: {}", crate::text::printable(&said, false));
            return Ok(());
        }
        let model = session::clean_model(name).map_err(Error::usage)?;
        *self.model.borrow_mut() = Some(model.clone());
        if let Some(h) = &state.current {
            state.current = Some(self.store.update_header(&h.id, |h| h.model = Some(model.clone()))?);
        }
        crate::output::say!("model: {} from the next message on", crate::text::printable(&model, false));
        Ok(())
    }

    /// `/system`: show the session's system prompt; `/system TEXT`: set it
    /// (or, before a new session's first message, the one it starts with).
    fn system_command(&self, state: &mut Interactive, text: &str) -> Result<()> {
        if text.is_empty() {
            let prompt = match &state.current {
                Some(h) => {
                    let mut reader =
                        self.store.open(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
                    let first = reader.next_message().map_err(|_| Error::Vanished { id: h.id.clone() })?;
                    first.filter(|m| m.role == "system").map(|m| m.content)
                }
                None => self.system.borrow().clone(),
            };
            match prompt {
                Some(p) => crate::output::say!("system: {}", crate::text::printable(&p, true)),
                None => crate::output::say!("(no system prompt)"),
            }
            return Ok(());
        }
        let text = system_prompt(text.to_string())?;
        match &state.current {
            Some(h) => {
                state.current = Some(set_system(self.store, &h.id, &text)?);
                crate::output::say!("System prompt set for this session.");
            }
            None => {
                *self.system.borrow_mut() = Some(text);
                crate::output::say!("The new session will start with this system prompt.");
            }
        }
        Ok(())
    }
}
