//! Compaction (`/compact`, `compact = "auto"`, and the verb in
//! sessions/compact.rs):
//! the agent is asked for a summary of a session's older messages, which
//! is stored in the session after them, marked (see `Message::summary`);
//! from then on a turn sends the summary in their place (see
//! `store::context`). Nothing is removed: the older messages stay in the
//! file, shown and searched as before. A summariser that fails changes
//! nothing.

use std::io::{self, Cursor};

use crate::chat::agent::Agent;
use crate::chat::args::AgentChoice;
use crate::config::AgentInput;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::context::{self, Kind, Plan, json_chars};
use crate::store::format::{self, Place};
use crate::store::session::{Header, Message};
use crate::{sys, time};

/// `sessions compact`'s summariser (see `sessions::compact::Summarise`):
/// the agent chosen as chat chooses it, interrupts caught as chat catches
/// them.
pub(crate) fn summarise(
    store: &Store,
    header: &Header,
    agent: Option<&str>,
    budget: u64,
    keep: Option<u64>,
) -> Result<String> {
    let choice = match agent {
        Some(command) => AgentChoice::Command(command.to_string()),
        None => AgentChoice::Configured,
    };
    let (Some(agent), _, _) = super::choose_agent(store, &choice)? else {
        return Err(Error::usage(
            "no agent to write the summary: give --agent CMD, or set HERMES_AGENT or 'agent' in config.toml",
        ));
    };
    sys::catch_interrupts();
    compact(store, &agent, header, budget, keep).map(|outcome| outcome.describe())
}

/// What a compaction came to.
pub(crate) enum Outcome {
    /// Nothing older than what is kept, or nothing since the last summary.
    Nothing,
    Done {
        /// Messages now before the summary, which it stands for.
        covered: u64,
        /// Of them, those the summariser read (the newest that fit its
        /// budget; the previous summary stands for the rest).
        read: u64,
        chars: u64,
        summary_chars: u64,
    },
}

impl Outcome {
    pub(crate) fn describe(&self) -> String {
        match self {
            Outcome::Nothing => {
                "nothing to compact: no messages older than those kept, since the last summary".into()
            }
            Outcome::Done { covered, read, chars, summary_chars } => format!(
                "compacted: a summary of {} characters now stands for the {covered} messages before it ({read} read, {} characters)",
                context::thousands(*summary_chars),
                context::thousands(*chars)
            ),
        }
    }
}

/// The instruction that ends the summariser's input.
const INSTRUCTION: &str = "Summarise the conversation above for your own later use: this summary will stand in place of those messages. Keep the facts, decisions, names, numbers, code and open questions that later messages may need; leave out greetings. Write only the summary.";

/// Ask `agent` for a summary of the messages of session `header` older
/// than those kept (the last `keep`, else the newest that fit in half the
/// budget, the other half left for the system prompt, the summary and the
/// turns to come), and store it after them. The summariser reads the
/// previous summary and the newest of those messages that fit the budget.
/// On any failure the session is left byte for byte as it was.
pub(crate) fn compact(
    store: &Store,
    agent: &Agent,
    header: &Header,
    budget: u64,
    keep: Option<u64>,
) -> Result<Outcome> {
    let gone = || Error::Vanished { id: header.id.clone() };
    let path = store.session_path(&header.id).ok_or_else(gone)?;
    let fault = |f| store_fault(&path, f);
    // Pass one: the latest summary, and where the kept messages begin.
    let mut reader = store.open(&header.id)?.ok_or_else(gone)?;
    let (previous, cut) = kept_from(&mut reader, budget, keep).map_err(fault)?;
    let from = previous.map_or(0, |p| p.0 + 1);
    // Pass two: of the messages between, the newest that fit the
    // summariser's budget.
    let room = budget.saturating_sub(INSTRUCTION.len() as u64 + previous.map_or(0, |p| p.1));
    let mut reader = reader.rewind().map_err(fault)?;
    let Some(plan) = window(&mut reader, from..cut, room).map_err(fault)? else {
        return Ok(Outcome::Nothing);
    };
    // Pass three: the summariser's conversation, and the last message the
    // summary covers, to find it again when storing. The summary takes
    // that message's time, not the time it was made: ordered by time (as
    // merging two copies of the session orders them), it stays right after
    // what it covers and before the messages kept after it.
    let mut reader = reader.rewind().map_err(fault)?;
    let mut messages = Vec::new();
    let (mut at, mut rank, mut last, mut read, mut chars) = (0u64, 0u64, None, 0u64, 0u64);
    let mut last_ts = 0.0;
    while let Some(m) = reader.next_message().map_err(fault)? {
        if at + 1 == cut {
            last = Some(crate::hash::fnv1a(reader.raw()));
            last_ts = m.ts;
        }
        if Some(at) == previous.map(|p| p.0) {
            messages.push(Message::new(
                "system",
                format!("Summary of the earlier conversation:\n\n{}", m.content),
                m.ts,
            ));
        } else if (from..cut).contains(&at) && m.role != "system" {
            if rank >= plan.tail_from {
                chars += m.content.chars().count() as u64;
                read += 1;
                messages.push(m);
            }
            rank += 1;
        }
        at += 1;
        if at >= cut {
            break;
        }
    }
    let summary = ask(agent, header, messages)?;
    let message = Message::summary(summary, last_ts);
    let summary_chars = message.content.chars().count() as u64;
    match store.insert(&header.id, Place { after: cut, last }, &message)? {
        Some(_) => Ok(Outcome::Done { covered: cut, read, chars, summary_chars }),
        None => Err(Error::Refused(
            "the session changed while it was being summarised; it was left as it was: compact it again"
                .into(),
        )),
    }
}

