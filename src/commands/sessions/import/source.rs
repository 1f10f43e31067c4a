//! What every import source shares: the `--from` names, the tally of what
//! was read (sessions, damaged lines, messages left out and why), reading
//! an input line by line within the size limit, recognising which tool
//! wrote a record, and the finishing touches that make any source's
//! conversation a hermes session.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};

use nanoserde::{DeJson, DeJsonErr, DeJsonState, DeJsonTok};

use crate::error::{Error, Result};
use crate::store::MAX_SESSION_BYTES;
use crate::store::json;
use crate::store::session::{self, Header, Session, TITLE_AUTO};

use super::SOURCES;
use super::record::{BIG_RECORD, Record, Span, rejected};

/// A tool whose files `import` reads (`--from`). Each source is one file
/// in this directory that defines its `SOURCE`, and one word in the
/// `sources!` line of `import/mod.rs`.
pub(crate) struct Source {
    /// Its `--from` name.
    pub(crate) name: &'static str,
    /// What a file of it is, in words: "llm's logs".
    pub(crate) kind: &'static str,
    /// Whether a JSON record is one this tool wrote, by the keys only it
    /// writes (`has` says whether a key is in the record).
    pub(crate) wrote: fn(has: HasKey) -> bool,
    /// Every session of the input, handed to `each`, and what was read.
    pub(crate) read: Reader,
    /// What a JSON array given in its place is likely to be, for a source
    /// that has its own JSON array form (hermes's `export --format json`).
    pub(crate) as_array: Option<&'static str>,
}

/// Whether a record has a key.
pub(crate) type HasKey<'a> = &'a dyn Fn(&str) -> bool;

pub(crate) type Reader =
    fn(&mut File, &str, &super::large::Checked, &mut dyn FnMut(Incoming) -> Result<()>) -> Result<Tally>;

impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// `--from`'s values: the sources' names, in the order of `SOURCES`
/// (made at compile time, for the command line's table).
pub(crate) const NAMES: &[&str] = &{
    let mut names = [""; SOURCES.len()];
    let mut i = 0;
    while i < SOURCES.len() {
        names[i] = SOURCES[i].name;
        i += 1;
    }
    names
};

/// The source named by `--from`.
pub(crate) fn named(s: &str) -> Result<&'static Source> {
    SOURCES.iter().copied().find(|source| source.name == s).ok_or_else(|| {
        Error::usage(format!(
            "sessions import: unknown --from '{}' (one of: {})",
            crate::text::printable(s, false),
            NAMES.join(", ")
        ))
    })
}

/// What reading an input found, besides its sessions.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) sessions: usize,
    /// Lines that are not JSON at all: (line number, why). Skipped.
    pub(crate) damaged: Vec<(usize, String)>,
    /// Messages the source has and hermes's format cannot hold, by reason
    /// (in the reasons' order: a handful, kept sorted as they come).
    pub(crate) left_out: Vec<(String, usize)>,
    /// How many of the `damaged` lines are not JSON at all (the others are
    /// JSON of the right kind, with a part that makes them unusable).
    pub(crate) not_json: usize,
    /// Values that make no sense where they are (a token count that is
    /// text), ignored, the rest kept: (line number, which field).
    pub(crate) ignored: Vec<(usize, &'static str)>,
}

impl Tally {
    pub(crate) fn leave_out(&mut self, why: &str, n: usize) {
        if n > 0 {
            match self.left_out.binary_search_by(|(known, _)| known.as_str().cmp(why)) {
                Ok(at) => self.left_out[at].1 += n,
                Err(at) => self.left_out.insert(at, (why.to_string(), n)),
            }
        }
    }

    /// A line that is not JSON at all, skipped.
    pub(crate) fn not_json(&mut self, line: usize, why: String) {
        self.damaged.push((line, why));
        self.not_json += 1;
    }
}

/// The error for a record that is JSON but not what `--from` says: names
/// the line, and the source it looks like, if any. Nothing is imported.
pub(crate) fn wrong_source(name: &str, line: usize, expected: &Source, record: &[u8], why: &str) -> Error {
    let hint = match sniff(record) {
        Some(other) if other != expected => format!("; {}", looks_like(other)),
        _ => String::new(),
    };
    rejected(name, line, &format!("not {} ({why}){hint}", expected.kind))
}

