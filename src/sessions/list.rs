//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use nanoserde::SerJson;

use crate::error::Result;
use crate::output::{self, Out, printable};
use crate::resolve::{self, FallbackPicker};
use crate::session::{self, Header};
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

fn warn_skipped(path: &std::path::Path, why: &str) {
    output::warn(&format!("{}: not a valid session file ({why}); skipped", path.display()));
}

/// Writes rows as they come: a JSON array, tab-separated lines for a pipe,
/// or a table sized to the terminal.
struct Printer {
    out: Out,
    json: bool,
    /// The session bare `-c` would continue here, marked `*`.
    current: Option<String>,
    rows: usize,
}

impl Printer {
    fn begin(&mut self) -> Result<()> {
        if self.json {
            self.out.write("[")
        } else if sys::isatty(1) {
            let w = title_width();
            self.out.line(&format!("  {:<w$}  {:<16}  {:>5}  {}", "TITLE", "LAST ACTIVE", "MSGS", "ID"))
        } else {
            Ok(())
        }
    }

    fn row(&mut self, h: &Header) -> Result<()> {
        let is_current = self.current.as_deref() == Some(h.id.as_str());
        self.rows += 1;
        if self.json {
            let separator = if self.rows > 1 { "," } else { "" };
            return self.out.write(&format!("{separator}{}", entry(h, is_current).serialize_json()));
        }
        if !sys::isatty(1) {
            // For pipes: tab-separated, unpadded, full titles; mark first.
            return self.out.line(&format!(
                "{}\t{}\t{}\t{}\t{}",
                if is_current { "*" } else { "" },
                printable(&h.title, false),
                timefmt::local_minutes(h.updated_at),
                h.message_count,
                h.id
            ));
        }
        let width = title_width();
        let title = if h.title.is_empty() {
            "(untitled)".to_string()
        } else {
            fit_columns(&printable(&h.title, false), width)
        };
        self.out.line(&format!(
            "{} {title}{pad}  {:<16}  {:>5}  {}",
            if is_current { "*" } else { " " },
            timefmt::local_minutes(h.updated_at),
            h.message_count,
            h.id,
            pad = " ".repeat(width.saturating_sub(columns_of(&title))),
        ))
    }

    fn end(&mut self) -> Result<()> {
        self.out.line("]")
    }
}

/// Columns left for titles: the terminal's width less mark (2), date (16),
/// count (5), ID (22) and the gaps between them.
fn title_width() -> usize {
    let columns = sys::terminal_columns(1).unwrap_or(80).max(60);
    columns - (2 + 2 + 16 + 2 + 5 + 2 + 22) - 1
}

fn entry(h: &Header, current: bool) -> Entry<'_> {
    Entry {
        id: &h.id,
        title: &h.title,
        title_source: &h.title_source,
        created_at: h.created_at,
        updated_at: h.updated_at,
        message_count: h.message_count,
        cwd: &h.cwd,
        preview: &h.preview,
        current,
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
pub fn collect(store: &Store, terminal: Option<&Terminal>, limit: usize, here: bool) -> Result<Listing> {
    let mut shown: Vec<Header> = Vec::new();
    let mut total = 0;
    let current = scan_listed(store, terminal, here, |header| {
        total += 1;
        keep_newest(&mut shown, header, limit);
    })?;
    shown.sort_by(|a, b| {
        (b.updated_at, &b.id).partial_cmp(&(a.updated_at, &a.id)).unwrap_or(std::cmp::Ordering::Equal)
    });
    // keep_newest only trims once it has gathered enough; finish the job.
    shown.truncate(limit);
    Ok(Listing { shown, total, current })
}

/// The one scan behind every listing: hands `keep` each readable session
/// that belongs in the list (all, or this workspace's with `here`), warns
/// about unreadable files, and returns the ID bare `-c` would continue here.
fn scan_listed(
    store: &Store,
    terminal: Option<&Terminal>,
    here: bool,
    mut keep: impl FnMut(Header),
) -> Result<Option<String>> {
    // A breadcrumb to a session that cannot be read: bare -c would fail on
    // it, so no session is marked; the scan warns about the file.
    let (breadcrumb, crumb_unreadable) = match resolve::from_breadcrumb(store, terminal, chat::now()) {
        Ok(found) => (found, false),
        Err(_) => (None, true),
    };
    let mut picker = FallbackPicker::new();
    let workspace = resolve::current_workspace();
    store.scan(|entry| {
        let header = match entry.header {
            Ok(h) => h,
            Err(ref why) => return warn_skipped(&entry.path(), why),
        };
        if breadcrumb.is_none() && !crumb_unreadable {
            picker.consider(&header);
        }
        if !here || resolve::in_workspace(workspace.as_deref(), &header) {
            keep(header);
        }
    })?;
    Ok(breadcrumb.map(|(h, _)| h.id).or_else(|| picker.pick().map(|(id, _)| id)))
}

/// Keep the `limit` newest headers; the vector never grows past 2*limit.
fn keep_newest(kept: &mut Vec<Header>, header: Header, limit: usize) {
    if limit == 0 {
        return;
    }
    kept.push(header);
    if kept.len() >= limit.saturating_mul(2).max(64) {
        // Partition, not sort: the final order is settled once, at the end.
        kept.select_nth_unstable_by(limit - 1, |a, b| {
            (b.updated_at, &b.id).partial_cmp(&(a.updated_at, &a.id)).unwrap_or(std::cmp::Ordering::Equal)
        });
        kept.truncate(limit);
    }
}

/// `s` cut to at most `max` terminal columns, at a space where one is near,
/// with `…`. Counting characters is not enough: a CJK title takes two
/// columns a character and would push the table past the terminal's edge.
fn fit_columns(s: &str, max: usize) -> String {
    if columns_of(s) <= max {
        return s.to_string();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in s.chars() {
        used += char_columns(c);
        if used > max - 1 {
            break;
        }
        cut.push(c);
    }
    if let Some(at) = cut.rfind(' ').filter(|&at| at > cut.len() / 2) {
        cut.truncate(at);
    }
    format!("{}…", cut.trim_end())
}

fn columns_of(s: &str) -> usize {
    s.chars().map(char_columns).sum()
}

/// Columns a character takes in a terminal: 2 for East Asian wide and
/// full-width characters and emoji, else 1 (titles hold no controls).
fn char_columns(c: char) -> usize {
    match c as u32 {
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x2FFFD
        | 0x30000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// The `/sessions` chat command: the few newest, as a table.
pub fn print_recent(store: &Store, terminal: Option<&Terminal>, limit: usize) -> Result<()> {
    let listing = collect(store, terminal, limit, false)?;
    let mut printer = Printer { out: Out::new(), json: false, current: listing.current, rows: 0 };
    printer.begin()?;
    listing.shown.iter().try_for_each(|h| printer.row(h))?;
    printer.out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_titles_by_terminal_columns() {
        assert_eq!(fit_columns("short", 10), "short");
        assert_eq!(fit_columns("hello wonderful world", 18), "hello wonderful…");
        let wide = "调试".repeat(20);
        let fitted = fit_columns(&wide, 28);
        assert_eq!(columns_of(&fitted), 27);
        assert!(fitted.ends_with('…'));
    }
}
