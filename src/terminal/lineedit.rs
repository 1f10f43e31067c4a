//! The interactive prompt's line editor: Emacs keys, history with search,
//! wide characters, long and multi-line text, pastes, an external editor.
//! It draws only on a terminal in raw mode and hands back plain text.

use std::io::{self, Write};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;
use crate::terminal::compose;
use crate::terminal::keys::{Key, KeyReader};
use crate::terminal::raw::{self, RawMode};
use crate::text;

/// What reading a line came to: its text, Ctrl-C, or the end of input.
pub enum Line {
    Text(String),
    Cancelled,
    End,
}

/// How long the terminal has to answer the first cursor position query:
/// one that does not is left to plain line reading.
const ANSWER_WAIT: Duration = Duration::from_millis(500);

/// Columns a tab takes in the editor (it is kept as a tab in the text).
const TAB_COLUMNS: usize = 4;

pub struct Editor {
    /// Raw mode for as long as the editor lives, not only while a line is
    /// read: keys typed ahead (while a message is saved) must not meet the
    /// terminal's own line editing, which would echo and act on them.
    raw: RawMode,
    keys: KeyReader,
    /// What Ctrl-K, Ctrl-U, Ctrl-W and Alt-D cut last, for Ctrl-Y.
    cut: String,
    /// Where the last drawing left things, to draw over it.
    drawn: Drawn,
    /// The text the next line starts with (`/edit`'s, to review).
    prefilled: Option<String>,
}

/// The rows of the last drawing (their widths in columns) and the cursor's
/// place among them, counted from the first row drawn.
#[derive(Default)]
struct Drawn {
    row_widths: Vec<usize>,
    cursor_row: usize,
    cursor_column: usize,
    /// The width the drawing was made for.
    width: usize,
}

/// The text being edited and the cursor, as an index into `chars`.
#[derive(Default, Clone)]
struct Buffer {
    chars: Vec<char>,
    cursor: usize,
}

/// Ctrl-R: the text searched for, and the history entry it was found in.
struct Search {
    query: String,
    found: Option<usize>,
    before: Buffer,
}

impl Editor {
    /// An editor on stdin and stdout, if both are a terminal that can take
    /// it: TERM set and not `dumb`, raw mode possible, and an answer to a
    /// cursor position query. Otherwise Err, and lines are read plainly,
    /// starting with what was typed while the terminal was asked.
    pub fn for_terminal() -> std::result::Result<Editor, Vec<u8>> {
        if !sys::isatty(0) || !sys::isatty(1) {
            return Err(Vec::new());
        }
        match std::env::var("TERM") {
            Ok(term) if !term.is_empty() && term != "dumb" => {}
            _ => return Err(Vec::new()),
        }
        let raw = RawMode::enable(0).map_err(|_| Vec::new())?;
        let mut keys = KeyReader::new(0);
        match keys.cursor_position(&mut io::stdout(), ANSWER_WAIT) {
            Ok(Ok(_)) => {
                Ok(Editor { raw, keys, cut: String::new(), drawn: Drawn::default(), prefilled: None })
            }
            Ok(Err(typed)) => Err(typed),
            Err(_) => Err(Vec::new()),
        }
    }

    /// Run `during` with the terminal in its ordinary mode: an agent's
    /// reply (Ctrl-C is SIGINT again), an editor.
    pub fn cooked<T>(&mut self, during: impl FnOnce() -> T) -> T {
        self.raw.suspended(during)
    }

    /// `cooked`, without echo: keys typed while a reply is drawn are held
    /// for the next prompt, never drawn inside the reply.
    pub fn cooked_quietly<T>(&mut self, during: impl FnOnce() -> T) -> T {
        self.raw.suspended_without_echo(during)
    }

    /// Start the next line with `text`.
    pub fn prefill(&mut self, text: String) {
        self.prefilled = Some(text);
    }

