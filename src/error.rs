//! The one error type of hermes, its exit status, and the text a user sees.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Exit statuses, as SPEC "Exit status" lists them.
pub const EXIT_NOT_FOUND: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_AGENT: i32 = 3;
pub const EXIT_STORE: i32 = 4;
pub const EXIT_INTERRUPTED: i32 = 130;

#[derive(Debug)]
pub enum Error {
    /// `-c NAME` (or any verb given a name) matched no session.
    NotFound { name: String, did_you_mean: Option<String> },
    /// `-r ID` named no session.
    NoSuchId(String),
    /// Bare `-c`, or `sessions current`, with nothing to continue.
    NothingToContinue,
    /// Bad command line; the text says what and what to do instead.
    Usage(String),
    /// `-h`/`--help` among a command's arguments. Not a failure: the
    /// command-line parser answers it with that command's help text, so it
    /// never reaches `main`.
    HelpWanted,
    /// The agent command could not run or failed.
    Agent(String),
    /// An I/O error on a path of the store.
    Io { path: PathBuf, source: io::Error },
    /// A session or breadcrumb file that does not parse.
    Corrupt { path: PathBuf, why: String },
    /// A session written by a newer hermes: readable, never rewritten.
    NewerFormat { path: PathBuf, format: u64 },
    /// A lock held elsewhere for longer than the timeout.
    LockTimeout { lock: PathBuf, what: String },
    /// A request that is well formed but cannot be honoured as asked (a
    /// title another session holds, delete without --yes off a terminal).
    Refused(String),
    /// Input over a size limit (a message, a title, an import line).
    TooLarge(String),
    /// Anything else the store refuses, already phrased for the user.
    Store(String),
    /// SIGINT/SIGTERM while we waited.
    Interrupted,
    /// stdout was closed by its reader (`hermes sessions list | head -1`).
    BrokenPipe,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: &Path, source: io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }

    pub fn usage(text: impl Into<String>) -> Error {
        Error::Usage(text.into())
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::NotFound { .. } | Error::NoSuchId(_) | Error::NothingToContinue => EXIT_NOT_FOUND,
            Error::Usage(_) | Error::Refused(_) => EXIT_USAGE,
            Error::Agent(_) => EXIT_AGENT,
            Error::Io { .. }
            | Error::Corrupt { .. }
            | Error::NewerFormat { .. }
            | Error::LockTimeout { .. }
            | Error::Store(_) => EXIT_STORE,
            // Oversized input is the user's to fix: a usage error.
            Error::TooLarge(_) => EXIT_USAGE,
            Error::Interrupted => EXIT_INTERRUPTED,
            Error::BrokenPipe | Error::HelpWanted => 0,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The one message that is not prefixed: SPEC gives it verbatim.
            Error::NotFound { name, did_you_mean } => {
                writeln!(f, "No session found matching '{}'.", visible(name))?;
                if let Some(title) = did_you_mean {
                    writeln!(f, "Did you mean '{title}'?")?;
                }
                writeln!(f, "Use 'hermes sessions list' to see available sessions, or pass")?;
                write!(f, "--create-if-missing to start a new session with that title.")
            }
            Error::NoSuchId(id) => write!(
                f,
                "hermes: no session has the ID '{}'; see 'hermes sessions list' for IDs",
                visible(id)
            ),
            Error::NothingToContinue => {
                write!(f, "hermes: no session to continue; start one with 'hermes chat'")
            }
            Error::Usage(text) => {
                write!(f, "hermes: {text}")?;
                if !text.contains("--help") {
                    write!(f, "\nTry 'hermes --help' for more information.")?;
                }
                Ok(())
            }
            Error::Agent(text) => write!(f, "hermes: {text}"),
            Error::Io { path, source } => {
                write!(f, "hermes: {}: {}", path.display(), describe_io(source))
            }
            Error::Corrupt { path, why } => {
                write!(f, "hermes: {}: not a valid session file ({why}); left untouched", path.display())
            }
            Error::NewerFormat { path, format } => write!(
                f,
                "hermes: {}: written in format {format} by a newer hermes; this one understands format 1 and will not modify it",
                path.display()
            ),
            Error::LockTimeout { lock, what } => write!(
                f,
                "hermes: timed out after 10s waiting for the {what} ({}); another hermes holds it",
                lock.display()
            ),
            Error::TooLarge(text) | Error::Refused(text) => write!(f, "hermes: {text}"),
            Error::Store(text) => write!(f, "hermes: {text}"),
            Error::Interrupted => write!(f, "hermes: interrupted"),
            Error::BrokenPipe | Error::HelpWanted => Ok(()),
        }
    }
}

/// A name as typed, safe to print: control characters (terminal escape
/// sequences among them) are shown as escapes, not obeyed.
fn visible(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// `std::io::Error`'s Display adds " (os error 13)"; users need only the words.
pub fn describe_io(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl From<lexopt::Error> for Error {
    fn from(e: lexopt::Error) -> Error {
        Error::Usage(e.to_string())
    }
}
