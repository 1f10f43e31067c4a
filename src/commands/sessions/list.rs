//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use crate::args::{Access, Arg, Given, Kind, Opt, Run, Spec, Value, man, option, switch};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::search::Pattern;
use crate::store::session::{self, Header};
use crate::terminal::{self, Terminal};
use crate::view::list::{Filter, Printer, collect, scan_listed};

/// Above this many rows, `list` gathers them page by page so that memory
/// stays flat however large the store (`--all` on 100,000 sessions).
const PAGE: usize = 10_000;

/// How many sessions `list` shows without `--limit` or `--all`.
pub(crate) const DEFAULT_LIMIT: usize = 20;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// Only sessions whose title holds this.
    pub(crate) title: Option<String>,
    pub(crate) limit: usize,
    pub(crate) all: bool,
    pub(crate) here: bool,
    pub(crate) json: bool,
    /// For the completion scripts (a hidden option): the sessions whose
    /// title or ID starts with this word.
    pub(crate) completing: Option<String>,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions list",
    alias: Some("ls"),
    summary: "sessions, newest activity first (with TEXT, those whose title holds it)",
    about: "\
List sessions, newest activity first: title, last active, messages, ID.
'*' marks the session 'hermes chat -c' would continue in this terminal.
With TEXT, only sessions whose title holds it (case is ignored unless TEXT
has a capital letter). On a terminal the table fits its width; to a pipe
each line is MARK, TITLE, DATE, MESSAGES and ID, tab-separated.

