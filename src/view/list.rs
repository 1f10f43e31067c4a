//! A listing of sessions: the newest few, which one bare `-c` would continue
//! here, and their rows as a table, tab-separated lines or JSON.

use std::ops::ControlFlow;

use nanoserde::SerJson;

use crate::error::Result;
use crate::output::{self, Out};
use crate::resolve::{self, FallbackPicker};
use crate::store::Store;
use crate::store::context;
use crate::store::search::{Match, Pattern};
use crate::store::session::{self, Header};
use crate::sys;
use crate::terminal::Terminal;
use crate::text::{char_columns, columns_of, fit_columns, printable};
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
    /// Written only when the session has one.
    model: Option<String>,
    /// The role it was started with, when it was.
    role: Option<String>,
    /// Its replies' tokens added up, when any reported them.
    usage: Option<session::Usage>,
    /// With a budget (`sessions list`): the session's characters, what a
    /// turn would send without a budget, and whether that is over it.
    chars: Option<u64>,
    context_chars: Option<u64>,
    over_budget: Option<bool>,
}

/// The context budget rows are measured against (`sessions list`).
pub(crate) struct Budget {
    /// What each row's session holds, from the index where it can.
    pub(crate) measures: crate::store::index::Measures,
    pub(crate) budget: u64,
}

impl Budget {
    /// What session `id` holds; None if it cannot be read. With `quick`,
    /// a file no larger than the budget is not read: its characters
    /// cannot exceed its bytes, so it is within the budget.
    fn measure(&self, id: &str, quick: bool) -> Option<context::Measure> {
        self.measures.of(id, quick.then_some(self.budget))
    }
}

/// A file not listed, and why; one whose header still names it (only a
/// message is damaged) with its title and the way to mend it.
fn warn_skipped(path: &std::path::Path, why: &str, damaged: Option<&Header>) {
    match damaged {
        None => output::warn_not_a_session_file(path, why, "skipped"),
        Some(h) => output::warn_not_a_session_file(
            path,
            why,
            &format!(
                "skipped, though it keeps its title '{}'. {}",
                crate::text::printable(&h.title, false),
                crate::error::repair_hint(&h.id)
            ),
        ),
    }
}

/// Writes rows as they come: a JSON array, tab-separated lines for a pipe,
/// or a table sized to the terminal (see `Layout`).
pub(crate) struct Printer {
    pub(crate) out: Out,
    pub(crate) json: bool,
    /// The session bare `-c` would continue here, marked `*`.
    pub(crate) current: Option<String>,
    pub(crate) rows: usize,
    /// The table's columns, on a terminal; planned by `plan`.
    pub(crate) layout: Option<Layout>,
    /// Measure rows against this budget: JSON gives their sizes, the
    /// table marks those over it with no summary ('!' before the count).
    pub(crate) budget: Option<Budget>,
    /// Rows marked '!'.
    pub(crate) over: usize,
}

impl Printer {
    pub(crate) fn new(json: bool, current: Option<String>) -> Printer {
        Printer { out: Out::new(), json, current, rows: 0, layout: None, budget: None, over: 0 }
    }

