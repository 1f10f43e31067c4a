//! A store made ready by an import: its header index and its catalog
//! written from what the import knows (the headers its first pass read of
//! the sessions there before, and the sessions it wrote, with what they
//! hold), so that the first listing after it reads a few files, not every
//! one. Both stay caches: the index vouches for a file only while its
//! stamp is the one recorded, and the catalog is written only when the
//! sessions directory holds exactly what the import saw and wrote.
//!
//! What it keeps for them (each written session's index line, every
//! session's catalog entry) is spilled to a temporary file in the home
//! (`spill`), so an import of a million sessions keeps a few MiB for
//! them; of the sessions there before, only a count and a digest.
//!
//! The files an import writes are dated in the past (the session's last
//! activity, see `Batch::add_dated`): a file's entry in the index is used
//! only once its time is "settled" (`index::RACY_SECS`), and any later
//! change to it, by hermes or anyone, gives it the time of that change.

use std::collections::VecDeque;
use std::fs;

use super::Store;
use super::catalog::{self, DirStamp};
use super::context::Measure;
use super::index::{self, Stamp};
use super::scan::{Scanned, stamps_in, stat_threads};
use super::session::{self, Header};
use super::spill::{Merged, Spill};

/// Files stat'ed at a time while the index and the check are written.
const STAT_BATCH: usize = 4096;

/// What an import saw and wrote, for `finish`.
pub(crate) struct Settling {
    /// Off for a dry run: it writes nothing, not even a spill.
    on: bool,
    /// The sessions there before it: how many, and a digest of their IDs
    /// and stamps in ID order; None once one was seen that the catalog
    /// cannot hold (damaged, or without a stamp).
    before: Option<(u64, Digest)>,
    /// The sessions it wrote: each one's ID then its index line's tail
    /// (`index::tail`), in ID order when read back.
    written: Spill,
    /// Every session's catalog entry (`catalog::spilled_entry`), before
    /// and written, in the catalog's order when read back.
    catalog: Spill,
    /// A file it meant to write was made by someone else meanwhile.
    unsure: bool,
}

impl Settling {
    /// What an import into `store` notes; `on` false for a dry run.
    pub(crate) fn new(store: &Store, on: bool) -> Settling {
        Settling {
            on,
            before: Some((0, Digest::default())),
            written: Spill::new(&store.home),
            catalog: Spill::new(&store.home),
            unsure: false,
        }
    }

    /// A session there before the import, as its scan saw it (in ID order).
    pub(crate) fn saw(&mut self, entry: &Scanned) {
        if !self.on {
            return;
        }
        match (&entry.header, entry.stamp, self.before.as_mut()) {
            (Ok(header), Some(stamp), Some((count, digest))) => {
                *count += 1;
                digest.add(&session::id_key(entry.id()), stamp);
                self.catalog.push(&catalog::spilled_entry(header));
            }
            _ => self.before = None,
        }
    }

    /// A session the import wrote, holding `messages`.
    pub(crate) fn wrote(&mut self, header: &Header, messages: &[session::Message]) {
        self.wrote_measured(header, &super::context::measure_messages(messages));
    }

    /// A session the import wrote, whose messages hold `measure`.
    pub(crate) fn wrote_measured(&mut self, header: &Header, measure: &Measure) {
        if !self.on {
            return;
        }
        self.catalog.push(&catalog::spilled_entry(header));
        let mut record = session::id_key(&header.id).to_vec();
        record.extend_from_slice(index::tail(header, measure).as_bytes());
        self.written.push(&record);
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
        let before = self.before.as_ref().map_or(0, |(count, _)| *count);
        let total = before + self.written.count();
        if !self.on || self.written.count() == 0 || self.unsure || total < index::MIN_SESSIONS as u64 {
            return;
        }
        let Ok(lock) = store.lock_file() else { return };
        let Ok(_guard) = lock.catalog() else { return };
        let Ok(dir) = fs::File::open(&store.sessions_dir) else { return };
        let Some(written) = self.written.merged() else { return };
        let mut stamped = Stamped { written, dir: &dir, queue: VecDeque::new(), missing: false };
        index::merge_in(&store.home.join("index"), &mut stamped);
        let complete = !stamped.missing && !stamped.written.broken();
        drop(stamped);
        if !complete {
            return;
        }
        let Some((count, digest)) = self.before.take() else { return };
        let Some(dir) = self.as_seen(store, &dir, count, digest) else { return };
        let generation = catalog::new_generation();
        let Ok(mut writer) = catalog::Writer::create(&store.catalog_path(), total) else { return };
        let Some(mut entries) = self.catalog.merged() else { return };
        while let Some(record) = entries.next() {
            let (hash, line) = record[30..].split_at(8);
            let hash = u64::from_le_bytes(hash.try_into().expect("8 bytes"));
            let Ok(line) = std::str::from_utf8(line) else { return };
            if writer.add(line, hash).is_err() {
                return;
            }
        }
        if !entries.broken() && writer.finish(&store.catalog_path(), generation, 0).is_ok() {
            let state = catalog::State { generation, dir, journal: Vec::new() };
            let _ = state.write(&store.catalog_state_path());
        }
    }

