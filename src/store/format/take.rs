//! Taking one message's bytes off a buffered stream: up to the end of its
//! JSON object, within the size limit, checked on the way when it is in
//! the form hermes writes (one pass over a long message).

use std::io::BufRead;

use super::canonical::{Canonical, Piece, Streaming};
use super::{Fault, MESSAGE_BYTES_MAX, TRUNCATED, damaged};
use crate::store::json;

/// Copy one message from `src` into `into` as `take_object` does, checking
/// it on the way when it is in the form hermes writes (one pass over a
/// long message, as `written_form` is over a short one): its parts then.
/// None: not told, `decode_message` decides.
pub(super) fn take_written(src: &mut impl BufRead, into: &mut Vec<u8>) -> Result<Option<Canonical>, Fault> {
    let Some(mut form) = Streaming::start(src.fill_buf()?) else {
        return take_object(src, into).map(|()| None);
    };
    loop {
        let piece = src.fill_buf()?;
        if piece.is_empty() {
            return Err(damaged(TRUNCATED));
        }
        let base = into.len();
        let (n, close) = match form.feed(piece, base) {
            Piece::End(n, close) => (n, Some(close)),
            Piece::More => (piece.len(), None),
            // From the last whole piece on (in the content's string), or
            // from the start, the general way.
            Piece::Broken if base == 0 => return take_object(src, into).map(|()| None),
            Piece::Broken => {
                return take_object_from(src, into, (1, true, form.escaped_before)).map(|()| None);
            }
        };
        if base + n > MESSAGE_BYTES_MAX {
            return Err(damaged(format!("a message is larger than {} MiB", MESSAGE_BYTES_MAX >> 20)));
        }
        into.extend_from_slice(&piece[..n]);
        src.consume(n);
        if let Some(close) = close {
            return Ok(form.finish(into, close));
        }
    }
}

/// Copy one JSON object (the next bytes must open it) from `src` into
/// `into`, up to its closing brace. Only finds its end: `decode_message`
/// validates it.
pub(super) fn take_object(src: &mut impl BufRead, into: &mut Vec<u8>) -> Result<(), Fault> {
    take_object_from(src, into, (0, false, false))
}

