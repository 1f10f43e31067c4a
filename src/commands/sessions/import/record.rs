//! One record of an input (a line of JSON Lines, or an element of a
//! top-level JSON array): its bytes, or, when it is longer than
//! `BIG_RECORD`, where it lies, read back whole or as a stream. An input
//! is refused whole at a record's line (`rejected`): one with an array
//! element that is not JSON, say (`check_element`).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;

use crate::error::{Error, Result};
use crate::store::json;

/// Records over this many bytes are not read into memory whole: hermes's
/// own sessions are read from the input as streams (see `large`), other
/// records whole when they are used (`Record::bytes`).
pub(crate) const BIG_RECORD: u64 = 4 << 20;

/// One record of an input (a line, or an element of a JSON array): its
/// bytes, or, when it is longer than `BIG_RECORD`, where it lies.
pub(crate) enum Record<'a> {
    Bytes(&'a [u8]),
    Span(Span<'a>),
}

/// A record too long to hold: where it lies in the input.
#[derive(Clone, Copy)]
pub(crate) struct Span<'a> {
    file: &'a File,
    pub(crate) offset: u64,
    pub(crate) len: u64,
    /// An element of a JSON array, which must be valid JSON (see
    /// `check_element`); a line is judged by its source.
    element: bool,
}

impl<'a> Record<'a> {
    pub(crate) fn span(file: &'a File, offset: u64, len: u64, element: bool) -> Record<'a> {
        Record::Span(Span { file, offset, len, element })
    }

    /// Its bytes, a span read into memory (an element checked as one read
    /// whole is, its first `line` named if it is not JSON).
    pub(crate) fn bytes(&self, name: &str, line: usize) -> Result<std::borrow::Cow<'a, [u8]>> {
        match self {
            Record::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            Record::Span(span) => {
                let mut bytes = vec![0; span.len as usize];
                span.file
                    .read_exact_at(&mut bytes, span.offset)
                    .map_err(|source| Error::ImportRead { name: name.to_string(), source })?;
                if span.element {
                    check_element(name, line, &bytes)?;
                }
                Ok(std::borrow::Cow::Owned(bytes))
            }
        }
    }

    /// Whether it starts with `byte`.
    pub(crate) fn starts_with(&self, byte: u8) -> bool {
        match self {
            Record::Bytes(bytes) => bytes.first() == Some(&byte),
            Record::Span(span) => {
                let mut first = [0u8];
                span.file.read_exact_at(&mut first, span.offset).is_ok() && first[0] == byte
            }
        }
    }
}

impl Span<'_> {
    /// Its bytes, read as a stream (from its place: the input's own
    /// position is not moved).
    pub(crate) fn reader(&self) -> impl Read + '_ {
        struct At<'f>(&'f File, u64, u64);
        impl Read for At<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let want = buf.len().min((self.2 - self.1) as usize);
                let n = self.0.read_at(&mut buf[..want], self.1)?;
                self.1 += n as u64;
                Ok(n)
            }
        }
        At(self.file, self.offset, self.offset + self.len)
    }
}

/// An element of a JSON array must be JSON: else the input is refused,
/// naming the element's first line.
pub(crate) fn check_element(name: &str, line: usize, bytes: &[u8]) -> Result<()> {
    json::validate(bytes).map_err(|why| rejected(name, line, &format!("damaged entry ({why})")))
}

/// An input refused whole, at `line`.
pub(crate) fn rejected(name: &str, line: usize, why: &str) -> Error {
    Error::ImportRejected { name: name.to_string(), line, why: why.to_string() }
}
