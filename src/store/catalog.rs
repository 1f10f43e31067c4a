//! The catalog: a disposable map of a large store's titles and activity
//! order (`$HERMES_HOME/catalog`), and the record of which state of the
//! sessions directory it describes (`$HERMES_HOME/catalog-state`).
//!
//! A title lookup reads one bucket of the catalog instead of every file,
//! and a short listing reads its first lines. Both still check each session
//! they use against its own file. The catalog is believed only while the
//! state file names its generation and the sessions directory's device,
//! inode, modification and change times are exactly the recorded ones:
//! any file added, removed or renamed there, by anyone, changes those
//! times. hermes's own writes re-record them (under the catalog lock, see
//! `store::lock`), and note in the state's journal each session whose
//! activity time moved since the catalog was written. Anything missing,
//! damaged, foreign or unsure means "not believed": the caller reads every
//! file, as without a catalog, and that full pass writes a fresh one.
//!
//! On a file system with coarse times a change can hide in the same tick
//! as the state noted: such a "racy" state is never recorded (see
//! `DirStamp::racy`); the next full pass, a tick later, records it.
//!
//! A program that rewrites a session file in place (not by rename) changes
//! no directory time; see the man page (FILES) for what that can hide.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use crate::fsio;
use crate::store::index::{checksum, escape, unescape};
use crate::store::session::{self, Header};
use crate::sys;

const MAGIC: &str = "hermes-catalog 1";
const STATE_MAGIC: &str = "hermes-catalog-state 1";
const HEADER_BYTES: u64 = 128;
/// Sessions whose activity moved since the catalog was written; past
/// this many the catalog is left to be rebuilt by the next full pass.
pub(crate) const JOURNAL_MAX: usize = 256;

/// What the sessions directory looked like: any entry added, removed or
/// renamed in it moves its modification and change times.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct DirStamp {
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// How long a change can hide inside a coarse directory time: FAT keeps
/// even seconds, ext2/ext3 (small inodes) and many network file systems
/// whole ones.
const COARSE_GRANULARITY: f64 = 2.0;

impl DirStamp {
    /// Whether a state of the directory noted at time `at` could miss a
    /// change: git's "racily clean" rule. When the directory's times are
    /// whole seconds (a file system with coarse times), a change made in
    /// the same tick after `at` leaves them exactly as they were; so
    /// unless they are older than `at` by more than a tick, the state is
    /// not to be believed later. Times with a fraction move with every
    /// change (the kernel hands out a fresh one once a time was looked at).
    pub(crate) fn racy(&self, at: f64) -> bool {
        let coarse = self.mtime.1 == 0 || self.ctime.1 == 0;
        let latest = self.mtime.0.max(self.ctime.0) as f64;
        coarse && at < latest + COARSE_GRANULARITY
    }

