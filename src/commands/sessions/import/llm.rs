//! llm's logs (`llm logs list --json -n 0`): one JSON array of exchanges, a
//! prompt and its response each, grouped into conversations by
//! `conversation_id`. The array is read element by element (a 1 GiB log
//! never sits in memory whole): a first pass notes where each exchange is,
//! then each conversation's exchanges are read back and made one session.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use nanoserde::{DeJson, DeJsonErr, DeJsonState, DeJsonTok};

use crate::error::{Error, Result};
use crate::store::json;
use crate::store::session::{Header, Message, Session, TITLE_AUTO, Usage};

use super::large::Checked;
use super::source::{self, Count, Incoming, Source, Tally};
use super::times;

#[derive(DeJson)]
struct Exchange {
    #[nserde(default)]
    id: Option<String>,
    #[nserde(default)]
    conversation_id: Option<String>,
    #[nserde(default)]
    conversation_name: Option<String>,
    #[nserde(default)]
    prompt: Option<String>,
    #[nserde(default)]
    system: Option<String>,
    #[nserde(default)]
    response: Option<String>,
    /// The model that answered: the session keeps the last one's.
    #[nserde(default)]
    model: Option<String>,
    datetime_utc: String,
    #[nserde(default)]
    duration_ms: Option<f64>,
    #[nserde(default)]
    tool_calls: Count,
    #[nserde(default)]
    tool_results: Count,
    #[nserde(default)]
    attachments: Count,
    /// The model's reasoning text, when it gave one.
    #[nserde(default)]
    reasoning: Count,
    /// Text llm added to the prompt and the system prompt from stored
    /// fragments; `prompt` and `system` do not hold it.
    #[nserde(default)]
    prompt_fragments: Count,
    #[nserde(default)]
    system_fragments: Count,
    /// The tokens the model counted (null when it did not say): kept as
    /// the reply's usage.
    #[nserde(default)]
    input_tokens: Tokens,
    #[nserde(default)]
    output_tokens: Tokens,
}

impl Exchange {
    /// The tokens of its reply, when llm logged some.
    fn usage(&self) -> Option<Usage> {
        match (self.input_tokens.count, self.output_tokens.count) {
            (None, None) => None,
            (input, output) => Some(Usage::new(input.unwrap_or(0), output.unwrap_or(0), None)),
        }
    }

    /// Its token counts that are no count (see `Tokens`).
    fn odd_counts(&self) -> impl Iterator<Item = &'static str> {
        [("input_tokens", &self.input_tokens), ("output_tokens", &self.output_tokens)]
            .into_iter()
            .filter(|(_, tokens)| tokens.odd)
            .map(|(field, _)| field)
    }
}

/// A token count as llm logs it: a whole number, or null. Anything else (a
/// text, a negative, fractional or huge number, a list) is odd: that count
/// is ignored, not the log.
#[derive(Default)]
struct Tokens {
    count: Option<u64>,
    odd: bool,
}

impl DeJson for Tokens {
    fn de_json(s: &mut DeJsonState, i: &mut std::str::Chars) -> std::result::Result<Tokens, DeJsonErr> {
        let tokens = match s.tok {
            DeJsonTok::Null => Tokens::default(),
            DeJsonTok::U64(n) => Tokens { count: Some(n), odd: false },
            DeJsonTok::F64(n) if n.fract() == 0.0 && (0.0..9e15).contains(&n) => {
                Tokens { count: Some(n as u64), odd: false }
            }
            _ => Tokens { count: None, odd: true },
        };
        s.whole_field(i)?;
        Ok(tokens)
    }
}

/// Where one exchange lies in the input, when it happened, and which
/// conversation it is in (their number, in order of first appearance):
/// 32 bytes, the whole of what is kept of an exchange between the passes.
struct Place {
    ts: f64,
    offset: u64,
    len: u32,
    line: u32,
    conversation: u32,
}

/// A conversation's key between the passes: a hash of its ID, not the ID
/// (which the second pass reads again, and which tells apart two
/// conversations whose hashes collide).
fn conversation_key(id: &str) -> u64 {
    crate::hash::fnv1a(id.as_bytes())
}

