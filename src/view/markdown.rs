//! A reply's Markdown drawn on a terminal as it streams, a line at a time:
//! headings, emphasis, inline code, fenced code blocks (set apart, never
//! reflowed, their language named), lists (drawn at most MAX_DEPTH deep),
//! quotes, links as text and URL. It is given the reply as characters
//! (`text::TerminalFilter::for_renderer`) and draws every character through
//! the gate (`text::is_harmful`): a control sequence is shown whole, never
//! read as Markdown nor obeyed, and no span holds one. Its time is linear
//! in the reply's length, whatever the reply: no span is longer than
//! HOLD_MAX, and each search ahead in a line goes on from where the last
//! one of its kind stopped. What is saved is the reply as the agent sent it.

mod inline;

use crate::text::{is_harmful, push_shown, sgr_len};
use inline::inline_into;

/// A rendered line-start or span waits for at most this much more of its
/// line before it is shown as it came (a `*` that never closes); no span
/// is longer.
const HOLD_MAX: usize = 400;

/// Lists nested deeper than this are drawn this deep, marked `»`.
const MAX_DEPTH: usize = 8;

/// Columns of indentation a list at MAX_DEPTH is drawn with.
const MAX_INDENT: usize = 2 * (MAX_DEPTH - 1);

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
/// (`#`, a fence, a list marker) or an emphasis, code span or link is open.
pub(crate) struct Renderer {
    colors: bool,
    /// Columns a rule or a fence line takes.
    rule_width: usize,
    /// The fence of the code block we are in: its character and length.
    fence: Option<(char, usize)>,
    /// The current line so far, and how much of it is shown.
    line: String,
    shown: usize,
    /// How the current line was read, once its start said so.
    block: Option<Block>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Block {
    Blank,
    Paragraph,
    Heading(usize),
    /// A list item, and how many lists its line opens (`- - x` is two).
    Bullet(usize),
    Ordered,
    Quote,
    Rule,
    FenceOpen,
    FenceClose,
    Code,
}

impl Renderer {
    /// `colors`: whether attributes may be drawn (not under NO_COLOR);
    /// without, structure is still shown (bullets, quote bars, fences,
    /// links), emphasis is plain text.
    pub(crate) fn new(colors: bool, width: usize) -> Renderer {
        Renderer {
            colors,
            rule_width: width.clamp(8, 60),
            fence: None,
            line: String::new(),
            shown: 0,
            block: None,
        }
    }

    /// What to show now of `piece`.
    pub(crate) fn push(&mut self, piece: &str) -> String {
        let mut out = String::new();
        let mut rest = piece;
        while let Some(end) = rest.find('\n') {
            self.line.push_str(&rest[..end]);
            self.advance(true, &mut out);
            rest = &rest[end + 1..];
        }
        self.line.push_str(rest);
        self.advance(false, &mut out);
        out
    }

    /// What is held back, once no more is coming. A last line without a
    /// newline is shown without one: the caller ends the line on screen.
    pub(crate) fn finish(&mut self) -> String {
        let mut out = String::new();
        if !self.line.is_empty() {
            self.advance(true, &mut out);
            out.pop(); // the newline advance added
        }
        self.fence = None;
        out
    }

    /// Show what can be shown of the current line; `complete`: its end
    /// has come, and it ends here (a newline is added).
    fn advance(&mut self, complete: bool, out: &mut String) {
        let held_too_long = self.line.len() - self.shown > HOLD_MAX;
        let complete_enough = complete || held_too_long;
        if self.block.is_none() {
            let Some((block, body)) = decide(&self.line, complete_enough, self.fence) else { return };
            self.block = Some(block);
            self.shown = body;
            self.start_block(block, body, out);
        }
        let block = self.block.expect("decided above");
        let body = &self.line[self.shown..];
        match block {
            Block::Code => {
                show_text(out, body);
                self.shown = self.line.len();
            }
            Block::Blank | Block::Rule | Block::FenceOpen | Block::FenceClose => self.shown = self.line.len(),
            // Inline, each span waits at most HOLD_MAX itself (see `Inline::end`).
            _ => {
                let before = self.line[..self.shown].chars().next_back();
                self.shown += inline_into(out, body, before, complete, self.colors);
            }
        }
        if complete {
            if self.colors {
                match block {
                    Block::Heading(_) => out.push_str(HEADING.1),
                    Block::Code => out.push_str(CODE.1),
                    _ => {}
                }
            }
            out.push('\n');
            self.line.clear();
            self.shown = 0;
            self.block = None;
        }
    }