    pub(crate) fn of(dir: &Path) -> Option<DirStamp> {
        let m = fs::symlink_metadata(dir).ok().filter(|m| m.is_dir())?;
        Some(DirStamp {
            dev: m.dev(),
            ino: m.ino(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// The state file: which catalog generation describes which directory
/// state, and the sessions appended to since.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct State {
    pub(crate) generation: u64,
    pub(crate) dir: DirStamp,
    pub(crate) journal: Vec<[u8; 22]>,
}

impl State {
    pub(crate) fn read(path: &Path) -> Option<State> {
        let mut text = String::new();
        let (file, meta) = fsio::open_regular(path).ok()?;
        if meta.len() > 64 << 10 {
            return None;
        }
        file.take(64 << 10).read_to_string(&mut text).ok()?;
        let line = text.strip_suffix('\n')?;
        let (body, sum) = line.rsplit_once('\t')?;
        if u64::from_str_radix(sum, 16).ok()? != checksum(body) {
            return None;
        }
        let mut f = body.split('\t');
        if f.next()? != STATE_MAGIC {
            return None;
        }
        let generation = u64::from_str_radix(f.next()?, 16).ok()?;
        let mut num = || f.next()?.parse::<i64>().ok();
        let dir = DirStamp {
            dev: num()? as u64,
            ino: num()? as u64,
            mtime: (num()?, num()?),
            ctime: (num()?, num()?),
        };
        let journal = f.next()?;
        let journal: Option<Vec<[u8; 22]>> = journal
            .split(',')
            .filter(|id| !id.is_empty())
            .map(|id| session::is_valid_id(id).then(|| session::id_key(id)))
            .collect();
        if f.next().is_some() {
            return None;
        }
        Some(State { generation, dir, journal: journal? })
    }

    /// Replace the state file (a cache: no fsync; a torn one fails its
    /// checksum and is not believed).
    pub(crate) fn write(&self, path: &Path) -> io::Result<()> {
        let journal: Vec<&str> =
            self.journal.iter().map(|k| std::str::from_utf8(k).expect("IDs are ASCII")).collect();
        let d = &self.dir;
        let body = format!(
            "{STATE_MAGIC}\t{:016x}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.generation,
            d.dev as i64,
            d.ino as i64,
            d.mtime.0,
            d.mtime.1,
            d.ctime.0,
            d.ctime.1,
            journal.join(",")
        );
        replace_file(path, format!("{body}\t{:016x}\n", checksum(&body)).as_bytes())
    }
}

/// Remove the state file: the catalog is not believed until a full pass.
pub(crate) fn forget(state_path: &Path) {
    let _ = fs::remove_file(state_path);
}

fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(
        ".{}.{}{}",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        fsio::random_hex(12),
        fsio::TEMP_SUFFIX
    ));
    let result = fsio::create_new_private(&temp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| fs::rename(&temp, path));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A fresh, random generation number.
pub(crate) fn new_generation() -> u64 {
    u64::from_str_radix(&fsio::random_hex(16), 16).unwrap_or(1)
}

fn bucket_of(title: &str, buckets: u64) -> u64 {
    crate::hash::fnv1a(title.as_bytes()) & (buckets - 1)
}

/// One line of the catalog.
pub(crate) struct Entry {
    pub(crate) updated_at: f64,
    pub(crate) id: [u8; 22],
    pub(crate) cwd: String,
    pub(crate) title: String,
}

impl Entry {
    pub(crate) fn id(&self) -> &str {
        std::str::from_utf8(&self.id).expect("IDs are ASCII")
    }
}

/// Whether `text` (raw or escaped) cannot start with `prefix` (lowercase),
/// as its first letter tells: most texts differ at once.
fn differs_at_once(text: &[u8], prefix: &str) -> bool {
    match (text.first(), prefix.as_bytes().first()) {
        (Some(&first), Some(&want)) => {
            first.is_ascii() && first != b'\\' && want.is_ascii() && first.to_ascii_lowercase() != want
        }
        _ => false,
    }
}

/// Whether the title that `rest` (a catalog line from its title on)
/// begins with starts with `prefix` (lowercase); None if it is damaged.
/// Compared where it lies, its end not searched for, when the prefix holds
/// no tab (so it cannot run on past the title) and what is compared holds
/// no escape (a letter takes at most 4 bytes).
fn title_starts(rest: &[u8], prefix: &str) -> Option<bool> {
    if differs_at_once(rest, prefix) {
        return Some(false);
    }
    let compared = &rest[..rest.len().min(4 * prefix.len())];
    if !prefix.contains('\t') && !compared.contains(&b'\\') {
        return Some(starts_folded(rest, prefix));
    }
    let title = sys::find_byte(rest, b'\t').map_or(rest, |tab| &rest[..tab]);
    Some(if title.contains(&b'\\') {
        starts_folded(unescape(std::str::from_utf8(title).ok()?)?.as_bytes(), prefix)
    } else {
        starts_folded(title, prefix)
    })
}

/// What `Catalog::starting` reads at a time.
const STARTING_BLOCK: usize = 1 << 20;

/// Whether `text` starts with `prefix` (already lowercase), letters of any
/// case alike. Where both are ASCII as far as the prefix goes, byte by byte;
/// else (and for text that is not UTF-8: never) letter by letter, as
/// `to_lowercase` folds them.
fn starts_folded(text: &[u8], prefix: &str) -> bool {
    if differs_at_once(text, prefix) {
        return false;
    }
    let n = prefix.len();
    let head = &text[..n.min(text.len())];
    if prefix.is_ascii() && head.is_ascii() {
        // ASCII folds letter for letter: a shorter text cannot match.
        return head.len() == n && head.eq_ignore_ascii_case(prefix.as_bytes());
    }
    let Ok(text) = std::str::from_utf8(text) else { return false };
    let mut chars = text.chars().flat_map(char::to_lowercase);
    prefix.chars().all(|c| chars.next() == Some(c))
}

fn parse_entry(line: &str) -> Option<Entry> {
    let (body, sum) = line.rsplit_once('\t')?;
    if u64::from_str_radix(sum, 16).ok()? != checksum(body) {
        return None;
    }
    let mut f = body.split('\t');
    let updated_at: f64 = f.next()?.parse().ok()?;
    let id = f.next()?;
    if !session::is_valid_id(id) {
        return None;
    }
    let entry =
        Entry { updated_at, id: session::id_key(id), cwd: unescape(f.next()?)?, title: unescape(f.next()?)? };
    f.next().is_none().then_some(entry)
}

fn entry_line(updated_at: f64, id: &str, cwd: &str, title: &str) -> String {
    let body = format!("{updated_at}\t{id}\t{}\t{}", escape(cwd), escape(title));
    format!("{body}\t{:016x}\n", checksum(&body))
}

/// An open catalog of a known generation.
pub(crate) struct Catalog {
    file: File,
    pub(crate) generation: u64,
    /// Sessions it lists.
    pub(crate) sessions: u64,
    /// Session files that could not be read when it was written.
    pub(crate) damaged: u64,
    buckets: u64,
    entries_len: u64,
}

impl Catalog {
    pub(crate) fn open(path: &Path) -> Option<Catalog> {
        let (file, meta) = fsio::open_regular(path).ok()?;
        let mut head = [0u8; HEADER_BYTES as usize];
        file.read_exact_at(&mut head, 0).ok()?;
        let head = std::str::from_utf8(&head).ok()?.strip_suffix('\n')?.trim_end();
        let (body, sum) = head.rsplit_once(' ')?;
        if u64::from_str_radix(sum, 16).ok()? != checksum(body) {
            return None;
        }
        let rest = body.strip_prefix(MAGIC)?.strip_prefix(' ')?;
        let mut f = rest.split(' ');
        let generation = u64::from_str_radix(f.next()?, 16).ok()?;
        let mut num = || f.next()?.parse::<u64>().ok();
        let (sessions, damaged, buckets, entries_len) = (num()?, num()?, num()?, num()?);
        let whole = HEADER_BYTES + entries_len + (buckets + 1) * 16 + sessions * 8;
        if !buckets.is_power_of_two() || meta.len() != whole {
            return None; // truncated, or grown by something else
        }
        Some(Catalog { file, generation, sessions, damaged, buckets, entries_len })
    }

    /// The IDs of the sessions it says are titled `title`; None if the
    /// bucket is damaged.
    pub(crate) fn titled(&self, title: &str) -> Option<Vec<[u8; 22]>> {
        let b = bucket_of(title, self.buckets);
        let table = HEADER_BYTES + self.entries_len;
        let mut slot = [0u8; 24];
        self.file.read_exact_at(&mut slot, table + b * 16).ok()?;
        let start = u64::from_le_bytes(slot[..8].try_into().ok()?);
        let sum = u64::from_le_bytes(slot[8..16].try_into().ok()?);
        let end = u64::from_le_bytes(slot[16..24].try_into().ok()?);
        if start > end || end > self.sessions {
            return None;
        }
        let postings = table + (self.buckets + 1) * 16;
        let mut raw = vec![0u8; ((end - start) * 8) as usize];
        self.file.read_exact_at(&mut raw, postings + start * 8).ok()?;
        if posting_sum(&raw) != sum {
            return None;
        }
        let mut found = Vec::new();
        let mut line = Vec::new();
        for offset in raw.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))) {
            if offset >= self.entries_len {
                return None;
            }
            read_line_at(&self.file, HEADER_BYTES + offset, HEADER_BYTES + self.entries_len, &mut line)?;
            let entry = parse_entry(std::str::from_utf8(&line).ok()?)?;
            if entry.title == title {
                found.push(entry.id);
            }
        }
        Some(found)
    }

