//! hermes: chat sessions as plain JSON files; every terminal continues its
//! own conversation. The library holds everything; `main.rs` only parses,
//! runs and reports. The rooms and their ranks (no module uses one ranked
//! above its own) are in ARCHITECTURE.md, checked by
//! tests/t6700-architecture.sh.

// nanoserde's DeJson derive expands `#[nserde(default)]` Option fields to
// code that clippy's question_mark lint flags (in the derive's output, not
// in ours).
#![allow(clippy::question_mark)]

mod agent;
mod base;
mod cli;
mod commands;
mod resolve;
mod settings;
mod store;
mod terminal;
mod view;

// The ground floor's modules by their own names (`crate::text`), as every
// floor above names them: base/ is where they live, not a word of their
// paths.
use base::{args, encoding, error, fsio, hash, order, output, suggest, sys, text, time, words, wrap};

// What `main.rs` calls: parse, run, and report. Everything else is
// `pub(crate)`, so the compiler names what nothing uses.
pub use cli::run::run;
pub use cli::{Cli, parse};
pub use error::Error;
pub use output::{notice, report};
pub use sys::{return_large_buffers, survive_file_size_limit};

/// The decoders the fuzz targets in `fuzz/` drive: everything hermes reads
/// that another program may have written. Not an interface to build on.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::agent::decode;
    pub use crate::store::{MAX_SESSION_BYTES, format, json, session};
    pub use crate::terminal::{breadcrumb, sanitize_id};
}
