//! The session file format (format 1), and the one door to a session file's
//! bytes: reading it with every message checked, writing it, and appending
//! to it by splicing new messages after the old ones' bytes.
//!
//! A file is one JSON object: the small header fields first, `messages`
//! last, one message per line:
//!
//! ```text
//! {"format":1,"id":"...",...,"messages":[
//! {"role":"user","content":"...","ts":1.5},
//! {"role":"assistant","content":"...","ts":2.5}
//! ]}
//! ```
//!
//! Reading streams the messages one at a time through a bounded buffer, so
//! checking, appending to or sending a session never holds more than one
//! message of it. A file whose messages do not all check is damaged as a
//! whole: it is never appended to or rewritten.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, Write};

use nanoserde::SerJson;

use crate::store::json;
use crate::store::session::{FORMAT, Header, MAX_MESSAGE_BYTES, Message, Session};

mod canonical;
mod salvage;
mod take;
mod write;
use canonical::{Canonical, canonical_parts, is_canonical, written_form};
pub(crate) use salvage::salvage;
use take::take_written;
#[cfg(test)]
pub(crate) use write::encode_line;
pub(crate) use write::{Form, Place, insert};
pub use write::{append, encode};

/// The roles a message may have; anything else is damage.
pub(crate) const ROLES: [&str; 3] = ["user", "assistant", "system"];

/// A header must end within this many bytes (titles and cwd are bounded).
pub(crate) const HEADER_MAX: usize = 64 << 10;
/// How much of a file is read first to find its header.
const HEADER_PROBE: usize = 4096;
/// The most bytes one stored message may take: content at the limit with
/// every byte escaped (`\u00XX`), and room for the other fields.
const MESSAGE_BYTES_MAX: usize = 6 * MAX_MESSAGE_BYTES + (64 << 10);
/// The read buffer of a streamed file.
const BUFFER_BYTES: usize = 256 << 10;

/// Why a session file cannot be read, or appended to.
#[derive(Debug)]
pub enum Fault {
    /// Not a valid session file; the text says why, for the user.
    Damaged(String),
    /// Damage after a readable header: in a message (the text names it,
    /// "message 3: ..."), or in how the messages are laid out. The header
    /// still names the session, and the messages before it are readable.
    Message(String),
    /// Written by a newer hermes (this format number): never modified.
    Newer(u64),
    /// The result would be larger than the limit it was given.
    TooLarge,
    /// Reading or writing failed.
    Io(io::Error),
}

impl From<io::Error> for Fault {
    fn from(e: io::Error) -> Fault {
        Fault::Io(e)
    }
}

fn damaged(why: impl Into<String>) -> Fault {
    Fault::Damaged(why.into())
}

const TIME_OUT_OF_RANGE: &str = "a time is out of range";
pub(crate) const TRUNCATED: &str = "truncated: does not end with ']}'";

/// Whether the last bytes of a file end as a session file does (`]}`).
pub(crate) fn ends_like_a_session(tail: &[u8]) -> bool {
    tail.trim_ascii().strip_suffix(b"}").is_some_and(|rest| rest.trim_ascii_end().ends_with(b"]"))
}

/// Parse the header from the start of a session file. `prefix` may be the
/// whole file or only its first bytes.
pub fn decode_header(prefix: &[u8]) -> Result<Header, String> {
    let Some((key, _)) = json::find_messages_key(prefix) else {
        return Err(if prefix.is_empty() { "empty file".into() } else { "no \"messages\" field".into() });
    };
    let head = prefix[..key].trim_ascii_end();
    let Some(head) = head.strip_suffix(b",") else {
        return Err("\"messages\" is not the last field".into());
    };
    let mut head = head.to_vec();
    head.push(b'}');
    let header: Header = json::parse(&head).map_err(|e| format!("bad header: {e}"))?;
    // 1e999 parses as infinity, which would be written back as `inf`: a
    // file hermes could no longer read. Such a file is damaged, not data.
    if !(header.created_at.is_finite() && header.updated_at.is_finite()) {
        return Err(TIME_OUT_OF_RANGE.into());
    }
    Ok(header)
}

