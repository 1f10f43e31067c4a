//! A store made ready by an import: its header index and its catalog
//! written from what the import knows (the headers its first pass read of
//! the sessions there before, and the sessions it wrote, with what they
//! hold), so that the first listing after it reads a few files, not every
//! one. Both stay caches: the index vouches for a file only while its
//! stamp is the one recorded, and the catalog is written only when the
//! sessions directory holds exactly what the import saw and wrote.
//!
//! The files an import writes are dated in the past (the session's last
//! activity, see `Batch::add_dated`): a file's entry in the index is used
//! only once its time is "settled" (`index::RACY_SECS`), and any later
//! change to it, by hermes or anyone, gives it the time of that change.

use std::fs;

use super::Store;
use super::catalog::{self, DirStamp};
use super::index::{self, Stamp};
use super::scan::{Scanned, stamps_in, stat_threads};
use super::session::{self, Header};

/// What an import saw and wrote, for `finish`.
#[derive(Default)]
pub(crate) struct Settling {
    /// The sessions there before it, with their stamps; None once one was
    /// seen that the catalog cannot hold (damaged, or without a stamp).
    before: Option<Vec<([u8; 22], Stamp)>>,
    /// The sessions it wrote: ID, and its index line's tail (`index::tail`:
    /// a few hundred bytes where a header would take a kilobyte).
    written: Vec<([u8; 22], Box<str>)>,
    catalog: catalog::Builder,
    /// A file it meant to write was made by someone else meanwhile.
    unsure: bool,
}

impl Settling {
    pub(crate) fn new() -> Settling {
        Settling { before: Some(Vec::new()), ..Settling::default() }
    }

    /// A session there before the import, as its scan saw it.
    pub(crate) fn saw(&mut self, entry: &Scanned) {
        match (&entry.header, entry.stamp, self.before.as_mut()) {
            (Ok(header), Some(stamp), Some(before)) => {
                before.push((session::id_key(entry.id()), stamp));
                self.catalog.add_header(header);
            }
            _ => self.before = None,
        }
    }

    /// A session the import wrote, holding `messages`.
    pub(crate) fn wrote(&mut self, header: &Header, messages: &[session::Message]) {
        self.catalog.add_header(header);
        let measure = super::context::measure_messages(messages);
        self.written.push((session::id_key(&header.id), index::tail(header, &measure)));
    }

    /// Some file meant for the import turned out to be someone else's.
    pub(crate) fn unsure(&mut self) {
        self.unsure = true;
    }

    /// After the import's last commit (the store lock still held): the
    /// index with the written sessions in it, and, when the directory holds
    /// exactly the sessions seen and written (none of them changed since),
    /// a catalog of them all. A store too small to keep them gets neither.
    pub(crate) fn finish(mut self, store: &Store) {
        let total = self.before.as_ref().map_or(0, Vec::len) + self.written.len();
        if self.written.is_empty() || self.unsure || total < index::MIN_SESSIONS {
            return;
        }
        let Ok(lock) = store.lock_file() else { return };
        let Ok(_guard) = lock.catalog() else { return };
        crate::order::sort_by(&mut self.written, |a, b| a.0.cmp(&b.0));
        let keys: Vec<[u8; 22]> = self.written.iter().map(|(key, _)| *key).collect();
        let Some(stamps) = stamps_of(store, &keys) else { return };
        let entries: Vec<(String, Stamp, Box<str>)> = self
            .written
            .drain(..)
            .zip(&stamps)
            .filter_map(|((key, tail), stamp)| Some((session::id_of_key(&key)?, (*stamp)?, tail)))
            .collect();
        index::merge_in(&store.home.join("index"), &entries);
        let Some(before) = self.before.take() else { return };
        if entries.len() != keys.len() {
            return;
        }
        let Some(dir) = as_seen(store, before, &keys).filter(|dir| !dir.racy(crate::time::now())) else {
            return;
        };
        let generation = catalog::new_generation();
        if self.catalog.write(&store.catalog_path(), generation).is_ok() {
            let state = catalog::State { generation, dir, journal: Vec::new() };
            let _ = state.write(&store.catalog_state_path());
        }
    }
}

/// The stamps of these sessions' files (IDs sorted); None if the
/// directory cannot be read.
fn stamps_of(store: &Store, keys: &[[u8; 22]]) -> Option<Vec<Option<Stamp>>> {
    let dir = fs::File::open(&store.sessions_dir).ok()?;
    let stamps = stamps_in(&dir, keys, stat_threads(keys.len()));
    Some(stamps.into_iter().map(|s| s.ok().flatten()).collect())
}

/// The state of the sessions directory, if it holds exactly the sessions
/// there before (each with the stamp it had) and those written (`keys`),
/// and no other, and stayed so while it was looked at.
fn as_seen(store: &Store, mut before: Vec<([u8; 22], Stamp)>, keys: &[[u8; 22]]) -> Option<DirStamp> {
    let dir = DirStamp::of(&store.sessions_dir)?;
    crate::order::sort_by_key(&mut before, |(key, _)| *key);
    let old: Vec<[u8; 22]> = before.iter().map(|(key, _)| *key).collect();
    let mut expected: Vec<[u8; 22]> = old.iter().chain(keys).copied().collect();
    crate::order::sort(&mut expected);
    if store.session_ids().ok()? != expected {
        return None;
    }
    let unchanged = stamps_of(store, &old)?.iter().zip(&before).all(|(now, (_, then))| *now == Some(*then));
    (unchanged && DirStamp::of(&store.sessions_dir) == Some(dir)).then_some(dir)
}
