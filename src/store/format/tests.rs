//! The session file's format, read and written: unit tests.

use super::*;

fn sample() -> Session {
    let mut header = Header::new("20261202_143015_a1b2c3".into(), "/home/ana".into(), 1.5);
    let messages = vec![
        Message::new("user", "why \"quotes\"\n and \u{7}bell".into(), 2.0),
        Message::new("assistant", "ok }]{[".into(), 3.25),
    ];
    for m in &messages {
        header.note_message(m);
    }
    Session { header, messages }
}

#[test]
fn round_trips_through_the_file_form() {
    let s = sample();
    let bytes = encode(&s.header, &s.messages);
    assert_eq!(decode(&bytes).unwrap(), s);
    assert_eq!(decode_header(&bytes[..bytes.len() / 2 + 60]).unwrap(), s.header);
    assert_eq!(s.header.message_count, 2);
    assert_eq!(s.header.title, "why \"quotes\"");
    assert_eq!(s.header.title_source, crate::store::session::TITLE_AUTO);
}

#[test]
fn replaced_is_written_only_when_true_and_read_when_missing() {
    let mut s = sample();
    s.messages.push(Message { replaced: Some(true), ..Message::new("assistant", "old".into(), 4.0) });
    s.messages.push(Message::new("assistant", "new".into(), 5.0));
    let text = String::from_utf8(encode(&s.header, &s.messages)).unwrap();
    assert_eq!(text.matches("replaced").count(), 1, "{text}");
    let back = decode(text.as_bytes()).unwrap().messages;
    let n = back.len();
    assert_eq!((back[n - 2].is_replaced(), back[n - 1].replaced), (true, None));
}

#[test]
fn interrupted_is_written_only_when_true_and_read_when_missing() {
    let mut s = sample();
    s.messages.push(Message { interrupted: Some(true), ..Message::new("assistant", "cut sh".into(), 4.0) });
    let bytes = encode(&s.header, &s.messages);
    assert_eq!(decode(&bytes).unwrap(), s);
    let text = String::from_utf8(bytes).unwrap();
    assert_eq!(text.matches("interrupted").count(), 1);
    assert!(text.contains(r#""content":"cut sh","ts":4.0,"interrupted":true}"#), "{text}");
    let old = r#"{"format":1,"id":"x","messages":[{"role":"user","content":"hi","ts":1.0}]}"#;
    assert_eq!(decode(old.as_bytes()).unwrap().messages[0].interrupted, None);
}

#[test]
fn reads_a_file_in_pieces_of_any_size() {
    let s = sample();
    let bytes = encode(&s.header, &s.messages);
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    assert_eq!(read(Trickle(&bytes)).unwrap().into_session().unwrap(), s);
}

#[test]
fn copying_runs_of_messages_writes_what_copying_one_by_one_does() {
    // Messages in the written form, and others (a \u escape, blanks,
    // another key order, an interrupted reply), read in pieces of every
    // size, so that runs break at every byte.
    let m = |role, content: &str| Message::new(role, content.into(), 1796205601.5).serialize_json();
    let mut interrupted = Message::new("assistant", "cut".into(), 3.0);
    interrupted.interrupted = Some(true);
    let messages = [
        m("user", "one \"two\"\n"),
        m("assistant", "three"),
        r#"{"role":"user","content":"\u00e9","ts":2}"#.to_string(),
        r#"{ "role": "user", "content": "x", "ts": 2 }"#.to_string(),
        m("system", "é"),
        r#"{"ts":1,"content":"y","role":"user"}"#.to_string(),
        interrupted.serialize_json(),
        m("user", "last"),
    ];
    let head = "{\"format\":1,\"id\":\"20261202_143015_a1b2c3\",\"title\":\"t\",\"messages\":[";
    for tail in ["\n]}\n", "]}"] {
        for separator in [",\n", ", ", ","] {
            let file = format!("{head}\n{}{tail}", messages.join(separator));
            let mut expected = Vec::new();
            let mut reader = read(file.as_bytes()).unwrap();
            while reader.next_checked().unwrap() {
                expected.extend_from_slice(if expected.is_empty() { b"\n" } else { b",\n" });
                expected.extend_from_slice(reader.raw());
            }
            for piece in (1..40).chain([file.len()]) {
                struct Pieces<'a>(&'a [u8], usize);
                impl Read for Pieces<'_> {
                    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                        let n = buf.len().min(self.0.len()).min(self.1);
                        buf[..n].copy_from_slice(&self.0[..n]);
                        self.0 = &self.0[n..];
                        Ok(n)
                    }
                }
                let mut copied = Vec::new();
                let count = read(Pieces(file.as_bytes(), piece))
                    .unwrap()
                    .copy_checked(|bytes| {
                        copied.extend_from_slice(bytes);
                        Ok(())
                    })
                    .unwrap();
                assert_eq!(count, messages.len() as u64);
                assert_eq!(String::from_utf8_lossy(&copied), String::from_utf8_lossy(&expected), "{piece}");
            }
        }
    }
    // A damaged message is found in a run as well.
    let file = format!("{head}\n{},\n{}\n]}}", m("user", "a"), r#"{"role":"user","content":"a","ts":1,}"#);
    assert!(matches!(read(file.as_bytes()).unwrap().copy_checked(|_| Ok(())), Err(Fault::Message(_))));
}

