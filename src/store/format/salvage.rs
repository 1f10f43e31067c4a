//! What can be kept of a session file whose header reads and whose
//! messages do not all: every message that checks, wherever it lies, and
//! the places of those that do not (for `sessions repair`).
//!
//! The stream reader stops at the first damage; this walks the whole
//! `messages` array instead, one value at a time, and finds its way on
//! after damage: past the value when its end can be told, else from the
//! next line (hermes writes one message per line, and no string it writes
//! holds a raw line break).

use std::io::{self, Read};

use super::{Fault, HEADER_MAX, decode_message, read};
use crate::store::json;
use crate::store::session::{Header, Message};

/// A damaged session being taken apart, a message at a time (it holds
/// the bytes of the value it is at, not the file).
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

/// Start taking the session file read from `src` apart. Err when its
/// header cannot be read: then nothing names the session, and nothing is
/// kept.
pub(crate) fn salvage<R: Read>(src: R) -> Result<Salvage<R>, Fault> {
    let mut bytes = Window { src, buf: Vec::new(), base: 0, failed: None };
    let head = bytes.head(HEADER_MAX);
    let header = read(head)?.header().clone();
    let (_, value) =
        json::find_messages_key(head).ok_or_else(|| Fault::Damaged("no \"messages\" field".into()))?;
    let at = skip_blank(&mut bytes, value);
    if bytes.get(at) != Some(b'[') {
        return Err(Fault::Damaged("\"messages\" is not an array".into()));
    }
    Ok(Salvage { header, lost: Vec::new(), bytes, at: at + 1, number: 0, done: false })
}

impl<R: Read> Salvage<R> {
    /// The next message that checks, in the file's order; None after the
    /// last (what could not be kept is then in `lost`).
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
            let mut at = skip_blank_and_commas(bytes, self.at);
            bytes.forget_before(at);
            match bytes.get(at) {
                None => {
                    lost.push(format!("after message {number}: {}", super::TRUNCATED));
                    self.done = true;
                }
                Some(b']') => {
                    let end = skip_blank(bytes, at + 1);
                    let after = skip_blank(bytes, end + 1);
                    if bytes.get(end) != Some(b'}') || bytes.get(after).is_some() {
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
                            continue;
                        }
                        // Nothing left after where it would go on: cut short.
                        Err(next) => match next.filter(|&next| bytes.get(next).is_some()) {
                            None => {
                                lost.push(format!("message {number}: {}", super::TRUNCATED));
                                self.done = true;
                            }
                            Some(next) => {
                                lost.push(format!("message {number}: a line break in a string (not JSON)"));
                                at = next;
                            }
                        },
                    }
                }
            }
            self.at = at;
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

impl<R: Read> Window<R> {
    /// The file's first `n` bytes (fewer if it is shorter).
    fn head(&mut self, n: usize) -> &[u8] {
        while self.buf.len() < n && self.more() {}
        &self.buf[..self.buf.len().min(n)]
    }

    /// Read another block; false at the end.
    fn more(&mut self) -> bool {
        let have = self.buf.len();
        self.buf.resize(have + (64 << 10), 0);
        loop {
            match self.src.read(&mut self.buf[have..]) {
                Ok(n) => {
                    self.buf.truncate(have + n);
                    return n > 0;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(have);
                    self.failed = Some(e);
                    return false;
                }
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

    /// Let go of the bytes before `at` (once they are many: a message's
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
        for (i, &b) in chunk.iter().enumerate().map(|(k, b)| (from + k, b)) {
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
                    _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"format":1,"id":"20200101_000000_000001","title":"t","messages":["#;

    fn taken_apart(messages: &str) -> (Vec<String>, Vec<String>) {
        let file = format!("{HEAD}{messages}");
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

    #[test]
    fn a_file_of_megabytes_is_taken_apart_alike_read_in_any_pieces() {
        // Messages of every length (some longer than a read block), every
        // seventh damaged, one broken by a line break: read in pieces of
        // 7 bytes, of 1 MiB and whole, the same is kept and left out.
        let mut file = HEAD.to_string();
        let mut good = 0;
        for i in 0..1200usize {
            let text = "x".repeat(if i % 97 == 0 { 70_000 + i } else { i * 13 % 3000 });
            let content = if i % 7 == 3 { format!("{text}\\q") } else { text };
            good += usize::from(i % 7 != 3 && i != 500);
            let content = if i == 500 { "a\nb".to_string() } else { content };
            file.push_str(if i == 0 { "\n" } else { ",\n" });
            file.push_str(&format!("{{\"role\":\"user\",\"content\":\"{content}\",\"ts\":1}}"));
        }
        file.push_str("\n]}\n");
        struct Pieces<'a>(&'a [u8], usize);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(self.1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let taken = |piece: usize| {
            let mut s = salvage(Pieces(file.as_bytes(), piece)).expect("the header reads");
            let mut kept = Vec::new();
            while let Some(m) = s.next_kept().expect("no I/O error") {
                kept.push(m.content.len());
            }
            (kept, s.lost)
        };
        let whole = taken(file.len());
        assert!(whole.0.len() >= good && whole.1.len() >= 1200 - good, "{} {}", whole.0.len(), whole.1.len());
        assert!(whole.0.iter().any(|&len| len > 70_000));
        for piece in [7, 1 << 20] {
            assert!(taken(piece) == whole, "{piece}");
        }
    }
}
