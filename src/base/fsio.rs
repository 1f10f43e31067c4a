//! Atomic file writes, private directories and careful reads: the only
//! places hermes touches the file system for its files (the store, the
//! breadcrumbs, exports, `--output`).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::sys;

/// Suffix of in-flight temporary files; readers skip them and `prune`
/// removes old ones.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// Whether a file name is one of hermes's own temporaries:
/// `.TARGET.HEX12.tmp`, as `AtomicFile`, `Batch` and the index make them.
/// Sweeps remove nothing else.
pub(crate) fn is_temp_name(name: &str) -> bool {
    let Some(inner) = name.strip_prefix('.').and_then(|n| n.strip_suffix(TEMP_SUFFIX)) else {
        return false;
    };
    inner.rsplit_once('.').is_some_and(|(target, hex)| {
        !target.is_empty() && hex.len() == 12 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// hermes's own temporaries in `dir` (regular files only, links never):
/// (path, name, size, modification time).
pub(crate) fn temporaries_in(dir: &Path) -> Vec<(PathBuf, String, u64, std::time::SystemTime)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok().filter(|n| is_temp_name(n))?;
            // DirEntry::metadata does not follow a link.
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            Some((e.path(), name, meta.len(), meta.modified().ok()?))
        })
        .collect()
}

/// The session a temporary in `sessions/` was being written for.
pub(crate) fn temp_session_id(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let (target, _) = inner.rsplit_once('.')?;
    target.strip_suffix(".json")
}

/// Create `dir` and any missing parents with mode 0700.
pub(crate) fn ensure_private_dir(dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => {
            // A symlink to a directory is fine for HERMES_HOME itself (users
            // keep dotfiles in other places); anything else is not a dir.
            if fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
                return Ok(());
            }
            return Err(Error::NotADirectory(dir.to_path_buf()));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(dir, e)),
    }
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        ensure_private_dir(parent)?;
    }
    match sys::mkdir_private(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => Error::creating_in("make", dir, parent, e),
            None => Error::io(dir, e),
        }),
    }
}

/// A random lowercase hex string of `n` digits from the OS random source.
pub(crate) fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n.div_ceil(2)];
    if getrandom::fill(&mut bytes).is_err() {
        // No usable OS random source: fall back to time and pid, which still
        // keeps names distinct between processes.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
            ^ ((std::process::id() as u128) << 64);
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (seed >> ((i % 16) * 8)) as u8;
        }
    }
    let mut hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    hex.truncate(n);
    hex
}

/// Create a new file with mode 0600 that did not exist before, refusing to
/// follow a symlink planted at `path`.
pub(crate) fn create_new_private(path: &Path) -> io::Result<File> {
    sys::with_private_umask(|| {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
    })
}

/// Replace `target` with `contents` so that a reader sees the old file or
/// the new one, never a mix, and a crash leaves at most a stray temporary.
pub(crate) fn write_atomic(target: &Path, contents: &[u8]) -> Result<()> {
    let mut file = AtomicFile::create(target)?;
    file.write_all(contents).map_err(|e| Error::io(target, e))?;
    file.commit()
}

/// A file written in pieces that appears at its name, whole, on `commit`:
/// a temporary with a random name in the same directory (created with
/// O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), fsync'd, renamed over the
/// target, then the directory fsync'd. Dropped uncommitted, it vanishes.
pub(crate) struct AtomicFile {
    out: io::BufWriter<File>,
    temp: PathBuf,
    target: PathBuf,
}

impl AtomicFile {
    pub(crate) fn create(target: &Path) -> Result<AtomicFile> {
        let dir = target.parent().unwrap_or(Path::new("."));
        let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        loop {
            let temp = dir.join(format!(".{name}.{}{TEMP_SUFFIX}", random_hex(12)));
            match create_new_private(&temp) {
                Ok(file) => {
                    let out = io::BufWriter::with_capacity(256 << 10, file);
                    return Ok(AtomicFile { out, temp, target: target.to_path_buf() });
                }
                // Taken (or a planted symlink): pick another name.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                // Named by the file the user knows, not the temporary.
                Err(e) => return Err(Error::creating_in("write", target, dir, e)),
            }
        }
    }

