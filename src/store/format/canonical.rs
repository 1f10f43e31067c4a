//! The fast check of a message in the forms hermes writes and meets: one
//! pass over its bytes, no decoding (see `written_form`).

use std::ops::Range;

use super::ROLES;
use crate::store::json;

/// Whether a message is valid, told fast for every form hermes writes (see
/// `written_form`), and exactly as decoding would tell it. False means
/// "not told": `decode_message` decides.
pub(super) fn is_canonical(bytes: &[u8]) -> bool {
    canonical_parts(bytes).is_some()
}

/// The parts of a message the fast check passes: its role, where its
/// content lies as a JSON string (quotes included), and the flags a turn
/// needs.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Canonical {
    pub(super) role: &'static str,
    pub(super) content: Range<usize>,
    /// `"replaced": true`: a reply /retry replaced.
    pub(super) replaced: bool,
    /// `"summary": true`: a summary (when its role is system).
    pub(super) summary: bool,
}

/// `written_form` of a message that is all of `bytes`.
pub(super) fn canonical_parts(bytes: &[u8]) -> Option<Canonical> {
    written_form(bytes).and_then(|(len, parts)| (len == bytes.len()).then_some(parts))
}

/// The message at the start of `bytes`, if it is one the fast check can
/// tell: its length and parts, found and checked in one pass, its content
/// scanned sixteen bytes at a time. That is one JSON object holding
/// `role` (a known role, no escapes), `content` (a string: any escape
/// decoding takes, `\u` ones included), `ts` (any number decoding takes:
/// the times of hermes's clock, `1796394097.9156368`, and any other) and
/// optionally `interrupted`, `incomplete`, `replaced`, `summary` (`true` or `false`),
/// each once, in any order, with or without blanks: every message hermes
/// writes (a new field must be taught here, or its messages take the
/// general path), and those other careful writers do. Whatever it passes,
/// decoding takes; None when the message is in another form or does not
/// end within `bytes`: the general path decides.
pub(super) fn written_form(bytes: &[u8]) -> Option<(usize, Canonical)> {
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut fields = Fields::default();
    let end = fields.rest(bytes, 1, true)?;
    Some((end, fields.finish()?))
}

/// A message that starts in a form `written_form` passes and is longer
/// than the read buffer, checked as it streams by in pieces: one pass over
/// its bytes, as for a short one. The fields before the content must come
/// in the first piece, the content's closing quote and every field after
/// it in one piece; any other break from the form is `Broken`, and the
/// general path takes the message from the last whole piece on.
pub(super) struct Streaming {
    fields: Fields,
    /// Where the content's opening quote is in the message.
    open: usize,
    /// Bytes of the next piece to pass over (the opening, in the first).
    skip: usize,
    content: Content,
    /// The piece fed last began right after a `\` (in an escape).
    pub(super) escaped_before: bool,
}

pub(super) enum Piece {
    /// The message ends this many bytes into the piece; its content
    /// closes at this place in the message.
    End(usize, usize),
    /// All of the piece is content.
    More,
    Broken,
}

impl Streaming {
    /// The message opening `piece`, if its fields up to its content's
    /// opening quote are in a form `written_form` passes.
    pub(super) fn start(piece: &[u8]) -> Option<Streaming> {
        if piece.first() != Some(&b'{') {
            return None;
        }
        let (mut fields, mut at) = (Fields::default(), 1);
        loop {
            blank(piece, &mut at);
            let key = key(piece, &mut at)?;
            if key == Field::Content {
                fields.note(Field::Content)?;
                if piece.get(at) != Some(&b'"') {
                    return None;
                }
                let content = Content::default();
                return Some(Streaming { fields, open: at, skip: at + 1, content, escaped_before: false });
            }
            fields.scalar(piece, &mut at, key)?;
            blank(piece, &mut at);
            if piece.get(at) != Some(&b',') {
                return None;
            }
            at += 1;
        }
    }

    /// The next piece, which lies at `base` in the message.
    pub(super) fn feed(&mut self, piece: &[u8], base: usize) -> Piece {
        let at = std::mem::take(&mut self.skip);
        self.escaped_before = self.content.after_backslash();
        match self.content.scan(piece, at) {
            Scan::More => Piece::More,
            Scan::Broken => Piece::Broken,
            Scan::Closed(close) => match self.fields.rest(piece, close + 1, false) {
                Some(end) => Piece::End(end, base + close),
                None => Piece::Broken,
            },
        }
    }

