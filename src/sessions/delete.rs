//! `hermes sessions delete`: remove sessions, and the breadcrumbs that
//! pointed at them.

use lexopt::prelude::*;

use crate::args::{positional_args, string};
use crate::error::{Error, Result};
use crate::resolve;
use crate::store::Store;
use crate::store::session::Header;
use crate::terminal::breadcrumb;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// One or more, each an ID or an exact title.
    pub(crate) names: Vec<String>,
    pub(crate) yes: bool,
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut yes = false;
    let mut names = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('y') | Long("yes") => yes = true,
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => names.push(string(value)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    if names.is_empty() {
        let [_] = positional_args("delete", Vec::new(), "NAME or ID")?;
    }
    Ok(Args { names, yes })
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { names, yes } = args;
    let names = &names;
    // Resolve every name before deleting anything: a typo deletes nothing.
    let mut doomed: Vec<Header> = Vec::new();
    for name in names {
        let header = resolve::find_by_name(store, name)?;
        if !doomed.iter().any(|h| h.id == header.id) {
            doomed.push(header);
        }
    }
    if !yes {
        let what = match doomed.as_slice() {
            [one] => format!(
                "Delete session '{}' ({}, {})?",
                crate::text::printable(&one.title, false),
                one.id,
                crate::text::counted(one.message_count as usize, "message")
            ),
            many => format!("Delete {} sessions?", many.len()),
        };
        if !crate::terminal::prompt::confirm(&what, "deleting", "hermes sessions delete")? {
            crate::output::note!("nothing deleted");
            return Ok(());
        }
    }
    let _guard = store.lock_store()?;
    let mut ids: Vec<String> = Vec::new();
    for header in &doomed {
        if crate::sys::signal_pending() {
            breadcrumb::forget_sessions(store, &ids);
            return Err(crate::error::Error::Interrupted);
        }
        store.remove(&header.id)?;
        ids.push(header.id.clone());
        crate::output::note!("deleted {} '{}'", header.id, crate::text::printable(&header.title, false));
    }
    breadcrumb::forget_sessions(store, &ids);
    Ok(())
}
