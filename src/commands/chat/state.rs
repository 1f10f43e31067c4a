//! The interactive chat's state: the session in hand and what this chat
//! wrote in it, what a typed line leads to, resuming a session and naming
//! a new one; what the prompt loop (repl.rs) and the slash commands
//! (slash.rs) both use.

use super::{Chat, title_taken};
use crate::error::{Error, Result};
use crate::output;
use crate::resolve::Reason;
use std::collections::HashSet;

use crate::store::history::Typed;
use crate::store::images;
use crate::store::session::{Header, Message, Session};
use crate::store::titles;
use crate::terminal::history::{History, Recalled};
use crate::terminal::prompt::LineReader;
use crate::view;

pub(super) struct Interactive {
    pub(super) current: Option<Header>,
    pub(super) pending_title: Option<String>,
    /// The files `-f` and `/file` put into the next message.
    pub(super) attached: Vec<super::attach::Attached>,
    /// What Up, Down and Ctrl-R recall: the session's user messages and
    /// what was typed in other sessions (the store's history).
    pub(super) history: History,
    /// The store's history as last read (its size and time).
    pub(super) history_seen: Option<(u64, std::time::SystemTime)>,
    /// The last send failed (the agent did): this chat's message that has
    /// no reply, which the next text typed joins.
    pub(super) unanswered: Option<MessageAt>,
    /// The last message this chat saved (or joined) in this session.
    pub(super) mine: Option<MessageAt>,
    /// The session's messages this chat knows of (saw, or wrote): any
    /// other in the file is another process's (see `news_from_elsewhere`).
    pub(super) known: Known,
    pub(super) lines: LineReader,
}

/// One of the session's messages, known by its place (0 first) and time:
/// which message this chat wrote, whatever others add after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct MessageAt {
    pub(super) index: u64,
    pub(super) ts: f64,
}

/// A message as this chat tells it from others: its role, whether it is
/// a summary, and its time. Every message hermes writes in a session has
/// its own (a system prompt put first takes the first message's time, but
/// not its role; a summary takes the time of the last message it covers).
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub(crate) struct Mark {
    role: u8,
    summary: bool,
    ts: u64,
}

impl Mark {
    pub(crate) fn of(message: &Message) -> Mark {
        Mark::new(&message.role, message.is_summary(), message.ts)
    }

    pub(crate) fn new(role: &str, summary: bool, ts: f64) -> Mark {
        let role = match role {
            "user" => 0,
            "assistant" => 1,
            "system" => 2,
            _ => 3,
        };
        Mark { role, summary, ts: ts.to_bits() }
    }
}

/// The messages of the session in hand this chat knows of.
#[derive(Default)]
pub(super) struct Known(HashSet<Mark>);

impl Known {
    /// Every message of `session`.
    pub(super) fn of(session: &Session) -> Known {
        Known(session.messages.iter().map(Mark::of).collect())
    }

    pub(super) fn len(&self) -> u64 {
        self.0.len() as u64
    }

    pub(super) fn contains(&self, mark: &Mark) -> bool {
        self.0.contains(mark)
    }

    pub(super) fn extend(&mut self, marks: impl IntoIterator<Item = Mark>) {
        self.0.extend(marks);
    }
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
/// Of each, its start at most (characters)...
const RESUME_START_CHARS: usize = 400;
/// ...but of the last reply its end, at most (characters, lines).
const RESUME_END_CHARS: usize = 1500;
const RESUME_END_LINES: usize = 20;

impl Chat<'_> {
    /// Show which session this is and how it was chosen, then its last
    /// few messages (from a question, not from the middle of an exchange).
    /// Returns its user messages, oldest first (the prompt's history), and
    /// the messages it now knows of.
    pub(super) fn show_resume(
        &self,
        header: &Header,
        chose_by: Option<Reason>,
    ) -> Result<(Vec<Recalled>, Known)> {
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
        let screen = self.screen();
        // Where the conversation left off: the end of the last reply
        // shown, not its start.
        let last_reply = session.messages.iter().rposition(|m| m.role == "assistant");
        let whole = format!("hermes sessions show {}", h.id);
        for (at, m) in session.messages.iter().enumerate().skip(skip) {
            let part = if Some(at) == last_reply {
                view::Part::End { chars: RESUME_END_CHARS, lines: RESUME_END_LINES, whole: &whole }
            } else {
                view::Part::Start(RESUME_START_CHARS)
            };
            output::say_drawn(&view::render_message(m, part, screen));
        }
        Ok((recalled(&session), Known::of(&session)))
    }

