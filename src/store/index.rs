//! A disposable cache of session headers (`$HERMES_HOME/index`) that lets a
//! scan of the store stat each file instead of opening and parsing it.
//!
//! The session files stay the truth. Every cached header is used only while
//! its file's size, modification time and inode are exactly what they were
//! when the header was read from it; anything else is read from the file.
//! Entries younger than `RACY_SECS` are never cached (a file rewritten
//! twice within one clock tick could otherwise look unchanged). A missing,
//! damaged or foreign index is simply not used, and deleting it is always
//! safe: the next large scan writes a new one.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::fsio;
use crate::store::context::Measure;
use crate::store::session::{Header, Usage};

/// Format 4 added what each session holds in characters (`Measure`);
/// format 5 the session's role and the tokens its replies reported.
const MAGIC: &str = "hermes-index 5";
/// Files modified this recently are not cached.
const RACY_SECS: i64 = 2;
/// Below this many sessions the index is not worth its upkeep.
pub(crate) const MIN_SESSIONS: usize = 500;

/// What identifies one version of a session file.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct Stamp {
    pub(crate) size: u64,
    pub(crate) mtime_sec: i64,
    pub(crate) mtime_nsec: i64,
    pub(crate) ino: u64,
}

impl Stamp {
    /// The stamp of `name` in the open directory `dir`, if it is a regular
    /// file (a symlink or anything else never matches a cached entry).
    pub(crate) fn at(dir: &File, name: &std::ffi::CStr) -> std::io::Result<Option<Stamp>> {
        use std::os::unix::io::AsRawFd;
        let (size, mtime_sec, mtime_nsec, ino, regular) = crate::sys::stat_at(dir.as_raw_fd(), name)?;
        Ok(regular.then_some(Stamp { size, mtime_sec, mtime_nsec, ino }))
    }

    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        Stamp { size: meta.len(), mtime_sec: meta.mtime(), mtime_nsec: meta.mtime_nsec(), ino: meta.ino() }
    }

    fn is_settled(&self, now_sec: i64) -> bool {
        self.mtime_sec < now_sec - RACY_SECS
    }
}

/// One cached entry: the ID, the stamp of the file it came from, its header
/// and what its messages hold.
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) stamp: Stamp,
    pub(crate) header: Header,
    pub(crate) measure: Measure,
}

/// Streams the entries of an index file in ID order.
pub(crate) struct Reader {
    lines: Option<BufReader<File>>,
    line: String,
    /// `line` holds a line not yet consumed.
    pending: bool,
}

impl Reader {
    /// Open the index; an absent or foreign file yields no entries.
    pub(crate) fn open(path: &Path) -> Reader {
        let mut line = String::new();
        let lines = fsio::open_regular(path).ok().and_then(|(file, _)| {
            let mut lines = BufReader::with_capacity(64 << 10, file);
            match lines.read_line(&mut line) {
                Ok(_) if line.trim_end() == MAGIC => Some(lines),
                _ => None,
            }
        });
        Reader { lines, line, pending: false }
    }

    /// Whether an index file of this format was found.
    pub(crate) fn is_usable(&self) -> bool {
        self.lines.is_some()
    }

    /// The entry for `id`, reading forward; IDs must be asked for in
    /// increasing order. Lines before it are skipped without being parsed,
    /// so looking up a few IDs costs little more than reading the file.
    /// None if the index has no (intact) entry for `id`.
    pub(crate) fn entry_for(&mut self, id: &str) -> Option<Entry> {
        loop {
            if !self.pending {
                self.line.clear();
                match self.lines.as_mut()?.read_line(&mut self.line) {
                    Ok(n) if n > 0 => self.pending = true,
                    _ => {
                        self.lines = None;
                        return None;
                    }
                }
            }
            let Some(line_id) = self.line.get(..id.len()) else {
                self.pending = false; // damaged: skip it
                continue;
            };
            match line_id.cmp(id) {
                std::cmp::Ordering::Less => self.pending = false,
                std::cmp::Ordering::Greater => return None, // kept for a later ID
                std::cmp::Ordering::Equal => {
                    self.pending = false;
                    return parse_line(self.line.trim_end_matches('\n')).filter(|e| e.id == id);
                }
            }
        }
    }
}

/// Writes a new index next to the old one; `finish` swaps it in.
pub(crate) struct Writer {
    out: std::io::BufWriter<File>,
    temp: std::path::PathBuf,
    target: std::path::PathBuf,
    now_sec: i64,
    failed: bool,
}

