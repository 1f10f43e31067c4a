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
pub(crate) mod forgive;
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
    /// A damaged header that still names the session: its ID and title,
    /// and its other fields that read, found by a forgiving scan (see
    /// `forgive`); the text says what is wrong.
    Header(Box<Header>, String),
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
    /// The images it refers to (the fast check passes no message with any).
    pub(crate) images: Vec<crate::store::session::Image>,
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

/// Start reading a session file: read and decode its header. A file laid
/// out otherwise than hermes writes it (its header's fields in another
/// order, one missing) or damaged is read whole first (within the size
/// limit), and read in hermes's layout when it is valid JSON.
pub(crate) fn read<R: Read>(mut src: R) -> Result<Reader<R>, Fault> {
    let mut prefix = Vec::new();
    let mut want = HEADER_PROBE;
    // Read on until the `[` of `"messages": [` is in, or the header limit.
    let mut open = loop {
        let got = fill_to(&mut src, &mut prefix, want)?;
        if let Some(open) = messages_open(&prefix).filter(|&open| open < prefix.len()) {
            break open;
        }
        if got < want || want >= HEADER_MAX {
            break prefix.len();
        }
        want = (want * 4).min(HEADER_MAX);
    };
    let header = match decode_header(&prefix) {
        Ok(header) if forgive::written_first(&prefix[..open]) => header,
        decoded => {
            let limit = crate::store::MAX_SESSION_BYTES.saturating_sub(prefix.len() as u64);
            (&mut src).take(limit).read_to_end(&mut prefix)?;
            let header = match forgive::lay_out(&prefix, decoded)? {
                forgive::Laid::AsIs(header) => *header,
                forgive::Laid::Again(bytes) => {
                    prefix = bytes;
                    match forgive::lay_out(&prefix, decode_header(&prefix))? {
                        forgive::Laid::AsIs(header) => *header,
                        forgive::Laid::Again(_) => unreachable!("laid out with the messages last"),
                    }
                }
            };
            open = messages_open(&prefix).unwrap_or(prefix.len());
            header
        }
    };
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

/// Where the value of the `"messages"` key in `prefix` starts (its first
/// byte that is not blank), if the key is in.
fn messages_open(prefix: &[u8]) -> Option<usize> {
    let (_, value) = json::find_messages_key(prefix)?;
    Some(value + prefix[value..].iter().take_while(|b| b.is_ascii_whitespace()).count())
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
                images: Vec::new(),
            }));
        }
        let m = decode_message(&self.raw).map_err(|why| self.in_message(why))?;
        let role = ROLES.iter().find(|r| **r == m.role).expect("decode_message checks the role");
        Ok(Some(JsonMessage {
            role,
            content: Cow::Owned(m.content.serialize_json().into_bytes()),
            replaced: m.is_replaced(),
            summary: m.is_summary(),
            images: m.images.unwrap_or_default(),
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
            // Fields after the messages: passed over when unknown (as
            // those before them are), else a header no longer whole.
            Some(b',') => {
                let mut rest = Vec::new();
                (&mut self.src).take(HEADER_MAX as u64).read_to_end(&mut rest)?;
                if !forgive::passes_over(&rest) {
                    return Err(self.after_message("\"messages\" is not the last field"));
                }
                self.state = State::End;
                return Ok(());
            }
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
        Err(Fault::Damaged(why) | Fault::Message(why) | Fault::Header(_, why)) => Err(why),
        Err(Fault::Newer(format)) => Err(format!("format {format}")),
        Err(Fault::TooLarge) => Err("too large".into()),
        Err(Fault::Io(e)) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests;
