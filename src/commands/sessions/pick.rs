//! `hermes sessions pick`: choose a session on a full-screen list and
//! print its ID, for `hermes chat -r "$(hermes sessions pick)"`.

use crate::args::{Access, Run, Spec, man};
use crate::error::{EXIT_NOT_FOUND, Error, Result};
use crate::output::Out;
use crate::store::Store;
use crate::view::pick;

#[derive(Debug, PartialEq)]
pub(crate) struct Args;

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions pick",
    alias: None,
    summary: "choose a session on a full-screen list; print its ID",
    about: "\
Choose a session on a full-screen list of all of them, newest first, and
print its ID: hermes chat -r \"$(hermes sessions pick)\". Typing filters
the list by title at once, and by message text (as 'sessions search' finds
it) when typing pauses.

Keys: Up/Down or Ctrl-P/Ctrl-N move, PageUp/PageDown, Home/End; Backspace,
Ctrl-W and Ctrl-U edit the filter; Enter prints the chosen ID; Esc or
Ctrl-C leave printing nothing (exit 1). It draws on the terminal
(/dev/tty) and gives the screen back as it was; without a terminal it is a
usage error. 'hermes chat --pick' picks and continues the session here.
",
    man: man(r#"
choose a session on a full-screen list of all of them, newest first, and
print its ID:
.BR "hermes chat \-r \(dq$(hermes sessions pick)\(dq" .
Typing filters the list by title at once, and by message text (as
.B search
finds it) when typing pauses.
Up and Down (or Ctrl-P and Ctrl-N), PageUp, PageDown, Home and End move;
Backspace, Ctrl-W and Ctrl-U edit the filter; Enter prints the chosen ID;
Esc or Ctrl-C leave printing nothing (exit 1).
It draws on the terminal
.RI ( /dev/tty ,
so its stdout may be a pipe), keeps every row to the width of the
terminal, follows a resize, and gives the screen back as it was.
Without a terminal it is a usage error (exit 2) that names
.B search
and
.BR list .
"#),
    options: &[],
    args: &[],
    start: || Args,
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

pub(crate) fn run(store: &Store, _args: Args) -> Result<()> {
    let tty = pick::open_terminal().map_err(|pick::NoTerminal| {
        Error::usage(
            "sessions pick needs a terminal; without one, find a session with 'hermes sessions search TEXT' \
                or 'hermes sessions list'",
        )
    })?;
    let Some(id) = pick::pick(store, tty)? else {
        return Err(Error::Silent(EXIT_NOT_FOUND));
    };
    let mut out = Out::new();
    out.line(&id)?;
    out.flush()
}
