//! Words wrapped to a terminal's width: the one wrapping function of what
//! hermes draws on a terminal (a reply as it streams, a resumed
//! conversation, `sessions show`, its own lines, a table's cells). Rows
//! break between words, never inside one; a word longer than a row is left
//! to the terminal to wrap (a table's cell cuts it instead). SGR sequences
//! take no column, and the attributes they leave on are ended before a
//! break and taken up again after the row's indentation, which they never
//! paint. CJK and emoji take two columns. What is not on a terminal is
//! never wrapped: that is the caller's to know.

use crate::text::{char_columns, sequence_len, sgr_len};

/// A word held this long (bytes: sequences, marks that take no column) is
/// drawn as it comes, like one longer than a row.
const HOLD_MAX: usize = 1024;

/// Text on its way to a terminal, a piece at a time, wrapped as it goes:
/// only the word being read is held back.
pub(crate) struct Wrap {
    /// Columns of a row; None: rows never break (the width is not known).
    width: Option<usize>,
    /// Whether rows break now (not in a code block's line).
    breaking: bool,
    /// A word longer than a row is cut at the row's end (a table's cell).
    cut_long: bool,
    /// Columns used on the row the cursor is on, and where its text starts.
    col: usize,
    row_start: usize,
    /// What each further row of a line starts with (a list item's
    /// indentation, a quote's bars), and its columns.
    hang: String,
    hang_cols: usize,
    /// The word being read, and its columns.
    word: String,
    word_cols: usize,
    /// The attributes before the word's first sequence (those after are
    /// `attrs` already): what a break before it takes up again.
    before_word: Option<Attrs>,
    /// The word is longer than a row: it is being drawn as it comes.
    long: bool,
    /// The blanks between what is drawn and the word.
    gap: String,
    gap_cols: usize,
    attrs: Attrs,
    /// Rows the line being drawn takes so far, and the last line took.
    rows: usize,
    last_rows: usize,
}

impl Wrap {
    pub(crate) fn new(width: Option<usize>) -> Wrap {
        Wrap {
            width: width.filter(|&w| w > 0),
            breaking: true,
            cut_long: false,
            col: 0,
            row_start: 0,
            hang: String::new(),
            hang_cols: 0,
            word: String::new(),
            word_cols: 0,
            before_word: None,
            long: false,
            gap: String::new(),
            gap_cols: 0,
            attrs: Attrs::default(),
            rows: 1,
            last_rows: 1,
        }
    }

    /// A new width (the window was resized): for what is not drawn yet.
    pub(crate) fn set_width(&mut self, width: Option<usize>, out: &mut String) {
        let width = width.filter(|&w| w > 0);
        if width == self.width {
            return;
        }
        if width.is_none() {
            self.end_word(out);
            self.draw_gap(out);
        }
        self.width = width.filter(|&w| w > 0);
    }

    /// Whether rows break from here on (a code block's lines do not).
    pub(crate) fn set_breaking(&mut self, on: bool, out: &mut String) {
        if on != self.breaking {
            self.end_word(out);
            self.draw_gap(out);
            self.breaking = on;
        }
    }

    /// What the rows after the first of each line start with, from the
    /// next break on: text without a newline, sequences allowed.
    pub(crate) fn hang(&mut self, hang: &str) {
        self.hang.clear();
        self.hang.push_str(hang);
        self.hang_cols = visible_columns(hang);
    }

    /// The rows the last whole line took on screen.
    pub(crate) fn last_rows(&self) -> usize {
        self.last_rows
    }

