//! A listing of sessions: the newest few, which one bare `-c` would continue
//! here, and their rows as a table, tab-separated lines or JSON.

use nanoserde::SerJson;

use crate::error::Result;
use crate::output::{self, Out};
use crate::store::Store;
use crate::store::session::Header;
use crate::sys;
use crate::terminal::Terminal;
use crate::terminal::resolve::{self, FallbackPicker};
use crate::text::{columns_of, fit_columns, printable};
use crate::time;

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

fn warn_skipped(path: &std::path::Path, why: &str) {
    output::warn_not_a_session_file(path, why, "skipped");
}

/// Writes rows as they come: a JSON array, tab-separated lines for a pipe,
/// or a table sized to the terminal.
pub struct Printer {
    pub out: Out,
    pub json: bool,
    /// The session bare `-c` would continue here, marked `*`.
    pub current: Option<String>,
    pub rows: usize,
}

impl Printer {
    pub fn begin(&mut self) -> Result<()> {
        if self.json {
            self.out.write("[")
        } else if sys::isatty(1) {
            let w = title_width();
            self.out.line(&format!("  {:<w$}  {:<16}  {:>5}  {}", "TITLE", "LAST ACTIVE", "MSGS", "ID"))
        } else {
            Ok(())
        }
    }

    pub fn row(&mut self, h: &Header) -> Result<()> {
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
                time::local_minutes(h.updated_at),
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
            time::local_minutes(h.updated_at),
            h.message_count,
            h.id,
            pad = " ".repeat(width.saturating_sub(columns_of(&title))),
        ))
    }

    pub fn end(&mut self) -> Result<()> {
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
    if let Some(listing) = from_catalog(store, terminal, limit, here) {
        return Ok(listing);
    }
    let mut shown: Vec<Header> = Vec::new();
    let mut total = 0;
    let now = time::now();
    let current = scan_listed(store, terminal, here, |header| {
        total += 1;
        keep_newest(&mut shown, header, limit, now);
    })?;
    shown.sort_by(|a, b| newest_first(a, b, now));
    // keep_newest only trims once it has gathered enough; finish the job.
    shown.truncate(limit);
    Ok(Listing { shown, total, current })
}

/// The listing from the catalog, while it describes the directory: its
/// first lines (newest first) and the sessions appended to since it was
/// written, each row shown read from its own file and checked against the
/// catalog. None when anything disagrees (or a file is damaged, which the
/// full scan warns about): then the store is scanned.
fn from_catalog(store: &Store, terminal: Option<&Terminal>, limit: usize, here: bool) -> Option<Listing> {
    let (state, catalog) = store.catalog()?;
    if catalog.damaged > 0 {
        return None;
    }
    let breadcrumb = resolve::from_breadcrumb(store, terminal, time::now()).ok()?;
    let workspace = resolve::current_workspace();
    let belongs = |cwd: &str| !here || resolve::started_in(workspace.as_deref(), cwd);
    let mut picker = FallbackPicker::new();
    // Sessions appended to since: the catalog has their old activity time.
    let mut rows: Vec<(f64, [u8; 22], Option<Header>)> = Vec::new();
    let mut total = 0;
    for key in &state.journal {
        let header = store.header(std::str::from_utf8(key).ok()?).ok()??;
        picker.consider(&header);
        if belongs(&header.cwd) {
            total += 1;
            rows.push((header.updated_at, *key, Some(header)));
        }
    }
    let mut from_catalog = 0;
    let mut titles: Vec<([u8; 22], String)> = Vec::new();
    for entry in catalog.entries()? {
        let entry = entry?;
        if state.journal.contains(&entry.id) {
            continue;
        }
        picker.consider_session(entry.updated_at, entry.id(), &entry.cwd);
        if belongs(&entry.cwd) {
            total += 1;
            if from_catalog < limit {
                from_catalog += 1;
                rows.push((entry.updated_at, entry.id, None));
                titles.push((entry.id, entry.title));
            }
        }
        // Past the rows and the pick, the rest only counts (and `--here`
        // counts only its own).
        if !here && from_catalog >= limit && (breadcrumb.is_some() || picker.has_workspace_pick()) {
            total = catalog.sessions as usize;
            break;
        }
    }
    rows.sort_by(|a, b| (b.0, &b.1).partial_cmp(&(a.0, &a.1)).unwrap_or(std::cmp::Ordering::Equal));
    rows.truncate(limit);
    let shown = rows
        .into_iter()
        .map(|(updated_at, key, fresh)| match fresh {
            Some(header) => Some(header),
            None => {
                let header = store.header(std::str::from_utf8(&key).ok()?).ok()??;
                let title = &titles.iter().find(|(k, _)| *k == key)?.1;
                (header.updated_at == updated_at && header.title == *title).then_some(header)
            }
        })
        .collect::<Option<Vec<Header>>>()?;
    let current = breadcrumb.map(|(h, _)| h.id).or_else(|| picker.pick().map(|(id, _)| id));
    Some(Listing { shown, total, current })
}