    /// The file this becomes on `commit`.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    pub(crate) fn commit(self) -> Result<()> {
        self.commit_with(|| {}, || {})
    }

    /// `commit`, running `before_rename` and `after_rename` right around
    /// the rename (the catalog watches the directory there).
    pub(crate) fn commit_with(
        mut self,
        before_rename: impl FnOnce(),
        after_rename: impl FnOnce(),
    ) -> Result<()> {
        let target = self.target.clone();
        let synced = self.out.flush().and_then(|()| sys::sync_file(self.out.get_ref()));
        synced.map_err(|e| Error::io(&target, e))?;
        if sys::write_aborted() {
            return Err(Error::Interrupted); // Drop removes the temporary
        }
        before_rename();
        fs::rename(&self.temp, &target).map_err(|e| Error::io(&target, e))?;
        after_rename();
        self.temp = PathBuf::new(); // renamed: nothing for Drop to remove
        sync_dir(target.parent().unwrap_or(Path::new(".")));
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// Make a rename or unlink in `dir` durable. Best effort: some file systems
/// refuse fsync on directories, and the data itself is already on disk.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = sys::sync_directory(&d);
    }
}

/// Open a regular file for reading without following a symlink and without
/// blocking on a planted FIFO.
/// Returns the file and its metadata.
pub(crate) fn open_regular(path: &Path) -> io::Result<(File, fs::Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a regular file"));
    }
    Ok((file, meta))
}

/// Whole contents of a regular file, refusing files over `limit` bytes.
pub(crate) fn read_limited(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (mut file, meta) = open_regular(path)?;
    let size = meta.len();
    if size > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("larger than {} MiB", limit >> 20)));
    }
    // One read of the known size (plus a byte to notice growth): bounded,
    // and one or two system calls instead of a doubling series. Files of
    // the store are replaced by rename, never grown in place, so growth
    // means someone else is writing it: refuse rather than read on.
    let mut buf = Vec::new();
    read_prefix(&mut file, &mut buf, size as usize + 1)?;
    if buf.len() as u64 > size {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "grew while being read"));
    }
    Ok(buf)
}

