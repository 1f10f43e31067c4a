//! The one error type of hermes, its exit status, and the text a user sees.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::text::counted;

/// Exit statuses, as the man page (EXIT STATUS) and `--help` list them.
pub(crate) const EXIT_NOT_FOUND: i32 = 1;
pub(crate) const EXIT_USAGE: i32 = 2;
pub(crate) const EXIT_AGENT: i32 = 3;
pub(crate) const EXIT_STORE: i32 = 4;
pub(crate) const EXIT_INTERRUPTED: i32 = 130;

#[derive(Debug)]
pub enum Error {
    /// `-c NAME` (or any verb given a name) matched no session.
    /// `did_you_mean`: the closest titles, newest first (never acted on).
    NotFound { name: String, did_you_mean: Vec<String> },
    /// A `sessions` verb given a name that matched no session: the hint
    /// says how to find one (`--create-if-missing` is chat's alone).
    NoSuchSession { name: String, did_you_mean: Vec<String> },
    /// An option the command does not take, and the nearest one it does;
    /// `command` (`sessions list`, "" for hermes itself) has the help.
    UnknownOption { option: String, did_you_mean: Option<String>, command: &'static str },
    /// A name that is the title of more than one session (two machines made
    /// the same thread before they synced): each is a line saying which.
    Ambiguous { name: String, sessions: Vec<String> },
    /// Two versions of a session that could not be made one (the git merge
    /// driver): exit 1, the file left valid.
    Unmerged(String),
    /// Conflict copies that could not be merged (each named in a warning).
    MergeIncomplete(String),
    /// `--role NAME` (or `/role NAME`) named no role: the nearest name,
    /// if one is near, and every role there is.
    NoSuchRole { name: String, did_you_mean: Option<String>, known: Vec<String> },
    /// `-r ID` named no session.
    NoSuchId { id: String, titled: bool },
    /// A short ID that fits several sessions: (ID, title, last active) of
    /// each, newest first.
    AmbiguousId { name: String, candidates: Vec<(String, String, f64)> },
    /// A name that is the title of some sessions and a short ID of others:
    /// (ID, title, last active, how the name fits) of each.
    AmbiguousName { name: String, candidates: Vec<(String, String, f64, &'static str)> },
    /// A title (or the NAME `--create-if-missing` would make one of) that
    /// a name would read as a session ID: `shape` in words, the sessions
    /// (ID, title) whose short ID it is, and whether it came as the NAME
    /// of `--create-if-missing`.
    IdLikeTitle {
        title: String,
        shape: &'static str,
        /// Which part of their IDs it is: "the short ID", ...
        part: &'static str,
        sessions: Vec<(String, String)>,
        create_if_missing: bool,
    },
    /// `sessions search` found nothing.
    NoMatch(String),
    /// `sessions list TEXT` found no title holding TEXT.
    NoTitleMatch(String),
    /// Bare `-c`, or `sessions current`, with nothing to continue.
    NothingToContinue,
    /// Bad command line; the text says what and what to do instead.
    Usage(String),
    /// A usage error of one command, whose help the hint names.
    UsageIn { text: String, command: &'static str },
    /// `-h`/`--help` among a command's arguments. Not a failure: the
    /// command-line parser answers it with that command's help text, so it
    /// never reaches `main`.
    HelpWanted,
    /// The agent command could not run or failed.
    Agent(String),
    /// An I/O error on a path of the store.
    Io { path: PathBuf, source: io::Error },
    /// `path` could not be made because its directory `dir` is not
    /// writable (its mode, its owner, a read-only file system).
    DirectoryNotWritable { verb: &'static str, path: PathBuf, dir: PathBuf, source: io::Error },
    /// A session or breadcrumb file that does not parse.
    Corrupt { path: PathBuf, why: String },
    /// A session file whose header is readable but whose messages are not
    /// all (`why` names the first damaged one): found by its names, never
    /// written, mended by `sessions repair`.
    DamagedSession { path: PathBuf, id: String, why: String },
    /// A session written by a newer hermes: readable, never rewritten.
    /// `understood` is the newest format this hermes reads.
    NewerFormat { path: PathBuf, format: u64, understood: u64 },
    /// A lock held elsewhere for longer than `waited`.
    LockTimeout { lock: PathBuf, what: String, waited: Duration },
    /// A request that is well formed but cannot be honoured as asked (a
    /// title another session holds, delete without --yes off a terminal).
    Refused(String),
    /// Input over a size limit (a message, a title, an import line).
    TooLarge(String),
    /// Text that is not UTF-8 where hermes would store or send it (`-q`,
    /// stdin, `--title`, a `config set` value): where it came from, and
    /// the first byte that is not.
    NotText { place: String, offset: usize, byte: u8 },
    /// Neither `$HERMES_HOME` nor `$HOME` says where the store is.
    NoHome,
    /// A path the store needs as a directory is something else.
    NotADirectory(PathBuf),
    /// A new session's file is already there (an ID generated twice).
    AlreadyExists(PathBuf),
    /// A session deleted by another hermes while this one was using it.
    Vanished { id: String },
    /// A home, store directory or config file that someone else owns or
    /// can write, or a link where hermes keeps its own directory: the
    /// text names the path, its owner and mode, and the fix.
    Untrusted(String),
    /// config.toml is not a config file at all (too large, not text); its
    /// content is never quoted.
    NotAConfig { path: PathBuf, why: String },
    /// config.toml over the size a config file may be (made by hand):
    /// refused, and `config set`/`unset` can mend it.
    ConfigTooLarge { path: PathBuf, limit: u64 },
    /// config.toml does not parse.
    ConfigSyntax { path: PathBuf, line: usize, why: String },
    /// Writing to stdout failed, and not because its reader left (a full
    /// disk behind a redirection).
    StdoutWrite(io::Error),
    /// A reply saved in the session but not shown: stdout failed.
    ReplyNotShown { id: String, source: io::Error },
    /// A reply shown but not saved: the session would outgrow `max_bytes`.
    ReplyNotSaved { id: String, max_bytes: u64 },
    /// Reading the user's answer on the terminal failed.
    TerminalRead(io::Error),
    /// The line editor could not draw on the terminal.
    TerminalWrite(io::Error),
    /// `/edit` could not start the editor.
    Editor { editor: String, source: io::Error },
    /// An export file to be written where there is no directory.
    NoDirectory { path: PathBuf, dir: PathBuf },
    /// An export written without the sessions that are damaged.
    ExportIncomplete { damaged: usize },
    /// Reading an import's input (a file, or stdin) failed.
    ImportRead { name: String, source: io::Error },
    /// An import input refused whole, at `line`: nothing was imported.
    ImportRejected { name: String, line: usize, why: String },
    /// An import done without its damaged lines.
    ImportIncomplete { name: String, damaged: usize, dry_run: bool },
    /// The pager (`$PAGER`) failed: what was written to it may not have
    /// been shown.
    PagerFailed { pager: String, how: String },
    /// SIGINT/SIGTERM while we waited.
    Interrupted,
    /// Exit with this status, saying nothing (`current --format` without
    /// a session: a shell prompt shows nothing).
    Silent(i32),
    /// stdout was closed by its reader (`hermes sessions list | head -1`).
    BrokenPipe,
}

/// How many sessions an ambiguous short ID lists (newest first).
const AMBIGUOUS_SHOWN: usize = 10;

pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: &Path, source: io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }

    /// `source`, met making `path` (or a temporary beside it) in `dir`
    /// (to `verb` it: "write", "make"): a directory that refuses new
    /// names is named, not only the file.
    pub(crate) fn creating_in(verb: &'static str, path: &Path, dir: &Path, source: io::Error) -> Error {
        match source.kind() {
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                Error::DirectoryNotWritable { verb, path: path.to_path_buf(), dir: dir.to_path_buf(), source }
            }
            _ => Error::io(path, source),
        }
    }

    pub(crate) fn usage(text: impl Into<String>) -> Error {
        Error::Usage(text.into())
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::NotFound { .. }
            | Error::NoSuchSession { .. }
            | Error::Ambiguous { .. }
            | Error::Unmerged(_)
            | Error::NoSuchId { .. }
            | Error::AmbiguousId { .. }
            | Error::AmbiguousName { .. }
            | Error::NoMatch(_)
            | Error::NoTitleMatch(_)
            | Error::NothingToContinue => EXIT_NOT_FOUND,
            Error::Usage(_)
            | Error::ImportRejected { .. }
            | Error::ImportIncomplete { .. }
            | Error::UsageIn { .. }
            | Error::UnknownOption { .. }
            | Error::Refused(_)
            | Error::NoSuchRole { .. }
            | Error::IdLikeTitle { .. } => EXIT_USAGE,
            Error::Agent(_) => EXIT_AGENT,
            Error::Io { .. }
            | Error::DirectoryNotWritable { .. }
            | Error::Corrupt { .. }
            | Error::DamagedSession { .. }
            | Error::NewerFormat { .. }
            | Error::LockTimeout { .. }
            | Error::NoHome
            | Error::NotADirectory(_)
            | Error::AlreadyExists(_)
            | Error::Vanished { .. }
            | Error::Untrusted(_)
            | Error::NotAConfig { .. }
            | Error::ConfigTooLarge { .. }
            | Error::ConfigSyntax { .. }
            | Error::MergeIncomplete(_)
            | Error::StdoutWrite(_)
            | Error::ReplyNotShown { .. }
            | Error::ReplyNotSaved { .. }
            | Error::TerminalRead(_)
            | Error::TerminalWrite(_)
            | Error::Editor { .. }
            | Error::NoDirectory { .. }
            | Error::ExportIncomplete { .. }
            | Error::ImportRead { .. }
            | Error::PagerFailed { .. } => EXIT_STORE,
            // Oversized input is the user's to fix: a usage error.
            Error::TooLarge(_) | Error::NotText { .. } => EXIT_USAGE,
            Error::Interrupted => EXIT_INTERRUPTED,
            Error::Silent(code) => *code,
            Error::BrokenPipe | Error::HelpWanted => 0,
        }
    }

    /// Whether the message is printed exactly as it is, without the
    /// `hermes: ` every other error starts with (the man page gives the not-found
    /// text of `chat -c NAME` verbatim).
    pub(crate) fn is_verbatim(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }
}

/// How a session may be named by part of its ID, said where a name that
/// looks like one matched nothing.
pub(crate) const SHORT_ID_RULE: &str =
    "A short ID is 8 or more leading characters of an ID, or its last 6 hex digits.";
const SHORT_ID_WORDS: &str = "a short ID is 8 or more leading characters of an ID, or its last 6 hex digits";

/// Whether a name that matched nothing was probably meant as (part of) an
/// ID: digits, hex letters and underscores, with a digit among them,
/// shorter than a whole ID.
pub(crate) fn looks_like_an_id(name: &str) -> bool {
    (3..22).contains(&name.len())
        && name.bytes().any(|b| b.is_ascii_digit())
        && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f' | b'_'))
}

/// What to do about a session whose messages are damaged.
pub(crate) fn repair_hint(id: &str) -> String {
    format!(
        "To keep its readable messages: hermes sessions repair {id} (it copies the file aside first, byte \
            for byte)"
    )
}

/// 'a', 'b' or 'c': titles to choose from, in one line.
pub(crate) fn one_of(titles: &[String]) -> String {
    let quoted: Vec<String> = titles.iter().map(|t| format!("'{}'", visible(t))).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The words that say a file is not a session file, for the error and for
/// every warning that skips or leaves one.
pub(crate) fn not_a_session_file(path: &Path, why: &str) -> String {
    format!("{}: not a valid session file ({why})", path.display())
}

/// The text of an error, without the `hermes: ` its printer adds. One long
/// `match`, longer than any other function, on purpose: the single place
/// of every message hermes prints (see ARCHITECTURE.md).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The one message that is not prefixed: the man page gives it verbatim.
            Error::NotFound { name, did_you_mean } => {
                writeln!(f, "No session found matching '{}'.", visible(name))?;
                match did_you_mean.as_slice() {
                    [] => {}
                    [title] => writeln!(f, "Did you mean '{}'?", visible(title))?,
                    titles => {
                        writeln!(f, "Did you mean one of these?")?;
                        for title in titles {
                            writeln!(f, "  {}", visible(title))?;
                        }
                    }
                }
                if looks_like_an_id(name) {
                    writeln!(f, "{SHORT_ID_RULE}")?;
                }
                writeln!(f, "Use 'hermes sessions list' to see available sessions, or pass")?;
                write!(f, "--create-if-missing to start a new session with that title.")
            }
            Error::NoSuchSession { name, did_you_mean } => {
                write!(f, "no session matches '{}'", visible(name))?;
                if !did_you_mean.is_empty() {
                    write!(f, " (did you mean {}?)", one_of(did_you_mean))?;
                }
                if looks_like_an_id(name) {
                    write!(f, "; {SHORT_ID_WORDS}")?;
                }
                write!(
                    f,
                    "; find it with 'hermes sessions list', or look in the messages too: hermes sessions \
                        search {}",
                    crate::words::quoted(&visible(name))
                )
            }
            Error::UnknownOption { option, did_you_mean, command } => {
                // Shown as typed; its printer makes control characters visible.
                write!(f, "invalid option '{option}'")?;
                if let Some(nearest) = did_you_mean {
                    write!(f, "; did you mean '{nearest}'?")?;
                }
                try_help(f, command)
            }
            Error::Ambiguous { name, sessions } => {
                writeln!(
                    f,
                    "'{}' is ambiguous: {} sessions have that title:",
                    visible(name),
                    sessions.len()
                )?;
                for line in sessions {
                    writeln!(f, "  {line}")?;
                }
                write!(
                    f,
                    "nothing was done; name one by its ID, rename one (hermes sessions rename ID TITLE), or \
                        merge them into one (hermes sessions merge {})",
                    crate::words::quoted(&visible(name))
                )
            }
            Error::NoSuchRole { name, did_you_mean, known } => {
                write!(f, "no role is called '{}'", visible(name))?;
                if let Some(near) = did_you_mean {
                    write!(f, " (did you mean '{}'?)", visible(near))?;
                }
                let names: Vec<String> = known.iter().map(|n| visible(n)).collect();
                match names.as_slice() {
                    [] => write!(
                        f,
                        "; there are none: a role is a file roles/NAME.md in the profile (see 'hermes roles \
                            --help')"
                    ),
                    names => write!(f, "; the roles are {}: see 'hermes roles'", names.join(", ")),
                }
            }
            Error::NoSuchId { id, titled } => {
                write!(
                    f,
                    "no session has the ID '{}' ({}); see 'hermes sessions list' for IDs",
                    visible(id),
                    SHORT_ID_WORDS
                )?;
                if *titled {
                    write!(
                        f,
                        "\nit is the title of a session: -r takes IDs only; continue it with hermes chat -c \
                            {}",
                        crate::words::quoted(&visible(id))
                    )?;
                }
                Ok(())
            }
            Error::AmbiguousId { name, candidates } => {
                write!(f, "'{}' fits {} sessions; give more of the ID:", visible(name), candidates.len())?;
                for (id, title, updated_at) in candidates.iter().take(AMBIGUOUS_SHOWN) {
                    let title = crate::text::printable(title, false);
                    write!(
                        f,
                        "
  {id}  {}  {title}",
                        crate::time::local_minutes(*updated_at)
                    )?;
                }
                if candidates.len() > AMBIGUOUS_SHOWN {
                    write!(
                        f,
                        "
  ... and {} more",
                        candidates.len() - AMBIGUOUS_SHOWN
                    )?;
                }
                Ok(())
            }
            Error::AmbiguousName { name, candidates } => {
                write!(
                    f,
                    "'{}' could mean {} sessions: it is a title and also a short ID; nothing was done. Name \
                        one by its full ID:",
                    visible(name),
                    candidates.len()
                )?;
                for (id, title, updated_at, how) in candidates.iter().take(AMBIGUOUS_SHOWN) {
                    let title = crate::text::printable(title, false);
                    write!(f, "\n  {id}  {}  {title}  ({how})", crate::time::local_minutes(*updated_at))?;
                }
                if candidates.len() > AMBIGUOUS_SHOWN {
                    write!(f, "\n  ... and {} more", candidates.len() - AMBIGUOUS_SHOWN)?;
                }
                Ok(())
            }
            Error::IdLikeTitle { title, shape, part, sessions, create_if_missing } => {
                let title = visible(title);
                let example = format!("(e.g. 'report {title}')");
                // As --create-if-missing's NAME the way on is -r; as a
                // title, another title.
                let (rule, instead) = if *create_if_missing {
                    (
                        "; with --create-if-missing, NAME is a title:",
                        format!("give one that is not shaped like an ID {example}"),
                    )
                } else {
                    (
                        ", so it cannot be a title (a name of that shape is read as an ID):",
                        format!("choose one that is not shaped like an ID {example}"),
                    )
                };
                match sessions.as_slice() {
                    [] if *create_if_missing => {
                        write!(
                            f,
                            "'{title}' has the shape of {shape}{rule} {instead}, or continue by ID with -r"
                        )
                    }
                    [] => write!(f, "'{title}' has the shape of {shape}{rule} {instead}"),
                    [(id, held)] if *create_if_missing => write!(
                        f,
                        "'{title}' is not a title but {part} of session {id} ('{}'){rule} continue that \
                            session with 'hermes chat -r {title}', or {instead}",
                        visible(held)
                    ),
                    [(id, held)] => {
                        write!(f, "'{title}' is {part} of session {id} ('{}'){rule} {instead}", visible(held))
                    }
                    several => {
                        write!(
                            f,
                            "'{title}' is {part} of {} sessions{rule} {instead}{}:",
                            several.len(),
                            if *create_if_missing {
                                ", or continue one with 'hermes chat -r ID'"
                            } else {
                                ""
                            }
                        )?;
                        for (id, held) in several.iter().take(AMBIGUOUS_SHOWN) {
                            write!(f, "\n  {id}  {}", visible(held))?;
                        }
                        if several.len() > AMBIGUOUS_SHOWN {
                            write!(f, "\n  ... and {} more", several.len() - AMBIGUOUS_SHOWN)?;
                        }
                        Ok(())
                    }
                }
            }
            Error::NoMatch(text) => write!(f, "no session holds '{}'", visible(text)),
            Error::NoTitleMatch(text) => write!(
                f,
                "no session title holds '{}'; 'hermes sessions search' looks in the messages too",
                visible(text)
            ),
            Error::NothingToContinue => write!(f, "no session to continue; start one with 'hermes chat'"),
            Error::Usage(text) | Error::UsageIn { text, command: _ } => {
                write!(f, "{text}")?;
                if !text.contains("--help") {
                    try_help(f, if let Error::UsageIn { command, .. } = self { command } else { "" })?;
                }
                Ok(())
            }
            Error::Agent(text)
            | Error::TooLarge(text)
            | Error::Refused(text)
            | Error::Unmerged(text)
            | Error::MergeIncomplete(text) => write!(f, "{text}"),
            Error::NotText { place, offset, byte } => write!(
                f,
                "{place} is not UTF-8 text (the byte 0x{byte:02x} at offset {offset}); nothing was done: \
                    convert it first, from Latin-1 with iconv -f latin1 -t utf-8"
            ),
            Error::Io { path, source } => write!(f, "{}: {}", path.display(), describe_io(source)),
            Error::DirectoryNotWritable { verb, path, dir, source } => {
                write!(
                    f,
                    "cannot {verb} {}: no file can be added to its directory {} ({})",
                    path.display(),
                    dir.display(),
                    describe_io(source)
                )?;
                // A read-only file system is not a matter of owner or mode.
                if source.kind() != io::ErrorKind::ReadOnlyFilesystem {
                    write!(f, "; see its owner and mode with: ls -ld {}", dir.display())?;
                }
                Ok(())
            }
            Error::Corrupt { path, why } => write!(f, "{}; left untouched", not_a_session_file(path, why)),
            Error::DamagedSession { path, id, why } => {
                write!(f, "{}; nothing was written to it. {}", not_a_session_file(path, why), repair_hint(id))
            }
            Error::NewerFormat { path, format, understood } => write!(
                f,
                "{}: written in format {format} by a newer hermes; this one understands format {understood} \
                    and will not modify it",
                path.display()
            ),
            Error::LockTimeout { lock, what, waited } => write!(
                f,
                "timed out after {}s waiting for the {what} ({}); another hermes holds it",
                waited.as_secs(),
                lock.display()
            ),
            Error::NoHome => write!(
                f,
                "neither HERMES_HOME nor HOME is set, so there is nowhere to keep sessions; set \
                    HERMES_HOME=/path/to/dir"
            ),
            Error::NotADirectory(path) => write!(f, "{}: exists and is not a directory", path.display()),
            Error::AlreadyExists(path) => write!(f, "{}: already exists", path.display()),
            Error::Vanished { id } => write!(f, "session {id} was deleted while in use"),
            Error::Untrusted(text) => f.write_str(text),
            Error::NotAConfig { path, why } => write!(f, "{}: {why}; not a config file", path.display()),
            Error::ConfigTooLarge { path, limit } => write!(
                f,
                "{}: larger than the {} KiB a config file may be; make it smaller with 'hermes config unset \
                    KEY' or 'hermes config set KEY VALUE' (they read it whole to mend it), or by hand",
                path.display(),
                limit >> 10
            ),
            Error::ConfigSyntax { path, line, why } => write!(f, "{}: line {line}: {why}", path.display()),
            Error::StdoutWrite(e) => write!(f, "writing to stdout: {}", describe_io(e)),
            Error::ReplyNotShown { id, source } => write!(
                f,
                "could not show the reply ({}); it is saved: hermes sessions show {id}",
                describe_io(source)
            ),
            Error::ReplyNotSaved { id, max_bytes } => write!(
                f,
                "the reply would grow session {id} past {} MiB, so it was not saved; start a new session",
                max_bytes >> 20
            ),
            Error::TerminalRead(e) => write!(f, "reading the terminal: {}", describe_io(e)),
            Error::TerminalWrite(e) => write!(f, "writing to the terminal: {}", describe_io(e)),
            Error::Editor { editor, source } => {
                write!(f, "cannot run the editor '{}': {}", visible(editor), describe_io(source))
            }
            Error::NoDirectory { path, dir } => {
                write!(f, "cannot write {}: no directory {}", path.display(), dir.display())
            }
            Error::ExportIncomplete { damaged } => write!(
                f,
                "{} could not be exported (see the warnings above); the export holds the rest",
                counted(*damaged, "damaged session")
            ),
            Error::ImportRead { name, source } => write!(f, "{name}: {}", describe_io(source)),
            Error::ImportRejected { name, line, why } => {
                write!(f, "{name}:{line}: {why}; nothing was imported")
            }
            Error::ImportIncomplete { name, damaged, dry_run } => write!(
                f,
                "{name}: {} skipped; {}",
                counted(*damaged, "damaged line"),
                if *dry_run { "the rest would be imported" } else { "the rest was imported" }
            ),
            Error::PagerFailed { pager, how } => write!(
                f,
                "the pager '{}' {how}, so the output may not have been shown; run again with --no-pager, or \
                    set PAGER (or HERMES_PAGER) to a pager that works",
                visible(pager)
            ),
            Error::Interrupted => write!(f, "interrupted"),
            Error::Silent(_) | Error::BrokenPipe | Error::HelpWanted => Ok(()),
        }
    }
}

/// A name as typed, safe to print: control characters (terminal escape
/// sequences among them) and bidi overrides are shown as escapes, not
/// obeyed, the way usage errors and stored titles show them.
fn visible(name: &str) -> String {
    crate::text::clipped(name)
}

/// The line after a usage error: where that command's help is.
fn try_help(f: &mut fmt::Formatter, command: &str) -> fmt::Result {
    let command = if command.is_empty() { String::new() } else { format!(" {command}") };
    write!(f, "\nTry 'hermes{command} --help' for more information.")
}

/// `std::io::Error`'s Display adds " (os error 13)"; users need only the words.
pub(crate) fn describe_io(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl From<lexopt::Error> for Error {
    fn from(e: lexopt::Error) -> Error {
        match e {
            // The command's parse adds the nearest option it knows.
            lexopt::Error::UnexpectedOption(option) => {
                Error::UnknownOption { option, did_you_mean: None, command: "" }
            }
            e => Error::Usage(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests;
