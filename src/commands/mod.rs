//! hermes's commands, one tree: a folder or a file per command, and in a
//! command of verbs a file per verb, each holding what it parses (its
//! `SPEC`, its `Args`) beside what it does (`run`). `cli::defs` lists them.

pub(crate) mod chat;
pub(crate) mod config;
pub(crate) mod models;
pub(crate) mod roles;
pub(crate) mod sessions;
