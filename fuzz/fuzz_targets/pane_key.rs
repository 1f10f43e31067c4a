//! Any pane ID as a breadcrumb key: a file name of at most 120 characters
//! from `[A-Za-z0-9._-]`, never `.` or `..`, the same every time; an ASCII
//! value that fits is mapped character by character, anything else ends
//! in a hash of the whole value.
#![no_main]

use hermes::fuzzing::sanitize_id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let key = sanitize_id(&raw);
    assert!(!key.is_empty() || raw.is_empty());
    assert!(key.len() <= 120, "{key}");
    assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)), "{key}");
    assert!(key != "." && key != "..");
    assert_eq!(sanitize_id(&raw), key);
    if raw.is_ascii() && raw.len() <= 120 {
        assert_eq!(key.len(), raw.len());
    } else {
        let hash = &key[key.len() - 9..];
        assert!(hash.starts_with('-') && hash[1..].bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
    }
});
