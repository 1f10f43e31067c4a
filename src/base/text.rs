//! Text as a terminal shows it: the one gate every byte hermes did not
//! write passes before a terminal (`printable`, and `TerminalFilter` for
//! output that streams), display widths (CJK and emoji take two columns),
//! and cutting to fit.

use std::borrow::Cow;
use std::fmt::Write as _;

mod hidden;

/// Whether `c` must not reach a terminal as itself: a control character
/// (every escape sequence starts with one: ESC, or a C1 control such as
/// U+009B), or a bidi override or isolate (U+202A-U+202E,
/// U+2066-U+2069), which would reorder what follows it on the screen.
/// With `keep_layout`, newlines and tabs may pass. The one character rule.
pub(crate) fn is_harmful(c: char, keep_layout: bool) -> bool {
    (c.is_control() && !(keep_layout && (c == '\n' || c == '\t')))
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `c` as it is shown when `is_harmful`: `^[`, `^M`, `^?`, or `\u{9b}`,
/// `\u{202e}` for the others, so that it is seen, not obeyed.
pub(crate) fn push_shown(out: &mut String, c: char) {
    match c {
        '\u{7f}' => out.push_str("^?"),
        c if (c as u32) < 0x20 => {
            out.push('^');
            out.push(char::from(c as u8 + 0x40));
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// The gate: text that hermes did not write (a message, a title, a model,
/// an agent's or a server's words, a file's name) as it may reach a
/// terminal. Every harmful character (see `is_harmful`) is shown, not
/// obeyed: an escape sequence becomes `^[]0;...^G`, a bidi override
/// `\u{202e}`. With `keep_layout`, newlines and tabs stay (a CRLF line
/// end is a line end); without, the text stays on one line and in one
/// tab-separated column. The file keeps the text as it was.
pub(crate) fn printable(text: &str, keep_layout: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_harmful(c, keep_layout)) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if !is_harmful(c, keep_layout) => shown.push(c),
            // A CRLF line end (an agent on Windows) is a line end.
            '\r' if keep_layout && chars.peek() == Some(&'\n') => {}
            c => push_shown(&mut shown, c),
        }
    }
    Cow::Owned(shown)
}

/// Bytes that may not be UTF-8 (what another program wrote) through the
/// gate: a byte that is no part of a character is shown as `\xff`.
pub(crate) fn printable_bytes(bytes: &[u8], keep_layout: bool) -> String {
    printable(&bytes_shown(bytes), keep_layout).into_owned()
}

/// `bytes` as text, each byte that is no part of a character shown as
/// `\xff` (where `String::from_utf8_lossy` would put U+FFFD, the same for
/// every byte).
fn bytes_shown(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        shown.push_str(chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(shown, "\\x{byte:02x}");
        }
    }
    Cow::Owned(shown)
}

/// Output on its way to a terminal, a piece at a time (an agent's reply as
/// it streams): through the gate as `printable` does, except SGR colour
/// sequences (`ESC [ ... m`), which pass when `colors` and are dropped
/// otherwise (NO_COLOR: no colour, and no `^[[1;32m` either), as is one
/// that would draw text in its background's colour (see `hidden`). A
/// sequence or character cut between two pieces is held until the next one.
pub(crate) struct TerminalFilter {
    held: Vec<u8>,
    colors: bool,
    /// Whether what comes out has been through the gate; not for a
    /// renderer that shows everything it draws through it itself (see
    /// `TerminalFilter::for_renderer`).
    gate: bool,
    /// An SGR sequence was let through: the attributes it set are reset
    /// before hermes writes anything of its own.
    let_sgr_through: bool,
    /// The colours the sequences let through have set.
    colours: hidden::Colours,
}

/// The longest SGR sequence let through; a longer one is shown, not obeyed.
const SGR_MAX: usize = 64;

impl TerminalFilter {
    pub(crate) fn new(colors: bool) -> TerminalFilter {
        TerminalFilter {
            held: Vec::new(),
            colors,
            gate: true,
            let_sgr_through: false,
            colours: hidden::Colours::default(),
        }
    }

    /// For a renderer that passes each character it draws through the
    /// gate itself (`view::markdown`): the text whole, as characters,
    /// with CRLF line ends made LF and SGR sequences passed or dropped as
    /// `new` does, but every other character left for the renderer to
    /// show, so that what the gate shows is never read as Markdown.
    pub(crate) fn for_renderer(colors: bool) -> TerminalFilter {
        TerminalFilter { gate: false, ..TerminalFilter::new(colors) }
    }

