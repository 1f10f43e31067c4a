//! Writing to stdout so that a closed pipe (`hermes sessions list | head -1`)
//! ends the command quietly instead of panicking, and what hermes says and
//! shows passed through the gate (`text::printable`) on its way: only
//! hermes's own escape sequences (`Out::write_own`) and data for another
//! program (`Out::data`, byte for byte unless stdout is a terminal) pass
//! otherwise. What hermes says on a terminal is wrapped to its width
//! (`wrap`); whether stdout shows on a terminal counts the pager in front
//! of one (`terminal_columns`).

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

/// stdout, buffered; every write reports a closed pipe as `Error::BrokenPipe`.
pub(crate) struct Out {
    inner: io::BufWriter<io::StdoutLock<'static>>,
    /// Whether stdout is a terminal: then `data` goes through the gate too.
    terminal: bool,
}

impl Default for Out {
    fn default() -> Out {
        Out::new()
    }
}

impl Out {
    #[allow(clippy::new_without_default)] // it locks stdout: no default
    pub(crate) fn new() -> Out {
        Out { inner: io::BufWriter::new(io::stdout().lock()), terminal: stdout_on_terminal() }
    }

    /// Text for a person (a view, a listing, a report): through the gate,
    /// newlines and tabs kept.
    pub(crate) fn write(&mut self, text: &str) -> Result<()> {
        self.write_own(&crate::text::printable(text, true))
    }

    pub(crate) fn line(&mut self, text: &str) -> Result<()> {
        self.write(text)?;
        self.write_own("\n")
    }

    /// Text as it is: hermes's own, with its own escape sequences (a
    /// match's colour), every piece from elsewhere in it already through
    /// the gate.
    pub(crate) fn write_own(&mut self, text: &str) -> Result<()> {
        self.inner.write_all(text.as_bytes()).map_err(map_stdout_error)
    }

    /// Data for another program (an export, JSON, a setting's value):
    /// byte for byte into a pipe or a file; on a terminal, through the
    /// gate like everything else shown there.
    pub(crate) fn data(&mut self, text: &str) -> Result<()> {
        if self.terminal { self.write(text) } else { self.write_own(text) }
    }

    pub(crate) fn flush(&mut self) -> Result<()> {
        self.inner.flush().map_err(map_stdout_error)
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        let _ = self.inner.flush();
    }
}

/// The columns of the terminal stdout shows on, while a pager stands in
/// front of it (0: none does).
static PAGED_COLUMNS: AtomicUsize = AtomicUsize::new(0);

/// From now on stdout goes to a pager in front of a terminal of `columns`.
/// What ends the terminal's current line, as far as hermes drew it: a
/// reply that stopped mid-line, or the waiting sign. What an agent says
/// on stderr starts on a line of its own (`stderr_line`).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum OpenLine {
    None = 0,
    Reply = 1,
    Sign = 2,
}

static OPEN_LINE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The terminal's line is now as `open` says.
pub(crate) fn set_open_line(open: OpenLine) {
    OPEN_LINE.store(open as u8, Ordering::SeqCst);
}

/// Whether a reply's line is still open (no agent's stderr ended it).
pub(crate) fn reply_line_open() -> bool {
    OPEN_LINE.load(Ordering::SeqCst) == OpenLine::Reply as u8
}

/// Before bytes of an agent's stderr go to the terminal: a reply's
/// unfinished line is ended, the waiting sign erased.
pub(crate) fn stderr_line() {
    let ending: &[u8] = match OPEN_LINE.swap(OpenLine::None as u8, Ordering::SeqCst) {
        1 => b"\n",
        2 => b"\r\x1b[K",
        _ => return,
    };
    if crate::sys::isatty(1) && crate::sys::isatty(2) {
        let _ = crate::sys::write_fd(2, ending);
    }
}

pub(crate) fn paged_on(columns: usize) {
    PAGED_COLUMNS.store(columns.max(1), Ordering::SeqCst);
}