/// The hint for an input of another source than `--from` says.
fn looks_like(other: &Source) -> String {
    format!("it looks like {}: use --from {}", other.kind, other.name)
}

/// Which tool wrote the input, judged by the keys in its first 64 KiB (for
/// an input whose first line says little, such as a lone `[`).
pub(crate) fn sniff_head(input: &mut File) -> Option<&'static Source> {
    let mut head = Vec::new();
    input.rewind().ok()?;
    Read::by_ref(input).take(64 << 10).read_to_end(&mut head).ok()?;
    sniff(&head)
}

/// Which tool wrote a JSON record, by the keys only it writes. The last
/// listed is tried first: hermes's own keys (`format`, `messages`) may also
/// be inside another tool's record (llm's request JSON), so the default
/// source, listed first, is tried last.
pub(crate) fn sniff(record: &[u8]) -> Option<&'static Source> {
    let has = |key: &str| json::find(record, format!("\"{key}\"").as_bytes()).is_some();
    SOURCES.iter().rev().copied().find(|source| (source.wrote)(&has))
}

/// Hand `each` every non-blank line of a JSON Lines input of `expected`
/// with its number, after refusing an input that is one JSON array (llm's
/// logs, `export --format json`) at its first line, with what it looks
/// like instead.
pub(crate) fn for_each_record(
    input: &mut File,
    name: &str,
    expected: &Source,
    mut each: impl FnMut(usize, Record) -> Result<()>,
) -> Result<()> {
    let head = sniff_head(input);
    input.rewind().map_err(|e| Error::io(std::path::Path::new(name), e))?;
    // Refused by its first byte: an array written as one line (`jq -c`)
    // is never read into memory as a line.
    let first = first_byte(input).map_err(|source| Error::ImportRead { name: name.to_string(), source })?;
    if first == Some(b'[') {
        return Err(rejected(name, 1, &not_json_lines(expected, head)));
    }
    input.rewind().map_err(|e| Error::io(std::path::Path::new(name), e))?;
    for_each_line(input, name, |line_no, line| {
        if line_no == 1 && line.starts_with(b'[') {
            return Err(rejected(name, line_no, &not_json_lines(expected, head)));
        }
        each(line_no, line)
    })
}

/// The first byte of `input` from where it stands that is not JSON's
/// whitespace; None at the end. Reads a block at a time, keeping nothing.
pub(crate) fn first_byte(input: &mut File) -> std::io::Result<Option<u8>> {
    let mut reader = BufReader::new(Read::by_ref(input));
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            return Ok(None);
        }
        if let Some(&b) = block.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            return Ok(Some(b));
        }
        let n = block.len();
        reader.consume(n);
    }
}

/// Why an input of `expected` that is a JSON array is refused; `head` is
/// what `sniff_head` made of it.
fn not_json_lines(expected: &Source, head: Option<&Source>) -> String {
    match (expected.as_array, head) {
        (Some(_), Some(other)) if other != expected => {
            format!("a JSON array, not JSON Lines; {}", looks_like(other))
        }
        (Some(array), _) => array.to_string(),
        (_, Some(other)) if other != expected => {
            format!("a JSON array, not the JSON Lines of {}; {}", expected.kind, looks_like(other))
        }
        _ => format!("a JSON array, not the JSON Lines of {}", expected.kind),
    }
}

