//! The interactive chat: the prompt loop, sending and answering, /retry
//! and news from other terminals (the slash commands are in slash.rs).

use std::io;

use super::attach::{self, Attached};
use super::slash;
use super::state::{Interactive, Known, Mark, MessageAt, Next, go_on_after, message_text, note_in_chat};
use super::{Chat, ReplyOutcome, check_not_blank};
use crate::error::{Error, Result};
use crate::resolve::Reason;
use crate::store::session::{Header, Message};
use crate::sys;
use crate::terminal;
use crate::terminal::prompt::{self, LineReader};
use crate::time;

impl Chat<'_> {
    pub(super) fn interactive(
        &self,
        target: Option<Header>,
        chose_by: Option<Reason>,
        title: Option<String>,
        attached: Vec<Attached>,
    ) -> Result<()> {
        let mut state = Interactive {
            current: target,
            pending_title: title,
            attached,
            history: Default::default(),
            history_seen: None,
            unanswered: None,
            mine: None,
            known: Known::default(),
            lines: LineReader::for_chat(),
        };
        self.greet(&mut state, chose_by)?;
        if !state.attached.is_empty() {
            self.say_attached(&state);
        }
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
            let Some(line) = read_line(self.store, &mut state, &mut |typed| slash::complete(self, typed))?
            else {
                return Ok(());
            };
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
                Some(command) if !command.contains('\n') => match slash::run(self, &mut state, command) {
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
                let here;
                (here, state.known) = self.show_resume(h, chose_by)?;
                state.history.set_here(here);
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

    /// Save what was typed and ask the agent. What other terminals wrote
    /// meanwhile is shown first. After a failed send, the next message
    /// joins this chat's own unanswered one (the same text typed again is
    /// not repeated), so failures do not pile up as separate messages; once
    /// another message came after it, it is sent as a new one instead.
    fn send(&self, state: &mut Interactive, text: String) -> Result<()> {
        if let Err(e) = self.news_from_elsewhere(state) {
            go_on_after(e)?;
        }
        // The files /file (or -f) attached go first; what was typed stays
        // what the prompt and its history know.
        if let Err(e) = self.take_files(&state.attached, &text) {
            state.lines.prefill(text);
            return go_on_after(e);
        }
        let message = match state.attached.as_slice() {
            [] => text.clone(),
            files => match attach::compose("", files, &text) {
                Ok(message) => message,
                Err(e) => {
                    state.lines.prefill(text);
                    return go_on_after(e);
                }
            },
        };
        let (header, mine) = match self.save_typed(state, &message) {
            Ok(saved) => saved,
            // Nothing typed is lost: the text goes back to the prompt and
            // into its history (a full disk, a lock another hermes holds),
            // so Enter sends it again once the cause is gone, or it is
            // taken to a /new session.
            Err(e) => {
                go_on_after(e)?;
                if state.lines.is_editor() {
                    crate::output::note!(
                        "[the message was not saved; it is back at the prompt: Enter sends it again]"
                    );
                } else {
                    crate::output::note!("[the message was not saved]");
                }
                self.remember_typed(state, None, &text);
                state.lines.prefill(text);
                return Ok(());
            }
        };
        state.attached.clear();
        if state.current.is_none() {
            self.point_breadcrumb(&header);
            state.known = Known::default();
        }
        self.remember_typed(state, Some(&header), &text);
        state.pending_title = None;
        state.current = Some(header.clone());
        state.mine = Some(mine);
        self.answer(state, &header, Some(mine))
    }

    /// Save `text`: joined onto this chat's own unanswered message when
    /// it can be, else as a message of its own (in a new session if there
    /// is none yet). The session as saved, and which message is ours.
    fn save_typed(&self, state: &Interactive, text: &str) -> Result<(Header, MessageAt)> {
        // A message with images is one of its own.
        if let (Some(h), Some(own), None) = (&state.current, state.unanswered, &*self.images.borrow())
            && let Some(joined) = self.join_unanswered(h, text, own)?
        {
            return Ok(joined);
        }
        let message = Message::new("user", text.to_string(), time::now());
        let ts = message.ts;
        self.saved_here.borrow_mut().push(Mark::of(&message));
        let (header, _bookkept) =
            self.save_user_message(state.current.as_ref(), state.pending_title.as_deref(), message, || {})?;
        // Appended under the session's lock: the last message.
        let index = header.message_count.saturating_sub(1);
        Ok((header, MessageAt { index, ts }))
    }

    /// This chat's own unanswered message `own` with `text` joined to it;
    /// None (nothing changed) unless it is still the session's last message
    /// at its place and time: a message another terminal added after it,
    /// or one in its place, is never rewritten.
    fn join_unanswered(
        &self,
        header: &Header,
        text: &str,
        own: MessageAt,
    ) -> Result<Option<(Header, MessageAt)>> {
        let mut joined = None;
        let header = self.store.edit_messages(&header.id, |messages| {
            let is_last = messages.len() as u64 == own.index + 1;
            match messages.last_mut() {
                Some(last) if is_last && last.role == "user" && last.ts.to_bits() == own.ts.to_bits() => {
                    if last.content == text {
                        joined = Some(own);
                        return false;
                    }
                    last.content = format!("{}\n\n{text}", last.content);
                    last.ts = time::now();
                    self.saved_here.borrow_mut().push(Mark::of(last));
                    joined = Some(MessageAt { index: own.index, ts: last.ts });
                    true
                }
                _ => false,
            }
        })?;
        Ok(joined.map(|own| (header, own)))
    }

    /// Run the agent on the session as it stands and say how it went.
    /// `question`: the message it answers, when this chat wrote it (only
    /// then can more be typed onto it if the agent fails).
    fn answer(&self, state: &mut Interactive, header: &Header, question: Option<MessageAt>) -> Result<()> {
        state.unanswered = None;
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
            Err(e @ Error::Agent(_)) => {
                note_in_chat(&e);
                if self.kept_incomplete.get() {
                    crate::output::note!("[the message is kept, and what arrived; /retry asks again]");
                    return Ok(());
                }
                state.unanswered = question;
                if question.is_some() {
                    crate::output::note!(
                        "[the message is kept; /retry sends it again, or type more to add to it]"
                    );
                } else {
                    crate::output::note!("[the message is kept; /retry sends it again]");
                }
                Ok(())
            }
            Err(e) => Err(e),
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
        let mut retried = None;
        let header = self.store.edit_messages(&h.id, |messages| {
            let Some(question) = messages.iter().rposition(|m| m.role == "user") else { return false };
            retried = Some(MessageAt { index: question as u64, ts: messages[question].ts });
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
        let Some(question) = retried else {
            crate::output::say!("Nothing to retry: the session has no message of yours yet.");
            return Ok(());
        };
        // Typed onto later only if this chat wrote it.
        let own = state
            .mine
            .filter(|mine| mine.index == question.index && mine.ts.to_bits() == question.ts.to_bits());
        self.answer(state, &header, own)
    }
}

/// The next line typed at the prompt; None at the end (Ctrl-D). A line
/// cancelled (Ctrl-C) or too long to take is an empty one.
/// `complete` is what Tab may make of a slash command.
fn read_line(
    store: &crate::store::Store,
    state: &mut Interactive,
    complete: &mut dyn FnMut(&str) -> Vec<String>,
) -> Result<Option<String>> {
    let prompt = prompt_for(state);
    state.refresh_history(store);
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