    /// Read one message. `history` is oldest first; `prompt` is shown
    /// before the text.
    /// `complete` gives, for the text before the cursor, the texts Tab may
    /// make of it (a slash command, a title after it).
    pub fn read_line(
        &mut self,
        prompt: &str,
        history: &[String],
        complete: &mut dyn FnMut(&str) -> Vec<String>,
    ) -> Result<Line> {
        self.drawn = Drawn::default();
        let mut session = Session {
            prompt,
            history,
            buffer: self.prefilled.take().map(|text| Buffer::from(&text)).unwrap_or_default(),
            // The newest entry is the text being written (empty so far).
            draft: None,
            place: history.len(),
            search: None,
            after_ctrl_x: false,
            complete,
        };
        self.draw(&session)?;
        loop {
            let key = match self.keys.read_key() {
                Ok(key) => key,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => match sys::take_signal() {
                    Some(sys::SIGINT) => {
                        self.finish(&session, false)?;
                        return Ok(Line::Cancelled);
                    }
                    _ => {
                        self.finish(&session, false)?;
                        return Err(Error::Interrupted);
                    }
                },
                // The terminal is gone (a closed pane): nobody to ask.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Line::End),
                Err(e) => return Err(terminal_error(e)),
            };
            match self.act(&mut session, key)? {
                Step::Continue => self.draw(&session)?,
                Step::Submit => {
                    session.search = None;
                    let text: String = session.buffer.chars.iter().collect();
                    if text.len() > MAX_MESSAGE_BYTES {
                        self.finish(&session, true)?;
                        return Err(Error::TooLarge(format!(
                            "the message is larger than {} MiB; nothing was sent",
                            MAX_MESSAGE_BYTES >> 20
                        )));
                    }
                    self.finish(&session, true)?;
                    return Ok(Line::Text(text));
                }
                Step::Cancel => {
                    self.finish(&session, false)?;
                    return Ok(Line::Cancelled);
                }
                Step::End => {
                    self.finish(&session, false)?;
                    return Ok(Line::End);
                }
            }
        }
    }

    fn act(&mut self, s: &mut Session, key: Key) -> Result<Step> {
        if s.after_ctrl_x {
            s.after_ctrl_x = false;
            if matches!(key, Key::Ctrl('e')) {
                self.edit_externally(s)?;
            }
            return Ok(Step::Continue);
        }
        if s.search.is_some() {
            match self.search_key(s, &key) {
                SearchStep::Handled => return Ok(Step::Continue),
                SearchStep::Cancelled => return Ok(Step::Continue),
                SearchStep::Accepted => {}
            }
        }
        let b = &mut s.buffer;
        match key {
            Key::Char(c) => b.insert(&c.to_string()),
            Key::Paste(text) => {
                if b.chars.iter().map(|c| c.len_utf8()).sum::<usize>() + text.len() > MAX_MESSAGE_BYTES {
                    self.say_above(
                        s,
                        &format!(
                            "[the paste is larger than {} MiB; it was left out]",
                            MAX_MESSAGE_BYTES >> 20
                        ),
                    )?;
                } else {
                    b.insert(&text);
                }
            }
            Key::Tab => return self.tab(s),
            Key::Ctrl('j') | Key::AltEnter => b.insert("\n"),
            Key::Enter => return Ok(Step::Submit),
            Key::Left | Key::Ctrl('b') => b.cursor = b.cursor.saturating_sub(1),
            Key::Right | Key::Ctrl('f') => b.cursor = (b.cursor + 1).min(b.chars.len()),
            Key::Home | Key::Ctrl('a') => b.cursor = b.line_start(),
            Key::End | Key::Ctrl('e') => b.cursor = b.line_end(),
            Key::WordLeft | Key::Alt('b') => b.cursor = b.word_start_before(),
            Key::WordRight | Key::Alt('f') => b.cursor = b.word_end_after(),
            Key::Backspace if b.cursor > 0 => {
                b.cursor -= 1;
                b.chars.remove(b.cursor);
            }
            Key::Delete => b.delete_forward(),
            Key::Ctrl('d') if b.chars.is_empty() => return Ok(Step::End),
            Key::Ctrl('d') => b.delete_forward(),
            Key::Ctrl('w') => {
                let from = b.blank_word_start_before();
                self.cut = b.cut(from, b.cursor);
            }
            Key::AltBackspace => {
                let from = b.word_start_before();
                self.cut = b.cut(from, b.cursor);
            }
            Key::Alt('d') => {
                let to = b.word_end_after();
                self.cut = b.cut(b.cursor, to);
            }
            Key::Ctrl('u') => {
                let from = b.line_start();
                self.cut = b.cut(from, b.cursor);
            }
            Key::Ctrl('k') => {
                let to = b.line_end();
                // At the end of a line, Ctrl-K joins it with the next.
                let to = if to == b.cursor { (to + 1).min(b.chars.len()) } else { to };
                self.cut = b.cut(b.cursor, to);
            }
            Key::Ctrl('y') => b.insert(&self.cut.clone()),
            Key::Ctrl('t') => b.transpose(),
            Key::Ctrl('l') => {
                // Row by row, not ESC [2J: tmux keeps a screen cleared whole
                // in its scrollback.
                let (height, _) = raw::window_size(1);
                write_terminal(&format!("\x1b[H{}", erase_rows(height)))?;
                self.drawn = Drawn::default();
            }
            Key::Ctrl('c') => return Ok(Step::Cancel),
            Key::Up | Key::Ctrl('p') => s.step_history(-1),
            Key::Down | Key::Ctrl('n') => s.step_history(1),
            Key::Ctrl('r') => {
                s.search = Some(Search { query: String::new(), found: None, before: s.buffer.clone() })
            }
            Key::Ctrl('x') => s.after_ctrl_x = true,
            Key::Ctrl('z') => {
                self.finish(s, false)?;
                write_terminal("\r\n")?;
                self.raw.suspend_job();
                self.drawn = Drawn::default();
            }
            // After a stop from outside (kill -TSTP) the shell may have
            // changed the terminal's mode: raw again, then draw anew.
            Key::Redraw => self.raw.reapply(),
            _ => {}
        }
        Ok(Step::Continue)
    }

