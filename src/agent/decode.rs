//! Decoding an agent's output into its reply, as it arrives: plain text,
//! an OpenAI chat-completion object, or an OpenAI server-sent-event stream.
//! Agent output is the most hostile input hermes reads: any bytes, in any
//! pieces, decode to a bounded reply or to `TooLarge`, never a panic.

use crate::store::json;
use crate::store::session::{MAX_MESSAGE_BYTES, Usage};

use nanoserde::DeJson;

/// The most agent output held undecoded (one unterminated SSE line, or a
/// whole JSON object): room for a reply at the store's limit, and escapes.
pub const PENDING_LIMIT: usize = MAX_MESSAGE_BYTES + (1 << 20);

#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub enum Form {
    #[default]
    Undecided,
    Text,
    Json,
    Sse,
}

/// Incremental decoder of agent output. `feed` returns what to show now.
#[derive(Default)]
pub struct Decoder {
    form: Form,
    pending: Vec<u8>,
    /// How much of `pending` was searched already, so that a long line (or
    /// a long blank start) arriving in pieces is not searched again from its
    /// start: for SSE the part known to hold no line end, while undecided
    /// the part known to be whitespace.
    scanned: usize,
    text: Vec<u8>,
    error: Option<String>,
    /// SSE `data:` events that were not JSON, skipped.
    malformed: usize,
    /// SSE: `data: [DONE]` came; what follows is not read.
    done: bool,
    /// The tokens the server counted, when it said (the last event or
    /// object that did).
    usage: Option<Usage>,
    /// A count that was no whole number hermes keeps exactly: left out.
    odd_count: bool,
}

/// The agent wrote more than a reply may hold (`MAX_MESSAGE_BYTES` decoded,
/// `PENDING_LIMIT` undecoded): decoding stopped, nothing is to be saved.
#[derive(Debug, PartialEq)]
pub struct TooLarge;

pub struct Finished {
    pub text: String,
    pub shown: Vec<u8>,
    pub error: Option<String>,
    /// SSE `data:` events that were not JSON, skipped.
    pub malformed: usize,
    /// The tokens the server counted, when it said.
    pub usage: Option<Usage>,
    /// A count was left out: it was no whole number (said once).
    pub odd_count: bool,
}

// nanoserde's derived `DeJson` unwraps fields with a `match` clippy would
// write with `?` (clippy::question_mark); the derived impl is a sibling of
// the struct, out of reach of an attribute on it, so the allow is on this
// module, which holds only the derived types (`pub` in it: the derive
// refuses `pub(super)`).
#[allow(clippy::question_mark)]
mod wire {
    use super::*;

    #[derive(DeJson)]
    pub struct Completion {
        #[nserde(default)]
        pub choices: Vec<Choice>,
        #[nserde(default)]
        pub error: Option<ApiError>,
    }

    #[derive(DeJson)]
    pub struct Choice {
        #[nserde(default)]
        pub message: Option<Content>,
        #[nserde(default)]
        pub delta: Option<Content>,
    }

    #[derive(DeJson)]
    pub struct Content {
        #[nserde(default)]
        pub content: Option<String>,
    }

    #[derive(DeJson)]
    pub struct ApiError {
        #[nserde(default)]
        pub message: Option<String>,
    }
}
use wire::Completion;

/// An event or object as a reply's piece. Its `usage` is read apart (see
/// `usage_in`): a count nanoserde cannot hold (past 64 bits) must not
/// lose the piece, so that object is put aside when the whole fails.
fn parse_completion(bytes: &[u8]) -> Option<Completion> {
    json::parse(bytes).ok().or_else(|| {
        let members = json::members(bytes)?;
        let (_, at) = members.iter().find(|(key, _)| *key == b"usage")?;
        let without = [&bytes[..at.start], b"null", &bytes[at.end..]].concat();
        json::parse(&without).ok()
    })
}