/// Hand `each` every non-blank line of a JSON Lines input with its number
/// (without the blanks around it; one longer than `BIG_RECORD` as a
/// span); a line over the session size limit refuses the whole input.
fn for_each_line(
    input: &mut File,
    name: &str,
    mut each: impl FnMut(usize, Record) -> Result<()>,
) -> Result<()> {
    let file: &File = input;
    let mut reader = BufReader::new(file);
    let read_error = |source| Error::ImportRead { name: name.to_string(), source };
    let mut line = Vec::new();
    let (mut line_no, mut at) = (0usize, 0u64);
    loop {
        line.clear();
        // The line held while it is short; its length, and where its
        // first and last bytes that are not blank are, in any case.
        let (start, mut ended, mut solid, mut solid_end) = (at, false, None, 0);
        while !ended {
            let chunk = reader.fill_buf().map_err(read_error)?;
            if chunk.is_empty() {
                break;
            }
            let (part, newline) = match crate::sys::find_byte(chunk, b'\n') {
                Some(end) => (&chunk[..=end], true),
                None => (chunk, false),
            };
            if solid.is_none() {
                solid = part.iter().position(|b| !b.is_ascii_whitespace()).map(|p| at + p as u64);
            }
            if let Some(last) = part.iter().rposition(|b| !b.is_ascii_whitespace()) {
                solid_end = at + last as u64 + 1;
            }
            if at - start <= BIG_RECORD {
                line.extend_from_slice(part);
            }
            let n = part.len();
            at += n as u64;
            ended = newline;
            reader.consume(n);
            if at - start > MAX_SESSION_BYTES {
                return Err(rejected(
                    name,
                    line_no + 1,
                    &format!("line longer than {} MiB", MAX_SESSION_BYTES >> 20),
                ));
            }
        }
        if at == start {
            return Ok(());
        }
        line_no += 1;
        let Some(solid) = solid else { continue }; // a blank line
        if at - start <= BIG_RECORD {
            each(line_no, Record::Bytes(line.trim_ascii()))?;
        } else {
            line = Vec::new(); // not held while the span is read
            each(line_no, Record::span(file, solid, solid_end - solid, false))?;
        }
    }
}

/// A session read from an input, and, when its ID was made up from the
/// source's own ID (which is not of hermes's shape), that source ID. A
/// session too long to hold (`large`) comes without its messages: what
/// they hold, and where to read them as it is written.
pub(crate) struct Incoming<'a> {
    pub(crate) session: Session,
    pub(crate) derived_from: Option<String>,
    pub(crate) large: Option<(super::large::Large, Span<'a>)>,
}

impl Incoming<'_> {
    pub(crate) fn own(session: Session) -> Incoming<'static> {
        Incoming { session, derived_from: None, large: None }
    }
}

/// A session ID for a conversation whose own ID is not hermes's shape: its
/// start time (UTC, so the same on every machine) and a hash of the source
/// ID, so that importing the same file again finds it already there. Six
/// hex digits collide (two conversations started in one second, one in
/// several thousand times): `attempt` 1, 2... gives the next IDs to try.
pub(crate) fn derived_id(started: f64, source_id: &str, attempt: u32) -> String {
    let (y, mo, d, h, mi, s) = crate::time::utc_civil(started.max(0.0));
    let mut key = source_id.as_bytes().to_vec();
    if attempt > 0 {
        key.extend_from_slice(format!("\0{attempt}").as_bytes());
    }
    let hash = crate::hash::fnv1a(&key) & 0xff_ffff;
    format!("{y:04}{mo:02}{d:02}_{h:02}{mi:02}{s:02}_{hash:06x}")
}

/// The last touches any source's session needs: an automatic title from
/// its first user message when the source gave none (a system prompt
/// before it keeps `note_message` from doing so).
pub(crate) fn finish(session: &mut Session) {
    let first_user = session.messages.iter().find(|m| m.role == "user");
    title_from_first_user(&mut session.header, first_user.and_then(|m| session::clean_title(&m.content)));
}

/// `finish`, given the title the first user message gives.
pub(crate) fn title_from_first_user(h: &mut Header, title: Option<String>) {
    if h.title.is_empty()
        && let Some(title) = title
    {
        h.title = title;
        h.title_source = TITLE_AUTO.to_string();
    }
}

/// A message's content as a source may hold it: text, nothing, or
/// something else (a list of parts, an object) hermes cannot show.
#[derive(Default)]
pub(crate) enum Content {
    Text(String),
    #[default]
    Missing,
    Other,
}

impl DeJson for Content {
    fn de_json(s: &mut DeJsonState, i: &mut std::str::Chars) -> std::result::Result<Content, DeJsonErr> {
        match s.tok {
            DeJsonTok::Str => {
                let text = s.as_string()?;
                s.next_tok(i)?;
                Ok(Content::Text(text))
            }
            DeJsonTok::Null => {
                s.next_tok(i)?;
                Ok(Content::Missing)
            }
            _ => {
                s.whole_field(i)?;
                Ok(Content::Other)
            }
        }
    }
}

