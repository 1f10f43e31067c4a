//! JSON: a strict, allocation-free validator, and `parse`, the only way
//! into nanoserde.
//!
//! nanoserde does the decoding, but it trusts its input to be well formed:
//! it panics on some malformed documents and never returns on some
//! truncated ones (`{"a":[[[`). `parse` therefore checks every byte string
//! here first, so that a corrupt or hostile document is an error value,
//! never a crash or a hang. The checker is iterative, so nesting depth
//! cannot overflow the stack.

use nanoserde::DeJson;

/// Deepest nesting accepted; sessions need 3 levels.
const MAX_DEPTH: usize = 64;

/// Why a document is not valid JSON, with the byte offset where it broke.
#[derive(Debug, PartialEq)]
pub struct Invalid {
    pub(crate) offset: usize,
    pub(crate) what: &'static str,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

/// Decode `bytes` as a `T`, after checking that they are valid JSON. The
/// error is phrased for a user: a missing field by name, else where in the
/// document the content did not fit.
pub(crate) fn parse<T: DeJson>(bytes: &[u8]) -> Result<T, String> {
    T::deserialize_json(checked_text(bytes)?).map_err(decode_error)
}

/// `bytes` as text, when they are valid JSON. Not generic, as `parse` is:
/// one copy for every type decoded.
#[inline(never)]
fn checked_text(bytes: &[u8]) -> Result<&str, String> {
    validate(bytes).map_err(|e| e.to_string())?;
    std::str::from_utf8(bytes).map_err(|e| e.to_string())
}

/// Why a valid document did not fit the type, for a user.
#[inline(never)]
fn decode_error(e: nanoserde::DeJsonErr) -> String {
    match e.msg {
        nanoserde::DeJsonErrReason::MissingKey(key) => format!("no \"{key}\" field"),
        _ => format!("unexpected content at line {} column {}", e.line + 1, e.col + 1),
    }
}

/// Check that `bytes` is exactly one JSON value (surrounded by optional
/// whitespace), in UTF-8.
pub fn validate(bytes: &[u8]) -> Result<(), Invalid> {
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(Invalid { offset: e.valid_up_to(), what: "invalid UTF-8" });
    }
    let mut p = Checker { bytes, at: 0 };
    p.value()?;
    p.skip_ws();
    if p.at != bytes.len() {
        return Err(p.fail("trailing data"));
    }
    Ok(())
}

struct Checker<'a> {
    bytes: &'a [u8],
    at: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Array,
    Object,
}