    /// Size the table for these rows (all of them, or the first page) on
    /// this terminal; nothing to do for JSON or a pipe.
    pub(crate) fn plan<'a>(&mut self, store: &Store, rows: impl Iterator<Item = &'a Header> + Clone) {
        if !self.json && sys::isatty(1) {
            let width = sys::terminal_columns(1).unwrap_or(80);
            self.layout = Some(Layout::plan(width, rows, || store.session_ids().unwrap_or_default()));
        }
    }

    pub(crate) fn begin(&mut self) -> Result<()> {
        if self.json {
            return self.out.write("[");
        }
        if !sys::isatty(1) {
            return Ok(());
        }
        let layout = self.layout.get_or_insert_with(|| Layout::plan(80, std::iter::empty(), Vec::new));
        let line = layout.heading();
        self.out.line(&line)
    }

    pub(crate) fn row(&mut self, h: &Header) -> Result<()> {
        self.row_with(h, None)
    }

    /// A session found by `search`, with where it matched first: on a
    /// terminal a second, indented line (the match highlighted unless
    /// NO_COLOR is set); to a pipe a sixth column.
    pub(crate) fn search_row(&mut self, h: &Header, first: &Match) -> Result<()> {
        match self.width() {
            Some(width) => {
                self.row(h)?;
                let snippet =
                    snippet_line(first, width.saturating_sub(5).max(10), crate::text::colors_allowed());
                // Its colour is hermes's own; its text went through the gate.
                self.out.write_own(&format!("    {snippet}\n"))
            }
            None => self.row_with(h, Some(&snippet_line(first, PIPED_SNIPPET, false))),
        }
    }

    fn row_with(&mut self, h: &Header, extra: Option<&str>) -> Result<()> {
        let is_current = self.current.as_deref() == Some(h.id.as_str());
        self.rows += 1;
        if self.json {
            let separator = if self.rows > 1 { "," } else { "" };
            let mut e = entry(h, is_current);
            if let Some(b) = &self.budget
                && let Some(m) = b.measure(&h.id, false)
            {
                (e.chars, e.context_chars, e.over_budget) =
                    (Some(m.chars), Some(m.context_chars), Some(m.over(b.budget)));
            }
            return self.out.data(&format!("{separator}{}", e.serialize_json()));
        }
        match &mut self.layout {
            Some(layout) if sys::isatty(1) => {
                let over = self.budget.as_ref().is_some_and(|b| {
                    b.measure(&h.id, true).is_some_and(|m| m.summaries == 0 && m.over(b.budget))
                });
                self.over += usize::from(over);
                let line = layout.row(h, is_current, over);
                self.out.line(&line)
            }
            // For pipes: tab-separated, unpadded, full titles; mark first.
            _ => self.out.line(&format!(
                "{}\t{}\t{}\t{}\t{}{}{}",
                if is_current { "*" } else { "" },
                printable(&h.title, false),
                time::local_minutes(h.updated_at),
                h.message_count,
                h.id,
                if extra.is_some() { "\t" } else { "" },
                extra.unwrap_or_default(),
            )),
        }
    }

    /// The width a line under a row may take on this terminal, if it is one.
    pub(crate) fn width(&self) -> Option<usize> {
        self.layout.as_ref().map(|l| l.width)
    }

    pub(crate) fn end(&mut self) -> Result<()> {
        self.out.line("]")
    }
}

/// Columns of a snippet written to a pipe.
const PIPED_SNIPPET: usize = 120;

/// `role: ...before MATCH after...` in at most `width` columns, the match
/// in view: the text before it gets at most a third of the room.
pub(crate) fn snippet_line(m: &Match, width: usize, color: bool) -> String {
    let role = printable(&m.role, false);
    let matched = printable(&m.matched, false);
    let before = printable(&m.before, false);
    let after = printable(&m.after, false);
    let label = format!("{role}: ");
    let room = width.saturating_sub(columns_of(&label));
    let matched = fit_columns(&matched, room.max(1));
    let left = room.saturating_sub(columns_of(&matched));
    let before_room = (left / 3).max(left.saturating_sub(columns_of(&after)));
    let before = fit_columns_from_end(&before, before_room.min(left));
    let after = fit_columns(&after, left.saturating_sub(columns_of(&before)));
    let (on, off) = if color { ("\x1b[1;31m", "\x1b[0m") } else { ("", "") };
    format!("{label}{before}{on}{matched}{off}{after}")
}

