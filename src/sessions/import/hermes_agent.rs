//! The Python Hermes agent's export (`hermes sessions export --format jsonl`
//! of Hermes 0.22): one session a line, about sixty fields of which hermes
//! keeps the ID, title, times, working directory, system prompt and the
//! text of user, assistant and system messages. Tool results, tool calls
//! and rewound messages have no place in hermes's format: they are left
//! out and counted.

use std::fs::File;

use nanoserde::DeJson;

use crate::error::Result;
use crate::store::json;
use crate::store::session::{self, Header, Message, Session, TITLE_AUTO, TITLE_USER};

use super::source::{self, Content, Count, Flag, Incoming, Source, Tally};

// nanoserde's derived `DeJson` unwraps fields with a `match` clippy would
// write with `?` (clippy::question_mark); the derived impl is a sibling of
// the struct, out of reach of an attribute on it, so the allow is on this
// module, which holds only the derived types (`pub` in it: the derive
// refuses `pub(super)`).
#[allow(clippy::question_mark)]
mod wire {
    use super::*;

    #[derive(DeJson)]
    pub struct AgentSession {
        pub id: String,
        #[nserde(default)]
        pub title: Option<String>,
        #[nserde(default)]
        pub title_source: Option<String>,
        #[nserde(default)]
        pub started_at: Option<f64>,
        #[nserde(default)]
        pub last_active: Option<f64>,
        #[nserde(default)]
        pub system_prompt: Option<String>,
        #[nserde(default)]
        pub cwd: Option<String>,
        pub messages: Vec<AgentMessage>,
    }

    #[derive(DeJson)]
    pub struct AgentMessage {
        pub role: String,
        #[nserde(default)]
        pub content: Content,
        #[nserde(default)]
        pub timestamp: Option<f64>,
        #[nserde(default)]
        pub tool_calls: Count,
        /// The model's reasoning, in either of the fields the Python Hermes
        /// keeps it in.
        #[nserde(default)]
        pub reasoning: Count,
        #[nserde(default)]
        pub reasoning_content: Count,
        /// Messages undone by a rewind stay in the Python Hermes's database
        /// with `active` 0.
        #[nserde(default)]
        pub active: Flag,
    }
}
use wire::AgentSession;

pub fn read(input: &mut File, name: &str, each: &mut dyn FnMut(Incoming) -> Result<()>) -> Result<Tally> {
    let mut tally = Tally::default();
    source::for_each_record(input, name, Source::HermesAgent, |line_no, line| {
        if let Err(why) = json::validate(line) {
            tally.damaged.push((line_no, why.to_string()));
            return Ok(());
        }
        let wrong = |why: &str| source::wrong_source(name, line_no, Source::HermesAgent, line, why);
        if !line.starts_with(b"{") {
            return Err(wrong("not a JSON object"));
        }
        let agent: AgentSession = json::parse(line).map_err(|why| wrong(&why))?;
        let incoming = convert(agent, &mut tally);
        if let Some(why) = source::bad_times(&incoming.session) {
            tally.damaged.push((line_no, why));
            return Ok(());
        }
        tally.sessions += 1;
        each(incoming)
    })?;
    Ok(tally)
}

fn convert(agent: AgentSession, tally: &mut Tally) -> Incoming {
    let first_ts = agent.messages.iter().find_map(|m| m.timestamp);
    let started = agent.started_at.or(first_ts).unwrap_or(0.0);
    let (id, derived_from) = if session::is_valid_id(&agent.id) {
        (agent.id.clone(), None)
    } else {
        (source::derived_id(started, &agent.id, 0), Some(agent.id.clone()))
    };
    let mut header = Header::new(id, agent.cwd.unwrap_or_default(), started);
    if let Some(title) = agent.title.filter(|t| !t.trim().is_empty()) {
        header.title = title;
        header.title_source =
            if agent.title_source.as_deref() == Some(TITLE_USER) { TITLE_USER } else { TITLE_AUTO }
                .to_string();
    }
    let mut messages = Vec::with_capacity(agent.messages.len() + 1);
    if let Some(prompt) = agent.system_prompt.filter(|p| !p.trim().is_empty()) {
        messages.push(Message::new("system", prompt, started));
    }
    let mut last_ts = started;
    for m in agent.messages {
        let ts = m.timestamp.unwrap_or(last_ts);
        last_ts = ts;
        if !m.active.0 {
            tally.leave_out("rewound messages", 1);
            continue;
        }
        tally.leave_out("tool calls", m.tool_calls.0);
        tally.leave_out("reasoning texts", m.reasoning.0.max(m.reasoning_content.0).min(1));
        if !matches!(m.role.as_str(), "user" | "assistant" | "system") {
            tally.leave_out(format!("'{}' messages", crate::text::printable(&m.role, false)), 1);
            continue;
        }
        match m.content {
            Content::Text(text) if !(text.is_empty() && m.tool_calls.0 > 0) => {
                messages.push(Message { role: m.role, content: text, ts, interrupted: None });
            }
            Content::Text(_) | Content::Missing if m.tool_calls.0 > 0 => {
                tally.leave_out("assistant messages holding only tool calls", 1);
            }
            Content::Missing | Content::Text(_) => tally.leave_out("messages without content", 1),
            Content::Other => tally.leave_out("messages whose content is not text", 1),
        }
    }
    for m in &messages {
        header.note_message(m);
    }
    if let Some(active) = agent.last_active {
        header.updated_at = header.updated_at.max(active);
    }
    let mut session = Session { header, messages };
    source::finish(&mut session);
    Incoming { session, derived_from }
}