/// The `usage` an event or object carries, if it has one that holds a
/// count (a stream that asked for usage has `"usage":null` in every
/// event), and whether a count in it was not a whole number hermes can
/// keep exactly (then left out).
pub fn usage_in(bytes: &[u8]) -> (Option<Usage>, bool) {
    if json::find(bytes, b"\"usage\"").is_none() {
        return (None, false);
    }
    let Some(members) = json::members(bytes) else { return (None, false) };
    match members.iter().find(|(key, _)| *key == b"usage") {
        Some((_, at)) => counted(&bytes[at.clone()]),
        None => (None, false),
    }
}

/// A side channel's usage (see `agent::UsageFile`): an object with
/// `usage`, as a server sends it, or the counts alone.
pub fn usage_reported(bytes: &[u8]) -> Option<Usage> {
    match usage_in(bytes) {
        (Some(usage), _) => Some(usage),
        _ => counted(bytes).0,
    }
}

/// The counts of a `usage` object exactly as the server wrote them
/// (OpenAI's names, and the `input_tokens`/`output_tokens` of newer APIs):
/// each an unsigned integer that fits 64 bits. A count of another kind (a
/// fraction, a sign, an exponent, a string, too large) makes the whole
/// object odd: none of it is kept (a count put at 0 would be a lie). None
/// when nothing was counted.
fn counted(object: &[u8]) -> (Option<Usage>, bool) {
    let Some(members) = json::members(object) else { return (None, false) };
    let mut odd = false;
    let mut count = |name: &[u8]| {
        let (_, at) = members.iter().find(|(key, _)| *key == name)?;
        let raw = &object[at.clone()];
        if raw == b"null" {
            return None;
        }
        let exact = raw.iter().all(u8::is_ascii_digit) && (raw.len() == 1 || raw[0] != b'0');
        let value = std::str::from_utf8(raw).ok().filter(|_| exact).and_then(|t| t.parse::<u64>().ok());
        odd |= value.is_none();
        value
    };
    let prompt = count(b"prompt_tokens").or_else(|| count(b"input_tokens"));
    let completion = count(b"completion_tokens").or_else(|| count(b"output_tokens"));
    let total = count(b"total_tokens");
    if odd || (prompt.is_none() && completion.is_none() && total.is_none()) {
        return (None, odd);
    }
    (Some(Usage::new(prompt.unwrap_or(0), completion.unwrap_or(0), total)), odd)
}

/// The message of an error a server answered with: OpenAI's `{"error":
/// {"message": ...}}`, or an `error`, `detail` or `message` string.
pub(crate) fn error_message(body: &[u8]) -> Option<String> {
    let members = json::members(body)?;
    let string = |at: &std::ops::Range<usize>| json::parse::<String>(&body[at.clone()]).ok();
    for (key, at) in &members {
        match *key {
            b"error" if body[at.start] == b'{' => {
                let inner = &body[at.clone()];
                let message = json::members(inner)?.into_iter().find(|(k, _)| *k == b"message");
                if let Some((_, m)) = message {
                    return json::parse::<String>(&inner[m]).ok();
                }
            }
            b"error" | b"detail" | b"message" if body[at.start] == b'"' => return string(at),
            _ => {}
        }
    }
    None
}

/// Which form the output takes, from its first bytes after any leading
/// whitespace; Undecided while too few have come to tell.
fn decide(rest: &[u8]) -> Form {
    if rest.is_empty() {
        Form::Undecided
    } else if rest.starts_with(b"{") {
        Form::Json
    } else if rest.len() < 5 && b"data:".starts_with(rest) {
        Form::Undecided
    } else if rest.starts_with(b"data:") || rest.starts_with(b"event:") || rest.starts_with(b":") {
        Form::Sse
    } else {
        Form::Text
    }
}