impl Writer {
    pub(crate) fn create(target: &Path) -> Option<Writer> {
        let dir = target.parent()?;
        let temp = dir.join(format!(".index.{}{}", fsio::random_hex(12), fsio::TEMP_SUFFIX));
        let file = fsio::create_new_private(&temp).ok()?;
        let mut out = std::io::BufWriter::with_capacity(64 << 10, file);
        let ok = writeln!(out, "{MAGIC}").is_ok();
        let now_sec = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Some(Writer { out, temp, target: target.to_path_buf(), now_sec, failed: !ok })
    }

    pub(crate) fn add(&mut self, id: &str, stamp: Stamp, header: &Header, measure: &Measure) {
        if self.failed || !stamp.is_settled(self.now_sec) || header.id != id {
            return;
        }
        let line = line(id, stamp, header, measure);
        self.failed = writeln!(self.out, "{line}").is_err();
    }

    /// The entry for `id` from its `tail` (see `tail`).
    fn add_tail(&mut self, id: &str, stamp: Stamp, tail: &str) {
        if self.failed || !stamp.is_settled(self.now_sec) {
            return;
        }
        let line = line_with(id, stamp, tail);
        self.failed = writeln!(self.out, "{line}").is_err();
    }

    /// A line of another index as it is (its checksum vouches for it).
    fn add_line(&mut self, line: &str) {
        self.failed = self.failed || writeln!(self.out, "{line}").is_err();
    }

