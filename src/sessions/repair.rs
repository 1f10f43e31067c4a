//! `hermes sessions repair`: mend a session whose header reads and one of
//! whose messages does not: the file is copied aside whole, then written
//! back with every readable message.

use lexopt::prelude::*;

use crate::args::{positional_args, string};
use crate::error::{Error, Result};
use crate::resolve;
use crate::store::Store;
use crate::text::{counted, printable};

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) dry_run: bool,
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut dry_run = false;
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("dry-run") => dry_run = true,
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [name] = positional_args("repair", positional, "NAME or ID")?;
    Ok(Args { name: string(name), dry_run })
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    // A damaged session is found by its names; one that the lookup itself
    // reads as damaged (cut short: found by ID) says which it is.
    let (id, title) = match resolve::find_by_name(store, &args.name) {
        Ok(header) => (header.id, header.title),
        Err(Error::DamagedSession { id, .. }) => (id, String::new()),
        Err(e) => return Err(e),
    };
    let named = |title: &str| match title {
        "" => id.clone(),
        title => format!("{id} '{}'", printable(title, false)),
    };
    let Some(repair) = store.repair(&id, args.dry_run)? else {
        crate::output::say!("session {} is not damaged; nothing to do", named(&title));
        return Ok(());
    };
    let named = named(&repair.title);
    let mut text = match &repair.aside {
        None => format!(
            "would keep {} of session {named}, and leave out {}",
            counted(repair.kept, "readable message"),
            counted(repair.lost.len(), "damaged part")
        ),
        Some(_) => format!(
            "repaired session {named}: kept {}, left out {}",
            counted(repair.kept, "readable message"),
            counted(repair.lost.len(), "damaged part")
        ),
    };
    text.push(':');
    for why in &repair.lost {
        text.push_str(&format!("\n  {}", printable(why, false)));
    }
    match &repair.aside {
        None => text.push_str(&format!(
            "\nnothing was written; without --dry-run the file is first copied, whole, into {}",
            store.damaged_dir().display()
        )),
        Some(aside) => text
            .push_str(&format!("\nthe original file, damaged parts and all, is kept in {}", aside.display())),
    }
    crate::output::say!("{text}");
    Ok(())
}
