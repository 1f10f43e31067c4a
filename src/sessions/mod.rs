//! `hermes sessions`: one module per verb; this one dispatches and holds
//! what the verbs share (asking for confirmation, progress on a terminal).

pub(crate) mod compact;
pub(crate) mod current;
pub(crate) mod delete;
pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod list;
pub(crate) mod merge;
pub(crate) mod merge_file;
pub(crate) mod pick;
pub(crate) mod prune;
pub(crate) mod rename;
pub(crate) mod repair;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod stats;

use std::io::{self, Write};

use crate::error::Result;
use crate::store::Store;
use crate::sys;

/// One sessions verb with its arguments, as each verb's `parse` built them.
#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    List(list::Args),
    Search(search::Args),
    Pick(pick::Args),
    Show(show::Args),
    Current(current::Args),
    Export(export::Args),
    Import(import::Args),
    Rename(rename::Args),
    Repair(repair::Args),
    Delete(delete::Args),
    Prune(prune::Args),
    Stats(stats::Args),
    Compact(compact::Args),
    Merge(merge::Args),
    MergeFile(merge_file::Args),
}

/// Carry out a verb. `summarise` is chat's summariser, for `compact`:
/// running the agent is chat's alone.
pub(crate) fn run(store: &Store, command: Command, summarise: compact::Summarise) -> Result<()> {
    match command {
        Command::List(args) => list::run(store, args),
        Command::Search(args) => search::run(store, args),
        Command::Pick(args) => pick::run(store, args),
        Command::Show(args) => show::run(store, args),
        Command::Current(args) => current::run(store, args),
        Command::Export(args) => export::run(store, args),
        Command::Import(args) => import::run(store, args),
        Command::Rename(args) => rename::run(store, args),
        Command::Repair(args) => repair::run(store, args),
        Command::Delete(args) => delete::run(store, args),
        Command::Prune(args) => prune::run(store, args),
        Command::Stats(args) => stats::run(store, args),
        Command::Compact(args) => compact::run(store, args, summarise),
        Command::Merge(args) => merge::run(store, args),
        Command::MergeFile(args) => merge_file::run(args),
    }
}

/// Whether a command only reads the store (it may still write a file the
/// user named, or the header cache).
pub(crate) fn is_read_only(command: &Command) -> bool {
    match command {
        Command::List(_)
        | Command::Search(_)
        | Command::Pick(_)
        | Command::Show(_)
        | Command::Current(_)
        | Command::Export(_)
        | Command::Stats(_) => true,
        // It writes the files git names, never the store.
        Command::MergeFile(_) => true,
        Command::Prune(args) => args.dry_run,
        Command::Merge(args) => args.dry_run,
        Command::Import(args) => args.dry_run,
        Command::Repair(args) => args.dry_run,
        // It runs the agent and may write a summary into the session.
        Command::Rename(_) | Command::Delete(_) | Command::Compact(_) => false,
    }
}

/// Whether a command writes files (store files, or an export file) in
/// steps that a signal should end cleanly.
pub(crate) fn writes_files(command: &Command) -> bool {
    match command {
        Command::Export(args) => args.output.as_ref().is_some_and(|o| o != "-"),
        Command::MergeFile(_) => true,
        // It catches interrupts as chat does: Ctrl-C stops the summariser
        // and leaves the session as it was.
        Command::Compact(_) => false,
        other => !is_read_only(other),
    }
}

/// A counter on stderr for long operations, shown only on a terminal.
pub(crate) struct Progress {
    what: &'static str,
    total: usize,
    done: usize,
    shown: bool,
    enabled: bool,
}

impl Progress {
    pub(crate) fn new(what: &'static str, total: usize) -> Progress {
        Progress { what, total, done: 0, shown: false, enabled: sys::isatty(2) && total >= 200 }
    }

    pub(crate) fn tick(&mut self) {
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