    /// Tab: in a slash command, complete it as a shell does (the one
    /// candidate, else what all share, else list them above the prompt);
    /// elsewhere a tab.
    fn tab(&mut self, s: &mut Session) -> Result<Step> {
        let b = &mut s.buffer;
        let before: String = b.chars[..b.cursor].iter().collect();
        if !before.starts_with('/') || before.contains('\n') {
            b.insert("\t");
            return Ok(Step::Continue);
        }
        let candidates = (s.complete)(&before);
        let shared = shared_start(&candidates);
        if shared.chars().count() > before.chars().count() {
            let rest: Vec<char> = b.chars[b.cursor..].to_vec();
            s.buffer = Buffer::from(&shared);
            s.buffer.chars.extend(rest);
        } else if candidates.len() > 1 {
            // What each would add is what tells them apart.
            let word = before.find(' ').map_or(0, |at| at + 1);
            let names: Vec<&str> = candidates.iter().map(|c| c.get(word..).unwrap_or(c).trim_end()).collect();
            self.say_above(s, &names.join("   "))?;
        }
        Ok(Step::Continue)
    }

    /// A key while Ctrl-R searches: typing narrows, Ctrl-R finds an older
    /// match, Ctrl-G or Esc puts the text back as it was; any other key
    /// takes the match and then does what it does.
    fn search_key(&mut self, s: &mut Session, key: &Key) -> SearchStep {
        let Some(search) = s.search.as_mut() else { return SearchStep::Accepted };
        match key {
            Key::Char(c) => {
                search.query.push(*c);
                search.found = find_back(s.history, &search.query, s.history.len());
            }
            Key::Paste(text) => {
                search.query.push_str(text);
                search.found = find_back(s.history, &search.query, s.history.len());
            }
            Key::Backspace => {
                search.query.pop();
                search.found = find_back(s.history, &search.query, s.history.len());
            }
            Key::Ctrl('r') => {
                let from = search.found.unwrap_or(s.history.len());
                if let Some(older) = find_back(s.history, &search.query, from) {
                    search.found = Some(older);
                }
            }
            Key::Ctrl('g') | Key::Escape | Key::Ctrl('c') => {
                s.buffer = search.before.clone();
                s.search = None;
                return SearchStep::Cancelled;
            }
            Key::Redraw => {}
            _ => {
                if let Some(found) = search.found {
                    s.buffer = Buffer::from(s.history[found].as_str());
                    s.place = found;
                }
                s.search = None;
                return SearchStep::Accepted;
            }
        }
        if let Some(search) = &s.search
            && let Some(found) = search.found
        {
            let entry = &s.history[found];
            s.buffer = Buffer::from(entry);
            if let Some(at) = entry.find(&search.query) {
                s.buffer.cursor = entry[..at].chars().count();
            }
        }
        SearchStep::Handled
    }

