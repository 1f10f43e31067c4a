//! A reply's Markdown drawn on a terminal as it streams, a line at a time:
//! headings (`#` and setext), emphasis, inline code, fenced code blocks
//! (set apart, never reflowed, their language named and, with colours,
//! highlighted: `view::highlight`), lists (drawn at most MAX_DEPTH deep),
//! quotes (nested), tables (`markdown/table.rs`), links as text and URL.
//! Text is wrapped at words to the window (`wrap`), a list item's and a
//! quote's further rows indented under their text. Emphasis is drawn with
//! attributes (bold, italic, underline), which NO_COLOR keeps; colours
//! only with colours. It is given the reply as characters
//! (`text::TerminalFilter::for_renderer`) and draws every character through
//! the gate (`text::is_harmful`): a control sequence is shown whole, never
//! read as Markdown nor obeyed, and no span holds one. Its time is linear
//! in the reply's length, whatever the reply: no span is longer than
//! HOLD_MAX, each search ahead in a line goes on from where the last one of
//! its kind stopped, and what a table or a line of code holds is bounded.
//! What is saved is the reply as the agent sent it.

mod block;
mod inline;
mod table;
#[cfg(test)]
mod tests;

use crate::text::{columns_of, is_harmful, push_shown, sgr_len};
use crate::view::highlight::{self, Highlighter};
use crate::wrap::Wrap;
use block::{Block, decide, nested};
use inline::inline_into;

/// A rendered line-start or span waits for at most this much more of its
/// line before it is shown as it came (a `*` that never closes); no span
/// is longer.
const HOLD_MAX: usize = 400;

/// Lists and quotes nested deeper than this are drawn this deep.
const MAX_DEPTH: usize = 8;

/// A line of code waits this long for its end, to be highlighted whole; a
/// longer one is drawn as it comes, without.
const CODE_HOLD: usize = 4096;

/// A paragraph's line longer than this (bytes), or than SETEXT_ROWS rows on
/// screen, is not made a heading by a setext underline after it.
const SETEXT_MAX: usize = 1024;
const SETEXT_ROWS: usize = 4;

const BOLD: (&str, &str) = ("\x1b[1m", "\x1b[22m");
const ITALIC: (&str, &str) = ("\x1b[3m", "\x1b[23m");
const BOLD_ITALIC: (&str, &str) = ("\x1b[1;3m", "\x1b[22;23m");
const CODE: (&str, &str) = ("\x1b[36m", "\x1b[39m");
const LINK: (&str, &str) = ("\x1b[4m", "\x1b[24m");
const DIM: (&str, &str) = ("\x1b[2m", "\x1b[22m");
const HEADING: (&str, &str) = ("\x1b[1m", "\x1b[0m");
const HEADING_TOP: (&str, &str) = ("\x1b[1;4m", "\x1b[0m");

/// Markdown to terminal text, fed in pieces as they arrive. Whole lines
/// are never waited for except where their start decides what they are
/// (`#`, a fence, a list marker), an emphasis, code span or link is open,
/// a table's rows are held until it ends, or a line of code is to be
/// highlighted; and the word being read is held until it is known where
/// it fits.
pub(crate) struct Renderer {
    /// Whether colours may be drawn (not under NO_COLOR); attributes
    /// (bold, italic, underline) are drawn either way.
    colors: bool,
    width: Option<usize>,
    /// A new width, for the next piece.
    resized: Option<Option<usize>>,
    /// Columns a rule or a fence line takes.
    rule_width: usize,
    /// The fence of the code block we are in: its character and length;
    /// and its highlighter, with colours, for a language it knows.
    fence: Option<(char, usize)>,
    code: Option<Highlighter>,
    /// This line of code is too long to wait for: drawn as it comes.
    code_streams: bool,
    /// The current line so far, and how much of it is shown.
    line: String,
    shown: usize,
    /// How the current line was read, once its start said so.
    block: Option<Block>,
    /// Where the current line's drawing began in this piece's output.
    line_at: Option<usize>,
    wrap: Wrap,
    /// A table's lines (or a line that may start one), held.
    table: Option<table::MaybeTable>,
    /// The line before, when it was a paragraph's: a setext underline makes it a heading.
    last_paragraph: Option<Drawn>,
    /// A line already on the terminal may be drawn again, the cursor
    /// moved back over it (a reply drawn live).
    redraw: bool,
}