    /// Draw `text` onto `out`, holding back only the word it ends inside.
    /// It goes a run at a time: a sequence, a newline, a blank, the
    /// letters of a word (or, while rows do not break, all up to a newline).
    pub(crate) fn push(&mut self, text: &str, out: &mut String) {
        let mut rest = text;
        while let Some(&b) = rest.as_bytes().first() {
            let len = match b {
                0x1b => {
                    let len = sgr_len(rest).or_else(|| sequence_len(rest)).unwrap_or(rest.len());
                    self.sequence(&rest[..len], out);
                    len
                }
                b'\n' => {
                    self.end_line(out);
                    1
                }
                _ if !self.wraps() => {
                    let len = rest.bytes().position(|b| b == b'\n' || b == 0x1b).unwrap_or(rest.len());
                    out.push_str(&rest[..len]);
                    self.advance_over(&rest[..len]);
                    len
                }
                b' ' | b'\t' => {
                    self.end_word(out);
                    let at = self.col + self.gap_cols;
                    self.gap_cols += if b == b'\t' { 8 - at % 8 } else { 1 };
                    self.gap.push(b as char);
                    1
                }
                _ => {
                    let len = rest
                        .bytes()
                        .position(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x1b))
                        .unwrap_or(rest.len());
                    self.letters(&rest[..len], out);
                    len
                }
            };
            rest = &rest[len..];
        }
    }

    /// What is held, once nothing more is coming (no newline is added).
    pub(crate) fn finish(&mut self, out: &mut String) {
        self.end_word(out);
        if !self.wraps() {
            self.draw_gap(out);
        }
    }

    fn wraps(&self) -> bool {
        self.breaking && self.width.is_some()
    }

    fn sequence(&mut self, seq: &str, out: &mut String) {
        if self.long || !self.wraps() {
            self.attrs.apply(seq);
            out.push_str(seq);
            return;
        }
        self.word.push_str(seq);
        if self.before_word.is_none() {
            self.before_word = Some(self.attrs.clone());
        }
        self.attrs.apply(seq);
        if self.word.len() > HOLD_MAX {
            self.go_long(out);
        }
    }

    /// Letters of a word (no blank, newline or sequence among them).
    fn letters(&mut self, run: &str, out: &mut String) {
        if self.long {
            if self.cut_long {
                run.chars().for_each(|c| self.draw_char(c, char_columns(c), out));
            } else {
                out.push_str(run);
                self.advance(columns(run));
            }
            return;
        }
        self.word.push_str(run);
        self.word_cols += columns(run);
        // Held while it fits on this row or on the next.
        let width = self.width.unwrap_or(usize::MAX);
        let here = self.col + self.gap_cols + self.word_cols <= width;
        let next = self.word_cols <= width.saturating_sub(self.hang_cols).max(1);
        if !(here || next) || self.word.len() > HOLD_MAX {
            self.go_long(out);
        }
    }

    /// The word is longer than any row could hold: start it on a row of
    /// its own (unless this one has nothing yet) and draw the rest as it comes.
    fn go_long(&mut self, out: &mut String) {
        let word = std::mem::take(&mut self.word);
        self.word_cols = 0;
        if self.col > self.row_start {
            self.break_row(out);
        }
        self.before_word = None;
        self.draw_gap(out);
        self.long = true;
        self.push(&word, out);
    }

    /// The word read is whole: drawn, if it is not already.
    fn end_word(&mut self, out: &mut String) {
        if self.long {
            self.long = false;
        } else {
            self.place(out);
        }
    }

    /// Draw the word read: on this row if it fits, else after a break.
    fn place(&mut self, out: &mut String) {
        if self.word.is_empty() {
            return;
        }
        let fits =
            !self.wraps() || self.col + self.gap_cols + self.word_cols <= self.width.unwrap_or(usize::MAX);
        if !fits && self.col > self.row_start {
            self.break_row(out);
        }
        self.draw_gap(out);
        out.push_str(&self.word);
        self.advance(self.word_cols);
        self.word.clear();
        self.word_cols = 0;
        self.before_word = None;
    }

    fn draw_gap(&mut self, out: &mut String) {
        out.push_str(&self.gap);
        self.advance(self.gap_cols);
        self.gap.clear();
        self.gap_cols = 0;
    }

    /// One character of a word longer than a row.
    fn draw_char(&mut self, c: char, cols: usize, out: &mut String) {
        let width = self.width.unwrap_or(usize::MAX);
        if self.cut_long && self.col + cols > width && self.col > self.row_start {
            self.break_row(out);
        }
        out.push(c);
        self.advance(cols);
    }

    /// The cursor moved over `text`, drawn as it is (tabs to their stops).
    fn advance_over(&mut self, text: &str) {
        if self.width.is_none() {
            return; // no row ever breaks: where the cursor is does not matter
        }
        if text.is_ascii() && !text.contains('\t') {
            return self.advance(text.len());
        }
        for c in text.chars() {
            self.advance(if c == '\t' { 8 - self.col % 8 } else { char_columns(c) });
        }
    }

    /// The cursor moved `cols` on; past the row's end the terminal wrapped.
    fn advance(&mut self, cols: usize) {
        let width = self.width.unwrap_or(usize::MAX);
        if self.col + cols > width {
            let past = self.col + cols - width;
            self.rows += past.div_ceil(width);
            self.col = (past - 1) % width + 1;
            self.row_start = 0;
        } else {
            self.col += cols;
        }
    }

    /// A new row of the same line: the attributes on are ended (the
    /// indentation is not theirs) and taken up again after it.
    fn break_row(&mut self, out: &mut String) {
        let on = self.before_word.as_ref().unwrap_or(&self.attrs).sgr();
        if !on.is_empty() {
            out.push_str("\x1b[0m");
        }
        out.push('\n');
        out.push_str(&self.hang);
        out.push_str(&on);
        self.col = self.hang_cols;
        self.row_start = self.hang_cols;
        self.rows += 1;
        self.gap.clear();
        self.gap_cols = 0;
    }

    fn end_line(&mut self, out: &mut String) {
        self.end_word(out);
        if self.wraps() {
            self.gap.clear();
            self.gap_cols = 0;
        } else {
            self.draw_gap(out);
        }
        out.push('\n');
        self.last_rows = self.rows;
        self.rows = 1;
        self.col = 0;
        self.row_start = 0;
    }
}

