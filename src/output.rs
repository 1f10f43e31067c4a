//! Writing to stdout so that a closed pipe (`hermes sessions list | head -1`)
//! ends the command quietly instead of panicking.

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
