//! Inline Markdown of one line of a reply: emphasis, code spans, links and
//! control sequences, drawn in one pass from left to right. No span is
//! longer than HOLD_MAX nor holds a control character, and each search
//! ahead goes on from where the last one of its kind stopped, so a line
//! takes time linear in its length whatever it holds.

use super::{BOLD, BOLD_ITALIC, CODE, DIM, HOLD_MAX, ITALIC, LINK, show};
use crate::text::{is_harmful, sequence_len, sgr_len};

/// Inline Markdown of `text` (part of one line) drawn onto `out`, and
/// how many bytes of it that covers: an emphasis, code span, link or
/// control sequence still open is held (unless `complete`: then its marks
/// are plain text).
/// `before` is the character before `text` on its line, if any.
pub(super) fn inline_into(
    out: &mut String,
    text: &str,
    before: Option<char>,
    complete: bool,
    colors: bool,
) -> usize {
    Inline { text, before, complete, colors, out, ahead: Ahead::default() }.run()
}

/// One pass over a line's text, left to right.
struct Inline<'a> {
    text: &'a str,
    before: Option<char>,
    complete: bool,
    colors: bool,
    out: &'a mut String,
    ahead: Ahead,
}

/// Where a span opened at some place ends.
enum End {
    At(usize),
    /// Not in what has come, which ends before the span could: the
    /// rest of the line decides.
    NotYet,
    Never,
}

