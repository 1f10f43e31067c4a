//! A session file that is not in the layout hermes writes: valid JSON with
//! its keys in another order (`jq -S`, Python's `sort_keys`) laid out
//! again as hermes writes it, and a damaged one's header read by a
//! forgiving scan of the top-level object (keys in any order, any
//! whitespace, unknown keys passed over), every field kept that reads on
//! its own. A session is its ID and title whatever else of its file is
//! damaged: found by them, never forked, mended by `sessions repair`.

use std::ops::Range;

use nanoserde::SerJson;

use super::{Fault, TRUNCATED};
use crate::store::json;
use crate::store::session::{FORMAT, Header, Message};

/// The fields of a header, in the order hermes writes them: the first
/// `WRITTEN` in every file, before `messages`; the rest only when known.
const FIELDS: [&[u8]; 13] = [
    b"format",
    b"id",
    b"title",
    b"title_source",
    b"created_at",
    b"updated_at",
    b"cwd",
    b"message_count",
    b"preview",
    b"model",
    b"role",
    b"usage",
    b"options",
];
const WRITTEN: usize = 9;

/// The fields of a message.
const MESSAGE_FIELDS: [&[u8]; 8] =
    [b"role", b"content", b"ts", b"interrupted", b"replaced", b"summary", b"usage", b"images"];

/// One member of the top-level object: where its key's text (between
/// the quotes) and its value lie.
struct Member {
    key: Range<usize>,
    value: Range<usize>,
}

/// The members of the object that `bytes` opens, as far as they can be
/// told, and whether the object was closed. Forgiving: a string ends at
/// the next quote no backslash escapes, whatever it holds (bad escapes,
/// control characters, bytes that are no UTF-8); a value at the `,` or
/// `}` after it at its own depth; what cannot be a member is passed over.
fn members(bytes: &[u8]) -> (Vec<Member>, bool) {
    let mut found = Vec::new();
    let mut at = skip_blank(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return (found, false);
    }
    at += 1;
    loop {
        while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace() || *b == b',') {
            at += 1;
        }
        match bytes.get(at) {
            None => return (found, false),
            Some(b'}') => return (found, true),
            Some(b'"') => {}
            Some(_) => match value_end(bytes, at) {
                Some(end) => {
                    at = end.max(at + 1);
                    continue;
                }
                None => return (found, false),
            },
        }
        let Some(key_end) = string_end(bytes, at) else { return (found, false) };
        let key = at + 1..key_end - 1;
        at = skip_blank(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            continue;
        }
        at = skip_blank(bytes, at + 1);
        let Some(end) = value_end(bytes, at) else { return (found, false) };
        found.push(Member { key, value: at..end });
        at = end.max(at + 1);
    }
}

fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// Just past the string whose opening quote is at `at`; None when the
/// input ends first.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += json::string_stop(bytes.get(i..)?, false)?;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        i += 2; // a backslash and the byte it escapes
    }
}

/// Just past the value starting at `at`: a string, an object or array
/// (strings in it skipped as `string_end` does), or a bare word up to
/// the `,` or `}` or blank after it. None when the input ends first.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        match *bytes.get(i)? {
            b'"' => {
                i = string_end(bytes, i)?;
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
}

/// Whether the header that ends `head` (a file's bytes up to its
/// `"messages"` key) has every field hermes writes: then the file is laid
/// out as hermes writes it, and nothing of the header can follow.
pub(super) fn written_first(head: &[u8]) -> bool {
    let (found, _) = members(head);
    FIELDS[..WRITTEN].iter().all(|field| found.iter().any(|m| &head[m.key.clone()] == *field))
}