    /// Where messages are shown: the terminal, replies drawn as a reply
    /// is (`render`), or None into a pipe.
    fn screen(&self) -> Option<view::Screen> {
        view::Screen::of_stdout(self.render == view::reply::Render::Plain)
    }

    /// Say what another terminal added to this session since the prompt
    /// last drew (and show it), and give its messages to Up and Down.
    pub(super) fn news_from_elsewhere(&self, state: &mut Interactive) -> Result<()> {
        let Some(h) = &state.current else { return Ok(()) };
        let count = self.store.header(&h.id)?.map_or(0, |h| h.message_count);
        let mine = std::mem::take(&mut *self.saved_here.borrow_mut());
        state.known.extend(mine);
        if count == state.known.len() {
            // As many as this chat knows of: nothing of anyone else's.
            return Ok(());
        }
        let Some(session) = self.store.load(&h.id)? else { return Ok(()) };
        let news: Vec<&Message> =
            session.messages.iter().filter(|m| !state.known.contains(&Mark::of(m))).collect();
        state.known = Known::of(&session);
        if news.is_empty() {
            return Ok(());
        }
        crate::output::say!("{} from another terminal:", crate::text::counted(news.len(), "new message"));
        let screen = self.screen();
        for m in &news {
            output::say_drawn(&view::render_message(m, view::Part::Start(RESUME_START_CHARS), screen));
        }
        // Up and Down step through the session's messages as the file has them.
        state.history.set_here(recalled(&session));
        state.current = Some(session.header);
        Ok(())
    }

    /// After a change this chat made to the session itself (its system
    /// prompt, a summary): its messages as they now are, known, so that
    /// none of them is taken for another terminal's. What others wrote
    /// before the change is shown first.
    pub(super) fn own_change(
        &self,
        state: &mut Interactive,
        change: impl FnOnce(&mut Interactive) -> Result<()>,
    ) -> Result<()> {
        self.news_from_elsewhere(state)?;
        let result = change(state);
        if let Some(h) = &state.current
            && let Some(session) = self.store.load(&h.id)?
        {
            self.saved_here.borrow_mut().clear();
            state.known = Known::of(&session);
        }
        result
    }

    /// Which files go with the next message, if any.
    pub(super) fn say_attached(&self, state: &Interactive) {
        match state.attached.as_slice() {
            [] => crate::output::say!("No files attached: /file FILE puts one into the next message."),
            files => {
                let names: Vec<String> = files
                    .iter()
                    .map(|f| match &f.image {
                        Some((kind, bytes)) => {
                            format!("{} ({}, {})", f.name, kind.what, images::size(bytes.len() as u64))
                        }
                        None => {
                            format!(
                                "{} ({})",
                                f.name,
                                crate::text::counted(f.text.chars().count(), "character")
                            )
                        }
                    })
                    .collect();
                crate::output::say!("Attached to the next message: {}.", names.join(", "));
            }
        }
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

/// The session's user messages, oldest first, as the prompt recalls them.
pub(super) fn recalled(session: &Session) -> Vec<Recalled> {
    let from = &session.header.title;
    let user = session.messages.iter().filter(|m| m.role == "user");
    user.map(|m| Recalled { text: m.content.clone(), from: from.clone(), ts: m.ts }).collect()
}

impl Interactive {
    /// What other sessions' prompts added to the store's history since it
    /// was last read, for Up and Ctrl-R.
    pub(super) fn refresh_history(&mut self, store: &crate::store::Store) {
        let stamp = store.history_stamp();
        if stamp.is_some() && stamp == self.history_seen {
            return;
        }
        self.history_seen = stamp;
        let typed = store.typed_history().into_iter();
        self.history
            .set_elsewhere(typed.map(|t| Recalled { text: t.text, from: t.title, ts: t.ts }).collect());
    }
}

impl Chat<'_> {
    /// `text`, typed at the prompt and sent (saved in `header`'s session,
    /// or not saved: None), for Up and Ctrl-R here and in every other
    /// session's prompt. The store's history is best effort: a chat goes
    /// on without it.
    pub(super) fn remember_typed(&self, state: &mut Interactive, header: Option<&Header>, text: &str) {
        let (session, title) = match header.or(state.current.as_ref()) {
            Some(h) => (h.id.clone(), h.title.clone()),
            None => (String::new(), state.pending_title.clone().unwrap_or_default()),
        };
        let ts = crate::time::now();
        state.history.push(Recalled { text: text.to_string(), from: title.clone(), ts });
        let _ = self.store.remember_typed(&Typed { ts, session, title, text: text.to_string() });
    }
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
