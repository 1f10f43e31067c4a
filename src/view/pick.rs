//! The full-screen session picker: every session, newest first, filtered
//! as you type (titles at once, message text when typing pauses, as
//! `sessions search` finds it). It draws on the terminal itself
//! (/dev/tty), so `hermes chat -r "$(hermes sessions pick)"` works, and
//! gives the screen back as it was.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::ControlFlow;
use std::os::unix::io::AsRawFd;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::search::{self, Pattern};
use crate::store::session;
use crate::terminal::keys::{KeyReader, Keypress};
use crate::terminal::raw::{self, RawMode};
use crate::text::{columns_of, fit_columns, printable};
use crate::time;
use crate::view::list::short_id;

/// Typing must pause this long before message text is searched.
const SEARCH_PAUSE: Duration = Duration::from_millis(250);
/// Sessions found by message text, at most (newest first).
const SEARCH_LIMIT: usize = 500;

/// A title column never wider than this.
const TITLE_CAP: usize = 60;

const ALTERNATE_SCREEN_ON: &str = "\x1b[?1049h";
const ALTERNATE_SCREEN_OFF: &str = "\x1b[?1049l";

/// What the picker needs of a session.
struct Entry {
    updated_at: f64,
    id: [u8; 22],
    title: Box<str>,
}

impl Entry {
    fn id(&self) -> &str {
        std::str::from_utf8(&self.id).expect("IDs are ASCII")
    }
}

/// Why no terminal: what the caller would have the user do instead.
pub(crate) struct NoTerminal;

/// The terminal the picker draws on, if the process has one.
pub(crate) fn open_terminal() -> std::result::Result<File, NoTerminal> {
    OpenOptions::new().read(true).write(true).open("/dev/tty").map_err(|_| NoTerminal)
}

/// Let the user pick a session on `tty`; its ID, or None when they left
/// with Esc or Ctrl-C.
pub(crate) fn pick(store: &Store, tty: File) -> Result<Option<String>> {
    let fd = tty.as_raw_fd();
    let raw = RawMode::enable(fd).map_err(Error::TerminalRead)?;
    let mut picker = Picker {
        store,
        tty,
        entries: Vec::new(),
        ids: Vec::new(),
        loading: true,
        query: String::new(),
        shown: Vec::new(),
        selected: 0,
        top: 0,
        found: None,
        searching: false,
        color: crate::text::colors_allowed(),
        title_width: 0,
    };
    let _ = picker.tty.write_all(ALTERNATE_SCREEN_ON.as_bytes());
    picker.draw();
    let mut keys = KeyReader::new(fd);
    let result = match picker.load(&mut keys) {
        Ok(true) => picker.run(keys),
        Ok(false) => Ok(None),
        Err(e) => Err(e),
    };
    let _ = picker.tty.write_all(ALTERNATE_SCREEN_OFF.as_bytes());
    let _ = picker.tty.flush();
    drop(raw);
    result
}

/// The keys typed so far, without waiting: false at Esc, Ctrl-C or Ctrl-G
/// (or the terminal gone), the others kept in `typed`.
fn keys_typed(keys: &mut KeyReader, typed: &mut Vec<Keypress>) -> Result<bool> {
    loop {
        match keys.read_key_by(Some(Instant::now())) {
            Ok(Some(Keypress::Escape | Keypress::Ctrl('c') | Keypress::Ctrl('g'))) => return Ok(false),
            Ok(Some(key)) => typed.push(key),
            Ok(None) => return Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(Error::Interrupted),
            Err(_) => return Ok(false), // the terminal went away
        }
    }
}

struct Picker<'a> {
    store: &'a Store,
    tty: File,
    /// Every session, newest first.
    entries: Vec<Entry>,
    /// Their IDs, sorted: for the shortest unique form of each.
    ids: Vec<[u8; 22]>,
    /// Whether sessions are still being read.
    loading: bool,
    query: String,
    /// Indices into `entries` of the sessions that match the query.
    shown: Vec<usize>,
    selected: usize,
    /// The first of `shown` on the screen.
    top: usize,
    /// The query whose message text was searched, and the sessions found.
    /// (A map of `sessions list`'s kind, its values unused.)
    found: Option<(String, HashMap<[u8; 22], usize>)>,
    /// Whether message text is still to be searched for this query.
    searching: bool,
    color: bool,
    /// The title column's width when the terminal is wide enough.
    title_width: usize,
}

