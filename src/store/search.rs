//! Finding text in sessions as a person reads them: smart-case patterns,
//! a first pass over the raw bytes of every file (as fast as grep, in
//! bounded memory), and a second that decodes only the files the first
//! could not rule out, so that escapes in the JSON never hide a match.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::fsio;
use crate::store::Store;
use crate::store::json::{every_byte, zero_bytes};
use crate::store::session::Header;

/// Bytes read from a file at a time in the first pass.
const BLOCK: usize = 128 << 10;
/// Snippets kept per session (the count of all matches is kept too).
pub(crate) const MAX_SNIPPETS: usize = 10;
/// Characters of context kept on each side of a match.
const CONTEXT_CHARS: usize = 80;

/// What to look for, and how. Case is ignored unless the text has a
/// capital letter (smart case, as ripgrep does).
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    /// The text, lower-cased when case is ignored.
    text: String,
    fold: bool,
    prefilter: Prefilter,
}

/// What the raw bytes of a file must hold for the file to be worth
/// decoding.
#[derive(Clone, Debug, PartialEq)]
enum Prefilter {
    /// These bytes (ASCII letters compared without case when folding).
    Bytes { run: Vec<u8>, or_escapes: bool },
    /// Nothing can be ruled out from the raw bytes.
    Everything,
}

impl Pattern {
    pub(crate) fn new(text: &str) -> Pattern {
        let fold = !text.chars().any(char::is_uppercase);
        let text = if fold { text.to_lowercase() } else { text.to_string() };
        let prefilter = prefilter_for(&text, fold);
        Pattern { text, fold, prefilter }
    }

    /// The byte range of the first match in `hay`.
    pub(crate) fn find(&self, hay: &str) -> Option<(usize, usize)> {
        if self.text.is_empty() {
            return Some((0, 0));
        }
        if !self.fold {
            return hay.find(&self.text).map(|at| (at, at + self.text.len()));
        }
        if hay.is_ascii() && self.text.is_ascii() {
            let n = self.text.len();
            return hay
                .as_bytes()
                .windows(n)
                .position(|w| w.eq_ignore_ascii_case(self.text.as_bytes()))
                .map(|at| (at, at + n));
        }
        // Lower-case the text, remembering where each of its characters
        // came from, and map the match back.
        let mut lowered = String::with_capacity(hay.len());
        let mut origin = Vec::with_capacity(hay.len());
        for (at, c) in hay.char_indices() {
            for l in c.to_lowercase() {
                lowered.push(l);
                origin.resize(lowered.len(), at);
            }
        }
        let start = lowered.find(&self.text)?;
        let end = start + self.text.len();
        let from = origin[start];
        Some((from, next_char_start(hay, origin[end - 1])))
    }

    pub(crate) fn matches(&self, hay: &str) -> bool {
        self.find(hay).is_some()
    }

    /// Whether the raw bytes of a file could hold a match: when false, no
    /// decoding of them can.
    fn may_match_raw(&self, raw: &[u8]) -> bool {
        match &self.prefilter {
            Prefilter::Everything => true,
            Prefilter::Bytes { run, or_escapes } => {
                contains(raw, run, self.fold) || *or_escapes && contains(raw, b"\\u", false)
            }
        }
    }

    fn carry(&self) -> usize {
        match &self.prefilter {
            Prefilter::Everything => 0,
            Prefilter::Bytes { run, .. } => run.len().max(2) - 1,
        }
    }
}

fn next_char_start(s: &str, at: usize) -> usize {
    s[at..].chars().next().map_or(s.len(), |c| at + c.len_utf8())
}

/// The part of the pattern whose bytes must appear as they are in any file
/// that matches. Printable ASCII other than `"`, `\`, `/`, `<`, `>` and `&`
/// is written as itself by every JSON writer in use. Other characters may
/// be written as `\uXXXX` (Python's json does so for all non-ASCII), so a
/// run of them only rules out files with no `\u` at all.
fn prefilter_for(text: &str, fold: bool) -> Prefilter {
    let plain_ascii =
        |c: char| c.is_ascii_graphic() && !matches!(c, '"' | '\\' | '/' | '<' | '>' | '&') || c == ' ';
    // Folded, a cased character other than ASCII may be written in either
    // case, which no single byte run covers.
    let plain_other = |c: char| {
        !c.is_ascii()
            && !c.is_control()
            && (!fold || c.to_lowercase().eq(std::iter::once(c)) && c.to_uppercase().eq(std::iter::once(c)))
    };
    let longest = |keep: &dyn Fn(char) -> bool| -> String {
        let mut best = String::new();
        let mut run = String::new();
        for c in text.chars() {
            if keep(c) {
                run.push(c);
            } else {
                run.clear();
            }
            if run.len() > best.len() {
                best = run.clone();
            }
        }
        best
    };
    let ascii = longest(&plain_ascii);
    if !ascii.trim().is_empty() {
        return Prefilter::Bytes { run: ascii.into_bytes(), or_escapes: false };
    }
    let other = longest(&plain_other);
    if !other.is_empty() {
        return Prefilter::Bytes { run: other.into_bytes(), or_escapes: true };
    }
    Prefilter::Everything
}

