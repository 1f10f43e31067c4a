//! Breadcrumbs: which session each terminal last used. Best effort by
//! design: no failure here ever fails a command.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use nanoserde::{DeJson, SerJson};

use crate::fsio;
use crate::store::Store;
use crate::store::json;
use crate::store::session;
use crate::terminal::Terminal;

pub(crate) const MAX_AGE_SECS: f64 = 30.0 * 24.0 * 3600.0;
const MAX_BREADCRUMB_BYTES: u64 = 64 << 10;

#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Breadcrumb {
    pub session_id: String,
    #[nserde(default)]
    pub cwd: String,
    #[nserde(default)]
    pub ts: f64,
    #[nserde(default)]
    pub leader: String,
    /// This terminal was told that its session is larger than the context
    /// budget (said once per session, not every turn; see `note_once`).
    #[nserde(default)]
    pub budget_noted: bool,
}

fn path_for(store: &Store, terminal: &Terminal) -> PathBuf {
    store.crumbs_dir().join(format!("{}.json", terminal.id))
}

/// Where this terminal's breadcrumb lay before keys named the machine.
fn legacy_path_for(store: &Store, terminal: &Terminal) -> PathBuf {
    store.crumbs_dir().join(format!("{}.json", terminal.legacy_id))
}

/// Parse a breadcrumb file's bytes; None for anything malformed.
pub fn decode(bytes: &[u8]) -> Option<Breadcrumb> {
    json::parse(bytes).ok()
}

/// This terminal's breadcrumb, if it is fresh, belongs to this incarnation
/// of the terminal, and names a well-formed session ID.
///
/// A terminal with no breadcrumb under its key reads the one an older
/// hermes left under its machine-less key; the leader check keeps another
/// machine's terminal of the same name out, and the next write replaces it.
pub(crate) fn read(store: &Store, terminal: &Terminal, now: f64) -> Option<Breadcrumb> {
    let path = path_for(store, terminal);
    let path = if fs::symlink_metadata(&path).is_ok() { path } else { legacy_path_for(store, terminal) };
    // A breadcrumb someone else wrote (root, or another user of a shared
    // home) does not say where this user's terminal was: it is not ours.
    let meta = fs::symlink_metadata(&path).ok()?;
    if meta.uid() != crate::sys::geteuid() {
        return None;
    }
    let bytes = fsio::read_limited(&path, MAX_BREADCRUMB_BYTES).ok()?;
    let crumb = decode(&bytes)?;
    // A timestamp from the future (a clock that was wrong) is not fresh
    // forever: only within the usual window around now.
    let fresh = (now - crumb.ts).abs() <= MAX_AGE_SECS;
    let same_terminal = crumb.leader == terminal.leader;
    (fresh && same_terminal && session::is_valid_id(&crumb.session_id)).then_some(crumb)
}

/// Point this terminal at `session_id`, and sweep out stale breadcrumbs.
pub(crate) fn write(store: &Store, terminal: &Terminal, session_id: &str, cwd: &str, now: f64) {
    let path = path_for(store, terminal);
    // Still the same session: what it was told stays told.
    let noted = read_file(&path).is_some_and(|c| c.session_id == session_id && c.budget_noted);
    let crumb = Breadcrumb {
        session_id: session_id.to_string(),
        cwd: cwd.to_string(),
        ts: now,
        leader: terminal.leader.clone(),
        budget_noted: noted,
    };
    if store.verify().is_err() || fsio::ensure_private_dir(store.crumbs_dir()).is_err() {
        return;
    }
    let mut bytes = crumb.serialize_json().into_bytes();
    bytes.push(b'\n');
    if fsio::write_atomic(&path, &bytes).is_ok() {
        // Migrated: the machine-less breadcrumb has served its one turn.
        let _ = fs::remove_file(legacy_path_for(store, terminal));
    }
    remove_stale(store, false);
}

/// Whether this terminal is yet to be told that `session_id` is over the
/// context budget; true once, then false while the terminal stays on that
/// session (its breadcrumb remembers). True without a breadcrumb to keep
/// it in.
pub(crate) fn note_once(store: &Store, terminal: &Terminal, session_id: &str) -> bool {
    let path = path_for(store, terminal);
    match read_file(&path) {
        Some(crumb) if crumb.session_id == session_id => {
            if crumb.budget_noted {
                return false;
            }
            let mut bytes = Breadcrumb { budget_noted: true, ..crumb }.serialize_json().into_bytes();
            bytes.push(b'\n');
            let _ = fsio::write_atomic(&path, &bytes);
            true
        }
        _ => true,
    }
}

/// Breadcrumb files older than 30 days (by modification time, which is the
/// time of their one atomic write). Removed unless `dry_run`. Only names
/// hermes gives breadcrumbs (`KEY.json`), only regular files, and never in
/// a `terminal-sessions` that is a link or someone else's (see `trust`).
pub(crate) fn remove_stale(store: &Store, dry_run: bool) -> Vec<PathBuf> {
    let mut stale = Vec::new();
    if store.verify().is_err() {
        return stale;
    }
    let Ok(entries) = fs::read_dir(store.crumbs_dir()) else {
        return stale;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let is_key = name.to_str().is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'));
        // DirEntry::metadata does not follow a link: a link is not a file.
        if is_key && entry.metadata().is_ok_and(|meta| is_stale(&meta)) {
            stale.push(entry.path());
        }
    }
    if !dry_run {
        for path in &stale {
            let _ = fs::remove_file(path);
        }
    }
    stale
}

/// Whether a file in terminal-sessions is older than 30 days.
pub(crate) fn is_stale(meta: &fs::Metadata) -> bool {
    let cutoff = SystemTime::now() - Duration::from_secs_f64(MAX_AGE_SECS);
    meta.is_file() && meta.modified().is_ok_and(|m| m < cutoff)
}

/// The breadcrumb in file `path`, if it reads as one.
pub(crate) fn read_file(path: &Path) -> Option<Breadcrumb> {
    fsio::read_limited(path, MAX_BREADCRUMB_BYTES).ok().and_then(|b| decode(&b))
}

/// Every breadcrumb file with its parsed content (None if unreadable).
pub(crate) fn all(store: &Store) -> Vec<(PathBuf, Option<Breadcrumb>)> {
    let Ok(entries) = fs::read_dir(store.crumbs_dir()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let crumb = read_file(&p);
            (p, crumb)
        })
        .collect()
}

/// Point the breadcrumbs of session `from` at session `to` (after a merge
/// folded one into the other), keeping their terminals and times.
pub(crate) fn repoint(store: &Store, from: &str, to: &str) {
    for (path, crumb) in all(store) {
        if let Some(mut crumb) = crumb.filter(|c| c.session_id == from) {
            crumb.session_id = to.to_string();
            let mut bytes = crumb.serialize_json().into_bytes();
            bytes.push(b'\n');
            let _ = fsio::write_atomic(&path, &bytes);
        }
    }
}

/// Remove the breadcrumbs that point at any of `ids` (after a delete).
pub(crate) fn forget_sessions(store: &Store, ids: &[String]) {
    for (path, crumb) in all(store) {
        if crumb.is_some_and(|c| ids.contains(&c.session_id)) {
            let _ = fs::remove_file(path);
        }
    }
}
