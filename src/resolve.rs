//! Which session a command means: by name (a full ID, else every session
//! whose title or short ID it is, ambiguous when more than one), and which
//! one bare `hermes chat -c` continues in this terminal. The whole rule
//! for `-c` lives in `resolve_continue`, the rule for names in `lookup`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output;
use crate::store::Store;
use crate::store::session::{self, Header, IdShape};
use crate::terminal::Terminal;
use crate::terminal::breadcrumb;

/// Why bare `-c` picked the session it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Reason {
    /// This terminal used it last.
    Breadcrumb,
    /// Newest session started inside the current workspace.
    Workspace,
    /// Newest session of all.
    Latest,
}

impl Reason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Reason::Breadcrumb => "breadcrumb",
            Reason::Workspace => "workspace",
            Reason::Latest => "latest",
        }
    }
}

/// The session bare `-c` continues here, and why; None if there are no
/// sessions at all.
pub(crate) fn resolve_continue(
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
pub(crate) fn from_breadcrumb(
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
pub(crate) struct FallbackPicker {
    workspace: Option<PathBuf>,
    now: f64,
    newest_here: Option<(f64, String)>,
    newest: Option<(f64, String)>,
}

impl FallbackPicker {
    #[allow(clippy::new_without_default)] // it reads the clock and the workspace
    pub(crate) fn new() -> FallbackPicker {
        FallbackPicker {
            workspace: current_workspace(),
            now: crate::time::now(),
            newest_here: None,
            newest: None,
        }
    }

    pub(crate) fn consider(&mut self, header: &Header) {
        self.consider_session(header.updated_at, &header.id, &header.cwd);
    }

    /// `consider`, from a session's activity time, ID and directory. A
    /// time ahead of now (another machine's clock) counts as now.
    pub(crate) fn consider_session(&mut self, updated_at: f64, id: &str, cwd: &str) {
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
    pub(crate) fn has_workspace_pick(&self) -> bool {
        self.newest_here.is_some() || self.workspace.is_none()
    }

    /// The ID `-c` falls back to, and why.
    pub(crate) fn pick(self) -> Option<(String, Reason)> {
        match (self.newest_here, self.newest) {
            (Some((_, id)), _) => Some((id, Reason::Workspace)),
            (None, Some((_, id))) => Some((id, Reason::Latest)),
            (None, None) => None,
        }
    }
}

impl Default for FallbackPicker {
    fn default() -> FallbackPicker {
        FallbackPicker::new()
    }
}

/// Whether a session was started inside `workspace`.
pub(crate) fn in_workspace(workspace: Option<&Path>, header: &Header) -> bool {
    started_in(workspace, &header.cwd)
}

/// Whether a session started in `cwd` belongs to `workspace`.
pub(crate) fn started_in(workspace: Option<&Path>, cwd: &str) -> bool {
    workspace.is_some_and(|w| !cwd.is_empty() && Path::new(cwd).starts_with(w))
}

/// The session called `name`: the one with that ID, else the one with that
/// exact title, else the one a short ID names; a title that several
/// sessions share, or a short ID that fits several, is an error naming
/// them. Not found carries the closest titles for "Did you mean".
pub(crate) fn find_by_name(store: &Store, name: &str) -> Result<Header> {
    match lookup(store, name)? {
        Lookup::Found(h) => Ok(*h),
        Lookup::Missing { did_you_mean } => {
            Err(Error::NoSuchSession { name: name.to_string(), did_you_mean })
        }
    }
}

pub(crate) enum Lookup {
    /// Boxed: a header is large beside the other variant.
    Found(Box<Header>),
    /// The closest titles, newest first (see `suggest`).
    Missing { did_you_mean: Vec<String> },
}

/// A full ID wins outright. Otherwise every session the name could mean
/// is a candidate: those with that exact title, and, when the name has the
/// shape of a short ID, those whose ID it abbreviates. One candidate is
/// found; several are an error naming each (nothing is guessed: a title
/// `dddddd` and the session whose ID ends in `dddddd` are two meanings).
pub(crate) fn lookup(store: &Store, name: &str) -> Result<Lookup> {
    if name.trim().is_empty() {
        return Ok(Lookup::Missing { did_you_mean: Vec::new() });
    }
    let id = session::as_written_id(name);
    if session::is_valid_id(&id)
        && let Some(h) = store.header(&id)?
    {
        return Ok(Lookup::Found(Box::new(h)));
    }
    let by_title = by_title(store, name)?;
    let by_id = short_id_candidates(store, name)?;
    let (mut titled, near) = match by_title {
        Titled::Found(found) => (found, Vec::new()),
        Titled::None { near, damaged } => {
            if by_id.is_empty() {
                // It may be one of these: say so before "not found".
                for (path, why) in &damaged {
                    output::warn_not_a_session_file(path, why, "skipped");
                }
            }
            (Vec::new(), near)
        }
    };
    let mut ids: Vec<Header> = by_id.into_iter().filter(|h| !titled.iter().any(|t| t.id == h.id)).collect();
    match (titled.len(), ids.len()) {
        (0, 0) => Ok(Lookup::Missing { did_you_mean: near }),
        (1, 0) => Ok(Lookup::Found(Box::new(titled.remove(0)))),
        (0, 1) => Ok(Lookup::Found(Box::new(ids.remove(0)))),
        (_, 0) => Err(ambiguous(name, titled)),
        (0, _) => Err(ambiguous_id(name, ids)),
        _ => Err(ambiguous_name(name, titled, ids)),
    }
}

/// `-c NAME --create-if-missing`: "send to this named thread, make it if
/// needed", so NAME is taken only as a full ID or an exact (cleaned)
/// title, never as a short ID. Several sessions of that title are an
/// error, as in `lookup`. When nothing matches, a NAME shaped like an ID,
/// an ID prefix or a short ID is refused rather than made a title (a date
/// or a short ID in a cron job was meant as an ID; see `titles::id_like`),
/// naming the sessions it abbreviates, if any: Missing means "create it".
pub(crate) fn lookup_title(store: &Store, name: &str) -> Result<Lookup> {
    if name.trim().is_empty() {
        return Ok(Lookup::Missing { did_you_mean: Vec::new() });
    }
    let id = session::as_written_id(name);
    if session::is_valid_id(&id)
        && let Some(h) = store.header(&id)?
    {
        return Ok(Lookup::Found(Box::new(h)));
    }
    let near = match by_title(store, name)? {
        Titled::Found(mut found) if found.len() == 1 => return Ok(Lookup::Found(Box::new(found.remove(0)))),
        Titled::Found(found) => return Err(ambiguous(name, found)),
        Titled::None { near, .. } => near,
    };
    let title = session::sanitize_title(name).unwrap_or_else(|| name.to_string());
    if let Some(shape) = session::id_shape(&title) {
        let ids = if shape == IdShape::Full { Vec::new() } else { store.session_ids()? };
        let fitting = if shape == IdShape::Full { Vec::new() } else { ids_fitting(&ids, &title) };
        let like = crate::store::titles::IdLike { shape, ids: fitting.into_iter().copied().collect() };
        return Err(crate::store::titles::refusal(store, &title, &like, true));
    }
    Ok(Lookup::Missing { did_you_mean: near })
}

enum Titled {
    Found(Vec<Header>),
    /// `near`: the closest titles, newest first.
    None {
        near: Vec<String>,
        damaged: Vec<(PathBuf, String)>,
    },
}

/// The sessions whose title is `name` (as typed, or cleaned as titles are
/// stored: `-c "a  b"` finds "a b"); when none, the closest titles (see
/// `suggest`) and the files that could not be read.
fn by_title(store: &Store, name: &str) -> Result<Titled> {
    let cleaned = session::sanitize_title(name);
    let wanted = cleaned.as_deref().unwrap_or(name);
    // The catalog names the holders of a title, each checked against its
    // file; when it cannot say, every file is read.
    let titles: Vec<&str> = std::iter::once(name).chain(cleaned.as_deref()).collect();
    if let Some(holders) = store.sessions_titled(&titles) {
        return Ok(Titled::Found(holders));
    }
    let mut exact: Vec<Header> = Vec::new();
    let mut closest = crate::suggest::ClosestTitles::new(wanted);
    let mut damaged: Vec<(PathBuf, String)> = Vec::new();
    store.scan_names(|entry| {
        let path = entry.path();
        // A file whose messages are damaged keeps its title (and is found
        // by it, to be refused with the way to mend it): never a second
        // session of that title beside it.
        let header = match (entry.header, entry.damaged_header) {
            (Ok(header), _) | (Err(_), Some(header)) => header,
            (Err(why), None) => return damaged.push((path, why)),
        };
        if header.title == name || cleaned.as_deref() == Some(header.title.as_str()) {
            exact.push(header);
        } else {
            closest.consider(&header.title, header.updated_at);
        }
    })?;
    Ok(if exact.is_empty() { Titled::None { near: closest.finish(), damaged } } else { Titled::Found(exact) })
}

/// A name that is at once a title and a short ID of other sessions: every
/// one of them, the titled ones first.
fn ambiguous_name(name: &str, titled: Vec<Header>, ids: Vec<Header>) -> Error {
    let mut candidates = Vec::new();
    for (list, how) in [(titled, "has that title"), (ids, "has an ID it abbreviates")] {
        for h in newest_first(list) {
            candidates.push((h.id, h.title, h.updated_at, how));
        }
    }
    Error::AmbiguousName { name: name.to_string(), candidates }
}

fn newest_first(mut sessions: Vec<Header>) -> Vec<Header> {
    session::sort_newest_first(&mut sessions, crate::time::now());
    sessions
}

/// A title that names several sessions (made on two machines before they
/// synced, or imported) names none: acting on one of them, or creating a
/// third, would be a guess. Newest first.
fn ambiguous(name: &str, sessions: Vec<Header>) -> Error {
    let sessions = newest_first(sessions);
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
pub(crate) fn titled(store: &Store, name: &str) -> Result<Vec<Header>> {
    let cleaned = session::sanitize_title(name);
    let mut found = Vec::new();
    store.scan_names(|entry| {
        if let Some(header) = entry.named()
            && (header.title == name || cleaned.as_deref() == Some(header.title.as_str()))
        {
            found.push(header);
        }
    })?;
    Ok(found)
}

/// Whether `name` has the form of a short ID: 8 or more leading characters
/// of an ID, or the 6 hex digits that end one.
pub(crate) fn is_short_id(name: &str) -> bool {
    matches!(session::id_shape(name), Some(IdShape::Prefix | IdShape::Suffix))
}

/// The IDs among `ids` (sorted) that the short ID `name` fits, its
/// letters in any case (IDs are written in lower case).
pub(crate) fn ids_fitting<'a>(ids: &'a [[u8; 22]], name: &str) -> Vec<&'a [u8; 22]> {
    let name = name.to_ascii_lowercase();
    let b = name.as_bytes();
    if b.len() == 6 {
        return ids.iter().filter(|id| id.ends_with(b)).collect();
    }
    let from = ids.partition_point(|id| &id[..] < b);
    ids[from..].iter().take_while(|id| id.starts_with(b)).collect()
}

/// Every session the short ID `name` fits (none when `name` is not
/// shaped like one).
fn short_id_candidates(store: &Store, name: &str) -> Result<Vec<Header>> {
    if !is_short_id(name) {
        return Ok(Vec::new());
    }
    let ids = store.session_ids()?;
    let mut fitting = Vec::new();
    for key in ids_fitting(&ids, name) {
        let id = std::str::from_utf8(key).expect("IDs are ASCII");
        if let Some(h) = store.header(id)? {
            fitting.push(h);
        }
    }
    Ok(fitting)
}

/// A short ID that fits several sessions: they are listed, newest first,
/// so the user can choose.
fn ambiguous_id(name: &str, fitting: Vec<Header>) -> Error {
    let mut fitting = fitting;
    crate::order::sort_by(&mut fitting, |a, b| {
        b.updated_at.total_cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
    });
    Error::AmbiguousId {
        name: name.to_string(),
        candidates: fitting.into_iter().map(|h| (h.id, h.title, h.updated_at)).collect(),
    }
}

/// The session a short ID names; None when it fits none. Fitting several
/// is an error that lists them, newest first.
pub(crate) fn by_short_id(store: &Store, name: &str) -> Result<Option<Header>> {
    let mut fitting = short_id_candidates(store, name)?;
    match fitting.len() {
        0 => Ok(None),
        1 => Ok(fitting.pop()),
        _ => Err(ambiguous_id(name, fitting)),
    }
}

/// The session with this ID (`-r`), or the one its short ID names. `-r`
/// takes IDs only: a title never enters, so a title shaped like a short ID
/// cannot stand in for the session that ID names.
pub(crate) fn find_by_id(store: &Store, id: &str) -> Result<Header> {
    if let Some(h) = store.header(&session::as_written_id(id))? {
        return Ok(h);
    }
    if let Some(h) = by_short_id(store, id)? {
        return Ok(h);
    }
    // `-r notes`: a title given where an ID goes.
    let titled = matches!(lookup(store, id), Ok(Lookup::Found(_)));
    Err(Error::NoSuchId { id: id.to_string(), titled })
}

/// The current workspace: the enclosing git work tree's root, else the
/// current directory.
pub(crate) fn current_workspace() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists()).map(Path::to_path_buf);
    Some(root.unwrap_or(cwd))
}