    /// The entries whose title or ID starts with `prefix`, letters of any
    /// case alike (what completion offers for a word), in activity order.
    /// Each line is looked at raw and parsed, its checksum checked, only
    /// when it may match: a whole catalog of 100,000 sessions costs one
    /// pass over its bytes. None if a line that may match is damaged.
    pub(crate) fn starting(&self, prefix: &str) -> Option<Vec<Entry>> {
        let prefix = prefix.to_lowercase();
        let mut file = &self.file;
        file.seek(SeekFrom::Start(HEADER_BYTES)).ok()?;
        let mut entries = file.take(self.entries_len);
        // Read in blocks of whole lines, each split at its newline and
        // Tabs by the C library's memchr: the catalog of 100,000 sessions
        // is 11 MB.
        let (mut block, mut found) = (Vec::with_capacity(STARTING_BLOCK), Vec::new());
        loop {
            let kept = block.len();
            block.resize(kept + STARTING_BLOCK, 0);
            let n = entries.read(&mut block[kept..]).ok()?;
            block.truncate(kept + n);
            let whole = match block.iter().rposition(|&b| b == b'\n') {
                Some(end) => end + 1,
                None if n == 0 => return (kept == 0).then_some(found),
                None => continue,
            };
            let mut lines = &block[..whole];
            while let Some(end) = sys::find_byte(lines, b'\n') {
                let line = &lines[..end];
                lines = &lines[end + 1..];
                let rest = &line[sys::find_byte(line, b'\t')? + 1..];
                // An ID is 22 bytes: its end is not searched for.
                let (id, rest) = match rest.get(22) {
                    Some(b'\t') => (&rest[..22], &rest[23..]),
                    _ => {
                        let tab = sys::find_byte(rest, b'\t')?;
                        (&rest[..tab], &rest[tab + 1..])
                    }
                };
                let rest = &rest[sys::find_byte(rest, b'\t')? + 1..];
                if starts_folded(id, &prefix) || title_starts(rest, &prefix)? {
                    found.push(parse_entry(std::str::from_utf8(line).ok()?)?);
                }
            }
            block.drain(..whole);
        }
    }