/// Pass one of `compact`: the latest summary (its place and length), and
/// the place of the first message kept after it (the last `keep`, else
/// the newest that fit in half the budget).
fn kept_from<R: std::io::Read>(
    reader: &mut format::Reader<R>,
    budget: u64,
    keep: Option<u64>,
) -> std::result::Result<(Option<(u64, u64)>, u64), format::Fault> {
    let mut previous: Option<(u64, u64)> = None;
    let mut kept: std::collections::VecDeque<(u64, u64)> = Default::default();
    let mut kept_chars = 0u64;
    let mut count = 0u64;
    while let Some(m) = reader.next_json()? {
        let (at, chars) = (count, json_chars(&m.content));
        count += 1;
        match Kind::of(m.role, m.summary) {
            Kind::System => {}
            Kind::Summary => {
                previous = Some((at, chars));
                kept.clear();
                kept_chars = 0;
            }
            Kind::User | Kind::Assistant => {
                kept.push_back((at, chars));
                kept_chars += chars;
                let too_many = |kept: &std::collections::VecDeque<_>, chars: u64| match keep {
                    Some(n) => kept.len() as u64 > n,
                    None => chars > budget / 2,
                };
                while too_many(&kept, kept_chars)
                    && let Some((_, first)) = kept.pop_front()
                {
                    kept_chars -= first;
                }
            }
        }
    }
    Ok((previous, kept.front().map_or(count, |k| k.0)))
}

/// Pass two of `compact`: of the messages in `between`, the newest that
/// fit the summariser's `room`; None if there are none.
fn window<R: std::io::Read>(
    reader: &mut format::Reader<R>,
    between: std::ops::Range<u64>,
    room: u64,
) -> std::result::Result<Option<Plan>, format::Fault> {
    let mut window = context::Selector::new(room);
    let mut at = 0u64;
    let mut count = 0u64;
    while let Some(m) = reader.next_json()? {
        let kind = Kind::of(m.role, m.summary);
        if between.contains(&at) && matches!(kind, Kind::User | Kind::Assistant) {
            // By their rank among these; none is forced in.
            window.push(Kind::Assistant, json_chars(&m.content));
            count += 1;
        }
        at += 1;
    }
    Ok((count > 0).then(|| window.finish()))
}

/// Run the summariser on `messages` followed by the instruction; its
/// summary, or why there is none.
fn ask(agent: &Agent, header: &Header, mut messages: Vec<Message>) -> Result<String> {
    let now = time::now();
    if agent.input == AgentInput::Text {
        // The agent reads the last user message alone: the conversation
        // goes inside it.
        let mut text = String::new();
        for m in &messages {
            text.push_str(&format!("{}: {}\n\n", m.role, m.content));
        }
        messages = vec![Message::new("user", format!("{text}{INSTRUCTION}"), now)];
    } else {
        messages.push(Message::new("user", INSTRUCTION.to_string(), now));
    }
    let input = format::read(Cursor::new(format::encode(header, &messages)))
        .map_err(|_| Error::Agent("cannot build the summariser's input".into()))?;
    let unchanged = "no summary was made; the session is unchanged";
    let reply = match agent.reply(header, input, Plan::everything(), &mut io::sink()) {
        Ok(reply) => reply,
        Err(Error::Agent(why)) => return Err(Error::Agent(format!("{why}; {unchanged}"))),
        Err(e) => return Err(e),
    };
    if reply.interrupted {
        crate::output::notice(&format!("the summary was interrupted; {unchanged}"));
        return Err(Error::Interrupted);
    }
    let text = reply.text.trim();
    if crate::store::session::is_empty_reply(text) {
        return Err(Error::Agent(format!("agent '{}' wrote an empty summary; {unchanged}", agent.command)));
    }
    Ok(text.to_string())
}

fn store_fault(path: &std::path::Path, fault: format::Fault) -> Error {
    match fault {
        format::Fault::Io(e) => Error::io(path, e),
        format::Fault::Damaged(why) => Error::Corrupt { path: path.to_path_buf(), why },
        other => Error::Corrupt { path: path.to_path_buf(), why: format!("{other:?}") },
    }
}