/// How many entries a list field holds (tool calls, attachments): a JSON
/// array counts its elements; null, `""` and `"[]"` are none; any other
/// value (a JSON string of calls, an object) counts as one.
#[derive(Default)]
pub(crate) struct Count(pub usize);

impl DeJson for Count {
    fn de_json(s: &mut DeJsonState, i: &mut std::str::Chars) -> std::result::Result<Count, DeJsonErr> {
        match s.tok {
            DeJsonTok::Null => {
                s.next_tok(i)?;
                Ok(Count(0))
            }
            DeJsonTok::BlockOpen => {
                let mut n = 0;
                s.block_open(i)?;
                while s.tok != DeJsonTok::BlockClose {
                    s.whole_field(i)?;
                    s.eat_comma_block(i)?;
                    n += 1;
                }
                s.block_close(i)?;
                Ok(Count(n))
            }
            DeJsonTok::Str => {
                let text = s.as_string()?;
                s.next_tok(i)?;
                let text = text.trim();
                Ok(Count(usize::from(!(text.is_empty() || text == "[]" || text == "null"))))
            }
            _ => {
                s.whole_field(i)?;
                Ok(Count(1))
            }
        }
    }
}

/// A yes/no a source may write as a boolean or a number: false only for
/// `false` and `0`; absent is true.
pub(crate) struct JsonBool(pub bool);

impl Default for JsonBool {
    fn default() -> JsonBool {
        JsonBool(true)
    }
}

impl DeJson for JsonBool {
    fn de_json(s: &mut DeJsonState, i: &mut std::str::Chars) -> std::result::Result<JsonBool, DeJsonErr> {
        let value = match s.tok {
            DeJsonTok::Bool(b) => b,
            DeJsonTok::U64(n) => n != 0,
            DeJsonTok::I64(n) => n != 0,
            DeJsonTok::F64(n) => n != 0.0,
            _ => true,
        };
        s.whole_field(i)?;
        Ok(JsonBool(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_have_the_hermes_shape_and_are_stable() {
        let id = derived_id(1_796_226_007.5, "01m8vpkgfnjwmextv2tgadxhtm", 0);
        assert!(session::is_valid_id(&id), "{id}");
        assert!(id.starts_with("20261202_154007_"), "{id}");
        assert_eq!(id, derived_id(1_796_226_007.5, "01m8vpkgfnjwmextv2tgadxhtm", 0));
        assert_ne!(id, derived_id(1_796_226_007.5, "01m8vpkgfnjwmextv2tgadxhtn", 0));
        assert_ne!(id, derived_id(1_796_226_007.5, "01m8vpkgfnjwmextv2tgadxhtm", 1));
    }

    #[test]
    fn sniffs_each_source() {
        let sniffed = |record: &[u8]| sniff(record).map(|source| source.name);
        assert_eq!(sniffed(br#"{"conversation_id":"x","datetime_utc":"y"}"#), Some("llm"));
        assert_eq!(sniffed(br#"{"id":"x","started_at":1,"messages":[]}"#), Some("hermes-agent"));
        assert_eq!(sniffed(br#"{"format":1,"id":"x","messages":[]}"#), Some("hermes"));
        assert_eq!(sniff(br#"{"a":1}"#), None);
    }

    #[test]
    fn from_names_every_source_in_order() {
        assert_eq!(NAMES, ["hermes", "hermes-agent", "llm"]);
        assert_eq!(named("llm").unwrap().name, "llm");
        assert!(named("aichat").is_err());
    }

    #[derive(DeJson)]
    struct Probe {
        #[nserde(default)]
        calls: Count,
        #[nserde(default)]
        content: Content,
        #[nserde(default)]
        active: JsonBool,
    }

    #[test]
    fn counts_lists_and_reads_loose_fields() {
        let p: Probe =
            json::parse(br#"{"calls":[{"a":[1,2]},{"b":null}],"content":[{"type":"text"}],"active":0}"#)
                .unwrap();
        assert_eq!(p.calls.0, 2);
        assert!(matches!(p.content, Content::Other));
        assert!(!p.active.0);
        let p: Probe = json::parse(br#"{"calls":"[]","content":"hi"}"#).unwrap();
        assert_eq!(p.calls.0, 0);
        assert!(matches!(p.content, Content::Text(ref t) if t == "hi"));
        assert!(p.active.0);
    }
}
