//! Any bytes, in any pieces, as an agent's output: the decoder must never
//! panic, must hold bounded memory whatever comes, and plain text must
//! decode to exactly what was written, however it was cut.
#![no_main]

use hermes::fuzzing::decode::{Decoder, Form, PENDING_LIMIT, TooLarge};
use hermes::fuzzing::session::MAX_MESSAGE_BYTES;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte chooses the cuts: piece lengths from a small cycle.
    let Some((&seed, output)) = data.split_first() else { return };
    let lengths = [1 + (seed as usize % 7), 1 + (seed as usize / 7 % 13), 8192];
    let mut decoder = Decoder::default();
    let mut shown = Vec::new();
    let mut rest = output;
    let mut i = 0;
    while !rest.is_empty() {
        let n = lengths[i % lengths.len()].min(rest.len());
        let (piece, after) = rest.split_at(n);
        rest = after;
        i += 1;
        match decoder.feed(piece) {
            Ok(now) => shown.extend(now),
            Err(TooLarge) => return,
        }
        let (pending, kept) = decoder.held();
        assert!(pending <= PENDING_LIMIT + 8192, "undecoded output grows without bound");
        assert!(kept <= MAX_MESSAGE_BYTES, "the reply grows past its limit");
    }
    let form = decoder.form();
    let Ok(finished) = decoder.finish() else { return };
    assert!(finished.text.len() <= MAX_MESSAGE_BYTES);
    shown.extend(finished.shown);
    if form == Form::Text {
        // Plain text is shown as it came and saved as it came (as UTF-8,
        // trailing whitespace trimmed).
        assert_eq!(shown, output, "plain text shown otherwise than written");
        let saved = String::from_utf8_lossy(output);
        assert_eq!(finished.text, saved.trim_end(), "plain text saved otherwise than written");
    }
});
