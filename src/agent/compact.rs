//! Compaction (`/compact`, `compact = "auto"`, and the verb in
//! sessions/compact.rs):
//! the agent is asked for a summary of a session's older messages, which
//! is stored in the session after them, marked (see `Message::summary`);
//! from then on a turn sends the summary in their place (see
//! `store::context`). Nothing is removed: the older messages stay in the
//! file, shown and searched as before. A summariser that fails changes
//! nothing.

use std::fs::File;
use std::io::{self, Write};

use super::Agent;
use crate::error::{Error, Result};
use crate::settings::AgentInput;
use crate::settings::Settings;
use crate::store::Store;
use crate::store::context::{Kind, Plan, json_chars};
use crate::store::format::{self, Place};
use crate::store::session::{Header, Message};
use crate::{sys, time};

/// `sessions compact`'s summariser: the agent the settings name (as chat
/// chooses it), the budget theirs, interrupts caught as chat catches them.
pub(crate) fn summarise(
    store: &Store,
    header: &Header,
    settings: &Settings,
    keep: Option<u64>,
) -> Result<String> {
    let Some(agent) = Agent::from_settings(settings)? else {
        return Err(Error::usage(
            "no agent to write the summary: give --agent CMD, or set HERMES_AGENT or 'agent' in config.toml",
        ));
    };
    sys::catch_interrupts();
    compact(store, &agent, header, settings.budget(), keep).map(|outcome| outcome.describe())
}

/// What a compaction came to.
pub(crate) enum Outcome {
    /// Nothing older than what is kept, or nothing since the last summary.
    Nothing,
    Done {
        /// The user's and the agent's messages now before the summary,
        /// which it stands for.
        covered: u64,
        /// The messages the summariser read since the last summary (every
        /// one), and their characters.
        read: u64,
        chars: u64,
        /// In how many requests: as many as it took for each to fit the
        /// budget, each with the summary so far.
        pieces: u64,
        summary_chars: u64,
        /// The summary's time (that of the last message it covers).
        ts: f64,
    },
}

impl Outcome {
    pub(crate) fn describe(&self) -> String {
        match self {
            Outcome::Nothing => NOTHING.into(),
            Outcome::Done { covered, read, chars, pieces, summary_chars, .. } => {
                let how = match pieces {
                    1 => String::new(),
                    n => format!(", in {n} pieces that each fit the budget"),
                };
                let before = if *read < *covered { " and the previous summary" } else { "" };
                format!(
                    "compacted: a summary of {} characters now stands for the {covered} messages before it; \
                        the agent read {}{before} ({} characters){how}",
                    crate::text::thousands(*summary_chars),
                    crate::text::counted(*read as usize, "message"),
                    crate::text::thousands(*chars)
                )
            }
        }
    }
}

/// What `Outcome::Nothing` says.
pub(crate) const NOTHING: &str =
    "nothing to compact: no messages older than those kept, since the last summary";

/// The instruction that ends the summariser's input.
const INSTRUCTION: &str = "Summarise the conversation above for your own later use: this summary will stand \
    in place of those messages. Keep the facts, decisions, names, numbers, code and open questions that \
        later messages may need; leave out greetings. Write only the summary.";

/// What the summary so far is introduced by, in the summariser's input.
const SUMMARY_SO_FAR: &str = "Summary of the earlier conversation:\n\n";

/// What a compaction will read: the latest summary (its place and
/// length), where the kept messages begin, and how many messages lie
/// between (and their characters), each of which the summariser reads.
pub(crate) struct Backlog {
    previous: Option<(u64, u64)>,
    cut: u64,
    between: u64,
    chars: u64,
    /// The user's and the agent's messages before `cut`, which the summary
    /// will stand for (the previous summary stands for those before it).
    covered: u64,
}