/// stdout is the terminal again.
pub(crate) fn paged_off() {
    PAGED_COLUMNS.store(0, Ordering::SeqCst);
}

/// Whether stdout goes to a pager now.
pub(crate) fn paged() -> bool {
    PAGED_COLUMNS.load(Ordering::SeqCst) > 0
}

/// Whether what goes to stdout is shown on a terminal: it is one, or a
/// pager in front of one.
pub(crate) fn stdout_on_terminal() -> bool {
    paged() || crate::sys::isatty(1)
}

/// The columns of the terminal what goes to `fd` (1 or 2) is shown on;
/// None for a pipe or a file, or a terminal that does not say.
pub(crate) fn terminal_columns(fd: std::os::fd::RawFd) -> Option<usize> {
    let paged = PAGED_COLUMNS.load(Ordering::SeqCst);
    if fd == 1 && paged > 0 {
        return Some(paged);
    }
    if crate::sys::isatty(fd) { crate::sys::terminal_columns(fd) } else { None }
}

/// `text` as hermes says it on `fd`: wrapped at words to the terminal's
/// width, or as it is into a pipe or a file.
pub(crate) fn fitted(fd: std::os::fd::RawFd, text: &str) -> std::borrow::Cow<'_, str> {
    match terminal_columns(fd) {
        Some(width) => std::borrow::Cow::Owned(crate::wrap::wrapped(text, Some(width), "")),
        None => std::borrow::Cow::Borrowed(text),
    }
}

pub(crate) fn map_stdout_error(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe { Error::BrokenPipe } else { Error::StdoutWrite(e) }
}

/// Say something on stderr in hermes's voice: the one place that writes
/// the `hermes: ` every error, warning and notice starts with.
///
/// Arguments, titles and paths in a message are shown, never obeyed: a
/// control character (an escape sequence) in any line is made visible.
pub fn notice(text: &str) {
    let shown: Vec<_> = text.lines().map(|line| crate::text::printable(line, false)).collect();
    note!("hermes: {}", shown.join("\n"));
}

/// Print an error: prefixed, except the one text the man page gives verbatim; a
/// closed stdout says nothing.
pub fn report(e: &Error) {
    match e {
        Error::BrokenPipe | Error::HelpWanted | Error::Silent(_) => {}
        e if e.is_verbatim() => note!("{e}"),
        e => notice(&e.to_string()),
    }
}

/// Print a warning: something was skipped or left, and the command goes on.
pub(crate) fn warn(text: &str) {
    notice(&format!("warning: {text}"));
}

/// Warn about a file in the sessions folder that is not a session file;
/// `outcome` says what became of it ("skipped", "left in place").
pub(crate) fn warn_not_a_session_file(path: &Path, why: &str, outcome: &str) {
    NOT_SESSION_FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    warn(&format!("{}; {outcome}", crate::error::not_a_session_file(path, why)));
}

static NOT_SESSION_FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many files this process has warned are not valid session files
/// (see `warn_not_a_session_file`): what a listing that shows none says.
pub(crate) fn not_session_files_warned() -> usize {
    NOT_SESSION_FILES.load(std::sync::atomic::Ordering::Relaxed)
}

