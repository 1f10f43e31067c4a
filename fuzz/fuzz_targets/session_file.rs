//! Any bytes as a session file: the readers must return an error value,
//! never panic or hang, and whatever decodes must survive a write/read
//! round trip and an append by `format::append`, the very function
//! `Store::append` runs.
#![no_main]

use hermes::fuzzing::format::{self, Fault};
use hermes::fuzzing::session::{FORMAT, Message};
use hermes::fuzzing::{MAX_SESSION_BYTES, json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = json::validate(data);
    let _ = json::find_messages_key(data);
    // `sessions list` decodes the header from a prefix of the file.
    for cut in [data.len(), data.len() / 2, data.len().min(4096)] {
        let _ = format::decode_header(&data[..cut]);
    }
    let decoded = format::decode(data);
    let new = Message::new("user", "x".into(), 1.0);
    // The ID the file gives: its keys may be in any order.
    let id = match (&decoded, format::decode_header(data)) {
        (Ok(s), _) => s.header.id.clone(),
        (Err(_), Ok(header)) => header.id,
        (Err(_), Err(_)) => String::new(),
    };
    let mut appended = Vec::new();
    let result = format::append(data, &mut appended, &id, std::slice::from_ref(&new), |_| {}, MAX_SESSION_BYTES);
    let Ok(s) = decoded else {
        // What does not decode is never appended to.
        assert!(result.is_err(), "appended to a file that does not decode");
        return;
    };
    // What hermes read it writes back; that must read the same again.
    let again = format::encode(&s.header, &s.messages);
    let back = format::decode(&again).expect("re-encoded session decodes");
    assert_eq!(back, s);
    // Appending copies the old messages as bytes; the result must decode
    // with one message more and the header the append returned.
    match result {
        Ok(header) => {
            let grown = format::decode(&appended).expect("appended session decodes");
            assert_eq!(grown.messages.len(), s.messages.len() + 1);
            assert_eq!(grown.messages[..s.messages.len()], s.messages[..]);
            assert_eq!(grown.header, header);
            assert_eq!(header.id, s.header.id);
        }
        Err(Fault::Newer(_)) => assert!(s.header.format > FORMAT),
        Err(e) => panic!("a session that decodes was not appended to: {e:?}"),
    }
});