    /// The parts of the whole message, `bytes`, whose content closes at
    /// `close`: None when its content is not UTF-8 (the general path says why).
    pub(super) fn finish(mut self, bytes: &[u8], close: usize) -> Option<Canonical> {
        if !self.content.ascii {
            std::str::from_utf8(&bytes[self.open + 1..close]).ok()?;
        }
        self.fields.content = self.open..close + 1;
        self.fields.finish()
    }
}

/// The fields of a message the fast check knows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Field {
    Role,
    Content,
    Ts,
    Interrupted,
    Incomplete,
    Replaced,
    Summary,
}

/// Each key as it opens a field, quotes included, in the order hermes
/// writes them.
const KEYS: [(&[u8], Field); 7] = [
    (b"\"role\"", Field::Role),
    (b"\"content\"", Field::Content),
    (b"\"ts\"", Field::Ts),
    (b"\"interrupted\"", Field::Interrupted),
    (b"\"incomplete\"", Field::Incomplete),
    (b"\"replaced\"", Field::Replaced),
    (b"\"summary\"", Field::Summary),
];

/// The fields every message has: role, content, ts.
const REQUIRED: u8 = 0b111;

/// The key at `at` and its `:`, `at` moved to its value; None for any
/// other key, or a key with escapes.
fn key(bytes: &[u8], at: &mut usize) -> Option<Field> {
    let rest = &bytes[*at..];
    let &(name, key) = KEYS.iter().find(|(name, _)| rest.starts_with(name))?;
    *at += name.len();
    blank(bytes, at);
    if bytes.get(*at) != Some(&b':') {
        return None;
    }
    *at += 1;
    blank(bytes, at);
    Some(key)
}

/// The fields read so far.
#[derive(Default)]
struct Fields {
    seen: u8,
    role: &'static str,
    content: Range<usize>,
    replaced: bool,
    summary: bool,
}

impl Fields {
    /// `key` once more: None when it was seen before (decoding decides).
    fn note(&mut self, key: Field) -> Option<()> {
        let bit = 1 << key as u8;
        (self.seen & bit == 0).then(|| self.seen |= bit)
    }

    /// The fields from `at` (just after a value, or with `first` just after
    /// the `{`) to the end of the object: where it ends.
    fn rest(&mut self, bytes: &[u8], mut at: usize, mut first: bool) -> Option<usize> {
        loop {
            blank(bytes, &mut at);
            if !first {
                match bytes.get(at)? {
                    b',' => at += 1,
                    b'}' => return Some(at + 1),
                    _ => return None,
                }
                blank(bytes, &mut at);
            }
            first = false;
            match key(bytes, &mut at)? {
                Field::Content => {
                    self.note(Field::Content)?;
                    if bytes.get(at) != Some(&b'"') {
                        return None;
                    }
                    let mut content = Content::default();
                    let Scan::Closed(close) = content.scan(bytes, at + 1) else { return None };
                    if !content.ascii {
                        std::str::from_utf8(&bytes[at + 1..close]).ok()?;
                    }
                    self.content = at..close + 1;
                    at = close + 1;
                }
                key => self.scalar(bytes, &mut at, key)?,
            }
        }
    }

    /// The value of `key` (not the content) at `at`, `at` moved past it.
    fn scalar(&mut self, bytes: &[u8], at: &mut usize, key: Field) -> Option<()> {
        self.note(key)?;
        let rest = &bytes[*at..];
        match key {
            Field::Role => {
                let named = rest.strip_prefix(b"\"")?;
                self.role = ROLES
                    .iter()
                    .find(|r| named.starts_with(r.as_bytes()) && named.get(r.len()) == Some(&b'"'))?;
                *at += self.role.len() + 2;
            }
            Field::Ts => *at += number(rest)?,
            Field::Interrupted | Field::Incomplete | Field::Replaced | Field::Summary => {
                let (len, value) = if rest.starts_with(b"true") {
                    (4, true)
                } else if rest.starts_with(b"false") {
                    (5, false)
                } else {
                    return None;
                };
                match key {
                    Field::Replaced => self.replaced = value,
                    Field::Summary => self.summary = value,
                    _ => {}
                }
                *at += len;
            }
            Field::Content => return None,
        }
        Some(())
    }

    fn finish(self) -> Option<Canonical> {
        (self.seen & REQUIRED == REQUIRED).then_some(Canonical {
            role: self.role,
            content: self.content,
            replaced: self.replaced,
            summary: self.summary,
        })
    }
}

