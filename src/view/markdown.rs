//! A reply's Markdown drawn on a terminal as it streams, a line at a time:
//! headings, emphasis, inline code, fenced code blocks (set apart, never
//! reflowed, their language named), lists, quotes, links as text and URL.
//! It sees text already made safe for a terminal (`text::TerminalFilter`)
//! and only ever adds to it; what is saved is the reply as the agent sent it.

/// A rendered line-start or span waits for at most this much more of its
/// line before it is shown as it came (a `*` that never closes).
const HOLD_MAX: usize = 400;

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
    Bullet,
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
                out.push_str(body);
                self.shown = self.line.len();
            }
            Block::Blank | Block::Rule | Block::FenceOpen | Block::FenceClose => self.shown = self.line.len(),
            _ => {
                let (text, used) = inline(body, complete_enough, self.colors);
                out.push_str(&text);
                self.shown += used;
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
            Block::Bullet => {
                out.push_str(indent);
                out.push_str("• ");
            }
            Block::Ordered => out.push_str(&line[..body]),
            Block::Quote => {
                out.push_str(indent);
                out.push_str(&self.styled(DIM, "│ "));
            }
            Block::Rule => out.push_str(&self.styled(DIM, &"─".repeat(self.rule_width))),
            Block::FenceOpen => {
                let trimmed = line.trim_start();
                let marker = trimmed.chars().next().unwrap_or('`');
                let length = trimmed.chars().take_while(|&c| c == marker).count();
                let language = trimmed[length..].split_whitespace().next().unwrap_or("");
                self.fence = Some((marker, length));
                let head = if language.is_empty() {
                    "─".repeat(self.rule_width)
                } else {
                    let used = 4 + crate::text::columns_of(language);
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
            if undecided {
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
            // A rule is only its marks (and spaces): known at the line's end.
            let only_marks = content.chars().all(|c| c == first || c == ' ');
            if only_marks && !complete && !(run == 1 && after.starts_with(' ') && first != '_') {
                return None;
            }
            if only_marks && complete && first != '+' && content.chars().filter(|&c| c == first).count() >= 3
            {
                return Some((Block::Rule, line.len()));
            }
            if run == 1 && first != '_' && after.starts_with([' ', '\t']) {
                return Some((Block::Bullet, line.len() - after.trim_start().len()));
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
                    if rest.is_empty() && !complete {
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

/// What a line inside a fenced code block is: code, or the fence's close.
fn in_fence(line: &str, indent: usize, complete: bool, fence: (char, usize)) -> Option<(Block, usize)> {
    let (marker, length) = fence;
    let content = &line[indent..];
    if indent > 3 {
        return Some((Block::Code, 0));
    }
    let run = content.chars().take_while(|&c| c == marker).count();
    let after = &content[run * marker.len_utf8()..];
    if run == content.chars().count() && !complete {
        return None; // spaces and fence marks so far: it may close
    }
    if run >= length && after.trim().is_empty() {
        return Some((Block::FenceClose, line.len()));
    }
    Some((Block::Code, 0))
}

/// Inline Markdown of `text` (part of one line) as the terminal shows it,
/// and how many bytes of it that covers: an emphasis, code span or link
/// still open is held (unless `complete`: then its marks are plain text).
fn inline(text: &str, complete: bool, colors: bool) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let c = text[at..].chars().next().expect("at is on a character");
        match c {
            // An SGR sequence the filter let through: passed whole.
            '\x1b' => {
                let len = 2 + bytes[at + 1..].iter().skip(1).take_while(|b| !b.is_ascii_alphabetic()).count();
                let end = (at + len + 1).min(text.len());
                out.push_str(&text[at..end]);
                at = end;
            }
            '\\' => match text[at + 1..].chars().next() {
                Some(next) if next.is_ascii_punctuation() => {
                    out.push(next);
                    at += 2;
                }
                None if !complete => return (out, at),
                _ => {
                    out.push('\\');
                    at += 1;
                }
            },
            '`' => match code_span(text, at, complete, colors, &mut out) {
                Some(next) => at = next,
                None => return (out, at),
            },
            '*' | '_' => match emphasis(text, at, c, complete, colors, &mut out) {
                Some(next) => at = next,
                None => return (out, at),
            },
            '[' => match link_at(&text[at..]) {
                Link::Found { label, url, len } => {
                    let (label, _) = inline(label, true, colors);
                    if colors {
                        out.push_str(&format!("{}{label}{}", LINK.0, LINK.1));
                    } else {
                        out.push_str(&label);
                    }
                    if label != url {
                        let url = format!("({url})");
                        out.push(' ');
                        out.push_str(&if colors { format!("{}{url}{}", DIM.0, DIM.1) } else { url });
                    }
                    at += len;
                }
                Link::Open if !complete => return (out, at),
                _ => {
                    out.push('[');
                    at += 1;
                }
            },
            c => {
                out.push(c);
                at += c.len_utf8();
            }
        }
    }
    (out, at)
}

/// The code span opening at byte `at` of `text`, written to `out`, and
/// the byte after it; None while it is still open (unless `complete`).
fn code_span(text: &str, at: usize, complete: bool, colors: bool, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
    let ticks = &text[at..at + run];
    let close = find_run(&text[at + run..], ticks).map(|i| at + run + i);
    match close {
        Some(close) => {
            let code = &text[at + run..close];
            let code = if code.len() > 2 && code.starts_with(' ') && code.ends_with(' ') {
                &code[1..code.len() - 1]
            } else {
                code
            };
            if colors {
                out.push_str(&format!("{}{code}{}", CODE.0, CODE.1));
            } else {
                out.push_str(&format!("{ticks}{code}{ticks}"));
            }
            Some(close + run)
        }
        None if !complete => None,
        None => {
            out.push_str(ticks);
            Some(at + run)
        }
    }
}

/// The emphasis (marks `c`) opening at byte `at` of `text`, written to
/// `out`, and the byte after it; None while it is still undecided (unless
/// `complete`).
fn emphasis(text: &str, at: usize, c: char, complete: bool, colors: bool, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    let run = bytes[at..].iter().take_while(|&&b| b == c as u8).count();
    let marks = &text[at..at + run];
    let before = text[..at].chars().next_back();
    let after = text[at + run..].chars().next();
    if after.is_none() && !complete {
        return None;
    }
    let opens = run <= 3
        && after.is_some_and(|a| !a.is_whitespace())
        && !(c == '_' && before.is_some_and(char::is_alphanumeric));
    let close = if opens { find_closer(&text[at + run..], marks) } else { Closer::None };
    match close {
        Closer::At(i) => {
            let inner = &text[at + run..at + run + i];
            let (inner, _) = inline(inner, true, colors);
            let style = [ITALIC, BOLD, BOLD_ITALIC][run - 1];
            if colors {
                out.push_str(&format!("{}{inner}{}", style.0, style.1));
            } else {
                out.push_str(&inner);
            }
            Some(at + run + i + run)
        }
        Closer::Unknown | Closer::None if opens && !complete => None,
        _ => {
            out.push_str(marks);
            Some(at + run)
        }
    }
}

/// Where the next run of exactly `ticks` is in `text`.
fn find_run(text: &str, ticks: &str) -> Option<usize> {
    let b = text.as_bytes();
    let n = ticks.len();
    let mut at = 0;
    while let Some(i) = text[at..].find(ticks) {
        let start = at + i;
        let run = b[start..].iter().take_while(|&&x| x == b'`').count();
        if run == n {
            return Some(start);
        }
        at = start + run;
    }
    None
}

enum Closer {
    At(usize),
    /// A closer at the very end of what has come: what follows decides.
    Unknown,
    None,
}

/// The mark run that closes an emphasis opened by `marks`: the same run,
/// after something not blank (and for `_`, not inside a word).
fn find_closer(text: &str, marks: &str) -> Closer {
    let underscore = marks.starts_with('_');
    let mark = marks.as_bytes()[0];
    let b = text.as_bytes();
    let mut at = 0;
    while let Some(i) = text[at..].find(marks) {
        let start = at + i;
        let run = b[start..].iter().take_while(|&&x| x == mark).count();
        let before = text[..start].chars().next_back();
        let after = text[start + run..].chars().next();
        if run == marks.len() && start > 0 && before.is_some_and(|c| !c.is_whitespace()) {
            if underscore && after.is_none() {
                return Closer::Unknown;
            }
            if !(underscore && after.is_some_and(char::is_alphanumeric)) {
                return Closer::At(start);
            }
        }
        at = start + run;
    }
    Closer::None
}

enum Link<'a> {
    Found {
        label: &'a str,
        url: &'a str,
        len: usize,
    },
    /// Its end has not come yet.
    Open,
    No,
}

/// `[label](url)` at the start of `text`.
fn link_at(text: &str) -> Link<'_> {
    let Some(close) = text.find(']') else { return Link::Open };
    let label = &text[1..close];
    let rest = &text[close + 1..];
    if rest.is_empty() {
        return Link::Open;
    }
    let Some(target) = rest.strip_prefix('(') else { return Link::No };
    let Some(end) = target.find(')') else {
        return if target.contains(char::is_whitespace) { Link::No } else { Link::Open };
    };
    let url = &target[..end];
    if label.is_empty() || url.is_empty() || url.contains(char::is_whitespace) {
        return Link::No;
    }
    Link::Found { label, url, len: close + 2 + end + 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole text rendered at once, and in every split into two pieces:
    /// each must show the same.
    fn render(text: &str, colors: bool) -> String {
        let mut r = Renderer::new(colors, 20);
        let whole = r.push(text) + &r.finish();
        for split in (1..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut r = Renderer::new(colors, 20);
            let shown = r.push(&text[..split]) + &r.push(&text[split..]) + &r.finish();
            assert_eq!(shown, whole, "split at {split} of {text:?}");
        }
        whole
    }

    fn plain(text: &str) -> String {
        render(text, false)
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
        assert_eq!(r.push("\n- "), "\n• ");
        assert_eq!(r.push("x\n#"), "x\n");
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
    fn a_long_open_mark_is_given_up_on() {
        let long = format!("*{}", "a".repeat(HOLD_MAX + 10));
        let mut r = Renderer::new(false, 20);
        let shown = r.push(&long);
        assert_eq!(shown, long);
    }
}
