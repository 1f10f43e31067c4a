//! Text as a terminal shows it: control characters made visible, display
//! widths (CJK and emoji take two columns), and cutting to fit.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Stored text as it may be shown on a terminal: control characters (escape
/// sequences among them, from an agent or a hand-edited file) become `^[`,
/// `^M`, `^?` or `\u{9b}`, so they are seen, not obeyed. With `keep_layout`,
/// newlines and tabs stay; without, the text stays on one line and in one
/// tab-separated column, and bidi overrides are shown too (one in a title
/// would reorder the rest of its row).
pub fn printable(text: &str, keep_layout: bool) -> Cow<'_, str> {
    let harmful = |c: char| {
        c.is_control() && !(keep_layout && (c == '\n' || c == '\t'))
            || !keep_layout && matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(harmful) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if !harmful(c) => shown.push(c),
            // A CRLF line end (an agent on Windows) is a line end.
            '\r' if keep_layout && chars.peek() == Some(&'\n') => {}
            '\u{7f}' => shown.push_str("^?"),
            c if (c as u32) < 0x20 => {
                shown.push('^');
                shown.push(char::from(c as u8 + 0x40));
            }
            c => {
                let _ = write!(shown, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(shown)
}

/// Output on its way to a terminal, a piece at a time (an agent's reply as
/// it streams): shown as `printable` shows stored text, so an escape
/// sequence is seen, not obeyed; only SGR colour sequences (`ESC [ ... m`)
/// pass, when `colors`. A sequence or character cut between two pieces is
/// held until the next one.
pub struct TerminalFilter {
    held: Vec<u8>,
    colors: bool,
}

/// The longest SGR sequence let through; a longer one is shown, not obeyed.
const SGR_MAX: usize = 64;

impl TerminalFilter {
    pub fn new(colors: bool) -> TerminalFilter {
        TerminalFilter { held: Vec::new(), colors }
    }

    /// What to write now of `piece`.
    pub fn push(&mut self, piece: &[u8]) -> String {
        self.held.extend_from_slice(piece);
        let ready = self.complete_prefix();
        let shown = self.render(&self.held[..ready]);
        self.held.drain(..ready);
        shown
    }

    /// What was held back, once no more is coming.
    pub fn finish(&mut self) -> String {
        let shown = self.render(&self.held);
        self.held.clear();
        shown
    }

    /// How much of `held` can be shown without knowing what follows: not a
    /// trailing CR (CRLF is a line end), a character cut short, or an
    /// escape sequence that may still become SGR.
    fn complete_prefix(&self) -> usize {
        let data = &self.held;
        if self.colors
            && let Some(esc) = data.iter().rposition(|&b| b == 0x1b)
        {
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

    fn render(&self, bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        if !self.colors {
            return printable(&text, true).into_owned();
        }
        let mut shown = String::with_capacity(text.len());
        let mut rest: &str = &text;
        while let Some(esc) = rest.find('\u{1b}') {
            shown.push_str(&printable(&rest[..esc], true));
            let sequence = &rest.as_bytes()[esc..];
            let params = sequence.iter().skip(2).take_while(|&&b| is_sgr_param(b)).count();
            if sequence.get(1) == Some(&b'[') && params < SGR_MAX && sequence.get(2 + params) == Some(&b'm') {
                shown.push_str(&rest[esc..esc + 3 + params]);
                rest = &rest[esc + 3 + params..];
            } else {
                shown.push_str("^[");
                rest = &rest[esc + 1..];
            }
        }
        shown.push_str(&printable(rest, true));
        shown
    }
}

fn is_sgr_param(b: u8) -> bool {
    b.is_ascii_digit() || b == b';' || b == b':'
}

/// Whether colour sequences may reach the terminal: not under `NO_COLOR`
/// (<https://no-color.org>: set and not empty).
pub fn colors_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// "1 session", "2 sessions".
pub fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// At most `max` characters, cut at a space where one is near, with `…`.
pub fn truncate_words(s: &str, max: usize) -> String {
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
pub fn fit_columns(s: &str, max: usize) -> String {
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

pub fn columns_of(s: &str) -> usize {
    s.chars().map(char_columns).sum()
}

/// Columns a character takes in a terminal: 2 for East Asian wide and
/// full-width characters and emoji, else 1 (titles hold no controls).
pub fn char_columns(c: char) -> usize {
    match c as u32 {
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x2FFFD
        | 0x30000..=0x3FFFD => 2,
        _ => 1,
    }
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
        assert_eq!(printable("ab\u{202E}cd", true), "ab\u{202E}cd");
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
                "a^[[31mred^[[0m ^[]52;c;eA==^G^[[2J é\nz"
            };
            assert_eq!(whole, expected);
        }
    }
}