/// A paragraph's line as it came, where its drawing began in this piece's
/// output (None: in an earlier one), and the rows it took.
struct Drawn {
    text: String,
    at: Option<usize>,
    rows: usize,
}

impl Renderer {
    /// `colors`: whether colours may be drawn (not under NO_COLOR);
    /// without, structure is still shown (bullets, quote bars, fences,
    /// links) and emphasis with attributes. `width`: the window's columns,
    /// which text is wrapped to (None: not known, not wrapped).
    pub(crate) fn new(colors: bool, width: Option<usize>) -> Renderer {
        Renderer {
            colors,
            width,
            resized: None,
            rule_width: width.unwrap_or(80).clamp(8, 60),
            fence: None,
            code: None,
            code_streams: false,
            line: String::new(),
            shown: 0,
            block: None,
            line_at: None,
            wrap: Wrap::new(width),
            table: None,
            last_paragraph: None,
            redraw: false,
        }
    }

    /// For a reply drawn as it streams onto a terminal: a paragraph's line
    /// already shown is drawn again as a heading when a setext underline
    /// follows it, the cursor moved back up over it.
    pub(crate) fn redrawing(mut self) -> Renderer {
        self.redraw = true;
        self
    }

    /// The window is now `width` columns: what is still to be drawn fits it.
    pub(crate) fn resize(&mut self, width: Option<usize>) {
        if width != self.width {
            self.resized = Some(width);
        }
    }

