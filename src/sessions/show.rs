//! `hermes sessions show`: one conversation, roles clearly marked.

use crate::error::{Error, Result};
use crate::output::Out;
use crate::store::Store;
use crate::store::session::{self, Session};
use crate::terminal::resolve;

pub fn run(store: &Store, name: &str, json: bool) -> Result<()> {
    let session = load_named(store, name)?;
    let mut out = Out::new();
    if json {
        out.write(&String::from_utf8_lossy(&session::encode(&session.header, &session.messages)))?;
        return out.flush();
    }
    out.write(&crate::view::render(&session))?;
    out.flush()
}

/// The whole session called `name` (ID, else exact title).
pub fn load_named(store: &Store, name: &str) -> Result<Session> {
    let header = resolve::find_by_name(store, name)?;
    store.load(&header.id)?.ok_or_else(|| Error::NotFound { name: name.to_string(), did_you_mean: None })
}
