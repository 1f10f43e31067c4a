//! Title rules: cleaning what people type, keeping titles unique, and
//! renaming under the store lock.

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::session::{self, Header, IdShape, MAX_TITLE_CHARS, TITLE_USER};

/// A title a person gave (`--title`, `/title`, `/new`, `rename`, the NAME
/// of `--create-if-missing`): cleaned, non-empty, at most 100 characters,
/// and not one a name would read as a session ID (see `id_like`).
pub(crate) fn user_title(store: &Store, raw: &str) -> Result<String> {
    let title = session::sanitize_title(raw)
        .ok_or_else(|| Error::usage("a title cannot be empty (or only invisible characters)"))?;
    let chars = title.chars().count();
    if chars > MAX_TITLE_CHARS {
        return Err(Error::TooLarge(format!(
            "title is {chars} characters long; the limit is {MAX_TITLE_CHARS}"
        )));
    }
    let ids = store.session_ids()?;
    if let Some(like) = id_like(&title, |suffix| ending_in(&ids, suffix)) {
        return Err(refusal(store, &title, &like, false));
    }
    Ok(title)
}

/// Why a title would be read as (part of) a session ID: its shape, and
/// the sessions whose short ID it is.
pub(crate) struct IdLike {
    pub(crate) shape: IdShape,
    pub(crate) ids: Vec<[u8; 22]>,
}

/// The one rule for titles: a name is looked up as an ID first, then as a
/// title and a short ID, so a title must not have the shape of a whole ID
/// or of an ID prefix (`20261204`: it would stand for every session of
/// that day), nor be the short ID (last 6 hex digits) of a session there
/// is: `holders` gives the IDs ending in it, asked only for a title of
/// that shape (in lower case, as IDs are written: the shape is the same
/// in any case). Other hex words (`decade`) are words. None when `title`
/// is fine.
pub(crate) fn id_like(title: &str, holders: impl FnOnce(&str) -> Vec<[u8; 22]>) -> Option<IdLike> {
    let shape = session::id_shape(title)?;
    let ids = match shape {
        IdShape::Full | IdShape::Prefix => Vec::new(),
        IdShape::Suffix => Some(holders(&title.to_ascii_lowercase())).filter(|ids| !ids.is_empty())?,
    };
    Some(IdLike { shape, ids })
}

/// The IDs among `ids` that end in `suffix`: `id_like`'s holders in a store.
pub(crate) fn ending_in(ids: &[[u8; 22]], suffix: &str) -> Vec<[u8; 22]> {
    ids.iter().filter(|id| id.ends_with(suffix.as_bytes())).copied().collect()
}

/// The error that refuses `title` as `like` says, naming the sessions it
/// is a short ID of; `create_if_missing`: it came as that option's NAME.
pub(crate) fn refusal(store: &Store, title: &str, like: &IdLike, create_if_missing: bool) -> Error {
    let sessions = like
        .ids
        .iter()
        .filter_map(|key| std::str::from_utf8(key).ok())
        .map(|id| {
            // A damaged file is named by its ID alone.
            let title = store.header(id).ok().flatten().map(|h| h.title).unwrap_or_default();
            (id.to_string(), title)
        })
        .collect();
    Error::IdLikeTitle {
        title: title.to_string(),
        shape: like.shape.words(),
        part: like.shape.part(),
        sessions,
        create_if_missing,
    }
}

/// A title that came from outside (an import, a merged copy): cleaned
/// like a typed one and cut, not refused, when too long; empty (so the
/// session gets an automatic title) when nothing is left. One shaped like
/// an ID or an ID prefix is not refused either (the conversation must not
/// be lost): it is freed as a taken title is, `20261204 (2)`.
pub(crate) fn foreign_title(raw: &str) -> String {
    match session::sanitize_title(raw) {
        Some(t) if matches!(session::id_shape(&t), Some(IdShape::Full | IdShape::Prefix)) => numbered(&t, 2),
        Some(t) => crate::text::truncate_words(&t, MAX_TITLE_CHARS),
        None => String::new(),
    }
}

/// The session (other than `except`) that already has `title`, a damaged
/// one included: its title stays taken.
pub(crate) fn holder(store: &Store, title: &str, except: Option<&str>) -> Result<Option<Header>> {
    let mut found = None;
    store.scan_names(|entry| {
        if let Some(h) = entry.named()
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
    store.scan_names(|entry| {
        if let Some(h) = entry.named()
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
    let title = user_title(store, raw)?;
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
