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

/// `chat -q TEXT --json`: what came of the turn, one object on stdout
/// whatever its exit status (once the command line is read: its own
/// usage errors are plain text on stderr). Every field is always there,
/// null when it does not apply.
#[derive(SerJson, Default)]
#[nserde(serialize_none_as_null)]
pub struct Turn {
    /// The session the turn was in; null when it failed before one was
    /// settled on (a name that matched nothing, a store it could not read).
    session_id: Option<String>,
    title: Option<String>,
    /// Whether this turn made the session (false: it was continued, or a
    /// `--create-if-missing` found it made by another).
    created: bool,
    /// The model the turn asked for (none: the agent's default).
    model: Option<String>,
    /// The role the session was started with.
    role: Option<String>,
    /// The reply as saved (or as it came, when saving it failed: then
    /// only here); null with no agent, or when none came.
    reply: Option<String>,
    /// The reply's fenced code blocks, in order, without fences (`-x`
    /// prints them); null when `reply` is.
    code: Option<Vec<String>>,
    /// Stopped by Ctrl-C or SIGTERM: `reply` holds what came first.
    interrupted: bool,
    /// The reply did not end (a cut connection, the timeout, a failed
    /// agent): `reply` holds what came, saved marked so.
    incomplete: bool,
    /// The tokens the server counted, when it said.
    usage: Option<Usage>,
    /// Why the turn failed (as said on stderr, without `hermes: `).
    error: Option<String>,
    /// hermes's exit status.
    exit_status: i32,
}

impl Turn {
    /// A turn of no session: one `--no-save` did not make.
    pub(super) fn of_no_session(self) -> Turn {
        Turn { session_id: None, title: None, ..self }
    }

    /// Print the object for a turn that came to `result`; none for a
    /// mistake in what was given (exit status 2: said on stderr alone).
    pub(super) fn print(mut self, result: &Result<()>) -> Result<()> {
        if let Err(e) = result {
            if e.exit_code() == crate::error::EXIT_USAGE {
                return Ok(());
            }
            self.interrupted |= matches!(e, Error::Interrupted);
            let said = e.to_string();
            let first = said.lines().next().unwrap_or_default();
            self.error = Some(first.to_string());
            self.exit_status = e.exit_code();
        }
        let mut out = Out::new();
        out.data(&self.serialize_json())?;
        out.write_own("\n")?;
        out.flush()?;
        io::stdout().flush().map_err(crate::output::map_stdout_error)
    }
}

impl Chat<'_> {
    pub(super) fn one_shot(&self, target: Option<Header>, title: Option<String>, text: String) -> Result<()> {
        if self.no_save {
            return self.one_shot_unsaved(target, title, text);
        }
        let message = Message::new("user", text, time::now());
        // `--json`: the session named, should saving the message fail.
        if let (Some(turn), Some(h)) = (self.json_turn, &target) {
            *turn.borrow_mut() = self.turn_of(h);
        }
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
        let result = if self.holds_reply() {
            self.reply(&header, started, &mut settle, &mut io::sink())
        } else {
            self.reply(&header, started, &mut settle, &mut io::stdout().lock())
        };
        settle();
        let code = self.code_of_reply();
        if let Some(turn) = &self.json_turn {
            *turn.borrow_mut() = self.turn_of(&header);
        } else if !self.quiet && self.settings.borrow().says_session_id(crate::sys::isatty(2)) {
            crate::output::note!("session_id: {}", header.id);
        }
        match result? {
            ReplyOutcome::Interrupted => Err(Error::Interrupted),
            _ => self.print_code(code, Some(&header.id)).and_then(|()| self.execute_reply(Some(&header.id))),
        }
    }

    /// The agent started before the message is saved, when it reads only
    /// its input (`Agent::reads_input_only`) and no summariser may have to
    /// run first (`compact = "auto"` on a session larger than the budget).
    pub(super) fn start_request_early(&self, target: Option<&Header>) -> Option<Result<Started<'_>>> {
        // Started already, before the lookup; killed here, unheard, if a
        // summariser must run first.
        let early = self.early_request.take();
        let agent = self.agent.as_ref().filter(|a| a.reads_input_only())?;
        if self.auto_compact && !target.is_some_and(|h| self.fits_whole(&h.id)) {
            return None;
        }
        // The model the save records (see `note_model`), which the
        // request names.
        let mut h = match target {
            // The index holds no model options: the file's header does.
            Some(h) => self.store.header(&h.id).ok().flatten().unwrap_or_else(|| h.clone()),
            None => Header::new(String::new(), String::new(), 0.0),
        };
        self.note_model(&mut h);
        Some(agent.start_request((h.model.as_deref(), h.options.as_ref()), early))
    }

    /// The reply is not streamed to stdout but held: for the object of
    /// `--json`, the code `-x` prints, or the command `-e` prints when it
    /// has no terminal to ask on.
    pub(super) fn holds_reply(&self) -> bool {
        self.json || self.code || self.execute && !(crate::sys::isatty(0) && crate::sys::isatty(2))
    }

    /// `--json`: what the object says of the session and the reply.
    pub(super) fn turn_of(&self, header: &Header) -> Turn {
        let reply = self.reply_for_json.borrow_mut().take();
        Turn {
            session_id: Some(header.id.clone()),
            title: Some(header.title.clone()),
            created: self.created.get(),
            model: self.model_for(Some(header)).map(|(model, _)| model),
            role: header.role.clone(),
            interrupted: reply.as_ref().is_some_and(Message::is_interrupted),
            incomplete: reply.as_ref().is_some_and(Message::is_incomplete),
            usage: reply.as_ref().and_then(|m| m.usage),
            code: reply.as_ref().map(|m| super::copy::code_blocks(&m.content)),
            reply: reply.map(|m| m.content),
            ..Turn::default()
        }
    }
}