impl Picker<'_> {
    /// Every session, newest first. While the catalog knows the order, the
    /// first screen is drawn as soon as its rows are read, before the
    /// rest, and keys typed meanwhile are read as it goes on: Esc, Ctrl-C
    /// or Ctrl-G leave at once (false), the others wait for the rest.
    fn load(&mut self, keys: &mut KeyReader) -> Result<bool> {
        /// Sessions read between two looks at the keys.
        const KEYS_EVERY: usize = 1024;
        let first_screen = self.page();
        let store = self.store;
        let mut typed = Vec::new();
        let mut stopped: Option<Result<bool>> = None;
        let from_catalog = store.by_activity(|e| {
            self.entries.push(Entry {
                updated_at: e.updated_at,
                id: e.id,
                title: printable(&e.title, false).into(),
            });
            let n = self.entries.len();
            if n == first_screen {
                self.index();
                self.draw();
            }
            if n >= first_screen && (n - first_screen).is_multiple_of(KEYS_EVERY) {
                match keys_typed(keys, &mut typed) {
                    Ok(true) => {}
                    done => {
                        stopped = Some(done);
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if let Some(done) = stopped {
            return done;
        }
        if from_catalog.is_none() {
            self.entries.clear();
            store.scan(|scanned| {
                if let Ok(h) = scanned.header {
                    self.entries.push(Entry {
                        updated_at: h.updated_at,
                        id: session::id_key(&h.id),
                        title: printable(&h.title, false).into(),
                    });
                }
            })?;
            crate::order::sort_by(&mut self.entries, |a, b| {
                b.updated_at.total_cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
            });
        }
        for key in typed {
            keys.requeue(key);
        }
        self.loading = false;
        self.index();
        Ok(true)
    }

    /// The sorted IDs, the title column and the rows shown, for the
    /// sessions read so far.
    fn index(&mut self) {
        self.ids = self.entries.iter().map(|e| e.id).collect();
        crate::order::sort(&mut self.ids);
        self.title_width =
            self.entries.iter().map(|e| columns_of(&e.title)).max().unwrap_or(0).clamp(10, TITLE_CAP);
        self.filter();
    }

    fn run(&mut self, mut keys: KeyReader) -> Result<Option<String>> {
        let mut typed_at = Instant::now();
        loop {
            self.draw();
            let deadline = self.searching.then_some(typed_at + SEARCH_PAUSE);
            let key = match keys.read_key_by(deadline) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    self.search_messages()?;
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return Err(Error::Interrupted),
                Err(_) => return Ok(None), // the terminal went away
            };
            let before = self.query.clone();
            match key {
                Keypress::Enter => {
                    return Ok(self.shown.get(self.selected).map(|&i| self.entries[i].id().to_string()));
                }
                Keypress::Escape | Keypress::Ctrl('c') | Keypress::Ctrl('g') => return Ok(None),
                Keypress::Ctrl('d') if self.query.is_empty() => return Ok(None),
                Keypress::Up | Keypress::Ctrl('p') | Keypress::Ctrl('k') => {
                    self.selected = self.selected.saturating_sub(1)
                }
                Keypress::Down | Keypress::Ctrl('n') | Keypress::Ctrl('j') | Keypress::Tab => {
                    self.selected = (self.selected + 1).min(self.shown.len().saturating_sub(1))
                }
                Keypress::PageUp => self.selected = self.selected.saturating_sub(self.page()),
                Keypress::PageDown => {
                    self.selected = (self.selected + self.page()).min(self.shown.len().saturating_sub(1))
                }
                Keypress::Home => self.selected = 0,
                Keypress::End => self.selected = self.shown.len().saturating_sub(1),
                Keypress::Backspace | Keypress::Ctrl('h') => {
                    self.query.pop();
                }
                Keypress::Ctrl('u') => self.query.clear(),
                Keypress::Ctrl('w') | Keypress::AltBackspace => {
                    let kept = self.query.trim_end().rfind(' ').map_or(0, |at| at + 1);
                    self.query.truncate(kept);
                }
                Keypress::Char(c) => self.query.push(c),
                Keypress::Paste(text) => self.query.push_str(text.lines().next().unwrap_or_default()),
                _ => {} // Redraw and the rest: the loop draws again.
            }
            if self.query != before {
                typed_at = Instant::now();
                self.selected = 0;
                self.filter();
            }
        }
    }

    /// Rows for sessions: all but the query line.
    fn page(&self) -> usize {
        raw::window_size(self.tty.as_raw_fd()).0.saturating_sub(1).max(1)
    }

    /// The sessions whose title the query matches as fzf matches (its
    /// characters in order, best first: together, at the start of words,
    /// early), then those whose messages held it when last searched for
    /// (message text is searched again once typing pauses); newest first
    /// among equals.
    fn filter(&mut self) {
        let found = self.found.as_ref().filter(|(q, _)| *q == self.query).map(|(_, ids)| ids);
        let mut scored: Vec<(u32, usize)> = (0..self.entries.len())
            .filter_map(|i| {
                let e = &self.entries[i];
                match fuzzy_score(&self.query, &e.title) {
                    Some(score) => Some((score + 1, i)),
                    None => found.is_some_and(|ids| ids.contains_key(&e.id)).then_some((0, i)),
                }
            })
            .collect();
        crate::order::sort_by(&mut scored, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.shown = scored.into_iter().map(|(_, i)| i).collect();
        self.searching = !self.query.is_empty() && found.is_none();
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
    }

    fn search_messages(&mut self) -> Result<()> {
        self.searching = false;
        let pattern = Pattern::new(&self.query);
        let found = search::search(self.store, &pattern, SEARCH_LIMIT, |_, _| {})?;
        let ids = found.hits.iter().map(|h| (session::id_key(&h.header.id), 0)).collect();
        self.found = Some((self.query.clone(), ids));
        self.filter();
        Ok(())
    }

    /// The whole screen, in one write: the query line, then a row per
    /// session, each cut to the width so that none wraps.
    fn draw(&mut self) {
        let (rows, columns) = raw::window_size(self.tty.as_raw_fd());
        let width = columns.saturating_sub(1).max(1);
        let list_rows = rows.saturating_sub(1);
        if self.selected < self.top {
            self.top = self.selected;
        } else if list_rows > 0 && self.selected >= self.top + list_rows {
            self.top = self.selected + 1 - list_rows;
        }
        let mut screen = String::from("\x1b[?25l\x1b[H");
        let count = format!(
            "  {}/{}{}",
            self.shown.len(),
            self.entries.len(),
            if self.searching || self.loading { " ..." } else { "" }
        );
        let query =
            fit_columns(&printable(&self.query, false), width.saturating_sub(2 + columns_of(&count)).max(1));
        let cursor_column = 3 + columns_of(&query);
        let head = fit_columns(&format!("> {query}{count}"), width);
        screen.push_str(&head);
        screen.push_str("\x1b[K");
        let visible: Vec<usize> = self.shown.iter().skip(self.top).take(list_rows).copied().collect();
        let id_width =
            visible.iter().map(|&i| short_id(&self.ids, self.entries[i].id()).len()).max().unwrap_or(6);
        let date_width = if width >= 50 { 16 } else { 0 };
        let title_width = width
            .saturating_sub(2 + id_width + 2 + if date_width > 0 { date_width + 2 } else { 0 })
            .min(self.title_width)
            .max(1);
        for (row, &i) in visible.iter().enumerate() {
            let e = &self.entries[i];
            let chosen = self.top + row == self.selected;
            let title = fit_columns(if e.title.is_empty() { "(untitled)" } else { &e.title }, title_width);
            let mut line = format!(
                "{} {title}{}",
                if chosen { ">" } else { " " },
                " ".repeat(title_width.saturating_sub(columns_of(&title)))
            );
            if date_width > 0 {
                line.push_str(&format!("  {}", time::local_minutes(e.updated_at)));
            }
            line.push_str(&format!("  {}", short_id(&self.ids, e.id())));
            let line = fit_columns(&line, width);
            screen.push_str("\r\n");
            if chosen && self.color {
                screen.push_str(&format!("\x1b[7m{line}\x1b[0m"));
            } else {
                screen.push_str(&line);
            }
            screen.push_str("\x1b[K");
        }
        if visible.is_empty() && list_rows > 0 {
            screen.push_str("\r\n");
            screen.push_str(&fit_columns(
                if self.loading {
                    ""
                } else if self.entries.is_empty() {
                    "  no sessions yet"
                } else {
                    "  no session matches"
                },
                width,
            ));
            screen.push_str("\x1b[K");
        }
        screen.push_str(&format!("\x1b[J\x1b[1;{cursor_column}H\x1b[?25h"));
        let _ = self.tty.write_all(screen.as_bytes());
        let _ = self.tty.flush();
    }
}

/// How well `query` matches `title` as fzf matches: its characters in
/// order (case ignored unless the query has a capital letter), anywhere;
/// None when they are not all there. Higher is better: characters that
/// follow each other, that start words, that come early.
pub(crate) fn fuzzy_score(query: &str, title: &str) -> Option<u32> {
    let fold = !query.chars().any(char::is_uppercase);
    let norm = |c: char| if fold { c.to_lowercase().next().unwrap_or(c) } else { c };
    let query: Vec<char> = query.chars().filter(|c| !c.is_whitespace()).map(norm).collect();
    if query.is_empty() {
        return Some(0);
    }
    let title: Vec<char> = title.chars().map(norm).collect();
    let starts_word = |at: usize| at == 0 || !title[at - 1].is_alphanumeric();
    let base = |at: usize| 16 + if starts_word(at) { 8 } else { 0 };
    // best[j]: the best score of the query so far with its last character
    // at title[j] (None: it cannot be there); one row per character.
    let mut best: Vec<Option<i32>> =
        (0..title.len()).map(|j| (title[j] == query[0]).then(|| base(j) - (j as i32).min(16))).collect();
    for &c in &query[1..] {
        let mut next = vec![None; title.len()];
        for j in 0..title.len() {
            if title[j] != c {
                continue;
            }
            let from = (0..j)
                .filter_map(|i| {
                    let gap = (j - i - 1) as i32;
                    best[i].map(|score| score + if gap == 0 { 12 } else { -gap })
                })
                .max();
            next[j] = from.map(|score| score + base(j));
        }
        best = next;
    }
    best.into_iter().flatten().max().map(|score| score.max(1) as u32)
}

#[cfg(test)]
mod tests {
    use super::fuzzy_score;

    #[test]
    fn characters_in_order_anywhere_best_first() {
        assert!(fuzzy_score("rds", "redis debug").is_some());
        assert!(fuzzy_score("rdb", "redis debug").is_some());
        assert_eq!(fuzzy_score("xyz", "redis debug"), None);
        assert_eq!(fuzzy_score("sdr", "redis debug"), None);
        assert_eq!(fuzzy_score("", "anything"), Some(0));
        let together = fuzzy_score("debug", "redis debug").unwrap();
        let apart = fuzzy_score("debug", "dev environment build guide").unwrap();
        assert!(together > apart, "{together} {apart}");
        let word_starts = fuzzy_score("rd", "redis debug").unwrap();
        let inside = fuzzy_score("rd", "carda").unwrap();
        assert!(word_starts > inside, "{word_starts} {inside}");
        assert!(fuzzy_score("Redis", "redis debug").is_none());
        assert!(fuzzy_score("REDIS", "REDIS notes").is_some());
    }
}