/// A header read from a file that is no valid session: every field that
/// reads on its own (a damaged one left at its default), the format
/// taken as this hermes's when it does not read. None without an ID and
/// a title that read: then nothing names the session.
pub(crate) fn header(bytes: &[u8]) -> Option<Header> {
    let (found, _) = members(bytes);
    let mut kept: Vec<&[u8]> = Vec::new();
    for field in FIELDS {
        let Some(m) = found.iter().find(|m| &bytes[m.key.clone()] == field) else { continue };
        let member = &bytes[m.key.start - 1..m.value.end];
        // Each field alone, with what a header needs besides it.
        let alone = match field {
            b"format" => [b"{\"id\":\"\",", member, b"}"].concat(),
            b"id" => [b"{\"format\":1,", member, b"}"].concat(),
            _ => [b"{\"format\":1,\"id\":\"\",", member, b"}"].concat(),
        };
        let reads = json::parse::<Header>(&alone)
            .is_ok_and(|h| h.format > 0 && h.created_at.is_finite() && h.updated_at.is_finite());
        if reads {
            kept.push(member);
        }
    }
    let format = format!("\"format\":{FORMAT}");
    if !kept.iter().any(|m| m.starts_with(b"\"format\"")) {
        kept.push(format.as_bytes());
    }
    let header: Header = json::parse(&[b"{", &kept.join(&b","[..])[..], b"}"].concat()).ok()?;
    let titled = kept.iter().any(|m| m.starts_with(b"\"title\""));
    (titled && !header.id.is_empty()).then_some(header)
}

/// Where the value of the top-level `messages` field starts, if there is
/// one, however the rest of the file reads.
pub(crate) fn messages_at(bytes: &[u8]) -> Option<usize> {
    let (found, _) = members(bytes);
    found.iter().find(|m| &bytes[m.key.clone()] == b"messages").map(|m| m.value.start)
}

/// What the whole of a file not laid out as hermes writes it is.
pub(super) enum Laid {
    /// Valid JSON, `messages` not last: the same session laid out as
    /// hermes writes it (the header's fields first, in their order, each
    /// message in its written form where it reads as one).
    Again(Vec<u8>),
    /// As it is: read the usual way (a damaged message is found there),
    /// with this header: the one its first bytes give, or a fuller one
    /// found by the forgiving scan.
    AsIs(Box<Header>),
}

/// Decide what `bytes`, a whole file whose header `decoded` is (as its
/// first bytes have it), is. Err when its header does not read: a
/// `Fault::Header` when a forgiving scan still finds its ID and title.
pub(super) fn lay_out(bytes: &[u8], decoded: Result<Header, String>) -> Result<Laid, Fault> {
    if json::validate(bytes).is_ok() {
        let (found, _) = members(bytes);
        let messages = found.iter().position(|m| &bytes[m.key.clone()] == b"messages");
        if let Some(i) = messages.filter(|&i| i + 1 < found.len() && bytes[found[i].value.start] == b'[') {
            return Ok(Laid::Again(again(bytes, &found, i)));
        }
    }
    match decoded {
        Ok(first) => Ok(Laid::AsIs(Box::new(header(bytes).filter(|h| h.id == first.id).unwrap_or(first)))),
        Err(why) => Err(match header(bytes) {
            Some(named) => {
                let cut = !members(bytes).1 && messages_at(bytes).is_none();
                Fault::Header(Box::new(named), if cut { TRUNCATED.into() } else { why })
            }
            None => Fault::Damaged(why),
        }),
    }
}

/// The valid document `bytes` with its `messages` (member `messages` of
/// `found`) moved last, each message written as hermes writes it.
fn again(bytes: &[u8], found: &[Member], messages: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    out.push(b'{');
    for m in found.iter().enumerate().filter(|(i, _)| *i != messages).map(|(_, m)| m) {
        out.extend_from_slice(&bytes[m.key.start - 1..m.key.end + 1]);
        out.push(b':');
        out.extend_from_slice(&bytes[m.value.clone()]);
        out.push(b',');
    }
    out.extend_from_slice(b"\"messages\":[");
    let array = &bytes[found[messages].value.clone()];
    for (i, item) in elements(array).into_iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        let element = &array[item];
        match json::parse::<Message>(element) {
            Ok(m) if members(element).0.iter().all(|f| MESSAGE_FIELDS.contains(&&element[f.key.clone()])) => {
                out.extend_from_slice(m.serialize_json().as_bytes())
            }
            // Not a message (for the reader to name), or one with fields
            // this hermes does not know (kept): as it was.
            _ => out.extend_from_slice(element),
        }
    }
    out.extend_from_slice(b"\n]}\n");
    out
}