    /// Every entry, newest activity first. Stops at the first damaged line
    /// (yielding an error the caller treats as "not believed").
    pub(crate) fn entries(&self) -> Option<Entries<'_>> {
        let mut file = &self.file;
        file.seek(SeekFrom::Start(HEADER_BYTES)).ok()?;
        let lines = BufReader::with_capacity(64 << 10, file.take(self.entries_len));
        Some(Entries { lines, line: String::new() })
    }
}

pub(crate) struct Entries<'a> {
    lines: BufReader<io::Take<&'a File>>,
    line: String,
}

impl Iterator for Entries<'_> {
    type Item = Option<Entry>;
    fn next(&mut self) -> Option<Option<Entry>> {
        self.line.clear();
        match self.lines.read_line(&mut self.line) {
            Ok(0) => None,
            Ok(_) => Some(self.line.strip_suffix('\n').and_then(parse_entry)),
            Err(_) => Some(None),
        }
    }
}

fn read_line_at(file: &File, from: u64, limit: u64, line: &mut Vec<u8>) -> Option<()> {
    line.clear();
    let mut pos = from;
    let mut chunk = [0u8; 512];
    loop {
        let want = chunk.len().min((limit - pos) as usize);
        if want == 0 {
            return None;
        }
        let n = file.read_at(&mut chunk[..want], pos).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(end) = chunk[..n].iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&chunk[..end]);
            return Some(());
        }
        line.extend_from_slice(&chunk[..n]);
        pos += n as u64;
        if line.len() > 64 << 10 {
            return None;
        }
    }
}

fn posting_sum(raw: &[u8]) -> u64 {
    crate::hash::fnv1a(raw)
}