impl Backlog {
    /// What it will read, in words: "12 messages".
    pub(crate) fn describe(&self) -> String {
        let previous = if self.previous.is_some() { " and the previous summary" } else { "" };
        format!("{}{previous}", crate::text::counted(self.between as usize, "message"))
    }

    /// Where the messages it reads begin: after the latest summary.
    fn from(&self) -> u64 {
        self.previous.map_or(0, |p| p.0 + 1)
    }
}

/// What compacting session `header` would do: the messages older than
/// those kept (the last `keep`, else the newest that fit in half the
/// budget, the other half left for the system prompt, the summary and the
/// turns to come), since the last summary; None when there are none.
pub(crate) fn plan(
    store: &Store,
    header: &Header,
    budget: u64,
    keep: Option<u64>,
) -> Result<Option<Backlog>> {
    let gone = || Error::Vanished { id: header.id.clone() };
    let path = store.session_path(&header.id).ok_or_else(gone)?;
    let fault = |f| store_fault(&path, f);
    let mut reader = store.open(&header.id)?.ok_or_else(gone)?;
    let (previous, cut) = kept_from(&mut reader, budget, keep).map_err(fault)?;
    let from = previous.map_or(0, |p| p.0 + 1);
    let mut reader = reader.rewind().map_err(fault)?;
    let (mut between, mut chars, mut covered, mut at) = (0u64, 0u64, 0u64, 0u64);
    while let Some(m) = reader.next_json().map_err(fault)? {
        let said = matches!(Kind::of(m.role, m.summary), Kind::User | Kind::Assistant);
        if said && at < cut {
            covered += 1;
        }
        if said && (from..cut).contains(&at) {
            between += 1;
            chars += json_chars(&m.content);
        }
        at += 1;
    }
    Ok((between > 0).then_some(Backlog { previous, cut, between, chars, covered }))
}

/// Compact session `header` (see `plan`), or say there is nothing to.
pub(crate) fn compact(
    store: &Store,
    agent: &Agent,
    header: &Header,
    budget: u64,
    keep: Option<u64>,
) -> Result<Outcome> {
    match plan(store, header, budget, keep)? {
        Some(work) => run(store, agent, header, budget, work),
        None => Ok(Outcome::Nothing),
    }
}

/// Ask `agent` for a summary of the work's messages, in as many requests
/// as it takes for each to fit the budget (the oldest first, each with the
/// summary so far, the first with the previous one), and store it after
/// them. On any failure the session is left byte for byte as it was.
pub(crate) fn run(
    store: &Store,
    agent: &Agent,
    header: &Header,
    budget: u64,
    work: Backlog,
) -> Result<Outcome> {
    let gone = || Error::Vanished { id: header.id.clone() };
    let path = store.session_path(&header.id).ok_or_else(gone)?;
    let fault = |f| store_fault(&path, f);
    let mut summary: Option<String> = match work.previous {
        Some((at, _)) => Some(read_at(store, header, &[at])?.remove(0).content),
        None => None,
    };
    // The messages it reads, in one pass over the file, a request's worth
    // held at a time: each request as many as fit, and at least one.
    let mut reader = store.open(&header.id)?.ok_or_else(gone)?;
    let mut between = Between { at: 0, from: work.from(), cut: work.cut };
    let (mut next, mut pieces) = (between.next(&mut reader).map_err(fault)?, 0u64);
    while let Some((first, mut chars)) = next.take() {
        let prior = summary.as_deref().map_or(0, |s| (SUMMARY_SO_FAR.len() + s.chars().count()) as u64);
        let room = budget.saturating_sub(INSTRUCTION.len() as u64 + prior);
        let mut messages: Vec<Message> =
            summary.iter().map(|s| Message::new("system", format!("{SUMMARY_SO_FAR}{s}"), 0.0)).collect();
        messages.push(first);
        loop {
            next = between.next(&mut reader).map_err(fault)?;
            match next.take_if(|(_, more)| chars + *more <= room) {
                Some((message, more)) => {
                    chars += more;
                    messages.push(message);
                }
                None => break,
            }
        }
        summary = Some(ask(agent, header, messages)?);
        pieces += 1;
    }
    // The last message the summary covers, to find it again when storing.
    // The summary takes its time, not the time it was made: ordered by
    // time (as merging two copies of the session orders them), it stays
    // right after what it covers and before the messages kept after it.
    let mut reader = store.open(&header.id)?.ok_or_else(gone)?;
    let (mut at, mut last, mut last_ts) = (0u64, None, 0.0);
    while let Some(m) = reader.next_message().map_err(fault)? {
        if at + 1 == work.cut {
            last = Some(crate::hash::fnv1a(reader.raw()));
            last_ts = m.ts;
            break;
        }
        at += 1;
    }
    let message = Message::summary(summary.unwrap_or_default(), last_ts);
    let summary_chars = message.content.chars().count() as u64;
    let (read, chars) = (work.between, work.chars);
    match store.insert(&header.id, Place { after: work.cut, last }, &message)? {
        Some(_) => {
            Ok(Outcome::Done { covered: work.covered, read, chars, pieces, summary_chars, ts: last_ts })
        }
        None => Err(Error::Refused(
            "the session changed while it was being summarised; it was left as it was: compact it again"
                .into(),
        )),
    }
}

