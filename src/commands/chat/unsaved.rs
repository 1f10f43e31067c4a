//! A one-shot turn that keeps nothing (`--no-save`, `save = "false"`):
//! the session as it would be with the message is built in memory and
//! handed to the agent; the reply is printed and never written. The store
//! is only read: no session made or changed, no breadcrumb.

use std::io;
use std::path::Path;

use super::Chat;
use crate::error::{Error, Result};
use crate::store::format;
use crate::store::session::{self, Header, Message};
use crate::store::{context, fault_error};
use crate::time;

impl Chat<'_> {
    pub(super) fn one_shot_unsaved(
        &self,
        target: Option<Header>,
        title: Option<String>,
        text: String,
    ) -> Result<()> {
        let Some(agent) = &self.agent else {
            return Err(Error::usage(
                "--no-save: no agent to answer, and nothing would be kept; configure one (see 'man hermes')",
            ));
        };
        let message = Message::new("user", text, time::now());
        let (header, bytes) = match &target {
            Some(h) => (h.clone(), self.with_message(h, message)?),
            None => {
                let (header, all) = self.session_to_be(title.as_deref(), std::slice::from_ref(&message));
                let bytes = format::encode(&header, &all);
                (header, bytes)
            }
        };
        let fault = |f| fault_error(Path::new(&header.id), f);
        let mut conversation = format::read(io::Cursor::new(bytes)).map_err(fault)?;
        let plan = context::plan(&mut conversation, self.budget.get()).map_err(fault)?;
        let conversation = conversation.rewind().map_err(fault)?;
        let mut h = conversation.header().clone();
        self.note_model(&mut h);
        let started = match self.start_request_early(Some(&h)) {
            Some(started) => started?,
            None => agent.start(&h)?,
        };
        let reply = if self.holds_reply() {
            self.show(started, conversation, plan, &mut io::sink(), || {})
        } else {
            self.show(started, conversation, plan, &mut io::stdout().lock(), || {})
        }?;
        let crate::agent::Reply { text, interrupted, failed, output_error, usage, .. } = reply;
        if session::is_empty_reply(&text) && !interrupted {
            return Err(failed
                .map(|e| self.name_model(&h, e))
                .unwrap_or_else(|| Error::Agent(format!("agent '{}' wrote an empty reply", agent.command))));
        }
        let reply = Message {
            interrupted: interrupted.then_some(true),
            incomplete: failed.is_some().then_some(true),
            usage,
            ..Message::new("assistant", text, time::now())
        };
        self.say_usage(reply.usage, None);
        *self.reply_for_json.borrow_mut() = Some(reply);
        let code = self.code_of_reply();
        if let Some(turn) = self.json_turn {
            let of = self.turn_of(&h);
            *turn.borrow_mut() = if target.is_some() { of } else { of.of_no_session() };
        }
        if let Some(e) = failed {
            return Err(self.name_model(&h, e));
        }
        if let Some(e) = output_error {
            return Err(Error::StdoutWrite(e));
        }
        if interrupted {
            Err(Error::Interrupted)
        } else {
            self.print_code(code, None).and_then(|()| self.execute_reply(None))
        }
    }

    /// Session `header`'s file as it would be with `message` appended,
    /// in memory: the file is only read.
    fn with_message(&self, header: &Header, message: Message) -> Result<Vec<u8>> {
        let vanished = || Error::Vanished { id: header.id.clone() };
        let path = self.store.session_path(&header.id).ok_or_else(vanished)?;
        let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
        let mut bytes = Vec::new();
        format::append(file, &mut bytes, &header.id, &[message], |_| {}, crate::store::MAX_SESSION_BYTES)
            .map_err(|f| fault_error(&path, f))?;
        Ok(bytes)
    }
}
