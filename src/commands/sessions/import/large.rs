//! A session of hermes's own export too long to hold (a record over
//! `BIG_RECORD` bytes), imported as a stream, one message in memory: the
//! first pass checks it a message at a time and notes what its header
//! will say (its count, tokens, size, the title its first user message
//! gives); the second reads it again as it writes it. A record that does
//! not read so (damaged, or laid out otherwise) is read whole, as before,
//! to be judged the same way.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};

use nanoserde::SerJson;

use crate::error::{Error, Result};
use crate::store::context::{Measure, Measuring};
use crate::store::format::{self, Fault, Form};
use crate::store::session::{self, Header, Usage};

use super::record::Span;
use super::times::sane_time;

/// What the first pass learned of a large session.
#[derive(Clone)]
pub(crate) struct Large {
    /// Where its record begins in the input.
    offset: u64,
    pub(crate) count: u64,
    pub(crate) usage: Option<Usage>,
    pub(crate) measure: Measure,
    /// The title its first user message gives, if any.
    pub(crate) first_user_title: Option<String>,
    /// Its first message whose time hermes does not keep (its index).
    pub(crate) first_bad_time: Option<(usize, f64)>,
}

/// The large sessions the first pass checked, for the second.
#[derive(Default)]
pub(crate) struct Checked(Vec<Large>);

impl Checked {
    pub(crate) fn note(&mut self, large: &Large) {
        self.0.push(large.clone());
    }
}

/// The large session at `span`, if it reads as a stream: checked by the
/// first pass (`checked`), else now. Ok(None): it is to be read whole.
pub(crate) fn take(span: &Span, checked: &Checked, name: &str) -> Result<Option<(Header, Large)>> {
    let io_error = |source| Error::ImportRead { name: name.to_string(), source };
    if let Some(large) = checked.0.iter().find(|l| l.offset == span.offset) {
        // Through `Plain`, as `check` reads: one copy of the format's reader.
        return match format::read(&mut Plain { inner: span.reader(), form_feed: false }) {
            Ok(reader) => Ok(Some((reader.header().clone(), large.clone()))),
            Err(Fault::Io(e)) => Err(io_error(e)),
            Err(_) => Ok(None),
        };
    }
    check(span).map_err(io_error)
}

/// Every message of the session at `span` checked, what it holds noted:
/// Ok(None) unless the record is, as a whole, what `json::validate` and
/// `format::decode` would take (then it is read whole to be judged).
fn check(span: &Span) -> io::Result<Option<(Header, Large)>> {
    let mut src = Plain { inner: span.reader(), form_feed: false };
    let mut reader = match format::read(&mut src) {
        Ok(reader) => reader,
        Err(Fault::Io(e)) => return Err(e),
        Err(_) => return Ok(None),
    };
    let header = reader.header().clone();
    let mut large = Large {
        offset: span.offset,
        count: 0,
        usage: None,
        measure: Measure::default(),
        first_user_title: None,
        first_bad_time: None,
    };
    let (mut measuring, mut first_user) = (Measuring::default(), true);
    loop {
        let m = match reader.next_message() {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(Fault::Io(e)) => return Err(e),
            Err(_) => return Ok(None),
        };
        // In the record a message lies two levels down: JSON's limit is
        // two levels nearer than for the message alone.
        if too_deep(reader.raw()) {
            return Ok(None);
        }
        if large.first_bad_time.is_none() && !sane_time(m.ts) {
            large.first_bad_time = Some((large.count as usize, m.ts));
        }
        if let Some(u) = &m.usage {
            large.usage.get_or_insert(Usage::new(0, 0, Some(0))).add(u);
        }
        if first_user && m.role == "user" {
            first_user = false;
            large.first_user_title = session::clean_title(&m.content);
        }
        measuring.push_message(&m);
        large.count += 1;
    }
    // JSON has no form feed outside its strings, and none in them.
    if src.form_feed {
        return Ok(None);
    }
    large.measure = measuring.finish();
    Ok(Some((header, large)))
}

/// Whether a message nests deeper than 62 levels (JSON's 64, less the
/// record's object and its `messages` array).
fn too_deep(raw: &[u8]) -> bool {
    const MOST: usize = 62;
    if raw.iter().filter(|&&b| b == b'{' || b == b'[').count() <= MOST {
        return false;
    }
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in raw {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' if !in_string => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest > MOST
}

/// A reader that notes whether a form feed went by.
struct Plain<R> {
    inner: R,
    form_feed: bool,
}

impl<R: Read> Read for Plain<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.form_feed |= buf[..n].contains(&0x0c);
        Ok(n)
    }
}

/// The session at `span` written in the file form under `header`, its
/// messages read again and written one at a time.
pub(crate) fn write(span: &Span, header: &Header, file: &mut File, name: &str) -> Result<()> {
    // The first pass read it whole: only a file changed since fails here.
    let fault = |fault: Fault| {
        let source = match fault {
            Fault::Io(e) => e,
            Fault::Damaged(why) | Fault::Message(why) | Fault::Header(_, why) => io::Error::other(why),
            Fault::Newer(_) | Fault::TooLarge => io::Error::other("changed since it was read"),
        };
        Error::ImportRead { name: name.to_string(), source }
    };
    let mut src = Plain { inner: span.reader(), form_feed: false };
    let mut reader = format::read(&mut src).map_err(fault)?;
    let mut out = BufWriter::with_capacity(256 << 10, file);
    let form = Form::File;
    let mut put = |text: &str| out.write_all(text.as_bytes());
    let written = (|| -> std::result::Result<(), Fault> {
        put(&form.head(header))?;
        let mut at = 0;
        while let Some(m) = reader.next_message_alone()? {
            put(form.separator(at))?;
            put(&m.serialize_json())?;
            at += 1;
        }
        put(form.tail())?;
        Ok(())
    })();
    written.map_err(fault)?;
    out.flush().map_err(|e| Error::ImportRead { name: name.to_string(), source: e })
}
