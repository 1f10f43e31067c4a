//! `hermes sessions search`: the sessions whose title or messages hold a
//! text, newest activity first, each with where it matched.

use nanoserde::SerJson;

use super::list::{Limited, limit_option};
use crate::args::{Access, Arg, Kind, Run, Spec, man, switch};
use crate::error::{Error, Result};
use crate::output;
use crate::store::Store;
use crate::store::search::{self, Hit, Pattern};
use crate::view::list::Printer;

#[derive(SerJson)]
struct HitJson<'a> {
    id: &'a str,
    title: &'a str,
    updated_at: f64,
    message_count: u64,
    match_count: usize,
    matches: Vec<MatchJson<'a>>,
}

#[derive(SerJson)]
struct MatchJson<'a> {
    /// "title" or "message".
    field: &'a str,
    /// The message's index (from 0); absent for the title.
    message: Option<usize>,
    role: &'a str,
    /// The text around the match, on one line; `match` is what matched.
    snippet: String,
    #[nserde(rename = "match")]
    matched: &'a str,
}

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) text: String,
    pub(crate) limit: usize,
    pub(crate) json: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions search",
    alias: None,
    summary: "sessions whose title or messages hold TEXT",
    about: "\
Sessions whose title or messages hold TEXT, newest activity first, each
with the place it matched first. Case is ignored unless TEXT has a capital
letter. TEXT is matched as the messages read, whatever the file escapes
(quotes, backslashes, newlines, CJK). Exit 0 when some session matches,
1 when none does. Damaged session files are skipped with a warning.

{options}
",
    man: man(r#"
sessions whose title or messages hold
.IR TEXT ,
newest activity first, each with the place it matched first: on a
terminal a table like
.BR list 's
with the match highlighted on a line under each row (not when
.B NO_COLOR
is set); to a pipe the columns of
.B list
and a sixth, the snippet.
Case is ignored unless
.I TEXT
has a capital letter (smart case).
.I TEXT
is matched as the messages read, however the file escapes them:
quotes, backslashes, newlines, CJK written as UTF-8 or as
.BR \eu XXXX .
Exit 0 when some session matches, 1 when none does.
A damaged session file that may hold
.I TEXT
is skipped with a warning that names it (with a catalog, one among the
files the search read).
"#),
    options: &[
        limit_option().man(
            r#"
show at most
.I N
sessions (default 20)
"#,
        ),
        switch(
            "",
            "--json",
            "a JSON array: per session its ID, title, times, the count of matches and the first 10 snippets",
        )
        .man(
            r#"
a JSON array: per session its ID, title, times, the count of matches
and the first 10 snippets
.RB ( field ,
.BR message ,
.BR role ,
.BR snippet ,
.BR match ).
"#,
        )
        .sets(|a| a.json = true),
    ],
    args: &[Arg::one("TEXT", Kind::Text).takes(|a, v| {
        a.text = v.lossy();
        Ok(())
    })],
    start: || Args { text: String::new(), limit: super::list::DEFAULT_LIMIT, json: false },
    finish: Ok,
    stray: None,
};

impl Limited for Args {
    fn limit(&mut self) -> &mut usize {
        &mut self.limit
    }
}

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { text, limit, json } = args;
    let text = text.as_str();
    if text.is_empty() {
        return Err(Error::usage("sessions search: TEXT is empty; give some text to look for"));
    }
    let pattern = Pattern::new(text);
    let found = search::search(store, &pattern, limit, |path, why| {
        output::warn(&format!("{}: not a valid session file ({why}); skipped", path.display()))
    })?;
    let mut printer = Printer::new(json, None);
    if json {
        printer.begin()?;
        for (i, hit) in found.hits.iter().enumerate() {
            printer.out.write(if i > 0 { "," } else { "" })?;
            printer.out.data(&hit_json(hit).serialize_json())?;
        }
        printer.end()?;
    } else if !found.hits.is_empty() {
        printer.plan(store, found.hits.iter().map(|hit| &hit.header));
        printer.begin()?;
        for hit in &found.hits {
            printer.search_row(&hit.header, &hit.matches[0])?;
        }
    }
    printer.out.flush()?;
    if found.hits.is_empty() {
        return Err(Error::NoMatch(text.to_string()));
    }
    if found.more && !json {
        crate::output::note!("(the newest {limit} shown; use --limit N to see more)");
    }
    Ok(())
}

fn hit_json(hit: &Hit) -> HitJson<'_> {
    HitJson {
        id: &hit.header.id,
        title: &hit.header.title,
        updated_at: hit.header.updated_at,
        message_count: hit.header.message_count,
        match_count: hit.total,
        matches: hit
            .matches
            .iter()
            .map(|m| MatchJson {
                field: if m.message.is_some() { "message" } else { "title" },
                message: m.message,
                role: &m.role,
                snippet: format!("{}{}{}", m.before, m.matched, m.after),
                matched: &m.matched,
            })
            .collect(),
    }
}
