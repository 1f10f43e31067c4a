//! What can be kept of a damaged session file whose ID and title read
//! (its header whole, or found by the forgiving scan of `forgive`):
//! every message that checks, wherever it lies, and the places of those
//! that do not (for `sessions repair`).
//!
//! The stream reader stops at the first damage; this walks the whole
//! `messages` array instead, one value at a time, and finds its way on
//! after damage: past the value when its end can be told, else from the
//! next line (hermes writes one message per line, and no string it writes
//! holds a raw line break).

use super::{Fault, decode_message, forgive, read};
use crate::store::json;
use crate::store::session::{Header, Message};

/// A damaged session taken apart.
pub(crate) struct Salvage {
    pub(crate) header: Header,
    /// The messages that check, in the file's order.
    pub(crate) kept: Vec<Message>,
    /// What could not be kept: "message 2: why", one line each.
    pub(crate) lost: Vec<String>,
}

/// Take the session file `bytes` apart. Err when nothing names the
/// session (no ID and title read): then nothing is kept.
pub(crate) fn salvage(bytes: &[u8]) -> Result<Salvage, Fault> {
    let (header, mut lost) = match read(bytes) {
        Ok(reader) => (reader.header().clone(), Vec::new()),
        Err(Fault::Header(header, why)) => {
            (*header, vec![format!("the header: {}", why.trim_start_matches("bad header: "))])
        }
        Err(fault) => return Err(fault),
    };
    let mut kept = Vec::new();
    let Some(value) = forgive::messages_at(bytes).or_else(|| json::find_messages_key(bytes).map(|(_, v)| v))
    else {
        if lost.is_empty() {
            lost.push("the messages: none found".into());
        }
        return Ok(Salvage { header, kept, lost });
    };
    let mut at = skip_blank(bytes, value);
    if bytes.get(at) != Some(&b'[') {
        lost.push("the messages: \"messages\" is not an array".into());
        return Ok(Salvage { header, kept, lost });
    }
    at += 1;
    let mut number = 0;
    loop {
        at = skip_blank_and_commas(bytes, at);
        match bytes.get(at) {
            None => {
                lost.push(format!("after message {number}: {}", super::TRUNCATED));
                break;
            }
            Some(b']') => {
                let end = skip_blank(bytes, at + 1);
                // The header's fields may follow (another key order).
                let more = bytes.get(end) == Some(&b',');
                if !more && (bytes.get(end) != Some(&b'}') || skip_blank(bytes, end + 1) != bytes.len()) {
                    lost.push(format!("after message {number}: what follows the messages is not '}}'"));
                }
                break;
            }
            Some(_) => {
                number += 1;
                match value_end(bytes, at) {
                    Ok(end) => {
                        match decode_message(&bytes[at..end]) {
                            Ok(m) => kept.push(m),
                            Err(why) => lost.push(format!("message {number}: {why}")),
                        }
                        at = end;
                    }
                    Err(next) if next >= bytes.len() => {
                        lost.push(format!("message {number}: {}", super::TRUNCATED));
                        break;
                    }
                    Err(next) => {
                        lost.push(format!("message {number}: a line break in a string (not JSON)"));
                        at = next;
                    }
                }
            }
        }
    }
    Ok(Salvage { header, kept, lost })
}

fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

fn skip_blank_and_commas(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace() || *b == b',') {
        at += 1;
    }
    at
}

/// Where the JSON value starting at `at` ends (just past it); Err with
/// where to go on when its end cannot be told: after the line break that
/// broke a string, or the end of the input.
fn value_end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        if in_string {
            match b {
                b'\n' => return Err(i + 1),
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            // A number, true, false, null (or garbage) ends where the
            // next value or the array would begin.
            b',' | b']' | b'}' if depth == 0 => return if i > at { Ok(i) } else { Err(i + 1) },
            b'\n' if depth == 0 => return Ok(i),
            _ => {}
        }
    }
    Err(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"format":1,"id":"20200101_000000_000001","title":"t","messages":["#;

    fn taken_apart(messages: &str) -> (Vec<String>, Vec<String>) {
        let file = format!("{HEAD}{messages}");
        let s = salvage(file.as_bytes()).expect("the header reads");
        (s.kept.into_iter().map(|m| m.content).collect(), s.lost)
    }

    #[test]
    fn keeps_every_message_that_checks_around_the_damaged_ones() {
        let m = |c: &str| format!(r#"{{"role":"user","content":"{c}","ts":1}}"#);
        let (kept, lost) = taken_apart(&format!("\n{},\n{},\n{}\n]}}\n", m("a"), m("b\\x"), m("c")));
        assert_eq!(kept, ["a", "c"]);
        assert_eq!(lost.len(), 1);
        assert!(lost[0].starts_with("message 2: "), "{lost:?}");
        // A raw line break in a string: on from the next line.
        let (kept, lost) = taken_apart(&format!(
            "\n{},\n{{\"role\":\"user\",\"content\":\"b\n\",\"ts\":1}},\n{}\n]}}",
            m("a"),
            m("c")
        ));
        assert_eq!(kept, ["a", "c"]);
        assert!(lost[0].starts_with("message 2: "), "{lost:?}");
        // Values that are no message at all, on one line.
        let (kept, lost) = taken_apart(&format!(
            "1,null,\"text\",[1,{{}}],{},{{\"role\":\"evil\",\"content\":\"x\",\"ts\":1}}]}}",
            m("a")
        ));
        assert_eq!(kept, ["a"]);
        assert_eq!(lost.len(), 5, "{lost:?}");
        // Cut short in the middle of a message, and after the last.
        let (kept, lost) = taken_apart(&format!("\n{},\n{{\"role\":\"us", m("a")));
        assert_eq!(
            (kept, lost),
            (vec!["a".to_string()], vec![format!("message 2: {}", super::super::TRUNCATED)])
        );
        let (kept, lost) = taken_apart(&format!("\n{},\n{}\n", m("a"), m("b")));
        assert_eq!(kept, ["a", "b"]);
        assert_eq!(lost, ["after message 2: truncated: does not end with ']}'"]);
        // Trailing bytes after the session.
        let (kept, lost) = taken_apart(&format!("\n{}\n]}}x", m("a")));
        assert_eq!((kept.len(), lost.len()), (1, 1));
    }

    #[test]
    fn a_header_that_does_not_read_keeps_nothing() {
        assert!(salvage(b"{\"format\":1,\"id\":").is_err());
        assert!(salvage(b"").is_err());
    }
}
