//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use crate::error::Result;
use crate::output::Out;
use crate::store::Store;
use crate::store::session::{self, Header};
use crate::terminal::{self, Terminal};
use crate::view::list::{Printer, collect, scan_listed};

/// Above this many rows, `list` gathers them page by page so that memory
/// stays flat however large the store (`--all` on 100,000 sessions).
const PAGE: usize = 10_000;

pub fn run(store: &Store, limit: usize, all: bool, here: bool, json: bool) -> Result<()> {
    let terminal = terminal::identify();
    let limit = if all { usize::MAX } else { limit };
    let mut printer = Printer { out: Out::new(), json, current: None, rows: 0 };
    let (shown, total) = if limit <= PAGE {
        let listing = collect(store, terminal.as_ref(), limit, here)?;
        printer.current = listing.current.clone();
        if listing.total > 0 || json {
            printer.begin()?;
            listing.shown.iter().try_for_each(|h| printer.row(h))?;
        }
        (listing.shown.len(), listing.total)
    } else {
        list_in_pages(store, terminal.as_ref(), limit, here, &mut printer)?
    };
    if json {
        printer.end()?;
        return printer.out.flush();
    }
    printer.out.flush()?;
    if total == 0 {
        crate::note!(
            "No sessions{}. Start one with 'hermes chat'.",
            if here { " in this workspace" } else { "" }
        );
    } else if shown < total {
        crate::note!("({shown} of {total} sessions shown; use --limit N or --all to see more)");
    }
    Ok(())
}

/// A long listing: one pass ranks (time, ID) pairs only, then each page of
/// PAGE rows is filled by another pass and printed. Returns (shown, total).
fn list_in_pages(
    store: &Store,
    terminal: Option<&Terminal>,
    limit: usize,
    here: bool,
    printer: &mut Printer,
) -> Result<(usize, usize)> {
    let mut ranked: Vec<(f64, [u8; 22])> = Vec::new();
    printer.current =
        scan_listed(store, terminal, here, |h| ranked.push((h.updated_at, session::id_key(&h.id))))?;
    let total = ranked.len();
    ranked.sort_by(|a, b| (b.0, &b.1).partial_cmp(&(a.0, &a.1)).unwrap_or(std::cmp::Ordering::Equal));
    ranked.truncate(limit);
    if total > 0 || printer.json {
        printer.begin()?;
    }
    let mut shown = 0;
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
        // A session deleted between the passes is simply not shown.
        for h in slots.iter().flatten() {
            printer.row(h)?;
            shown += 1;
        }
    }
    Ok((shown, total))
}
