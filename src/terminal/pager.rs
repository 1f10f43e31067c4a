//! A pager in front of long output on a terminal, as git has one:
//! `$HERMES_PAGER`, else `$PAGER`, else `less` (given `LESS=FRX` when
//! `LESS` is not set: it quits at once when the text fits, passes colours,
//! leaves the screen as it was). Never when stdout is not a terminal, nor
//! after `hermes --no-pager`; a pager named as empty or `cat` is none.
//! While it runs, stdout goes to it and Ctrl-C is its (hermes ignores
//! it); quitting it early ends hermes quietly: a closed pipe is no error.
//! A pager that is not there is said, once, and the output shown without
//! it; one that fails makes the command fail (`Pager::finish`).

use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{Error, Result};
use crate::{output, sys};

/// `hermes --no-pager` was given.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// No pager in this run (`hermes --no-pager`).
pub(crate) fn refuse() {
    REFUSED.store(true, Ordering::SeqCst);
}

/// The pager stdout goes to. Dropped, stdout is the terminal again, which
/// ends the pager's input, and the pager is waited for.
pub(crate) struct Pager {
    child: Child,
    terminal: OwnedFd,
    /// As named, for what is said if it fails.
    named: String,
}

/// Run `write` with stdout going to `pager` (if any), then let the pager
/// end: the command's outcome, else the pager's failure.
pub(crate) fn around<T>(pager: Option<Pager>, write: impl FnOnce() -> Result<T>) -> Result<T> {
    let written = write();
    let finished = pager.map_or(Ok(()), Pager::finish);
    let value = written?;
    finished.map(|()| value)
}

/// The pager for `text` (help): only when it is longer than the screen.
pub(crate) fn start_for(text: &str) -> Option<Pager> {
    let (rows, _) = sys::window_size(1)?;
    if text.lines().count() < rows {
        return None;
    }
    start()
}

/// Start the pager if one is wanted (see the module's help): from now on
/// what is written to stdout goes to it. None: stdout is as it was.
pub(crate) fn start() -> Option<Pager> {
    if REFUSED.load(Ordering::SeqCst) || !sys::isatty(1) {
        return None;
    }
    let named = ["HERMES_PAGER", "PAGER"].iter().find_map(std::env::var_os);
    let mut command = match &named {
        Some(pager) if pager.is_empty() || pager == "cat" => return None,
        // One word that names no program: said, and no pager.
        Some(pager) if is_missing_program(pager) => {
            output::warn(&format!(
                "the pager '{}' is not installed (PAGER or HERMES_PAGER); showing the output without it",
                pager.to_string_lossy()
            ));
            return None;
        }
        // A command line, for the shell to read ("less -S", "cat >file").
        Some(pager) => {
            let mut command = Command::new("/bin/sh");
            command.arg("-c").arg(pager);
            command
        }
        None => Command::new("less"),
    };
    let named = named.map_or_else(|| "less".to_string(), |n| n.to_string_lossy().into_owned());
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        command.env("LV", "-c");
    }
    let columns = sys::terminal_columns(1).unwrap_or(80);
    // No less on this system: no pager.
    let mut child = command.stdin(Stdio::piped()).spawn().ok()?;
    let input = child.stdin.take()?;
    let _ = std::io::stdout().flush();
    let terminal = sys::dup(1).ok()?;
    sys::dup_onto(input.as_raw_fd(), 1).ok()?;
    drop(input);
    output::paged_on(columns);
    sys::ignore_interrupts();
    Some(Pager { child, terminal, named })
}

/// Whether `pager` is one plain word (a program's name, no shell syntax)
/// that is nowhere on PATH, nor a path to a program.
fn is_missing_program(pager: &std::ffi::OsStr) -> bool {
    let Some(word) = pager.to_str() else { return false };
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b));
    plain && crate::agent::shipped::find_on_path(word).is_none() && !std::path::Path::new(word).is_file()
}

impl Pager {
    /// Stdout back to the terminal, and the pager waited for: an error when
    /// it failed (not found by its shell, or exiting with an error of its
    /// own); quitting it early is no failure.
    pub(crate) fn finish(mut self) -> Result<()> {
        let status = self.end();
        match status {
            Some(status) if !status.success() && status.code().is_some() => {
                let how = match status.code() {
                    Some(127) => "could not be run (its shell found no such command)".to_string(),
                    Some(code) => format!("exited with status {code}"),
                    None => unreachable!("a code"),
                };
                Err(Error::PagerFailed { pager: std::mem::take(&mut self.named), how })
            }
            _ => Ok(()),
        }
    }

    /// Stdout back to the terminal; the pager's exit status, once.
    fn end(&mut self) -> Option<std::process::ExitStatus> {
        let _ = std::io::stdout().flush();
        // The pipe's last writer closed: the pager reads to its end.
        let _ = sys::dup_onto(self.terminal.as_raw_fd(), 1);
        output::paged_off();
        self.child.wait().ok()
    }
}

impl Drop for Pager {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.end();
        }
    }
}
