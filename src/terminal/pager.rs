//! A pager in front of long output on a terminal, as git has one:
//! `$HERMES_PAGER`, else `$PAGER`, else `less` (given `LESS=FRX` when
//! `LESS` is not set: it quits at once when the text fits, passes colours,
//! leaves the screen as it was). Never when stdout is not a terminal, nor
//! after `hermes --no-pager`; a pager named as empty or `cat` is none.
//! While it runs, stdout goes to it and Ctrl-C is its (hermes ignores
//! it); quitting it early ends hermes quietly: a closed pipe is no error.

use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

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
    let mut command = match named {
        Some(pager) if pager.is_empty() || pager == "cat" => return None,
        // A command line, for the shell to read ("less -S", "cat >file").
        Some(pager) => {
            let mut command = Command::new("/bin/sh");
            command.arg("-c").arg(pager);
            command
        }
        None => Command::new("less"),
    };
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
    Some(Pager { child, terminal })
}

impl Drop for Pager {
    fn drop(&mut self) {
        let _ = std::io::stdout().flush();
        // The pipe's last writer closed: the pager reads to its end.
        let _ = sys::dup_onto(self.terminal.as_raw_fd(), 1);
        output::paged_off();
        let _ = self.child.wait();
    }
}
