//! `hermes sessions show`: one conversation, roles clearly marked.

use crate::error::{Error, Result};
use crate::output::{Out, printable};
use crate::resolve;
use crate::session::{self, Message, Session, truncate_words};
use crate::store::Store;
use crate::timefmt;

pub fn run(store: &Store, name: &str, json: bool) -> Result<()> {
    let session = load_named(store, name)?;
    let mut out = Out::new();
    if json {
        out.write(&String::from_utf8_lossy(&session::encode(&session.header, &session.messages)))?;
        return out.flush();
    }
    out.write(&render(&session))?;
    out.flush()
}

/// The whole session called `name` (ID, else exact title).
pub fn load_named(store: &Store, name: &str) -> Result<Session> {
    let header = resolve::find_by_name(store, name)?;
    store.load(&header.id)?.ok_or_else(|| Error::NotFound { name: name.to_string(), did_you_mean: None })
}

/// The conversation as a person reads it on a terminal; control characters
/// in what was stored are shown, not obeyed (`--json` has the raw text).
pub fn render(session: &Session) -> String {
    let h = &session.header;
    let mut text = format!(
        "{}\nid: {}  messages: {}  last active: {}\n",
        if h.title.is_empty() { "(untitled)".into() } else { printable(&h.title, false) },
        h.id,
        h.message_count,
        timefmt::local_minutes(h.updated_at),
    );
    for m in &session.messages {
        text.push('\n');
        text.push_str(&render_message(m, usize::MAX));
        text.push('\n');
    }
    text
}

/// `[role] time` then the content; content longer than `max_chars` is cut.
pub fn render_message(m: &Message, max_chars: usize) -> String {
    let content = printable(&m.content, true);
    let content = if max_chars == usize::MAX { content } else { truncate_words(&content, max_chars).into() };
    format!("[{}] {}\n{}", printable(&m.role, false), timefmt::local_minutes(m.ts), content)
}