impl Inline<'_> {
    /// Draw the text up to where something still open begins.
    fn run(&mut self) -> usize {
        let text = self.text;
        let mut at = 0;
        while at < text.len() {
            let c = text[at..].chars().next().expect("at is on a character");
            let next = match c {
                c if is_harmful(c, true) => self.sequence(at),
                '\\' => self.backslash(at),
                '`' => self.code_span(at),
                '*' | '_' => self.emphasis(at, c),
                '[' => self.link(at),
                c => {
                    self.out.push(c);
                    Some(at + c.len_utf8())
                }
            };
            match next {
                Some(next) => at = next,
                None => return at,
            }
        }
        at
    }

    /// A control sequence, whole: an SGR one as it came (the filter let it
    /// through), any other shown through the gate and read as nothing.
    fn sequence(&mut self, at: usize) -> Option<usize> {
        let rest = &self.text[at..];
        let len = match sgr_len(rest) {
            Some(len) => {
                self.out.push_str(&rest[..len]);
                return Some(at + len);
            }
            None => match sequence_len(rest) {
                Some(len) => len,
                None if !self.complete && rest.len() <= HOLD_MAX => return None,
                None => rest.len(),
            },
        };
        rest[..len].chars().for_each(|c| show(self.out, c));
        Some(at + len)
    }

    fn backslash(&mut self, at: usize) -> Option<usize> {
        match self.text[at + 1..].chars().next() {
            Some(next) if next.is_ascii_punctuation() => {
                self.out.push(next);
                Some(at + 2)
            }
            None if !self.complete => None,
            _ => {
                self.out.push('\\');
                Some(at + 1)
            }
        }
    }

    /// Where a span opened at `at` ends, given the first place from which
    /// its end could be (`found`): within HOLD_MAX of `at`, and before
    /// any control character.
    fn end(&mut self, at: usize, found: Option<usize>) -> End {
        let limit = at + HOLD_MAX;
        let text = self.text;
        let blocked = self.ahead.harmful.find(text, at, limit, |t, i| is_harmful(char_at(t, i), true));
        match found {
            Some(end) if end < limit && blocked.is_none_or(|b| end < b) => End::At(end),
            _ if blocked.is_some() || text.len() >= limit || self.complete => End::Never,
            _ => End::NotYet,
        }
    }

    /// A closing run found at `found`, unless it ends what has come of a
    /// line still coming: more marks may make it longer (and a letter
    /// after a `_` may make it no closer).
    fn whole_run(&self, found: Option<usize>, run: usize) -> Option<usize> {
        found.filter(|&i| self.complete || i + run < self.text.len())
    }

    /// The code span opening at `at`.
    fn code_span(&mut self, at: usize) -> Option<usize> {
        let text = self.text;
        let run = text[at..].bytes().take_while(|&b| b == b'`').count();
        let from = at + run;
        let found =
            if run <= MAX_TICKS { self.ahead.ticks.find(text, run, from, at + HOLD_MAX) } else { None };
        let found = self.whole_run(found, run);
        let ticks = &text[at..from];
        match self.end(at, found) {
            End::At(close) => {
                let code = &text[from..close];
                let code = if code.len() > 2 && code.starts_with(' ') && code.ends_with(' ') {
                    &code[1..code.len() - 1]
                } else {
                    code
                };
                let (open, end) = if self.colors { CODE } else { (ticks, ticks) };
                for piece in [open, code, end] {
                    self.out.push_str(piece);
                }
                Some(close + run)
            }
            End::NotYet => None,
            End::Never => {
                self.out.push_str(ticks);
                Some(from)
            }
        }
    }

    /// The emphasis (marks `c`) opening at `at`: closed by the same run of
    /// marks after something not blank (for `_`, not inside a word).
    fn emphasis(&mut self, at: usize, c: char) -> Option<usize> {
        let text = self.text;
        let run = text[at..].bytes().take_while(|&b| b == c as u8).count();
        let marks = &text[at..at + run];
        let before = if at == 0 { self.before } else { text[..at].chars().next_back() };
        let after = text[at + run..].chars().next();
        if after.is_none() && !self.complete {
            return None;
        }
        let opens = run <= 3
            && after.is_some_and(|a| !a.is_whitespace())
            && !(c == '_' && before.is_some_and(char::is_alphanumeric));
        if !opens {
            self.out.push_str(marks);
            return Some(at + run);
        }
        let search = &mut self.ahead.marks[usize::from(c == '_') * 3 + run - 1];
        let found = search.find(text, at + run, at + HOLD_MAX, |t, i| closes(t, i, c, run));
        let found = self.whole_run(found, run);
        match self.end(at, found) {
            End::At(close) => {
                // Attributes, not colours: drawn under NO_COLOR too.
                let (open, end) = [ITALIC, BOLD, BOLD_ITALIC][run - 1];
                self.out.push_str(open);
                inline_into(self.out, &text[at + run..close], Some(c), true, self.colors);
                self.out.push_str(end);
                Some(close + run)
            }
            End::NotYet => None,
            End::Never => {
                self.out.push_str(marks);
                Some(at + run)
            }
        }
    }

    /// `[label](url)` at `at`: drawn as its label and, when it differs,
    /// the URL (which holds no blank).
    fn link(&mut self, at: usize) -> Option<usize> {
        let text = self.text;
        let limit = at + HOLD_MAX;
        let found = self.ahead.bracket.find(text, at + 1, limit, |t, i| t.as_bytes()[i] == b']');
        let (close, end) = match self.end(at, found) {
            End::At(close) => match text.as_bytes().get(close + 1) {
                Some(b'(') => {
                    let from = close + 2;
                    let found = self.ahead.paren.find(text, from, limit, |t, i| t.as_bytes()[i] == b')');
                    let blank =
                        self.ahead.blank.find(text, from, limit, |t, i| char_at(t, i).is_whitespace());
                    match self.end(at, found) {
                        End::At(end) if close > at + 1 && end > from && blank.is_none_or(|b| b > end) => {
                            (close, end)
                        }
                        End::NotYet if blank.is_none() => return None,
                        _ => return self.not_a_link(at),
                    }
                }
                None if !self.complete => return None,
                _ => return self.not_a_link(at),
            },
            End::NotYet => return None,
            End::Never => return self.not_a_link(at),
        };
        let url = &text[close + 2..end];
        let mut label = String::new();
        inline_into(&mut label, &text[at + 1..close], Some('['), true, self.colors);
        self.out.push_str(&format!("{}{label}{}", LINK.0, LINK.1));
        if label != url {
            let url = format!("({url})");
            self.out.push(' ');
            self.out.push_str(&if self.colors { format!("{}{url}{}", DIM.0, DIM.1) } else { url });
        }
        Some(end + 1)
    }

    fn not_a_link(&mut self, at: usize) -> Option<usize> {
        self.out.push('[');
        Some(at + 1)
    }
}

