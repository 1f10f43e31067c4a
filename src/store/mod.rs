//! The session store: where a profile's files live, its locks, and the
//! helpers its rooms share (reading in `scan`, writing in `write`, conflict
//! copies in `copies`, mending a damaged session in `repair`).

pub(crate) mod catalog;
pub(crate) mod context;
mod copies;
pub mod format;
pub(crate) mod history;
pub(crate) mod images;
pub(crate) mod index;
pub mod json;
pub(crate) mod lock;
pub(crate) mod merge;
mod repair;
mod scan;
pub(crate) mod search;
pub mod session;
mod settle;
mod spill;
pub(crate) mod titles;
pub(crate) mod trust;
mod write;

pub(crate) use copies::MergedCopy;
pub(crate) use scan::Messages;
pub(crate) use settle::Settling;
pub(crate) use write::CatalogUpdate;

/// A session's messages given one at a time (a `Messages`' `next`, or a
/// list's); Ok(None) after the last.
pub(crate) type Next<'a> = &'a mut dyn FnMut() -> Result<Option<session::Message>>;

/// A session's messages handed one at a time to the function given.
pub(crate) type Each<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&session::Message) -> Result<()>) -> Result<()>;

use std::cell::{Cell, OnceCell};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fsio;
use crate::store::format::Fault;
use crate::store::lock::{Guard, LockFile};
use session::{FORMAT, Header};

/// A session file larger than this is refused rather than read into memory.
pub const MAX_SESSION_BYTES: u64 = 256 << 20;

pub(crate) struct Store {
    home: PathBuf,
    sessions_dir: PathBuf,
    crumbs_dir: PathBuf,
    /// The directories from `$HERMES_HOME` down to `home` (the profile's
    /// `profiles` and `profiles/NAME` when there is one), checked by
    /// `verify` along with the store's own.
    chain: Vec<(PathBuf, trust::Place)>,
    verified: OnceCell<()>,
    locks: OnceCell<LockFile>,
    /// Conflict copies (see `merge::copy_of`) the last read of the sessions
    /// directory passed: `list` and `stats` warn about them at no extra cost.
    copies_seen: Cell<usize>,
}

impl Store {
    /// The store of `$HERMES_HOME` (`base`), or of its profile `NAME`
    /// (`base/profiles/NAME`); touches nothing on disk.
    pub(crate) fn in_home(base: PathBuf, profile: Option<&str>) -> Store {
        let mut chain = vec![(base.clone(), trust::Place::Home)];
        let home = match profile {
            Some(name) => {
                let profiles = base.join("profiles");
                let home = profiles.join(name);
                chain.push((profiles, trust::Place::Inside));
                chain.push((home.clone(), trust::Place::Inside));
                home
            }
            None => base,
        };
        Store {
            sessions_dir: home.join("sessions"),
            crumbs_dir: home.join("terminal-sessions"),
            home,
            chain,
            verified: OnceCell::new(),
            locks: OnceCell::new(),
            copies_seen: Cell::new(0),
        }
    }

    /// What is unsafe about the home, its profile directories and the
    /// store's own directories (see `trust`), first problem first.
    pub(crate) fn trust_problems(&self) -> Vec<trust::UntrustedPath> {
        let inside =
            [self.sessions_dir.clone(), self.crumbs_dir.clone(), self.damaged_dir(), self.images_dir()]
                .map(|dir| (dir, trust::Place::Inside));
        self.chain
            .iter()
            .chain(inside.iter())
            .filter_map(|(dir, place)| trust::check_dir(dir, *place).err())
            .collect()
    }

    /// Refuse (exit 4) a home another user could tamper with: every
    /// command that writes to the store, or reads config.toml, asks first.
    pub(crate) fn verify(&self) -> Result<()> {
        if self.verified.get().is_some() {
            return Ok(());
        }
        if let Some(problem) = self.trust_problems().into_iter().next() {
            return Err(Error::Untrusted(problem.message()));
        }
        let _ = self.verified.set(());
        Ok(())
    }

    /// An error, said better where the store can: "permission denied"
    /// on a path of a home that another user owns part of becomes whose
    /// it is and how to give it back (see `trust::not_yours`).
    pub(crate) fn explain(&self, e: Error) -> Error {
        match e {
            Error::Io { path, source } if source.kind() == io::ErrorKind::PermissionDenied => {
                match trust::not_yours(&self.chain[0].0, &path) {
                    Some(text) => Error::Untrusted(text),
                    None => Error::Io { path, source },
                }
            }
            e => e,
        }
    }