{options}
",
    man: man(r#"
sessions, newest activity first: title, last active, messages, ID.
.RB \(aq * \(aq
marks the session
.B hermes chat \-c
would continue in this terminal.
With
.IR TEXT ,
only sessions whose title holds it (case is ignored unless
.I TEXT
has a capital letter); when none does, exit 1.
On a terminal the output is a table that fits its width: the title
column gets the room that is left (at most 60 columns), IDs shrink to
their shortest unique form (the last 6 hex digits, else the shortest
prefix that names one session) before titles are cut below 20
columns, and on narrow terminals the message count and then the date
go, so that no row wraps.
To a pipe it is one line per
session,
.IR MARK <TAB> TITLE <TAB> DATE <TAB> MESSAGES <TAB> ID ,
titles and IDs in full.
Unreadable session files are skipped with a warning that names them.
"#),
    options: &[
        limit_option().man(
            r#"
show at most
.I N
sessions (default 20)
"#,
        ),
        switch("", "--all", "show every session")
            .man(
                r#"
show every session
"#,
            )
            .sets(|a| a.all = true),
        switch(
            "",
            "--here",
            "only sessions started in this workspace (git root, else the current directory)",
        )
        .man(
            r#"
only sessions started in this workspace (git root, else the current
directory)
"#,
        )
        .sets(|a| a.here = true),
        switch("", "--json", "a JSON array of session headers, for scripts")
            .man(
                r#"
a JSON array of session headers, for scripts
"#,
            )
            .sets(|a| a.json = true),
        // No help: for the completion scripts, not shown or offered.
        option("", "--completing", Value::new("WORD", Kind::Text), "").takes(|a, v| {
            a.completing = Some(v.lossy());
            Ok(())
        }),
    ],
    args: &[Arg::optional("TEXT", Kind::Text).takes(|a, v| {
        a.title = Some(v.lossy());
        Ok(())
    })],
    start: || Args {
        title: None,
        limit: DEFAULT_LIMIT,
        all: false,
        here: false,
        json: false,
        completing: None,
    },
    finish: Ok,
    stray: None,
};

/// `-n/--limit N`, of `list` and `search`.
pub(crate) const fn limit_option<A: Limited>() -> Opt<A> {
    option("-n", "--limit", Value::new("N", Kind::Number), "show at most N sessions (default 20)")
        .takes(set_limit::<A>)
}

/// Arguments with a `--limit`.
pub(crate) trait Limited {
    fn limit(&mut self) -> &mut usize;
}

fn set_limit<A: Limited>(args: &mut A, given: Given) -> Result<()> {
    *args.limit() = given.positive()?;
    Ok(())
}

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
    if let Some(word) = &args.completing {
        return completing(store, word);
    }
    let Args { title, limit, all, here, json, .. } = args;
    let terminal = terminal::identify();
    let filter = Filter { here, title: title.as_deref().map(Pattern::new) };
    let limit = if all { usize::MAX } else { limit };
    let mut printer = Printer::new(json, None);
    let budget = crate::settings::Settings::of_file(store)
        .map_or(crate::store::context::DEFAULT_BUDGET, |s| s.budget());
    printer.budget = Some(crate::view::list::Budget { measures: store.measures(), budget });
    let (shown, total) = if limit <= PAGE {
        let listing = collect(store, terminal.as_ref(), limit, &filter)?;
        printer.current = listing.current.clone();
        printer.plan(store, listing.shown.iter());
        if listing.total > 0 || json {
            printer.begin()?;
            listing.shown.iter().try_for_each(|h| printer.row(h))?;
        }
        (listing.shown.len(), listing.total)
    } else {
        list_in_pages(store, terminal.as_ref(), limit, &filter, &mut printer)?
    };
    if json {
        printer.end()?;
    }
    printer.out.flush()?;
    match title {
        Some(text) if total == 0 => return Err(Error::NoTitleMatch(text)),
        _ if json => return Ok(()),
        _ => {}
    }
    if printer.over > 0 {
        crate::output::note!(
            "('!' marks {} over the context budget with no summary: 'hermes sessions compact NAME')",
            if printer.over == 1 { "a session" } else { "sessions" }
        );
    }
    let damaged = crate::output::not_session_files_warned();
    if total == 0 && damaged > 0 {
        crate::output::note!(
            "No readable sessions{}: {} (see above).",
            if here { " in this workspace" } else { "" },
            crate::text::counted(damaged, "damaged file")
        );
    } else if total == 0 {
        crate::output::note!(
            "No sessions{}. Start one with 'hermes chat'.",
            if here { " in this workspace" } else { "" }
        );
    } else if shown < total {
        crate::output::note!("({shown} of {total} sessions shown; use --limit N or --all to see more)");
    }
    Ok(())
}

/// `--completing WORD`: what the completion scripts offer for WORD, the
/// sessions whose title or ID starts with it (letters of any case alike),
/// newest first, as the lines a pipe gets (MARK, TITLE, DATE, COUNT, ID;
/// no mark, no count): from the catalog alone when it is believed (at
/// 100,000 sessions, one read of it), else from every file.
fn completing(store: &Store, word: &str) -> Result<()> {
    let found: Vec<(f64, String, String)> = match store.starting(word) {
        Some(entries) => {
            entries.into_iter().map(|e| (e.updated_at, e.title.clone(), e.id().to_string())).collect()
        }
        None => {
            let lower = word.to_lowercase();
            let starts = |text: &str| text.to_lowercase().starts_with(&lower);
            let mut found = Vec::new();
            store.scan(|entry| {
                if let Ok(h) = entry.header
                    && (starts(&h.title) || starts(&h.id))
                {
                    found.push((h.updated_at, h.title, h.id));
                }
            })?;
            crate::order::sort_by(&mut found, |a, b| b.0.total_cmp(&a.0).then_with(|| b.2.cmp(&a.2)));
            found
        }
    };
    let mut out = crate::output::Out::new();
    for (updated_at, title, id) in found {
        let line = format!(
            "\t{}\t{}\t\t{id}\n",
            crate::text::printable(&title, false),
            crate::time::local_minutes(updated_at)
        );
        out.write_own(&line)?;
    }
    out.flush()
}

/// A long listing: one pass ranks (time, ID) pairs only, then each page of
/// PAGE rows is filled by another pass and printed. Returns (shown, total).
fn list_in_pages(
    store: &Store,
    terminal: Option<&Terminal>,
    limit: usize,
    filter: &Filter,
    printer: &mut Printer,
) -> Result<(usize, usize)> {
    let mut ranked: Vec<(f64, [u8; 22])> = Vec::new();
    let now = crate::time::now();
    printer.current =
        scan_listed(store, terminal, filter, |h| ranked.push((h.activity(now), session::id_key(&h.id))))?;
    let total = ranked.len();
    crate::order::sort_by(&mut ranked, |a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    ranked.truncate(limit);
    if total == 0 && printer.json {
        printer.begin()?;
    }
    let mut shown = 0;
    let mut begun = total == 0 && printer.json;
    for page in ranked.chunks(PAGE) {
        let slot_of: std::collections::HashMap<[u8; 22], usize> =
            page.iter().enumerate().map(|(i, (_, id))| (*id, i)).collect();
        let mut slots: Vec<Option<Header>> = vec![None; page.len()];
        let mut ids: Vec<[u8; 22]> = page.iter().map(|(_, id)| *id).collect();
        crate::order::sort(&mut ids);
        store.scan_ids(&ids, |entry| {
            if let Ok(h) = entry.header
                && let Some(&i) = slot_of.get(&session::id_key(&h.id))
            {
                // What the scan knows each holds, for --json and the '!'.
                if let (Some(budget), Some(measure)) = (&printer.budget, entry.measure) {
                    budget.measures.know(&h.id, measure);
                }
                slots[i] = Some(h);
            }
        })?;
        if !begun {
            // The first page sizes the table for all.
            printer.plan(store, slots.iter().flatten());
            printer.begin()?;
            begun = true;
        }
        // A session deleted between the passes is simply not shown.
        for h in slots.iter().flatten() {
            printer.row(h)?;
            shown += 1;
        }
    }
    Ok((shown, total))
}
