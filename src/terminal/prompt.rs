//! What a person types at the terminal: lines that Ctrl-C cancels, and
//! yes/no questions.

use std::io::{self, Read, Write};

use crate::error::{Error, Result};
use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;

pub enum Line {
    Text(String),
    Cancelled,
    End,
}

/// One line from the terminal. Reads byte by byte so that Ctrl-C (EINTR)
/// cancels the line instead of being retried away inside std.
pub fn read_line() -> Result<Line> {
    let mut bytes = Vec::new();
    let mut stdin = io::stdin();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) if bytes.is_empty() => return Ok(Line::End),
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if bytes.len() < MAX_MESSAGE_BYTES => bytes.push(byte[0]),
            Ok(_) => {
                // The rest of the line goes too, not into the next one.
                while matches!(stdin.read(&mut byte), Ok(1)) && byte[0] != b'\n' {}
                return Err(Error::TooLarge(format!(
                    "the line is longer than {} MiB; nothing was sent",
                    MAX_MESSAGE_BYTES >> 20
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => match sys::take_signal() {
                Some(sys::SIGINT) => return Ok(Line::Cancelled),
                Some(_) => return Err(Error::Interrupted),
                None => continue,
            },
            Err(e) => {
                return Err(Error::TerminalRead(e));
            }
        }
    }
    Ok(Line::Text(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Ask a yes/no question on the terminal. Off a terminal there is nobody to
/// ask: refuse, and say how to go ahead.
pub fn confirm(question: &str, verb: &str) -> Result<bool> {
    if !sys::isatty(0) {
        return Err(Error::Refused(format!(
            "not deleting without confirmation: stdin is not a terminal; add --yes to {verb}"
        )));
    }
    let mut err = io::stderr();
    let _ = write!(err, "{question} [y/N] ");
    let _ = err.flush();
    sys::catch_interrupts();
    match read_line()? {
        Line::Text(answer) => Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES")),
        Line::End => {
            crate::note!("");
            Ok(false)
        }
        // Nothing is done yet: Ctrl-C at the question stops here and now.
        Line::Cancelled => {
            crate::note!("");
            Err(Error::Interrupted)
        }
    }
}