    /// The profile's directory: `$HERMES_HOME`, or `profiles/NAME` in it.
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }

    pub(crate) fn sessions_dir(&self) -> &Path {
        &self.sessions_dir
    }

    pub(crate) fn crumbs_dir(&self) -> &Path {
        &self.crumbs_dir
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        self.home.join("config.toml")
    }

    pub(crate) fn lock_path(&self) -> PathBuf {
        self.home.join(".lock")
    }

    pub(super) fn catalog_path(&self) -> PathBuf {
        self.home.join("catalog")
    }

    pub(super) fn catalog_state_path(&self) -> PathBuf {
        self.home.join("catalog-state")
    }

    /// The file of a session. Only well-formed IDs become names, so nothing
    /// a user types can point outside the store.
    /// What listed sessions hold, from the index where it can (see
    /// `index::Measures`).
    pub(crate) fn measures(&self) -> index::Measures {
        index::Measures::new(&self.sessions_dir, &self.home.join("index"))
    }

    pub(crate) fn session_path(&self, id: &str) -> Option<PathBuf> {
        session::is_valid_id(id).then(|| self.sessions_dir.join(format!("{id}.json")))
    }

    /// Create the store's directories (0700) on first write, once the
    /// home has passed `verify`.
    pub(crate) fn prepare(&self) -> Result<()> {
        self.verify()?;
        fsio::ensure_private_dir(&self.sessions_dir)
    }

    pub(super) fn lock_file(&self) -> Result<&LockFile> {
        if let Some(l) = self.locks.get() {
            return Ok(l);
        }
        self.prepare()?;
        let lock = LockFile::open(&self.lock_path())?;
        Ok(self.locks.get_or_init(|| lock))
    }

    /// The lock of config.toml: held while `config set` or `unset` reads,
    /// changes and writes it, so racing writers lose no key. Needs only
    /// the home (not `sessions/`).
    pub(crate) fn lock_config(&self) -> Result<Guard<'_>> {
        let lock = match self.locks.get() {
            Some(lock) => lock,
            None => {
                self.verify()?;
                fsio::ensure_private_dir(&self.home)?;
                let lock = LockFile::open(&self.lock_path())?;
                self.locks.get_or_init(|| lock)
            }
        };
        lock.config()
    }

    /// Store-wide lock: held while creating, renaming, importing or
    /// deleting, so titles stay unique.
    pub(crate) fn lock_store(&self) -> Result<Guard<'_>> {
        self.lock_file()?.store()
    }

    /// Lock of one session: held while re-reading and rewriting it.
    pub(crate) fn lock_session(&self, id: &str) -> Result<Guard<'_>> {
        self.lock_file()?.session(id)
    }

    /// The lock of session `id` if no live writer holds it right now.
    pub(crate) fn try_lock_session(&self, id: &str) -> Result<Option<Guard<'_>>> {
        self.lock_file()?.try_session(id)
    }

    /// hermes's temporary files in the store: (path, name, size, mtime),
    /// sessions' first. Only what a crash or a kill left lingers.
    pub(crate) fn temporaries(&self) -> Vec<(PathBuf, String, u64, std::time::SystemTime)> {
        [&self.sessions_dir, &self.crumbs_dir, &self.home, &self.images_dir()]
            .iter()
            .flat_map(|dir| fsio::temporaries_in(dir))
            .collect()
    }

    /// Remove the temporaries in `sessions/` that no live writer holds,
    /// under the store lock the caller holds (creating and importing take
    /// it, so no new session is being written): each is for a session
    /// whose lock is free, left by a write that was killed (an import's
    /// batch leaves up to one per session it was writing). Prune's rule,
    /// for `import` to clean up after a killed import. How many went.
    pub(crate) fn remove_stray_temporaries(&self) -> Result<usize> {
        let mut removed = 0;
        for (path, name, _, _) in fsio::temporaries_in(&self.sessions_dir) {
            let Some(id) = fsio::temp_session_id(&name).filter(|id| session::is_valid_id(id)) else {
                continue;
            };
            if let Some(_unheld) = self.try_lock_session(id)? {
                match fs::remove_file(&path) {
                    Ok(()) => removed += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(Error::io(&path, e)),
                }
            }
        }
        if removed > 0 {
            fsio::sync_dir(&self.sessions_dir);
        }
        Ok(removed)
    }

    /// A fresh ID: local time plus 6 random hex digits, unused so far.
    pub(crate) fn new_id(&self, now: f64) -> String {
        let (y, mo, d, h, mi, s) = crate::sys::local_time(now as i64).unwrap_or((1970, 1, 1, 0, 0, 0));
        loop {
            let id = format!("{y:04}{mo:02}{d:02}_{h:02}{mi:02}{s:02}_{}", fsio::random_hex(6));
            match self.session_path(&id) {
                Some(p) if !p.exists() => return id,
                _ => continue,
            }
        }
    }
}

