//! The interactive chat: the prompt loop, sending and answering, /retry
//! and news from other terminals (the slash commands are in slash.rs).

use std::io;

use super::slash::SLASH_COMMANDS;
use super::{Chat, ReplyOutcome, check_not_blank, title_taken};
use crate::error::{Error, Result};
use crate::resolve::Reason;
use crate::store::session::{Header, Message, Session};
use crate::store::titles;
use crate::sys;
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
            // is spent; a SIGTERM or SIGHUP (the terminal closed) ends the
            // chat, also when it stopped a reply or /compact on the way.
            let _spent = sys::take_signal();
            if sys::ending() {
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
        let outcome = state.lines.replying(|| self.reply(header, None, &mut || {}, &mut io::stdout().lock()));
        match outcome {
            // SIGTERM or SIGHUP: what came of the reply is saved; the chat ends.
            Ok(ReplyOutcome::Interrupted) | Err(Error::Interrupted) if sys::ending() => {
                Err(Error::Interrupted)
            }
            // Ctrl-C stops the turn wherever it was (the key's command, a
            // summary, the reply), not the chat.
            Ok(ReplyOutcome::Interrupted) | Err(Error::Interrupted) => {
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
    pub(super) fn show_resume(&self, header: &Header, chose_by: Option<Reason>) -> Result<Vec<String>> {
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
    pub(super) fn title_for_new_session(&self, raw: &str) -> Result<String> {
        let title = titles::user_title(raw)?;
        if let Some(other) = titles::holder(self.store, &title, None)? {
            return Err(title_taken(&title, &other.id, true));
        }
        Ok(title)
    }
}

pub(super) struct Interactive {
    pub(super) current: Option<Header>,
    pub(super) pending_title: Option<String>,
    /// The session's user messages, oldest first: Up, Down and Ctrl-R.
    pub(super) history: Vec<String>,
    /// The last send failed (the agent did): its message has no reply.
    pub(super) unanswered: bool,
    /// How many of the session's messages this prompt knows of: more in
    /// the file are another terminal's (see `news_from_elsewhere`).
    pub(super) seen: u64,
    pub(super) lines: LineReader,
}

/// What a typed line leads to.
pub(super) enum Next {
    Prompt,
    Quit,
    Send(String),
    Retry,
}

/// Messages shown when a session is resumed.
const RESUME_SHOWN: usize = 4;

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
pub(super) fn message_text(typed: &str) -> String {
    if !typed.contains('\n') {
        return typed.trim().to_string();
    }
    let lines: Vec<&str> = typed.trim_end().lines().skip_while(|l| l.trim().is_empty()).collect();
    lines.join("\n")
}

fn user_messages(session: &Session) -> Vec<String> {
    session.messages.iter().filter(|m| m.role == "user").map(|m| m.content.clone()).collect()
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
pub(super) fn note_in_chat(e: &Error) {
    match e {
        Error::Usage(text) => output::notice(text),
        e => output::report(e),
    }
}