/// The reply as saved: valid UTF-8 (each bad sequence U+FFFD), trailing
/// whitespace trimmed, within the store's limit.
fn reply_text(bytes: Vec<u8>) -> Result<String, TooLarge> {
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // Each U+FFFD takes three bytes: check the size before building.
            let bytes = e.into_bytes();
            let size: usize = bytes
                .utf8_chunks()
                .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
                .sum();
            if size > MAX_MESSAGE_BYTES {
                return Err(TooLarge);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    text.truncate(text.trim_end().len());
    Ok(text)
}

impl Decoder {
    /// The form the output was found to take, so far.
    pub fn form(&self) -> Form {
        self.form
    }

    /// Bytes held undecoded, and bytes of reply kept: both bounded.
    pub fn held(&self) -> (usize, usize) {
        (self.pending.len(), self.text.len())
    }

    /// Take the next piece of output; returns what to show now.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<u8>, TooLarge> {
        if self.done {
            return Ok(Vec::new());
        }
        self.pending.extend_from_slice(chunk);
        if self.form == Form::Undecided {
            // Leading whitespace is looked at once, however slowly it comes.
            let blank = self.pending[self.scanned..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map_or(self.pending.len(), |at| self.scanned + at);
            self.form = decide(&self.pending[blank..]);
            self.scanned = if self.form == Form::Undecided { blank } else { 0 };
        }
        let shown = match self.form {
            Form::Text => {
                let shown = std::mem::take(&mut self.pending);
                self.keep(&shown)?;
                shown
            }
            Form::Sse => self.sse_lines(false)?,
            Form::Json | Form::Undecided => Vec::new(),
        };
        if self.pending.len() > PENDING_LIMIT {
            return Err(TooLarge);
        }
        Ok(shown)
    }

    /// Add decoded bytes to the reply, unless that would pass the limit.
    fn keep(&mut self, piece: &[u8]) -> Result<(), TooLarge> {
        if self.text.len() + piece.len() > MAX_MESSAGE_BYTES {
            return Err(TooLarge);
        }
        self.text.extend_from_slice(piece);
        Ok(())
    }

    fn sse_lines(&mut self, at_end: bool) -> Result<Vec<u8>, TooLarge> {
        let mut shown = Vec::new();
        let mut start = 0; // where the next line begins in pending
        loop {
            let from = start.max(self.scanned);
            let line_end = self.pending[from..].iter().position(|&b| b == b'\n').map(|at| from + at);
            let line = match line_end {
                Some(end) => {
                    let line = start..end;
                    start = end + 1;
                    line
                }
                None if at_end && start < self.pending.len() => {
                    let line = start..self.pending.len();
                    start = self.pending.len();
                    line
                }
                None => break,
            };
            let line = &self.pending[line];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.strip_prefix(b" ").unwrap_or(data);
            if data == b"[DONE]" {
                // The end of the stream, whatever follows.
                self.done = true;
                start = self.pending.len();
                break;
            }
            let (usage, odd) = usage_in(data);
            self.odd_count |= odd;
            if usage.is_some() {
                self.usage = usage;
            }
            match parse_completion(data) {
                Some(c) => {
                    if let Some(e) = c.error {
                        self.error = Some(e.message.unwrap_or_else(|| "unknown error".into()));
                    }
                    for choice in c.choices.into_iter().take(1) {
                        let piece = choice.delta.or(choice.message).and_then(|d| d.content);
                        if let Some(piece) = piece {
                            shown.extend_from_slice(piece.as_bytes());
                        }
                    }
                }
                None => self.malformed += 1,
            }
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        self.keep(&shown)?;
        Ok(shown)
    }

    /// Whether an SSE stream has ended (`data: [DONE]`): the reply is
    /// whole, whatever the agent does next.
    pub fn is_done(&self) -> bool {
        self.done
    }

    pub fn finish(mut self) -> Result<Finished, TooLarge> {
        let mut shown = match self.form {
            Form::Sse => self.sse_lines(true)?,
            Form::Json => {
                let raw = std::mem::take(&mut self.pending);
                (self.usage, self.odd_count) = usage_in(&raw);
                match parse_completion(&raw) {
                    Some(c) if c.error.is_some() || !c.choices.is_empty() => {
                        drop(raw);
                        if let Some(e) = c.error {
                            self.error = Some(e.message.unwrap_or_else(|| "unknown error".into()));
                        }
                        let content = c
                            .choices
                            .into_iter()
                            .next()
                            .and_then(|ch| ch.message.or(ch.delta))
                            .and_then(|m| m.content)
                            .unwrap_or_default();
                        self.keep(content.as_bytes())?;
                        let mut shown = content.into_bytes();
                        if !shown.is_empty() && !shown.ends_with(b"\n") {
                            shown.push(b'\n');
                        }
                        shown
                    }
                    // JSON of another shape, or not JSON after all: plain text.
                    _ => {
                        self.usage = None;
                        self.keep(&raw)?;
                        raw
                    }
                }
            }
            Form::Text | Form::Undecided => {
                let shown = std::mem::take(&mut self.pending);
                self.keep(&shown)?;
                shown
            }
        };
        if self.form == Form::Sse && !self.text.is_empty() && !self.text.ends_with(b"\n") {
            shown.push(b'\n');
        }
        let text = reply_text(self.text)?;
        Ok(Finished {
            text,
            shown,
            error: self.error,
            malformed: self.malformed,
            usage: self.usage,
            odd_count: self.odd_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> (String, Vec<u8>) {
        let mut d = Decoder::default();
        let mut shown = Vec::new();
        for c in chunks {
            shown.extend(d.feed(c).expect("within the limits"));
        }
        let f = d.finish().expect("within the limits");
        shown.extend(f.shown);
        (f.text, shown)
    }

    #[test]
    fn plain_text_streams() {
        let (text, shown) = decode_all(&[b"hel", b"lo\n"]);
        assert_eq!(text, "hello");
        assert_eq!(shown, b"hello\n");
    }

    #[test]
    fn completion_object() {
        let (text, _) = decode_all(&[
            br#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi there"}}]}"#,
        ]);
        assert_eq!(text, "hi there");
    }

    #[test]
    fn sse_stream_split_anywhere() {
        let stream = b"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: \
            {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: \
                {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\ndata: [DONE]\n\n";
        for split in 1..stream.len() {
            let (text, _) = decode_all(&[&stream[..split], &stream[split..]]);
            assert_eq!(text, "Hello", "split at {split}");
        }
    }

    #[test]
    fn sse_skips_malformed_events_and_stops_at_done() {
        let stream = b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {broken\n\ndata: \
            {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: [DONE]\n\ndata: \
                {\"choices\":[{\"delta\":{\"content\":\"after\"}}]}\n\n";
        for split in 1..stream.len() {
            let mut d = Decoder::default();
            d.feed(&stream[..split]).unwrap();
            d.feed(&stream[split..]).unwrap();
            let f = d.finish().unwrap();
            assert_eq!((f.text.as_str(), f.malformed), ("ab", 1), "split at {split}");
        }
    }

    #[test]
    fn api_error_is_reported() {
        let mut d = Decoder::default();
        d.feed(br#"{"error":{"message":"model not found"}}"#).unwrap();
        assert_eq!(d.finish().unwrap().error.as_deref(), Some("model not found"));
    }

    /// Feed `total` bytes of `fill` after `head`, in 8 KiB pieces as the
    /// agent loop does; the first refusal, if any, and the decoder.
    fn feed_many(head: &[u8], fill: u8, total: usize) -> (Result<(), TooLarge>, Decoder) {
        let mut d = Decoder::default();
        let piece = [fill; 8192];
        let mut result = d.feed(head).map(drop);
        let mut left = total;
        while result.is_ok() && left > 0 {
            let n = left.min(piece.len());
            result = d.feed(&piece[..n]).map(drop);
            left -= n;
        }
        (result, d)
    }

    #[test]
    fn plain_text_up_to_the_limit_is_kept() {
        let (fed, d) = feed_many(b"", b'a', MAX_MESSAGE_BYTES);
        assert_eq!(fed, Ok(()));
        assert_eq!(d.finish().unwrap().text.len(), MAX_MESSAGE_BYTES);
    }

    #[test]
    fn plain_text_past_the_limit_is_refused_without_growing() {
        let (fed, d) = feed_many(b"", b'a', MAX_MESSAGE_BYTES + 1);
        assert_eq!(fed, Err(TooLarge));
        assert!(d.text.len() <= MAX_MESSAGE_BYTES);
    }

    #[test]
    fn an_endless_sse_line_is_refused() {
        let (fed, d) = feed_many(b"data: ", b'a', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
        assert!(d.pending.len() <= PENDING_LIMIT + 8192);
    }

    #[test]
    fn an_endless_json_object_is_refused() {
        let (fed, _) = feed_many(b"{\"choices\":\"", b'a', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn endless_whitespace_is_refused() {
        let (fed, _) = feed_many(b"", b' ', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn sse_deltas_past_the_limit_are_refused() {
        let mut d = Decoder::default();
        let content = "a".repeat(1 << 20);
        let event = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{content}\"}}}}]}}\n\n");
        let mut fed = Ok(Vec::new());
        for _ in 0..=(MAX_MESSAGE_BYTES >> 20) {
            fed = d.feed(event.as_bytes());
        }
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn bad_utf8_that_grows_past_the_limit_is_refused() {
        // Every byte 0xff becomes U+FFFD, three bytes.
        let (fed, d) = feed_many(b"", 0xff, MAX_MESSAGE_BYTES / 2);
        assert_eq!(fed, Ok(()));
        assert_eq!(d.finish().err(), Some(TooLarge));
    }

    #[test]
    fn a_long_sse_line_in_pieces_still_decodes() {
        let content = "b".repeat(100_000);
        let event = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{content}\"}}}}]}}\n\n");
        let pieces: Vec<&[u8]> = event.as_bytes().chunks(1000).collect();
        let (text, _) = decode_all(&pieces);
        assert_eq!(text, content);
    }

    #[test]
    fn usage_comes_from_the_last_event_of_a_stream_and_from_an_object() {
        let stream = b"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":null}\n\ndata: \
            {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"total_tokens\":15,\
                \"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\ndata: [DONE]\n\n";
        for split in 1..stream.len() {
            let mut d = Decoder::default();
            d.feed(&stream[..split]).unwrap();
            d.feed(&stream[split..]).unwrap();
            let f = d.finish().unwrap();
            assert_eq!(f.text, "Hi");
            assert_eq!(f.usage, Some(Usage { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }));
        }
        let mut d = Decoder::default();
        d.feed(br#"{"choices":[{"message":{"content":"ok"}}],"usage":{"input_tokens":7,"output_tokens":2}}"#)
            .unwrap();
        let f = d.finish().unwrap();
        assert_eq!((f.text.as_str(), f.usage), ("ok", Some(Usage::new(7, 2, None))));
        assert_eq!(f.usage.unwrap().total_tokens, 9);
    }

    #[test]
    fn a_count_of_another_shape_loses_the_count_not_the_reply() {
        let (text, _) = decode_all(&[b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\
                \"usage\":{\"prompt_tokens\":\"many\"}}\n\n"]);
        assert_eq!(text, "a");
        let mut d = Decoder::default();
        d.feed(b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":-4}}\n\n")
            .unwrap();
        assert_eq!(d.finish().unwrap().usage, None);
        let (text, _) = decode_all(&[b"plain text with \"usage\": {\"prompt_tokens\": 5}"]);
        assert!(text.starts_with("plain"));
    }

    #[test]
    fn a_side_channel_reports_usage_with_or_without_its_key() {
        let usage = Some(Usage { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 });
        assert_eq!(usage_reported(br#"{"prompt_tokens":5,"completion_tokens":6}"#), usage);
        assert_eq!(usage_reported(br#" {"usage": {"prompt_tokens":5,"completion_tokens":6}}"#), usage);
        assert_eq!(usage_reported(b"{}"), None);
        assert_eq!(usage_reported(b"5 in, 6 out"), None);
    }
}