/// Reads of at most `.1` bytes at a time: every message is longer than
/// what is buffered, and checked as it streams by (`take_written`).
struct Pieces<'a>(&'a [u8], usize);
impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_message_read_in_pieces_is_judged_as_one_read_whole() {
    // Every byte of a message deleted, replaced or preceded by one that
    // matters, read whole and in pieces of 1 to 12 bytes: the same
    // session or the same refusal, and the same JSON for the agent.
    let message = concat!(
        r#"{"role":"assistant","content":"a \"b\" \\ \n\/ \u00e9\ud83d\ude00 c","#,
        r#""ts":1796205601.9156368,"replaced":true}"#
    )
    .as_bytes();
    let bytes: &[u8] = b"\"\\{}[],:.-+0159eEu/ntxdD\x00\x01\x0c\x7f\xc3\xff";
    let mut variants =
        vec![message.to_vec(), b"{\"role\":\"user\",\"content\":\"\xc3\xa9\",\"ts\":1}".to_vec()];
    for at in 0..message.len() {
        variants.push([&message[..at], &message[at + 1..]].concat());
        for &b in bytes {
            variants.push([&message[..at], &[b], &message[at + 1..]].concat());
            variants.push([&message[..at], &[b], &message[at..]].concat());
        }
    }
    let head = b"{\"format\":1,\"id\":\"20261202_143015_a1b2c3\",\"title\":\"t\",\"messages\":[\n";
    let (mut read_ok, mut streamed) = (0, 0);
    for v in &variants {
        let file = [&head[..], v, b",\n", v, b"\n]}"].concat();
        let whole = decode(&file);
        let json = |src: &mut Reader<Pieces>| -> Vec<(String, Vec<u8>)> {
            let mut out = Vec::new();
            while let Ok(Some(m)) = src.next_json() {
                out.push((m.role.to_string(), m.content.to_vec()));
            }
            out
        };
        let whole_json = read(Pieces(&file, file.len())).map(|mut r| json(&mut r)).unwrap_or_default();
        read_ok += whole.is_ok() as usize;
        for piece in 1..=12 {
            let pieces = read(Pieces(&file, piece)).and_then(Reader::into_session).map_err(|_| ());
            assert_eq!(pieces, whole.clone().map_err(|_| ()), "{piece}: {}", String::from_utf8_lossy(v));
            let mut reader = read(Pieces(&file, piece)).unwrap();
            assert_eq!(json(&mut reader), whole_json, "{piece}: {}", String::from_utf8_lossy(v));
            if reader.canonical.is_some() {
                streamed += 1;
            }
        }
    }
    assert!(read_ok > 100 && streamed > 100, "{read_ok} {streamed}");
}

