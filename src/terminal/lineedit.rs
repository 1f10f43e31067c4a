//! The interactive prompt's line editor: Emacs keys, history with search,
//! wide characters, long and multi-line text, pastes, an external editor.
//! It draws only on a terminal in raw mode and hands back plain text.

use std::io::{self, Write};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;
use crate::terminal::compose;
use crate::terminal::edit::{self, Buffer, Effect, State, prompt_columns};
use crate::terminal::history::History;
use crate::terminal::keys::KeyReader;
use crate::terminal::raw::{self, RawMode};
use crate::text;

/// What reading a line came to: its text, Ctrl-C, or the end of input.
pub(crate) enum Line {
    Text(String),
    Cancelled,
    End,
}

/// How long the terminal has to answer the first cursor position query:
/// one that does not is read line by line.
const ANSWER_WAIT: Duration = Duration::from_millis(500);

/// Columns a tab takes in the editor (it is kept as a tab in the text).
const TAB_COLUMNS: usize = 4;

pub(crate) struct Editor {
    /// Raw mode for as long as the editor lives, not only while a line is
    /// read: keys typed ahead (while a message is saved) must not meet the
    /// terminal's own line editing, which would echo and act on them.
    raw: RawMode,
    keys: KeyReader,
    /// What Ctrl-K, Ctrl-U, Ctrl-W and Alt-D cut last, for Ctrl-Y (lent
    /// to each line's `State`).
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

impl Editor {
    /// An editor on stdin and stdout, if both are a terminal that can take
    /// it: TERM set and not `dumb`, raw mode possible, and an answer to a
    /// cursor position query. Otherwise Err, and lines are read line by line,
    /// starting with what was typed while the terminal was asked.
    pub(crate) fn for_terminal() -> std::result::Result<Editor, Vec<u8>> {
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
    pub(crate) fn cooked<T>(&mut self, during: impl FnOnce() -> T) -> T {
        self.raw.suspended(during)
    }

    /// Read one message, recalling `history`; `prompt` is shown before
    /// the text.
    /// `complete` gives, for the text before the cursor, the texts Tab may
    /// make of it (a slash command, a title after it).
    pub(crate) fn read_line(
        &mut self,
        prompt: &str,
        history: &History,
        complete: &mut dyn FnMut(&str) -> Vec<String>,
    ) -> Result<Line> {
        self.drawn = Drawn::default();
        let mut state = State::new(prompt, history, std::mem::take(&mut self.cut));
        if let Some(text) = self.prefilled.take() {
            state.replace_text(&text);
        }
        let line = self.edit(&mut state, complete);
        self.cut = std::mem::take(&mut state.cut);
        line
    }

    /// Read keys, hand each to `edit::step`, and do what it says.
    fn edit(&mut self, s: &mut State, complete: &mut dyn FnMut(&str) -> Vec<String>) -> Result<Line> {
        self.draw(s)?;
        loop {
            let key = match self.keys.read_key() {
                Ok(key) => key,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    self.finish(s, false)?;
                    return match sys::take_signal() {
                        Some(sys::SIGINT) => Ok(Line::Cancelled),
                        _ => Err(Error::Interrupted),
                    };
                }
                // The terminal is gone (a closed pane): nobody to ask.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Line::End),
                Err(e) => return Err(terminal_error(e)),
            };
            let (next, effect) = edit::step(std::mem::take(s), key);
            *s = next;
            match effect {
                Effect::Draw => {}
                Effect::Submit => return self.submit(s),
                Effect::Cancel | Effect::End => {
                    self.finish(s, false)?;
                    return Ok(if effect == Effect::Cancel { Line::Cancelled } else { Line::End });
                }
                Effect::ClearScreen => {
                    // Row by row, not ESC [2J: tmux keeps a screen cleared
                    // whole in its scrollback.
                    let (height, _) = raw::window_size(1);
                    write_terminal(&format!("\x1b[H{}", erase_rows(height)))?;
                    self.drawn = Drawn::default();
                }
                Effect::Complete => self.tab(s, complete)?,
                Effect::Suspend => {
                    self.finish(s, false)?;
                    write_terminal("\r\n")?;
                    self.raw.suspend_job();
                    self.drawn = Drawn::default();
                }
                Effect::Reapply => self.raw.reapply(),
                Effect::EditExternally => self.edit_externally(s)?,
                Effect::Note(note) => self.say_above(s, &note)?,
            }
            self.draw(s)?;
        }
    }

    /// Enter: the text, unless it is too large to send.
    fn submit(&mut self, s: &mut State) -> Result<Line> {
        s.search = None;
        let text = s.text();
        self.finish(s, true)?;
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(Error::TooLarge(format!(
                "the message is larger than {} MiB; nothing was sent",
                MAX_MESSAGE_BYTES >> 20
            )));
        }
        Ok(Line::Text(text))
    }

    /// Ctrl-X Ctrl-E: the text so far in $VISUAL/$EDITOR/vi; what is saved
    /// there comes back to the prompt, to be sent with Enter.
    fn edit_externally(&mut self, s: &mut State) -> Result<()> {
        // The prompt is drawn again, with what the editor saved, where it
        // was: the line as it stood is not left on the screen above it.
        self.clear_drawing()?;
        let text = s.text();
        let edited = self.raw.suspended(|| compose::in_editor(&text));
        self.drawn = Drawn::default();
        match edited {
            Ok(edited) => s.replace_text(edited.trim_end_matches('\n')),
            Err(e) => self.say_above(s, &e.to_string())?,
        }
        Ok(())
    }