/// `text` wrapped to `width` columns (None: as it is), each row after the
/// first of a line starting with `hang`.
pub(crate) fn wrapped(text: &str, width: Option<usize>, hang: &str) -> String {
    let mut wrap = Wrap::new(width);
    wrap.hang(hang);
    let mut out = String::with_capacity(text.len() + 16);
    wrap.push(text, &mut out);
    wrap.finish(&mut out);
    out
}

/// `text` (one line) in rows of at most `width` columns, a word too long
/// for one cut; each row ends the attributes it leaves on.
pub(crate) fn rows(text: &str, width: usize) -> Vec<String> {
    let mut wrap = Wrap::new(Some(width.max(1)));
    wrap.cut_long = true;
    let mut out = String::with_capacity(text.len() + 16);
    wrap.push(text, &mut out);
    wrap.end_word(&mut out);
    if !wrap.attrs.sgr().is_empty() {
        out.push_str("\x1b[0m");
    }
    out.split('\n').map(str::to_string).collect()
}

/// Columns the letters of `text` take (no sequence among them).
fn columns(text: &str) -> usize {
    if text.is_ascii() { text.len() } else { text.chars().map(char_columns).sum() }
}

/// Columns `text` takes on a terminal, its SGR sequences taking none.
pub(crate) fn visible_columns(text: &str) -> usize {
    let mut cols = 0;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(len) = sgr_len(rest) {
            rest = &rest[len..];
            continue;
        }
        cols += char_columns(c);
        rest = &rest[c.len_utf8()..];
    }
    cols
}

/// The attributes SGR sequences have left on: what is taken up again
/// after a break.
#[derive(Clone, Default, PartialEq)]
struct Attrs {
    /// Attributes 1 to 9 (bold, dim, italic, underline, blink, ..., strike).
    on: [bool; 10],
    /// Foreground, background and underline colours, as their parameters.
    colours: [Option<String>; 3],
}

impl Attrs {
    /// Take in one SGR sequence (`ESC [ 1;31 m`); anything else changes nothing.
    fn apply(&mut self, seq: &str) {
        let Some(params) = seq.strip_prefix("\x1b[").and_then(|s| s.strip_suffix('m')) else { return };
        // One attribute on or off, as most sequences are: no parsing.
        match params.as_bytes() {
            [] | [b'0'] => return *self = Attrs::default(),
            [n @ b'1'..=b'9'] => return self.on[usize::from(n - b'0')] = true,
            [b'2', b'2'] => return (self.on[1], self.on[2]) = (false, false),
            [b'2', n @ b'3'..=b'9'] => return self.on[usize::from(n - b'0')] = false,
            _ => {}
        }
        let mut fields = params.split(';');
        while let Some(field) = fields.next() {
            let number = field.split(':').next().and_then(|n| n.parse::<u32>().ok()).unwrap_or(0);
            match number {
                0 => *self = Attrs::default(),
                n @ 1..=9 => self.on[n as usize] = true,
                22 => (self.on[1], self.on[2]) = (false, false),
                n @ 23..=29 => self.on[n as usize - 20] = false,
                30..=37 | 90..=97 => self.colours[0] = Some(field.to_string()),
                40..=47 | 100..=107 => self.colours[1] = Some(field.to_string()),
                39 => self.colours[0] = None,
                49 => self.colours[1] = None,
                59 => self.colours[2] = None,
                n @ (38 | 48 | 58) => {
                    let colour = if field.contains(':') {
                        field.to_string()
                    } else {
                        match fields.next() {
                            Some("5") => format!("{n};5;{}", fields.next().unwrap_or("0")),
                            Some("2") => {
                                let rgb: Vec<&str> = fields.by_ref().take(3).collect();
                                format!("{n};2;{}", rgb.join(";"))
                            }
                            _ => continue,
                        }
                    };
                    self.colours[(n as usize - 38) / 10] = Some(colour);
                }
                _ => {}
            }
        }
    }