/// Whether `hay` contains `needle`; with `fold`, ASCII letters of a
/// lower-case needle match either case. Looks at eight positions at a
/// time, as words, for the needle's first and last byte, and compares the
/// whole needle only where both agree.
pub(crate) fn contains(hay: &[u8], needle: &[u8], fold: bool) -> bool {
    let n = needle.len();
    if n == 0 {
        return true;
    }
    if hay.len() < n {
        return false;
    }
    let case_bit = |b: u8| if fold && b.is_ascii_alphabetic() { 0x20u8 } else { 0 };
    let (first, last) = (needle[0], needle[n - 1]);
    let same = |window: &[u8]| {
        if fold { window.eq_ignore_ascii_case(needle) } else { window == needle }
    };
    // `zero_bytes` may flag a place that does not match; `same` refutes it.
    let word = |at: usize| u64::from_le_bytes(hay[at..at + 8].try_into().expect("8 bytes"));
    let (first_word, first_bits) = (every_byte(first), every_byte(case_bit(first)));
    let (last_word, last_bits) = (every_byte(last), every_byte(case_bit(last)));
    let mut at = 0;
    while at + n - 1 + 8 <= hay.len() {
        let mut mask = zero_bytes((word(at) | first_bits) ^ first_word)
            & zero_bytes((word(at + n - 1) | last_bits) ^ last_word);
        while mask != 0 {
            let k = mask.trailing_zeros() as usize / 8;
            if same(&hay[at + k..at + k + n]) {
                return true;
            }
            mask &= mask - 1;
        }
        at += 8;
    }
    hay[at..].windows(n).any(same)
}

/// One matching place: the title, or a message.
#[derive(Clone, Debug)]
pub(crate) struct Match {
    /// The message's index, None for the title.
    pub(crate) message: Option<usize>,
    pub(crate) role: String,
    /// Up to CONTEXT_CHARS characters before the match, the match, and up
    /// to CONTEXT_CHARS after, each on one line (whitespace runs are one
    /// space).
    pub(crate) before: String,
    pub(crate) matched: String,
    pub(crate) after: String,
}

/// A session that matched.
#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub(crate) header: Header,
    /// The first MAX_SNIPPETS matches.
    pub(crate) matches: Vec<Match>,
    /// How many places match in all.
    pub(crate) total: usize,
}

/// The sessions that match, newest activity first, at most `limit` of
/// them; `more` tells whether others match too.
pub(crate) struct Found {
    pub(crate) hits: Vec<Hit>,
    pub(crate) more: bool,
}