    /// Ctrl-X Ctrl-E: the text so far in $VISUAL/$EDITOR/vi; what is saved
    /// there comes back to the prompt, to be sent with Enter.
    fn edit_externally(&mut self, s: &mut Session) -> Result<()> {
        self.finish(s, false)?;
        write_terminal("\r\n")?;
        let text: String = s.buffer.chars.iter().collect();
        let edited = self.raw.suspended(|| compose::in_editor(&text));
        self.drawn = Drawn::default();
        match edited {
            Ok(edited) => s.buffer = Buffer::from(edited.trim_end_matches('\n')),
            Err(e) => self.say_above(s, &e.to_string())?,
        }
        Ok(())
    }

    /// A note on a line of its own above the prompt, which is then drawn again.
    fn say_above(&mut self, s: &Session, note: &str) -> Result<()> {
        self.clear_drawing()?;
        write_terminal(&format!("{}\r\n", text::printable(note, false)))?;
        self.drawn = Drawn::default();
        self.draw(s)
    }

    /// Leave the cursor after the whole text, drawn in full; with
    /// `new_line`, on the line below it.
    fn finish(&mut self, s: &Session, new_line: bool) -> Result<()> {
        let (prompt, buffer) = s.shown();
        let (_, width) = raw::window_size(1);
        let layout = Layout::of(&prompt, &buffer, width);
        self.clear_drawing()?;
        let mut out = String::new();
        for (i, row) in layout.rows.iter().enumerate() {
            if i > 0 {
                out.push_str("\r\n");
            }
            out.push_str(&row.text);
        }
        if new_line {
            out.push_str("\r\n");
        }
        write_terminal(&out)?;
        self.drawn = Drawn::default();
        Ok(())
    }

    /// Move to where the last drawing started and clear from there down.
    fn clear_drawing(&mut self) -> Result<()> {
        let (_, width) = raw::window_size(1);
        let up = self.drawn.rows_above_cursor(width);
        let mut out = String::new();
        if up > 0 {
            out.push_str(&format!("\x1b[{up}A"));
        }
        out.push('\r');
        out.push_str(&erase_rows(self.drawn.rows(width)));
        write_terminal(&out)
    }

    /// Draw the prompt and text, as many rows of it as fit on the screen
    /// around the cursor.
    fn draw(&mut self, s: &Session) -> Result<()> {
        let (prompt, buffer) = s.shown();
        let (height, width) = raw::window_size(1);
        let layout = Layout::of(&prompt, &buffer, width);
        let shown = height.max(1);
        let top = if layout.rows.len() <= shown {
            0
        } else {
            layout.cursor_row.saturating_sub(shown - 1).min(layout.rows.len() - shown)
        };
        let rows = &layout.rows[top..(top + shown).min(layout.rows.len())];
        let up = self.drawn.rows_above_cursor(width);
        let mut out = String::from("\x1b[?25l");
        if up > 0 {
            out.push_str(&format!("\x1b[{up}A"));
        }
        out.push('\r');
        out.push_str(&erase_rows(self.drawn.rows(width)));
        for (i, row) in rows.iter().enumerate() {
            if i > 0 {
                out.push_str("\r\n");
            }
            out.push_str(&row.text);
        }
        let cursor_row = layout.cursor_row - top;
        let below = rows.len() - 1 - cursor_row;
        if below > 0 {
            out.push_str(&format!("\x1b[{below}A"));
        }
        out.push('\r');
        if layout.cursor_column > 0 {
            out.push_str(&format!("\x1b[{}C", layout.cursor_column));
        }
        out.push_str("\x1b[?25h");
        write_terminal(&out)?;
        self.drawn = Drawn {
            row_widths: rows.iter().map(|r| r.columns).collect(),
            cursor_row,
            cursor_column: layout.cursor_column,
            width,
        };
        Ok(())
    }
}