    /// Install the new index (no fsync: it is a cache, and every line
    /// carries a checksum, so a torn one is ignored). On any earlier
    /// failure, discard it.
    pub(crate) fn finish(mut self) {
        let ok = !self.failed && self.out.flush().is_ok();
        if !ok || fs::rename(&self.temp, &self.target).is_err() {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// An entry as a line of the index (without its line end), its checksum last.
fn line(id: &str, stamp: Stamp, h: &Header, m: &Measure) -> String {
    line_with(id, stamp, &tail(h, m))
}

/// What an entry's line holds after its file's stamp: what an import
/// knows of a session it wrote before it knows the stamp, kept as this
/// one string (not the header) until the index is written.
pub(crate) fn tail(h: &Header, m: &Measure) -> Box<str> {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        h.format,
        h.created_at,
        h.updated_at,
        h.message_count,
        m.chars,
        m.context_chars,
        m.summaries,
        escape(&h.title_source),
        escape(&h.title),
        escape(&h.cwd),
        escape(&h.preview),
        escape(h.model.as_deref().unwrap_or("")),
        escape(h.role.as_deref().unwrap_or("")),
        h.usage.map_or(String::new(), |u| format!(
            "{},{},{}",
            u.prompt_tokens, u.completion_tokens, u.total_tokens
        )),
    )
    .into_boxed_str()
}

fn line_with(id: &str, stamp: Stamp, tail: &str) -> String {
    let line =
        format!("{id}\t{}\t{}\t{}\t{}\t{tail}", stamp.size, stamp.mtime_sec, stamp.mtime_nsec, stamp.ino);
    let sum = checksum(&line);
    format!("{line}\t{sum:016x}")
}

/// The index at `path` with these entries (sorted by ID) put in, each in
/// place of any it had for the same ID: the import's new sessions, whose
/// headers and measures it knows without reading them back.
pub(crate) fn merge_in<T: AsRef<str>>(path: &Path, new: impl Iterator<Item = (String, Stamp, T)>) {
    let Some(mut writer) = Writer::create(path) else { return };
    let mut old = Reader::open(path);
    let mut next_old = || -> Option<String> {
        old.line.clear();
        match old.lines.as_mut()?.read_line(&mut old.line) {
            Ok(n) if n > 0 => Some(old.line.trim_end_matches('\n').to_string()),
            _ => None,
        }
    };
    let mut new = new.peekable();
    let mut pending = next_old();
    loop {
        // The next old line, unless a new entry comes first (or replaces it).
        let old_id = pending.as_deref().map(|l| l.get(..22).unwrap_or(""));
        match (old_id, new.peek()) {
            (None, None) => break,
            (Some(old_id), Some((id, ..))) if id.as_str() <= old_id => {
                if id == old_id {
                    pending = next_old();
                }
                let (id, stamp, tail) = new.next().expect("peeked");
                writer.add_tail(&id, stamp, tail.as_ref());
            }
            (None, Some(_)) => {
                let (id, stamp, tail) = new.next().expect("peeked");
                writer.add_tail(&id, stamp, tail.as_ref());
            }
            (Some(old_id), _) => {
                // A damaged line (too short to hold an ID) is dropped.
                if old_id.len() == 22 {
                    writer.add_line(pending.as_deref().unwrap_or_default());
                }
                pending = next_old();
            }
        }
    }
    writer.finish();
}

/// The entry for `id` in the index at `path`, if it has an intact one:
/// found by bisecting the file (its lines are in ID order), a few reads
/// whatever its size.
pub(crate) fn find(path: &Path, id: &str) -> Option<Entry> {
    use std::os::unix::fs::FileExt;
    let (file, meta) = fsio::open_regular(path).ok()?;
    let mut head = [0u8; MAGIC.len() + 1];
    file.read_exact_at(&mut head, 0).ok()?;
    if head[..MAGIC.len()] != *MAGIC.as_bytes() || head[MAGIC.len()] != b'\n' {
        return None;
    }
    // The first line starting at or after `at`, and where it starts.
    let line_after = |at: u64| -> Option<(u64, String)> {
        let mut buf = vec![0u8; 4096];
        let mut text = Vec::new();
        let mut pos = at;
        let mut start = None;
        loop {
            let n = file.read_at(&mut buf, pos).ok()?;
            if n == 0 {
                return None;
            }
            let mut chunk = &buf[..n];
            if start.is_none() {
                let skip = if pos == 0 { 0 } else { chunk.iter().position(|&b| b == b'\n')? + 1 };
                start = Some(pos + skip as u64);
                chunk = &chunk[skip..];
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    text.extend_from_slice(&chunk[..end]);
                    return Some((start?, String::from_utf8(text).ok()?));
                }
                None => text.extend_from_slice(chunk),
            }
            pos += n as u64;
        }
    };
    let first = MAGIC.len() as u64 + 1;
    let (mut lo, mut hi) = (first, meta.len());
    // Invariant: the line for `id`, if any, starts in [lo, hi).
    while hi - lo > 512 {
        let mid = lo + (hi - lo) / 2;
        match line_after(mid - 1) {
            Some((start, line)) if start < hi => match line.get(..id.len()).map(|l| l.cmp(id)) {
                Some(std::cmp::Ordering::Less) => lo = start + line.len() as u64 + 1,
                Some(std::cmp::Ordering::Equal) => return parse_line(&line).filter(|e| e.id == id),
                _ => hi = start,
            },
            _ => hi = mid,
        }
    }
    let mut at = lo;
    while at < hi {
        let (start, line) = line_after(at.max(first) - 1)?;
        if start >= hi {
            return None;
        }
        match line.get(..id.len()).map(|l| l.cmp(id)) {
            Some(std::cmp::Ordering::Equal) => return parse_line(&line).filter(|e| e.id == id),
            Some(std::cmp::Ordering::Greater) => return None,
            _ => at = start + line.len() as u64 + 1,
        }
    }
    None
}

/// What listed sessions hold (`sessions list`: the sizes `--json` gives,
/// the `!` mark), read from their files only where the index does not
/// vouch for them.
pub(crate) struct Measures {
    dir: std::path::PathBuf,
    index: std::path::PathBuf,
    /// Measures a scan handed over, by ID.
    known: std::cell::RefCell<std::collections::HashMap<[u8; 22], Measure>>,
}

impl Measures {
    /// For the sessions in `dir`, with the index at `index`.
    pub(crate) fn new(dir: &Path, index: &Path) -> Measures {
        Measures { dir: dir.to_path_buf(), index: index.to_path_buf(), known: Default::default() }
    }

    /// What a scan found session `id` to hold, for `of` to give.
    pub(crate) fn know(&self, id: &str, measure: Measure) {
        self.known.borrow_mut().insert(crate::store::session::id_key(id), measure);
    }

