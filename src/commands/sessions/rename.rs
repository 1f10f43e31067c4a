//! `hermes sessions rename`: a new user title, under the title rules.

use crate::args::{Arg, Kind, Run, Spec, man};
use crate::error::Result;
use crate::resolve;
use crate::store::Store;
use crate::store::titles;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) title: String,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions rename",
    alias: None,
    summary: "give a session a new title",
    about: "\
Give a session a new title. Control and invisible characters are removed and
whitespace is collapsed; a title is at most 100 characters and unique, and
is neither shaped like an ID or an ID prefix (20261204) nor the short ID of
a session (names are read as IDs first).
",
    man: man(r#"
give a session a new title.
Control and invisible characters are removed and whitespace is
collapsed; a title is at most 100 characters and unique: a title held by
another session is refused.
So is a title shaped like a session ID or an ID prefix
.RB ( 20261204 ),
or equal to a session's short ID (the last 6 hex digits of its ID):
names are looked up as IDs first, so it could not be reached by its
name, or would hide the sessions of that ID; this holds for
.BR \-\-title ,
.B \-c
.I NAME
.B \-\-create\-if\-missing
and
.B /title
too.
"#),
    options: &[],
    args: &[
        Arg::one("NAME|ID", Kind::Session).takes(|a, v| {
            a.name = v.lossy();
            Ok(())
        }),
        Arg::one("TITLE", Kind::Text).takes(|a, v| {
            a.title = v.utf8("the new TITLE")?;
            Ok(())
        }),
    ],
    start: || Args { name: String::new(), title: String::new() },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let header = resolve::find_by_name(store, &args.name)?;
    let renamed = titles::rename(store, &header.id, &args.title)?;
    crate::output::note!("renamed {} to '{}'", renamed.id, crate::text::printable(&renamed.title, false));
    Ok(())
}