fn blank(bytes: &[u8], at: &mut usize) {
    while bytes.get(*at).is_some_and(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t')) {
        *at += 1;
    }
}

/// The length of the JSON number that opens `bytes`, if decoding takes it
/// as a message's time: the JSON grammar, then what nanoserde reads (no
/// `+` in an exponent; a whole number within u64, or i64 when negative)
/// and a finite value. A plain decimal with at most 308 digits before its
/// point is finite without parsing it; anything else is parsed as
/// decoding parses it.
fn number(bytes: &[u8]) -> Option<usize> {
    let digits = |at: usize| bytes[at.min(bytes.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
    let negative = bytes.first() == Some(&b'-');
    let mut at = usize::from(negative);
    let whole = match bytes.get(at)? {
        b'0' => 1,
        b'1'..=b'9' => digits(at),
        _ => return None,
    };
    at += whole;
    let mut fraction = false;
    if bytes.get(at) == Some(&b'.') {
        let n = digits(at + 1);
        if n == 0 {
            return None;
        }
        (at, fraction) = (at + 1 + n, true);
    }
    let mut exponent = false;
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        match bytes.get(at) {
            Some(b'-') => at += 1,
            Some(b'+') => return None, // refused by nanoserde's reader
            _ => {}
        }
        let n = digits(at);
        if n == 0 {
            return None;
        }
        (at, exponent) = (at + n, true);
    }
    let text = std::str::from_utf8(&bytes[..at]).ok()?;
    let decodes = match (fraction || exponent, negative) {
        (false, false) => whole < 20 || text.parse::<u64>().is_ok(),
        (false, true) => whole < 19 || text.parse::<i64>().is_ok(),
        (true, _) if !exponent && whole <= 308 => true,
        (true, _) => text.parse::<f64>().is_ok_and(f64::is_finite),
    };
    decodes.then_some(at)
}

/// A JSON string's content being scanned, perhaps in pieces: where in an
/// escape the last piece ended, and whether all was ASCII.
struct Content {
    escape: Escape,
    ascii: bool,
}

impl Default for Content {
    fn default() -> Content {
        Content { escape: Escape::None, ascii: true }
    }
}

/// How far into an escape the scan is.
#[derive(Clone, Copy, PartialEq)]
enum Escape {
    None,
    /// Just after a `\`.
    Backslash,
    /// In the four digits of a `\u`, `count` read, their value so far;
    /// after a high surrogate's `lead` when it is the second of a pair.
    Hex {
        value: u16,
        count: u8,
        lead: bool,
    },
    /// After a high surrogate's `\uXXXX`, which a `\` must follow...
    Lead,
    /// ...and then a `u`.
    LeadBackslash,
}

enum Scan {
    /// The closing quote is here.
    Closed(usize),
    /// The string goes on past these bytes.
    More,
    /// Not a string decoding takes.
    Broken,
}

impl Content {
    /// Whether the bytes scanned so far end right after a `\` (for the
    /// general path, which takes over from there).
    fn after_backslash(&self) -> bool {
        matches!(self.escape, Escape::Backslash | Escape::LeadBackslash)
    }

    /// Scan `bytes` from `at` (inside the string) for its closing quote.
    /// Escapes are read as nanoserde reads them: `\u` with four hex
    /// digits, a high surrogate only when another `\u` with a low one
    /// follows at once, a low one only so.
    fn scan(&mut self, bytes: &[u8], mut at: usize) -> Scan {
        loop {
            while self.escape != Escape::None {
                let Some(&b) = bytes.get(at) else { return Scan::More };
                let Some(next) = self.escape.step(b) else { return Scan::Broken };
                self.escape = next;
                at += 1;
            }
            let (stop, plain) = json::string_stop_ascii(&bytes[at..], true);
            self.ascii &= plain;
            let Some(stop) = stop else { return Scan::More };
            at += stop;
            match bytes[at] {
                b'"' => return Scan::Closed(at),
                b'\\' => {
                    self.escape = Escape::Backslash;
                    at += 1;
                }
                _ => return Scan::Broken, // a control character
            }
        }
    }
}

impl Escape {
    /// The escape after one more byte, `b`; None when it breaks it.
    fn step(self, b: u8) -> Option<Escape> {
        const HIGH: std::ops::Range<u16> = 0xd800..0xdc00;
        const LOW: std::ops::Range<u16> = 0xdc00..0xe000;
        Some(match self {
            Escape::Backslash => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Escape::None,
                b'u' => Escape::Hex { value: 0, count: 0, lead: false },
                _ => return None,
            },
            Escape::Hex { value, count, lead } => {
                let value = value * 16 + (b as char).to_digit(16)? as u16;
                match (count, lead) {
                    (0..=2, _) => Escape::Hex { value, count: count + 1, lead },
                    (_, true) if LOW.contains(&value) => Escape::None,
                    (_, true) => return None,
                    _ if HIGH.contains(&value) => Escape::Lead,
                    _ if LOW.contains(&value) => return None,
                    _ => Escape::None,
                }
            }
            Escape::Lead if b == b'\\' => Escape::LeadBackslash,
            Escape::LeadBackslash if b == b'u' => Escape::Hex { value: 0, count: 0, lead: true },
            Escape::Lead | Escape::LeadBackslash | Escape::None => return None,
        })
    }
}