/// `println!` that never panics: a closed or full stdout is not worth a
/// crash in the middle of a conversation. What it says (a title, a file's
/// name in it) goes through the gate, and on a terminal is wrapped at words.
macro_rules! say {
    () => {{ use std::io::Write as _; let _ = writeln!(std::io::stdout()); }};
    ($($arg:tt)*) => {
        $crate::output::said(1, format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics, even when stderr is a closed pipe; what
/// it says goes through the gate, and on a terminal is wrapped at words.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::output::said(2, format_args!($($arg)*))
    };
}

/// What `say!` (to stdout, 1) and `note!` (to stderr, 2) do: one copy of
/// it, not one at each of their hundred places.
#[inline(never)]
pub(crate) fn said(fd: i32, args: std::fmt::Arguments) {
    let said = std::fmt::format(args);
    let shown = crate::text::printable(&said, true);
    let line = fitted(fd, &shown);
    let _ = if fd == 1 { writeln!(io::stdout(), "{line}") } else { writeln!(io::stderr(), "{line}") };
}

pub(crate) use {note, say};

/// A line a view drew (`view::render_message`): every piece of it from
/// elsewhere through the gate already, hermes's own escape sequences and
/// its wrapping kept; a closed stdout is not worth a crash.
pub(crate) fn say_drawn(text: &str) {
    let _ = writeln!(io::stdout(), "{text}");
}

/// Where an export goes (a directory is refused rather than replaced;
/// `destination` decides). A regular file (or a new one) is replaced whole,
/// atomically; a device or pipe (`/dev/null`, a FIFO, `/dev/stdout` on a
/// terminal or pipe) is written into, never replaced. A symbolic link to
/// anything else is refused: hermes neither writes through it nor
/// replaces the link (a link planted where a file is expected must not
/// redirect an export, and a link of the user's must not vanish).
pub(crate) enum Destination {
    Replace(PathBuf),
    Stream(PathBuf),
}

pub(crate) fn destination(given: &Path) -> Result<Destination> {
    if given.is_dir() {
        return Err(Error::usage(format!("{} is a directory; give a file name", given.display())));
    }
    let path = if given.parent().is_some_and(|p| p.as_os_str().is_empty()) {
        Path::new(".").join(given)
    } else {
        given.to_path_buf()
    };
    let is_stream = |meta: &fs::Metadata| {
        let kind = meta.file_type();
        kind.is_char_device() || kind.is_fifo() || kind.is_socket() || kind.is_block_device()
    };
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::metadata(&path) {
            Ok(target) if is_stream(&target) => Ok(Destination::Stream(path)),
            _ => Err(Error::Refused(format!(
                "{} is a symbolic link; hermes neither writes through it nor replaces it: give the file \
                    itself",
                given.display()
            ))),
        },
        Ok(meta) if is_stream(&meta) => Ok(Destination::Stream(path)),
        _ => {
            // Otherwise the error would name the temporary file, which the
            // user never asked for.
            if let Some(dir) = path.parent().filter(|d| !d.is_dir()) {
                return Err(Error::NoDirectory { path: path.clone(), dir: dir.to_path_buf() });
            }
            Ok(Destination::Replace(path))
        }
    }
}

/// A file that is there is not replaced without being told to: `how`
/// says how to tell. A device or FIFO is written into, not replaced (see
/// `destination`), and a link is refused there.
pub(crate) fn refuse_existing(path: &Path, how: &str) -> Result<()> {
    if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file()) {
        return Err(Error::Refused(format!("{} exists; nothing was written ({how})", path.display())));
    }
    Ok(())
}

/// A device or pipe, opened to be written into (never created).
pub(crate) fn open_stream(path: &Path) -> Result<File> {
    fs::OpenOptions::new().write(true).open(path).map_err(|e| Error::io(path, e))
}

/// Write an export file (`/save` in chat): atomically with mode 0600, or
/// into a device or pipe (see `destination`).
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    match destination(path)? {
        Destination::Replace(path) => crate::fsio::write_atomic(&path, bytes),
        Destination::Stream(path) => {
            let mut stream = open_stream(&path)?;
            // A terminal (`/save /dev/tty`) sees the text through the gate.
            let shown;
            let bytes = if crate::sys::isatty(std::os::fd::AsRawFd::as_raw_fd(&stream)) {
                shown = crate::text::printable_bytes(bytes, true);
                shown.as_bytes()
            } else {
                bytes
            };
            stream.write_all(bytes).map_err(|e| Error::io(&path, e))
        }
    }
}
