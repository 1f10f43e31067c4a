//! Which session a command means: by name (ID, then exact title), and which
//! one bare `hermes chat -c` continues in this terminal. The whole rule for
//! `-c` lives in `resolve_continue`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::session::{self, Header};
use crate::terminal::Terminal;
use crate::terminal::breadcrumb;

/// Why bare `-c` picked the session it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// This terminal used it last.
    Breadcrumb,
    /// Newest session started inside the current workspace.
    Workspace,
    /// Newest session of all.
    Latest,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Breadcrumb => "breadcrumb",
            Reason::Workspace => "workspace",
            Reason::Latest => "latest",
        }
    }
}

/// The session bare `-c` continues here, and why; None if there are no
/// sessions at all.
pub fn resolve_continue(
    store: &Store,
    terminal: Option<&Terminal>,
    now: f64,
) -> Result<Option<(Header, Reason)>> {
    if let Some(found) = from_breadcrumb(store, terminal, now)? {
        return Ok(Some(found));
    }
    let mut picker = FallbackPicker::new();
    store.scan(|entry| {
        if let Ok(header) = entry.header {
            picker.consider(&header);
        }
    })?;
    let Some((id, reason)) = picker.pick() else { return Ok(None) };
    // Deleted since the scan: as if it had not been there.
    Ok(store.header(&id)?.map(|h| (h, reason)))
}

/// The first rule of `-c`: this terminal's breadcrumb, if its session still
/// exists. A breadcrumb to a deleted session is as good as none.
pub fn from_breadcrumb(
    store: &Store,
    terminal: Option<&Terminal>,
    now: f64,
) -> Result<Option<(Header, Reason)>> {
    let Some(crumb) = terminal.and_then(|t| breadcrumb::read(store, t, now)) else {
        return Ok(None);
    };
    Ok(store.header(&crumb.session_id)?.map(|h| (h, Reason::Breadcrumb)))
}

/// The other rules of `-c`, fed one header at a time so that a command
/// already scanning the store (`sessions list`) needs no second pass: the
/// newest session inside the current workspace, else the newest of all.
/// Only (activity time, ID) pairs are kept: this runs for every session of
/// a scan, and a scan in ID order finds a newer session at almost every step.
pub struct FallbackPicker {
    workspace: Option<PathBuf>,
    now: f64,
    newest_here: Option<(f64, String)>,
    newest: Option<(f64, String)>,
}

impl FallbackPicker {
    pub fn new() -> FallbackPicker {
        FallbackPicker {
            workspace: current_workspace(),
            now: crate::time::now(),
            newest_here: None,
            newest: None,
        }
    }

    pub fn consider(&mut self, header: &Header) {
        self.consider_session(header.updated_at, &header.id, &header.cwd);
    }

    /// `consider`, from a session's activity time, ID and directory. A
    /// time ahead of now (another machine's clock) counts as now.
    pub fn consider_session(&mut self, updated_at: f64, id: &str, cwd: &str) {
        let active = updated_at.min(self.now);
        let newer = |best: &Option<(f64, String)>| {
            best.as_ref().is_none_or(|(t, best_id)| (active, id) > (*t, best_id.as_str()))
        };
        if newer(&self.newest) {
            self.newest = Some((active, id.to_string()));
        }
        if newer(&self.newest_here) && started_in(self.workspace.as_deref(), cwd) {
            self.newest_here = Some((active, id.to_string()));
        }
    }

    /// Whether the newest session in the workspace is known, given that
    /// sessions now come in order of activity: found, or no workspace.
    pub fn has_workspace_pick(&self) -> bool {
        self.newest_here.is_some() || self.workspace.is_none()
    }

    /// The ID `-c` falls back to, and why.
    pub fn pick(self) -> Option<(String, Reason)> {
        match (self.newest_here, self.newest) {
            (Some((_, id)), _) => Some((id, Reason::Workspace)),
            (None, Some((_, id))) => Some((id, Reason::Latest)),
            (None, None) => None,
        }
    }
}

/// Whether a session was started inside `workspace`.
pub fn in_workspace(workspace: Option<&Path>, header: &Header) -> bool {
    started_in(workspace, &header.cwd)
}

/// Whether a session started in `cwd` belongs to `workspace`.
pub fn started_in(workspace: Option<&Path>, cwd: &str) -> bool {
    workspace.is_some_and(|w| !cwd.is_empty() && Path::new(cwd).starts_with(w))
}

