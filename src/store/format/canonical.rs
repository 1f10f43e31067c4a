//! The fast check of a message in its canonical form, the one hermes
//! writes: one pass over its bytes, no decoding (see `is_canonical`).

use super::ROLES;
use crate::store::json;

/// Whether a message is valid, told fast for the form hermes writes: one
/// JSON object, in UTF-8, holding exactly `role`, `content` and `ts`, once
/// each, with no escapes in the keys or the role, no `\u` escapes in the
/// content and `ts` a plain decimal number. It checks the JSON grammar of
/// that form itself, in one pass. False means "not told":
/// `decode_message` decides. Checking a long session this way costs a
/// fraction of decoding it.
pub(super) fn is_canonical(bytes: &[u8]) -> bool {
    canonical_parts(bytes).is_some()
}

/// The parts of a message `is_canonical` passes: its role, and where
/// its content lies as a JSON string (quotes included).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Canonical {
    pub(super) role: &'static str,
    pub(super) content: std::ops::Range<usize>,
}

pub(super) fn canonical_parts(bytes: &[u8]) -> Option<Canonical> {
    if std::str::from_utf8(bytes).is_err() || bytes.first() != Some(&b'{') {
        return None;
    }
    let mut seen = [false; 3];
    let mut parts = Canonical { role: "", content: 0..0 };
    let mut at = 1; // after '{'
    loop {
        blank(bytes, &mut at);
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let (end, escaped, _) = string_end(bytes, at)?;
        let key = &bytes[at + 1..end];
        at = end + 1;
        blank(bytes, &mut at);
        if bytes.get(at) != Some(&b':') || escaped {
            return None;
        }
        at += 1;
        blank(bytes, &mut at);
        let which = value(bytes, &mut at, key, &mut parts)?;
        if std::mem::replace(&mut seen[which], true) {
            return None;
        }
        blank(bytes, &mut at);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return (seen == [true; 3] && at + 1 == bytes.len()).then_some(parts),
            _ => return None,
        }
    }
}

/// The message at the start of `bytes`, if it is exactly in the form
/// hermes writes, `{"role":"R","content":"...","ts":N}` (no blanks, these
/// keys in this order, no `\u` escape): its length and parts, found and
/// checked in one pass over the bytes, the content's scanned a word at a
/// time. Such a message is one `canonical_parts` passes. None when it is not
/// in that form or does not end within `bytes`: the general path decides.
pub(super) fn written_form(bytes: &[u8]) -> Option<(usize, Canonical)> {
    const OPEN: &[u8] = b"{\"role\":\"";
    const CONTENT: &[u8] = b"\",\"content\":\"";
    const TS: &[u8] = b",\"ts\":";
    let after = bytes.strip_prefix(OPEN)?;
    let role =
        ROLES.iter().find(|r| after.starts_with(r.as_bytes()) && after[r.len()..].starts_with(CONTENT))?;
    let start = OPEN.len() + role.len() + CONTENT.len() - 1; // the content's opening quote
    let mut at = start + 1;
    let mut ascii = true;
    loop {
        let (stop, plain) = json::string_stop_ascii(&bytes[at..], true);
        at += stop?;
        ascii &= plain;
        match bytes[at] {
            b'"' => break,
            b'\\' => match bytes.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                _ => return None,
            },
            _ => return None, // a control character
        }
    }
    // All the rest is ASCII, when it is in this form.
    if !ascii {
        std::str::from_utf8(&bytes[start + 1..at]).ok()?;
    }
    let number = bytes[at + 1..].strip_prefix(TS)?;
    let len = number.iter().take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'.')).count();
    if !plain_number(&number[..len]) || number.get(len) != Some(&b'}') {
        return None;
    }
    Some((at + 1 + TS.len() + len + 1, Canonical { role, content: start..at + 1 }))
}

/// A message in the form `written_form` passes that is longer than the read
/// buffer, checked as it streams by in pieces: one pass over its bytes, as
/// for a short one. The content's closing quote and the rest (`,"ts":N}`)
/// must come in one piece; any other break from the form is `Broken`, and
/// the general path takes the message from the last whole piece on.
pub(super) struct Streaming {
    role: &'static str,
    /// Where the content's opening quote is in the message.
    open: usize,
    /// Bytes of the next piece to pass over (the opening, in the first).
    skip: usize,
    /// The last piece ended within an escape (a `\`).
    escape: bool,
    /// So did the one before the piece fed last.
    pub(super) escaped_before: bool,
    ascii: bool,
}

