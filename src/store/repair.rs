//! Mending a damaged session whose ID and title read (`sessions repair`):
//! the file is first copied whole, byte for byte, out of `sessions/` into
//! `damaged/`, and only then written back with every message that checks,
//! its header's counts, activity time and preview made anew from them.
//! Nothing is deleted.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::format::{self, Fault};
use super::session::{self, Header, Message, Usage};
use super::{Store, fault_error, gone, open_session, refuse_newer, trust};
use crate::error::{Error, Result};
use crate::fsio;

/// What the header of a mended session says of the messages kept, told
/// as they go by.
#[derive(Default)]
struct Tally {
    count: u64,
    first: Option<f64>,
    last: Option<f64>,
    usage: Option<Usage>,
    preview: Option<String>,
}

impl Tally {
    fn note(&mut self, m: &Message) {
        self.count += 1;
        self.first = Some(self.first.map_or(m.ts, |t| t.min(m.ts)));
        self.last = Some(self.last.map_or(m.ts, |t| t.max(m.ts)));
        match (&mut self.usage, m.usage) {
            (Some(sum), Some(u)) => sum.add(&u),
            (None, u) => self.usage = u,
            (Some(_), None) => {}
        }
        if self.preview.is_none() && m.role == "user" {
            self.preview = Some(session::preview_of(&m.content));
        }
    }

    /// Make a mended header's counts, activity time and preview anew from
    /// the messages kept (its title, ID and the rest stay). Times that did
    /// not read are the messages' own, else the file's last change
    /// (`mtime`): never 1970, which pruning would take for long inactive.
    fn recount(self, header: &mut Header, mtime: f64) {
        if header.created_at <= 0.0 {
            header.created_at = self.first.unwrap_or(mtime);
        }
        header.updated_at = self.last.unwrap_or(0.0).max(header.updated_at).max(header.created_at);
        header.message_count = self.count;
        header.usage = self.usage;
        header.preview = self.preview.unwrap_or_default();
    }
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
    ///
    /// The file is read as a stream, every pass from the start of the one
    /// version opened: one whose header is whole and in hermes's order
    /// takes its longest message's bytes; any other is read whole to be
    /// taken apart (see `format::salvage`).
    pub(crate) fn repair(&self, id: &str, dry_run: bool) -> Result<Option<Repair>> {
        let _guard = if dry_run { None } else { Some(self.lock_session(id)?) };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let file = open_session(&path)?.ok_or_else(|| gone(id))?;
        let from_start = || -> Result<&File> {
            (&file).seek(SeekFrom::Start(0)).map_err(|e| Error::io(&path, e))?;
            Ok(&file)
        };
        match format::read(from_start()?).and_then(format::Reader::check) {
            Ok(header) => return refuse_newer(&path, &header).map(|()| None),
            Err(Fault::Newer(format)) => return Err(fault_error(&path, Fault::Newer(format))),
            Err(_) => {}
        }
        let fault = |fault| fault_error(&path, fault);
        let mut salvage = format::salvage(from_start()?).map_err(fault)?;
        format::check_id(&salvage.header, id).map_err(|why| Error::Corrupt { path: path.clone(), why })?;
        refuse_newer(&path, &salvage.header)?;
        // What is kept is told for the header and (unless in a dry run)
        // written ahead of it, in the one walk.
        let mut body = if dry_run { None } else { Some(self.body(id)?) };
        let mut tally = Tally::default();
        while let Some(m) = salvage.next_kept().map_err(fault)? {
            tally.note(&m);
            if let Some(body) = &mut body {
                body.push(&m)?;
            }
        }
        let (kept, lost, title) = (tally.count as usize, salvage.lost, salvage.header.title.clone());
        let Some(body) = body else {
            return Ok(Some(Repair { title, kept, lost, aside: None }));
        };
        let aside = self.put_aside(id, from_start()?)?;
        let mut header = salvage.header;
        let modified = file.metadata().ok().and_then(|m| m.modified().ok());
        let modified = modified.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        tally.recount(&mut header, modified.map_or_else(crate::time::now, |d| d.as_secs_f64()));
        self.replace_with(&path, &header, body)?;
        Ok(Some(Repair { title, kept, lost, aside: Some(aside) }))
    }

    /// The directory damaged files are copied to before they are mended.
    pub(crate) fn damaged_dir(&self) -> PathBuf {
        self.home.join("damaged")
    }

    /// Copy `bytes` (session `id`'s file as it was, read to its end) to
    /// `damaged/ID.json.YYYYMMDD_HHMMSS` (`-2`, `-3`... when taken), synced
    /// before the session is rewritten. Mode 0600, the directory 0700,
    /// made by hermes; one that is a link or not safe is refused.
    fn put_aside(&self, id: &str, mut bytes: impl Read) -> Result<PathBuf> {
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
        std::io::copy(&mut bytes, &mut out).map_err(|e| Error::io(&target, e))?;
        out.commit()?;
        Ok(target)
    }
}
