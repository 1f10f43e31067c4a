//! What can be kept of a damaged session file whose ID and title read
//! (its header whole, or found by the forgiving scan of `forgive`):
//! every message that checks, wherever it lies, and the places of those
//! that do not (for `sessions repair`).
//!
//! The stream reader stops at the first damage; this walks the whole
//! `messages` array instead, one value at a time, and finds its way on
//! after damage: past the value when its end can be told, else from the
//! next line (hermes writes one message per line, and no string it writes
//! holds a raw line break).
//!
//! A file whose header is whole and in hermes's order (every field it
//! writes before `messages`, read from the first `HEADER_MAX` bytes) is
//! walked forward through a window that holds the value being taken
//! apart: the largest message, not the file. Any other (its header in
//! another key order, `jq -S`, or itself damaged: fields of it may lie
//! after the messages) is read whole first, as the forgiving scan needs.

use std::io::{self, Read};

use super::{Fault, HEADER_MAX, decode_header, decode_message, forgive, messages_open, read};
use crate::store::json;
use crate::store::session::{Header, Message};

/// A damaged session being taken apart, a message at a time.
pub(crate) struct Salvage<R> {
    pub(crate) header: Header,
    /// What could not be kept: "message 2: why", one line each (all of
    /// it once `next_kept` gave None).
    pub(crate) lost: Vec<String>,
    bytes: Window<R>,
    at: usize,
    number: usize,
    done: bool,
}

/// Start taking apart the session file read from `src`. Err when nothing
/// names the session (no ID and title read): then nothing is kept.
pub(crate) fn salvage<R: Read>(src: R) -> Result<Salvage<R>, Fault> {
    let mut bytes = Window { src, buf: Vec::new(), base: 0, failed: None };
    let head = bytes.head(HEADER_MAX);
    let (header, lost, value) = match in_order(head) {
        Some((header, open)) => (header, Vec::new(), Some(open)),
        None => {
            let all = bytes.all()?;
            let (header, lost) = match read(all) {
                Ok(reader) => (reader.header().clone(), Vec::new()),
                Err(Fault::Header(header, why)) => {
                    (*header, vec![format!("the header: {}", why.trim_start_matches("bad header: "))])
                }
                Err(fault) => return Err(fault),
            };
            let value = forgive::messages_at(all).or_else(|| json::find_messages_key(all).map(|(_, v)| v));
            (header, lost, value)
        }
    };
    let mut salvage = Salvage { header, lost, bytes, at: 0, number: 0, done: true };
    let Some(value) = value else {
        if salvage.lost.is_empty() {
            salvage.lost.push("the messages: none found".into());
        }
        return Ok(salvage);
    };
    let at = skip_blank(&mut salvage.bytes, value);
    if salvage.bytes.get(at) != Some(b'[') {
        salvage.lost.push("the messages: \"messages\" is not an array".into());
        return salvage.bytes.failed.take().map_or(Ok(salvage), |e| Err(Fault::Io(e)));
    }
    (salvage.at, salvage.done) = (at + 1, false);
    Ok(salvage)
}

/// The header at the start of `head` and where its `messages` array
/// opens, when it is whole and in hermes's order, as the stream reader
/// reads it: nothing of the header can then follow the messages.
fn in_order(head: &[u8]) -> Option<(Header, usize)> {
    let open = messages_open(head).filter(|&open| open < head.len())?;
    let header = decode_header(head).ok()?;
    (forgive::written_first(&head[..open]) && head[open] == b'[').then_some((header, open))
}

impl<R: Read> Salvage<R> {
    /// The next message that checks, in the file's order; None after the
    /// last (what could not be kept is then all in `lost`).
    pub(crate) fn next_kept(&mut self) -> Result<Option<Message>, Fault> {
        let kept = self.walk();
        match self.bytes.failed.take() {
            Some(e) => Err(Fault::Io(e)),
            None => Ok(kept),
        }
    }

    fn walk(&mut self) -> Option<Message> {
        let (bytes, lost, number) = (&mut self.bytes, &mut self.lost, &mut self.number);
        while !self.done {
            let at = skip_blank_and_commas(bytes, self.at);
            bytes.forget_before(at);
            match bytes.get(at) {
                None => {
                    lost.push(format!("after message {number}: {}", super::TRUNCATED));
                    self.done = true;
                }
                Some(b']') => {
                    let end = skip_blank(bytes, at + 1);
                    // The header's fields may follow (another key order).
                    let more = bytes.get(end) == Some(b',');
                    let after = skip_blank(bytes, end + 1);
                    if !more && (bytes.get(end) != Some(b'}') || bytes.get(after).is_some()) {
                        lost.push(format!("after message {number}: what follows the messages is not '}}'"));
                    }
                    self.done = true;
                }
                Some(_) => {
                    *number += 1;
                    match value_end(bytes, at) {
                        Ok(end) => {
                            self.at = end;
                            match decode_message(bytes.slice(at, end)) {
                                Ok(m) => return Some(m),
                                Err(why) => lost.push(format!("message {number}: {why}")),
                            }
                        }
                        Err(Some(next)) if bytes.get(next).is_some() => {
                            lost.push(format!("message {number}: a line break in a string (not JSON)"));
                            self.at = next;
                        }
                        Err(_) => {
                            lost.push(format!("message {number}: {}", super::TRUNCATED));
                            self.done = true;
                        }
                    }
                }
            }
        }
        None
    }
}

