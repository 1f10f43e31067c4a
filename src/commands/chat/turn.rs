//! A turn in a chat: the agent run on the session as it stands (compacted
//! first when `compact = "auto"` asks), its reply shown and saved, with the
//! model it came from; a reply that failed after it began is saved marked
//! incomplete, and the failure said once, naming the model.

use std::io::Write;

use super::{Chat, state};
use crate::agent::{Agent, Reply, Started, compact};
use crate::error::{Error, Result};
use crate::settings::Origin;
use crate::store::context::{self, Plan};
use crate::store::session::{self, Header, Message, Usage};
use crate::terminal::breadcrumb;
use crate::{output, sys, time, view};

impl Chat<'_> {
    /// Run the agent on the session and save its reply: the agent `started`
    /// already, or started now. `fed` runs once the agent has its input (or
    /// there is no agent).
    pub(super) fn reply(
        &self,
        header: &Header,
        mut started: Option<Result<Started<'_>>>,
        fed: &mut dyn FnMut(),
        out: &mut dyn Write,
    ) -> Result<ReplyOutcome> {
        let Some(agent) = &self.agent else {
            fed();
            if self.hint_missing_agent {
                self.hint_no_agent();
            }
            return Ok(ReplyOutcome::NoAgent);
        };
        // The conversation goes to the agent straight from the file, a
        // message at a time, as much of it as the budget takes.
        let budget = self.budget.get();
        let vanished = || Error::Vanished { id: header.id.clone() };
        let (mut conversation, mut plan) =
            self.store.open_planned(&header.id, budget)?.ok_or_else(vanished)?;
        if plan.leaves_out() && self.auto_compact {
            drop(conversation);
            // Started early, the session since grown by another writer:
            // the summariser runs alone, this agent is started again after.
            drop(started.take());
            match compact::compact(self.store, agent, header, budget, None) {
                Ok(outcome) => {
                    if let compact::Outcome::Done { ts, .. } = outcome {
                        self.saved_here.borrow_mut().push(state::Mark::new("system", true, ts));
                    }
                    if sys::isatty(2) {
                        output::notice(&outcome.describe());
                    }
                }
                Err(Error::Interrupted) => return Ok(ReplyOutcome::Interrupted),
                Err(e) => output::warn(&format!(
                    "automatic compaction failed: {}; this turn sends what fits in the budget",
                    e.to_string().trim_end()
                )),
            }
            (conversation, plan) = self.store.open_planned(&header.id, budget)?.ok_or_else(vanished)?;
        }
        self.say_left_out(header, &plan);
        let mut fed = Some(fed);
        let started = match started {
            Some(started) => started?,
            None => {
                // api_key_command runs first, maybe for long: what waits
                // for the agent (and holds the catalog's lock) is done now.
                if !agent.starts_at_once()
                    && let Some(fed) = fed.take()
                {
                    fed();
                }
                let mut h = conversation.header().clone();
                self.note_model(&mut h);
                agent.start(&h)?
            }
        };
        let fed = || {
            if let Some(fed) = fed {
                fed();
            }
        };
        let reply = self.show(started, conversation, plan, out, fed)?;
        self.save_reply(header, agent, reply)
    }

    /// The agent's answer to `conversation`, as it streams: drawn on a
    /// terminal, else written as it comes (with `--json`, to `out`, a sink).
    pub(super) fn show<R: std::io::Read + Send + 'static>(
        &self,
        started: Started<'_>,
        conversation: crate::store::format::Reader<R>,
        plan: Plan,
        out: &mut dyn Write,
        fed: impl FnOnce(),
    ) -> Result<Reply> {
        if sys::isatty(1) && !self.holds_reply() {
            let mut shown =
                view::reply::OnTerminal::new(out, self.render, crate::text::colors_allowed(), true);
            let reply = started.answer(conversation, plan, &mut shown, fed);
            let _ = shown.finish();
            reply
        } else {
            started.answer(conversation, plan, out, fed)
        }
    }

    /// Save what the agent replied (marked interrupted when Ctrl-C cut it
    /// short, incomplete when it failed after it began), with the model it
    /// came from, and say what went wrong: an empty reply fails the turn
    /// and is not saved; one shown but not saved, or saved but not shown.
    fn save_reply(&self, header: &Header, agent: &Agent, reply: Reply) -> Result<ReplyOutcome> {
        let Reply { text, interrupted, failed, output_error, usage, ending } = reply;
        let empty = session::is_empty_reply(&text);
        self.kept_incomplete.set(false);
        // `--schema`: a whole reply that is not such JSON is kept, and the
        // turn fails once it is.
        let misshapen = match (&agent.schema, interrupted || failed.is_some() || empty) {
            (Some(schema), false) => crate::agent::schema::check(&text, schema).err(),
            _ => None,
        };
        if empty && !interrupted {
            return Err(failed.map(|e| self.name_model(header, e)).unwrap_or_else(|| {
                Error::Agent(format!(
                    "agent '{}' wrote an empty reply; no reply was saved, the message is kept",
                    agent.command
                ))
            }));
        }
        if !empty {
            let message = Message {
                interrupted: interrupted.then_some(true),
                incomplete: failed.is_some().then_some(true),
                usage,
                ..Message::new("assistant", text, time::now())
            };
            self.saved_here.borrow_mut().push(state::Mark::of(&message));
            // Kept for `--json` and `-x` only: a reply may be large.
            if self.holds_reply() || self.execute {
                *self.reply_for_json.borrow_mut() = Some(message.clone());
            }
            let chars = message.content.chars().count();
            // A reply that failed leaves the session's model as it was.
            let usage = message.usage;
            let saved = match failed {
                None => self.store.append(&header.id, &[message], |h| self.note_model(h)),
                Some(_) => self.store.append(&header.id, &[message], |_| {}),
            };
            match saved {
                Ok(saved) => self.say_usage(usage, Some(saved.usage)),
                // Shown, but the session has no room for it.
                Err(Error::TooLarge(_)) => {
                    return Err(Error::ReplyNotSaved {
                        id: header.id.clone(),
                        max_bytes: crate::store::MAX_SESSION_BYTES,
                    });
                }
                Err(e) => return Err(self.reply_lost(e)),
            }
            self.kept_incomplete.set(failed.is_some());
            if let Some(Error::Agent(why)) = failed {
                return Err(self.name_model(
                    header,
                    Error::Agent(format!(
                        "{why}; the {} that arrived {} kept, marked incomplete",
                        crate::text::counted(chars, "character"),
                        if chars == 1 { "is" } else { "are" }
                    )),
                ));
            }
        }
        if let Some(e) = failed {
            return Err(self.name_model(header, e));
        }
        // The reply is safe: now curl may be waited for.
        drop(ending);
        if let Some(e) = output_error {
            return Err(Error::ReplyNotShown { id: header.id.clone(), source: e });
        }
        if let Some(why) = misshapen {
            return Err(Error::Agent(format!(
                "the reply is not JSON of the --schema's shape: {why}; it is kept"
            )));
        }
        Ok(if interrupted { ReplyOutcome::Interrupted } else { ReplyOutcome::Replied })
    }

    /// `--usage`: the tokens of the reply just made, and its session's
    /// total (`session`: None when the turn is not kept), in one line on
    /// stderr; what the agent did not report is said so.
    pub(super) fn say_usage(&self, reply: Option<Usage>, session: Option<Option<Usage>>) {
        if !self.says_usage {
            return;
        }
        let n = crate::text::thousands;
        let this = match reply {
            Some(u) => format!("{} in, {} out", n(u.prompt_tokens), n(u.completion_tokens)),
            None => "none reported by the agent".to_string(),
        };
        let total = match session {
            Some(Some(u)) => format!("this session {}", n(u.total_tokens)),
            Some(None) => "this session none reported".to_string(),
            None => "not kept (--no-save)".to_string(),
        };
        output::notice(&format!("tokens: {this}; {total}"));
    }

    /// A reply that could not be saved (a full disk): with `--json` it is
    /// still in the object; without, it was shown. Said either way.
    fn reply_lost(&self, e: Error) -> Error {
        if self.json {
            output::warn("the reply could not be saved; it is in the JSON object only");
        }
        e
    }

    /// A failed turn's error with the model it asked for and where that
    /// came from, when one was named: a model that failed is the first
    /// thing to doubt.
    pub(super) fn name_model(&self, header: &Header, e: Error) -> Error {
        let Error::Agent(why) = e else { return e };
        let Some((model, origin)) = self.model_for(Some(header)) else { return Error::Agent(why) };
        let from = match origin {
            Origin::ThisChat if self.in_chat => "chosen in this chat".to_string(),
            Origin::ThisChat => "from -m".to_string(),
            Origin::Role(role) => format!("the role's: {role}"),
            Origin::Session => "this session's".to_string(),
            origin => format!("the default: {}", origin.describe()),
        };
        let model = crate::text::printable(&model, false);
        Error::Agent(format!("{why} [model {model}, {from}]"))
    }

    /// A message saved with no agent to answer it: how to configure one,
    /// and that another program's settings file is not read.
    fn hint_no_agent(&self) {
        output::notice(
            "no agent configured; message saved. For replies: hermes config set base_url URL (an \
                OpenAI-compatible server), or hermes config set agent CMD (see 'man hermes')",
        );
        if let Some(other) = crate::settings::foreign_config(self.store) {
            output::notice(&format!(
                "{} is not read: it is another program's (the Python Hermes keeps its settings there); \
                    hermes reads config.toml",
                other.display()
            ));
        }
    }

    /// Say what a turn leaves out: a message larger than the budget on
    /// its own, always; older messages beyond the budget, on a terminal,
    /// once per session (the breadcrumb remembers it across one-shot runs).
    fn say_left_out(&self, header: &Header, plan: &Plan) {
        if plan.newest_over {
            output::warn(&format!(
                "the message is larger than the context budget ({}) on its own; it is sent whole, and the \
                    agent may refuse it",
                context::describe(plan.budget)
            ));
        }
        if !plan.leaves_out() || !sys::isatty(2) || self.noted.borrow().contains(&header.id) {
            return;
        }
        self.noted.borrow_mut().push(header.id.clone());
        if self.terminal.as_ref().is_some_and(|t| !breadcrumb::note_once(self.store, t, &header.id)) {
            return;
        }
        output::notice(&format!(
            "this session is larger than the context budget ({}): {} older messages ({} characters) are not \
                sent. /compact or 'hermes sessions compact {}' summarises them; see CONTEXT in 'man hermes'",
            context::describe(plan.budget),
            plan.left_out,
            crate::text::thousands(plan.left_out_chars),
            header.id
        ));
    }
}

/// What came of a turn (with `--json`, the reply is in
/// `Chat::reply_for_json`).
pub(super) enum ReplyOutcome {
    NoAgent,
    Replied,
    Interrupted,
}