impl Checker<'_> {
    fn fail(&self, what: &'static str) -> Invalid {
        Invalid { offset: self.at, what }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8, what: &'static str) -> Result<(), Invalid> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.fail(what))
        }
    }

    /// One value; containers are walked with an explicit stack.
    fn value(&mut self) -> Result<(), Invalid> {
        let mut stack: [Open; MAX_DEPTH] = [Open::Array; MAX_DEPTH];
        let mut depth = 0usize;
        loop {
            // Parse one value start.
            self.skip_ws();
            match self.peek() {
                Some(b'{') | Some(b'[') => {
                    let kind = if self.peek() == Some(b'{') { Open::Object } else { Open::Array };
                    if depth == MAX_DEPTH {
                        return Err(self.fail("nested too deeply"));
                    }
                    self.at += 1;
                    self.skip_ws();
                    let close = if kind == Open::Object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                    } else {
                        stack[depth] = kind;
                        depth += 1;
                        if kind == Open::Object {
                            self.key()?;
                        }
                        continue;
                    }
                }
                Some(b'"') => self.string()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(self.fail("expected a value")),
            }
            // A value is complete: close containers or move to the next item.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                let kind = stack[depth - 1];
                let close = if kind == Open::Object { b'}' } else { b']' };
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if kind == Open::Object {
                            self.key()?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.at += 1;
                        depth -= 1;
                    }
                    _ => return Err(self.fail("expected ',' or a closing bracket")),
                }
            }
        }
    }

    fn key(&mut self) -> Result<(), Invalid> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err(self.fail("expected a key"));
        }
        self.string()?;
        self.expect(b':', "expected ':'")
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Invalid> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(self.fail("unknown literal"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<(), Invalid> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.fail("bad number")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.fail("bad number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.fail("bad number"));
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<(), Invalid> {
        self.at += 1; // opening quote
        loop {
            // Fast path over ordinary bytes: conversations are mostly text.
            let plain = string_stop(&self.bytes[self.at..], true);
            self.at += plain.unwrap_or(self.bytes.len() - self.at);
            let Some(b) = self.peek() else {
                return Err(self.fail("unterminated string"));
            };
            self.at += 1;
            match b {
                b'"' => return Ok(()),
                b'\\' => match self.peek() {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 1,
                    Some(b'u') => {
                        let hex = self.bytes.get(self.at + 1..self.at + 5);
                        match hex {
                            Some(h) if h.iter().all(u8::is_ascii_hexdigit) => self.at += 5,
                            _ => return Err(self.fail("bad \\u escape")),
                        }
                    }
                    _ => return Err(self.fail("bad escape")),
                },
                0x00..=0x1f => return Err(self.fail("control character in string")),
                _ => {}
            }
        }
    }
}

/// The members of the JSON object at the start of `bytes` (after
/// whitespace): each key as written between its quotes and where its value
/// lies in `bytes`; None where no whole object is there.
pub(crate) fn members(bytes: &[u8]) -> Option<Vec<(&[u8], std::ops::Range<usize>)>> {
    let mut p = Checker { bytes, at: 0 };
    p.expect(b'{', "").ok()?;
    let mut found = Vec::new();
    p.skip_ws();
    if p.peek() == Some(b'}') {
        return Some(found);
    }
    loop {
        p.skip_ws();
        if p.peek() != Some(b'"') {
            return None;
        }
        let key_start = p.at + 1;
        p.string().ok()?;
        let key = &bytes[key_start..p.at - 1];
        p.expect(b':', "").ok()?;
        p.skip_ws();
        let start = p.at;
        p.value().ok()?;
        found.push((key, start..p.at));
        p.skip_ws();
        match p.peek() {
            Some(b',') => p.at += 1,
            Some(b'}') => return Some(found),
            _ => return None,
        }
    }
}

/// Where the first byte that ends a run of plain string content is: a `"`
/// or a `\\`, and with `controls` also any byte below 0x20. Strings are most
/// of a session's bytes, so this looks at sixteen of them at a time (eight
/// where the processor has no 16-byte compares).
pub(crate) fn string_stop(bytes: &[u8], controls: bool) -> Option<usize> {
    string_stop_ascii(bytes, controls).0
}

/// `string_stop`, and whether every byte before the stop (all of them,
/// when there is none) is ASCII: such text needs no UTF-8 check of its own.
pub(crate) fn string_stop_ascii(bytes: &[u8], controls: bool) -> (Option<usize>, bool) {
    let mut at = 0;
    let mut ascii = true;
    #[cfg(target_arch = "x86_64")]
    if let Some(found) = crate::sys::string_stop_blocks(bytes, controls, &mut at, &mut ascii) {
        return found;
    }
    let (words, rest) = bytes[at..].as_chunks::<8>();
    for word in words {
        let x = u64::from_le_bytes(*word);
        let mut hits = zero_bytes(x ^ every_byte(b'"')) | zero_bytes(x ^ every_byte(b'\\'));
        if controls {
            // Bytes below 0x20, the same way (exact for the lowest).
            hits |= x.wrapping_sub(every_byte(0x20)) & !x & every_byte(0x80);
        }
        if hits != 0 {
            let p = hits.trailing_zeros() as usize / 8;
            let before = x & ((1u64 << (8 * p)) - 1);
            return (Some(at + p), ascii && before & every_byte(0x80) == 0);
        }
        ascii &= x & every_byte(0x80) == 0;
        at += 8;
    }
    for &b in rest {
        if b == b'"' || b == b'\\' || (controls && b < 0x20) {
            return (Some(at), ascii);
        }
        ascii &= b.is_ascii();
        at += 1;
    }
    (None, ascii)
}

/// A word whose eight bytes are all `b`.
pub(crate) const fn every_byte(b: u8) -> u64 {
    0x0101_0101_0101_0101 * b as u64
}

/// The high bit of each byte of `x` that is zero, and perhaps of a 0x01
/// byte just above a zero one: the lowest bit set is always a zero byte,
/// and none is missed. Eight bytes looked at in one step.
pub(crate) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(every_byte(1)) & !x & every_byte(0x80)
}

/// Find the top-level `"messages":` key. An unescaped quote cannot occur
/// inside a JSON string, and a string *value* is never followed by `:`, so
/// the first `"messages"` followed by a colon is a key; in a flat header it
/// is the top-level one.
pub fn find_messages_key(doc: &[u8]) -> Option<(usize, usize)> {
    const KEY: &[u8] = b"\"messages\"";
    let mut from = 0;
    while let Some(pos) = find(&doc[from..], KEY) {
        let key = from + pos;
        let mut after = key + KEY.len();
        while doc.get(after).is_some_and(u8::is_ascii_whitespace) {
            after += 1;
        }
        if doc.get(after) == Some(&b':') {
            return Some((key, after + 1));
        }
        from = key + 1;
    }
    None
}

pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_stop_finds_what_a_byte_at_a_time_scan_finds() {
        // Every byte value at every offset of a 45-byte run (two blocks of
        // 16, a word of 8, 5 more), alone and before another byte that
        // matters, with and without controls.
        for controls in [false, true] {
            let naive =
                |bytes: &[u8]| bytes.iter().position(|&b| b == b'"' || b == b'\\' || (controls && b < 0x20));
            for at in 0..45 {
                for byte in 0..=255u8 {
                    for later in [b'a', b'"', 0x01, 0xff] {
                        let mut bytes = vec![b'x'; 45];
                        bytes[at] = byte;
                        if at + 3 < 45 {
                            bytes[at + 3] = later;
                        }
                        let stop = naive(&bytes);
                        let ascii = bytes[..stop.unwrap_or(bytes.len())].is_ascii();
                        assert_eq!(
                            string_stop_ascii(&bytes, controls),
                            (stop, ascii),
                            "{bytes:?} {controls}"
                        );
                    }
                }
            }
        }
        assert_eq!(string_stop(b"", true), None);
    }

    #[test]
    fn accepts_valid_documents() {
        for doc in [
            "{}",
            "[]",
            " {\"a\":[1,2.5,-0.1e+3,true,false,null,\"x\\u00e9\\n\"]} ",
            "\"s\"",
            "0",
            "{\"a\":{\"b\":{}}}",
        ] {
            assert_eq!(validate(doc.as_bytes()), Ok(()), "{doc}");
        }
    }

    #[test]
    fn rejects_malformed_documents() {
        for doc in [
            "",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":]}",
            "[1,]",
            "[01]",
            "1.",
            "tru",
            "\"\x01\"",
            "{} {}",
            "\"\\x\"",
            "\"\\u12\"",
            "[",
            "{,}",
            "{\"a\":1,}",
            "-",
            "1e",
        ] {
            assert!(validate(doc.as_bytes()).is_err(), "{doc:?}");
        }
        assert!(validate(b"\"\xff\"").is_err());
        let deep = "[".repeat(100_000);
        assert!(validate(deep.as_bytes()).is_err());
    }
}