    /// Whether an SGR sequence has been let through (see `let_sgr_through`).
    pub(crate) fn let_sgr_through(&self) -> bool {
        self.let_sgr_through
    }

    /// What to write now of `piece`.
    pub(crate) fn push(&mut self, piece: &[u8]) -> String {
        self.held.extend_from_slice(piece);
        let ready = self.complete_prefix();
        let held = std::mem::take(&mut self.held);
        let shown = self.render(&held[..ready]);
        self.held = held;
        self.held.drain(..ready);
        shown
    }

    /// A whole text at once (`push` then `finish`), borrowed as it is when
    /// there is nothing in it to change: no escape, no CR, and (for the
    /// gate) nothing harmful. A text of 16 MiB is then not copied.
    pub(crate) fn whole<'t>(&mut self, text: &'t str) -> Cow<'t, str> {
        let untouched =
            !text.contains(['\u{1b}', '\r']) && (!self.gate || !text.chars().any(|c| is_harmful(c, true)));
        if untouched && self.held.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(self.push(text.as_bytes()) + &self.finish())
    }

    /// What was held back, once no more is coming.
    pub(crate) fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        self.render(&held)
    }

    /// How much of `held` can be shown without knowing what follows: not a
    /// trailing CR (CRLF is a line end), a character cut short, or an
    /// escape sequence that may still become SGR.
    fn complete_prefix(&self) -> usize {
        let data = &self.held;
        if let Some(esc) = data.iter().rposition(|&b| b == 0x1b) {
            let rest = &data[esc + 1..];
            let open = match rest.split_first() {
                None => true,
                Some((b'[', params)) => params.len() < SGR_MAX && params.iter().all(|&b| is_sgr_param(b)),
                Some(_) => false,
            };
            if open {
                return esc;
            }
        }
        if data.last() == Some(&b'\r') {
            return data.len() - 1;
        }
        for at in (data.len().saturating_sub(3)..data.len()).rev() {
            let b = data[at];
            if b & 0xC0 == 0x80 {
                continue; // a continuation byte: look for its lead
            }
            let need = match b {
                0xF0.. => 4,
                0xE0.. => 3,
                0xC0.. => 2,
                _ => 1,
            };
            if at + need > data.len() {
                return at;
            }
            break;
        }
        data.len()
    }

    fn render(&mut self, bytes: &[u8]) -> String {
        let text = bytes_shown(bytes);
        let mut shown = String::with_capacity(text.len());
        let mut rest: &str = &text;
        while let Some(esc) = rest.find('\u{1b}') {
            self.plain(&rest[..esc], &mut shown);
            match sgr_len(&rest[esc..]) {
                Some(len) => {
                    if self.colors && self.colours.admit(&rest.as_bytes()[esc + 2..esc + len - 1]) {
                        shown.push_str(&rest[esc..esc + len]);
                        self.let_sgr_through = true;
                    }
                    rest = &rest[esc + len..];
                }
                None => {
                    if self.gate {
                        push_shown(&mut shown, '\u{1b}');
                    } else {
                        shown.push('\u{1b}');
                    }
                    rest = &rest[esc + 1..];
                }
            }
        }
        self.plain(rest, &mut shown);
        shown
    }

    /// Text without ESC: through the gate, or with its CRLFs made LF.
    fn plain(&self, text: &str, shown: &mut String) {
        if self.gate {
            shown.push_str(&printable(text, true));
        } else {
            shown.push_str(&text.replace("\r\n", "\n"));
        }
    }
}

fn is_sgr_param(b: u8) -> bool {
    b.is_ascii_digit() || b == b';' || b == b':'
}

/// The length of the SGR sequence `text` starts with (`ESC [ 1;31 m`), if
/// it starts with one that may pass: at most SGR_MAX parameter bytes, and
/// none that conceals what follows (8): colours and styles pass, hidden
/// text does not.
pub(crate) fn sgr_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if !b.starts_with(b"\x1b[") {
        return None;
    }
    let params = b[2..].iter().take_while(|&&b| is_sgr_param(b)).count();
    let passes = params < SGR_MAX && b.get(2 + params) == Some(&b'm') && !conceals(&b[2..2 + params]);
    passes.then_some(3 + params)
}

