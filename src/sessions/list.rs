//! `hermes sessions list`: sessions by newest activity, marking the one
//! bare `-c` would continue in this terminal.

use nanoserde::SerJson;

use crate::error::Result;
use crate::output::{self, Out};
use crate::resolve::{self, FallbackPicker, Reason};
use crate::session::Header;
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
    let listing = collect(store, terminal.as_ref(), if all { usize::MAX } else { limit }, here)?;
    let mut out = Out::new();
    if json {
        let entries: Vec<Entry> =
            listing.shown.iter().map(|h| entry(h, listing.current.as_deref())).collect();
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
pub fn collect(store: &Store, terminal: Option<&Terminal>, limit: usize, here: bool) -> Result<Listing> {
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
                output::warn(&format!("{}: not a valid session file ({why}); skipped", entry.path.display()));
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
        (b.updated_at, &b.id).partial_cmp(&(a.updated_at, &a.id)).unwrap_or(std::cmp::Ordering::Equal)
    });
    // keep_newest only trims once it has gathered enough; finish the job.
    shown.truncate(limit);
    let current = breadcrumb.or_else(|| picker.pick()).map(|(h, _): (Header, Reason)| h.id);
    Ok(Listing { shown, total, current })
}

/// Keep the `limit` newest headers; the vector never grows past 2*limit.
fn keep_newest(kept: &mut Vec<Header>, header: Header, limit: usize) {
    if limit == 0 {
        return;
    }
    kept.push(header);
    if kept.len() >= limit.saturating_mul(2).max(64) {
        kept.sort_by(|a, b| {
            (b.updated_at, &b.id).partial_cmp(&(a.updated_at, &a.id)).unwrap_or(std::cmp::Ordering::Equal)
        });
        kept.truncate(limit);
    }
}

fn print_table(out: &mut Out, listing: &Listing) -> Result<()> {
    if !sys::isatty(1) {
        // For pipes: tab-separated, unpadded, full titles; mark column first.
        for h in &listing.shown {
            let mark = if listing.current.as_deref() == Some(h.id.as_str()) { "*" } else { "" };
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
    out.line(&format!("  {:<title_width$}  {:<16}  {:>5}  {}", "TITLE", "LAST ACTIVE", "MSGS", "ID"))?;
    for h in &listing.shown {
        let mark = if listing.current.as_deref() == Some(h.id.as_str()) { "*" } else { " " };
        let title =
            if h.title.is_empty() { "(untitled)".to_string() } else { fit_columns(&h.title, title_width) };
        out.line(&format!(
            "{mark} {title}{pad}  {:<16}  {:>5}  {}",
            timefmt::local_minutes(h.updated_at),
            h.message_count,
            h.id,
            pad = " ".repeat(title_width.saturating_sub(columns_of(&title))),
        ))?;
    }
    Ok(())
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
    let mut out = Out::new();
    print_table(&mut out, &listing)?;
    out.flush()
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