/// The end of `s` in at most `max` columns, `…` first where cut.
fn fit_columns_from_end(s: &str, max: usize) -> String {
    if columns_of(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        used += char_columns(c);
        if used > max {
            break;
        }
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// A title column never wider than this, however wide the terminal.
const TITLE_CAP: usize = 60;
/// Titles are not cut below this many columns while the ID can shrink.
const TITLE_COMFORT: usize = 20;
/// Nor below this while other columns can go.
const TITLE_MIN: usize = 10;
/// `2026-12-02 14:30` and `12-02 14:30`.
const DATE_FULL: usize = 16;
const DATE_SHORT: usize = 11;
const COUNT: usize = 5;
const ID_FULL: usize = 22;

/// The columns of a table on a terminal `width` columns wide: mark, title,
/// last active, messages, ID, two spaces apart, no line reaching the last
/// column (so none wraps). The title gets the room that is left, up to
/// what the titles need and TITLE_CAP. When that leaves titles under
/// TITLE_COMFORT columns, IDs shrink to their shortest unique form (see
/// `short_id`); below TITLE_MIN, the message count goes, then the date
/// shortens, then goes.
pub(crate) struct Layout {
    pub(crate) width: usize,
    title: usize,
    date: usize,
    count: bool,
    id: usize,
    /// Every ID of the store, sorted, when IDs are shown short.
    all_ids: Option<Vec<[u8; 22]>>,
}

impl Layout {
    pub(crate) fn plan<'a>(
        width: usize,
        rows: impl Iterator<Item = &'a Header> + Clone,
        all_ids: impl FnOnce() -> Vec<[u8; 22]>,
    ) -> Layout {
        let want = rows.clone().map(|h| columns_of(&shown_title(h))).max().unwrap_or(0).clamp(5, TITLE_CAP);
        // The line may use width - 1 columns; the mark takes 2.
        let room = width.saturating_sub(3);
        let mut layout = Layout { width, title: 0, date: DATE_FULL, count: true, id: ID_FULL, all_ids: None };
        if room.saturating_sub(layout.others()) < want.min(TITLE_COMFORT) {
            let ids = all_ids();
            layout.id = rows.map(|h| short_id(&ids, &h.id).len()).max().unwrap_or(6).max(2);
            layout.all_ids = Some(ids);
        }
        for step in 0..3 {
            if room.saturating_sub(layout.others()) >= want.min(TITLE_MIN) {
                break;
            }
            match step {
                0 => layout.count = false,
                1 => layout.date = DATE_SHORT,
                _ => layout.date = 0,
            }
        }
        layout.title = room.saturating_sub(layout.others()).min(want).max(1);
        layout
    }

    /// Columns taken by what is not the title (with the gaps before them).
    fn others(&self) -> usize {
        let gap = |w: usize| if w > 0 { w + 2 } else { 0 };
        gap(self.date) + gap(if self.count { COUNT } else { 0 }) + gap(self.id)
    }

    pub(crate) fn heading(&self) -> String {
        self.line(" ", "TITLE", "LAST ACTIVE", "MSGS", "ID")
    }

    pub(crate) fn row(&self, h: &Header, current: bool, over_budget: bool) -> String {
        let id = match &self.all_ids {
            Some(ids) => short_id(ids, &h.id),
            None => h.id.as_str(),
        };
        let when = time::local_minutes(h.updated_at);
        let when = if self.date == DATE_SHORT { when.get(5..).unwrap_or(&when) } else { &when };
        let count = if over_budget { format!("!{}", h.message_count) } else { h.message_count.to_string() };
        self.line(if current { "*" } else { " " }, &shown_title(h), when, &count, id)
    }

    fn line(&self, mark: &str, title: &str, when: &str, count: &str, id: &str) -> String {
        let title = fit_columns(title, self.title);
        let mut line = format!("{mark} {title}{}", " ".repeat(self.title.saturating_sub(columns_of(&title))));
        if self.date > 0 {
            line.push_str(&format!("  {:<w$}", fit_columns(when, self.date), w = self.date));
        }
        if self.count {
            line.push_str(&format!("  {count:>COUNT$}"));
        }
        line.push_str(&format!("  {}", fit_columns(id, self.id)));
        // The last guard against wrapping, for terminals too narrow for any
        // plan: cut the line itself.
        fit_columns(line.trim_end(), self.width.saturating_sub(1).max(1))
    }
}

fn shown_title(h: &Header) -> std::borrow::Cow<'_, str> {
    if h.title.is_empty() { "(untitled)".into() } else { printable(&h.title, false) }
}

/// The shortest form of `id` that names it among `ids` (sorted): its
/// 6-hex suffix when no other ID ends so, else its shortest unique prefix
/// of 8 or more characters (see `resolve::is_short_id`).
pub(crate) fn short_id<'a>(ids: &[[u8; 22]], id: &'a str) -> &'a str {
    let key = crate::store::session::id_key(id);
    let suffix = &key[16..];
    if ids.iter().filter(|other| other[16..] == *suffix).count() <= 1 {
        return &id[16..];
    }
    let at = ids.partition_point(|other| *other < key);
    let shared = |other: Option<&[u8; 22]>| {
        other.filter(|o| **o != key).map_or(0, |o| o.iter().zip(&key).take_while(|(a, b)| a == b).count())
    };
    let before = if at > 0 { shared(ids.get(at - 1)) } else { 0 };
    let after = shared(ids.get(at + usize::from(ids.get(at) == Some(&key))));
    // IDs share their '_' where they share what is before it, so a
    // prefix never ends there.
    let len = (before.max(after) + 1).clamp(8, ID_FULL);
    &id[..len.min(id.len())]
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
        model: h.model.clone(),
        role: h.role.clone(),
        usage: h.usage,
        chars: None,
        context_chars: None,
        over_budget: None,
    }
}

pub(crate) struct Listing {
    /// Newest first, at most `limit`.
    pub(crate) shown: Vec<Header>,
    /// How many sessions matched in all.
    pub(crate) total: usize,
    /// The session bare `-c` would continue here.
    pub(crate) current: Option<String>,
}

/// One pass over the store: the newest `limit` sessions (a bounded
/// selection, so memory does not grow with the store), their total, and
/// which one `-c` would pick.
pub(crate) fn collect(
    store: &Store,
    terminal: Option<&Terminal>,
    limit: usize,
    filter: &Filter,
) -> Result<Listing> {
    // The catalog knows activity and titles, not what a title filter asks.
    if filter.title.is_none()
        && let Some(listing) = from_catalog(store, terminal, limit, filter.here)
    {
        return Ok(listing);
    }
    let mut shown: Vec<Header> = Vec::new();
    let mut total = 0;
    let now = time::now();
    let current = scan_listed(store, terminal, filter, |header| {
        total += 1;
        keep_newest(&mut shown, header, limit, now);
    })?;
    session::sort_newest_first(&mut shown, now);
    // keep_newest only trims once it has gathered enough; finish the job.
    shown.truncate(limit);
    Ok(Listing { shown, total, current })
}