/// A fault of the file at `path` as the user sees it.
pub(crate) fn fault_error(path: &Path, fault: Fault) -> Error {
    match fault {
        Fault::Damaged(why) => Error::Corrupt { path: path.to_path_buf(), why },
        Fault::Message(why) => damaged_session(path, why),
        // Named by another session's ID, or not a session's own file (a
        // conflict copy): not this one to mend.
        Fault::Header(header, why) if header.id == file_id(path) => damaged_session(path, why),
        Fault::Header(_, why) => Error::Corrupt { path: path.to_path_buf(), why },
        Fault::Newer(format) => Error::NewerFormat { path: path.to_path_buf(), format, understood: FORMAT },
        Fault::TooLarge => Error::Corrupt {
            path: path.to_path_buf(),
            why: format!("larger than {} MiB", MAX_SESSION_BYTES >> 20),
        },
        Fault::Io(e) => Error::io(path, e),
    }
}

/// A damaged session file whose ID and title still read: it can be
/// mended (`sessions repair`).
pub(crate) fn damaged_session(path: &Path, why: String) -> Error {
    let id = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
    Error::DamagedSession { path: path.to_path_buf(), id, why }
}

/// The ID a session file's name (`ID.json`) gives; "" for another name.
fn file_id(path: &Path) -> &str {
    path.file_name().and_then(|s| s.to_str()).and_then(|s| s.strip_suffix(".json")).unwrap_or_default()
}

fn gone(id: &str) -> Error {
    Error::Vanished { id: id.to_string() }
}

pub(crate) fn refuse_newer(path: &Path, header: &Header) -> Result<()> {
    if header.format > FORMAT {
        return Err(Error::NewerFormat {
            path: path.to_path_buf(),
            format: header.format,
            understood: FORMAT,
        });
    }
    Ok(())
}

/// A session file opened for reading; None when it does not exist. Files
/// that are not a regular file of sane size are errors (exit 4).
fn open_session(path: &Path) -> Result<Option<fs::File>> {
    match fsio::open_regular(path) {
        Ok((_, meta)) if meta.len() > MAX_SESSION_BYTES => Err(Error::Corrupt {
            path: path.to_path_buf(),
            why: format!("larger than {} MiB", MAX_SESSION_BYTES >> 20),
        }),
        Ok((file, _)) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            Err(Error::Corrupt { path: path.to_path_buf(), why: e.to_string() })
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(Error::Corrupt { path: path.to_path_buf(), why: "is a symbolic link".into() })
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

/// `work` done on `items` shared out among up to `threads` threads, the
/// results in the order of `items`. A thread that cannot be started leaves
/// its share to the calling one.
fn fan_out<T: Sync, R: Send>(items: &[T], threads: usize, work: &(impl Fn(&[T]) -> Vec<R> + Sync)) -> Vec<R> {
    if threads <= 1 || items.len() < 2 * threads {
        return work(items);
    }
    let share = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut shares = items.chunks(share);
        let own = shares.next().unwrap_or_default();
        let others: Vec<_> = shares
            .map(|items| (items, std::thread::Builder::new().spawn_scoped(scope, move || work(items))))
            .collect();
        let mut done = work(own);
        for (items, started) in others {
            match started {
                Ok(thread) => done.extend(thread.join().expect("panics abort")),
                Err(_) => done.extend(work(items)),
            }
        }
        done
    })
}

#[cfg(test)]
mod tests {
    use super::fan_out;

    #[test]
    fn fan_out_keeps_the_order_of_its_items_whatever_the_threads() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled: Vec<u32> = items.iter().map(|n| n * 2).collect();
        for threads in [0, 1, 2, 3, 4, 7, 600] {
            let done = fan_out(&items, threads, &|share: &[u32]| share.iter().map(|n| n * 2).collect());
            assert_eq!(done, doubled, "{threads} threads");
        }
        assert!(fan_out(&items[..0], 4, &|share: &[u32]| share.to_vec()).is_empty());
    }
}
