//! hermes's modules compiled as a library (see build.rs), so the fuzz
//! targets exercise the very code the binary runs.
#![allow(dead_code, unused_imports, unused_macros, unreachable_pub)]

#[path = "../../src/output.rs"]
pub mod output;

include!(concat!(env!("OUT_DIR"), "/modules.rs"));