/// Whether SGR parameters (`1;31`, `38;5;8`, `38:2::1:2:3`) conceal the
/// text after them (8), telling a colour's own numbers from attributes.
fn conceals(params: &[u8]) -> bool {
    let number = |field: &[u8]| {
        let head = field.split(|&b| b == b':').next().unwrap_or(field);
        head.iter().try_fold(0u32, |n, &d| n.checked_mul(10)?.checked_add(u32::from(d - b'0')))
    };
    let mut fields = params.split(|&b| b == b';');
    while let Some(field) = fields.next() {
        match number(field) {
            Some(8) if !field.contains(&b':') => return true,
            // A colour by number or by RGB: its arguments are no attributes.
            Some(38 | 48 | 58) if !field.contains(&b':') => match fields.next().and_then(number) {
                Some(5) => drop(fields.next()),
                Some(2) => fields.by_ref().take(3).for_each(drop),
                _ => {}
            },
            _ => {}
        }
    }
    false
}

/// The length of the control sequence `text` starts with, as a terminal
/// would read it (ECMA-48): CSI (`ESC [`, or C1 U+009B) up to its final
/// byte; a string (OSC, DCS, SOS, PM, APC) up to BEL or ST; `ESC` and one
/// more character; a lone control character. None while it is not
/// complete: `text` ends before the sequence does.
pub(crate) fn sequence_len(text: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    let (_, first) = chars.next()?;
    let introducer = match first {
        '\u{1b}' => match chars.next() {
            None => return None,
            Some((_, '[')) => '\u{9b}',
            Some((_, c @ (']' | 'P' | 'X' | '^' | '_'))) => {
                char::from_u32(c as u32 + 0x40).unwrap_or('\u{9d}')
            }
            Some((at, c)) if (' '..='/').contains(&c) => {
                // Intermediate bytes, then a final one.
                let end = text[at..].find(|c: char| !(' '..='/').contains(&c)).map(|i| at + i)?;
                let last = text[end..].chars().next()?;
                return Some(if ('0'..='~').contains(&last) { end + last.len_utf8() } else { end });
            }
            Some((at, c)) if ('0'..='~').contains(&c) => return Some(at + 1),
            Some((at, _)) => return Some(at),
        },
        c @ ('\u{9b}' | '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}') => c,
        c => return Some(c.len_utf8()),
    };
    let body = chars.as_str();
    let start = text.len() - body.len();
    if introducer == '\u{9b}' {
        // Parameters and intermediates, then the final byte.
        let end = body.find(|c: char| !(' '..='?').contains(&c))?;
        let last = body[end..].chars().next()?;
        let len = if ('@'..='~').contains(&last) { end + 1 } else { end };
        return Some(start + len);
    }
    // A string, ended by BEL, ST (ESC \ or U+009C), or broken off by ESC.
    let end = body.find(['\u{7}', '\u{9c}', '\u{1b}'])?;
    let len = match body[end..].chars().next() {
        Some('\u{1b}') if body[end + 1..].is_empty() => return None,
        Some('\u{1b}') if body[end + 1..].starts_with('\\') => end + 2,
        Some('\u{1b}') => end,
        Some(c) => end + c.len_utf8(),
        None => end,
    };
    Some(start + len)
}

/// Whether colour sequences may reach the terminal, hermes's own (the
/// listing's matches, the picker) and an agent's alike: not under
/// `NO_COLOR` (<https://no-color.org>: set and not empty), nor on a
/// `TERM=dumb` terminal. The one colour rule.
pub(crate) fn colors_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// "1 session", "2 sessions".
pub(crate) fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Outside input quoted in a message: printable, and a long one (a
/// 5,000-character "ID") cut to its first characters with its length said.
pub(crate) fn clipped(s: &str) -> String {
    const SHOWN: usize = 60;
    let shown = printable(s, false);
    let n = shown.chars().count();
    if n <= SHOWN {
        return shown.into_owned();
    }
    let head: String = shown.chars().take(SHOWN - 1).collect();
    format!("{head}… ({n} characters)")
}

/// At most `max` characters, cut at a space where one is near, with `…`.
pub(crate) fn truncate_words(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > cut.len() / 2 => cut[..at].to_string(),
        _ => cut,
    };
    format!("{}…", cut.trim_end())
}

