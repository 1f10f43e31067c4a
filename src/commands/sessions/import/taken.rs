//! What an import must not give twice: the IDs, titles and short IDs of
//! the sessions there and of those it adds. Held compactly, so that a
//! store or an input of a million sessions takes some 20 MiB: an ID in 9
//! bytes, a title as a 64-bit hash, each in a table at most 7/8 full, and
//! a short ID as one bit of 16 million.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use crate::error::Result;
use crate::store::session;
use crate::store::{Settling, Store};

/// What the store holds and this import has added so far. A (vanishingly
/// rare) title-hash collision only costs an unneeded " (2)" suffix. An ID
/// is taken by any file of its name, read cleanly or not: a damaged file
/// is never replaced.
pub(super) struct Taken {
    /// Every ID there or added, those there before the import marked.
    ids: IdSet,
    titles: TitleSet,
    /// For each title found taken, the number its next " (n)" tries: many
    /// sessions of one title (llm names a conversation by its first
    /// prompt) are numbered in linear time, not each from 2 again.
    next_number: HashMap<u64, u64>,
    /// The files that are not sessions, with why.
    pub(super) damaged: Damaged,
    /// The short ID (last 6 hex digits) of every ID there and coming.
    short_ids: ShortIds,
}

/// The files that are not sessions, by ID, with why: a map of the kind
/// `sessions list` uses (to places in a list), not a hash map of its own.
#[derive(Default)]
pub(super) struct Damaged {
    places: HashMap<[u8; 22], usize>,
    files: Vec<Option<(PathBuf, String)>>,
}

impl Damaged {
    fn insert(&mut self, key: [u8; 22], path: PathBuf, why: String) {
        match self.places.get(&key) {
            Some(&at) => self.files[at] = Some((path, why)),
            None => {
                self.places.insert(key, self.files.len());
                self.files.push(Some((path, why)));
            }
        }
    }

    /// The file of `key`, taken out.
    pub(super) fn remove(&mut self, key: &[u8; 22]) -> Option<(PathBuf, String)> {
        self.places.get(key).and_then(|&at| self.files[at].take())
    }
}

impl Taken {
    /// What the store holds, each session also noted for `settling`; with
    /// the short IDs of what is coming (`short_ids`), room made for
    /// `coming` sessions more.
    pub(super) fn of(
        store: &Store,
        settling: &mut Settling,
        short_ids: ShortIds,
        coming: usize,
    ) -> Result<Taken> {
        let ids = if store.sessions_dir().is_dir() { store.session_ids()? } else { Vec::new() };
        let mut taken = Taken {
            ids: IdSet::with_room(ids.len() + coming),
            titles: TitleSet::with_room(ids.len() + coming),
            next_number: HashMap::new(),
            damaged: Damaged::default(),
            short_ids,
        };
        for key in &ids {
            taken.ids.insert(key, true);
            taken.short_ids.note(key);
        }
        if !ids.is_empty() {
            drop(ids);
            store.scan(|entry| match &entry.header {
                Ok(h) => {
                    settling.saw(&entry);
                    taken.titles.insert(title_key(&h.title));
                }
                Err(why) => {
                    settling.saw(&entry);
                    // A damaged session's title stays taken.
                    if let Some(h) = &entry.damaged_header {
                        taken.titles.insert(title_key(&h.title));
                    }
                    taken.damaged.insert(session::id_key(entry.id()), entry.path(), why.clone());
                }
            })?;
        }
        Ok(taken)
    }

    /// Take the ID `key` for a session being added (its short ID noted);
    /// false when it is taken already.
    pub(super) fn take(&mut self, key: &[u8; 22]) -> bool {
        let new = self.ids.insert(key, false);
        if new {
            self.short_ids.note(key);
        }
        new
    }

    /// Whether `key` is taken: None if not, else whether by a file there
    /// before the import.
    pub(super) fn holder(&self, key: &[u8; 22]) -> Option<bool> {
        self.ids.get(key)
    }

    /// Whether an ID there or coming ends in `suffix`.
    pub(super) fn has_short_id(&self, suffix: &str) -> bool {
        self.short_ids.has(suffix)
    }

    /// Take `title`, numbered (" (2)", " (3)", ...) when it is taken
    /// already; true when it was.
    pub(super) fn make_unique(&mut self, title: &mut String) -> bool {
        let renumbered = !title.is_empty() && self.titles.contains(title_key(title));
        if renumbered {
            let next = self.next_number.entry(title_key(title)).or_insert(2);
            let (n, numbered) = (*next..)
                .map(|n| (n, crate::store::titles::numbered(title, n)))
                .find(|(_, t)| !self.titles.contains(title_key(t)))
                .expect("unbounded");
            *next = n + 1;
            *title = numbered;
        }
        self.titles.insert(title_key(title));
        renumbered
    }
}

fn title_key(title: &str) -> u64 {
    let mut h = DefaultHasher::new();
    title.hash(&mut h);
    h.finish()
}

/// Where a value of hash `hash` is first looked for among `slots` slots.
fn home(hash: u64, slots: usize) -> usize {
    ((hash as u128 * slots as u128) >> 64) as usize
}

/// Slots for `n` values, at most 7/8 full.
fn slots_for(n: usize) -> usize {
    n + n / 7 + 16
}

/// Session IDs, each packed into 9 bytes (its 14 digits as one number and
/// its 6 hex digits: 71 bits, and a mark), in an open-addressed table.
struct IdSet {
    slots: Vec<[u8; 9]>,
    len: usize,
}

const NO_ID: [u8; 9] = [0xff; 9];
const MARK: u128 = 1 << 71;