/// Search every session of the store. Files that cannot be decoded are
/// passed to `skipped` (with why) and left out.
///
/// While the catalog knows the activity order, files are read newest
/// first, in growing batches, and the search stops once `limit` sessions
/// and one more have matched: a word found in most sessions costs a few
/// files, not the store. Otherwise every file's raw bytes are looked at
/// first, and the ones that may match are decoded newest first.
pub(crate) fn search(
    store: &Store,
    pattern: &Pattern,
    limit: usize,
    mut skipped: impl FnMut(&Path, &str),
) -> Result<Found> {
    let mut found = Found { hits: Vec::new(), more: false };
    let mut order: Vec<[u8; 22]> = Vec::new();
    let from_catalog = store.by_activity(|e| {
        order.push(e.id);
        std::ops::ControlFlow::Continue(())
    });
    if from_catalog.is_some() {
        let (mut from, mut batch) = (0, 32);
        while from < order.len() && !found.more {
            let ids = &order[from..(from + batch).min(order.len())];
            // In the order given: candidates_in keeps it.
            let candidates = candidates_in(store.sessions_dir(), ids, pattern);
            take_hits(store, &candidates, pattern, limit, &mut found, &mut skipped);
            from += ids.len();
            batch = (batch * 2).min(4096);
        }
    } else {
        let ids = store.session_ids()?;
        let mut candidates = candidates_in(store.sessions_dir(), &ids, pattern);
        // Newest first by the time the raw header gives, so that a word
        // found in every file needs only the newest few decoded.
        crate::order::sort_by(&mut candidates, |a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        take_hits(store, &candidates, pattern, limit, &mut found, &mut skipped);
    }
    crate::order::sort_by(&mut found.hits, |a, b| {
        b.header.updated_at.total_cmp(&a.header.updated_at).then_with(|| b.header.id.cmp(&a.header.id))
    });
    Ok(found)
}

/// Decode the candidates in their order and keep those that match, until
/// `found` holds `limit` hits and another one matches (`more`).
fn take_hits(
    store: &Store,
    candidates: &[(f64, [u8; 22])],
    pattern: &Pattern,
    limit: usize,
    found: &mut Found,
    skipped: &mut impl FnMut(&Path, &str),
) {
    for (_, key) in candidates {
        let id = std::str::from_utf8(key).expect("IDs are ASCII");
        // A message at a time; damage anywhere leaves the session out.
        let hit = match store.messages(id).and_then(|m| m.map(|m| matches_in(m, pattern)).transpose()) {
            Ok(Some(hit)) => hit,
            Ok(None) => continue, // deleted since
            Err(
                crate::error::Error::Corrupt { path, why }
                | crate::error::Error::DamagedSession { path, why, .. },
            ) => {
                skipped(&path, &why);
                continue;
            }
            Err(e) => {
                skipped(&store.sessions_dir().join(format!("{id}.json")), &e.to_string());
                continue;
            }
        };
        if let Some(hit) = hit {
            if found.hits.len() == limit {
                found.more = true;
                return;
            }
            found.hits.push(hit);
        }
    }
}

/// Where `pattern` matches in one session, if anywhere: its messages
/// read one at a time, the first MAX_SNIPPETS matches kept.
fn matches_in(mut messages: crate::store::Messages, pattern: &Pattern) -> Result<Option<Hit>> {
    let mut matches = Vec::new();
    let mut total = 0;
    let mut note = |message: Option<usize>, role: &str, text: &str| {
        if let Some(range) = pattern.find(text) {
            total += 1;
            if matches.len() < MAX_SNIPPETS {
                matches.push(snippet(message, role, text, range));
            }
        }
    };
    note(None, "title", &messages.header().title);
    let mut i = 0;
    while let Some(m) = messages.next()? {
        note(Some(i), &m.role, &m.content);
        i += 1;
    }
    Ok((total > 0).then(|| Hit { header: messages.header().clone(), matches, total }))
}

fn snippet(message: Option<usize>, role: &str, text: &str, (from, to): (usize, usize)) -> Match {
    let before: Vec<char> = text[..from].chars().rev().take(CONTEXT_CHARS).collect();
    let before: String = before.into_iter().rev().collect();
    let after: String = text[to..].chars().take(CONTEXT_CHARS).collect();
    Match {
        message,
        role: role.to_string(),
        before: one_line(&before),
        matched: one_line(&text[from..to]),
        after: one_line(&after),
    }
}

/// Whitespace runs (newlines among them) as one space.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// The first pass: the files whose raw bytes may hold a match, with the
/// activity time their header gives, read on a few threads.
fn candidates_in(dir: &Path, ids: &[[u8; 22]], pattern: &Pattern) -> Vec<(f64, [u8; 22])> {
    let threads =
        if ids.len() < 256 { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get().min(4)) };
    let scan = |ids: &[[u8; 22]]| {
        let mut buf = vec![0u8; BLOCK];
        let mut found = Vec::new();
        let mut path = PathBuf::from(dir);
        for key in ids {
            path.push(format!("{}.json", std::str::from_utf8(key).expect("IDs are ASCII")));
            match may_match_file(&path, pattern, &mut buf) {
                Ok(None) => {}
                Ok(Some(updated_at)) => found.push((updated_at, *key)),
                // Unreadable: the second pass says why.
                Err(_) => found.push((0.0, *key)),
            }
            path.pop();
        }
        found
    };
    super::fan_out(ids, threads, &scan)
}

