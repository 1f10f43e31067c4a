//! `hermes sessions prune`: remove sessions inactive for a while, stray
//! temporary files a crash left behind, stale breadcrumbs, and the images
//! no session names any more (see `store::images`). It runs
//! unattended (from cron, say), so it removes only what is certainly
//! unused: a damaged session file, a session written by a newer hermes and
//! a session written to while prune runs all stay.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::args::{Access, Kind, Run, Spec, Value, man, option, switch};
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::{self, Out};
use crate::store::Store;
use crate::store::session::{FORMAT, Header, is_valid_id};
use crate::terminal::breadcrumb;
use crate::text::counted;
use crate::time;

use super::Progress;

/// A temporary file younger than this may belong to a write in progress.
const TEMP_GRACE: Duration = Duration::from_secs(3600);

/// A breadcrumb to remove: `Stale` (older than 30 days) always goes; one
/// pointing at a session goes only if that session's file is gone by then.
enum Crumb {
    Stale,
    Orphan(String),
}

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// Sessions inactive for longer than this many days go (required).
    pub(crate) days: Option<f64>,
    pub(crate) dry_run: bool,
    pub(crate) yes: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions prune",
    alias: None,
    summary: "delete sessions inactive for DAYS, stray temporary files and stale breadcrumbs",
    about: "\
Delete sessions with no activity for DAYS days, temporary files of
interrupted writes (of a session once no running hermes holds its lock,
others once an hour old), breadcrumbs older than 30 days, and
breadcrumbs pointing at a session file that does not exist (or that this
prune removes), and images in images/ that no session names (once a
minute old). Damaged session files, sessions written by a newer hermes
and sessions written to while prune runs are left in place.

