//! Mending a damaged session whose ID and title read (`sessions repair`):
//! the file is first copied whole, byte for byte, out of `sessions/` into
//! `damaged/`, and only then written back with every message that checks,
//! its header's counts, activity time and preview made anew from them.
//! Nothing is deleted.

use std::io::{Read, Write};
use std::path::PathBuf;

use super::format::{self, Fault};
use super::session::{self, Header, Message, Session, usage_of};
use super::{Store, fault_error, gone, open_session, refuse_newer, trust};
use crate::error::{Error, Result};
use crate::fsio;

/// Make a mended header's counts, activity time and preview anew from
/// the messages kept (its title, ID and the rest stay). Times that did
/// not read are the messages' own, else the file's last change (`mtime`):
/// never 1970, which pruning would take for long inactive.
fn recount(header: &mut Header, kept: &[Message], mtime: f64) {
    let first = kept.iter().map(|m| m.ts).reduce(f64::min);
    let last = kept.iter().map(|m| m.ts).reduce(f64::max);
    if header.created_at <= 0.0 {
        header.created_at = first.unwrap_or(mtime);
    }
    header.updated_at = last.unwrap_or(0.0).max(header.updated_at).max(header.created_at);
    header.message_count = kept.len() as u64;
    header.usage = usage_of(kept);
    header.preview = match kept.iter().find(|m| m.role == "user") {
        Some(m) => session::preview_of(&m.content),
        None => String::new(),
    };
}

/// What mending a session did, or (dry run) would do.
pub(crate) struct Repair {
    /// The session's title, as its header has it.
    pub(crate) title: String,
    pub(crate) kept: usize,
    /// The damage left out, "message 2: why" each.
    pub(crate) lost: Vec<String>,
    /// Where the original file was copied (None in a dry run).
    pub(crate) aside: Option<PathBuf>,
}

impl Store {
    /// Mend session `id`, under its lock; Ok(None) when it is not damaged.
    /// A file whose ID and title do not read (nothing names it), that
    /// names another session, or that a newer hermes wrote is refused.
    pub(crate) fn repair(&self, id: &str, dry_run: bool) -> Result<Option<Repair>> {
        let _guard = if dry_run { None } else { Some(self.lock_session(id)?) };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let mut file = open_session(&path)?.ok_or_else(|| gone(id))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| Error::io(&path, e))?;
        match format::read(&bytes[..]).and_then(format::Reader::check) {
            Ok(header) => return refuse_newer(&path, &header).map(|()| None),
            Err(Fault::Newer(format)) => return Err(fault_error(&path, Fault::Newer(format))),
            Err(_) => {}
        }
        let salvage = format::salvage(&bytes).map_err(|fault| fault_error(&path, fault))?;
        format::check_id(&salvage.header, id).map_err(|why| Error::Corrupt { path: path.clone(), why })?;
        refuse_newer(&path, &salvage.header)?;
        let (kept, lost, title) = (salvage.kept.len(), salvage.lost, salvage.header.title.clone());
        if dry_run {
            return Ok(Some(Repair { title, kept, lost, aside: None }));
        }
        let aside = self.put_aside(id, &bytes)?;
        let mut header = salvage.header;
        let modified = file.metadata().ok().and_then(|m| m.modified().ok());
        let modified = modified.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        recount(&mut header, &salvage.kept, modified.map_or_else(crate::time::now, |d| d.as_secs_f64()));
        self.replace(&path, &Session { header, messages: salvage.kept })?;
        Ok(Some(Repair { title, kept, lost, aside: Some(aside) }))
    }

    /// The directory damaged files are copied to before they are mended.
    pub(crate) fn damaged_dir(&self) -> PathBuf {
        self.home.join("damaged")
    }

    /// Copy `bytes` (session `id`'s file as it was) to
    /// `damaged/ID.json.YYYYMMDD_HHMMSS` (`-2`, `-3`... when taken), synced
    /// before the session is rewritten. Mode 0600, the directory 0700,
    /// made by hermes; one that is a link or not safe is refused.
    fn put_aside(&self, id: &str, bytes: &[u8]) -> Result<PathBuf> {
        let dir = self.damaged_dir();
        fsio::ensure_private_dir(&dir)?;
        // hermes's own, as every directory of the home: not a link (the
        // copy would land where it leads), not another's, not writable by
        // others.
        trust::check_dir(&dir, trust::Place::Inside)
            .map_err(|problem| Error::Untrusted(problem.message()))?;
        let now = crate::time::now() as i64;
        let (y, mo, d, h, mi, s) = crate::sys::local_time(now).unwrap_or((1970, 1, 1, 0, 0, 0));
        let stamp = format!("{y:04}{mo:02}{d:02}_{h:02}{mi:02}{s:02}");
        // Under the session's lock: no other repair of this ID picks a name.
        let target = (1..)
            .map(|n| match n {
                1 => dir.join(format!("{id}.json.{stamp}")),
                n => dir.join(format!("{id}.json.{stamp}-{n}")),
            })
            .find(|p| std::fs::symlink_metadata(p).is_err())
            .expect("unbounded");
        let mut out = fsio::AtomicFile::create(&target)?;
        out.write_all(bytes).map_err(|e| Error::io(&target, e))?;
        out.commit()?;
        Ok(target)
    }
}