/// The file name is the ID every command acts on. A header naming another
/// session (a copied file, or damage) would send an append or a delete
/// meant for this file to that session's, so it makes the file invalid.
pub(crate) fn check_id(header: &Header, id: &str) -> Result<(), String> {
    if header.id == id {
        Ok(())
    } else {
        Err(format!("it says it is session '{}', not the one its name says", header.id))
    }
}

/// Decode and check one stored message.
fn decode_message(bytes: &[u8]) -> Result<Message, String> {
    let message: Message = json::parse(bytes).map_err(|e| format!("bad message: {e}"))?;
    if !ROLES.contains(&message.role.as_str()) {
        return Err(format!("a message has the role {:?}, not user, assistant or system", message.role));
    }
    if !message.ts.is_finite() {
        return Err(TIME_OUT_OF_RANGE.into());
    }
    Ok(message)
}

/// A message's role and its content as a JSON string (quotes included),
/// and whether it is a summary (see `Message::summary`).
pub(crate) struct JsonMessage<'a> {
    pub(crate) role: &'static str,
    pub(crate) content: Cow<'a, [u8]>,
    /// A reply `/retry` replaced: not for the agent.
    pub(crate) replaced: bool,
    pub(crate) summary: bool,
}

/// A session file being read: its header, then its messages one by one.
pub(crate) struct Reader<R: Read> {
    src: BufReader<io::Chain<Cursor<Vec<u8>>, R>>,
    header: Header,
    state: State,
    /// The last message's bytes, as stored.
    raw: Vec<u8>,
    /// Its parts, when it was read in the form hermes writes (checked).
    canonical: Option<Canonical>,
    /// How many messages were read.
    count: u64,
}

#[derive(PartialEq)]
enum State {
    First,
    Next,
    End,
}

/// Start reading a session file: read and decode its header.
pub(crate) fn read<R: Read>(mut src: R) -> Result<Reader<R>, Fault> {
    let mut prefix = Vec::new();
    let mut want = HEADER_PROBE;
    // Read on until the `[` of `"messages": [` is in, or the header limit.
    let open = loop {
        let got = fill_to(&mut src, &mut prefix, want)?;
        if let Some((_, value)) = json::find_messages_key(&prefix) {
            let blank = prefix[value..].iter().take_while(|b| b.is_ascii_whitespace()).count();
            if value + blank < prefix.len() {
                break value + blank;
            }
        }
        if got < want || want >= HEADER_MAX {
            break prefix.len();
        }
        want = (want * 4).min(HEADER_MAX);
    };
    let header = decode_header(&prefix).map_err(Fault::Damaged)?;
    if prefix.get(open) != Some(&b'[') {
        return Err(damaged(if open == prefix.len() { TRUNCATED } else { "\"messages\" is not an array" }));
    }
    let rest = prefix.split_off(open + 1);
    Ok(Reader {
        src: BufReader::with_capacity(BUFFER_BYTES, Cursor::new(rest).chain(src)),
        header,
        state: State::First,
        raw: Vec::new(),
        canonical: None,
        count: 0,
    })
}

/// Read from `src` until `buf` holds `want` bytes or the input ends;
/// returns how many bytes `buf` holds.
fn fill_to(src: &mut impl Read, buf: &mut Vec<u8>, want: usize) -> io::Result<usize> {
    // Straight into the room wanted: read_to_end would begin with small
    // reads (32 bytes, 64, ...), a system call each.
    let mut have = buf.len();
    buf.resize(have.max(want), 0);
    while have < want {
        match src.read(&mut buf[have..want]) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(have);
                return Err(e);
            }
        }
    }
    buf.truncate(have);
    Ok(buf.len())
}

impl<R: Read> Reader<R> {
    pub(crate) fn header(&self) -> &Header {
        &self.header
    }

    /// The next message, checked; None after the last one, once the end of
    /// the file has been checked too.
    pub(crate) fn next_message(&mut self) -> Result<Option<Message>, Fault> {
        if !self.advance()? {
            return Ok(None);
        }
        decode_message(&self.raw).map(Some).map_err(|why| self.in_message(why))
    }