{options}
",
    man: man(r#"
delete sessions with no activity for
.I DAYS
days, temporary files of interrupted writes (of a session once no running
hermes holds its lock, others once an hour old),
breadcrumbs older than 30 days, and breadcrumbs pointing at a session
file that does not exist (or that this prune removes), and images in
images/ that no session names (once a minute old).
Damaged session files, sessions written by a newer hermes and sessions
written to while prune runs are left in place.
"#),
    options: &[
        option(
            "",
            "--older-than",
            Value::new("DAYS", Kind::Number),
            "remove what has been inactive longer than DAYS days",
        )
        .required()
        .man(
            r#"
remove what has been inactive longer than DAYS days (required)
"#,
        )
        .takes(|a, v| {
            let text = v.lossy();
            let days = text.parse::<f64>().ok().filter(|d| d.is_finite() && *d >= 0.0);
            a.days =
                Some(days.ok_or_else(|| {
                    Error::usage(format!("--older-than wants a number of days, not '{text}'"))
                })?);
            Ok(())
        }),
        switch("", "--dry-run", "list what would be removed; remove nothing")
            .man(
                r#"
list what would be removed; remove nothing
"#,
            )
            .sets(|a| a.dry_run = true),
        switch("-y", "--yes", super::YES_HELP)
            .man(
                r#"
do not ask (needed when not on a terminal)
"#,
            )
            .sets(|a| a.yes = true),
    ],
    args: &[],
    start: || Args { days: None, dry_run: false, yes: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        if self.dry_run { Access::Reads } else { Access::Writes }
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { days, dry_run, yes } = args;
    let days = days.unwrap_or(f64::INFINITY);
    let now = time::now();
    let cutoff = now - days * 86400.0;
    let inactive = |h: &Header| h.activity(now) < cutoff && h.format <= FORMAT;
    let sessions = inactive_sessions(store, now, cutoff, inactive)?;
    let mut temps: Vec<PathBuf> = unheld_temporaries(store, dry_run)?;
    let crumbs = doomed_breadcrumbs(store, &sessions);
    // Directory order is arbitrary; a listing people read (and diff) is sorted.
    crate::order::sort(&mut temps);
    let leaving: Vec<&str> = sessions.iter().map(|h| h.id.as_str()).collect();
    let images = store.unreferenced_images(&leaving);
    if dry_run {
        return show_dry_run(&sessions, &temps, &crumbs, &images);
    }
    if sessions.is_empty() && temps.is_empty() && crumbs.is_empty() && images.is_empty() {
        crate::output::note!("nothing to prune");
        return Ok(());
    }
    if !yes {
        let question = format!(
            "Remove {} inactive for {days} days, {} and {}?",
            counted(sessions.len(), "session"),
            counted(temps.len(), "temporary file"),
            counted(crumbs.len(), "breadcrumb")
        );
        let question = match images.len() {
            0 => question,
            n => format!("{} (and {} no session names)", question, counted(n, "image")),
        };
        if !crate::terminal::prompt::confirm(&question, "deleting", "hermes sessions prune")? {
            crate::output::note!("nothing removed");
            return Ok(());
        }
    }
    let _guard = store.lock_store()?;
    let removed = remove_sessions(store, &sessions, inactive)?;
    let temps_removed = remove_temporaries(store, &temps)?;
    let crumbs_removed = remove_breadcrumbs(store, &crumbs)?;
    crate::output::note!(
        "removed {}, {}, {}",
        counted(removed, "session"),
        counted(temps_removed, "temporary file"),
        counted(crumbs_removed, "breadcrumb")
    );
    remove_images(store)
}

/// Remove the images no session names any more (decided again now, under
/// the store lock the caller holds), saying how many when any.
pub(super) fn remove_images(store: &Store) -> Result<()> {
    match store.remove_unreferenced_images()? {
        0 => {}
        n => crate::output::note!("removed {} no session names", counted(n, "image")),
    }
    Ok(())
}

/// The sessions inactive since `cutoff` that hermes may remove, by ID;
/// what it may not is said and left.
fn inactive_sessions(
    store: &Store,
    now: f64,
    cutoff: f64,
    inactive: impl Fn(&Header) -> bool,
) -> Result<Vec<Header>> {
    let mut sessions: Vec<Header> = Vec::new();
    store.scan(|entry| match entry.header {
        Ok(h) if inactive(&h) => sessions.push(h),
        // Listed but never rewritten, and not deleted behind anyone's back.
        Ok(ref h) if h.format > FORMAT && h.activity(now) < cutoff => output::notice(&format!(
            "{}: written in format {} by a newer hermes; left in place",
            entry.path().display(),
            h.format
        )),
        Ok(_) => {}
        Err(ref why) => output::warn_not_a_session_file(&entry.path(), why, "left in place"),
    })?;
    crate::order::sort_by(&mut sessions, |a, b| a.id.cmp(&b.id));
    Ok(sessions)
}

/// `--dry-run`: what would go.
fn show_dry_run(
    sessions: &[Header],
    temps: &[PathBuf],
    crumbs: &[(PathBuf, Crumb)],
    images: &[PathBuf],
) -> Result<()> {
    let mut out = Out::new();
    for h in sessions {
        out.line(&format!(
            "would remove session {} '{}' (last active {})",
            h.id,
            crate::text::printable(&h.title, false),
            time::local_minutes(h.updated_at)
        ))?;
    }
    for p in temps.iter().chain(crumbs.iter().map(|(p, _)| p)).chain(images) {
        out.line(&format!("would remove {}", p.display()))?;
    }
    out.flush()?;
    crate::output::note!(
        "dry run: {}, {}, {} would be removed",
        counted(sessions.len(), "session"),
        counted(temps.len(), "temporary file"),
        counted(crumbs.len(), "breadcrumb")
    );
    if !images.is_empty() {
        crate::output::note!("dry run: {} no session names would be removed", counted(images.len(), "image"));
    }
    Ok(())
}

/// The sessions still inactive under their own lock, removed: how many.
/// The caller holds the store lock.
fn remove_sessions(store: &Store, sessions: &[Header], inactive: impl Fn(&Header) -> bool) -> Result<usize> {
    let mut progress = Progress::new("pruning", sessions.len());
    let mut removed = 0;
    for h in sessions {
        if crate::sys::signal_pending() {
            return Err(Error::Interrupted);
        }
        progress.tick();
        // Decided again under the session's lock: one written to since the
        // scan (or replaced by a newer hermes) stays.
        match store.remove_if(&h.id, &inactive) {
            Ok(true) => removed += 1,
            Ok(false) => {}
            Err(Error::Corrupt { path, why } | Error::DamagedSession { path, why, .. }) => {
                output::warn_not_a_session_file(&path, &why, "left in place")
            }
            Err(e) => return Err(e),
        }
    }
    drop(progress);
    Ok(removed)
}

/// The temporary files still there, removed: how many.
fn remove_temporaries(store: &Store, temps: &[PathBuf]) -> Result<usize> {
    let mut temps_removed = 0;
    for p in temps {
        // Under the lock of the session it was written for (and the store
        // lock, held by creating and importing): no live writer has it.
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let _session = match fsio::temp_session_id(name).filter(|id| is_valid_id(id)) {
            Some(id) if p.parent() == Some(store.sessions_dir()) => Some(store.lock_session(id)?),
            _ => None,
        };
        if fs::symlink_metadata(p).is_ok() {
            fsio::remove(p)?;
            temps_removed += 1;
        }
    }
    Ok(temps_removed)
}

/// The breadcrumbs still doomed, removed: how many.
fn remove_breadcrumbs(store: &Store, crumbs: &[(PathBuf, Crumb)]) -> Result<usize> {
    let mut crumbs_removed = 0;
    for (path, crumb) in crumbs {
        // Looked at again: while the question waited, the terminal may
        // have chatted and rewritten its breadcrumb, or a session been kept.
        let still_doomed = match crumb {
            Crumb::Stale => fs::symlink_metadata(path).is_ok_and(|meta| breadcrumb::is_stale(&meta)),
            Crumb::Orphan(id) => {
                breadcrumb::read_file(path).is_some_and(|now| now.session_id == *id)
                    && session_file_missing(store, id)
            }
        };
        if still_doomed {
            fsio::remove(path)?;
            crumbs_removed += 1;
        }
    }
    Ok(crumbs_removed)
}

/// Breadcrumbs older than 30 days, and those pointing at a session whose
/// file does not exist or is about to be pruned; sorted by path. One that
/// cannot be read, or points at a damaged file, is neither: it ages out.
fn doomed_breadcrumbs(store: &Store, pruned: &[Header]) -> Vec<(PathBuf, Crumb)> {
    let stale = breadcrumb::remove_stale(store, true);
    let mut doomed: Vec<(PathBuf, Crumb)> = Vec::new();
    for (path, crumb) in breadcrumb::all(store) {
        let Some(crumb) = crumb else { continue };
        if !stale.contains(&path)
            && (pruned.iter().any(|h| h.id == crumb.session_id)
                || session_file_missing(store, &crumb.session_id))
        {
            doomed.push((path, Crumb::Orphan(crumb.session_id)));
        }
    }
    doomed.extend(stale.into_iter().map(|p| (p, Crumb::Stale)));
    crate::order::sort_by(&mut doomed, |a, b| a.0.cmp(&b.0));
    doomed
}

/// Whether no file at all (damaged or not) has the name of session `id`.
fn session_file_missing(store: &Store, id: &str) -> bool {
    store
        .session_path(id)
        .is_none_or(|p| fs::symlink_metadata(p).is_err_and(|e| e.kind() == io::ErrorKind::NotFound))
}

/// Temporary files no live writer holds. One in `sessions/` belongs to a
/// writer holding its session's lock (appending, renaming) or the store
/// lock (creating, importing; prune holds it while removing): it is stray
/// when that session's lock is free, however young it is. The index and
/// breadcrumbs are written without a lock: theirs are stray once an hour
/// old. (A dry run in a home it may not lock goes by age alone.)
fn unheld_temporaries(store: &Store, dry_run: bool) -> Result<Vec<PathBuf>> {
    let cutoff = SystemTime::now().checked_sub(TEMP_GRACE).unwrap_or(SystemTime::UNIX_EPOCH);
    // With no lock file yet, no writer holds any lock (and none is made).
    let lock_exists = fs::symlink_metadata(store.lock_path()).is_ok();
    let may_lock = lock_exists && (!dry_run || store.verify().is_ok());
    let mut stray = Vec::new();
    for (path, name, _, modified) in store.temporaries() {
        let session = fsio::temp_session_id(&name).filter(|id| is_valid_id(id));
        let unheld = match session {
            Some(id) if path.parent() == Some(store.sessions_dir()) && (may_lock || !lock_exists) => {
                !lock_exists || store.try_lock_session(id)?.is_some()
            }
            _ => modified < cutoff,
        };
        if unheld {
            stray.push(path);
        }
    }
    Ok(stray)
}