    /// Tab in a slash command: complete it as a shell does (the one
    /// candidate, else what all share, else list them above the prompt).
    fn tab(&mut self, s: &mut State, complete: &mut dyn FnMut(&str) -> Vec<String>) -> Result<()> {
        let before = s.before_cursor();
        let candidates = complete(&before);
        let shared = shared_start(&candidates);
        if shared.chars().count() > before.chars().count() {
            let after: String = s.text().chars().skip(before.chars().count()).collect();
            s.replace_text(&format!("{shared}{after}"));
            s.buffer.cursor = shared.chars().count();
        } else if candidates.len() > 1 {
            // What each would add is what tells them apart.
            let word = before.find(' ').map_or(0, |at| at + 1);
            let names: Vec<&str> = candidates.iter().map(|c| c.get(word..).unwrap_or(c).trim_end()).collect();
            self.say_above(s, &names.join("   "))?;
        }
        Ok(())
    }

    /// Start the next line with `text` (`/edit`'s, to review).
    pub(crate) fn prefill(&mut self, text: String) {
        self.prefilled = Some(text);
    }

    /// Run `during` with the terminal in its ordinary mode but without
    /// echo: keys typed while a reply is drawn are held for the next
    /// prompt, never drawn inside the reply.
    pub(crate) fn cooked_quietly<T>(&mut self, during: impl FnOnce() -> T) -> T {
        self.raw.suspended_without_echo(during)
    }

    /// A note on a line of its own above the prompt, which is then drawn again.
    fn say_above(&mut self, s: &State, note: &str) -> Result<()> {
        self.clear_drawing()?;
        write_terminal(&format!("{}\r\n", text::printable(note, false)))?;
        self.drawn = Drawn::default();
        self.draw(s)
    }

    /// Leave the cursor after the whole text, drawn in full; with
    /// `new_line`, on the line below it.
    fn finish(&mut self, s: &State, new_line: bool) -> Result<()> {
        let (_, width) = raw::window_size(1);
        let (prompt, buffer) = s.shown(width);
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
    fn draw(&mut self, s: &State) -> Result<()> {
        let (height, width) = raw::window_size(1);
        let (prompt, buffer) = s.shown(width);
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

/// The longest start all `texts` share (at a character boundary).
fn shared_start(texts: &[String]) -> String {
    let Some(first) = texts.first() else { return String::new() };
    let mut end = first.len();
    for text in &texts[1..] {
        let common = first.char_indices().zip(text.chars()).take_while(|((_, a), b)| a == b).last();
        end = common.map_or(0, |((i, a), _)| i + a.len_utf8()).min(end);
    }
    first[..end].to_string()
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
        // A prompt is cut to three quarters of the screen: the text has room.
        let prompt = if text::columns_of(prompt) > prompt_columns(width) {
            text::fit_columns(prompt, prompt_columns(width))
        } else {
            prompt.to_string()
        };
        for c in prompt.chars() {
            layout.put_shown(c, width);
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
                c => layout.put_shown(c, width),
            }
        }
        if buffer.cursor >= buffer.chars.len() {
            layout.mark_cursor(width);
        }
        layout
    }

    /// `c` as the gate shows it: a control character or bidi override in
    /// a recalled message, a paste or what /edit brought back is drawn as
    /// `^[` or `\u{202e}`, one piece, never obeyed (the text keeps it).
    fn put_shown(&mut self, c: char, width: usize) {
        if !text::is_harmful(c, false) {
            return self.put(c, text::char_columns(c), width);
        }
        let mut shown = String::new();
        text::push_shown(&mut shown, c);
        if self.rows.last().is_some_and(|row| row.columns + shown.len() > width) {
            self.rows.push(Row { text: String::new(), columns: 0 });
        }
        for c in shown.chars() {
            self.put(c, 1, width);
        }
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
    fn control_characters_and_bidi_overrides_are_drawn_through_the_gate() {
        let layout = Layout::of("> ", &buffer("a\u{1b}]0;x\u{7}b\u{202e}c", 8), 80);
        assert_eq!(rows(&layout), vec!["> a^[]0;x^Gb\\u{202e}c"]);
        // The cursor is after b: past the two columns each of ^[ and ^G.
        assert_eq!((layout.cursor_row, layout.cursor_column), (0, 12));
        let layout = Layout::of("> ", &buffer("abcde\u{9b}", 6), 8);
        assert_eq!(rows(&layout), vec!["> abcde", "\\u{9b}"]);
    }

    #[test]
    fn new_lines_and_tabs() {
        let layout = Layout::of("> ", &buffer("def f():\n\treturn", 10), 80);
        assert_eq!(rows(&layout), vec!["> def f():", "    return"]);
        assert_eq!((layout.cursor_row, layout.cursor_column), (1, 4));
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
    fn after_a_narrowing_resize_the_rows_above_count_as_rewrapped() {
        let drawn = Drawn { row_widths: vec![100, 30, 10], cursor_row: 2, cursor_column: 5, width: 120 };
        assert_eq!(drawn.rows_above_cursor(120), 2);
        assert_eq!(drawn.rows_above_cursor(150), 2);
        assert_eq!(drawn.rows_above_cursor(40), 3 + 1);
        assert_eq!(Drawn::default().rows_above_cursor(80), 0);
    }
}
