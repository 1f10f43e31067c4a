//! `hermes sessions pick`: choose a session on a full-screen list and
//! print its ID, for `hermes chat -r "$(hermes sessions pick)"`.

use lexopt::prelude::*;

use crate::args::positional_args;
use crate::error::{EXIT_NOT_FOUND, Error, Result};
use crate::output::Out;
use crate::store::Store;
use crate::view::pick;

#[derive(Debug, PartialEq)]
pub(crate) struct Args;

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [] = positional_args("pick", positional, "")?;
    Ok(Args)
}

pub(crate) fn run(store: &Store, _args: Args) -> Result<()> {
    let tty = pick::open_terminal().map_err(|pick::NoTerminal| {
        Error::usage(
            "sessions pick needs a terminal; without one, find a session with 'hermes sessions search TEXT' or 'hermes sessions list'",
        )
    })?;
    let Some(id) = pick::pick(store, tty)? else {
        return Err(Error::Silent(EXIT_NOT_FOUND));
    };
    let mut out = Out::new();
    out.line(&id)?;
    out.flush()
}
