//! `hermes sessions prune`: remove sessions inactive for a while, stray
//! temporary files a crash left behind, and stale breadcrumbs.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::breadcrumb;
use crate::chat;
use crate::error::Result;
use crate::fsio::{self, TEMP_SUFFIX};
use crate::output::{self, Out, counted};
use crate::session::Header;
use crate::store::Store;
use crate::timefmt;

use super::Progress;

/// A temporary file younger than this may belong to a write in progress.
const TEMP_GRACE: Duration = Duration::from_secs(3600);

pub fn run(store: &Store, days: f64, dry_run: bool, yes: bool) -> Result<()> {
    let cutoff = chat::now() - days * 86400.0;
    let mut sessions: Vec<Header> = Vec::new();
    let mut live_ids = std::collections::HashSet::new();
    store.scan(|entry| match entry.header {
        Ok(h) => {
            live_ids.insert(h.id.clone());
            if h.updated_at < cutoff {
                sessions.push(h);
            }
        }
        Err(ref why) => output::warn(&format!(
            "{}: not a valid session file ({why}); left in place",
            entry.path().display()
        )),
    })?;
    sessions.sort_by(|a, b| a.id.cmp(&b.id));
    for h in &sessions {
        live_ids.remove(&h.id); // their breadcrumbs go with them
    }
    let mut temps: Vec<PathBuf> = [store.sessions_dir(), store.crumbs_dir(), &store.home]
        .iter()
        .flat_map(|dir| stray_temporaries(dir))
        .collect();
    let mut crumbs = breadcrumb::remove_stale(store, true);
    for (path, crumb) in breadcrumb::all(store) {
        let orphan = crumb.is_none_or(|c| !live_ids.contains(&c.session_id));
        if orphan && !crumbs.contains(&path) {
            crumbs.push(path);
        }
    }
    // Directory order is arbitrary; a listing people read (and diff) is sorted.
    temps.sort();
    crumbs.sort();
    let mut out = Out::new();
    if dry_run {
        for h in &sessions {
            out.line(&format!(
                "would remove session {} '{}' (last active {})",
                h.id,
                h.title,
                timefmt::local_minutes(h.updated_at)
            ))?;
        }
        for p in temps.iter().chain(&crumbs) {
            out.line(&format!("would remove {}", p.display()))?;
        }
        out.flush()?;
        crate::note!(
            "dry run: {}, {}, {} would be removed",
            counted(sessions.len(), "session"),
            counted(temps.len(), "temporary file"),
            counted(crumbs.len(), "breadcrumb")
        );
        return Ok(());
    }
    if sessions.is_empty() && temps.is_empty() && crumbs.is_empty() {
        crate::note!("nothing to prune");
        return Ok(());
    }
    if !yes {
        let question = format!(
            "Remove {} inactive for {days} days, {} and {}?",
            counted(sessions.len(), "session"),
            counted(temps.len(), "temporary file"),
            counted(crumbs.len(), "breadcrumb")
        );
        if !crate::prompt::confirm(&question, "hermes sessions prune")? {
            crate::note!("nothing removed");
            return Ok(());
        }
    }
    let _guard = store.lock_store()?;
    let mut progress = Progress::new("pruning", sessions.len());
    let mut removed = 0;
    for h in &sessions {
        progress.tick();
        // Re-check under the lock: a session written to since the scan stays.
        if let Ok(Some(now)) = store.header(&h.id)
            && now.updated_at < cutoff
        {
            store.remove(&h.id)?;
            removed += 1;
        }
    }
    drop(progress);
    for p in temps.iter().chain(&crumbs) {
        fsio::remove(p)?;
    }
    crate::note!(
        "removed {}, {}, {}",
        counted(removed, "session"),
        counted(temps.len(), "temporary file"),
        counted(crumbs.len(), "breadcrumb")
    );
    Ok(())
}

/// Temporary files of interrupted writes, older than an hour.
fn stray_temporaries(dir: &Path) -> Vec<PathBuf> {
    let Some(cutoff) = SystemTime::now().checked_sub(TEMP_GRACE) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.is_file() && m.modified().is_ok_and(|t| t < cutoff)))
        .map(|e| e.path())
        .collect()
}
