//! The fast check of a message in the form hermes writes: one pass over
//! its bytes, no decoding (see `is_plainly_valid`).

use super::ROLES;
use crate::store::json;

/// Whether a message is valid, told fast for the form hermes writes: one
/// JSON object, in UTF-8, holding exactly `role`, `content` and `ts`, once
/// each, with no escapes in the keys or the role, no `\u` escapes in the
/// content and `ts` a plain decimal number. It checks the JSON grammar of
/// that form itself, in one pass. False means "not told":
/// `decode_message` decides. Checking a long session this way costs a
/// fraction of decoding it.
pub(super) fn is_plainly_valid(bytes: &[u8]) -> bool {
    plain_parts(bytes).is_some()
}

/// The parts of a message `is_plainly_valid` passes: its role, and where
/// its content lies as a JSON string (quotes included).
pub(super) struct Plain {
    pub(super) role: &'static str,
    pub(super) content: std::ops::Range<usize>,
}

pub(super) fn plain_parts(bytes: &[u8]) -> Option<Plain> {
    if std::str::from_utf8(bytes).is_err() || bytes.first() != Some(&b'{') {
        return None;
    }
    let mut seen = [false; 3];
    let mut plain = Plain { role: "", content: 0..0 };
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
        let which = value(bytes, &mut at, key, &mut plain)?;
        if std::mem::replace(&mut seen[which], true) {
            return None;
        }
        blank(bytes, &mut at);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return (seen == [true; 3] && at + 1 == bytes.len()).then_some(plain),
            _ => return None,
        }
    }
}

/// The value of field `key` at `at`, taken into `plain`, `at` moved past
/// it: which field it was (0 role, 1 content, 2 ts), or None when it is
/// not the plain form.
fn value(bytes: &[u8], at: &mut usize, key: &[u8], plain: &mut Plain) -> Option<usize> {
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
            if is_plainly_valid(m.as_bytes()) {
                assert!(decode_message(m.as_bytes()).is_ok(), "{m}");
            }
        }
        assert!(is_plainly_valid(br#"{"role":"user","content":"a \"b\" \n","ts":1.5}"#));
        assert!(is_plainly_valid(br#"{ "ts" : 1 , "content" : "" , "role" : "system" }"#));
        assert!(!is_plainly_valid(b"{\"role\":\"user\",\"content\":\"\xff\",\"ts\":1}"));
    }

    #[test]
    fn the_fast_check_passes_no_damaged_variant_of_a_message() {
        // Every byte of a message deleted, replaced or preceded by bytes
        // that matter to JSON: whatever the fast check passes decodes.
        let message = br#"{"role":"assistant","content":"a \"b\" \\ \n\/ c","ts":1796205601.25}"#;
        let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntx\x00\x01\x0c\x7f\xc3\xff";
        let mut tried = 0;
        for at in 0..message.len() {
            let mut variants = vec![[&message[..at], &message[at + 1..]].concat()];
            for &b in bytes {
                variants.push([&message[..at], &[b], &message[at + 1..]].concat());
                variants.push([&message[..at], &[b], &message[at..]].concat());
            }
            for v in variants {
                tried += 1;
                if is_plainly_valid(&v) {
                    assert!(decode_message(&v).is_ok(), "{}", String::from_utf8_lossy(&v));
                }
            }
        }
        assert!(tried > 3000);
        assert!(is_plainly_valid(message));
    }
}
