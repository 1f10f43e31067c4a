//! Any bytes as a breadcrumb file: decode returns None, never panics, and
//! what it accepts survives being written again.
#![no_main]

use hermes::fuzzing::breadcrumb;
use libfuzzer_sys::fuzz_target;
use nanoserde::SerJson;

fuzz_target!(|data: &[u8]| {
    if let Some(crumb) = breadcrumb::decode(data) {
        // hermes never writes back a breadcrumb it read (each write is a
        // fresh one with the current time), so 1e999 read as infinity is
        // harmless here; any finite one must round-trip.
        if crumb.ts.is_finite() {
            let again = crumb.serialize_json();
            assert_eq!(breadcrumb::decode(again.as_bytes()), Some(crumb));
        }
    }
});