/// A catalog being put together: from a full pass over the store, or from
/// the last catalog and one change. Compact (titles and directories in one
/// text each, directories shared) so 100,000 sessions stay within a few MiB.
#[derive(Default)]
pub(crate) struct Builder {
    items: Vec<Item>,
    text: String,
    cwds: std::collections::HashMap<String, u32>,
    cwd_text: Vec<(u32, u32)>,
    pub(crate) damaged: u64,
}

/// 40 bytes: at 100,000 sessions the whole builder stays near 7 MiB.
struct Item {
    updated_at: f64,
    id: [u8; 22],
    cwd: u32,
    title_start: u32,
    title_len: u16,
}

impl Builder {
    pub(crate) fn add(&mut self, id: &str, updated_at: f64, cwd: &str, title: &str) {
        let cwd = match self.cwds.get(cwd) {
            Some(&i) => i,
            None => {
                let i = self.cwd_text.len() as u32;
                self.cwd_text.push((self.text.len() as u32, cwd.len() as u32));
                self.text.push_str(cwd);
                self.cwds.insert(cwd.to_string(), i);
                i
            }
        };
        let title = kept_title(title);
        let (title_start, len) = (self.text.len() as u32, title.len());
        self.text.push_str(title);
        self.items.push(Item {
            updated_at,
            id: session::id_key(id),
            cwd,
            title_start,
            title_len: len as u16,
        });
    }

    pub(crate) fn add_header(&mut self, h: &Header) {
        self.add(&h.id, h.updated_at, &h.cwd, &h.title);
    }

    /// Drop the sessions `doomed` says, as when they are deleted or about
    /// to be added again with new headers.
    pub(crate) fn remove(&mut self, doomed: impl Fn(&[u8; 22]) -> bool) {
        self.items.retain(|item| !doomed(&item.id));
    }

    /// The entries of an existing catalog; false if one is damaged.
    pub(crate) fn load(&mut self, catalog: &Catalog) -> bool {
        self.damaged = catalog.damaged;
        let Some(entries) = catalog.entries() else { return false };
        for entry in entries {
            let Some(e) = entry else { return false };
            self.add(e.id(), e.updated_at, &e.cwd, &e.title);
        }
        self.items.len() as u64 == catalog.sessions
    }

    fn str_of(&self, (start, len): (u32, u32)) -> &str {
        &self.text[start as usize..(start + len) as usize]
    }

    /// Write the catalog (a cache: no fsync) under `generation`.
    pub(crate) fn write(mut self, path: &Path, generation: u64) -> io::Result<()> {
        crate::order::sort_by(&mut self.items, |a, b| {
            b.updated_at.total_cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
        });
        let mut writer = Writer::create(path, self.items.len() as u64)?;
        for item in &self.items {
            let title = self.str_of((item.title_start, item.title_len as u32));
            let cwd = self.str_of(self.cwd_text[item.cwd as usize]);
            let id = std::str::from_utf8(&item.id).expect("IDs are ASCII");
            writer.add(&entry_line(item.updated_at, id, cwd, title), crate::hash::fnv1a(title.as_bytes()))?;
        }
        // What is left to write needs only the postings.
        self.items = Vec::new();
        self.text = String::new();
        writer.finish(path, generation, self.damaged)
    }
}

/// Titles are at most 100 characters; anything longer is not a title
/// hermes wrote, and is cut to what fits (it then never matches a lookup,
/// which reads every file instead).
fn kept_title(title: &str) -> &str {
    let mut len = title.len().min(u16::MAX as usize);
    while !title.is_char_boundary(len) {
        len -= 1;
    }
    &title[..len]
}

/// A session's entry as it is spilled by an import: bytes that sort in
/// the catalog's order (newest activity first, ties by ID, last first),
/// the hash of its title (its bucket), then its line.
pub(crate) fn spilled_entry(h: &Header) -> Vec<u8> {
    let title = kept_title(&h.title);
    let bits = h.updated_at.to_bits();
    // total_cmp's order as unsigned bits, then turned around: newest first.
    let ordered = if bits >> 63 == 1 { !bits } else { bits | 1 << 63 };
    let mut record = (!ordered).to_be_bytes().to_vec();
    record.extend(session::id_key(&h.id).iter().map(|b| !b));
    record.extend_from_slice(&crate::hash::fnv1a(title.as_bytes()).to_le_bytes());
    record.extend_from_slice(entry_line(h.updated_at, &h.id, &h.cwd, title).as_bytes());
    record
}

