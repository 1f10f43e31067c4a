//! Writing to stdout so that a closed pipe (`hermes sessions list | head -1`)
//! ends the command quietly instead of panicking, and stored text that is
//! shown rather than exported is made harmless to a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::error::{Error, Result};

/// stdout, buffered; every write reports a closed pipe as `Error::BrokenPipe`.
pub struct Out {
    inner: io::BufWriter<io::StdoutLock<'static>>,
}

impl Out {
    pub fn new() -> Out {
        Out { inner: io::BufWriter::new(io::stdout().lock()) }
    }

    pub fn write(&mut self, text: &str) -> Result<()> {
        self.inner.write_all(text.as_bytes()).map_err(map_stdout_error)
    }

    pub fn line(&mut self, text: &str) -> Result<()> {
        self.write(text)?;
        self.write("\n")
    }

    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush().map_err(map_stdout_error)
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        let _ = self.inner.flush();
    }
}

pub fn map_stdout_error(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Error::BrokenPipe
    } else {
        Error::Store(format!("writing to stdout: {}", crate::error::describe_io(&e)))
    }
}

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

/// "1 session", "2 sessions".
pub fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Print a warning about a file that was skipped.
pub fn warn(text: &str) {
    crate::note!("hermes: warning: {text}");
}

/// `println!` that never panics: a closed or full stdout is not worth a
/// crash in the middle of a conversation.
#[macro_export]
macro_rules! say {
    () => {{ use std::io::Write as _; let _ = writeln!(std::io::stdout()); }};
    ($($arg:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stdout(), $($arg)*); }};
}

/// `eprintln!` that never panics, even when stderr is a closed pipe.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stderr(), $($arg)*); }};
}

#[cfg(test)]
mod tests {
    use super::printable;

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
}
