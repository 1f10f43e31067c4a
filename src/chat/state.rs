//! The interactive chat's state: the session in hand and what this chat
//! wrote in it, what a typed line leads to, resuming a session and naming
//! a new one; what the prompt loop (repl.rs) and the slash commands
//! (slash.rs) both use.

use super::{Chat, title_taken};
use crate::error::{Error, Result};
use crate::output;
use crate::resolve::Reason;
use crate::store::session::{Header, Session};
use crate::store::titles;
use crate::terminal::prompt::LineReader;
use crate::view;

pub(super) struct Interactive {
    pub(super) current: Option<Header>,
    pub(super) pending_title: Option<String>,
    /// The session's user messages, oldest first: Up, Down and Ctrl-R.
    pub(super) history: Vec<String>,
    /// The last send failed (the agent did): this chat's message that has
    /// no reply, which the next text typed joins.
    pub(super) unanswered: Option<Own>,
    /// The last message this chat saved (or joined) in this session.
    pub(super) mine: Option<Own>,
    /// How many of the session's messages this prompt knows of: more in
    /// the file are another terminal's (see `news_from_elsewhere`).
    pub(super) seen: u64,
    pub(super) lines: LineReader,
}

/// One of the session's messages, known by its place (0 first) and time:
/// which message this chat wrote, whatever others add after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Own {
    pub(super) index: u64,
    pub(super) ts: f64,
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

impl Chat<'_> {
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
        let title = titles::user_title(self.store, raw)?;
        if let Some(other) = titles::holder(self.store, &title, None)? {
            return Err(title_taken(&title, &other.id, true));
        }
        Ok(title)
    }
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

pub(super) fn user_messages(session: &Session) -> Vec<String> {
    session.messages.iter().filter(|m| m.role == "user").map(|m| m.content.clone()).collect()
}

/// An error inside the interactive loop: Ctrl-C's kin and a closed stdout
/// end the chat; any other is said, and the chat goes on.
pub(super) fn go_on_after(e: Error) -> Result<()> {
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
