//! Any bytes as a session file: the decoders must return an error value,
//! never panic, and whatever decodes must survive a write/read round trip
//! and an append the way `Store::append` splices one.
#![no_main]

use hermes::store::{json, session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The one-pass validate-and-split must agree with the plain validator.
    let valid = json::validate(data).is_ok();
    let layout = json::layout(data);
    assert_eq!(layout.is_ok(), valid, "layout and validate disagree");
    let _ = json::find_messages_key(data);
    // `sessions list` decodes the header from a prefix of the file.
    for cut in [data.len(), data.len() / 2, data.len().min(4096)] {
        let _ = session::decode_header(&data[..cut]);
    }
    let Ok(s) = session::decode(data) else { return };
    // What hermes read it writes back; that must read the same again.
    let again = session::encode(&s.header, &s.messages);
    let back = session::decode(&again).expect("re-encoded session decodes");
    assert_eq!(back, s);
    // Appending copies the old messages as raw bytes; the result must
    // decode with one message more and the same header fields.
    let Ok(Some(layout)) = layout else {
        panic!("decoded session has no layout")
    };
    let old = data[layout.messages].trim_ascii();
    let mut raw = Vec::new();
    if !old.is_empty() {
        raw.push(b'\n');
        raw.extend_from_slice(old);
        raw.push(b',');
    }
    raw.extend_from_slice(b"\n{\"role\":\"user\",\"content\":\"x\",\"ts\":1.0}");
    let appended = session::encode_raw(&s.header, &raw);
    let grown = session::decode(&appended).expect("appended session decodes");
    assert_eq!(grown.messages.len(), s.messages.len() + 1);
    assert_eq!(grown.messages[..s.messages.len()], s.messages[..]);
    assert_eq!(grown.header, s.header);
});