/// An ID's 71 bits (every valid ID has a value; all ones is none's).
fn pack(key: &[u8; 22]) -> u128 {
    let digits = key[..8].iter().chain(&key[9..15]);
    let number = digits.fold(0u128, |n, b| n * 10 + u128::from(b.wrapping_sub(b'0') % 10));
    let hex = key[16..].iter().fold(0u128, |n, &b| n << 4 | u128::from(hex_value(b).unwrap_or(0)));
    number << 24 | hex
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

impl IdSet {
    fn with_room(n: usize) -> IdSet {
        IdSet { slots: vec![NO_ID; slots_for(n)], len: 0 }
    }

    /// The slot of `value`, or the empty one where it would go.
    fn find(&self, value: u128) -> usize {
        let hash = (value as u64 ^ (value >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut at = home(hash, self.slots.len());
        loop {
            let slot = self.slots[at];
            if slot == NO_ID || unpack(slot) & !MARK == value {
                return at;
            }
            at = (at + 1) % self.slots.len();
        }
    }

    /// Whether `key` is in, and if so its mark.
    fn get(&self, key: &[u8; 22]) -> Option<bool> {
        let slot = self.slots[self.find(pack(key))];
        (slot != NO_ID).then(|| unpack(slot) & MARK != 0)
    }

    /// Put `key` in, `marked` or not; false if it was in.
    fn insert(&mut self, key: &[u8; 22], marked: bool) -> bool {
        let value = pack(key);
        let at = self.find(value);
        if self.slots[at] != NO_ID {
            return false;
        }
        let with_mark = if marked { value | MARK } else { value };
        self.slots[at] = with_mark.to_le_bytes()[..9].try_into().expect("9 bytes");
        self.len += 1;
        if self.len * 8 > self.slots.len() * 7 {
            let old = std::mem::replace(&mut self.slots, vec![NO_ID; slots_for(self.len * 2)]);
            for slot in old.into_iter().filter(|s| *s != NO_ID) {
                let at = self.find(unpack(slot) & !MARK);
                self.slots[at] = slot;
            }
        }
        true
    }
}

fn unpack(slot: [u8; 9]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..9].copy_from_slice(&slot);
    u128::from_le_bytes(bytes)
}

/// Titles' hashes in an open-addressed table (0 is an empty slot: the
/// hash 0 is kept as 1).
struct TitleSet {
    slots: Vec<u64>,
    len: usize,
}

impl TitleSet {
    fn with_room(n: usize) -> TitleSet {
        TitleSet { slots: vec![0; slots_for(n)], len: 0 }
    }

    fn find(&self, hash: u64) -> usize {
        let mut at = home(hash.wrapping_mul(0x9e37_79b9_7f4a_7c15), self.slots.len());
        while self.slots[at] != 0 && self.slots[at] != hash {
            at = (at + 1) % self.slots.len();
        }
        at
    }

    fn contains(&self, hash: u64) -> bool {
        let hash = hash.max(1);
        self.slots[self.find(hash)] == hash
    }

    fn insert(&mut self, hash: u64) {
        let hash = hash.max(1);
        let at = self.find(hash);
        if self.slots[at] == hash {
            return;
        }
        self.slots[at] = hash;
        self.len += 1;
        if self.len * 8 > self.slots.len() * 7 {
            let old = std::mem::replace(&mut self.slots, vec![0; slots_for(self.len * 2)]);
            for hash in old.into_iter().filter(|&h| h != 0) {
                let at = self.find(hash);
                self.slots[at] = hash;
            }
        }
    }
}

/// The short IDs (6 hex digits) seen: one bit each, 2 MiB in all.
pub(super) struct ShortIds(Vec<u64>);

impl ShortIds {
    pub(super) fn new() -> ShortIds {
        ShortIds(vec![0; (1 << 24) / 64])
    }

    /// The short ID of `key`.
    pub(super) fn note(&mut self, key: &[u8; 22]) {
        if let Some(n) = short_number(&key[16..]) {
            self.0[n / 64] |= 1 << (n % 64);
        }
    }

    fn has(&self, suffix: &str) -> bool {
        short_number(suffix.as_bytes()).is_some_and(|n| self.0[n / 64] & 1 << (n % 64) != 0)
    }
}

/// The number 6 hex digits (of either case) write.
fn short_number(hex: &[u8]) -> Option<usize> {
    if hex.len() != 6 {
        return None;
    }
    hex.iter().try_fold(0usize, |n, &b| Some(n << 4 | usize::from(hex_value(b)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_tell_what_is_in_through_growth() {
        let key = |n: u64| {
            session::id_key(&format!(
                "2026{:02}{:02}_{:06}_{:06x}",
                1 + n % 12,
                1 + n % 28,
                n % 999_999,
                n % 0xff_ffff
            ))
        };
        let mut ids = IdSet::with_room(10);
        let mut titles = TitleSet::with_room(10);
        for n in 0..50_000 {
            assert!(ids.insert(&key(n), n % 3 == 0));
            assert!(!ids.insert(&key(n), false));
            titles.insert(n * 7919);
        }
        for n in 0..50_000 {
            assert_eq!(ids.get(&key(n)), Some(n % 3 == 0));
            assert!(titles.contains(n * 7919));
        }
        assert_eq!(ids.get(&key(50_001)), None);
        assert!(!titles.contains(3));
        assert_eq!(pack(&session::id_key("99991231_235959_ffffff")) >> 71, 0, "an ID leaves the mark free");
        let mut short = ShortIds::new();
        short.note(&session::id_key("20260101_000000_a1b2c3"));
        assert!(short.has("a1b2c3") && short.has("A1B2C3") && !short.has("a1b2c4") && !short.has("a1b2"));
    }
}