/// The elements of the valid JSON array `array`.
fn elements(array: &[u8]) -> Vec<Range<usize>> {
    let mut items = Vec::new();
    let mut at = 1;
    loop {
        while array.get(at).is_some_and(|b| b.is_ascii_whitespace() || *b == b',') {
            at += 1;
        }
        match array.get(at) {
            None | Some(b']') => return items,
            Some(_) => {
                let end = value_end(array, at).unwrap_or(array.len()).max(at + 1);
                items.push(at..end);
                at = end;
            }
        }
    }
}

/// Whether the members after a file's messages (`rest`, from the `,`
/// after their `]` to the end) are valid JSON and none is a header's
/// field: unknown ones, passed over as those before the messages are.
pub(super) fn passes_over(rest: &[u8]) -> bool {
    let object = [b"{", rest.strip_prefix(b",").unwrap_or(rest)].concat();
    if json::validate(&object).is_err() {
        return false;
    }
    let (found, closed) = members(&object);
    closed
        && !found
            .iter()
            .any(|m| FIELDS.contains(&&object[m.key.clone()]) || &object[m.key.clone()] == b"messages")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::{append, decode, encode};
    use crate::store::session::Session;

    fn sample() -> (Session, Vec<u8>) {
        let mut header = Header::new("20261202_143015_a1b2c3".into(), "/home/ana".into(), 1.5);
        header.title = "redis debug".into();
        header.title_source = "user".into();
        header.model = Some("m".into());
        let messages = vec![
            Message::new("user", "why \"quotes\"\n and {\"title\":\"no\"}".into(), 2.0),
            Message::new("assistant", "ok".into(), 3.25),
        ];
        for m in &messages {
            header.note_message(m);
        }
        let bytes = encode(&header, &messages);
        (Session { header, messages }, bytes)
    }

    /// The sample with its top-level keys sorted, pretty-printed as
    /// `jq -S .` does (the messages' keys sorted too).
    fn sorted() -> String {
        let (s, _) = sample();
        let h = &s.header;
        format!(
            "{{\n  \"created_at\": 1.5,\n  \"cwd\": \"/home/ana\",\n  \"format\": 1,\n  \"id\": \"{}\",\n  \
             \"message_count\": 2,\n  \"messages\": [\n    {{\n      \"content\": {},\n      \"role\": \
                 \"user\",\n      \
             \"ts\": 2\n    }},\n    {{\"content\":\"ok\",\"role\":\"assistant\",\"ts\":3.25}}\n  ],\n  \
             \"model\": \"m\",\n  \"preview\": {},\n  \"title\": \"redis debug\",\n  \"title_source\": \
                 \"user\",\n  \
             \"updated_at\": 3.25\n}}\n",
            h.id,
            s.messages[0].content.serialize_json(),
            h.preview.serialize_json()
        )
    }

    #[test]
    fn valid_json_in_any_key_order_is_the_same_session() {
        let (s, _) = sample();
        assert_eq!(decode(sorted().as_bytes()).unwrap(), s);
        // An unknown field after the messages is passed over.
        let (_, bytes) = sample();
        let text = String::from_utf8(bytes).unwrap();
        let extra = format!(
            "{},\"labels\":[\"a\",{{\"title\":\"x\"}}]}}\n",
            text.trim_end().strip_suffix('}').unwrap()
        );
        assert_eq!(decode(extra.as_bytes()).unwrap(), s);
        // A header field after them, in a file otherwise as hermes writes
        // it: no longer whole, so damaged (a forgiving scan names it).
        let late = format!("{},\"role\":\"r\"}}\n", text.trim_end().strip_suffix('}').unwrap());
        assert!(decode(late.as_bytes()).is_err());
        assert_eq!(header(late.as_bytes()).unwrap().role.as_deref(), Some("r"));
    }

    #[test]
    fn laid_out_again_as_hermes_writes_it() {
        let Laid::Again(bytes) = lay_out(sorted().as_bytes(), Err(String::new())).ok().unwrap() else {
            panic!("not laid out again")
        };
        let (s, written) = sample();
        // The header's fields in the file's order; the messages as hermes writes them.
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("{\"created_at\":1.5,\"cwd\":\"/home/ana\",\"format\":1,"), "{text}");
        let tail = String::from_utf8(written).unwrap();
        let messages = &tail[tail.find("\"messages\":[").unwrap()..];
        assert!(text.ends_with(messages), "{text}");
        assert_eq!(decode(text.as_bytes()).unwrap(), s);
    }

    #[test]
    fn any_damage_is_a_value_never_a_panic() {
        // Every byte of the sorted and the written form replaced by one
        // that matters, and every cut: the readers answer, never panic.
        let (_, written) = sample();
        for file in [sorted().into_bytes(), written] {
            for at in 0..file.len() {
                let cut = file[..at].to_vec();
                let damaged = b"\"\\{]:\x01\xff".map(|b| {
                    let mut damaged = file.clone();
                    damaged[at] = b;
                    damaged
                });
                for bytes in damaged.iter().chain([&cut]) {
                    // (Damage to the ID is the store's to find: the
                    // file's name says another.)
                    let _ = decode(bytes);
                    if let Some(h) = header(bytes) {
                        assert!(!h.id.is_empty());
                    }
                    let _ = (messages_at(bytes), lay_out(bytes, Err(String::new())).is_ok());
                }
            }
        }
    }

    #[test]
    fn appending_to_it_writes_it_as_hermes_writes_every_file() {
        let (s, _) = sample();
        let new = Message::new("user", "more".into(), 9.0);
        let mut out = Vec::new();
        let id = &s.header.id;
        let header = append(sorted().as_bytes(), &mut out, id, std::slice::from_ref(&new), |_| {}, 1 << 20)
            .expect("appended");
        let mut all = s.messages.clone();
        all.push(new);
        assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8(encode(&header, &all)).unwrap());
    }

    #[test]
    fn a_damaged_header_still_names_its_session() {
        let (s, bytes) = sample();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let preview = format!("\"preview\":{}", s.header.preview.serialize_json());
        for damage in
            ["\"preview\":\"h\\qllo\"", "\"preview\":\"h\u{1}\"", "\"preview\":h", "\"preview\":\"\\u12\""]
        {
            let damaged = text.replace(&preview, damage);
            assert!(decode(damaged.as_bytes()).is_err(), "{damaged}");
            let found = header(damaged.as_bytes()).expect(damage);
            let expected = Header { preview: String::new(), ..s.header.clone() };
            assert_eq!(found, expected, "{damage}");
        }
        let invalid = [&bytes[..180], b"\xff", &bytes[181..]].concat();
        assert_eq!(header(&invalid).map(|h| h.title), Some("redis debug".into()));
        // Cut anywhere after the title: still named; before: not.
        let title_end = text.find(",\"title_source\"").unwrap();
        for cut in 0..text.len() {
            let found = header(&bytes[..cut]).map(|h| (h.id, h.title));
            let named = Some((s.header.id.clone(), s.header.title.clone()));
            assert_eq!(found == named, cut >= title_end, "{cut}");
        }
        // Keys in any order, any whitespace, unknown keys passed over; a
        // title inside a message or an unknown field is none of the header's.
        let loose = "\n{ \"z\" : {\"title\":\"no\"}, \"messages\" : \
                     [{\"title\":\"no\"}] ,\r\n\t\"title\"\n:\"yes\" , \
                     \"id\":\"20261202_143015_a1b2c3\", \"preview\": \"\\q";
        assert_eq!(header(loose.as_bytes()).map(|h| h.title), Some("yes".into()));
        let nested =
            "{\"id\":\"20261202_143015_a1b2c3\",\"z\":{\"title\":\"no\"},\"messages\":[{\"title\":\"no\"}]";
        assert_eq!(header(nested.as_bytes()), None);
        assert_eq!(header(b"{\"id\":\"20261202_143015_a1b2c3\",\"title\":\"t\\q\"}"), None);
        assert_eq!(header(b"{\"title\":\"t\"}"), None);
    }
}