    /// What a line shows before its text: a bullet, a quote's bar, a fence.
    fn start_block(&mut self, block: Block, body: usize, out: &mut String) {
        let line = &self.line;
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        match block {
            Block::Heading(level) if self.colors => {
                out.push_str(if level == 1 { HEADING_TOP.0 } else { HEADING.0 })
            }
            // Without attributes the marks are the only sign of a heading.
            Block::Heading(_) => out.push_str(&line[..body]),
            Block::Bullet(lists) => {
                out.push_str(&nested(indent, lists - 1));
                out.push_str("• ");
            }
            Block::Ordered => {
                out.push_str(&nested(indent, 0));
                out.push_str(&line[indent.len()..body]);
            }
            Block::Quote => {
                out.push_str(&nested(indent, 0));
                out.push_str(&self.styled(DIM, "│ "));
            }
            Block::Rule => out.push_str(&self.styled(DIM, &"─".repeat(self.rule_width))),
            Block::FenceOpen => {
                let trimmed = line.trim_start();
                let marker = trimmed.chars().next().unwrap_or('`');
                let length = trimmed.chars().take_while(|&c| c == marker).count();
                let mut language = String::new();
                show_text(&mut language, trimmed[length..].split_whitespace().next().unwrap_or(""));
                self.fence = Some((marker, length));
                let head = if language.is_empty() {
                    "─".repeat(self.rule_width)
                } else {
                    let used = 4 + crate::text::columns_of(&language);
                    format!("── {language} {}", "─".repeat(self.rule_width.saturating_sub(used).max(2)))
                };
                out.push_str(&self.styled(DIM, &head));
            }
            Block::FenceClose => {
                self.fence = None;
                out.push_str(&self.styled(DIM, &"─".repeat(self.rule_width)));
            }
            Block::Code if self.colors => out.push_str(CODE.0),
            Block::Paragraph => out.push_str(&line[..body]),
            Block::Blank | Block::Code => {}
        }
    }

