//! Writing session files: the file form of a session, its one-line
//! export form, and appending or inserting messages by splicing them
//! around the old messages' bytes, each checked as it is copied.

use super::*;

/// The header fields as the start of the file form: `{...,"messages":[`.
fn write_head(out: &mut impl Write, header: &Header) -> io::Result<()> {
    out.write_all(Form::File.head(header).as_bytes())
}

const TAIL: &[u8] = b"\n]}\n";

/// How a session is written out: the file form (a message a line) or the
/// one-line form of `export --format jsonl` (and inside `--format json`).
/// Either is its `head`, each message's `separator` and encoding, then its
/// `tail`: written a piece at a time, one message in memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Form {
    File,
    Line,
}

impl Form {
    /// The header's fields, then `"messages":[`.
    pub(crate) fn head(self, header: &Header) -> String {
        let head = header.serialize_json();
        format!("{},\"messages\":[", &head[..head.len() - 1]) // '}' dropped
    }

    /// What goes before the message of index `at` (from 0).
    pub(crate) fn separator(self, at: u64) -> &'static str {
        match (self, at) {
            (Form::File, 0) => "\n",
            (Form::File, _) => ",\n",
            (Form::Line, 0) => "",
            (Form::Line, _) => ",",
        }
    }

    /// What ends the session.
    pub(crate) fn tail(self) -> &'static str {
        match self {
            Form::File => "\n]}\n",
            Form::Line => "]}",
        }
    }

    /// A whole session in this form.
    fn encode(self, header: &Header, messages: &[Message]) -> String {
        let head = self.head(header);
        let mut out =
            String::with_capacity(head.len() + messages.iter().map(|m| m.content.len() + 64).sum::<usize>());
        out.push_str(&head);
        for (at, m) in messages.iter().enumerate() {
            out.push_str(self.separator(at as u64));
            out.push_str(&m.serialize_json());
        }
        out.push_str(self.tail());
        out
    }
}

/// The file form of a session.
pub fn encode(header: &Header, messages: &[Message]) -> Vec<u8> {
    Form::File.encode(header, messages).into_bytes()
}

/// The one-line form used by `export --format jsonl` and inside
/// `--format json`: the same fields, no newlines.
#[cfg(test)]
pub(crate) fn encode_line(header: &Header, messages: &[Message]) -> String {
    Form::Line.encode(header, messages)
}

/// Append `messages` to the session file read from `src` (which must be
/// session `id`), writing the new file to `out`: the new header (counts,
/// times, preview; then `edit`), the old messages' bytes as they were, each
/// checked, then the new ones. At most `limit` bytes are written; the new
/// header is returned. On any error `out` holds a partial file to discard.
pub fn append(
    src: impl Read,
    out: &mut impl Write,
    id: &str,
    messages: &[Message],
    edit: impl FnOnce(&mut Header),
    limit: u64,
) -> Result<Header, Fault> {
    splice(src, out, id, None, messages, edit, limit).map(|h| h.expect("no place to check"))
}

/// Where `insert` puts a message: after the first `after` messages, the
/// last of which must still be the one whose stored bytes hash to
/// `last` (FNV-1a; None when `after` is 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Place {
    pub(crate) after: u64,
    pub(crate) last: Option<u64>,
}

/// Insert `message` into the session file read from `src` at `place`,
/// writing the new file to `out` as `append` does (the other messages'
/// bytes as they were). Ok(None) when the file no longer has the message
/// `place` expects (it changed since it was read): `out` is to discard.
pub(crate) fn insert(
    src: impl Read,
    out: &mut impl Write,
    id: &str,
    place: Place,
    message: &Message,
    limit: u64,
) -> Result<Option<Header>, Fault> {
    splice(src, out, id, Some(place), std::slice::from_ref(message), |_| {}, limit)
}

/// `append`, or with `at` `insert`: the one copy of the old messages.
fn splice(
    src: impl Read,
    out: &mut impl Write,
    id: &str,
    at: Option<Place>,
    messages: &[Message],
    edit: impl FnOnce(&mut Header),
    limit: u64,
) -> Result<Option<Header>, Fault> {
    let mut reader = read(src)?;
    let mut header = reader.header().clone();
    check_id(&header, id).map_err(Fault::Damaged)?;
    if header.format > FORMAT {
        return Err(Fault::Newer(header.format));
    }
    for m in messages {
        header.note_message(m);
    }
    edit(&mut header);
    let mut out = Bounded { out, written: 0, limit };
    let mut head = Vec::new();
    write_head(&mut head, &header)?;
    out.write_all(&head)?;
    let Some(place) = at else {
        // The common case, appending: runs of messages copied as read.
        let mut first = reader.copy_checked(|bytes| out.write_all(bytes))? == 0;
        for m in messages {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            out.write_all(m.serialize_json().as_bytes())?;
            first = false;
        }
        out.write_all(TAIL)?;
        return Ok(Some(header));
    };
    let mut first = true;
    let mut copied = 0u64;
    let write_new = |out: &mut Bounded<'_, _>, first: &mut bool| -> Result<(), Fault> {
        for m in messages {
            out.write_all(if *first { b"\n" } else { b",\n" })?;
            out.write_all(m.serialize_json().as_bytes())?;
            *first = false;
        }
        Ok(())
    };
    if place.after == 0 {
        write_new(&mut out, &mut first)?;
    }
    while reader.next_checked()? {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        out.write_all(reader.raw())?;
        first = false;
        copied += 1;
        if place.after == copied {
            if place.last != Some(crate::hash::fnv1a(reader.raw())) {
                return Ok(None);
            }
            write_new(&mut out, &mut first)?;
        }
    }
    if place.after > copied {
        return Ok(None);
    }
    out.write_all(TAIL)?;
    Ok(Some(header))
}

/// A writer that refuses to write more than `limit` bytes in all.
struct Bounded<'a, W: Write> {
    out: &'a mut W,
    written: u64,
    limit: u64,
}

impl<W: Write> Bounded<'_, W> {
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Fault> {
        self.written += bytes.len() as u64;
        if self.written > self.limit {
            return Err(Fault::TooLarge);
        }
        self.out.write_all(bytes).map_err(Fault::Io)
    }
}