    /// The state of the sessions directory, if it holds exactly the
    /// sessions there before (`count` of them, each with the stamp it had:
    /// their `digest`) and those written, and no other, and stayed so
    /// while it was looked at.
    fn as_seen(&mut self, store: &Store, dir: &fs::File, count: u64, digest: Digest) -> Option<DirStamp> {
        let stamp = DirStamp::of(&store.sessions_dir)?;
        let mut written = self.written.merged()?;
        let mut next_written = written.next().map(|r| r[..22].to_vec());
        let (mut seen, mut now, mut old) = (0u64, Digest::default(), Vec::new());
        let fold = |old: &mut Vec<[u8; 22]>, now: &mut Digest| -> Option<()> {
            for (key, stamp) in old.iter().zip(stamps_in(dir, old, stat_threads(old.len()))) {
                now.add(key, stamp.ok()??);
            }
            old.clear();
            Some(())
        };
        for key in store.session_ids().ok()? {
            if next_written.as_deref() == Some(&key[..]) {
                next_written = written.next().map(|r| r[..22].to_vec());
                continue;
            }
            seen += 1;
            old.push(key);
            if old.len() == STAT_BATCH {
                fold(&mut old, &mut now)?;
            }
        }
        fold(&mut old, &mut now)?;
        let whole = next_written.is_none() && !written.broken() && seen == count && now == digest;
        (whole && DirStamp::of(&store.sessions_dir) == Some(stamp) && !stamp.racy(crate::time::now()))
            .then_some(stamp)
    }
}

/// The written sessions' index entries in ID order, each with its file's
/// stamp, looked up a batch at a time; `missing` once a file had none.
struct Stamped<'a, 'b> {
    written: Merged<'a>,
    dir: &'b fs::File,
    queue: VecDeque<(String, Stamp, Box<str>)>,
    missing: bool,
}

impl Iterator for Stamped<'_, '_> {
    type Item = (String, Stamp, Box<str>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.queue.is_empty() {
            let mut batch = Vec::new();
            while batch.len() < STAT_BATCH
                && let Some(record) = self.written.next()
            {
                let key: [u8; 22] = record[..22].try_into().expect("an ID first");
                batch.push((key, String::from_utf8_lossy(&record[22..]).into()));
            }
            let keys: Vec<[u8; 22]> = batch.iter().map(|(key, _)| *key).collect();
            let stamps = stamps_in(self.dir, &keys, stat_threads(keys.len()));
            for ((key, tail), stamp) in batch.into_iter().zip(stamps) {
                match (session::id_of_key(&key), stamp) {
                    (Some(id), Ok(Some(stamp))) => self.queue.push_back((id, stamp, tail)),
                    _ => self.missing = true,
                }
            }
        }
        self.queue.pop_front()
    }
}

/// A digest of sessions' IDs and stamps, in the order given: two FNV-1a
/// hashes of different starts and primes, 128 bits in all.
#[derive(Clone, Copy, PartialEq)]
struct Digest(u64, u64);

impl Default for Digest {
    fn default() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142)
    }
}

impl Digest {
    fn add(&mut self, key: &[u8; 22], stamp: Stamp) {
        let fields = [stamp.size, stamp.mtime_sec as u64, stamp.mtime_nsec as u64, stamp.ino];
        let bytes = key.iter().copied().chain(fields.iter().flat_map(|f| f.to_le_bytes()));
        for b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
            self.1 = (self.1 ^ b as u64).wrapping_mul(0x0000_0100_0000_0193);
        }
    }
}