/// `take_object` from where `into` ends, in an object `depth` deep, in a
/// string or not, after a `\` or not.
fn take_object_from(
    src: &mut impl BufRead,
    into: &mut Vec<u8>,
    (mut depth, mut in_string, mut escaped): (usize, bool, bool),
) -> Result<(), Fault> {
    loop {
        let chunk = src.fill_buf()?;
        if chunk.is_empty() {
            return Err(damaged(TRUNCATED));
        }
        if depth == 0 && chunk[0] != b'{' {
            return Err(damaged("a message is not an object"));
        }
        let mut end = None;
        let mut at = 0;
        while at < chunk.len() {
            let b = chunk[at];
            at += 1;
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                } else {
                    // Strings are most of a session: skip to the next byte
                    // that matters.
                    let plain = json::string_stop(&chunk[at..], false);
                    at = plain.map_or(chunk.len(), |p| at + p);
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        let n = end.unwrap_or(chunk.len());
        if into.len() + n > MESSAGE_BYTES_MAX {
            return Err(damaged(format!("a message is larger than {} MiB", MESSAGE_BYTES_MAX >> 20)));
        }
        into.extend_from_slice(&chunk[..n]);
        src.consume(n);
        if end.is_some() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::canonical::tests::{MESSAGE as WRITTEN, both, damaged_variants};
    use crate::store::format::canonical::{canonical_parts, written_form};
    use crate::store::format::decode_message;
    use crate::store::session::Message;
    use nanoserde::SerJson;
    use std::io::BufReader;

    /// A long message in the written form, with every kind of escape (a
    /// surrogate pair among them) and a flag after its time.
    const MESSAGE: &[u8] = concat!(
        r#"{"role":"assistant","content":"a \"b\" \\ \n\/ \u00e9 \ud83d\ude00 c \u001b[1m and more text "#,
        r#"after the escapes, so that the fields after the content fall within one read at many sizes","#,
        r#""ts":1796205601.9156368,"replaced":true}"#
    )
    .as_bytes();

    #[test]
    fn a_message_taken_in_pieces_is_judged_as_one_taken_whole() {
        // Every byte deleted, replaced or preceded by one that matters,
        // taken through read buffers of 1 to 12 bytes (the fields before
        // the content never whole in one: the general path) and of 30 to
        // 100 (streamed: escapes cut at every place; the fields after the
        // content whole in one read, else the general path from there):
        // the same bytes as the general path takes, the same parts as the
        // message checked whole, or the same refusal.
        let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntxdD\x00\x01\x0c\x7f\xc3\xff";
        let mut variants = vec![MESSAGE.to_vec()];
        for at in 0..MESSAGE.len() {
            variants.push([&MESSAGE[..at], &MESSAGE[at + 1..]].concat());
            for &b in bytes {
                variants.push([&MESSAGE[..at], &[b], &MESSAGE[at + 1..]].concat());
                variants.push([&MESSAGE[..at], &[b], &MESSAGE[at..]].concat());
            }
        }
        let mut streamed = 0;
        for v in &variants {
            let input = [&v[..], b",\n{\"role\":\"user\"}"].concat();
            let mut whole = Vec::new();
            let general = take_object(&mut &input[..], &mut whole).map_err(|_| ());
            for capacity in (1..=12).chain(31..=100) {
                let mut into = Vec::new();
                let taken = take_written(&mut BufReader::with_capacity(capacity, &input[..]), &mut into);
                let shown = || format!("{capacity}: {}", String::from_utf8_lossy(v));
                match taken {
                    Ok(parts) => {
                        assert_eq!(general, Ok(()), "{}", shown());
                        assert_eq!(into, whole, "{}", shown());
                        if let Some(parts) = parts {
                            assert_eq!(Some(parts), canonical_parts(&whole), "{}", shown());
                            assert!(decode_message(&whole).is_ok(), "{}", shown());
                            streamed += 1;
                        }
                    }
                    Err(_) => assert_eq!(general, Err(()), "{}", shown()),
                }
            }
        }
        assert!(streamed > 5_000, "{streamed}");
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
        assert!(both(&taken) == (true, true), "{}", String::from_utf8_lossy(bytes));
        true
    }

    #[test]
    fn every_message_hermes_writes_takes_the_fast_path() {
        // Every character below 128 (control characters are written as
        // \u escapes), and beyond; times of this clock and of any size;
        // each flag a message can carry.
        let mut contents: Vec<String> = (0u8..128).map(|b| format!("a{}b", b as char)).collect();
        contents.extend(["", "é 🦀 \u{2028}\u{feff} }]", "\u{1b}[1mbold\u{1b}[0m\r\n"].map(String::from));
        let mut times = vec![crate::time::now(), 1796394097.9156368, 1748779200.5, 0.0, 1.0, -2.5];
        times.extend([1e16, 1.5e-7, 5e-324, f64::MIN_POSITIVE, f64::MAX, -f64::MAX, 123456789.0]);
        let mut told = 0;
        for (i, content) in contents.iter().enumerate() {
            for (j, &ts) in times.iter().enumerate() {
                let role = ["user", "assistant", "system"][(i + j) % 3];
                let mut m = Message::new(role, content.clone(), ts);
                let flag = Some(true);
                (m.interrupted, m.replaced, m.summary) = match (i + 2 * j) % 5 {
                    0 => (flag, None, None),
                    1 => (None, flag, None),
                    2 => (None, None, flag),
                    3 => (flag, flag, None),
                    _ => (None, None, None),
                };
                let bytes = m.serialize_json().into_bytes();
                assert!(written_form_agrees(&bytes), "{}", String::from_utf8_lossy(&bytes));
                // Followed by the next message, as in a file.
                assert!(written_form_agrees(&[&bytes[..], b",\n{\"role\":\"user\"}"].concat()));
                // Cut short: not told here.
                assert_eq!(written_form(&bytes[..bytes.len() - 1]), None);
                told += 1;
            }
        }
        assert_eq!(told, contents.len() * times.len());
    }

    #[test]
    fn any_order_of_the_fields_and_blanks_between_them() {
        let fields = [r#""role":"system""#, r#""content":"x \u00e9""#, r#""ts":1796394097.9156368"#];
        for order in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            let mut parts: Vec<&str> = order.iter().map(|&i| fields[i]).collect();
            parts.insert(order[0] % 3, r#""summary":true"#);
            for (separator, open, close) in [(",", "{", "}"), (" ,\n\t", "{ ", "\r\n}")] {
                let m = format!("{open}{}{close}", parts.join(separator));
                assert!(written_form_agrees(m.as_bytes()), "{m}");
                let spaced = m.replace(':', " : ");
                assert!(written_form_agrees(spaced.as_bytes()), "{spaced}");
            }
        }
        // Other forms: the general path.
        for m in [
            r#"{"role":"user","content":"x","ts":1,"tool":null}"#,
            r#"{"r\u006fle":"user","content":"x","ts":1}"#,
            r#" {"role":"user","content":"x","ts":1}"#,
            r#"{"role":"user","content":"x","ts":1e+3}"#,
        ] {
            assert_eq!(written_form(m.as_bytes()), None, "{m}");
        }
        assert_eq!(written_form(b"{\"role\":\"user\",\"content\":\"\xff\",\"ts\":1}"), None);
    }

    #[test]
    fn damaged_variants_found_in_one_pass_agree_with_the_general_path() {
        let passed: usize = damaged_variants(WRITTEN).map(|v| written_form_agrees(&v) as usize).sum();
        assert!(passed > 100, "{passed}");
        assert!(written_form_agrees(WRITTEN));
    }
}
