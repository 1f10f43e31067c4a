//! `hermes sessions`: one module per verb; this one dispatches and holds
//! what the verbs share (asking for confirmation, progress on a terminal).

pub mod current;
pub mod delete;
pub mod export;
pub mod import;
pub mod list;
pub mod prune;
pub mod rename;
pub mod show;
pub mod stats;

use std::io::{self, Write};

use crate::cli::SessionsCommand;
use crate::error::Result;
use crate::store::Store;
use crate::sys;

pub fn run(store: &Store, command: SessionsCommand) -> Result<()> {
    match command {
        SessionsCommand::List { limit, all, here, json } => list::run(store, limit, all, here, json),
        SessionsCommand::Show { name, json } => show::run(store, &name, json),
        SessionsCommand::Current { json } => current::run(store, json),
        SessionsCommand::Export { names, format, output } => {
            export::run(store, &names, format, output.as_deref())
        }
        SessionsCommand::Import(args) => import::run(store, args),
        SessionsCommand::Rename { name, title } => rename::run(store, &name, &title),
        SessionsCommand::Delete { names, yes } => delete::run(store, &names, yes),
        SessionsCommand::Prune { days, dry_run, yes } => prune::run(store, days, dry_run, yes),
        SessionsCommand::Stats { json } => stats::run(store, json),
    }
}

/// A counter on stderr for long operations, shown only on a terminal.
pub struct Progress {
    what: &'static str,
    total: usize,
    done: usize,
    shown: bool,
    enabled: bool,
}

impl Progress {
    pub fn new(what: &'static str, total: usize) -> Progress {
        Progress { what, total, done: 0, shown: false, enabled: sys::isatty(2) && total >= 200 }
    }

    pub fn tick(&mut self) {
        self.done += 1;
        if self.enabled && (self.done.is_multiple_of(100) || self.done == self.total) {
            let _ = write!(io::stderr(), "\r{} {}/{}", self.what, self.done, self.total);
            self.shown = true;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.shown {
            let _ = write!(io::stderr(), "\r\x1b[K");
        }
    }
}
