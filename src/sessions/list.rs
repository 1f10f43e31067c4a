//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use nanoserde::SerJson;

use crate::error::Result;
use crate::output::{self, Out};
use crate::resolve::{self, FallbackPicker, Reason};
use crate::session::{Header, truncate_words};
use crate::store::Store;
use crate::terminal::{self, Terminal};
use crate::{chat, sys, timefmt};

#[derive(SerJson)]
struct Entry<'a> {
    id: &'a str,
    title: &'a str,
    title_source: &'a str,
    created_at: f64,
    updated_at: f64,
    message_count: u64,
    cwd: &'a str,
    preview: &'a str,
    current: bool,
}

pub fn run(store: &Store, limit: usize, all: bool, here: bool, json: bool) -> Result<()> {
    let terminal = terminal::identify();
    let listing = collect(
        store,
        terminal.as_ref(),
        if all { usize::MAX } else { limit },
        here,
    )?;
    let mut out = Out::new();
    if json {
        let entries: Vec<Entry> = listing
            .shown
            .iter()
            .map(|h| entry(h, listing.current.as_deref()))
            .collect();
        out.line(&entries.serialize_json())?;
        return out.flush();
    }
    if listing.total == 0 {
        crate::note!(
            "No sessions{}. Start one with 'hermes chat'.",
            if here { " in this workspace" } else { "" }
        );
        return Ok(());
    }
    print_table(&mut out, &listing)?;
    out.flush()?;
    if listing.shown.len() < listing.total {
        crate::note!(
            "({} of {} sessions shown; use --limit N or --all to see more)",
            listing.shown.len(),
            listing.total
        );
    }
    Ok(())
}

fn entry<'a>(h: &'a Header, current: Option<&str>) -> Entry<'a> {
    Entry {
        id: &h.id,
        title: &h.title,
        title_source: &h.title_source,
        created_at: h.created_at,
        updated_at: h.updated_at,
        message_count: h.message_count,
        cwd: &h.cwd,
        preview: &h.preview,
        current: current == Some(h.id.as_str()),
    }
}

pub struct Listing {
    /// Newest first, at most `limit`.
    pub shown: Vec<Header>,
    /// How many sessions matched in all.
    pub total: usize,
    /// The session bare `-c` would continue here.
    pub current: Option<String>,
}

/// One pass over the store: the newest `limit` sessions (a bounded
/// selection, so memory does not grow with the store), their total, and
/// which one `-c` would pick.
pub fn collect(
    store: &Store,
    terminal: Option<&Terminal>,
    limit: usize,
    here: bool,
) -> Result<Listing> {
    let now = chat::now();
    let breadcrumb = resolve::from_breadcrumb(store, terminal, now)?;
    let mut picker = FallbackPicker::new();
    let workspace = resolve::current_workspace();
    let mut shown: Vec<Header> = Vec::new();
    let mut total = 0;
    store.scan(|entry| {
        let header = match entry.header {
            Ok(h) => h,
            Err(why) => {
                output::warn(&format!(
                    "{}: not a valid session file ({why}); skipped",
                    entry.path.display()
                ));
                return;
            }
        };
        if breadcrumb.is_none() {
            picker.consider(&header);
        }
        if here && !resolve::in_workspace(workspace.as_deref(), &header) {
            return;
        }
        total += 1;
        keep_newest(&mut shown, header, limit);
    })?;
    shown.sort_by(|a, b| {
        (b.updated_at, &b.id)
            .partial_cmp(&(a.updated_at, &a.id))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let current = breadcrumb
        .or_else(|| picker.pick())
        .map(|(h, _): (Header, Reason)| h.id);
    Ok(Listing {
        shown,
        total,
        current,
    })
}

/// Keep the `limit` newest headers; the vector never grows past 2*limit.
fn keep_newest(kept: &mut Vec<Header>, header: Header, limit: usize) {
    if limit == 0 {
        return;
    }
    kept.push(header);
    if kept.len() >= limit.saturating_mul(2).max(64) {
        kept.sort_by(|a, b| {
            (b.updated_at, &b.id)
                .partial_cmp(&(a.updated_at, &a.id))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        kept.truncate(limit);
    }
}

fn print_table(out: &mut Out, listing: &Listing) -> Result<()> {
    if !sys::isatty(1) {
        // For pipes: tab-separated, unpadded, full titles; mark column first.
        for h in &listing.shown {
            let mark = if listing.current.as_deref() == Some(h.id.as_str()) {
                "*"
            } else {
                ""
            };
            out.line(&format!(
                "{mark}\t{}\t{}\t{}\t{}",
                h.title,
                timefmt::local_minutes(h.updated_at),
                h.message_count,
                h.id
            ))?;
        }
        return Ok(());
    }
    // id 22, date 16, count 5, gaps: "* " + 3 x "  " = 8 columns of 80.
    let columns = sys::terminal_columns(1).unwrap_or(80).max(60);
    let title_width = columns - (2 + 2 + 16 + 2 + 5 + 2 + 22) - 1;
    out.line(&format!(
        "  {:<title_width$}  {:<16}  {:>5}  {}",
        "TITLE", "LAST ACTIVE", "MSGS", "ID"
    ))?;
    for h in &listing.shown {
        let mark = if listing.current.as_deref() == Some(h.id.as_str()) {
            "*"
        } else {
            " "
        };
        let title = if h.title.is_empty() {
            "(untitled)".to_string()
        } else {
            truncate_words(&h.title, title_width)
        };
        out.line(&format!(
            "{mark} {title}{pad}  {:<16}  {:>5}  {}",
            timefmt::local_minutes(h.updated_at),
            h.message_count,
            h.id,
            pad = " ".repeat(title_width.saturating_sub(title.chars().count())),
        ))?;
    }
    Ok(())
}

/// The `/sessions` chat command: the few newest, as a table.
pub fn print_recent(store: &Store, terminal: Option<&Terminal>, limit: usize) -> Result<()> {
    let listing = collect(store, terminal, limit, false)?;
    let mut out = Out::new();
    print_table(&mut out, &listing)?;
    out.flush()
}
