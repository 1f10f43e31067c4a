//! The elements of a top-level JSON array (llm's logs, hermes's own
//! `export --format json`), read a byte at a time in bounded memory
//! whatever the input's lines (`jq -c` writes one line of a gigabyte):
//! each element handed on as validated bytes, with its offset and line.

use std::fs::File;
use std::io::{BufRead, BufReader};

use crate::error::{Error, Result};
use crate::store::MAX_SESSION_BYTES;

use super::record::{BIG_RECORD, Record, check_element, rejected};

/// One element of the top-level array: its byte offset and first line.
pub(crate) struct Element {
    pub(crate) offset: u64,
    pub(crate) line: usize,
}

/// Hand `each` every element of the top-level JSON array of `input`, as
/// validated bytes (one longer than `BIG_RECORD` as a span, which whoever
/// reads it checks: `check_element`); anything but an array of objects
/// refuses the input, naming the line where it went wrong.
pub(crate) fn for_each_element(
    input: &mut File,
    name: &str,
    kind: &str,
    mut each: impl FnMut(&Element, Record) -> Result<()>,
) -> Result<()> {
    let file: &File = input;
    let mut reader = BufReader::with_capacity(64 << 10, file);
    let mut scan = Scan { line: 1, ..Scan::default() };
    let mut element = Vec::new();
    let mut start = Element { offset: 0, line: 1 };
    loop {
        let chunk =
            reader.fill_buf().map_err(|source| Error::ImportRead { name: name.to_string(), source })?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        for &byte in chunk {
            match scan.step(byte) {
                Step::Outside => {}
                Step::Begin => {
                    start = Element { offset: scan.offset, line: scan.line };
                    element.clear();
                    element.push(byte);
                }
                Step::Inside => {
                    let len = scan.offset + 1 - start.offset;
                    if len > MAX_SESSION_BYTES {
                        return Err(rejected(
                            name,
                            start.line,
                            &format!("an entry longer than {} MiB", MAX_SESSION_BYTES >> 20),
                        ));
                    }
                    if len <= BIG_RECORD {
                        element.push(byte);
                    } else if !element.is_empty() {
                        element = Vec::new(); // read again as a span
                    }
                }
                Step::End => {
                    let len = scan.offset + 1 - start.offset;
                    if len <= BIG_RECORD {
                        element.push(byte);
                        check_element(name, start.line, &element)?;
                        each(&start, Record::Bytes(&element))?;
                    } else {
                        each(&start, Record::span(file, start.offset, len, true))?;
                    }
                }
                Step::Wrong(why) => {
                    return Err(rejected(name, scan.line, &format!("not {kind} ({why})")));
                }
            }
            scan.advance(byte);
        }
        reader.consume(n);
    }
    match scan.state {
        State::Done => Ok(()),
        State::Start => Err(rejected(name, scan.line, &format!("empty input, not {kind}"))),
        _ => Err(rejected(name, scan.line, "the array ends early (a truncated log?)")),
    }
}

#[derive(Default, PartialEq)]
enum State {
    /// Before the opening `[`.
    #[default]
    Start,
    /// Inside the array, between elements.
    Between,
    /// Inside an element: depth of nesting, in a string, after a backslash.
    Element { depth: usize, in_string: bool, escaped: bool },
    /// After the closing `]`.
    Done,
}

enum Step {
    Outside,
    Begin,
    Inside,
    End,
    Wrong(&'static str),
}

/// A byte-at-a-time splitter of the top-level array; element contents are
/// checked by `json::validate`, so this only tracks strings and nesting.
#[derive(Default)]
struct Scan {
    state: State,
    offset: u64,
    line: usize,
    /// Whether an element was seen since the last comma (or the `[`).
    after_element: bool,
    after_comma: bool,
}

impl Scan {
    fn advance(&mut self, byte: u8) {
        self.offset += 1;
        if byte == b'\n' {
            self.line += 1;
        }
    }

    fn step(&mut self, byte: u8) -> Step {
        let space = matches!(byte, b' ' | b'\t' | b'\r' | b'\n');
        match &mut self.state {
            State::Start if space => Step::Outside,
            State::Start if byte == b'[' => {
                self.state = State::Between;
                Step::Outside
            }
            State::Start => Step::Wrong("it does not start with '['"),
            State::Between if space => Step::Outside,
            State::Between if byte == b',' && self.after_element && !self.after_comma => {
                self.after_comma = true;
                Step::Outside
            }
            State::Between if byte == b']' && !self.after_comma => {
                self.state = State::Done;
                Step::Outside
            }
            State::Between if byte == b'{' && (!self.after_element || self.after_comma) => {
                self.state = State::Element { depth: 1, in_string: false, escaped: false };
                self.after_comma = false;
                Step::Begin
            }
            State::Between => Step::Wrong("expected an object, ',' or ']'"),
            State::Element { depth, in_string, escaped } => {
                if *in_string {
                    if *escaped {
                        *escaped = false;
                    } else if byte == b'\\' {
                        *escaped = true;
                    } else if byte == b'"' {
                        *in_string = false;
                    }
                    return Step::Inside;
                }
                match byte {
                    b'"' => *in_string = true,
                    b'{' | b'[' => *depth += 1,
                    b'}' | b']' => {
                        *depth -= 1;
                        if *depth == 0 {
                            self.state = State::Between;
                            self.after_element = true;
                            return Step::End;
                        }
                    }
                    _ => {}
                }
                Step::Inside
            }
            State::Done if space => Step::Outside,
            State::Done => Step::Wrong("data after the closing ']'"),
        }
    }
}