/// The character at byte `i` of `text` (a char boundary).
fn char_at(text: &str, i: usize) -> char {
    text[i..].chars().next().unwrap_or(' ')
}

/// How many bytes `mark` repeats from `i` on (0 when `i` is inside a run).
fn run_at(text: &str, i: usize, mark: u8) -> usize {
    let b = text.as_bytes();
    if i > 0 && b[i - 1] == mark {
        return 0;
    }
    b[i..].iter().take_while(|&&x| x == mark).count()
}

/// Whether a run of exactly `run` marks `c` at `i` closes an emphasis:
/// after something not blank, and for `_`, not before a letter or digit.
fn closes(text: &str, i: usize, c: char, run: usize) -> bool {
    if run_at(text, i, c as u8) != run {
        return false;
    }
    let before = text[..i].chars().next_back();
    let after = text[i + run..].chars().next();
    before.is_some_and(|b| !b.is_whitespace()) && !(c == '_' && after.is_some_and(char::is_alphanumeric))
}

/// The searches ahead of one pass over a line.
#[derive(Default)]
struct Ahead {
    harmful: Search,
    blank: Search,
    bracket: Search,
    paren: Search,
    ticks: Ticks,
    /// Closing runs of `*` and of `_`, one to three long.
    marks: [Search; 6],
}

/// The longest run of backticks that opens a code span: a longer one is
/// text.
const MAX_TICKS: usize = 16;

/// The runs of backticks ahead in a line, found by one scan forward and
/// kept by their length until a code span of that length looks for its end.
#[derive(Default)]
struct Ticks {
    scanned: usize,
    starts: [std::collections::VecDeque<usize>; MAX_TICKS],
}

impl Ticks {
    /// Where the first run of exactly `run` backticks from `from` (and
    /// before `until`) starts.
    fn find(&mut self, text: &str, run: usize, from: usize, until: usize) -> Option<usize> {
        let b = text.as_bytes();
        let end = until.min(b.len());
        let mut i = self.scanned.max(from);
        while i < end {
            if b[i] != b'`' {
                i += 1;
                continue;
            }
            let len = b[i..].iter().take_while(|&&x| x == b'`').count();
            if len <= MAX_TICKS {
                self.starts[len - 1].push_back(i);
            }
            i += len;
        }
        self.scanned = self.scanned.max(i);
        let starts = &mut self.starts[run - 1];
        while starts.front().is_some_and(|&start| start < from) {
            starts.pop_front();
        }
        starts.front().copied().filter(|&start| start < until)
    }
}

/// A search ahead in a line, for one kind of place, that goes on from
/// where it stopped: the searches of a pass start further and further on,
/// so no part of the line is looked at twice by one kind of search.
#[derive(Default)]
struct Search {
    /// No place from `start` to `scanned` was one; `found` is one.
    start: usize,
    scanned: usize,
    found: Option<usize>,
}

impl Search {
    /// The first place from `from` (before `until`) where `hit` holds.
    fn find(
        &mut self,
        text: &str,
        from: usize,
        until: usize,
        hit: impl Fn(&str, usize) -> bool,
    ) -> Option<usize> {
        if from < self.start || self.found.is_some_and(|f| f < from) || from > self.scanned {
            *self = Search { start: from, scanned: from, found: None };
        }
        if let Some(found) = self.found {
            return (found < until).then_some(found);
        }
        let end = until.min(text.len());
        let begin = self.scanned;
        if begin < end {
            self.found = (begin..end).find(|&i| text.is_char_boundary(i) && hit(text, i));
            self.scanned = self.found.unwrap_or(end);
        }
        self.found
    }
}