/// Up to `limit` bytes from the current position of an open file.
pub(crate) fn read_prefix(file: &mut File, buf: &mut Vec<u8>, limit: usize) -> io::Result<()> {
    buf.clear();
    buf.resize(limit, 0);
    let mut filled = 0;
    while filled < limit {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(())
}

/// Remove a file and make the removal durable; a file already gone is fine.
pub(crate) fn remove(path: &Path) -> Result<()> {
    remove_with(path, || {})
}

/// `remove`, running `after_unlink` right after the name is gone.
pub(crate) fn remove_with(path: &Path, after_unlink: impl FnOnce()) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => {
            after_unlink();
            if let Some(dir) = path.parent() {
                sync_dir(dir);
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Many new files at once (import): each written to a temporary name
/// without its own fsync, then one file-system sync, then each linked to
/// its name and one directory sync. As safe as `write_atomic` per file, at
/// a fraction of the cost; `commit` every so often keeps memory flat.
/// Unlike `write_atomic` it never replaces a file: a name already taken,
/// even by a damaged file or a symlink, keeps what it has.
pub(crate) struct Batch {
    dir: PathBuf,
    pending: Vec<(PathBuf, PathBuf)>,
}

impl Batch {
    pub(crate) fn new(dir: &Path) -> Batch {
        Batch { dir: dir.to_path_buf(), pending: Vec::new() }
    }

    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    /// Stage `contents` for `target`, which must not exist yet; with
    /// `modified`, its modification time set to that (a time in the past:
    /// what it holds was made then).
    pub(crate) fn add(
        &mut self,
        target: &Path,
        contents: &[u8],
        modified: Option<std::time::SystemTime>,
    ) -> Result<()> {
        self.add_with(target, modified, &mut |file| {
            file.write_all(contents).map_err(|e| Error::io(target, e))
        })
    }

    /// `add`, the contents written into the file by `write` (which
    /// buffers them as it needs).
    pub(crate) fn add_with(
        &mut self,
        target: &Path,
        modified: Option<std::time::SystemTime>,
        write: &mut dyn FnMut(&mut File) -> Result<()>,
    ) -> Result<()> {
        if sys::write_aborted() {
            return Err(Error::Interrupted); // Drop removes what is staged
        }
        let name = target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let (temp, mut file) = loop {
            let temp = self.dir.join(format!(".{name}.{}{TEMP_SUFFIX}", random_hex(12)));
            match create_new_private(&temp) {
                Ok(file) => break (temp, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::creating_in("write", target, &self.dir, e)),
            }
        };
        if let Err(e) = write(&mut file) {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        if let Some(modified) = modified {
            // Only a cache's hint (see store::settle): a failure costs speed.
            let _ = file.set_modified(modified);
        }
        self.pending.push((temp, target.to_path_buf()));
        Ok(())
    }

    /// Make everything staged durable and visible. Returns how many targets
    /// existed by then (made by someone else since the caller looked); those
    /// are left as they were and their staged copies dropped. On an error,
    /// what was already placed stays and the rest of the staged files go.
    pub(crate) fn commit(&mut self) -> Result<usize> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        sys::sync_filesystem_of(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        if sys::write_aborted() {
            return Err(Error::Interrupted); // Drop removes what is staged
        }
        let mut staged = std::mem::take(&mut self.pending).into_iter();
        let mut existed = 0;
        for (temp, target) in staged.by_ref() {
            match place_new(&temp, &target) {
                Ok(true) => {}
                Ok(false) => existed += 1,
                Err(e) => {
                    let _ = fs::remove_file(&temp);
                    for (temp, _) in staged {
                        let _ = fs::remove_file(temp);
                    }
                    sync_dir(&self.dir);
                    return Err(Error::io(&target, e));
                }
            }
        }
        sync_dir(&self.dir);
        Ok(existed)
    }
}

/// Give the file staged at `temp` the name `target` unless that name is
/// taken; either way the temporary name goes. Ok(false): it was taken.
/// link(2), unlike rename(2), refuses to replace what is there.
fn place_new(temp: &Path, target: &Path) -> io::Result<bool> {
    match fs::hard_link(temp, target) {
        Ok(()) => {
            // Should this fail, the file is in place all the same, and the
            // leftover name is a stray temporary that prune sweeps.
            let _ = fs::remove_file(temp);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_file(temp);
            Ok(false)
        }
        Err(e) if no_hard_links(&e) => {
            // FAT, some network and FUSE file systems: look, then rename.
            // Only a writer that ignores the store lock could slip in between.
            match fs::symlink_metadata(target) {
                Ok(_) => {
                    let _ = fs::remove_file(temp);
                    Ok(false)
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => fs::rename(temp, target).map(|()| true),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// The errors of link(2) on a file system that has no hard links.
fn no_hard_links(e: &io::Error) -> bool {
    let unsupported = [libc::EPERM, libc::ENOTSUP, libc::EOPNOTSUPP, libc::ENOSYS, libc::EXDEV];
    e.raw_os_error().is_some_and(|code| unsupported.contains(&code))
}

impl Drop for Batch {
    /// Staged files that were never committed are removed.
    fn drop(&mut self) {
        for (temp, _) in self.pending.drain(..) {
            let _ = fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hermes-fsio-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        crate::order::sort(&mut names);
        names
    }

    #[test]
    fn temp_names_are_only_those_hermes_makes() {
        for name in [
            ".20250101_000000_abcdef.json.0123456789ab.tmp",
            ".index.0123456789ab.tmp",
            ".k.json.aaaaaaaaaaaa.tmp",
        ] {
            assert!(is_temp_name(name), "{name}");
        }
        for name in [
            ".notes.tmp",
            "x.json.0123456789ab.tmp",
            "..0123456789ab.tmp",
            ".x.0123456789AB.tmp",
            ".x.0123456789a.tmp",
            ".x.0123456789ab.tmp~",
            ".x.0123456789abc.tmp",
        ] {
            assert!(!is_temp_name(name), "{name}");
        }
    }

    #[test]
    fn batch_commit_never_replaces_a_file() {
        let dir = scratch("batch-exists");
        let mut batch = Batch::new(&dir);
        batch.add(&dir.join("a.json"), b"new a", None).unwrap();
        batch.add(&dir.join("b.json"), b"new b", None).unwrap();
        // Appeared after the caller looked: a damaged file and a symlink.
        fs::write(dir.join("a.json"), b"damaged").unwrap();
        std::os::unix::fs::symlink("elsewhere", dir.join("b.json")).unwrap();
        assert_eq!(batch.commit().unwrap(), 2);
        assert_eq!(fs::read(dir.join("a.json")).unwrap(), b"damaged");
        assert!(fs::symlink_metadata(dir.join("b.json")).unwrap().file_type().is_symlink());
        assert_eq!(names(&dir), ["a.json", "b.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn batch_commit_that_fails_leaves_no_temporaries() {
        let dir = scratch("batch-fails");
        let mut batch = Batch::new(&dir);
        batch.add(&dir.join("a.json"), b"a", None).unwrap();
        // A target the commit cannot create: its directory is missing.
        batch.add(&dir.join("missing/b.json"), b"b", None).unwrap();
        batch.add(&dir.join("c.json"), b"c", None).unwrap();
        assert!(batch.commit().is_err());
        assert_eq!(names(&dir), ["a.json"]);
        assert_eq!(batch.len(), 0);
        drop(batch);
        assert_eq!(names(&dir), ["a.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