// Its helpers (`both`, `damaged_variants`, `MESSAGE`) serve take.rs's tests
// too, which hold the fast path to the general one (`take_object`).
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::format::decode_message;

    #[test]
    fn the_fast_check_never_passes_what_decoding_refuses() {
        for m in [
            r#"{"role":"user","content":"a \"b\" \n","ts":1.5}"#,
            r#"{ "ts" : 1 , "content" : "" , "role" : "system" }"#,
            r#"{"role":"assistant","content":"x","ts":-0.25}"#,
            r#"{"role":"evil","content":"x","ts":1}"#,
            r#"{"role":"user","content":"x"}"#,
            r#"{"role":"user","content":"x","ts":1,"ts":2}"#,
            r#"{"role":"user","content":"\u00e9","ts":1}"#,
            r#"{"role":"user","content":"x","ts":1e3}"#,
            r#"{"role":"user","content":"x","ts":12345678901234567890}"#,
            r#"{"role":"user","content":5,"ts":1}"#,
            r#"{"role":"user","content":"x","ts":"1"}"#,
            r#"{"role":"us\u0065r","content":"x","ts":1}"#,
            r#"{"role":"user","content":"x","ts":1,"extra":[1]}"#,
            "{\"role\":\"user\",\"content\":\"a\u{1}b\",\"ts\":1}",
            r#"{"role":"user","content":"\x","ts":1}"#,
            r#"{"role":"user","content":"x","ts":01}"#,
            r#"{"role":"user","content":"x","ts":1.}"#,
            r#"{"role":"user","content":"x","ts":.5}"#,
            r#"{"role":"user","content":"x","ts":--1}"#,
            r#"{"role":"user","content":"x","ts":1.2.3}"#,
            r#"{"role":"user","content":"x","ts":-}"#,
            r#"{"role" "user","content":"x","ts":1}"#,
            "{\"role\":\"user\",\u{c}\"content\":\"x\",\"ts\":1}",
            r#"{"role":"user","content":"x","ts":1}}"#,
            r#"{"role":"user","content":"x,"ts":1}"#,
            r#"{"role":"user","content":"x","ts":1,}"#,
            r#"{"role":"user","content":"x","ts":1,"interrupted":1}"#,
            r#"{"role":"user","content":"x","ts":1,"replaced":null}"#,
            r#"{"role":"user","content":"x","ts":1,"summary":truth}"#,
            r#"{"role":"user","content":"x","ts":1,"summary":true,"summary":false}"#,
        ] {
            if is_canonical(m.as_bytes()) {
                assert!(decode_message(m.as_bytes()).is_ok(), "{m}");
            }
        }
        assert!(is_canonical(br#"{"role":"user","content":"a \"b\" \n","ts":1.5}"#));
        assert!(is_canonical(br#"{ "ts" : 1 , "content" : "" , "role" : "system" }"#));
        assert!(is_canonical(br#"{"role":"user","content":"\u00e9","ts":1e3}"#));
        assert!(!is_canonical(b"{\"role\":\"user\",\"content\":\"\xff\",\"ts\":1}"));
    }

    /// What the fast check and decoding make of a message: whether each
    /// takes it, and for one the fast check passes, that the parts agree.
    pub(crate) fn both(m: &[u8]) -> (bool, bool) {
        let fast = canonical_parts(m);
        let decoded = decode_message(m);
        if let (Some(parts), Ok(d)) = (&fast, &decoded) {
            let content: String = json::parse(&m[parts.content.clone()]).expect("a JSON string");
            assert_eq!(
                (parts.role, &content),
                (d.role.as_str(), &d.content),
                "{}",
                String::from_utf8_lossy(m)
            );
            assert_eq!((parts.replaced, parts.summary), (d.is_replaced(), d.summary == Some(true)));
        }
        (fast.is_some(), decoded.is_ok())
    }

    #[test]
    fn times_are_told_exactly_as_decoding_tells_them() {
        let mut numbers: Vec<String> = [
            "0",
            "-0",
            "7",
            "-7",
            "1.5",
            "-0.25",
            "0.0",
            "1796394097.9156368",
            "1796394097.915636800001",
            "1e5",
            "1E5",
            "1e-5",
            "1.5e3",
            "-2E-3",
            "0e0",
            "1e+5",
            "1E+5",
            "1e308",
            "1.7976931348623157e308",
            "1.8e308",
            "1e309",
            "-1e309",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "5e-324",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "-9223372036854775808",
            "-9223372036854775809",
            "-18446744073709551615",
            "1234567890123456789.5",
            "00",
            "01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "1e-",
            "--1",
            "0x10",
            "1.2.3",
        ]
        .iter()
        .map(|n| n.to_string())
        .collect();
        // Plain decimals about the largest finite time: 308 and 309 digits.
        numbers.push(format!("1{}.5", "0".repeat(307)));
        numbers.push(format!("9{}.0", "9".repeat(307)));
        numbers.push(format!("1{}.0", "0".repeat(308)));
        numbers.push(format!("2{}.0", "0".repeat(308)));
        numbers.push(format!("0.{}1", "0".repeat(400)));
        for n in &numbers {
            let m = format!(r#"{{"role":"user","content":"x","ts":{n}}}"#);
            let (fast, decodes) = both(m.as_bytes());
            assert_eq!(fast, decodes, "{n}");
        }
    }

    #[test]
    fn escapes_are_told_exactly_as_decoding_tells_them() {
        for content in [
            r"\u0000",
            r"\u001b[31m",
            r"\u00e9",
            r"\u00E9",
            r"\uffff",
            r"\ud83d\ude00",
            r"\uD83D\uDE00",
            r"a\ud83d\ude00b\u00e9",
            r"\ud83d",
            r"\ud83dx",
            r"\ud83d\n",
            r"\ud83d\u0041",
            r"\ud83d\ud83d",
            r"\ude00",
            r"\ude00\ud83d",
            r"\u12",
            r"\u12g4",
            r"\uzzzz",
            r"\u",
            r"\",
            r"\0",
            r"\a",
            r"\/",
            r#"\""#,
            r"\\",
            r"\b\f\n\r\t",
            "é\u{2028}\u{feff}🦀",
        ] {
            let m = format!(r#"{{"role":"assistant","content":"{content}","ts":1}}"#);
            let (fast, decodes) = both(m.as_bytes());
            assert_eq!(fast, decodes, "{content}");
        }
    }

    /// A message in the form hermes writes, with escapes.
    pub(crate) const MESSAGE: &[u8] =
        br#"{"role":"assistant","content":"a \"b\" \\ \n\/ \u00e9\ud83d\ude00 c","ts":1796205601.9156368}"#;

    /// `message` with each byte deleted, and replaced or preceded by each
    /// byte that matters to JSON (and some that are not UTF-8).
    pub(crate) fn damaged_variants(message: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
        let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntxdD\x00\x01\x0c\x7f\xc3\xff";
        (0..message.len()).flat_map(move |at| {
            let deleted = [&message[..at], &message[at + 1..]].concat();
            let changed = bytes.iter().flat_map(move |&b| {
                [
                    [&message[..at], &[b], &message[at + 1..]].concat(),
                    [&message[..at], &[b], &message[at..]].concat(),
                ]
            });
            std::iter::once(deleted).chain(changed)
        })
    }

    #[test]
    fn the_fast_check_passes_no_damaged_variant_of_a_message() {
        // Every byte of a message deleted, replaced or preceded by bytes
        // that matter to JSON: whatever the fast check passes decodes, to
        // the same message.
        let (mut tried, mut fast) = (0, 0);
        for v in damaged_variants(MESSAGE) {
            tried += 1;
            let (passed, decodes) = both(&v);
            assert!(decodes || !passed, "{}", String::from_utf8_lossy(&v));
            fast += passed as usize;
        }
        assert!(tried > 3000 && fast > 500, "{tried} {fast}");
        assert!(is_canonical(MESSAGE));
    }
}
