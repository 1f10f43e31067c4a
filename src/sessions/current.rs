//! `hermes sessions current`: which session bare `hermes chat -c` would
//! continue in this terminal, and why.

use lexopt::prelude::*;
use nanoserde::SerJson;

use crate::args::positional_args;
use crate::error::{Error, Result};
use crate::output::Out;
use crate::store::Store;
use crate::terminal;
use crate::terminal::resolve::{self, Reason};
use crate::time;

#[derive(SerJson)]
struct Current<'a> {
    id: &'a str,
    title: &'a str,
    reason: &'a str,
}

/// The options `current` takes, for the help and completion checks.
pub const OPTIONS: &[&str] = &["--json", "-h", "--help"];

#[derive(Debug, PartialEq)]
pub struct Args {
    pub json: bool,
}

pub fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut json = false;
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => json = true,
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [] = positional_args("current", positional, "")?;
    Ok(Args { json })
}

pub fn run(store: &Store, args: Args) -> Result<()> {
    let terminal = terminal::identify();
    let Some((header, reason)) = resolve::resolve_continue(store, terminal.as_ref(), time::now())? else {
        return Err(Error::NothingToContinue);
    };
    let mut out = Out::new();
    if args.json {
        let current = Current { id: &header.id, title: &header.title, reason: reason.as_str() };
        out.line(&current.serialize_json())?;
    } else {
        let why = match reason {
            Reason::Breadcrumb => "this terminal used it last",
            Reason::Workspace => "the newest session in this workspace",
            Reason::Latest => "the newest session",
        };
        out.line(&format!(
            "{}\t{}\t{} ({why})",
            header.id,
            crate::text::printable(&header.title, false),
            reason.as_str()
        ))?;
    }
    out.flush()
}