    /// `next_message`, the message's stored bytes let go at once when they
    /// are many (a reply of megabytes is then not held twice while it is
    /// used): `raw()` is empty after such a one.
    pub(crate) fn next_message_alone(&mut self) -> Result<Option<Message>, Fault> {
        let message = self.next_message()?;
        if self.raw.capacity() > BUFFER_BYTES {
            self.raw = Vec::new();
        }
        Ok(message)
    }

    /// Damage in the message read last.
    fn in_message(&self, why: String) -> Fault {
        Fault::Message(format!("message {}: {why}", self.count))
    }

    /// Damage between messages, or after the last: named by the message
    /// it follows.
    fn after_message(&self, why: &str) -> Fault {
        match self.count {
            0 => Fault::Message(format!("before the first message: {why}")),
            n => Fault::Message(format!("after message {n}: {why}")),
        }
    }

    /// The next message as an agent's JSON wants it: its role, and its
    /// content as a JSON string, the file's own bytes when it holds the
    /// message plainly (no decoding, no encoding), else encoded afresh.
    pub(crate) fn next_json(&mut self) -> Result<Option<JsonMessage<'_>>, Fault> {
        if !self.advance()? {
            return Ok(None);
        }
        if let Some(plain) = self.canonical.clone().or_else(|| canonical_parts(&self.raw)) {
            return Ok(Some(JsonMessage {
                role: plain.role,
                content: Cow::Borrowed(&self.raw[plain.content]),
                replaced: plain.replaced,
                summary: plain.summary && plain.role == "system",
            }));
        }
        let m = decode_message(&self.raw).map_err(|why| self.in_message(why))?;
        let role = ROLES.iter().find(|r| **r == m.role).expect("decode_message checks the role");
        Ok(Some(JsonMessage {
            role,
            content: Cow::Owned(m.content.serialize_json().into_bytes()),
            replaced: m.is_replaced(),
            summary: m.is_summary(),
        }))
    }

    /// Like `next_message`, without decoding the message (it is checked
    /// all the same): its bytes are `raw()`. False after the last one.
    pub(crate) fn next_checked(&mut self) -> Result<bool, Fault> {
        if !self.advance()? {
            return Ok(false);
        }
        if self.canonical.is_none() && !is_canonical(&self.raw) {
            decode_message(&self.raw).map_err(|why| self.in_message(why))?;
        }
        Ok(true)
    }

    /// Check every message left and copy it to `write` in the file form
    /// (`\n` before the first, `,\n` before each other); how many there
    /// were. A run of messages held in the read buffer exactly in that form
    /// and as hermes writes them is checked in one pass and written as one
    /// piece: appending costs little more than copying the file.
    pub(crate) fn copy_checked(
        &mut self,
        mut write: impl FnMut(&[u8]) -> Result<(), Fault>,
    ) -> Result<u64, Fault> {
        loop {
            if self.state != State::End {
                let buffered = self.src.fill_buf()?;
                let (mut at, mut run) = (0, 0);
                loop {
                    let separator: &[u8] = if self.count + run == 0 { b"\n" } else { b",\n" };
                    let Some(rest) = buffered[at..].strip_prefix(separator) else { break };
                    let Some((len, _)) = written_form(rest) else { break };
                    at += separator.len() + len;
                    run += 1;
                }
                if run > 0 {
                    write(&buffered[..at])?;
                    self.src.consume(at);
                    self.count += run;
                    self.state = State::Next;
                    continue;
                }
            }
            // One message the general way: another form, or not whole in
            // the buffer; or the end.
            if !self.next_checked()? {
                return Ok(self.count);
            }
            write(if self.count == 1 { b"\n" } else { b",\n" })?;
            write(&self.raw)?;
        }
    }

    /// Read the next message's bytes into `raw`; false at the end.
    fn advance(&mut self) -> Result<bool, Fault> {
        match self.state {
            State::End => return Ok(false),
            State::First => {
                if self.peek()? == Some(b']') {
                    return self.end().map(|()| false);
                }
            }
            State::Next => match self.peek()? {
                Some(b',') => {
                    self.src.consume(1);
                    self.peek()?;
                }
                Some(b']') => return self.end().map(|()| false),
                None => return Err(self.after_message(TRUNCATED)),
                Some(_) => return Err(self.after_message("expected ',' or ']'")),
            },
        }
        self.count += 1;
        self.state = State::Next;
        self.raw.clear();
        // Most messages are in the form hermes writes and in the buffer
        // whole: found and checked in one pass.
        let buffered = self.src.fill_buf()?;
        self.canonical = written_form(buffered).map(|(len, plain)| {
            self.raw.extend_from_slice(&buffered[..len]);
            plain
        });
        match self.canonical {
            Some(_) => self.src.consume(self.raw.len()),
            // Longer than what is buffered (or in another form).
            None => {
                self.canonical = take_written(&mut self.src, &mut self.raw).map_err(|fault| match fault {
                    Fault::Damaged(why) => self.in_message(why),
                    other => other,
                })?
            }
        }
        Ok(true)
    }

    /// Read the same file again from its start (the one version opened,
    /// whatever replaced it since): a second pass over its messages.
    pub(crate) fn rewind(self) -> Result<Reader<R>, Fault>
    where
        R: Seek,
    {
        let (_, mut src) = self.src.into_inner().into_inner();
        src.seek(io::SeekFrom::Start(0))?;
        read(src)
    }

    /// The bytes of the message read last, as stored.
    pub(crate) fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// Read every message to the end, checking each; the header.
    pub(crate) fn check(mut self) -> Result<Header, Fault> {
        while self.next_checked()? {}
        Ok(self.header)
    }

    /// The whole session, every message in memory.
    pub(crate) fn into_session(mut self) -> Result<Session, Fault> {
        let mut messages = Vec::new();
        while let Some(m) = self.next_message()? {
            messages.push(m);
        }
        Ok(Session { header: self.header, messages })
    }

    /// The next byte that is not whitespace, left unread.
    fn peek(&mut self) -> Result<Option<u8>, Fault> {
        loop {
            let chunk = self.src.fill_buf()?;
            if chunk.is_empty() {
                return Ok(None);
            }
            let blank = chunk.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if blank < chunk.len() {
                let byte = chunk[blank];
                self.src.consume(blank);
                return Ok(Some(byte));
            }
            let n = chunk.len();
            self.src.consume(n);
        }
    }

    /// After the messages' `]`: the object's `}`, whitespace, and nothing more.
    fn end(&mut self) -> Result<(), Fault> {
        self.src.consume(1);
        match self.peek()? {
            Some(b'}') => self.src.consume(1),
            Some(b',') => return Err(self.after_message("\"messages\" is not the last field")),
            None => return Err(self.after_message(TRUNCATED)),
            Some(_) => return Err(self.after_message("expected '}' after the messages")),
        }
        if self.peek()?.is_some() {
            return Err(self.after_message("trailing data after the session"));
        }
        self.state = State::End;
        Ok(())
    }
}

