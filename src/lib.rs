//! hermes: chat sessions as plain JSON files; every terminal continues its
//! own conversation. The library holds everything; `main.rs` only parses,
//! runs and reports. Layers, bottom up (no module uses one above it):
//! `sys`, `error`, `args`, `hash`, `time`, `text`, `fsio`, `output`; `store`;
//! `config`; `terminal`; `resolve`; `view`; `chat` and `sessions` (which
//! never use each other); `cli`, whose `cli::run` is the dispatcher at the top.

pub mod args;
pub mod chat;
pub mod cli;
pub mod config;
pub mod error;
pub mod fsio;
pub mod hash;
pub mod output;
pub mod resolve;
pub mod sessions;
pub mod store;
pub mod sys;
pub mod terminal;
pub mod text;
pub mod time;
pub mod view;

pub use cli::run::run;
