//! The store's locks: POSIX byte-range locks on one file that is never
//! renamed, so a lock always guards the name it was taken for.
//!
//! Byte 0 is the store-wide lock (creating, renaming, importing, deleting:
//! whatever must keep titles unique). Each session locks one byte chosen by
//! a hash of its ID; two IDs sharing a byte only wait for each other. The
//! byte after those is the catalog lock (see `store::catalog`), the one
//! after it config.toml's, then the history's (`store::history`).
//! Locks are released when the guard drops or the process dies, so a
//! SIGKILLed writer never leaves a stale lock behind.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::sys;

pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// Offset of the first per-session byte, and how many there are.
const SESSION_BYTES_START: u64 = 1;
const SESSION_BYTES: u64 = 1 << 20;
/// The byte after the sessions' ones.
const CATALOG_BYTE: u64 = SESSION_BYTES_START + SESSION_BYTES;
/// config.toml's: `config set` and `unset` read, change and write it
/// holding this one only.
const CONFIG_BYTE: u64 = CATALOG_BYTE + 1;
/// The history's (`store::history`): held alone, while a line is added
/// and while the file is written anew.
const HISTORY_BYTE: u64 = CONFIG_BYTE + 1;

pub(crate) struct LockFile {
    file: File,
    path: PathBuf,
}

/// A held lock; released on drop.
pub(crate) struct Guard<'a> {
    lock: &'a LockFile,
    start: u64,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        sys::unlock_range(self.lock.file.as_raw_fd(), self.start, 1);
    }
}

impl LockFile {
    /// Open (creating, mode 0600) the lock file. It is opened once per
    /// process and kept: POSIX drops all of a process's locks on a file
    /// when any descriptor for it is closed.
    pub(crate) fn open(path: &Path) -> Result<LockFile> {
        let file = crate::sys::with_private_umask(|| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(path)
        })
        .map_err(|e| Error::io(path, e))?;
        Ok(LockFile { file, path: path.to_path_buf() })
    }

    pub(crate) fn store(&self) -> Result<Guard<'_>> {
        self.acquire(0, "store lock".to_string())
    }

    /// The catalog lock: held by every write that changes the sessions
    /// directory, from just before the change until the catalog's state
    /// records it, so that no two writers' records cross.
    pub(crate) fn catalog(&self) -> Result<Guard<'_>> {
        self.acquire(CATALOG_BYTE, "catalog lock".to_string())
    }

    pub(crate) fn config(&self) -> Result<Guard<'_>> {
        self.acquire(CONFIG_BYTE, "lock of config.toml".to_string())
    }

    pub(crate) fn history(&self) -> Result<Guard<'_>> {
        self.acquire(HISTORY_BYTE, "lock of the history".to_string())
    }

    pub(crate) fn session(&self, id: &str) -> Result<Guard<'_>> {
        let start = SESSION_BYTES_START + crate::hash::fnv1a(id.as_bytes()) % SESSION_BYTES;
        self.acquire(start, format!("lock of session {id}"))
    }

    /// The lock of session `id` if no one holds it right now.
    pub(crate) fn try_session(&self, id: &str) -> Result<Option<Guard<'_>>> {
        let start = SESSION_BYTES_START + crate::hash::fnv1a(id.as_bytes()) % SESSION_BYTES;
        match sys::try_lock_range(self.file.as_raw_fd(), start, 1) {
            Ok(true) => Ok(Some(Guard { lock: self, start })),
            Ok(false) => Ok(None),
            Err(e) => Err(Error::io(&self.path, e)),
        }
    }

    fn acquire(&self, start: u64, what: String) -> Result<Guard<'_>> {
        let deadline = Instant::now() + TIMEOUT;
        let mut pause = Duration::from_millis(1);
        loop {
            match sys::try_lock_range(self.file.as_raw_fd(), start, 1) {
                Ok(true) => return Ok(Guard { lock: self, start }),
                Ok(false) => {}
                Err(e) => return Err(Error::io(&self.path, e)),
            }
            if sys::signal_pending() {
                return Err(Error::Interrupted);
            }
            if Instant::now() >= deadline {
                return Err(Error::LockTimeout { lock: self.path.clone(), what, waited: TIMEOUT });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(25));
        }
    }
}