/// The one scan behind every listing: hands `keep` each readable session
/// that belongs in the list (all, or this workspace's with `here`), warns
/// about unreadable files, and returns the ID bare `-c` would continue here.
pub fn scan_listed(
    store: &Store,
    terminal: Option<&Terminal>,
    here: bool,
    mut keep: impl FnMut(Header),
) -> Result<Option<String>> {
    // A breadcrumb to a session that cannot be read: bare -c would fail on
    // it, so no session is marked; the scan warns about the file.
    let (breadcrumb, crumb_unreadable) = match resolve::from_breadcrumb(store, terminal, time::now()) {
        Ok(found) => (found, false),
        Err(_) => (None, true),
    };
    let mut picker = FallbackPicker::new();
    let workspace = resolve::current_workspace();
    let now = time::now();
    let mut from_the_future = 0;
    store.scan(|entry| {
        let header = match entry.header {
            Ok(h) => h,
            Err(ref why) => return warn_skipped(&entry.path(), why),
        };
        if header.is_from_the_future(now) {
            from_the_future += 1;
        }
        if breadcrumb.is_none() && !crumb_unreadable {
            picker.consider(&header);
        }
        if !here || resolve::in_workspace(workspace.as_deref(), &header) {
            keep(header);
        }
    })?;
    warn_conflict_copies(store);
    if from_the_future > 0 {
        let (n, verb) = (from_the_future, if from_the_future == 1 { "was" } else { "were" });
        output::warn(&format!(
            "{} {verb} last active in the future (another machine's clock ahead?); listed, continued and pruned as if active now",
            crate::text::counted(n, "session"),
        ));
    }
    Ok(breadcrumb.map(|(h, _)| h.id).or_else(|| picker.pick().map(|(id, _)| id)))
}

/// The order of a listing: newest activity first (a time in the future
/// counts as now), ties by ID.
pub fn newest_first(a: &Header, b: &Header, now: f64) -> std::cmp::Ordering {
    (b.activity(now), &b.id).partial_cmp(&(a.activity(now), &a.id)).unwrap_or(std::cmp::Ordering::Equal)
}

/// After a scan: say, once, that conflict copies lie beside the sessions
/// (their messages are in no listed session until merged), and what to run.
pub fn warn_conflict_copies(store: &Store) {
    let n = store.copies_seen();
    if n > 0 {
        output::warn(&format!(
            "{n} conflict {} (from a sync tool or an editor) {} not listed; merge {} with 'hermes sessions merge'",
            if n == 1 { "copy of a session" } else { "copies of sessions" },
            if n == 1 { "is" } else { "are" },
            if n == 1 { "it" } else { "them" },
        ));
    }
}

/// Keep the `limit` newest headers; the vector never grows past 2*limit.
fn keep_newest(kept: &mut Vec<Header>, header: Header, limit: usize, now: f64) {
    if limit == 0 {
        return;
    }
    kept.push(header);
    if kept.len() >= limit.saturating_mul(2).max(64) {
        // Partition, not sort: the final order is settled once, at the end.
        kept.select_nth_unstable_by(limit - 1, |a, b| newest_first(a, b, now));
        kept.truncate(limit);
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
