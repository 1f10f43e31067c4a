//! `hermes sessions export`: sessions as a JSON array, JSON lines (what
//! `import` reads) or Markdown, to stdout or atomically to a file.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{BufWriter, Write as _};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use crate::cli::ExportFormat;
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::{self, Out};
use crate::resolve;
use crate::session::{self, Session};
use crate::store::Store;
use crate::timefmt;

use super::Progress;

pub fn run(store: &Store, names: &[String], format: ExportFormat, output_file: Option<&OsStr>) -> Result<()> {
    // Every session in ID order (IDs begin with their creation time), so
    // exports are stable and an export/import/export round trip is identical.
    let ids: Vec<[u8; 22]> = if names.is_empty() { store.session_ids()? } else { named_ids(store, names)? };
    let mut damaged = 0;
    // One session in memory at a time, written out as it is read, so an
    // export of the whole store needs no more memory than its largest session.
    let mut sink = match output_file {
        Some(path) if path != "-" => match destination(Path::new(path))? {
            Destination::Replace(path) => Sink::File(fsio::AtomicFile::create(&path)?),
            Destination::Stream(path) => Sink::Stream(path.clone(), BufWriter::new(open_stream(&path)?)),
        },
        _ => Sink::Stdout(Out::new()),
    };
    let mut progress = Progress::new("exporting", ids.len());
    let mut first = true;
    if format == ExportFormat::Json {
        sink.write("[")?;
    }
    for key in &ids {
        progress.tick();
        let id = std::str::from_utf8(key).expect("IDs are ASCII");
        let session = match store.load(id) {
            Ok(Some(session)) => session,
            Ok(None) => continue, // deleted meanwhile
            // Exporting everything is a backup: one damaged file must not
            // stop the rest. It is named, counted, and fails the command.
            Err(Error::Corrupt { path, why }) if names.is_empty() => {
                output::warn(&format!("{}: not a valid session file ({why}); not exported", path.display()));
                damaged += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        let text = match format {
            ExportFormat::Json => {
                format!(
                    "{}{}",
                    if first { "\n" } else { ",\n" },
                    session::encode_line(&session.header, &session.messages)
                )
            }
            ExportFormat::Jsonl => format!("{}\n", session::encode_line(&session.header, &session.messages)),
            ExportFormat::Markdown => {
                format!("{}{}", if first { "" } else { "\n---\n\n" }, markdown_one(&session))
            }
        };
        sink.write(&text)?;
        first = false;
    }
    if format == ExportFormat::Json {
        sink.write(if first { "]\n" } else { "\n]\n" })?;
    }
    drop(progress);
    sink.finish()?;
    if damaged > 0 {
        // The export is written, but a backup script must not take it for
        // a complete one.
        return Err(Error::Store(format!(
            "{} could not be exported (see the warnings above); the export holds the rest",
            output::counted(damaged, "damaged session")
        )));
    }
    Ok(())
}

enum Sink {
    Stdout(Out),
    File(fsio::AtomicFile),
    /// A device or pipe (`/dev/stdout`, a FIFO): written as it is.
    Stream(PathBuf, BufWriter<File>),
}

impl Sink {
    fn write(&mut self, text: &str) -> Result<()> {
        match self {
            Sink::Stdout(out) => out.write(text),
            Sink::File(file) => file
                .write_all(text.as_bytes())
                .map_err(|e| Error::Store(format!("writing the export: {}", crate::error::describe_io(&e)))),
            Sink::Stream(path, out) => out.write_all(text.as_bytes()).map_err(|e| Error::io(path, e)),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::File(file) => file.commit(),
            Sink::Stream(path, mut out) => out.flush().map_err(|e| Error::io(&path, e)),
        }
    }
}

/// The named sessions' IDs, in the order named, each once.
fn named_ids(store: &Store, names: &[String]) -> Result<Vec<[u8; 22]>> {
    let mut ids = Vec::new();
    for name in names {
        let header = resolve::find_by_name(store, name)?;
        let key = session::id_key(&header.id);
        if !ids.contains(&key) {
            ids.push(key);
        }
    }
    Ok(ids)
}

/// Sessions as one Markdown document.
pub fn markdown(sessions: &[Session]) -> String {
    sessions.iter().map(markdown_one).collect::<Vec<_>>().join("\n---\n\n")
}

fn markdown_one(session: &Session) -> String {
    let h = &session.header;
    let mut text = format!(
        "# {}\n\n- id: `{}`\n- created: {}\n- last active: {}\n- messages: {}\n",
        if h.title.is_empty() { "(untitled)" } else { &h.title },
        h.id,
        timefmt::local_seconds(h.created_at),
        timefmt::local_seconds(h.updated_at),
        h.message_count
    );
    for m in &session.messages {
        text.push_str(&format!("\n## {} ({})\n\n{}\n", m.role, timefmt::local_seconds(m.ts), m.content));
    }
    text
}

/// A path an export can be written to: a name in the current directory is
/// `./name`, and a directory is refused rather than replaced.
/// Where an export goes. A regular file (or a new one) is replaced whole,
/// atomically; a device or pipe (`/dev/null`, a FIFO, `/dev/stdout` on a
/// terminal or pipe) is written into, never replaced. A symbolic link to
/// anything else is refused: hermes neither writes through it nor
/// replaces the link (a link planted where a file is expected must not
/// redirect an export, and a link of the user's must not vanish).
enum Destination {
    Replace(PathBuf),
    Stream(PathBuf),
}

fn destination(given: &Path) -> Result<Destination> {
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
                "{} is a symbolic link; hermes neither writes through it nor replaces it: give the file itself",
                given.display()
            ))),
        },
        Ok(meta) if is_stream(&meta) => Ok(Destination::Stream(path)),
        _ => {
            // Otherwise the error would name the temporary file, which the
            // user never asked for.
            if let Some(dir) = path.parent().filter(|d| !d.is_dir()) {
                return Err(Error::Store(format!(
                    "cannot write {}: no directory {}",
                    path.display(),
                    dir.display()
                )));
            }
            Ok(Destination::Replace(path))
        }
    }
}

/// A device or pipe, opened to be written into (never created).
fn open_stream(path: &Path) -> Result<File> {
    fs::OpenOptions::new().write(true).open(path).map_err(|e| Error::io(path, e))
}

/// Write an export file (`/save` in chat): atomically with mode 0600, or
/// into a device or pipe (see `destination`).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    match destination(path)? {
        Destination::Replace(path) => fsio::write_atomic(&path, bytes),
        Destination::Stream(path) => open_stream(&path)?.write_all(bytes).map_err(|e| Error::io(&path, e)),
    }
}
