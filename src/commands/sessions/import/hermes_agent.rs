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

use super::large::Checked;
use super::source::{self, Content, Count, JsonBool, Incoming, Source, Tally};
use super::times;

#[derive(DeJson)]
struct AgentSession {
    id: String,
    #[nserde(default)]
    title: Option<String>,
    #[nserde(default)]
    title_source: Option<String>,
    #[nserde(default)]
    started_at: Option<f64>,
    #[nserde(default)]
    last_active: Option<f64>,
    #[nserde(default)]
    system_prompt: Option<String>,
    #[nserde(default)]
    cwd: Option<String>,
    /// The session's model, which the Python Hermes keeps with it.
    #[nserde(default)]
    model: Option<String>,
    messages: Vec<AgentMessage>,
}

#[derive(DeJson)]
struct AgentMessage {
    role: String,
    #[nserde(default)]
    content: Content,
    #[nserde(default)]
    timestamp: Option<f64>,
    #[nserde(default)]
    tool_calls: Count,
    /// The model's reasoning, in either of the fields the Python Hermes
    /// keeps it in.
    #[nserde(default)]
    reasoning: Count,
    #[nserde(default)]
    reasoning_content: Count,
    /// Messages undone by a rewind stay in the Python Hermes's database
    /// with `active` 0.
    #[nserde(default)]
    active: JsonBool,
}

pub(crate) const SOURCE: Source = Source {
    name: "hermes-agent",
    kind: "a Python Hermes export",
    wrote: |has| has("messages") && (has("started_at") || has("system_prompt")),
    read,
    as_array: None,
};

fn read(
    input: &mut File,
    name: &str,
    _: &Checked,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<Tally> {
    let mut tally = Tally::default();
    source::for_each_record(input, name, &SOURCE, |line_no, record| {
        let line = &*record.bytes(name, line_no)?;
        if let Err(why) = json::validate(line) {
            tally.not_json(line_no, why.to_string());
            return Ok(());
        }
        let wrong = |why: &str| source::wrong_source(name, line_no, &SOURCE, line, why);
        if !line.starts_with(b"{") {
            return Err(wrong("not a JSON object"));
        }
        let agent: AgentSession = json::parse(line).map_err(|why| wrong(&why))?;
        let incoming = convert(agent, &mut tally);
        if let Some(why) = times::bad_times_in(&incoming.session) {
            tally.damaged.push((line_no, why));
            return Ok(());
        }
        tally.sessions += 1;
        each(incoming)
    })?;
    Ok(tally)
}

fn convert(agent: AgentSession, tally: &mut Tally) -> Incoming<'static> {
    let first_ts = agent.messages.iter().find_map(|m| m.timestamp);
    let started = agent.started_at.or(first_ts).unwrap_or(0.0);
    let (id, derived_from) = if session::is_valid_id(&agent.id) {
        (agent.id.clone(), None)
    } else {
        (source::derived_id(started, &agent.id, 0), Some(agent.id.clone()))
    };
    let mut header = Header::new(id, agent.cwd.unwrap_or_default(), started);
    // Cleaned, if need be, with the other sources' (`import::Cleaned`).
    header.model = agent.model.filter(|m| !m.trim().is_empty());
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
            tally.leave_out(&format!("'{}' messages", crate::text::printable(&m.role, false)), 1);
            continue;
        }
        match m.content {
            Content::Text(text) if !(text.is_empty() && m.tool_calls.0 > 0) => {
                messages.push(Message {
                    role: m.role,
                    content: text,
                    ts,
                    interrupted: None,
                    incomplete: None,
                    replaced: None,
                    summary: None,
                    usage: None,
                    images: None,
                });
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
    Incoming { session, derived_from, large: None }
}