/// A catalog written an entry at a time, in its order: the builder's, or
/// an import's spilled entries (`spilled_entry`) merged back.
pub(crate) struct Writer {
    temp: std::path::PathBuf,
    out: io::BufWriter<File>,
    sessions: u64,
    buckets: u64,
    postings: Vec<(u32, u32)>,
    offset: u64,
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.temp); // gone already once renamed
    }
}

impl Writer {
    /// A new catalog of `sessions` entries beside `path`.
    pub(crate) fn create(path: &Path, sessions: u64) -> io::Result<Writer> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let temp = dir.join(format!(".catalog.{}{}", fsio::random_hex(12), fsio::TEMP_SUFFIX));
        let file = fsio::create_new_private(&temp)?;
        let mut out = io::BufWriter::with_capacity(64 << 10, file);
        if let Err(e) = out.write_all(&[b' '; HEADER_BYTES as usize]) {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        let buckets = (sessions / 8).next_power_of_two().max(64);
        let postings = Vec::with_capacity(sessions as usize);
        Ok(Writer { temp, out, sessions, buckets, postings, offset: 0 })
    }

    /// The next entry's line, and its title's hash.
    pub(crate) fn add(&mut self, line: &str, title_hash: u64) -> io::Result<()> {
        let offset = u32::try_from(self.offset).map_err(|_| io::Error::other("catalog too large"))?;
        self.postings.push(((title_hash & (self.buckets - 1)) as u32, offset));
        self.out.write_all(line.as_bytes())?;
        self.offset += line.len() as u64;
        Ok(())
    }

    /// The postings and the header written, the catalog renamed to `path`
    /// (the temporary goes, whatever fails).
    pub(crate) fn finish(mut self, path: &Path, generation: u64, damaged: u64) -> io::Result<()> {
        self.write_rest(path, generation, damaged)
    }