/// How many of a session file's messages the fast check tells, and how
/// many it holds: for tests that every form hermes writes takes it.
#[cfg(test)]
pub(crate) fn told_fast(doc: &[u8]) -> (u64, u64) {
    let mut reader = read(doc).expect("a session file");
    let mut fast = 0;
    while reader.next_checked().expect("valid messages") {
        fast += u64::from(canonical_parts(reader.raw()).is_some());
    }
    (fast, reader.count)
}

/// Parse a whole session file held in memory.
pub fn decode(doc: &[u8]) -> Result<Session, String> {
    match read(doc).and_then(Reader::into_session) {
        Ok(session) => Ok(session),
        Err(Fault::Damaged(why) | Fault::Message(why)) => Err(why),
        Err(Fault::Newer(format)) => Err(format!("format {format}")),
        Err(Fault::TooLarge) => Err("too large".into()),
        Err(Fault::Io(e)) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Session {
        let mut header = Header::new("20261202_143015_a1b2c3".into(), "/home/ana".into(), 1.5);
        let messages = vec![
            Message::new("user", "why \"quotes\"\n and \u{7}bell".into(), 2.0),
            Message::new("assistant", "ok }]{[".into(), 3.25),
        ];
        for m in &messages {
            header.note_message(m);
        }
        Session { header, messages }
    }

    #[test]
    fn round_trips_through_the_file_form() {
        let s = sample();
        let bytes = encode(&s.header, &s.messages);
        assert_eq!(decode(&bytes).unwrap(), s);
        assert_eq!(decode_header(&bytes[..bytes.len() / 2 + 60]).unwrap(), s.header);
        assert_eq!(s.header.message_count, 2);
        assert_eq!(s.header.title, "why \"quotes\"");
        assert_eq!(s.header.title_source, crate::store::session::TITLE_AUTO);
    }

    #[test]
    fn replaced_is_written_only_when_true_and_read_when_missing() {
        let mut s = sample();
        s.messages.push(Message { replaced: Some(true), ..Message::new("assistant", "old".into(), 4.0) });
        s.messages.push(Message::new("assistant", "new".into(), 5.0));
        let text = String::from_utf8(encode(&s.header, &s.messages)).unwrap();
        assert_eq!(text.matches("replaced").count(), 1, "{text}");
        let back = decode(text.as_bytes()).unwrap().messages;
        let n = back.len();
        assert_eq!((back[n - 2].is_replaced(), back[n - 1].replaced), (true, None));
    }

    #[test]
    fn interrupted_is_written_only_when_true_and_read_when_missing() {
        let mut s = sample();
        s.messages
            .push(Message { interrupted: Some(true), ..Message::new("assistant", "cut sh".into(), 4.0) });
        let bytes = encode(&s.header, &s.messages);
        assert_eq!(decode(&bytes).unwrap(), s);
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(text.matches("interrupted").count(), 1);
        assert!(text.contains(r#""content":"cut sh","ts":4.0,"interrupted":true}"#), "{text}");
        let old = r#"{"format":1,"id":"x","messages":[{"role":"user","content":"hi","ts":1.0}]}"#;
        assert_eq!(decode(old.as_bytes()).unwrap().messages[0].interrupted, None);
    }

    #[test]
    fn reads_a_file_in_pieces_of_any_size() {
        let s = sample();
        let bytes = encode(&s.header, &s.messages);
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(3);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        assert_eq!(read(Trickle(&bytes)).unwrap().into_session().unwrap(), s);
    }

    #[test]
    fn copying_runs_of_messages_writes_what_copying_one_by_one_does() {
        // Messages in the written form, and others (a \u escape, blanks,
        // another key order, an interrupted reply), read in pieces of every
        // size, so that runs break at every byte.
        let m = |role, content: &str| Message::new(role, content.into(), 1796205601.5).serialize_json();
        let mut interrupted = Message::new("assistant", "cut".into(), 3.0);
        interrupted.interrupted = Some(true);
        let messages = [
            m("user", "one \"two\"\n"),
            m("assistant", "three"),
            r#"{"role":"user","content":"\u00e9","ts":2}"#.to_string(),
            r#"{ "role": "user", "content": "x", "ts": 2 }"#.to_string(),
            m("system", "é"),
            r#"{"ts":1,"content":"y","role":"user"}"#.to_string(),
            interrupted.serialize_json(),
            m("user", "last"),
        ];
        let head = "{\"format\":1,\"id\":\"20261202_143015_a1b2c3\",\"title\":\"t\",\"messages\":[";
        for tail in ["\n]}\n", "]}"] {
            for separator in [",\n", ", ", ","] {
                let file = format!("{head}\n{}{tail}", messages.join(separator));
                let mut expected = Vec::new();
                let mut reader = read(file.as_bytes()).unwrap();
                while reader.next_checked().unwrap() {
                    expected.extend_from_slice(if expected.is_empty() { b"\n" } else { b",\n" });
                    expected.extend_from_slice(reader.raw());
                }
                for piece in (1..40).chain([file.len()]) {
                    struct Pieces<'a>(&'a [u8], usize);
                    impl Read for Pieces<'_> {
                        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                            let n = buf.len().min(self.0.len()).min(self.1);
                            buf[..n].copy_from_slice(&self.0[..n]);
                            self.0 = &self.0[n..];
                            Ok(n)
                        }
                    }
                    let mut copied = Vec::new();
                    let count = read(Pieces(file.as_bytes(), piece))
                        .unwrap()
                        .copy_checked(|bytes| {
                            copied.extend_from_slice(bytes);
                            Ok(())
                        })
                        .unwrap();
                    assert_eq!(count, messages.len() as u64);
                    assert_eq!(
                        String::from_utf8_lossy(&copied),
                        String::from_utf8_lossy(&expected),
                        "{piece}"
                    );
                }
            }
        }
        // A damaged message is found in a run as well.
        let file =
            format!("{head}\n{},\n{}\n]}}", m("user", "a"), r#"{"role":"user","content":"a","ts":1,}"#);
        assert!(matches!(read(file.as_bytes()).unwrap().copy_checked(|_| Ok(())), Err(Fault::Message(_))));
    }

    /// Reads of at most `.1` bytes at a time: every message is longer than
    /// what is buffered, and checked as it streams by (`take_written`).
    struct Pieces<'a>(&'a [u8], usize);
    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(self.1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_message_read_in_pieces_is_judged_as_one_read_whole() {
        // Every byte of a message deleted, replaced or preceded by one that
        // matters, read whole and in pieces of 1 to 12 bytes: the same
        // session or the same refusal, and the same JSON for the agent.
        let message =
            br#"{"role":"assistant","content":"a \"b\" \\ \n\/ \u00e9\ud83d\ude00 c","ts":1796205601.9156368,"replaced":true}"#;
        let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntxdD\x00\x01\x0c\x7f\xc3\xff";
        let mut variants =
            vec![message.to_vec(), b"{\"role\":\"user\",\"content\":\"\xc3\xa9\",\"ts\":1}".to_vec()];
        for at in 0..message.len() {
            variants.push([&message[..at], &message[at + 1..]].concat());
            for &b in bytes {
                variants.push([&message[..at], &[b], &message[at + 1..]].concat());
                variants.push([&message[..at], &[b], &message[at..]].concat());
            }
        }
        let head = b"{\"format\":1,\"id\":\"20261202_143015_a1b2c3\",\"title\":\"t\",\"messages\":[\n";
        let (mut read_ok, mut streamed) = (0, 0);
        for v in &variants {
            let file = [&head[..], v, b",\n", v, b"\n]}"].concat();
            let whole = decode(&file);
            let json = |src: &mut Reader<Pieces>| -> Vec<(String, Vec<u8>)> {
                let mut out = Vec::new();
                while let Ok(Some(m)) = src.next_json() {
                    out.push((m.role.to_string(), m.content.to_vec()));
                }
                out
            };
            let whole_json = read(Pieces(&file, file.len())).map(|mut r| json(&mut r)).unwrap_or_default();
            read_ok += whole.is_ok() as usize;
            for piece in 1..=12 {
                let pieces = read(Pieces(&file, piece)).and_then(Reader::into_session).map_err(|_| ());
                assert_eq!(pieces, whole.clone().map_err(|_| ()), "{piece}: {}", String::from_utf8_lossy(v));
                let mut reader = read(Pieces(&file, piece)).unwrap();
                assert_eq!(json(&mut reader), whole_json, "{piece}: {}", String::from_utf8_lossy(v));
                if reader.canonical.is_some() {
                    streamed += 1;
                }
            }
        }
        assert!(read_ok > 100 && streamed > 100, "{read_ok} {streamed}");
    }

    #[test]
    fn rejects_what_is_not_a_session() {
        let m = r#"{"role":"user","content":"","ts":1}"#;
        for doc in [
            String::new(),
            "[]".into(),
            "{}".into(),
            "{\"messages\":[]}".into(),
            "{\"format\":1,\"messages\":[1]}".into(),
            "{\"id\":1,\"messages\":[]}".into(),
            "{\"format\":1,\"id\":\"x\",\"created_at\":1e999,\"messages\":[]}".into(),
            "{\"format\":1,\"id\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"\",\"ts\":-1e999}]}"
                .into(),
            // Damaged messages: the header alone is fine.
            r#"{"format":1,"id":"x","messages":[1,2,3]}"#.into(),
            r#"{"format":1,"id":"x","messages":[null]}"#.into(),
            r#"{"format":1,"id":"x","messages":[{"content":"","ts":1}]}"#.into(),
            r#"{"format":1,"id":"x","messages":[{"role":"user","content":""}]}"#.into(),
            r#"{"format":1,"id":"x","messages":[{"role":"user","content":"","ts":"1"}]}"#.into(),
            r#"{"format":1,"id":"x","messages":[{"role":"user","content":5,"ts":1}]}"#.into(),
            r#"{"format":1,"id":"x","messages":[{"role":"evil","content":"","ts":1}]}"#.into(),
            format!(r#"{{"format":1,"id":"x","messages":[{m},]}}"#),
            format!(r#"{{"format":1,"id":"x","messages":[{m}{m}]}}"#),
            format!(r#"{{"format":1,"id":"x","messages":[{m}]}}x"#),
            format!(r#"{{"format":1,"id":"x","messages":[{m}],"z":1}}"#),
            format!(r#"{{"format":1,"id":"x","messages":[{m}]"#),
            r#"{"format":1,"id":"x","z":[[["#.into(),
            r#"{"format":1,"id":"x","messages":[{"role":"user","content":"","ts":1,"z":[[["#.into(),
        ] {
            assert!(decode(doc.as_bytes()).is_err(), "{doc}");
        }
    }

    #[test]
    fn next_json_gives_the_content_as_a_json_string_plain_or_not() {
        let file = "{\"format\":1,\"id\":\"20261202_120000_abcdef\",\"title\":\"t\",\"messages\":[\n\
            {\"role\":\"user\",\"content\":\"a \\\"b\\\" \\n\",\"ts\":1.5},\n\
            {\"content\":\"\\u00e9t\\u00e9\",\"role\":\"assistant\",\"ts\":2},\n\
            {\"role\":\"user\",\"content\":\"\\u00e9\",\"ts\":3,\"tool\":null}\n]}";
        let mut reader = read(file.as_bytes()).expect("a session");
        let mut seen = Vec::new();
        while let Some(m) = reader.next_json().expect("valid") {
            let content: String = json::parse(&m.content).expect("a JSON string");
            seen.push((m.role, content, matches!(m.content, Cow::Borrowed(_))));
        }
        // A field the fast check does not know: decoded, encoded afresh.
        assert_eq!(
            seen,
            [
                ("user", "a \"b\" \n".to_string(), true),
                ("assistant", "été".to_string(), true),
                ("user", "é".to_string(), false)
            ]
        );
    }

    #[test]
    fn appends_after_the_old_bytes() {
        let s = sample();
        let old = encode(&s.header, &s.messages);
        let new = Message::new("user", "third".into(), 9.0);
        let mut out = Vec::new();
        let header =
            append(&old[..], &mut out, &s.header.id, std::slice::from_ref(&new), |_| {}, 1 << 20).unwrap();
        let mut all = s.messages.clone();
        all.push(new);
        assert_eq!(out, encode(&header, &all));
        assert_eq!(header.message_count, 3);
        assert_eq!(header.updated_at, 9.0);
        let mut out = Vec::new();
        assert!(matches!(append(&old[..], &mut out, "other", &[], |_| {}, 1 << 20), Err(Fault::Damaged(_))));
        assert!(matches!(append(&old[..], &mut out, &s.header.id, &[], |_| {}, 10), Err(Fault::TooLarge)));
    }
}