/// The messages at `places` (ascending) of session `header`.
fn read_at(store: &Store, header: &Header, places: &[u64]) -> Result<Vec<Message>> {
    let gone = || Error::Vanished { id: header.id.clone() };
    let path = store.session_path(&header.id).ok_or_else(gone)?;
    let mut reader = store.open(&header.id)?.ok_or_else(gone)?;
    let (mut at, mut wanted, mut found) = (0u64, places.iter().peekable(), Vec::new());
    while let Some(&&next) = wanted.peek() {
        let Some(m) = reader.next_message().map_err(|f| store_fault(&path, f))? else { break };
        if at == next {
            found.push(m);
            wanted.next();
        }
        at += 1;
    }
    Ok(found)
}

/// The messages a compaction reads, the user's and the agent's from
/// `from` to `cut`, taken off a reader of the session one at a time.
struct Between {
    /// The place of the next message of the file.
    at: u64,
    from: u64,
    cut: u64,
}

impl Between {
    /// The next one, with its characters; None after the last.
    fn next<R: std::io::Read>(
        &mut self,
        reader: &mut format::Reader<R>,
    ) -> std::result::Result<Option<(Message, u64)>, format::Fault> {
        while self.at < self.cut {
            let Some(m) = reader.next_json()? else { return Ok(None) };
            let (at, chars) = (self.at, json_chars(&m.content));
            let said = matches!(Kind::of(m.role, m.summary), Kind::User | Kind::Assistant);
            self.at += 1;
            if said && at >= self.from {
                // Checked as it was read: it decodes.
                let message = crate::store::json::parse(reader.raw()).map_err(format::Fault::Message)?;
                return Ok(Some((message, chars)));
            }
        }
        Ok(None)
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

/// `bytes` (a session) as a reader of a file, as a chat's turn gives the
/// agent its conversation: a pipe a thread writes them to, so that the
/// agent's feeding is the one copy made for files, not a second one for
/// bytes in memory. The thread ends once they are read, or once the
/// reader is gone.
fn summariser_input(bytes: Vec<u8>) -> Option<format::Reader<File>> {
    let (from, mut to) = io::pipe().ok()?;
    std::thread::Builder::new()
        .spawn(move || {
            let _ = to.write_all(&bytes);
        })
        .ok()?;
    format::read(File::from(std::os::fd::OwnedFd::from(from))).ok()
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
    let input = summariser_input(format::encode(header, &messages))
        .ok_or_else(|| Error::Agent("cannot build the summariser's input".into()))?;
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
    crate::store::fault_error(path, fault)
}