    fn styled(&self, style: (&str, &str), text: &str) -> String {
        if self.colors { format!("{}{text}{}", style.0, style.1) } else { text.to_string() }
    }
}

/// The indentation of a list item or quote: `indent` as it came and two
/// columns for each of `more` lists its line opens, but never more than
/// MAX_INDENT columns: what is deeper is drawn there, after `» `.
fn nested(indent: &str, more: usize) -> String {
    let columns = indent.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum::<usize>() + 2 * more;
    if columns > MAX_INDENT {
        format!("{}» ", " ".repeat(MAX_INDENT))
    } else if more == 0 {
        indent.to_string()
    } else {
        " ".repeat(columns)
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

/// The list markers a line starts with (`- `, `* `, `+ `), each the start
/// of a list nested in the one before (`- - x`), counted up to one more
/// than MAX_DEPTH, and where what follows them begins. Past that many,
/// markers are text: shown, not dropped.
fn list_markers(content: &str) -> (usize, usize) {
    let b = content.as_bytes();
    let (mut count, mut at) = (0, 0);
    while count <= MAX_DEPTH && matches!(b.get(at), Some(b'-' | b'*' | b'+')) {
        let blanks = b[at + 1..].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
        if blanks == 0 {
            break;
        }
        count += 1;
        at += 1 + blanks;
    }
    (count, at)
}

/// What a line is, from its start: None while that start could still be
/// read more than one way (`#` before its space, a `--` that may become a
/// rule). Also where its text begins (after a bullet, a `#`, a `>`).
fn decide(line: &str, complete: bool, fence: Option<(char, usize)>) -> Option<(Block, usize)> {
    let content = line.trim_start_matches(' ');
    let indent = line.len() - content.len();
    if let Some(fence) = fence {
        return in_fence(line, indent, complete, fence);
    }
    if content.is_empty() {
        return if complete { Some((Block::Blank, line.len())) } else { None };
    }
    let first = content.chars().next()?;
    let run = content.chars().take_while(|&c| c == first).count();
    let after = &content[run * first.len_utf8()..];
    let undecided = after.is_empty() && !complete;
    match first {
        '#' if run <= 6 => {
            // Where its text begins is known once that text has begun.
            if after.trim_start().is_empty() && !complete {
                return None;
            }
            if after.is_empty() || after.starts_with([' ', '\t']) {
                let body = line.len() - after.trim_start().len();
                return Some((Block::Heading(run), body));
            }
        }
        '`' | '~' if run >= 3 => {
            if !complete {
                return None; // the language comes with the rest of the line
            }
            if first == '~' || !after.contains('`') {
                return Some((Block::FenceOpen, line.len()));
            }
        }
        '`' | '~' if undecided => return None,
        '>' if undecided && run == 1 => return None,
        '>' => {
            let body = line.len() - content[1..].strip_prefix(' ').unwrap_or(&content[1..]).len();
            return Some((Block::Quote, body));
        }
        '-' | '*' | '_' | '+' => {
            if let Some(decided) = rule_or_list(line, indent, first, run, complete) {
                return decided;
            }
        }
        '0'..='9' => {
            let digits = content.chars().take_while(char::is_ascii_digit).count();
            let after = &content[digits..];
            if digits <= 9 {
                if after.is_empty() && !complete {
                    return None;
                }
                if let Some(rest) = after.strip_prefix(['.', ')']) {
                    if rest.trim_start().is_empty() && !complete {
                        return None;
                    }
                    if rest.starts_with([' ', '\t']) {
                        return Some((Block::Ordered, line.len() - rest.trim_start().len()));
                    }
                }
            }
        }
        _ => {}
    }
    Some((Block::Paragraph, indent))
}

/// A line starting with `-`, `*`, `_` or `+` at `indent`: a rule, a list
/// item, or (Some(None)) not known yet; None: neither, a paragraph.
fn rule_or_list(
    line: &str,
    indent: usize,
    first: char,
    run: usize,
    complete: bool,
) -> Option<Option<(Block, usize)>> {
    let content = &line[indent..];
    // Only marks so far: a rule or a list, known at the line's end.
    let only_marks = content.chars().all(|c| c == first || c == ' ' || c == '\t');
    let (lists, text_at) = list_markers(content);
    // What follows may still be another list's marker.
    if !complete && (only_marks || matches!(&content[text_at..], "" | "-" | "*" | "+")) {
        return Some(None);
    }
    // A rule is only its marks (and spaces); so many list markers that the
    // lists would be drawn deeper than MAX_DEPTH are lists.
    let marks = content.chars().filter(|&c| c == first).count();
    if only_marks && first != '+' && marks >= 3 && lists <= MAX_DEPTH {
        return Some(Some((Block::Rule, line.len())));
    }
    (run == 1 && first != '_' && lists > 0).then_some(Some((Block::Bullet(lists), indent + text_at)))
}

/// What a line inside a fenced code block is: code, or the fence's close.
fn in_fence(line: &str, indent: usize, complete: bool, fence: (char, usize)) -> Option<(Block, usize)> {
    let (marker, length) = fence;
    let content = &line[indent..];
    if indent > 3 {
        return Some((Block::Code, 0));
    }
    let run = content.chars().take_while(|&c| c == marker).count();
    let after = &content[run * marker.len_utf8()..];
    if after.trim().is_empty() && !complete {
        return None; // spaces and fence marks so far: it may close
    }
    if run >= length && after.trim().is_empty() {
        return Some((Block::FenceClose, line.len()));
    }
    Some((Block::Code, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole text rendered at once, and in every split into two pieces
    /// the filter could make (never inside a character or an SGR
    /// sequence): each must show the same.
    fn render(text: &str, colors: bool) -> String {
        let mut r = Renderer::new(colors, 20);
        let whole = r.push(text) + &r.finish();
        let in_sgr = |i: usize| {
            text[..i].rfind('\x1b').is_some_and(|s| sgr_len(&text[s..]).is_some_and(|len| s + len > i))
        };
        for split in (1..text.len()).filter(|&i| text.is_char_boundary(i) && !in_sgr(i)) {
            let mut r = Renderer::new(colors, 20);
            let shown = r.push(&text[..split]) + &r.push(&text[split..]) + &r.finish();
            assert_eq!(shown, whole, "split at {split} of {text:?}");
        }
        whole
    }

    fn plain(text: &str) -> String {
        render(text, false)
    }

    /// A long text rendered at once, and in pieces of 8 KiB as an agent's
    /// output is read and handed on by the filter: the same either way.
    fn plain_long(text: &str) -> String {
        let mut r = Renderer::new(false, 20);
        let whole = r.push(text) + &r.finish();
        let mut filter = crate::text::TerminalFilter::for_renderer(false);
        let mut r = Renderer::new(false, 20);
        let mut pieces = String::new();
        for piece in text.as_bytes().chunks(8192) {
            pieces += &r.push(&filter.push(piece));
        }
        pieces += &r.push(&filter.finish());
        assert_eq!(pieces + &r.finish(), whole);
        whole
    }

    #[test]
    fn headings_emphasis_and_code_spans() {
        assert_eq!(render("# Title\n", true), "\x1b[1;4mTitle\x1b[0m\n");
        assert_eq!(render("## Sub\n", true), "\x1b[1mSub\x1b[0m\n");
        assert_eq!(plain("## Sub\n"), "## Sub\n");
        assert_eq!(
            render("a **bold** and *it* `x*y`\n", true),
            "a \x1b[1mbold\x1b[22m and \x1b[3mit\x1b[23m \x1b[36mx*y\x1b[39m\n"
        );
        assert_eq!(plain("a **bold** and _it_ `code`\n"), "a bold and it `code`\n");
        assert_eq!(plain("#hashtag\n"), "#hashtag\n");
    }

    #[test]
    fn marks_that_open_nothing_stay() {
        assert_eq!(plain("2 * 3 * 4\n"), "2 * 3 * 4\n");
        assert_eq!(plain("snake_case_name and a*b\n"), "snake_case_name and a*b\n");
        assert_eq!(plain("an *unclosed mark\n"), "an *unclosed mark\n");
        assert_eq!(plain("`open code\n"), "`open code\n");
        assert_eq!(plain("\\*literal\\*\n"), "*literal*\n");
        assert_eq!(plain("[not a link] and [x]\n"), "[not a link] and [x]\n");
    }

    #[test]
    fn lists_quotes_rules_and_links() {
        assert_eq!(plain("- one\n  * two\n3. three\n"), "• one\n  • two\n3. three\n");
        assert_eq!(plain("> quoted *words*\n"), "│ quoted words\n");
        assert_eq!(plain("---\n"), format!("{}\n", "─".repeat(20)));
        assert_eq!(plain("**bold line**\n"), "bold line\n");
        assert_eq!(plain("see [the docs](https://x.org/a) now\n"), "see the docs (https://x.org/a) now\n");
        assert_eq!(plain("[https://x.org](https://x.org)\n"), "https://x.org\n");
        assert_eq!(render("[docs](u)\n", true), "\x1b[4mdocs\x1b[24m \x1b[2m(u)\x1b[22m\n");
    }

    #[test]
    fn code_blocks_are_set_apart_and_kept_as_they_are() {
        let text = "Try:\n```rust\nfn main() {\n    let a = *b; // **not bold**\n}\n```\nDone.\n";
        let rule = "─".repeat(20);
        assert_eq!(
            plain(text),
            format!(
                "Try:\n── rust {}\nfn main() {{\n    let a = *b; // **not bold**\n}}\n{rule}\nDone.\n",
                "─".repeat(12)
            )
        );
        let shown = render("```\n# not a heading\n```\n", true);
        assert!(shown.contains("\n\x1b[36m# not a heading\x1b[39m\n"), "{shown:?}");
        // An unclosed block ends with the reply.
        assert_eq!(plain("```sh\nls"), format!("── sh {}\nls", "─".repeat(14)));
        assert_eq!(plain("~~~\n```\n~~~\n"), format!("{rule}\n```\n{rule}\n"));
    }

    #[test]
    fn a_line_streams_until_a_mark_opens() {
        let mut r = Renderer::new(false, 20);
        assert_eq!(r.push("The answer"), "The answer");
        assert_eq!(r.push(" is **forty"), " is ");
        assert_eq!(r.push("-two** and"), "forty-two and");
        assert_eq!(r.push(" more"), " more");
        // Only marks so far: a rule, or a list nested some levels deep.
        assert_eq!(r.push("\n- "), "\n");
        assert_eq!(r.push("x\n#"), "• x\n");
        assert_eq!(r.push("!"), "#!");
        assert_eq!(r.finish(), "");
    }

    #[test]
    fn the_last_line_without_a_newline_is_shown_without_one() {
        assert_eq!(plain("line one\nno newline at end"), "line one\nno newline at end");
        assert_eq!(plain("# head"), "# head");
        assert_eq!(render("# head", true), "\x1b[1;4mhead\x1b[0m");
    }

    #[test]
    fn escapes_the_filter_let_through_are_not_markdown() {
        assert_eq!(render("\x1b[31m[red]\x1b[0m *x*\n", false), "\x1b[31m[red]\x1b[0m x\n");
    }

    #[test]
    fn control_sequences_are_shown_whole_and_never_read_as_markdown() {
        // ESC \ is one sequence: its backslash escapes nothing after it.
        assert_eq!(plain("a \x1b\\*b* \\*c\n"), "a ^[\\b *c\n");
        assert_eq!(plain("see <http://a \x1b[2J> ok\n"), "see <http://a ^[[2J> ok\n");
        assert_eq!(plain("<http://a \x1b[2J>](u)\n"), "<http://a ^[[2J>](u)\n");
        assert_eq!(plain("x \x1b]0;t*i*tle\x07 y\n"), "x ^[]0;t*i*tle^G y\n");
        assert_eq!(plain("\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\\n"), "^[]8;;http://e^[\\link^[]8;;^[\\\n");
        assert_eq!(plain("c1 \u{9b}2J and \u{202e}rev\n"), "c1 \\u{9b}2J and \\u{202e}rev\n");
        assert_eq!(plain("```\x1b]0;x\x07\nls \x1b[2J\n```\n").lines().nth(1), Some("ls ^[[2J"));
        // No span holds a control character: shown, not half obeyed.
        assert_eq!(
            plain("[a](http://x\x1b[2Jy) [b\x07](u) *i\x1b[2Jt*\n"),
            "[a](http://x^[[2Jy) [b^G](u) *i^[[2Jt*\n"
        );
    }

    #[test]
    fn deep_lists_are_drawn_at_most_eight_deep_and_marked() {
        assert_eq!(plain("- - x\n"), "  • x\n");
        assert_eq!(plain("- - -\n"), format!("{}\n", "─".repeat(20)));
        let deep = "- ".repeat(5000);
        let shown = plain_long(&format!("{deep}\n"));
        assert_eq!(shown, format!("{}» • {}\n", " ".repeat(MAX_INDENT), "- ".repeat(5000 - 9)));
        let indented = format!("{}- deep\n", " ".repeat(40));
        assert_eq!(plain(&indented), format!("{}» • deep\n", " ".repeat(MAX_INDENT)));
        assert_eq!(
            plain(&format!("{}1. one\n", " ".repeat(40))),
            format!("{}» 1. one\n", " ".repeat(MAX_INDENT))
        );
        assert_eq!(plain("      - six\n"), "      • six\n");
    }

    #[test]
    fn spans_end_within_hold_max() {
        let far = format!("*{}*\n", "a".repeat(HOLD_MAX + 10));
        assert_eq!(plain(&far), far);
        assert_eq!(plain("_it_\n"), "it\n");
        assert_eq!(plain("\\**b* \\``c`\n"), "*b ``c`\n");
        let links = "[a](".repeat(100_000);
        assert_eq!(plain_long(&links), links);
        // Marks that a piece of 8 KiB ends in are read whole all the same.
        assert_eq!(plain_long(&"\x1b\\*a* ".repeat(20_000)), "^[\\a ".repeat(20_000));
        assert_eq!(plain_long(&"<http://a \x1b[2J> ".repeat(20_000)), "<http://a ^[[2J> ".repeat(20_000));
    }

    #[test]
    fn any_mix_of_marks_and_controls_draws_the_same_in_any_two_pieces() {
        let alphabet = [
            "*",
            "_",
            "`",
            "[",
            "]",
            "(",
            ")",
            "\\",
            "\x1b",
            "a",
            " ",
            "\n",
            "- ",
            "#",
            "> ",
            "1. ",
            "\x1b[31m",
            "\x1b]0;x\x07",
            "\u{9b}",
            "é",
            "```",
            "\t",
        ];
        let mut seed = 7u64;
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..24 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                text.push_str(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            for colors in [false, true] {
                let shown = render(&text, colors);
                let without_sgr = shown.replace("\x1b[31m", "");
                assert!(
                    !without_sgr.chars().any(|c| is_harmful(c, true) && c != '\x1b'),
                    "{text:?}: {shown:?}"
                );
            }
        }
    }

    #[test]
    fn a_long_open_mark_is_given_up_on() {
        let long = format!("*{}", "a".repeat(HOLD_MAX + 10));
        let mut r = Renderer::new(false, 20);
        let shown = r.push(&long);
        assert_eq!(shown, long);
    }
}