/// The current directory as text, for recording in sessions/breadcrumbs.
pub(crate) fn cwd_string() -> String {
    std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_have_the_shape_of_an_id_part() {
        assert!(is_short_id("a1b2c3"));
        assert!(is_short_id("20261202"));
        assert!(is_short_id("20261202_1535"));
        assert!(is_short_id("20261202_153500_a1b2"));
        assert!(!is_short_id("2026120"));
        assert!(is_short_id("A1B2C3"));
        assert!(!is_short_id("a1b2c"));
        assert!(!is_short_id("2026x202"));
        assert!(!is_short_id("20261202_153500_a1b2c3"));
        assert!(!is_short_id("../../etc"));
    }

    #[test]
    fn short_ids_fit_prefixes_and_suffixes() {
        let ids = [
            session::id_key("20261202_153500_a1b2c3"),
            session::id_key("20261202_153501_ffffff"),
            session::id_key("20261203_000000_a1b2c3"),
        ];
        assert_eq!(ids_fitting(&ids, "20261202").len(), 2);
        assert_eq!(ids_fitting(&ids, "20261202_153501"), vec![&ids[1]]);
        assert_eq!(ids_fitting(&ids, "a1b2c3").len(), 2);
        assert_eq!(ids_fitting(&ids, "ffffff"), vec![&ids[1]]);
        assert_eq!(ids_fitting(&ids, "FFFFFF"), vec![&ids[1]]);
        assert_eq!(ids_fitting(&ids, "20261202_153501_FF").len(), 1);
        assert!(ids_fitting(&ids, "20261204").is_empty());
    }
}