pub(super) enum Fed {
    /// The message ends this many bytes into the piece; its content
    /// closes at this place in the message.
    End(usize, usize),
    /// All of the piece is content.
    More,
    Broken,
}

impl Streaming {
    /// The message opening `piece`, if it begins in the written form.
    pub(super) fn start(piece: &[u8]) -> Option<Streaming> {
        const OPEN: &[u8] = b"{\"role\":\"";
        const CONTENT: &[u8] = b"\",\"content\":\"";
        let after = piece.strip_prefix(OPEN)?;
        let role = ROLES
            .iter()
            .find(|r| after.starts_with(r.as_bytes()) && after[r.len()..].starts_with(CONTENT))?;
        let open = OPEN.len() + role.len() + CONTENT.len() - 1;
        Some(Streaming { role, open, skip: open + 1, escape: false, escaped_before: false, ascii: true })
    }

    /// The next piece, which lies at `base` in the message.
    pub(super) fn feed(&mut self, piece: &[u8], base: usize) -> Fed {
        let mut at = std::mem::take(&mut self.skip);
        self.escaped_before = std::mem::take(&mut self.escape);
        if self.escaped_before {
            match piece.get(at) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 1,
                _ => return Fed::Broken,
            }
        }
        loop {
            let (stop, plain) = json::string_stop_ascii(&piece[at..], true);
            self.ascii &= plain;
            let Some(stop) = stop else { return Fed::More };
            at += stop;
            match piece[at] {
                b'"' => break,
                b'\\' => match piece.get(at + 1) {
                    None => {
                        self.escape = true;
                        return Fed::More;
                    }
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                    Some(_) => return Fed::Broken,
                },
                _ => return Fed::Broken, // a control character
            }
        }
        const TS: &[u8] = b",\"ts\":";
        let Some(number) = piece[at + 1..].strip_prefix(TS) else { return Fed::Broken };
        let len = number.iter().take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'.')).count();
        if !plain_number(&number[..len]) || number.get(len) != Some(&b'}') {
            return Fed::Broken;
        }
        Fed::End(at + 1 + TS.len() + len + 1, base + at)
    }

    /// The parts of the whole message, `bytes`, whose content closes at
    /// `close`: None when its content is not UTF-8 (the general path says why).
    pub(super) fn finish(self, bytes: &[u8], close: usize) -> Option<Canonical> {
        if !self.ascii {
            std::str::from_utf8(&bytes[self.open + 1..close]).ok()?;
        }
        Some(Canonical { role: self.role, content: self.open..close + 1 })
    }
}

/// The value of field `key` at `at`, taken into `plain`, `at` moved past
/// it: which field it was (0 role, 1 content, 2 ts), or None when it is
/// not the plain form.
fn value(bytes: &[u8], at: &mut usize, key: &[u8], plain: &mut Canonical) -> Option<usize> {
    match key {
        b"role" if bytes.get(*at) == Some(&b'"') => {
            let (end, escaped, _) = string_end(bytes, *at)?;
            let named = &bytes[*at + 1..end];
            match ROLES.iter().find(|r| r.as_bytes() == named) {
                Some(known) if !escaped => plain.role = known,
                _ => return None,
            }
            *at = end + 1;
            Some(0)
        }
        b"content" if bytes.get(*at) == Some(&b'"') => match string_end(bytes, *at) {
            Some((end, _, false)) => {
                plain.content = *at..end + 1;
                *at = end + 1;
                Some(1)
            }
            _ => None,
        },
        b"ts" => {
            let len = bytes[*at..].iter().take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'.')).count();
            if !plain_number(&bytes[*at..*at + len]) {
                return None;
            }
            *at += len;
            Some(2)
        }
        _ => None,
    }
}

fn blank(bytes: &[u8], at: &mut usize) {
    while bytes.get(*at).is_some_and(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t')) {
        *at += 1;
    }
}