/// Erase `rows` rows from the cursor's down, and come back: each with
/// ESC [2K and the cursor moved down (which never scrolls). Not ESC [J:
/// from the top-left corner (after Ctrl-L) tmux takes that for clearing
/// the screen and copies the screen into its scrollback, at every key.
fn erase_rows(rows: usize) -> String {
    let mut out = String::from("\x1b[2K");
    for _ in 1..rows {
        out.push_str("\x1b[B\x1b[2K");
    }
    if rows > 1 {
        out.push_str(&format!("\x1b[{}A", rows - 1));
    }
    out
}

impl Drawn {
    /// How many rows the last drawing takes on a terminal now `width`
    /// wide (see `rows_above_cursor`).
    fn rows(&self, width: usize) -> usize {
        if self.width == 0 || self.row_widths.is_empty() {
            return 1;
        }
        if width >= self.width {
            return self.row_widths.len();
        }
        self.row_widths.iter().map(|&c| c.div_ceil(width).max(1)).sum()
    }

    /// How many rows above the cursor the last drawing starts, on a
    /// terminal now `width` wide. After a resize, a terminal that rewraps
    /// its lines (tmux, VTE, kitty) has spread each row over more rows.
    fn rows_above_cursor(&self, width: usize) -> usize {
        if self.width == 0 || self.row_widths.is_empty() {
            return 0;
        }
        if width >= self.width {
            return self.cursor_row;
        }
        let spread = |columns: usize| columns.div_ceil(width).max(1);
        self.row_widths[..self.cursor_row].iter().map(|&c| spread(c)).sum::<usize>()
            + self.cursor_column / width
    }
}

enum Step {
    Continue,
    Submit,
    Cancel,
    End,
}

enum SearchStep {
    Handled,
    Cancelled,
    Accepted,
}

/// One call of `read_line`: the text, the history and where in it we are.
struct Session<'a> {
    prompt: &'a str,
    history: &'a [String],
    buffer: Buffer,
    /// The text being written, kept while Up shows older messages.
    draft: Option<Buffer>,
    /// Index into history of what is shown; history.len() is the draft.
    place: usize,
    search: Option<Search>,
    after_ctrl_x: bool,
    complete: &'a mut dyn FnMut(&str) -> Vec<String>,
}

impl Session<'_> {
    /// The prompt and text to draw (a search shows what it looks for).
    fn shown(&self) -> (String, Buffer) {
        match &self.search {
            Some(search) => {
                let state =
                    if search.found.is_some() || search.query.is_empty() { "search" } else { "no match" };
                (format!("({state}: {}) ", text::printable(&search.query, false)), self.buffer.clone())
            }
            None => (self.prompt.to_string(), self.buffer.clone()),
        }
    }

    fn step_history(&mut self, by: isize) {
        let to = self.place as isize + by;
        if to < 0 || to > self.history.len() as isize {
            return;
        }
        if self.place == self.history.len() {
            self.draft = Some(self.buffer.clone());
        }
        self.place = to as usize;
        self.buffer = match self.history.get(self.place) {
            Some(entry) => Buffer::from(entry.as_str()),
            None => self.draft.take().unwrap_or_default(),
        };
    }
}

