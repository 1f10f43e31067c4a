//! Any bytes as a session file: the decoders must return an error value,
//! never panic, and whatever decodes must survive a write/read round trip.
#![no_main]

use hermes_fuzz::{json, session};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = json::validate(data);
    if json::validate(data).is_ok() {
        // layout() documents that it wants validated input.
        let _ = json::layout(data);
    }
    let _ = json::find_messages_key(data);
    // `sessions list` decodes the header from a prefix of the file.
    for cut in [data.len(), data.len() / 2, data.len().min(4096)] {
        let _ = session::decode_header(&data[..cut]);
    }
    if let Ok(s) = session::decode(data) {
        // What hermes read it writes back; that must read the same again.
        let again = session::encode(&s.header, &s.messages);
        let back = session::decode(&again).expect("re-encoded session decodes");
        assert_eq!(back.messages.len(), s.messages.len());
        assert_eq!(back.header.id, s.header.id);
        // And the append path splices raw message bytes: that must hold too.
        let layout = json::layout(data).expect("decoded session has a layout");
        let mut raw = data[layout.messages].to_vec();
        if !raw.trim_ascii().is_empty() {
            raw.push(b',');
        }
        raw.extend_from_slice(b"\n{\"role\":\"user\",\"content\":\"x\",\"ts\":1.0}");
        let appended = session::encode_raw(&s.header, &raw);
        let grown = session::decode(&appended).expect("appended session decodes");
        assert_eq!(grown.messages.len(), s.messages.len() + 1);
    }
});