    /// What session `id` holds: what a scan handed over, else the index's
    /// entry while the file's stamp is the one recorded, else read from the
    /// file. With `within`, a file no larger than that many bytes is not
    /// read (its characters cannot exceed its bytes): nothing is counted.
    /// None if it cannot be read.
    pub(crate) fn of(&self, id: &str, within: Option<u64>) -> Option<Measure> {
        let (file, meta) = fsio::open_regular(&self.dir.join(format!("{id}.json"))).ok()?;
        if within.is_some_and(|bytes| meta.len() <= bytes) {
            return Some(Measure::default());
        }
        if let Some(measure) = self.known.borrow_mut().remove(&crate::store::session::id_key(id)) {
            return Some(measure);
        }
        if let Some(entry) = find(&self.index, id).filter(|e| e.stamp == Stamp::of(&meta)) {
            return Some(entry.measure);
        }
        let mut reader = crate::store::format::read(file).ok()?;
        crate::store::context::measure(&mut reader).ok()
    }
}

/// FNV-1a of a line: a torn or damaged index line is never believed.
/// Eight bytes a step (an FNV-style mix over words): scans check one
/// checksum per session, so this sits in the hot loop.
pub(crate) fn checksum(line: &str) -> u64 {
    let bytes = line.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    let mix = |h: u64, w: u64| (h ^ w).wrapping_mul(0x100000001b3).rotate_left(29);
    let mut h = chunks
        .by_ref()
        .fold(0xcbf29ce484222325u64, |h, c| mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes"))));
    for &b in chunks.remainder() {
        h = mix(h, b as u64);
    }
    mix(h, bytes.len() as u64)
}

fn parse_line(line: &str) -> Option<Entry> {
    let (line, sum) = line.rsplit_once('\t')?;
    if u64::from_str_radix(sum, 16).ok()? != checksum(line) {
        return None;
    }
    let mut f = line.split('\t');
    let id = f.next()?;
    if !crate::store::session::is_valid_id(id) {
        return None;
    }
    let stamp = Stamp {
        size: f.next()?.parse().ok()?,
        mtime_sec: f.next()?.parse().ok()?,
        mtime_nsec: f.next()?.parse().ok()?,
        ino: f.next()?.parse().ok()?,
    };
    let (format, created_at, updated_at, message_count) =
        (f.next()?.parse().ok()?, f.next()?.parse().ok()?, f.next()?.parse().ok()?, f.next()?.parse().ok()?);
    let measure = Measure {
        messages: message_count,
        chars: f.next()?.parse().ok()?,
        context_chars: f.next()?.parse().ok()?,
        summaries: f.next()?.parse().ok()?,
    };
    let header = Header {
        format,
        id: id.to_string(),
        created_at,
        updated_at,
        message_count,
        title_source: unescape(f.next()?)?,
        title: unescape(f.next()?)?,
        cwd: unescape(f.next()?)?,
        preview: unescape(f.next()?)?,
        model: Some(unescape(f.next()?)?).filter(|m| !m.is_empty()),
        role: Some(unescape(f.next()?)?).filter(|r| !r.is_empty()),
        usage: usage_field(f.next()?)?,
        // Not in the index: read from the file where a turn needs them.
        options: None,
    };
    if f.next().is_some() {
        return None;
    }
    Some(Entry { id: id.to_string(), stamp, header, measure })
}

/// The usage field: empty for none, else `prompt,completion,total`;
/// None when it is neither (a damaged line).
fn usage_field(text: &str) -> Option<Option<Usage>> {
    if text.is_empty() {
        return Some(None);
    }
    let counts: Vec<u64> = text.split(',').map(|n| n.parse().ok()).collect::<Option<_>>()?;
    match counts[..] {
        [prompt_tokens, completion_tokens, total_tokens] => {
            Some(Some(Usage { prompt_tokens, completion_tokens, total_tokens }))
        }
        _ => None,
    }
}

pub(crate) fn escape(s: &str) -> String {
    if !s.contains(['\\', '\t', '\n', '\r']) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn unescape(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            });
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_for_reads_forward_and_skips_damage() {
        let dir = std::env::temp_dir().join(format!("hermes-index-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("index");
        let mut w = Writer::create(&path).unwrap();
        w.now_sec = i64::MAX / 2; // everything is settled
        let stamp = Stamp { size: 1, mtime_sec: 1, mtime_nsec: 0, ino: 1 };
        for id in ["20260101_000000_000001", "20260101_000000_000003", "20260101_000000_000005"] {
            let h = Header {
                id: id.into(),
                format: 1,
                title: id.into(),
                title_source: "user".into(),
                created_at: 0.0,
                updated_at: 0.0,
                cwd: "/".into(),
                message_count: 0,
                preview: "".into(),
                model: None,
                role: None,
                usage: None,
                options: None,
            };
            w.add(id, stamp, &h, &Measure::default());
        }
        w.out.write_all(b"20260101_000000_000007\tdamaged\n").unwrap();
        w.finish();
        let mut r = Reader::open(&path);
        assert!(r.entry_for("20260101_000000_000000").is_none());
        assert_eq!(r.entry_for("20260101_000000_000001").unwrap().header.title, "20260101_000000_000001");
        assert!(r.entry_for("20260101_000000_000002").is_none());
        assert!(r.entry_for("20260101_000000_000005").is_some());
        assert!(r.entry_for("20260101_000000_000007").is_none());
        assert!(r.entry_for("20260101_000000_000009").is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    fn header(id: &str, title: &str) -> Header {
        Header {
            id: id.into(),
            format: 1,
            title: title.into(),
            title_source: "user".into(),
            created_at: 0.0,
            updated_at: 0.0,
            cwd: "/".into(),
            message_count: 2,
            preview: "".into(),
            model: None,
            role: None,
            usage: None,
            options: None,
        }
    }

    #[test]
    fn find_bisects_to_every_entry_and_to_none_between() {
        let dir = std::env::temp_dir().join(format!("hermes-index-find-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("index");
        for n in [0usize, 1, 2, 3, 50, 3000] {
            let mut w = Writer::create(&path).unwrap();
            w.now_sec = i64::MAX / 2;
            // Titles of every length, so lines straddle every probe.
            let id = |i: usize| format!("20260101_000000_{:06x}", 2 * i + 1);
            for i in 0..n {
                let stamp = Stamp { size: i as u64, mtime_sec: 1, mtime_nsec: 0, ino: 1 };
                let m = Measure { messages: 2, chars: i as u64, context_chars: 1, summaries: 0 };
                w.add(&id(i), stamp, &header(&id(i), &"t".repeat(i % 300)), &m);
            }
            w.finish();
            for i in 0..n {
                let entry = find(&path, &id(i)).unwrap_or_else(|| panic!("{n}: {i}"));
                assert_eq!((entry.stamp.size, entry.measure.chars), (i as u64, i as u64));
            }
            for i in 0..=n {
                assert!(find(&path, &format!("20260101_000000_{:06x}", 2 * i)).is_none(), "{n}: {i}");
            }
        }
        fs::write(&path, "hermes-index 3\n").unwrap();
        assert!(find(&path, "20260101_000000_000001").is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn merge_in_puts_new_entries_in_order_in_place_of_old_ones() {
        let dir = std::env::temp_dir().join(format!("hermes-index-merge-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("index");
        let stamp = Stamp { size: 1, mtime_sec: 1, mtime_nsec: 0, ino: 1 };
        let m = Measure::default();
        let mut w = Writer::create(&path).unwrap();
        w.now_sec = i64::MAX / 2;
        for id in ["20260101_000000_000002", "20260101_000000_000004"] {
            w.add(id, stamp, &header(id, "old"), &m);
        }
        w.out.write_all(b"damaged\n").unwrap();
        w.add("20260101_000000_000006", stamp, &header("20260101_000000_000006", "old"), &m);
        w.finish();
        let new: Vec<_> = ["20260101_000000_000001", "20260101_000000_000004", "20260101_000000_000009"]
            .iter()
            .map(|id| (id.to_string(), stamp, tail(&header(id, "new"), &m)))
            .collect();
        merge_in(&path, new.into_iter());
        let mut r = Reader::open(&path);
        let titles: Vec<String> = (1..10)
            .filter_map(|i| r.entry_for(&format!("20260101_000000_{i:06x}")))
            .map(|e| format!("{} {}", &e.id[16..], e.header.title))
            .collect();
        assert_eq!(titles, ["000001 new", "000002 old", "000004 new", "000006 old", "000009 new"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_round_trip() {
        let header = Header {
            format: 1,
            id: "20261202_143015_a1b2c3".into(),
            title: "a\tb\\c\nd".into(),
            title_source: "user".into(),
            created_at: 1.25,
            updated_at: 1796222001.5,
            cwd: "/x y".into(),
            message_count: 3,
            preview: "".into(),
            model: Some("org/m:7b".into()),
            role: Some("commit".into()),
            usage: Some(Usage { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
            options: None,
        };
        let stamp = Stamp { size: 10, mtime_sec: 5, mtime_nsec: 7, ino: 9 };
        let line = format!(
            "{}\t10\t5\t7\t9\t1\t1.25\t1796222001.5\t3\t40\t30\t1\tuser\t{}\t/x y\t\torg/m:7b\tcommit\t1,2,3",
            header.id,
            escape(&header.title)
        );
        let line = format!("{line}\t{:016x}", checksum(&line));
        let measure = Measure { messages: 3, chars: 40, context_chars: 30, summaries: 1 };
        assert_eq!(super::line(&header.id, stamp, &header, &measure), line);
        let entry = parse_line(&line).unwrap();
        assert_eq!(entry.measure, measure);
        assert!(parse_line(&line[..line.len() - 1]).is_none());
        assert_eq!(entry.header, header);
        assert_eq!(entry.stamp, stamp);
        assert!(parse_line("garbage").is_none());
        assert!(parse_line(&format!("{line}\textra")).is_none());
    }
}