/// The longest start all `texts` share (at a character boundary).
fn shared_start(texts: &[String]) -> String {
    let Some(first) = texts.first() else { return String::new() };
    let mut end = first.len();
    for text in &texts[1..] {
        end = first
            .char_indices()
            .zip(text.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

/// The newest history entry before `before` that holds `query`.
fn find_back(history: &[String], query: &str, before: usize) -> Option<usize> {
    if query.is_empty() {
        return None;
    }
    history[..before.min(history.len())].iter().rposition(|entry| entry.contains(query))
}

impl Buffer {
    fn from(text: &str) -> Buffer {
        let chars: Vec<char> = text.chars().collect();
        Buffer { cursor: chars.len(), chars }
    }

    fn insert(&mut self, text: &str) {
        let at = self.cursor;
        let added: Vec<char> = text.chars().collect();
        self.cursor += added.len();
        self.chars.splice(at..at, added);
    }

    fn delete_forward(&mut self) {
        if self.cursor < self.chars.len() {
            self.chars.remove(self.cursor);
        }
    }

    /// Take out `from..to` and return it.
    fn cut(&mut self, from: usize, to: usize) -> String {
        let taken: String = self.chars.drain(from..to).collect();
        self.cursor = from;
        taken
    }

    /// Swap the characters before and at the cursor (at the end: the last two).
    fn transpose(&mut self) {
        let at = if self.cursor == self.chars.len() { self.cursor.saturating_sub(1) } else { self.cursor };
        if at > 0 && at < self.chars.len() {
            self.chars.swap(at - 1, at);
            self.cursor = at + 1;
        }
    }

    /// The start of the line (of a multi-line text) the cursor is on.
    fn line_start(&self) -> usize {
        self.chars[..self.cursor].iter().rposition(|&c| c == '\n').map_or(0, |at| at + 1)
    }

    fn line_end(&self) -> usize {
        self.chars[self.cursor..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.chars.len(), |at| self.cursor + at)
    }

    /// Alt-B: back over non-word characters, then over a word.
    fn word_start_before(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && !self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        while at > 0 && self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        at
    }

    /// Alt-F: forward over non-word characters, then over a word.
    fn word_end_after(&self) -> usize {
        let mut at = self.cursor;
        while at < self.chars.len() && !self.chars[at].is_alphanumeric() {
            at += 1;
        }
        while at < self.chars.len() && self.chars[at].is_alphanumeric() {
            at += 1;
        }
        at
    }

    /// Ctrl-W: back over blanks, then over what is not blank (as a shell does).
    fn blank_word_start_before(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        while at > 0 && !self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        at
    }
}

/// The prompt and text cut into screen rows `width` columns wide.
struct Layout {
    rows: Vec<Row>,
    cursor_row: usize,
    cursor_column: usize,
}

struct Row {
    text: String,
    columns: usize,
}

impl Layout {
    fn of(prompt: &str, buffer: &Buffer, width: usize) -> Layout {
        let width = width.max(4);
        let mut layout =
            Layout { rows: vec![Row { text: String::new(), columns: 0 }], cursor_row: 0, cursor_column: 0 };
        // A prompt wider than the screen keeps its end, which says "> ".
        let prompt = if text::columns_of(prompt) > width / 2 {
            text::fit_columns(prompt, width / 2)
        } else {
            prompt.to_string()
        };
        for c in prompt.chars() {
            layout.put(c, text::char_columns(c), width);
        }
        for (i, &c) in buffer.chars.iter().enumerate() {
            if i == buffer.cursor {
                layout.mark_cursor(width);
            }
            match c {
                '\n' => layout.rows.push(Row { text: String::new(), columns: 0 }),
                '\t' => {
                    for _ in 0..TAB_COLUMNS {
                        layout.put(' ', 1, width);
                    }
                }
                c => layout.put(c, char_width(c), width),
            }
        }
        if buffer.cursor >= buffer.chars.len() {
            layout.mark_cursor(width);
        }
        layout
    }

    fn put(&mut self, c: char, columns: usize, width: usize) {
        let row = self.rows.last_mut().expect("a layout has a row");
        if row.columns + columns > width {
            self.rows.push(Row { text: String::new(), columns: 0 });
        }
        let row = self.rows.last_mut().expect("a layout has a row");
        row.text.push(c);
        row.columns += columns;
    }

    /// The cursor goes where the next character would: on a full row,
    /// at the start of the next one.
    fn mark_cursor(&mut self, width: usize) {
        if self.rows.last().is_some_and(|r| r.columns >= width) {
            self.rows.push(Row { text: String::new(), columns: 0 });
        }
        self.cursor_row = self.rows.len() - 1;
        self.cursor_column = self.rows[self.cursor_row].columns;
    }
}

/// Display columns of a character in the editor: combining marks,
/// zero-width joiners and variation selectors take none.
fn char_width(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036F | 0x200B..=0x200F | 0x20D0..=0x20FF | 0xFE00..=0xFE0F => 0,
        _ => text::char_columns(c),
    }
}

fn write_terminal(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|_| out.flush()).map_err(terminal_error)
}

fn terminal_error(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Error::BrokenPipe;
    }
    Error::TerminalWrite(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(text: &str, cursor: usize) -> Buffer {
        Buffer { chars: text.chars().collect(), cursor }
    }

    fn rows(layout: &Layout) -> Vec<&str> {
        layout.rows.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn wide_characters_take_two_columns_and_wrap_whole() {
        let layout = Layout::of("> ", &buffer("调试中文", 2), 80);
        assert_eq!((layout.cursor_row, layout.cursor_column), (0, 6));
        // 2 + 2 + 2 = 6 columns of 7: the next wide character goes below.
        let layout = Layout::of("> ", &buffer("调试中文", 4), 7);
        assert_eq!(rows(&layout), vec!["> 调试", "中文"]);
        assert_eq!((layout.cursor_row, layout.cursor_column), (1, 4));
        let layout = Layout::of("> ", &buffer("e\u{301}", 2), 80);
        assert_eq!(layout.cursor_column, 3);
    }

    #[test]
    fn a_full_row_puts_the_cursor_on_the_next() {
        let layout = Layout::of("> ", &buffer("abcdef", 6), 8);
        assert_eq!(rows(&layout), vec!["> abcdef", ""]);
        assert_eq!((layout.cursor_row, layout.cursor_column), (1, 0));
        let layout = Layout::of("> ", &buffer("abcdefgh", 3), 8);
        assert_eq!(rows(&layout), vec!["> abcdef", "gh"]);
        assert_eq!((layout.cursor_row, layout.cursor_column), (0, 5));
    }

    #[test]
    fn new_lines_and_tabs() {
        let layout = Layout::of("> ", &buffer("def f():\n\treturn", 10), 80);
        assert_eq!(rows(&layout), vec!["> def f():", "    return"]);
        assert_eq!((layout.cursor_row, layout.cursor_column), (1, 4));
    }

    #[test]
    fn after_a_narrowing_resize_the_rows_above_count_as_rewrapped() {
        let drawn = Drawn { row_widths: vec![100, 30, 10], cursor_row: 2, cursor_column: 5, width: 120 };
        assert_eq!(drawn.rows_above_cursor(120), 2);
        assert_eq!(drawn.rows_above_cursor(150), 2);
        assert_eq!(drawn.rows_above_cursor(40), 3 + 1);
        assert_eq!(Drawn::default().rows_above_cursor(80), 0);
    }

    #[test]
    fn tab_shares_the_start_of_the_candidates() {
        let texts = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(shared_start(&texts(&["/continue redis a", "/continue redis b"])), "/continue redis ");
        assert_eq!(shared_start(&texts(&["/new "])), "/new ");
        assert_eq!(shared_start(&texts(&["é1", "é2"])), "é");
        assert_eq!(shared_start(&[]), "");
    }

    #[test]
    fn words_lines_and_cuts() {
        let mut b = buffer("say hello, world", 16);
        assert_eq!(b.word_start_before(), 11);
        b.cursor = 3;
        assert_eq!(b.word_end_after(), 9);
        b.cursor = 16;
        assert_eq!(b.blank_word_start_before(), 11);
        assert_eq!(b.cut(11, 16), "world");
        assert_eq!(b.chars.iter().collect::<String>(), "say hello, ");
        let b = buffer("one\ntwo\nthree", 5);
        assert_eq!((b.line_start(), b.line_end()), (4, 7));
        let mut b = buffer("ab", 2);
        b.transpose();
        assert_eq!(b.chars, vec!['b', 'a']);
    }

    #[test]
    fn history_keeps_the_draft_and_search_finds_the_newest_match() {
        let history = vec!["first".to_string(), "second".to_string(), "first again".to_string()];
        assert_eq!(find_back(&history, "first", 3), Some(2));
        assert_eq!(find_back(&history, "first", 2), Some(0));
        assert_eq!(find_back(&history, "none", 3), None);
        let mut s = Session {
            prompt: "> ",
            history: &history,
            buffer: buffer("draft", 5),
            draft: None,
            place: 3,
            search: None,
            after_ctrl_x: false,
            complete: &mut |_| Vec::new(),
        };
        s.step_history(-1);
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "first again");
        s.step_history(-1);
        s.step_history(-1);
        s.step_history(-1);
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "first");
        for _ in 0..4 {
            s.step_history(1);
        }
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "draft");
    }
}
