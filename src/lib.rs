//! hermes: chat sessions as plain JSON files; every terminal continues its
//! own conversation. The library holds everything; `main.rs` only parses,
//! runs and reports. Layers, bottom up (no module uses one above it):
//! `sys`, `error`, `args`, `hash`, `time`, `text`, `fsio`, `output`; `store`;
//! `config`; `terminal`; `resolve`; `view`; `chat` and `sessions` (which
//! never use each other); `configure` (`hermes config`, which runs the
//! agent of `chat`); `cli`, whose `cli::run` is the dispatcher at the top.

// nanoserde's DeJson derive expands `#[nserde(default)]` Option fields to
// code that clippy's question_mark lint flags (in the derive's output, not
// in ours).
#![allow(clippy::question_mark)]

pub mod args;
pub mod chat;
pub mod cli;
pub mod config;
pub mod configure;
pub mod error;
pub mod fsio;
pub mod hash;
pub mod output;
pub mod resolve;
pub mod sessions;
pub mod store;
pub mod suggest;
pub mod sys;
pub mod terminal;
pub mod text;
pub mod time;
pub mod view;

pub use cli::run::run;
