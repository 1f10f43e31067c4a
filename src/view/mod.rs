//! How sessions are shown to a person: a conversation, one message, a
//! Markdown document. Used by `chat` and the `sessions` verbs alike.

use crate::store::session::{Message, Session};
use crate::text::{printable, truncate_words};
use crate::time;

pub(crate) mod list;
pub(crate) mod markdown;
pub(crate) mod pick;
pub(crate) mod reply;

/// The conversation as a person reads it on a terminal; control characters
/// in what was stored are shown, not obeyed (`--json` has the raw text).
pub(crate) fn render(session: &Session) -> String {
    let h = &session.header;
    let model = h.model.as_deref().map(|m| format!("  model: {}", printable(m, false))).unwrap_or_default();
    let role = h.role.as_deref().map(|r| format!("  role: {}", printable(r, false))).unwrap_or_default();
    let mut text = format!(
        "{}\nid: {}  messages: {}  last active: {}{model}{role}\n",
        if h.title.is_empty() { "(untitled)".into() } else { printable(&h.title, false) },
        h.id,
        h.message_count,
        time::local_minutes(h.updated_at),
    );
    if let Some(usage) = &h.usage {
        text.push_str(&format!("tokens: {} (the replies that reported them)\n", usage.describe()));
    }
    for (at, m) in session.messages.iter().enumerate() {
        text.push('\n');
        if m.is_summary() {
            text.push_str(&format!("[summary of messages 1-{at}] {}\n", time::local_minutes(m.ts)));
            text.push_str(&printable(&m.content, true));
        } else {
            text.push_str(&render_message(m, usize::MAX));
        }
        text.push('\n');
    }
    text
}

/// `[role] time` (`[assistant, interrupted] time` for a reply cut by
/// Ctrl-C; with its tokens, when the server counted them) then the
/// content; content longer than `max_chars` is cut.
pub(crate) fn render_message(m: &Message, max_chars: usize) -> String {
    let content = printable(&m.content, true);
    let content = if max_chars == usize::MAX { content } else { truncate_words(&content, max_chars).into() };
    let cut = how_it_ended(m);
    let tokens = m.usage.map(|u| format!("  tokens: {}", u.describe())).unwrap_or_default();
    format!("[{}{cut}] {}{tokens}\n{}", printable(&m.role, false), time::local_minutes(m.ts), content)
}

/// What `[role, …]` says of a reply: cut short by Ctrl-C, replaced by `/retry`.
fn how_it_ended(m: &Message) -> &'static str {
    match (m.is_interrupted(), m.is_replaced()) {
        (true, true) => ", interrupted, replaced",
        (true, false) => ", interrupted",
        (false, true) => ", replaced",
        (false, false) => "",
    }
}

/// Sessions as one Markdown document.
pub(crate) fn markdown(sessions: &[Session]) -> String {
    sessions.iter().map(markdown_one).collect::<Vec<_>>().join("\n---\n\n")
}

pub(crate) fn markdown_one(session: &Session) -> String {
    let h = &session.header;
    let mut text = format!(
        "# {}\n\n- id: `{}`\n- created: {}\n- last active: {}\n- messages: {}\n",
        if h.title.is_empty() { "(untitled)" } else { &h.title },
        h.id,
        time::local_seconds(h.created_at),
        time::local_seconds(h.updated_at),
        h.message_count
    );
    if let Some(model) = &h.model {
        text.push_str(&format!("- model: `{model}`\n"));
    }
    if let Some(role) = &h.role {
        text.push_str(&format!("- role: `{role}`\n"));
    }
    if let Some(usage) = &h.usage {
        text.push_str(&format!("- tokens: {}\n", usage.describe()));
    }
    for (at, m) in session.messages.iter().enumerate() {
        let cut = how_it_ended(m);
        let role = if m.is_summary() { format!("summary of messages 1-{at}") } else { m.role.clone() };
        text.push_str(&format!("\n## {role} ({}{cut})\n\n{}\n", time::local_seconds(m.ts), m.content));
    }
    text
}
