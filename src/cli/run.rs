//! The dispatcher, at the top of the house: carry out a parsed command line
//! (open the store, check it is safe, hand the command to `chat` or to a
//! `sessions` verb). `lib.rs` is only the module list.

use std::path::PathBuf;

use super::{Cli, Command};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::{chat, output, sessions, store, sys};

/// Carry out a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Print(text) => print(&text),
        Command::Version { verbose } => print(&version_text(verbose)),
        Command::Completion(shell) => print(&super::completion::script(shell)),
        Command::Chat(args) => {
            let store = open_store(cli.profile)?;
            store.verify().and_then(|()| chat::run(&store, args)).map_err(|e| store.explain(e))
        }
        Command::Config(command) => {
            let store = open_store(cli.profile)?;
            crate::configure::run(&store, command).map_err(|e| store.explain(e))
        }
        Command::Sessions(command) => {
            let store = open_store(cli.profile)?;
            run_sessions(&store, command).map_err(|e| store.explain(e))
        }
    }
}

/// A `hermes sessions` verb, in a home checked as it needs.
fn run_sessions(store: &Store, command: sessions::Command) -> Result<()> {
    // A home others can write to is refused to any command that
    // writes or runs an agent; what only reads goes on, warned.
    if sessions::is_read_only(&command) {
        // It goes on in an unsafe home (your sessions can still be
        // listed and exported), saying once what is wrong.
        for problem in store.trust_problems() {
            output::warn(&problem.message());
        }
    } else {
        store.verify()?;
    }
    if sessions::writes_files(&command) {
        // Ctrl-C or SIGTERM: stop between items and remove the
        // temporary in progress, rather than die and leave it.
        sys::abort_writes_on_signal();
    }
    sessions::run(store, command, chat::compact::summarise)
}

fn print(text: &str) -> Result<()> {
    let mut out = output::Out::new();
    out.write(text)?;
    out.flush()
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