/// A file read forward: the bytes read from `base` on, more read as they
/// are asked for, those before a place let go (`forget_before`).
struct Window<R> {
    src: R,
    buf: Vec<u8>,
    base: usize,
    /// Reading failed: the file's end is taken to be here.
    failed: Option<io::Error>,
}

/// Bytes read at a time.
const BLOCK: usize = 256 << 10;

impl<R: Read> Window<R> {
    /// The file's first `n` bytes (fewer if it is shorter).
    fn head(&mut self, n: usize) -> &[u8] {
        while self.buf.len() < n && self.more() {}
        &self.buf[..self.buf.len().min(n)]
    }

    /// The whole file (the window holds it from then on).
    fn all(&mut self) -> Result<&[u8], Fault> {
        self.src.read_to_end(&mut self.buf)?;
        Ok(&self.buf)
    }

    /// Read another block; false at the end.
    fn more(&mut self) -> bool {
        self.buf.reserve(BLOCK);
        match (&mut self.src).take(BLOCK as u64).read_to_end(&mut self.buf) {
            Ok(n) => n > 0,
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    /// The bytes read from `at` on (reading more if there are none); None
    /// at the end.
    fn from(&mut self, at: usize) -> Option<&[u8]> {
        while at >= self.base + self.buf.len() {
            if self.failed.is_some() || !self.more() {
                return None;
            }
        }
        Some(&self.buf[at - self.base..])
    }

    fn get(&mut self, at: usize) -> Option<u8> {
        self.from(at).map(|rest| rest[0])
    }

    /// The bytes from `at` to `end`, read already.
    fn slice(&self, at: usize, end: usize) -> &[u8] {
        &self.buf[at - self.base..end - self.base]
    }

    /// Let go of the bytes before `at` once they are many (a message's
    /// bytes are moved along once, not at every message).
    fn forget_before(&mut self, at: usize) {
        let gone = at.saturating_sub(self.base).min(self.buf.len());
        if gone >= (1 << 20) && gone >= self.buf.len() / 2 {
            self.buf.drain(..gone);
            self.base += gone;
        }
    }
}

fn skip_blank<R: Read>(bytes: &mut Window<R>, mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

fn skip_blank_and_commas<R: Read>(bytes: &mut Window<R>, mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace() || b == b',') {
        at += 1;
    }
    at
}

/// Where the JSON value starting at `at` ends (just past it); Err with
/// where to go on when its end cannot be told: after the line break that
/// broke a string (Some), or nowhere: the input ended (None).
fn value_end<R: Read>(bytes: &mut Window<R>, at: usize) -> Result<usize, Option<usize>> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut from = at;
    while let Some(chunk) = bytes.from(from) {
        let mut k = 0;
        while k < chunk.len() {
            let (i, b) = (from + k, chunk[k]);
            k += 1;
            if in_string {
                match b {
                    b'\n' => return Err(Some(i + 1)),
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => {
                        in_string = false;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    // Strings are most of a session: on to the next byte
                    // that matters.
                    _ => k = plain_end(chunk, k),
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                // A number, true, false, null (or garbage) ends where the
                // next value or the array would begin.
                b',' | b']' | b'}' if depth == 0 => return if i > at { Ok(i) } else { Err(Some(i + 1)) },
                b'\n' if depth == 0 => return Ok(i),
                _ => {}
            }
        }
        from += chunk.len();
    }
    Err(None)
}

/// Where the run of bytes in a string from `k` that is neither a quote,
/// a backslash nor a line break ends.
fn plain_end(chunk: &[u8], k: usize) -> usize {
    chunk[k..].iter().position(|&b| matches!(b, b'"' | b'\\' | b'\n')).map_or(chunk.len(), |p| k + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    /// A header as hermes writes it: its messages are taken apart as a
    /// stream.
    const HEAD: &str = concat!(
        r#"{"format":1,"id":"20200101_000000_000001","title":"t","title_source":"user","#,
        r#""created_at":1.5,"updated_at":2.5,"cwd":"/","message_count":3,"preview":"a","messages":["#
    );

    fn taken_apart(messages: &str) -> (Vec<String>, Vec<String>) {
        let file = format!("{HEAD}{messages}");
        assert!(in_order(file.as_bytes()).is_some());
        let mut s = salvage(file.as_bytes()).expect("the header reads");
        let mut kept = Vec::new();
        while let Some(m) = s.next_kept().expect("no I/O error") {
            kept.push(m.content);
        }
        (kept, s.lost)
    }

    #[test]
    fn keeps_every_message_that_checks_around_the_damaged_ones() {
        let m = |c: &str| format!(r#"{{"role":"user","content":"{c}","ts":1}}"#);
        let (kept, lost) = taken_apart(&format!("\n{},\n{},\n{}\n]}}\n", m("a"), m("b\\x"), m("c")));
        assert_eq!(kept, ["a", "c"]);
        assert_eq!(lost.len(), 1);
        assert!(lost[0].starts_with("message 2: "), "{lost:?}");
        // A raw line break in a string: on from the next line.
        let (kept, lost) = taken_apart(&format!(
            "\n{},\n{{\"role\":\"user\",\"content\":\"b\n\",\"ts\":1}},\n{}\n]}}",
            m("a"),
            m("c")
        ));
        assert_eq!(kept, ["a", "c"]);
        assert!(lost[0].starts_with("message 2: "), "{lost:?}");
        // Values that are no message at all, on one line.
        let (kept, lost) = taken_apart(&format!(
            "1,null,\"text\",[1,{{}}],{},{{\"role\":\"evil\",\"content\":\"x\",\"ts\":1}}]}}",
            m("a")
        ));
        assert_eq!(kept, ["a"]);
        assert_eq!(lost.len(), 5, "{lost:?}");
        // Cut short in the middle of a message, and after the last.
        let (kept, lost) = taken_apart(&format!("\n{},\n{{\"role\":\"us", m("a")));
        assert_eq!(
            (kept, lost),
            (vec!["a".to_string()], vec![format!("message 2: {}", super::super::TRUNCATED)])
        );
        let (kept, lost) = taken_apart(&format!("\n{},\n{}\n", m("a"), m("b")));
        assert_eq!(kept, ["a", "b"]);
        assert_eq!(lost, ["after message 2: truncated: does not end with ']}'"]);
        // Trailing bytes after the session.
        let (kept, lost) = taken_apart(&format!("\n{}\n]}}x", m("a")));
        assert_eq!((kept.len(), lost.len()), (1, 1));
    }

    #[test]
    fn a_header_that_does_not_read_keeps_nothing() {
        assert!(salvage(&b"{\"format\":1,\"id\":"[..]).is_err());
        assert!(salvage(&b""[..]).is_err());
    }

    /// The messages that check of `file` read in pieces of `piece` bytes
    /// (their lengths), and what was left out.
    fn taken_in_pieces(file: &[u8], piece: usize) -> (Vec<usize>, Vec<String>) {
        struct Pieces<'a>(&'a [u8], usize);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(self.1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut s = salvage(Pieces(file, piece)).expect("the header reads");
        let mut kept = Vec::new();
        while let Some(m) = s.next_kept().expect("no I/O error") {
            kept.push(m.content.len());
        }
        (kept, s.lost)
    }

    #[test]
    fn a_file_of_megabytes_is_taken_apart_alike_read_in_any_pieces() {
        // Messages of every length (some longer than a read block), every
        // seventh damaged, one broken by a line break: read in pieces of
        // 7 bytes, of 1 MiB and whole, the same is kept and left out.
        let mut file = HEAD.to_string();
        let mut good = 0;
        for i in 0..1200usize {
            let text = "x".repeat(if i % 97 == 0 { 300_000 + i } else { i * 13 % 3000 });
            let content = if i % 7 == 3 { format!("{text}\\q") } else { text };
            good += usize::from(i % 7 != 3 && i != 500);
            let content = if i == 500 { "a\nb".to_string() } else { content };
            file.push_str(if i == 0 { "\n" } else { ",\n" });
            file.push_str(&format!("{{\"role\":\"user\",\"content\":\"{content}\",\"ts\":1}}"));
        }
        file.push_str("\n]}\n");
        let whole = taken_in_pieces(file.as_bytes(), file.len());
        assert!(whole.0.len() == good && whole.1.len() >= 1200 - good, "{:?}", whole.1);
        assert!(whole.0.iter().any(|&len| len > 300_000) && in_order(file.as_bytes()).is_some());
        for piece in [7, 1 << 20] {
            assert!(taken_in_pieces(file.as_bytes(), piece) == whole, "{piece}");
        }
    }

    #[test]
    fn a_header_out_of_order_is_read_whole_and_found_after_the_messages() {
        let m = |c: &str| format!(r#"{{"role":"user","content":"{c}","ts":1}}"#);
        let sorted = format!(
            "{{\"format\":1,\"id\":\"20200101_000000_000001\",\"messages\":[\n{},\n{}\n],\"title\":\"t\"}}\n",
            m("a"),
            m("b\\q")
        );
        assert!(in_order(sorted.as_bytes()).is_none());
        let (kept, lost) = taken_in_pieces(sorted.as_bytes(), 5);
        assert_eq!((kept, lost.len()), (vec![1], 1), "{lost:?}");
        let s = salvage(sorted.as_bytes()).expect("the header reads");
        assert_eq!(s.header.title, "t");
    }
}
