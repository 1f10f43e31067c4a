//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use lexopt::prelude::*;

use crate::args::{positional_args, string};
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
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut limit = DEFAULT_LIMIT;
    let mut all = false;
    let mut here = false;
    let mut json = false;
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('n') | Long("limit") => limit = crate::args::limit(parser)?,
            Long("all") => all = true,
            Long("here") => here = true,
            Long("json") => json = true,
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let title = match positional.len() {
        0 => None,
        _ => {
            let [title] = positional_args("list", positional, "")?;
            Some(string(title))
        }
    };
    Ok(Args { title, limit, all, here, json })
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { title, limit, all, here, json } = args;
    let terminal = terminal::identify();
    let filter = Filter { here, title: title.as_deref().map(Pattern::new) };
    let limit = if all { usize::MAX } else { limit };
    let mut printer = Printer::new(json, None);
    let budget = crate::config::load(store).map_or(crate::store::context::DEFAULT_BUDGET, |c| c.budget());
    printer.budget = Some(crate::view::list::Budget { dir: store.sessions_dir().to_path_buf(), budget });
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
    if total == 0 {
        crate::output::note!(
            "No sessions{}. Start one with 'hermes chat'.",
            if here { " in this workspace" } else { "" }
        );
    } else if shown < total {
        crate::output::note!("({shown} of {total} sessions shown; use --limit N or --all to see more)");
    }
    Ok(())
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
    ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
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
        ids.sort_unstable();
        store.scan_ids(&ids, |entry| {
            if let Ok(h) = entry.header
                && let Some(&i) = slot_of.get(&session::id_key(&h.id))
            {
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