    /// What to show now of `piece`.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        let mut out = String::new();
        self.new_output();
        self.push_into(piece, &mut out);
        out
    }

    /// What is held back, once no more is coming. A last line without a
    /// newline is shown without one: the caller ends the line on screen.
    pub(crate) fn finish(&mut self) -> String {
        let mut out = String::new();
        self.new_output();
        self.finish_into(&mut out);
        out
    }

    /// `text`, whole (a stored message), drawn.
    pub(crate) fn draw(mut self, text: &str) -> String {
        let mut out = String::new();
        self.push_into(text, &mut out);
        self.finish_into(&mut out);
        out
    }

    /// What earlier output held is on the terminal already.
    fn new_output(&mut self) {
        self.line_at = None;
        if let Some(last) = &mut self.last_paragraph {
            last.at = None;
        }
    }

    fn push_into(&mut self, piece: &str, out: &mut String) {
        if let Some(width) = self.resized.take() {
            self.width = width;
            self.rule_width = width.unwrap_or(80).clamp(8, 60);
            self.wrap.set_width(width, out);
        }
        let mut rest = piece;
        while let Some(end) = rest.find('\n') {
            self.line.push_str(&rest[..end]);
            self.advance(true, out);
            rest = &rest[end + 1..];
        }
        self.line.push_str(rest);
        self.advance(false, out);
    }

    fn finish_into(&mut self, out: &mut String) {
        if !self.line.is_empty() {
            let before = out.len();
            self.advance(true, out);
            if out.len() > before && out.ends_with('\n') {
                out.pop(); // the newline advance added
            }
        }
        self.flush_table(out);
        self.wrap.finish(out);
        self.fence = None;
        self.code = None;
    }

    /// Show what can be shown of the current line; `complete`: its end
    /// has come, and it ends here (a newline is added).
    fn advance(&mut self, complete: bool, out: &mut String) {
        if self.block.is_none() {
            let complete_enough = complete || self.line.len() > HOLD_MAX;
            let after_paragraph = self.last_paragraph.is_some();
            let Some((block, body)) = decide(&self.line, complete_enough, self.fence, after_paragraph) else {
                return;
            };
            self.begin(block, body, out);
        }
        self.draw_body(complete, out);
    }

    /// The current line is now known to be a `block`, its text from `body`:
    /// what was held before it is drawn, then its start.
    fn begin(&mut self, block: Block, body: usize, out: &mut String) {
        if block != Block::TableRow {
            self.flush_table(out);
        }
        self.block = Some(block);
        self.shown = body;
        self.line_at = Some(out.len());
        if matches!(block, Block::TableRow | Block::Setext(_)) {
            return;
        }
        let (head, hang) = self.start_block(block, body);
        self.wrap.set_breaking(block != Block::Code, out);
        self.wrap.hang("");
        self.wrap.push(&head, out);
        self.wrap.hang(&hang);
    }

    /// Draw what has come of the current line's text.
    fn draw_body(&mut self, complete: bool, out: &mut String) {
        let block = self.block.expect("decided before");
        let mut drawn = String::new();
        match block {
            Block::Code => self.code_line(complete, &mut drawn),
            Block::Blank | Block::Rule | Block::FenceOpen | Block::FenceClose => self.shown = self.line.len(),
            Block::TableRow if self.line.len() > table::LINE_MAX => {
                // Too long for a row: a paragraph's line after the table.
                let indent = self.shown;
                self.flush_table(out);
                self.begin(Block::Paragraph, indent, out);
                return self.draw_body(complete, out);
            }
            Block::TableRow if !complete => return, // drawn with its table
            Block::TableRow => self.table_row(out),
            Block::Setext(level) => self.setext(level, out),
            // Inline, each span waits at most HOLD_MAX itself (see `Inline::end`).
            _ => {
                let body = &self.line[self.shown..];
                let before = self.line[..self.shown].chars().next_back();
                self.shown += inline_into(&mut drawn, body, before, complete, self.colors);
            }
        }
        self.wrap.push(&drawn, out);
        if complete {
            self.end_line(block, out);
        }
    }

    /// The current line has ended: its styles end and it ends on screen.
    fn end_line(&mut self, block: Block, out: &mut String) {
        if !matches!(block, Block::TableRow | Block::Setext(_)) {
            let close = match block {
                Block::Heading(_) => HEADING.1,
                Block::Code if self.colors && self.code.is_none() => CODE.1,
                _ => "",
            };
            self.wrap.push(close, out);
            self.wrap.push("\n", out);
        }
        self.last_paragraph = (block == Block::Paragraph && self.line.len() <= SETEXT_MAX).then(|| Drawn {
            text: std::mem::take(&mut self.line),
            at: self.line_at,
            rows: self.wrap.last_rows(),
        });
        self.line.clear();
        self.shown = 0;
        self.block = None;
        self.line_at = None;
        self.code_streams = false;
    }

    /// A line of code: highlighted once whole (with colours, in a language
    /// the highlighter knows, when not too long), else shown as it comes.
    fn code_line(&mut self, complete: bool, drawn: &mut String) {
        match &mut self.code {
            Some(highlighter) if !self.code_streams => {
                if self.line.len() > CODE_HOLD {
                    self.code_streams = true;
                } else if complete {
                    let mut at = 0;
                    for (start, end, token) in highlighter.spans(&self.line) {
                        show_text(drawn, &self.line[at..start]);
                        let (open, close) = token.colour();
                        drawn.push_str(open);
                        show_text(drawn, &self.line[start..end]);
                        drawn.push_str(close);
                        at = end;
                    }
                    show_text(drawn, &self.line[at..]);
                    self.shown = self.line.len();
                    return;
                } else {
                    return;
                }
            }
            _ => {}
        }
        show_text(drawn, &self.line[self.shown..]);
        self.shown = self.line.len();
    }

    /// What a line shows before its text (a bullet, a quote's bars, a
    /// fence), and what its further rows start with.
    fn start_block(&mut self, block: Block, body: usize) -> (String, String) {
        let line = &self.line;
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        let under = |head: &str| " ".repeat(columns_of(head));
        match block {
            Block::Heading(level) => {
                ((if level == 1 { HEADING_TOP.0 } else { HEADING.0 }).to_string(), String::new())
            }
            Block::Bullet(lists) => {
                let head = format!("{}• ", nested(indent, lists - 1));
                let hang = under(&head);
                (head, hang)
            }
            Block::Ordered => {
                let head = format!("{}{}", nested(indent, 0), &line[indent.len()..body]);
                let hang = under(&head);
                (head, hang)
            }
            Block::Quote(depth, item) => {
                let pad = nested(indent, 0);
                let bars = self.styled(DIM, &"│ ".repeat(depth));
                let (head, more) = if item { ("• ", "  ") } else { ("", "") };
                (format!("{pad}{bars}{head}"), format!("{}{bars}{more}", under(&pad)))
            }
            Block::Rule => (self.styled(DIM, &"─".repeat(self.rule_width)), String::new()),
            Block::FenceOpen => (self.open_fence(), String::new()),
            Block::FenceClose => {
                self.fence = None;
                self.code = None;
                (self.styled(DIM, &"─".repeat(self.rule_width)), String::new())
            }
            Block::Code if self.colors && self.code.is_none() => (CODE.0.to_string(), String::new()),
            Block::Paragraph => (line[..body].to_string(), line[..body].to_string()),
            Block::Blank | Block::Code | Block::TableRow | Block::Setext(_) => (String::new(), String::new()),
        }
    }

    /// A code block's opening fence: its rule, with its language named.
    fn open_fence(&mut self) -> String {
        let trimmed = self.line.trim_start();
        let marker = trimmed.chars().next().unwrap_or('`');
        let length = trimmed.chars().take_while(|&c| c == marker).count();
        let word = trimmed[length..].split_whitespace().next().unwrap_or("");
        let mut language = String::new();
        show_text(&mut language, word);
        self.fence = Some((marker, length));
        self.code = if self.colors { highlight::for_language(word) } else { None };
        let head = if language.is_empty() {
            "─".repeat(self.rule_width)
        } else {
            let used = 4 + columns_of(&language);
            format!("── {language} {}", "─".repeat(self.rule_width.saturating_sub(used).max(2)))
        };
        self.styled(DIM, &head)
    }

    /// A table's row (the current line, whole): held with its table.
    fn table_row(&mut self, out: &mut String) {
        let line = std::mem::take(&mut self.line);
        match self.table.as_mut() {
            None => self.table = Some(table::MaybeTable::new(line)),
            Some(held) if held.aligns.is_none() => {
                if let Err(line) = held.second(line) {
                    // Not a table: what was held is text, and this may start one.
                    self.flush_table(out);
                    self.table = Some(table::MaybeTable::new(line));
                }
            }
            Some(held) => {
                held.push(line);
                if held.is_full() {
                    self.flush_table(out);
                }
            }
        }
    }

    /// Draw the table held (or its lines as text, when they are none).
    fn flush_table(&mut self, out: &mut String) {
        let Some(held) = self.table.take() else { return };
        match held.draw(self.width.unwrap_or(usize::MAX), self.colors) {
            Some(drawn) => {
                self.wrap.set_breaking(false, out);
                self.wrap.hang("");
                self.wrap.push(&drawn, out);
                self.wrap.set_breaking(true, out);
            }
            None => {
                for line in held.lines {
                    let indent = line.len() - line.trim_start_matches(' ').len();
                    self.draw_line(Block::Paragraph, line, indent, out);
                }
            }
        }
    }

    /// A setext underline: the paragraph's line before it was a heading.
    /// Drawn again as one: taken back from this piece's output, or, on a
    /// terminal, the cursor moved back over it; else the underline is
    /// drawn as a rule under it.
    fn setext(&mut self, level: usize, out: &mut String) {
        let Some(last) = self.last_paragraph.take() else { return };
        match last.at {
            Some(at) => out.truncate(at),
            None if self.redraw && self.width.is_some() && last.rows <= SETEXT_ROWS => {
                out.push_str(&format!("\x1b[{}A\r\x1b[J", last.rows));
            }
            None => {
                let rule = self.styled(DIM, &(if level == 1 { "═" } else { "─" }).repeat(self.rule_width));
                self.wrap.push(&rule, out);
                self.wrap.push("\n", out);
                return;
            }
        }
        let body = last.text.len() - last.text.trim_start().len();
        self.draw_line(Block::Heading(level), last.text, body, out);
    }

    /// Draw `text`, a whole line, as a `block` whose text starts at `body`,
    /// the line being read left as it was.
    fn draw_line(&mut self, block: Block, text: String, body: usize, out: &mut String) {
        let line = std::mem::replace(&mut self.line, text);
        let (shown, current, line_at) = (self.shown, self.block, self.line_at);
        self.begin(block, body, out);
        self.draw_body(true, out);
        self.line = line;
        (self.shown, self.block, self.line_at) = (shown, current, line_at);
    }

    fn styled(&self, style: (&str, &str), text: &str) -> String {
        if self.colors { format!("{}{text}{}", style.0, style.1) } else { text.to_string() }
    }
}

/// Text drawn as it is, each character through the gate; an SGR
/// sequence (which the filter let through) passes.
fn show_text(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(len) = sgr_len(rest) {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        show(out, c);
        rest = &rest[c.len_utf8()..];
    }
}

/// One character of the reply as drawn: through the gate.
fn show(out: &mut String, c: char) {
    if is_harmful(c, true) { push_shown(out, c) } else { out.push(c) }
}