#[test]
fn rejects_what_is_not_a_session() {
    let m = r#"{"role":"user","content":"","ts":1}"#;
    for doc in [
        String::new(),
        "[]".into(),
        "{}".into(),
        "{\"messages\":[]}".into(),
        "{\"format\":1,\"messages\":[1]}".into(),
        "{\"id\":1,\"messages\":[]}".into(),
        "{\"format\":1,\"id\":\"x\",\"created_at\":1e999,\"messages\":[]}".into(),
        "{\"format\":1,\"id\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"\",\"ts\":-1e999}]}"
            .into(),
        // Damaged messages: the header alone is fine.
        r#"{"format":1,"id":"x","messages":[1,2,3]}"#.into(),
        r#"{"format":1,"id":"x","messages":[null]}"#.into(),
        r#"{"format":1,"id":"x","messages":[{"content":"","ts":1}]}"#.into(),
        r#"{"format":1,"id":"x","messages":[{"role":"user","content":""}]}"#.into(),
        r#"{"format":1,"id":"x","messages":[{"role":"user","content":"","ts":"1"}]}"#.into(),
        r#"{"format":1,"id":"x","messages":[{"role":"user","content":5,"ts":1}]}"#.into(),
        r#"{"format":1,"id":"x","messages":[{"role":"evil","content":"","ts":1}]}"#.into(),
        format!(r#"{{"format":1,"id":"x","messages":[{m},]}}"#),
        format!(r#"{{"format":1,"id":"x","messages":[{m}{m}]}}"#),
        format!(r#"{{"format":1,"id":"x","messages":[{m}]}}x"#),
        format!(r#"{{"format":1,"id":"x","messages":[{m}],"title":"t"}}x"#),
        format!(r#"{{"format":1,"id":"x","messages":[{m}],"z":1,}}"#),
        format!(r#"{{"format":1,"id":"x","messages":[{m}]"#),
        r#"{"format":1,"id":"x","z":[[["#.into(),
        r#"{"format":1,"id":"x","messages":[{"role":"user","content":"","ts":1,"z":[[["#.into(),
    ] {
        assert!(decode(doc.as_bytes()).is_err(), "{doc}");
    }
}

#[test]
fn next_json_gives_the_content_as_a_json_string_plain_or_not() {
    let file = "{\"format\":1,\"id\":\"20261202_120000_abcdef\",\"title\":\"t\",\"messages\":[\n\
        {\"role\":\"user\",\"content\":\"a \\\"b\\\" \\n\",\"ts\":1.5},\n\
        {\"content\":\"\\u00e9t\\u00e9\",\"role\":\"assistant\",\"ts\":2},\n\
        {\"role\":\"user\",\"content\":\"\\u00e9\",\"ts\":3,\"tool\":null}\n]}";
    let mut reader = read(file.as_bytes()).expect("a session");
    let mut seen = Vec::new();
    while let Some(m) = reader.next_json().expect("valid") {
        let content: String = json::parse(&m.content).expect("a JSON string");
        seen.push((m.role, content, matches!(m.content, Cow::Borrowed(_))));
    }
    // A field the fast check does not know: decoded, encoded afresh.
    assert_eq!(
        seen,
        [
            ("user", "a \"b\" \n".to_string(), true),
            ("assistant", "été".to_string(), true),
            ("user", "é".to_string(), false)
        ]
    );
}

#[test]
fn appends_after_the_old_bytes() {
    let s = sample();
    let old = encode(&s.header, &s.messages);
    let new = Message::new("user", "third".into(), 9.0);
    let mut out = Vec::new();
    let header =
        append(&old[..], &mut out, &s.header.id, std::slice::from_ref(&new), |_| {}, 1 << 20).unwrap();
    let mut all = s.messages.clone();
    all.push(new);
    assert_eq!(out, encode(&header, &all));
    assert_eq!(header.message_count, 3);
    assert_eq!(header.updated_at, 9.0);
    let mut out = Vec::new();
    assert!(matches!(append(&old[..], &mut out, "other", &[], |_| {}, 1 << 20), Err(Fault::Damaged(_))));
    assert!(matches!(append(&old[..], &mut out, &s.header.id, &[], |_| {}, 10), Err(Fault::TooLarge)));
}