/// Time and memory linear in the number of exchanges, at 32 bytes an
/// exchange and about 30 a conversation while the input is read (one flat
/// list, sorted once: no allocation per conversation), plus one
/// conversation's bytes at a time; nothing grows with the size of their
/// texts.
pub(crate) const SOURCE: Source = Source {
    name: "llm",
    kind: "llm's logs",
    wrote: |has| has("conversation_id") && has("datetime_utc"),
    read,
    as_array: None,
};

fn read(
    input: &mut File,
    name: &str,
    _: &Checked,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<Tally> {
    let io_error = |source: std::io::Error| Error::ImportRead { name: name.to_string(), source };
    // Pass over the array: every exchange checked, its place noted with
    // its conversation's number, conversations numbered in order of first
    // appearance.
    // u64 values: the one map of `taken`'s kind, not a second (smaller).
    let mut numbers: HashMap<u64, u64> = HashMap::new();
    let mut places: Vec<Place> = Vec::new();
    let mut tally = Tally::default();
    if let Some(wrong) = not_an_array(input, name)? {
        return Err(wrong);
    }
    input.rewind().map_err(io_error)?;
    super::array::for_each_element(input, name, SOURCE.kind, |element, record| {
        let bytes = &*record.bytes(name, element.line)?;
        let exchange = parse(name, element.line, bytes)?;
        tally.ignored.extend(exchange.odd_counts().map(|field| (element.line, field)));
        let conversation = exchange.conversation_id.or(exchange.id).unwrap_or_default();
        let ts = crate::time::parse_rfc3339(&exchange.datetime_utc).ok_or_else(|| {
            // A date that is none (30 February, an offset of +99:00) as
            // well as one written otherwise.
            let why = format!(
                "datetime_utc {} is not a valid RFC 3339 date and time",
                crate::text::clipped(&exchange.datetime_utc)
            );
            source::wrong_source(name, element.line, &SOURCE, bytes, &why)
        })?;
        if !times::sane_time(ts) {
            tally.damaged.push((
                element.line,
                format!(
                    "datetime_utc {} is not {}",
                    crate::text::clipped(&exchange.datetime_utc),
                    times::TIME_RANGE
                ),
            ));
            return Ok(());
        }
        let next = numbers.len() as u64;
        places.push(Place {
            ts,
            offset: element.offset,
            len: bytes.len() as u32,
            line: u32::try_from(element.line).unwrap_or(u32::MAX),
            conversation: *numbers.entry(conversation_key(&conversation)).or_insert(next) as u32,
        });
        Ok(())
    })?;
    drop(numbers);
    // Each conversation's exchanges together, in order of time (of place
    // in the input for equal times), conversations in order of appearance.
    crate::order::sort_by(&mut places, |a, b| {
        (a.conversation.cmp(&b.conversation)).then(a.ts.total_cmp(&b.ts)).then(a.offset.cmp(&b.offset))
    });
    let mut bytes = Vec::new();
    for exchanges in places.chunk_by(|a, b| a.conversation == b.conversation) {
        let groups = read_back(input, name, exchanges, &mut bytes)?;
        for (conversation, read_back) in groups {
            let session = convert(&conversation, read_back, &mut tally);
            tally.sessions += 1;
            each(Incoming { session, derived_from: Some(conversation), large: None })?;
        }
    }
    Ok(tally)
}

/// A conversation's real ID and its exchanges with their times.
type Conversation = (String, Vec<(f64, Exchange)>);

/// The exchanges at `places`, read back and grouped by their
/// conversation's real ID: those whose hashes collided become their own
/// sessions again.
fn read_back(
    input: &mut File,
    name: &str,
    places: &[Place],
    bytes: &mut Vec<u8>,
) -> Result<Vec<Conversation>> {
    let io_error = |source: std::io::Error| Error::ImportRead { name: name.to_string(), source };
    let mut groups: Vec<Conversation> = Vec::new();
    for place in places {
        input.seek(SeekFrom::Start(place.offset)).map_err(io_error)?;
        bytes.resize(place.len as usize, 0);
        input.read_exact(bytes).map_err(io_error)?;
        let mut exchange = parse(name, place.line as usize, bytes)?;
        let conversation = exchange.conversation_id.take().or_else(|| exchange.id.clone())
            .unwrap_or_default();
        match groups.iter_mut().find(|(c, _)| *c == conversation) {
            Some((_, group)) => group.push((place.ts, exchange)),
            None => groups.push((conversation, vec![(place.ts, exchange)])),
        }
    }
    Ok(groups)
}

fn parse(name: &str, line: usize, bytes: &[u8]) -> Result<Exchange> {
    json::parse(bytes).map_err(|why| source::wrong_source(name, line, &SOURCE, bytes, &why))
}

fn convert(conversation: &str, exchanges: Vec<(f64, Exchange)>, tally: &mut Tally) -> Session {
    let started = exchanges.first().map_or(0.0, |(ts, _)| *ts);
    let id = source::derived_id(started, conversation, 0);
    let mut header = Header::new(id, String::new(), started);
    if let Some(name) =
        exchanges.iter().find_map(|(_, e)| e.conversation_name.clone()).filter(|n| !n.trim().is_empty())
    {
        header.title = name;
        header.title_source = TITLE_AUTO.to_string();
    }
    let mut messages = Vec::with_capacity(exchanges.len() * 2 + 1);
    let mut system_now: Option<String> = None;
    for (ts, e) in exchanges {
        // Cleaned, if need be, with the other sources' (`import::Cleaned`).
        if let Some(model) = e.model.clone().filter(|m| !m.trim().is_empty()) {
            header.model = Some(model);
        }
        let usage = e.usage();
        tally.leave_out("tool calls", e.tool_calls.0);
        tally.leave_out("tool results", e.tool_results.0);
        tally.leave_out("attachments", e.attachments.0);
        tally.leave_out("reasoning texts", e.reasoning.0);
        tally.leave_out("prompt fragments", e.prompt_fragments.0);
        tally.leave_out("system prompt fragments", e.system_fragments.0);
        // A system prompt is said once, and again only where it changes.
        if let Some(system) = e.system.filter(|s| !s.trim().is_empty())
            && system_now.as_ref() != Some(&system)
        {
            messages.push(Message::new("system", system.clone(), ts));
            system_now = Some(system);
        }
        if let Some(prompt) = e.prompt.filter(|p| !p.is_empty()) {
            messages.push(Message::new("user", prompt, ts));
        }
        if let Some(response) = e.response.filter(|r| !r.is_empty()) {
            // The reply came when the exchange ended; never before its prompt.
            // A duration past a year is no duration (and could carry the
            // time past year 9999).
            let took = e.duration_ms.filter(|d| (0.0..=3.2e10).contains(d)).unwrap_or(0.0) / 1000.0;
            messages.push(Message { usage, ..Message::new("assistant", response, ts + took) });
        }
    }
    for m in &messages {
        header.note_message(m);
    }
    let mut session = Session { header, messages };
    source::finish(&mut session);
    session
}

/// When the input is not an array at all, what it looks like instead (a
/// JSON Lines export of hermes or the Python Hermes), judged by its first
/// line. Only its first non-blank byte is read when that is the `[` of an
/// array (whose first line may be the whole log, `jq -c` writes one line),
/// and at most 64 KiB of the first line otherwise.
fn not_an_array(input: &mut File, name: &str) -> Result<Option<Error>> {
    let io_error = |source: std::io::Error| Error::ImportRead { name: name.to_string(), source };
    input.rewind().map_err(io_error)?;
    match source::first_byte(input).map_err(io_error)? {
        None | Some(b'[') => return Ok(None),
        Some(_) => {}
    }
    input.rewind().map_err(io_error)?;
    let mut reader = BufReader::new(Read::by_ref(input));
    let mut first = Vec::new();
    Read::by_ref(&mut reader).take(SNIFFED).read_until(b'\n', &mut first).map_err(io_error)?;
    Ok(Some(source::wrong_source(name, 1, &SOURCE, first.trim_ascii(), "a JSON array was expected")))
}

/// How much of a first line that is not an array is read to tell what it is.
const SNIFFED: u64 = 64 << 10;