/// The listing from the catalog, while it describes the directory: its
/// sessions in activity order (`Store::by_activity`), each row shown read
/// from its own file and checked against the catalog. None when anything
/// disagrees (or a file is damaged, which the full scan warns about): then
/// the store is scanned.
fn from_catalog(store: &Store, terminal: Option<&Terminal>, limit: usize, here: bool) -> Option<Listing> {
    let breadcrumb = resolve::from_breadcrumb(store, terminal, time::now()).ok()?;
    let workspace = resolve::current_workspace();
    let belongs = |cwd: &str| !here || resolve::started_in(workspace.as_deref(), cwd);
    let mut picker = FallbackPicker::new();
    let mut rows: Vec<(f64, [u8; 22], String)> = Vec::new();
    let mut total = 0;
    let mut counted_all = false;
    let sessions = store.by_activity(|entry| {
        picker.consider_session(entry.updated_at, entry.id(), &entry.cwd);
        if belongs(&entry.cwd) {
            total += 1;
            if rows.len() < limit {
                rows.push((entry.updated_at, entry.id, entry.title.clone()));
            }
        }
        // Past the rows and the pick, the rest only counts (and `--here`
        // counts only its own).
        counted_all = !here && rows.len() >= limit && (breadcrumb.is_some() || picker.has_workspace_pick());
        if counted_all { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })?;
    if counted_all {
        total = sessions;
    }
    let shown = rows
        .into_iter()
        .map(|(updated_at, key, title)| {
            let header = store.header(std::str::from_utf8(&key).ok()?).ok()??;
            (header.updated_at == updated_at && header.title == title).then_some(header)
        })
        .collect::<Option<Vec<Header>>>()?;
    let current = breadcrumb.map(|(h, _)| h.id).or_else(|| picker.pick().map(|(id, _)| id));
    Some(Listing { shown, total, current })
}

/// Which sessions a listing shows.
#[derive(Default)]
pub(crate) struct Filter {
    /// Only those started in this workspace.
    pub(crate) here: bool,
    /// Only those whose title holds this.
    pub(crate) title: Option<Pattern>,
}

/// The one scan behind every listing: hands `keep` each readable session
/// that belongs in the list (see `Filter`), warns about unreadable files,
/// and returns the ID bare `-c` would continue here.
pub(crate) fn scan_listed(
    store: &Store,
    terminal: Option<&Terminal>,
    filter: &Filter,
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
            Err(ref why) => return warn_skipped(&entry.path(), why, entry.damaged_header.as_ref()),
        };
        if header.is_from_the_future(now) {
            from_the_future += 1;
        }
        if breadcrumb.is_none() && !crumb_unreadable {
            picker.consider(&header);
        }
        if (!filter.here || resolve::in_workspace(workspace.as_deref(), &header))
            && filter.title.as_ref().is_none_or(|p| p.matches(&header.title))
        {
            keep(header);
        }
    })?;
    warn_conflict_copies(store);
    if from_the_future > 0 {
        let (n, verb) = (from_the_future, if from_the_future == 1 { "was" } else { "were" });
        output::warn(&format!(
            "{} {verb} last active in the future (another machine's clock ahead?); listed, continued and \
                pruned as if active now",
            crate::text::counted(n, "session"),
        ));
    }
    Ok(breadcrumb.map(|(h, _)| h.id).or_else(|| picker.pick().map(|(id, _)| id)))
}

/// After a scan: say, once, that conflict copies lie beside the sessions
/// (their messages are in no listed session until merged), and what to run.
pub(crate) fn warn_conflict_copies(store: &Store) {
    let n = store.copies_seen();
    if n > 0 {
        output::warn(&format!(
            "{n} conflict {} (from a sync tool or an editor) {} not listed; merge {} with 'hermes sessions \
                merge'",
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
        kept.select_nth_unstable_by(limit - 1, |a, b| session::newest_first(a, b, now));
        kept.truncate(limit);
    }
}

/// The `/sessions` chat command: the few newest, as a table.
pub(crate) fn print_recent(store: &Store, terminal: Option<&Terminal>, limit: usize) -> Result<()> {
    let listing = collect(store, terminal, limit, &Filter::default())?;
    let mut printer = Printer::new(false, listing.current);
    printer.plan(store, listing.shown.iter());
    printer.begin()?;
    listing.shown.iter().try_for_each(|h| printer.row(h))?;
    printer.out.flush()
}
