//! The one-shot turn (`-q TEXT`, `-q -`, a message on stdin): the message
//! saved, the agent run, the reply printed as it streams, or, with
//! `--json`, one JSON object once the turn is over (what a script reads
//! instead of stderr).

use std::io::{self, Write};

use nanoserde::SerJson;

use super::{Chat, ReplyOutcome};
use crate::agent::Started;
use crate::error::{Error, Result};
use crate::output::Out;
use crate::store::session::{Header, Message, Usage};
use crate::time;

/// `chat -q TEXT --json`: what came of the turn. Every field is always
/// there, null when it does not apply.
#[derive(SerJson)]
#[nserde(serialize_none_as_null)]
struct Turn {
    session_id: String,
    title: String,
    /// Whether this turn made the session (false: it was continued, or a
    /// `--create-if-missing` found it made by another).
    created: bool,
    /// The model the turn asked for (none: the agent's default).
    model: Option<String>,
    /// The role the session was started with.
    role: Option<String>,
    /// The reply as saved; null with no agent, or when the turn failed.
    reply: Option<String>,
    /// Stopped by Ctrl-C or SIGTERM: `reply` holds what came first.
    interrupted: bool,
    /// The tokens the server counted, when it said.
    usage: Option<Usage>,
    /// Why the turn failed (as said on stderr, without `hermes: `).
    error: Option<String>,
}

impl Chat<'_> {
    pub(super) fn one_shot(&self, target: Option<Header>, title: Option<String>, text: String) -> Result<()> {
        let message = Message::new("user", text, time::now());
        // hermes's own request (curl) reads nothing of the session: it
        // starts first, its start-up overlapping the save, and gets its
        // input only once the message is saved (see `reply`).
        let mut started = self.start_request_early(target.as_ref());
        // In an existing session another agent starts as soon as the
        // message is in the session's file, while the directory is synced.
        let start = || {
            if started.is_some() {
                return;
            }
            // With `compact = "auto"` a summariser may have to run first:
            // one agent at a time, so this one starts after it (in `reply`),
            // unless the session is too small to be compacted. Nor does it
            // start here, under the session's lock, when api_key_command
            // must run first: that may take longer than a lock is waited for.
            if let (Some(agent), Some(h)) = (&self.agent, &target)
                && (!self.auto_compact || self.fits_whole(&h.id))
                && agent.starts_at_once()
            {
                // With the model the append records (see `note_model`).
                let mut h = h.clone();
                self.note_model(&mut h);
                started = Some(agent.start(&h));
            }
        };
        let (header, later) = self.save_user_message(target.as_ref(), title.as_deref(), message, start)?;
        // The catalog's bookkeeping and the breadcrumb wait until the agent
        // has its input, so that it is not kept waiting for them.
        let mut pending = Some(later);
        let mut settle = || {
            if let Some(later) = pending.take() {
                drop(later);
                self.point_breadcrumb(&header);
            }
        };
        // With --json the reply is kept for the object, not streamed.
        let result = if self.json {
            self.reply(&header, started, &mut settle, &mut io::sink())
        } else {
            self.reply(&header, started, &mut settle, &mut io::stdout().lock())
        };
        settle();
        if self.json {
            self.print_turn(&header, &result)?;
        } else if !self.quiet && self.settings.borrow().says_session_id(crate::sys::isatty(2)) {
            crate::output::note!("session_id: {}", header.id);
        }
        match result? {
            ReplyOutcome::Interrupted(_) => Err(Error::Interrupted),
            _ => Ok(()),
        }
    }

    /// The agent started before the message is saved, when it reads only
    /// its input (`Agent::reads_input_only`) and no summariser may have to
    /// run first (`compact = "auto"` on a session larger than the budget).
    fn start_request_early(&self, target: Option<&Header>) -> Option<Result<Started<'_>>> {
        // Started already, before the lookup; killed here, unheard, if a
        // summariser must run first.
        let early = self.early_request.take();
        let agent = self.agent.as_ref().filter(|a| a.reads_input_only())?;
        if self.auto_compact && !target.is_some_and(|h| self.fits_whole(&h.id)) {
            return None;
        }
        // The model the save records (see `note_model`), which the
        // request names.
        let model = match target {
            Some(h) => {
                let mut h = h.clone();
                self.note_model(&mut h);
                h.model
            }
            None => self.model_for(None).map(|(model, _)| model),
        };
        Some(agent.start_request(model, early))
    }

    /// `--json`: the turn as one object on stdout, whatever came of it
    /// (a failure is said on stderr too, and keeps its exit status).
    fn print_turn(&self, header: &Header, result: &Result<ReplyOutcome>) -> Result<()> {
        let (reply, interrupted, error) = match result {
            Ok(ReplyOutcome::Replied(reply)) => (reply.as_ref(), false, None),
            Ok(ReplyOutcome::Interrupted(reply)) => (reply.as_ref(), true, None),
            Ok(ReplyOutcome::NoAgent) => (None, false, None),
            Err(e) => (None, matches!(e, Error::Interrupted), Some(e.to_string())),
        };
        let turn = Turn {
            session_id: header.id.clone(),
            title: header.title.clone(),
            created: self.created.get(),
            model: header.model.clone(),
            role: header.role.clone(),
            reply: reply.map(|m| m.content.clone()),
            interrupted,
            usage: reply.and_then(|m| m.usage),
            error,
        };
        let mut out = Out::new();
        out.data(&turn.serialize_json())?;
        out.write_own("\n")?;
        out.flush()?;
        io::stdout().flush().map_err(crate::output::map_stdout_error)
    }
}