/// Whether the file's raw bytes may hold a match; if so, the activity time
/// its header gives (0 when it gives none). Reads block by block, keeping
/// the few bytes a match could span across blocks.
fn may_match_file(path: &Path, pattern: &Pattern, buf: &mut [u8]) -> io::Result<Option<f64>> {
    if pattern.prefilter == Prefilter::Everything {
        return Ok(Some(header_time(&fsio::open_regular(path)?.0, buf)));
    }
    let (mut file, meta) = fsio::open_regular(path)?;
    let size = meta.len();
    let carry = pattern.carry();
    let mut kept = 0;
    let mut read = 0u64;
    let mut first = true;
    while read < size {
        let got = match file.read(&mut buf[kept..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        read += got as u64;
        let end = kept + got;
        if pattern.may_match_raw(&buf[..end]) {
            let updated_at = if first { updated_at_in(&buf[..end]) } else { None };
            return Ok(Some(updated_at.unwrap_or_else(|| header_time(&file, buf))));
        }
        first = false;
        let keep = carry.min(end);
        buf.copy_within(end - keep..end, 0);
        kept = keep;
    }
    Ok(None)
}

/// The activity time in the first bytes of a file, or 0.
fn header_time(file: &File, buf: &mut [u8]) -> f64 {
    let probe = 4096.min(buf.len());
    let n = file.read_at(&mut buf[..probe], 0).unwrap_or(0);
    updated_at_in(&buf[..n]).unwrap_or(0.0)
}

/// `"updated_at":NUMBER` among the first bytes of a session file: only an
/// order for the second pass, which reads the true header.
fn updated_at_in(head: &[u8]) -> Option<f64> {
    const KEY: &[u8] = b"\"updated_at\":";
    let at = head.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let digits = head[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b' '))
        .count();
    std::str::from_utf8(&head[at..at + digits]).ok()?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_case() {
        let lower = Pattern::new("brpop");
        assert!(lower.fold);
        assert!(lower.matches("why does BRPOPLPUSH time out"));
        let upper = Pattern::new("BRPOP");
        assert!(!upper.fold);
        assert!(upper.matches("BRPOPLPUSH"));
        assert!(!upper.matches("brpoplpush"));
        assert_eq!(Pattern::new("straße").find("STRASSE straße"), Some((8, 15)));
        assert_eq!(Pattern::new("é").find("CAFÉ"), Some((3, 5)));
    }

    #[test]
    fn raw_bytes_find_what_json_may_hide() {
        let p = Pattern::new("redis");
        assert!(p.may_match_raw(b"{\"title\":\"REDIS\"}"));
        assert!(!p.may_match_raw(b"{\"title\":\"red is\"}"));
        // A quote: only the plain part must appear.
        let q = Pattern::new("say \"hi\"");
        assert_eq!(q.prefilter, Prefilter::Bytes { run: b"say ".to_vec(), or_escapes: false });
        // CJK may be written as \uXXXX by other writers.
        let cjk = Pattern::new("调试");
        assert!(cjk.may_match_raw("x调试y".as_bytes()));
        assert!(cjk.may_match_raw(b"\\u8c03\\u8bd5"));
        assert!(!cjk.may_match_raw(b"nothing here"));
        assert_eq!(Pattern::new("\"\\").prefilter, Prefilter::Everything);
    }

    #[test]
    fn contains_agrees_with_a_plain_search() {
        let hay: Vec<u8> = (0..3000u32).map(|i| b"abcdefghij KLMNOP\"\\"[(i * 7 % 19) as usize]).collect();
        for needle in [&b"a"[..], b"hij", b"klm", b"KLM", b"op\"", b"zzz", b"j KLMNOP"] {
            for fold in [false, true] {
                let want = hay
                    .windows(needle.len())
                    .any(|w| if fold { w.eq_ignore_ascii_case(needle) } else { w == needle });
                let needle_folded = if fold { needle.to_ascii_lowercase() } else { needle.to_vec() };
                assert_eq!(contains(&hay, &needle_folded, fold), want, "{needle:?} {fold}");
            }
        }
        assert!(contains(b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxab", b"ab", false));
    }

    #[test]
    fn contains_finds_a_needle_at_every_place_among_near_misses() {
        // Fillers one bit from the needle's bytes (the word-wise check's
        // extra hits) and upper case (folding), at every offset and length.
        for needle in [&b"q"[..], b"ab", b"xyz", b"hello"] {
            for filler in [needle[0] ^ 1, needle[needle.len() - 1] ^ 1, needle[0] - 0x20, 0, 0xff] {
                for len in 0..40 {
                    for place in 0..=len {
                        let mut hay = vec![filler; len];
                        if place + needle.len() <= len {
                            hay[place..place + needle.len()].copy_from_slice(needle);
                        }
                        for fold in [false, true] {
                            let want = hay
                                .windows(needle.len())
                                .any(|w| if fold { w.eq_ignore_ascii_case(needle) } else { w == needle });
                            assert_eq!(contains(&hay, needle, fold), want, "{hay:?} {needle:?} {fold}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn header_time_from_raw_bytes() {
        assert_eq!(updated_at_in(b"{\"format\":1,\"updated_at\":1796222001.5,\"cwd\""), Some(1796222001.5));
        assert_eq!(updated_at_in(b"{\"format\":1}"), None);
    }
}