    fn write_rest(&mut self, path: &Path, generation: u64, damaged: u64) -> io::Result<()> {
        let (sessions, buckets, entries_len) = (self.sessions, self.buckets, self.offset);
        if self.postings.len() as u64 != sessions {
            return Err(io::Error::other("catalog entries missing"));
        }
        let mut postings = std::mem::take(&mut self.postings);
        crate::order::sort(&mut postings);
        let out = &mut self.out;
        let raw_of = |slice: &[(u32, u32)]| -> Vec<u8> {
            slice.iter().flat_map(|&(_, off)| (off as u64).to_le_bytes()).collect()
        };
        let mut start = 0usize;
        for b in 0..=buckets {
            let end =
                if b == buckets { postings.len() } else { postings.partition_point(|p| (p.0 as u64) <= b) };
            let end = end.max(start);
            let sum = if b == buckets { 0 } else { posting_sum(&raw_of(&postings[start..end])) };
            out.write_all(&(start as u64).to_le_bytes())?;
            out.write_all(&sum.to_le_bytes())?;
            start = end;
        }
        for chunk in postings.chunks(4096) {
            out.write_all(&raw_of(chunk))?;
        }
        out.flush()?;
        let body = format!("{MAGIC} {generation:016x} {sessions} {damaged} {buckets} {entries_len}");
        let mut head = format!("{body} {:016x}", checksum(&body));
        if head.len() >= HEADER_BYTES as usize {
            return Err(io::Error::other("catalog header too long"));
        }
        while head.len() < HEADER_BYTES as usize - 1 {
            head.push(' ');
        }
        head.push('\n');
        out.get_ref().write_all_at(head.as_bytes(), 0)?;
        fs::rename(&self.temp, path)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_title_is_compared_where_it_lies_unless_an_escape_or_tab_is_in_reach() {
        use super::title_starts;
        assert_eq!(title_starts(b"redis debug\tsum", "redis"), Some(true));
        assert_eq!(title_starts(b"redis\tsum", "redis debug"), Some(false), "not past the title");
        assert_eq!(title_starts(b"back\\\\slash\tsum", "back\\s"), Some(true), "unescaped first");
        assert_eq!(title_starts(b"a\tsum", "a\ts"), Some(false), "a prefix with a tab: the title alone");
        assert_eq!(title_starts("Ärger\tsum".as_bytes(), "ärg"), Some(true));
    }

    #[test]
    fn starts_folded_folds_as_to_lowercase_does() {
        use super::starts_folded;
        let starts = |text: &str, word: &str| starts_folded(text.as_bytes(), &word.to_lowercase());
        assert!(starts("Redis Debug", "redis d"));
        assert!(starts("redis debug", "REDIS"));
        assert!(!starts("redis", "redis debug"));
        assert!(!starts("pycon", "redis"));
        assert!(starts("Ärger im Büro", "äRGER"));
        assert!(starts("\u{212a}elvin", "kel"), "the Kelvin sign folds to k");
        assert!(!starts("\\tabbed", "t"), "an escape is no letter: the caller unescapes first");
        assert!(starts("anything", ""));
    }

    use super::*;

    #[test]
    fn a_state_noted_within_a_coarse_tick_of_the_directory_is_racy() {
        let whole = |m: i64, c: i64| DirStamp { dev: 1, ino: 2, mtime: (m, 0), ctime: (c, 0) };
        // Noted in the same second as the change, or the next: racy.
        assert!(whole(1000, 1000).racy(1000.0));
        assert!(whole(1000, 1000).racy(1000.9));
        assert!(whole(1000, 1001).racy(1002.5));
        // Two seconds on (FAT's tick): any later change moves the times.
        assert!(!whole(1000, 1000).racy(1002.0));
        // A directory time ahead of the clock is racy too.
        assert!(whole(5000, 5000).racy(1000.0));
        // Times with a fraction move with every change.
        let fine = DirStamp { dev: 1, ino: 2, mtime: (1000, 5), ctime: (1000, 7) };
        assert!(!fine.racy(1000.0));
        // One whole-second time (set by touch -d, or coarse) is enough.
        assert!(DirStamp { dev: 1, ino: 2, mtime: (1000, 0), ctime: (1000, 7) }.racy(1001.0));
    }

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "hermes-catalog-test-{}-{}",
            std::process::id(),
            fsio::random_hex(4)
        ));
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn titles_and_order_round_trip() {
        let d = dir();
        let path = d.join("catalog");
        let mut b = Builder::default();
        for i in 0..1000 {
            let id = format!("20260101_000000_{i:06x}");
            let title = if i == 7 || i == 900 { "twice".to_string() } else { format!("t\t{i}") };
            b.add(&id, i as f64 + 0.5, if i % 2 == 0 { "/a" } else { "/b\\c" }, &title);
        }
        b.write(&path, 42).unwrap();
        let c = Catalog::open(&path).unwrap();
        assert_eq!((c.generation, c.sessions), (42, 1000));
        assert_eq!(c.titled("t\t5").unwrap(), vec![session::id_key("20260101_000000_000005")]);
        let mut twice = c.titled("twice").unwrap();
        crate::order::sort(&mut twice);
        assert_eq!(twice.len(), 2);
        assert!(c.titled("nobody").unwrap().is_empty());
        let first: Vec<Entry> = c.entries().unwrap().take(2).map(Option::unwrap).collect();
        assert_eq!(first[0].id(), "20260101_000000_0003e7");
        assert_eq!(first[1].cwd, "/a");
        let mut again = Builder::default();
        assert!(again.load(&c));
        // Cut short: not believed at all.
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(Catalog::open(&path).is_none());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn state_round_trips_and_refuses_damage() {
        let d = dir();
        let path = d.join("state");
        let s = State {
            generation: u64::MAX - 3,
            dir: DirStamp::of(&d).unwrap(),
            journal: vec![session::id_key("20260101_000000_000001")],
        };
        s.write(&path).unwrap();
        assert_eq!(State::read(&path).unwrap(), s);
        let text = fs::read_to_string(&path).unwrap();
        fs::write(&path, text.replace("20260101_000000_000001", "20260101_000000_000002")).unwrap();
        assert!(State::read(&path).is_none());
        fs::remove_dir_all(&d).unwrap();
    }
}
