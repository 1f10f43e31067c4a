//! Taking one message's bytes off a buffered stream: up to the end of its
//! JSON object, within the size limit, checked on the way when it is in
//! the form hermes writes (one pass over a long message).

use std::io::BufRead;

use super::canonical::{Canonical, Fed, Streaming};
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
            Fed::End(n, close) => (n, Some(close)),
            Fed::More => (piece.len(), None),
            // From the last whole piece on (in the content's string), or
            // from the start, the general way.
            Fed::Broken if base == 0 => return take_object(src, into).map(|()| None),
            Fed::Broken => return take_object_from(src, into, (1, true, form.escaped_before)).map(|()| None),
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