/// The session called `name`: the one with that ID, else the one with that
/// exact title; a title that several sessions share is an error naming them.
/// Not found carries a case-insensitive near miss for "Did you mean".
pub fn find_by_name(store: &Store, name: &str) -> Result<Header> {
    match lookup(store, name)? {
        Lookup::Found(h) => Ok(h),
        Lookup::Missing { did_you_mean } => Err(Error::NotFound { name: name.to_string(), did_you_mean }),
    }
}

pub enum Lookup {
    Found(Header),
    Missing { did_you_mean: Option<String> },
}

pub fn lookup(store: &Store, name: &str) -> Result<Lookup> {
    if name.trim().is_empty() {
        return Ok(Lookup::Missing { did_you_mean: None });
    }
    if session::is_valid_id(name)
        && let Some(h) = store.header(name)?
    {
        return Ok(Lookup::Found(h));
    }
    // A title is stored cleaned (see titles::user_title), so the cleaned
    // form of what was typed matches too: `-c "a  b"` finds "a b".
    let cleaned = session::sanitize_title(name);
    let wanted = cleaned.as_deref().unwrap_or(name);
    // The catalog names the holders of a title, each checked against its
    // file; when it cannot say, every file is read.
    let titles: Vec<&str> = std::iter::once(name).chain(cleaned.as_deref()).collect();
    if let Some(mut holders) = store.sessions_titled(&titles) {
        return if holders.len() > 1 {
            Err(ambiguous(name, holders))
        } else {
            Ok(Lookup::Found(holders.remove(0)))
        };
    }
    let mut exact: Vec<Header> = Vec::new();
    let mut near: Option<Header> = None;
    store.scan(|entry| {
        let Ok(header) = entry.header else { return };
        if header.title == name || cleaned.as_deref() == Some(header.title.as_str()) {
            exact.push(header);
        } else if near.is_none() && same_ignoring_case(&header.title, wanted) {
            near = Some(header);
        }
    })?;
    match exact.len() {
        0 => Ok(Lookup::Missing { did_you_mean: near.map(|h| h.title) }),
        1 => Ok(Lookup::Found(exact.remove(0))),
        _ => Err(ambiguous(name, exact)),
    }
}

/// A title that names several sessions (made on two machines before they
/// synced, or imported) names none: acting on one of them, or creating a
/// third, would be a guess. Newest first.
fn ambiguous(name: &str, mut sessions: Vec<Header>) -> Error {
    let now = crate::time::now();
    sessions.sort_by(|a, b| b.activity(now).total_cmp(&a.activity(now)).then(b.id.cmp(&a.id)));
    Error::Ambiguous {
        name: name.to_string(),
        sessions: sessions
            .iter()
            .map(|h| {
                format!(
                    "{}  last active {}  {}",
                    h.id,
                    crate::time::local_minutes(h.updated_at),
                    crate::text::counted(h.message_count as usize, "message")
                )
            })
            .collect(),
    }
}

/// Every session whose title is `name` (as typed, or cleaned as titles are).
pub fn titled(store: &Store, name: &str) -> Result<Vec<Header>> {
    let cleaned = session::sanitize_title(name);
    let mut found = Vec::new();
    store.scan(|entry| {
        if let Ok(header) = entry.header
            && (header.title == name || cleaned.as_deref() == Some(header.title.as_str()))
        {
            found.push(header);
        }
    })?;
    Ok(found)
}

/// Case-insensitive equality without allocating: this runs for every
/// session when a name is not found.
fn same_ignoring_case(a: &str, b: &str) -> bool {
    a.chars().flat_map(char::to_lowercase).eq(b.chars().flat_map(char::to_lowercase))
}

/// The session with exactly this ID (`-r`).
pub fn find_by_id(store: &Store, id: &str) -> Result<Header> {
    store.header(id)?.ok_or_else(|| Error::NoSuchId(id.to_string()))
}

/// The current workspace: the enclosing git work tree's root, else the
/// current directory.
pub fn current_workspace() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists()).map(Path::to_path_buf);
    Some(root.unwrap_or(cwd))
}

/// The current directory as text, for recording in sessions/breadcrumbs.
pub fn cwd_string() -> String {
    std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
}
