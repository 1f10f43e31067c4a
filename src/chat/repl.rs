//! The interactive chat: the prompt loop, sending and answering, /retry,
//! and the slash commands.

use std::io;

use super::{Chat, ReplyOutcome, check_not_blank, title_taken};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup, Reason};
use crate::store::session::{Header, Message, Session};
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
            lines: LineReader::for_chat(),
        };
        self.greet(&mut state, chose_by)?;
        loop {
            // A Ctrl-C that came after the last reply (while it was saved)
            // is spent; a SIGTERM or SIGHUP (the terminal closed) still ends.
            if sys::take_signal().is_some_and(|signal| signal != sys::SIGINT) {
                return Err(Error::Interrupted);
            }
            let Some(line) = read_line(&mut state)? else { return Ok(()) };
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
            }
            None if state.pending_title.is_some() => {
                // --create-if-missing in a terminal: the named session exists
                // from now on, even before the first message.
                let header = self.create_session(state.pending_title.as_deref(), &[])?;
                self.point_breadcrumb(&header);
                crate::say!("New session '{}' ({}).", header.title, header.id);
                state.current = Some(header);
            }
            None => crate::say!("New session. Type a message, /help for commands, Ctrl-D to quit."),
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
                match self.save_user_message(state.current.as_ref(), state.pending_title.as_deref(), message)
                {
                    Ok(header) => header,
                    // The prompt stays: the message can be sent again, or
                    // taken to a /new session.
                    Err(e) => {
                        go_on_after(e)?;
                        crate::note!("[the message was not saved]");
                        return Ok(());
                    }
                }
            }
        };
        if state.current.is_none() {
            self.point_breadcrumb(&header);
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
                true
            }
            _ => false,
        })?;
        Ok(joined.then_some(header))
    }

    /// Run the agent on the session as it stands and say how it went.
    fn answer(&self, state: &mut Interactive, header: &Header) -> Result<()> {
        state.unanswered = false;
        match state.lines.cooked(|| self.reply(header, &mut io::stdout().lock())) {
            Ok(ReplyOutcome::Interrupted) => {
                crate::note!("\n[reply interrupted; the conversation is kept; /retry asks again]");
                Ok(())
            }
            Ok(_) => Ok(()),
            // A failing agent, a reply that could not be saved or shown:
            // the chat goes on (the message itself is saved).
            Err(e) => {
                state.unanswered = matches!(e, Error::Agent(_));
                if state.unanswered {
                    note_in_chat(&e);
                    crate::note!("[the message is kept; /retry sends it again, or type more to add to it]");
                    Ok(())
                } else {
                    Err(e)
                }
            }
        }
    }

    /// `/retry`: ask the agent again about the last user message, when it
    /// has no reply or its reply was interrupted (that reply is dropped).
    fn retry(&self, state: &mut Interactive) -> Result<()> {
        let Some(h) = &state.current else {
            crate::say!("Nothing to retry yet.");
            return Ok(());
        };
        let mut retried = false;
        let header = self.store.edit_messages(&h.id, |messages| {
            let interrupted = messages.last().is_some_and(Message::is_interrupted);
            let question = messages.len().checked_sub(if interrupted { 2 } else { 1 });
            retried = question.is_some_and(|at| messages[at].role == "user");
            if retried && interrupted {
                messages.pop();
            }
            retried && interrupted
        })?;
        state.current = Some(header.clone());
        if !retried {
            crate::say!("Nothing to retry: the last message has its reply. Type a new one.");
            return Ok(());
        }
        self.answer(state, &header)
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
        crate::say!(
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
            crate::say!(
                "({} not shown: hermes sessions show {})",
                crate::text::counted(skip, "earlier message"),
                h.id
            );
        }
        for m in &session.messages[skip..] {
            crate::say!("{}", view::render_message(m, 400));
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
            return Err(title_taken(&title, &other.id));
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
            "help" | "?" => crate::say!("{}", SLASH_HELP.trim_end()),
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "retry" => return Ok(Next::Retry),
            "edit" => {
                let text = state.lines.cooked(|| compose::in_editor(rest))?;
                let text = message_text(&text);
                if text.is_empty() || check_not_blank(&text).is_err() {
                    crate::say!("Nothing sent: the editor left the message empty.");
                    return Ok(Next::Prompt);
                }
                return Ok(Next::Send(text));
            }
            "continue" | "c" => self.continue_in(state, rest)?,
            "id" => match &state.current {
                Some(h) => crate::say!("{}", h.id),
                None => crate::say!("(new session: saved with its first message)"),
            },
            "title" => self.title(state, rest)?,
            "new" => {
                // Check the title before leaving the current session: a
                // refused `/new TITLE` changes nothing.
                state.pending_title =
                    if rest.is_empty() { None } else { Some(self.title_for_new_session(rest)?) };
                state.current = None;
                state.history.clear();
                state.unanswered = false;
                crate::say!("New session. It is saved with its first message.");
            }
            "save" => self.save(state, rest)?,
            "sessions" => view::list::print_recent(self.store, self.terminal.as_ref(), 10)?,
            _ => crate::say!("Unknown command '/{name}'. Type /help for the list."),
        }
        Ok(Next::Prompt)
    }

    /// `/continue NAME`: switch to another session.
    fn continue_in(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        if rest.is_empty() {
            return Err(Error::usage("name the session to continue: /continue NAME"));
        }
        let header = match resolve::lookup(self.store, rest)? {
            Lookup::Found(header) => header,
            Lookup::Missing { did_you_mean } => {
                return Err(Error::NotFound { name: rest.to_string(), did_you_mean });
            }
        };
        self.point_breadcrumb(&header);
        state.history = self.show_resume(&header, None)?;
        state.current = Some(header);
        state.pending_title = None;
        state.unanswered = false;
        Ok(())
    }

    /// `/title [NEW]`: show the title, or set it (a new session's is
    /// checked now and given with its first message).
    fn title(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        match (&state.current, rest) {
            (Some(h), "") if h.title.is_empty() => crate::say!("(untitled)"),
            (Some(h), "") => crate::say!("{}", crate::text::printable(&h.title, false)),
            (None, "") => {
                crate::say!("{}", state.pending_title.as_deref().unwrap_or("(untitled)"))
            }
            (Some(h), new) => {
                let header = titles::rename(self.store, &h.id, new)?;
                crate::say!("renamed {} to '{}'", header.id, crate::text::printable(&header.title, false));
                state.current = Some(header);
            }
            (None, new) => {
                state.pending_title = Some(self.title_for_new_session(new)?);
                crate::say!(
                    "The new session will be titled '{}'.",
                    state.pending_title.as_deref().unwrap_or("")
                );
            }
        }
        Ok(())
    }

    /// `/save [FILE]`: the conversation as Markdown.
    fn save(&self, state: &Interactive, rest: &str) -> Result<()> {
        let Some(h) = &state.current else {
            crate::say!("Nothing to save yet.");
            return Ok(());
        };
        let session = self.store.load(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
        let file = if rest.is_empty() { format!("hermes-{}.md", h.id) } else { home_relative(rest) };
        output::write_file(std::path::Path::new(&file), view::markdown(&[session]).as_bytes())?;
        crate::say!("Saved to {file}.");
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
    lines: LineReader,
}

/// What a typed line leads to.
enum Next {
    Prompt,
    Quit,
    Send(String),
    Retry,
}

/// Messages shown when a session is resumed.
const RESUME_SHOWN: usize = 4;

const SLASH_HELP: &str = "\
/help              this list
/title [NEW]       show or set the session's title
/new [TITLE]       start a new session
/continue NAME     switch to another session (by title or ID)
/retry             ask again about the last message, if it has no reply
                   or its reply was interrupted
/edit [TEXT]       write the message in $VISUAL, else $EDITOR, else vi
/save [FILE]       save the conversation as Markdown (default hermes-ID.md)
/sessions          recent sessions
/id                the session's ID
/quit              leave (also Ctrl-D)
Ctrl-C while a reply is running stops it and keeps the conversation.
Keys: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K/Y, Ctrl-L;
Up/Down and Ctrl-R: earlier messages; Alt-Enter or Ctrl-J: a new line;
Ctrl-X Ctrl-E: edit the line in $VISUAL/$EDITOR; Ctrl-C clears the line.
";

/// The next line typed at the prompt; None at the end (Ctrl-D). A line
/// cancelled (Ctrl-C) or too long to take is an empty one.
fn read_line(state: &mut Interactive) -> Result<Option<String>> {
    let prompt = prompt_for(state);
    match state.lines.read(&prompt, &state.history) {
        Err(e @ Error::TooLarge(_)) => go_on_after(e).map(|()| Some(String::new())),
        Err(e) => Err(e),
        Ok(prompt::Line::Text(l)) => Ok(Some(l)),
        Ok(prompt::Line::Cancelled) => {
            crate::say!();
            Ok(Some(String::new()))
        }
        Ok(prompt::Line::End) => {
            crate::say!();
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
