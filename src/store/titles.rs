//! Title rules: cleaning what people type, keeping titles unique, and
//! renaming under the store lock.

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::session::{self, Header, MAX_TITLE_CHARS, TITLE_USER};

/// A title a person gave: cleaned, non-empty, at most 100 characters, and
/// not shaped like a session ID.
pub(crate) fn user_title(raw: &str) -> Result<String> {
    let title = session::sanitize_title(raw)
        .ok_or_else(|| Error::usage("a title cannot be empty (or only invisible characters)"))?;
    if session::is_valid_id(&title) {
        // `-c` and every verb look a name up as an ID first: such a title
        // could never be reached by its name, and the session whose ID it
        // is would hide it (or it would hide a session imported later).
        return Err(Error::Refused(format!(
            "'{title}' has the shape of a session ID, which a title must not have (it would be looked up as an ID); choose another"
        )));
    }
    let chars = title.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(Error::TooLarge(format!(
            "title is {chars} characters long; the limit is {MAX_TITLE_CHARS}"
        )));
    }
    Ok(title)
}

/// A title that came from outside (an import, a merged copy): cleaned
/// like a typed one and cut, not refused, when too long; empty (so the
/// session gets an automatic title) when nothing is left or it has the
/// shape of a session ID.
pub(crate) fn foreign_title(raw: &str) -> String {
    match session::sanitize_title(raw) {
        Some(t) if !session::is_valid_id(&t) => crate::text::truncate_words(&t, MAX_TITLE_CHARS),
        _ => String::new(),
    }
}

/// The session (other than `except`) that already has `title`.
pub(crate) fn holder(store: &Store, title: &str, except: Option<&str>) -> Result<Option<Header>> {
    let mut found = None;
    store.scan(|entry| {
        if let Ok(h) = entry.header
            && found.is_none()
            && h.title == title
            && Some(h.id.as_str()) != except
        {
            found = Some(h);
        }
    })?;
    Ok(found)
}

/// `base (n)`, cutting `base` so the whole stays within the title limit.
pub(crate) fn numbered(base: &str, n: u64) -> String {
    let suffix = format!(" ({n})");
    let room = MAX_TITLE_CHARS - suffix.chars().count();
    let base =
        if base.chars().count() > room { crate::text::truncate_words(base, room) } else { base.to_string() };
    format!("{base}{suffix}")
}

/// `base`, or `base (2)`, `base (3)`... whichever no session holds yet.
/// The caller holds the store lock.
pub(crate) fn unique_auto_title(store: &Store, base: &str) -> Result<String> {
    let mut taken = Vec::new();
    store.scan(|entry| {
        if let Ok(h) = entry.header
            && (h.title == base || h.title.starts_with(base) && h.title[base.len()..].starts_with(" ("))
        {
            taken.push(h.title);
        }
    })?;
    if !taken.iter().any(|t| t == base) {
        return Ok(base.to_string());
    }
    Ok((2..).map(|n| numbered(base, n)).find(|t| !taken.contains(t)).expect("unbounded"))
}

/// Give session `id` the title `raw` (cleaned), refusing a title that
/// another session holds.
pub(crate) fn rename(store: &Store, id: &str, raw: &str) -> Result<Header> {
    let title = user_title(raw)?;
    let _guard = store.lock_store()?;
    if let Some(other) = holder(store, &title, Some(id))? {
        return Err(Error::Refused(format!(
            "the title '{title}' is already used by session {}; choose another",
            other.id
        )));
    }
    store.update_header(id, |h| {
        h.title = title.clone();
        h.title_source = TITLE_USER.to_string();
    })
}
