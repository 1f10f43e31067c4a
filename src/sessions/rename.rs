//! `hermes sessions rename`: a new user title, under the title rules.

use lexopt::prelude::*;

use crate::args::{positional_args, string, text};
use crate::error::{Error, Result};
use crate::resolve;
use crate::store::Store;
use crate::store::titles;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) title: String,
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [name, title] = positional_args("rename", positional, "NAME or ID and the new TITLE")?;
    Ok(Args { name: string(name), title: text(title, "the new TITLE")? })
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let header = resolve::find_by_name(store, &args.name)?;
    let renamed = titles::rename(store, &header.id, &args.title)?;
    crate::output::note!("renamed {} to '{}'", renamed.id, crate::text::printable(&renamed.title, false));
    Ok(())
}
