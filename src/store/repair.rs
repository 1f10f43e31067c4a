//! Mending a session whose header reads and whose messages do not all
//! (`sessions repair`): the file is first copied whole, byte for byte, out
//! of `sessions/` into `damaged/`, and only then written back with every
//! message that checks. Nothing is deleted.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::format::{self, Fault};
use super::{Store, fault_error, gone, open_session, refuse_newer};
use crate::error::{Error, Result};
use crate::fsio;

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
    /// A file whose header does not read (nothing names it), that names
    /// another session, or that a newer hermes wrote is refused.
    pub(crate) fn repair(&self, id: &str, dry_run: bool) -> Result<Option<Repair>> {
        let _guard = if dry_run { None } else { Some(self.lock_session(id)?) };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        // Read as a stream, every pass from the start of the one version
        // opened: a file of any size takes its longest message's bytes.
        let file = open_session(&path)?.ok_or_else(|| gone(id))?;
        let from_start = || -> Result<&std::fs::File> {
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
        // A first walk counts what is kept (the header comes first).
        let (mut kept, mut usage) = (0usize, None::<crate::store::session::Usage>);
        while let Some(m) = salvage.next_kept().map_err(fault)? {
            kept += 1;
            match (&mut usage, m.usage) {
                (Some(sum), Some(u)) => sum.add(&u),
                (None, u) => usage = u,
                (Some(_), None) => {}
            }
        }
        let lost = std::mem::take(&mut salvage.lost);
        format::check_id(&salvage.header, id).map_err(|why| Error::Corrupt { path: path.clone(), why })?;
        refuse_newer(&path, &salvage.header)?;
        let title = salvage.header.title.clone();
        if dry_run {
            return Ok(Some(Repair { title, kept, lost, aside: None }));
        }
        let aside = self.put_aside(id, from_start()?)?;
        let mut header = salvage.header;
        header.message_count = kept as u64;
        header.usage = usage;
        let mut again = format::salvage(from_start()?).map_err(fault)?;
        self.replace_each(&path, &header, &mut |emit| {
            while let Some(m) = again.next_kept().map_err(fault)? {
                emit(&m)?;
            }
            Ok(())
        })?;
        Ok(Some(Repair { title, kept, lost, aside: Some(aside) }))
    }

    /// The directory damaged files are copied to before they are mended.
    pub(crate) fn damaged_dir(&self) -> PathBuf {
        self.home.join("damaged")
    }

    /// Copy `bytes` (session `id`'s file as it was, read to its end) to
    /// `damaged/ID.json.YYYYMMDD_HHMMSS` (`-2`, `-3`... when taken), synced
    /// before the session is rewritten. Mode 0600, the directory 0700.
    fn put_aside(&self, id: &str, mut bytes: impl Read) -> Result<PathBuf> {
        let dir = self.damaged_dir();
        fsio::ensure_private_dir(&dir)?;
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