/// `s` cut to at most `max` terminal columns, at a space where one is near,
/// with `…`. Counting characters is not enough: a CJK title takes two
/// columns a character and would push the table past the terminal's edge.
pub(crate) fn fit_columns(s: &str, max: usize) -> String {
    if columns_of(s) <= max {
        return s.to_string();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in s.chars() {
        used += char_columns(c);
        if used > max - 1 {
            break;
        }
        cut.push(c);
    }
    if let Some(at) = cut.rfind(' ').filter(|&at| at > cut.len() / 2) {
        cut.truncate(at);
    }
    format!("{}…", cut.trim_end())
}

pub(crate) fn columns_of(s: &str) -> usize {
    s.chars().map(char_columns).sum()
}

/// Columns a character takes in a terminal, as wcwidth(3) counts them:
/// 2 for East Asian wide and full-width characters and emoji, 0 for
/// combining marks, joiners and variation selectors, else 1 (titles hold
/// no controls).
pub(crate) fn char_columns(c: char) -> usize {
    let c = c as u32;
    let within = |table: &[(u32, u32)]| {
        table
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    };
    if c < 0x300 {
        1
    } else if within(ZERO_WIDTH) {
        0
    } else if within(WIDE) {
        2
    } else {
        1
    }
}

/// Combining marks, zero-width spaces and joiners, variation selectors.
const ZERO_WIDTH: &[(u32, u32)] = &[
    (0x0300, 0x036F),
    (0x0483, 0x0489),
    (0x0591, 0x05BD),
    (0x0610, 0x061A),
    (0x064B, 0x065F),
    (0x0E31, 0x0E31),
    (0x0E34, 0x0E3A),
    (0x0E47, 0x0E4E),
    (0x1AB0, 0x1AFF),
    (0x1DC0, 0x1DFF),
    (0x200B, 0x200F),
    (0x2060, 0x2064),
    (0x20D0, 0x20FF),
    (0x302A, 0x302D),
    (0x3099, 0x309A),
    (0xFE00, 0xFE0F),
    (0xFE20, 0xFE2F),
    (0xFEFF, 0xFEFF),
    (0x1F3FB, 0x1F3FF),
    (0xE0000, 0xE0FFF),
];

/// East Asian Wide and Fullwidth (Unicode 15), emoji among them.
const WIDE: &[(u32, u32)] = &[
    (0x1100, 0x115F),
    (0x231A, 0x231B),
    (0x2329, 0x232A),
    (0x23E9, 0x23EC),
    (0x23F0, 0x23F0),
    (0x23F3, 0x23F3),
    (0x25FD, 0x25FE),
    (0x2614, 0x2615),
    (0x2648, 0x2653),
    (0x267F, 0x267F),
    (0x2693, 0x2693),
    (0x26A1, 0x26A1),
    (0x26AA, 0x26AB),
    (0x26BD, 0x26BE),
    (0x26C4, 0x26C5),
    (0x26CE, 0x26CE),
    (0x26D4, 0x26D4),
    (0x26EA, 0x26EA),
    (0x26F2, 0x26F3),
    (0x26F5, 0x26F5),
    (0x26FA, 0x26FA),
    (0x26FD, 0x26FD),
    (0x2705, 0x2705),
    (0x270A, 0x270B),
    (0x2728, 0x2728),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2795, 0x2797),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x2E80, 0x3029),
    (0x302E, 0x303E),
    (0x3041, 0x3098),
    (0x309B, 0x33FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA000, 0xA4CF),
    (0xA960, 0xA97F),
    (0xAC00, 0xD7A3),
    (0xF900, 0xFAFF),
    (0xFE10, 0xFE19),
    (0xFE30, 0xFE6F),
    (0xFF00, 0xFF60),
    (0xFFE0, 0xFFE6),
    (0x16FE0, 0x16FE4),
    (0x17000, 0x18CFF),
    (0x1B000, 0x1B2FF),
    (0x1F004, 0x1F004),
    (0x1F0CF, 0x1F0CF),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F200, 0x1F202),
    (0x1F210, 0x1F23B),
    (0x1F240, 0x1F248),
    (0x1F250, 0x1F251),
    (0x1F260, 0x1F265),
    (0x1F300, 0x1F320),
    (0x1F32D, 0x1F335),
    (0x1F337, 0x1F37C),
    (0x1F37E, 0x1F393),
    (0x1F3A0, 0x1F3CA),
    (0x1F3CF, 0x1F3D3),
    (0x1F3E0, 0x1F3F0),
    (0x1F3F4, 0x1F3F4),
    (0x1F3F8, 0x1F3FA),
    (0x1F400, 0x1F43E),
    (0x1F440, 0x1F440),
    (0x1F442, 0x1F4FC),
    (0x1F4FF, 0x1F53D),
    (0x1F54B, 0x1F54E),
    (0x1F550, 0x1F567),
    (0x1F57A, 0x1F57A),
    (0x1F595, 0x1F596),
    (0x1F5A4, 0x1F5A4),
    (0x1F5FB, 0x1F64F),
    (0x1F680, 0x1F6C5),
    (0x1F6CC, 0x1F6CC),
    (0x1F6D0, 0x1F6D2),
    (0x1F6D5, 0x1F6D7),
    (0x1F6DC, 0x1F6DF),
    (0x1F6EB, 0x1F6EC),
    (0x1F6F4, 0x1F6FC),
    (0x1F7E0, 0x1F7EB),
    (0x1F7F0, 0x1F7F0),
    (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1F9FF),
    (0x1FA70, 0x1FAFF),
    (0x20000, 0x2FFFD),
    (0x30000, 0x3FFFD),
];

