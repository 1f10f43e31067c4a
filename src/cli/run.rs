//! The dispatcher, at the top of the house: carry out a parsed command line
//! (open the store, check it is safe as the command's `Access` asks, run
//! the command).

use std::path::PathBuf;

use super::{Action, Cli, print};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::terminal::pager;
use crate::{output, store, sys};

/// Carry out a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    if cli.no_pager {
        pager::refuse();
    }
    match cli.action {
        Action::Print(text) => pager::around(pager::start_for(&text), || print(&text)),
        Action::Version { verbose } => print(&version_text(verbose)),
        Action::NoStore(job) => job.run(&()),
        Action::Store(job) => {
            let store = open_store(cli.profile)?;
            let access = job.access();
            // A home others can write to is refused to any command that
            // writes or runs an agent; what only reads goes on, warned
            // (your sessions can still be listed and exported).
            if access.is_read_only() {
                for problem in store.trust_problems() {
                    output::warn(&problem.message());
                }
            } else {
                store.verify().map_err(|e| store.explain(e))?;
            }
            if access.writes_files() {
                // Ctrl-C or SIGTERM: stop between items and remove the
                // temporary in progress, rather than die and leave it.
                sys::abort_writes_on_signal();
            }
            // Quitting the pager early closes stdout: no error (BrokenPipe).
            let pager = if job.paged() { pager::start() } else { None };
            pager::around(pager, || job.run(&store).map_err(|e| store.explain(e)))
        }
    }
}

fn version_text(verbose: bool) -> String {
    let mut text = format!("hermes {}\n", env!("CARGO_PKG_VERSION"));
    if verbose {
        text.push_str(&format!(
            "session format: {}\ntarget: {}-{}\nprofile: {}\nstatic: {}\n",
            store::session::FORMAT,
            std::env::consts::ARCH,
            std::env::consts::OS,
            if cfg!(debug_assertions) { "debug" } else { "release" },
            if cfg!(target_feature = "crt-static") { "yes" } else { "no" },
        ));
    }
    text
}

/// `$HERMES_HOME`, else `$HOME/.hermes`; `-p NAME` picks a profile in it.
fn open_store(profile: Option<String>) -> Result<Store> {
    let base = match std::env::var_os("HERMES_HOME").filter(|v| !v.is_empty()) {
        Some(home) => PathBuf::from(home),
        None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
            Some(home) => PathBuf::from(home).join(".hermes"),
            None => {
                return Err(Error::NoHome);
            }
        },
    };
    let base = if base.is_relative() {
        std::env::current_dir().map_err(|e| Error::io(&base, e))?.join(base)
    } else {
        base
    };
    Ok(Store::in_home(base, profile.as_deref()))
}