    /// One SGR sequence that sets them all again; nothing when none is on.
    fn sgr(&self) -> String {
        let mut params: Vec<String> = (1..10).filter(|&n| self.on[n]).map(|n| n.to_string()).collect();
        params.extend(self.colours.iter().flatten().cloned());
        if params.is_empty() { String::new() } else { format!("\x1b[{}m", params.join(";")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` through a Wrap of `width` in every split into two pieces:
    /// each must draw the same.
    fn wrap(text: &str, width: usize, hang: &str) -> String {
        let whole = wrapped(text, Some(width), hang);
        for split in (1..text.len()).filter(|&i| text.is_char_boundary(i)) {
            if text[..split].rfind('\u{1b}').is_some_and(|e| !text[e..split].contains('m')) {
                continue; // inside a sequence: the filter never cuts there
            }
            let mut w = Wrap::new(Some(width));
            w.hang(hang);
            let mut out = String::new();
            w.push(&text[..split], &mut out);
            w.push(&text[split..], &mut out);
            w.finish(&mut out);
            assert_eq!(out, whole, "split at {split} of {text:?}");
        }
        whole
    }

    #[test]
    fn rows_break_between_words() {
        assert_eq!(wrap("the quick brown fox jumps", 10, ""), "the quick\nbrown fox\njumps");
        assert_eq!(wrap("one two\nthree four five", 9, ""), "one two\nthree\nfour five");
        assert_eq!(wrap("• a list item that wraps", 12, "  "), "• a list\n  item that\n  wraps");
        assert_eq!(wrap("/retry asks again", 10, ""), "/retry\nasks again");
        assert_eq!(wrap("6,153 characters", 8, ""), "6,153\ncharacters");
    }

    #[test]
    fn leading_blanks_stay_trailing_ones_go_at_a_break() {
        assert_eq!(wrap("    indented text here", 12, ""), "    indented\ntext here");
        assert_eq!(wrap("a    b", 3, ""), "a\nb");
    }

    #[test]
    fn wide_characters_take_two_columns() {
        assert_eq!(wrap("漢字 漢字 漢字", 10, ""), "漢字 漢字\n漢字");
        assert_eq!(wrap("🙂🙂 ok 🙂🙂", 7, ""), "🙂🙂 ok\n🙂🙂");
    }

    #[test]
    fn a_word_longer_than_a_row_is_left_whole() {
        assert_eq!(
            wrap("see https://example.org/a/long/path ok", 12, ""),
            "see\nhttps://example.org/a/long/path ok"
        );
        assert_eq!(rows("abcdefghij kl", 4), ["abcd", "efgh", "ij", "kl"]);
    }

    #[test]
    fn attributes_are_ended_before_a_break_and_taken_up_after() {
        assert_eq!(
            wrap("a \x1b[4mlong link\x1b[24m b", 8, "> "),
            "a \x1b[4mlong\x1b[0m\n> \x1b[4mlink\x1b[24m b"
        );
        assert_eq!(rows("\x1b[1mbold words\x1b[22m", 5), ["\x1b[1mbold\x1b[0m", "\x1b[1mwords\x1b[22m"]);
        let mut attrs = Attrs::default();
        attrs.apply("\x1b[1;38;5;200;4m");
        attrs.apply("\x1b[22m");
        assert_eq!(attrs.sgr(), "\x1b[4;38;5;200m");
        attrs.apply("\x1b[0m");
        assert_eq!(attrs.sgr(), "");
    }

    #[test]
    fn without_a_width_nothing_breaks() {
        let text = "a b c d e f g h i j k l m n o p q r s t u v w x y z  \n";
        assert_eq!(wrapped(text, None, "  "), text);
    }

    #[test]
    fn rows_are_counted() {
        let mut w = Wrap::new(Some(10));
        let mut out = String::new();
        w.push("one two three four five\nx\n", &mut out);
        assert_eq!(w.last_rows(), 1);
        w.push("one two three four five\n", &mut out);
        assert_eq!(w.last_rows(), 3);
        w.push(&format!("{}\n", "y".repeat(25)), &mut out);
        assert_eq!(w.last_rows(), 3);
    }
}