/// The candidate nearest to `word`, if one is near enough to be what was
/// meant: at most two edits (a letter added, dropped, changed, or two
/// swapped), and fewer than a third of the word. For "did you mean".
pub(crate) fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, changes and
/// swaps of neighbours, each one edit.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let change = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1).min(rows[i][j - 1] + 1).min(rows[i - 1][j - 1] + change);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(printable("plain\ttext\n", true), "plain\ttext\n");
        assert_eq!(printable("a\u{1b}]0;pwned\u{7}b\r\u{7f}", true), "a^[]0;pwned^Gb^M^?");
        assert_eq!(printable("csi\u{9b}31m", true), "csi\\u{9b}31m");
        assert_eq!(printable("two\tcols\nrows", false), "two^Icols^Jrows");
        assert_eq!(printable("crlf\r\nend\r", true), "crlf\nend^M");
        assert_eq!(printable("crlf\r\n", false), "crlf^M^J");
        assert_eq!(printable("ab\u{202E}cd", false), "ab\\u{202e}cd");
        assert_eq!(printable("ab\u{202E}cd\u{2066}", true), "ab\\u{202e}cd\\u{2066}");
        assert_eq!(printable_bytes(b"bad \xff\xc2\x9b end", true), "bad \\xff\\u{9b} end");
        assert_eq!(printable_bytes(b"cut \xe2\x82 short", true), "cut \\xe2\\x82 short");
    }
    #[test]
    fn fits_titles_by_terminal_columns() {
        assert_eq!(fit_columns("short", 10), "short");
        assert_eq!(fit_columns("hello wonderful world", 18), "hello wonderful…");
        let wide = "调试".repeat(20);
        let fitted = fit_columns(&wide, 28);
        assert_eq!(columns_of(&fitted), 27);
        assert!(fitted.ends_with('…'));
    }

    #[test]
    fn terminal_filter_shows_escapes_and_passes_colours() {
        let input = "a\u{1b}[31mred\u{1b}[0m \u{1b}]52;c;eA==\u{7}\u{1b}[2J é\r\nz";
        for colors in [true, false] {
            let whole =
                TerminalFilter::new(colors).push(input.as_bytes()) + &TerminalFilter::new(colors).finish();
            for split in 1..input.len() {
                let mut f = TerminalFilter::new(colors);
                let mut shown = f.push(&input.as_bytes()[..split]);
                shown += &f.push(&input.as_bytes()[split..]);
                shown += &f.finish();
                assert_eq!(shown, whole, "split at {split}");
            }
            let expected = if colors {
                "a\u{1b}[31mred\u{1b}[0m ^[]52;c;eA==^G^[[2J é\nz"
            } else {
                "ared ^[]52;c;eA==^G^[[2J é\nz"
            };
            assert_eq!(whole, expected);
        }
    }

    #[test]
    fn control_sequences_are_measured_as_a_terminal_reads_them() {
        let cases = [
            ("\u{1b}[2Jx", Some(4)),
            ("\u{1b}[?25hx", Some(6)),
            ("\u{1b}]0;t\u{7}x", Some(6)),
            ("\u{1b}]8;;u\u{1b}\\x", Some(8)),
            ("\u{1b}P$qm\u{1b}\\x", Some(7)),
            ("\u{1b}\\x", Some(2)),
            ("\u{1b}(Bx", Some(3)),
            ("\u{9b}31mx", Some(5)),
            ("\u{7}x", Some(1)),
            ("\u{202e}x", Some(3)),
            ("\u{1b}]0;t\u{1b}[2J", Some(5)),
            ("\u{1b}", None),
            ("\u{1b}]0;title", None),
            ("\u{1b}[12", None),
        ];
        for (text, len) in cases {
            assert_eq!(sequence_len(text), len, "{text:?}");
        }
    }

    #[test]
    fn colours_pass_and_hidden_text_does_not() {
        assert_eq!(sgr_len("\u{1b}[1;31mx"), Some(7));
        assert_eq!(sgr_len("\u{1b}[38;5;8m"), Some(9));
        assert_eq!(sgr_len("\u{1b}[38;2;8;8;8;1m"), Some(15));
        assert_eq!(sgr_len("\u{1b}[38:5:8m"), Some(9));
        assert_eq!(sgr_len("\u{1b}[m"), Some(3));
        for hidden in ["\u{1b}[8m", "\u{1b}[1;8m", "\u{1b}[008m", "\u{1b}[38;5;1;8m"] {
            assert_eq!(sgr_len(hidden), None, "{hidden:?}");
        }
        let mut f = TerminalFilter::new(true);
        assert_eq!(f.push(b"a\x1b[8mb\x1b[31mc") + &f.finish(), "a^[[8mb\u{1b}[31mc");
        assert!(f.let_sgr_through());
        // A whole text: the same as push and finish, borrowed when untouched.
        for colors in [true, false] {
            for text in ["plain words\n", "a\x1b[8mb\x1b[31mc", "crlf\r\n", "bell\x07 \u{202e}"] {
                let whole = TerminalFilter::for_renderer(colors).whole(text).into_owned();
                let mut f = TerminalFilter::for_renderer(colors);
                assert_eq!(whole, f.push(text.as_bytes()) + &f.finish(), "{text:?}");
                let whole = TerminalFilter::new(colors).whole(text).into_owned();
                let mut f = TerminalFilter::new(colors);
                assert_eq!(whole, f.push(text.as_bytes()) + &f.finish(), "{text:?}");
            }
        }
        assert!(matches!(TerminalFilter::for_renderer(true).whole("words"), Cow::Borrowed(_)));
    }

    #[test]
    fn terminal_filter_shows_each_stray_byte() {
        // A character cut between pieces is whole; a byte that is none is
        // shown as itself, however the pieces fall.
        let mut f = TerminalFilter::new(false);
        let shown = f.push(b"caf\xc3") + &f.push(b"\xa9 \xff") + &f.push(b"x \xe2\x82") + &f.finish();
        assert_eq!(shown, "caf\u{e9} \\xffx \\xe2\\x82");
    }

    #[test]
    fn widths_of_emoji_and_marks() {
        assert_eq!(columns_of("deploy 🚀"), 9);
        assert_eq!(columns_of("ok ✅"), 5);
        assert_eq!(columns_of("café"), 4);
        assert_eq!(columns_of("cafe\u{301}"), 4);
        assert_eq!(columns_of("❤\u{fe0f}"), 1);
        assert_eq!(columns_of("调试"), 4);
        assert_eq!(columns_of("ｈｉ"), 4);
        assert_eq!(columns_of("한국"), 4);
    }

    #[test]
    fn nearest_finds_typos_only() {
        let verbs = ["list", "search", "show", "sessions", "delete", "chat"];
        assert_eq!(nearest("sesions", verbs), Some("sessions"));
        assert_eq!(nearest("lsit", verbs), Some("list"));
        assert_eq!(nearest("serach", verbs), Some("search"));
        assert_eq!(nearest("--jsn", ["--json", "--all"]), Some("--json"));
        assert_eq!(nearest("purge", verbs), None);
        assert_eq!(nearest("x", verbs), None);
    }
}