/// The end of the string that opens at `at` (its closing quote), and
/// whether it holds an escape, and a `\u` one; None when it is not a
/// plain JSON string (a control character, a bad escape, no end).
fn string_end(bytes: &[u8], at: usize) -> Option<(usize, bool, bool)> {
    let (mut i, mut escapes, mut unicode) = (at + 1, false, false);
    loop {
        let p = json::string_stop(&bytes[i..], true)?;
        match bytes[i + p] {
            b'"' => return Some((i + p, escapes, unicode)),
            b'\\' => {
                match bytes.get(i + p + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    b'u' => unicode = true,
                    _ => return None,
                }
                escapes = true;
                i += p + 2;
            }
            _ => return None, // a control character
        }
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most 16 characters: what `f64`
/// parses exactly as JSON means it.
fn plain_number(number: &[u8]) -> bool {
    let digits = number.strip_prefix(b"-").unwrap_or(number);
    let (whole, fraction) = match digits.iter().position(|&b| b == b'.') {
        Some(dot) => (&digits[..dot], Some(&digits[dot + 1..])),
        None => (digits, None),
    };
    number.len() <= 16
        && !whole.is_empty()
        && whole.iter().all(u8::is_ascii_digit)
        && (whole.len() == 1 || whole[0] != b'0')
        && fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::decode_message;
    use crate::store::format::take::take_object;
    use crate::store::session::Message;
    use nanoserde::SerJson;

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
        ] {
            if is_canonical(m.as_bytes()) {
                assert!(decode_message(m.as_bytes()).is_ok(), "{m}");
            }
        }
        assert!(is_canonical(br#"{"role":"user","content":"a \"b\" \n","ts":1.5}"#));
        assert!(is_canonical(br#"{ "ts" : 1 , "content" : "" , "role" : "system" }"#));
        assert!(!is_canonical(b"{\"role\":\"user\",\"content\":\"\xff\",\"ts\":1}"));
    }

    /// A message in the form hermes writes, with escapes.
    const MESSAGE: &[u8] = br#"{"role":"assistant","content":"a \"b\" \\ \n\/ c","ts":1796205601.25}"#;

    /// `message` with each byte deleted, and replaced or preceded by each
    /// byte that matters to JSON (and some that are not UTF-8).
    fn damaged_variants(message: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
        let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntx\x00\x01\x0c\x7f\xc3\xff";
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
        // that matter to JSON: whatever the fast check passes decodes.
        let mut tried = 0;
        for v in damaged_variants(MESSAGE) {
            tried += 1;
            if is_canonical(&v) {
                assert!(decode_message(&v).is_ok(), "{}", String::from_utf8_lossy(&v));
            }
        }
        assert!(tried > 3000);
        assert!(is_canonical(MESSAGE));
    }

    /// What `written_form` finds at the start of `bytes`, checked against
    /// the general path: the same end as `take_object` finds, the same
    /// parts as `canonical_parts`, and a message that decodes.
    fn written_form_agrees(bytes: &[u8]) -> bool {
        let Some((len, plain)) = written_form(bytes) else { return false };
        let mut taken = Vec::new();
        take_object(&mut &bytes[..], &mut taken).expect("an object");
        assert_eq!(taken, &bytes[..len], "{}", String::from_utf8_lossy(bytes));
        assert_eq!(canonical_parts(&taken), Some(plain), "{}", String::from_utf8_lossy(bytes));
        assert!(decode_message(&taken).is_ok(), "{}", String::from_utf8_lossy(bytes));
        true
    }

    #[test]
    fn the_one_pass_form_is_what_hermes_writes_and_nothing_the_general_path_refuses() {
        for (role, content) in [("user", "a \"b\" \\ \n\t/ é 🦀 }]"), ("assistant", ""), ("system", "plain")]
        {
            let mut m = Message::new(role, content.to_string(), 1796205601.25);
            let bytes = m.serialize_json().into_bytes();
            assert!(written_form_agrees(&bytes), "{}", String::from_utf8_lossy(&bytes));
            // Followed by the next message, as in a file.
            assert!(written_form_agrees(&[&bytes[..], b",\n{\"role\":\"user\"}"].concat()));
            // Cut short: not told here.
            assert_eq!(written_form(&bytes[..bytes.len() - 1]), None);
            // Interrupted replies carry one more field: the general path.
            m.interrupted = Some(true);
            assert_eq!(written_form(m.serialize_json().as_bytes()), None);
        }
        // Every byte deleted, replaced or preceded by one that matters.
        let passed: usize = damaged_variants(MESSAGE).map(|v| written_form_agrees(&v) as usize).sum();
        assert!(passed > 100, "{passed}");
        assert!(written_form_agrees(MESSAGE));
        for m in [
            r#"{"role":"user","content":"\u00e9","ts":1}"#,
            r#"{"role":"user","content":"x","ts":1e3}"#,
            r#"{"role":"user","content":"x","ts":01}"#,
            r#"{"role": "user","content":"x","ts":1}"#,
            r#"{"role":"evil","content":"x","ts":1}"#,
            "{\"role\":\"user\",\"content\":\"a\u{1}b\",\"ts\":1}",
        ] {
            assert_eq!(written_form(m.as_bytes()), None, "{m}");
        }
        assert_eq!(written_form(b"{\"role\":\"user\",\"content\":\"\xff\",\"ts\":1}"), None);
    }
}
