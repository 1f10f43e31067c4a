//! `hermes sessions show`: one conversation, roles clearly marked.

use lexopt::prelude::*;

use crate::args::{positional_args, string};
use crate::error::{Error, Result};
use crate::output::Out;
use crate::resolve;
use crate::store::Store;
use crate::store::format;
use crate::store::session::Session;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) json: bool,
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
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
    let [name] = positional_args("show", positional, "NAME or ID")?;
    Ok(Args { name: string(name), json })
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let session = load_named(store, &args.name)?;
    let mut out = Out::new();
    if args.json {
        out.data(&String::from_utf8_lossy(&format::encode(&session.header, &session.messages)))?;
        return out.flush();
    }
    out.write(&crate::view::render(&session))?;
    out.flush()
}

/// The whole session called `name` (ID, else exact title).
pub(crate) fn load_named(store: &Store, name: &str) -> Result<Session> {
    let header = resolve::find_by_name(store, name)?;
    store
        .load(&header.id)?
        .ok_or_else(|| Error::NoSuchSession { name: name.to_string(), did_you_mean: Vec::new() })
}
