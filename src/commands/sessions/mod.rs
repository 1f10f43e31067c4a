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

use crate::args::Command;
use crate::store::Store;
use crate::sys;

/// The sessions verbs, in the order help and completions list them: each
/// is its file's `SPEC` (its options, arguments and help) whose `Args`
/// run (`args::Run`). A new verb is a file and a line here.
pub(crate) const VERBS: &[&dyn Command<Store>] = &[
    &list::SPEC,
    &search::SPEC,
    &pick::SPEC,
    &show::SPEC,
    &current::SPEC,
    &export::SPEC,
    &import::SPEC,
    &rename::SPEC,
    &repair::SPEC,
    &delete::SPEC,
    &prune::SPEC,
    &stats::SPEC,
    &compact::SPEC,
    &merge::SPEC,
    &merge_file::SPEC,
];

/// `-y, --yes`'s help, for the verbs that ask before removing.
pub(crate) const YES_HELP: &str = "do not ask (needed when not on a terminal)";

/// A counter on stderr for long operations, shown only on a terminal, and
/// not while a pager draws on it.
pub(crate) struct Progress {
    what: &'static str,
    total: usize,
    done: usize,
    shown: bool,
    enabled: bool,
}

impl Progress {
    pub(crate) fn new(what: &'static str, total: usize) -> Progress {
        let enabled = sys::isatty(2) && total >= 200 && !crate::output::paged();
        Progress { what, total, done: 0, shown: false, enabled }
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
