//! `hermes sessions export`: sessions as a JSON array, JSON lines (what
//! `import` reads) or Markdown, to stdout or atomically to a file.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use nanoserde::SerJson;

use crate::args::{Access, Arg, Kind, Run, Spec, Value, man, option, switch};
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::{Destination, Out, destination, open_stream};
use crate::resolve;
use crate::store::{Messages, Store};
use crate::store::{format, session};
use crate::view::{MARKDOWN_BETWEEN, markdown_each};

use super::Progress;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ExportFormat {
    Json,
    Jsonl,
    Markdown,
}

impl FromStr for ExportFormat {
    type Err = Error;

    fn from_str(name: &str) -> Result<ExportFormat> {
        match name {
            "json" => Ok(ExportFormat::Json),
            "jsonl" => Ok(ExportFormat::Jsonl),
            "markdown" | "md" => Ok(ExportFormat::Markdown),
            _ => Err(Error::usage(format!("--format must be json, jsonl or markdown, not '{name}'"))),
        }
    }
}

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// None means every session.
    pub(crate) names: Vec<String>,
    pub(crate) format: ExportFormat,
    /// None (or `-`) means stdout.
    pub(crate) output: Option<OsString>,
    /// `--force`: `-o FILE` may replace a file that is there.
    pub(crate) force: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions export",
    alias: None,
    summary: "export some or all sessions",
    about: "\
Export the named sessions, or all of them when none is named. A damaged
session is skipped with a warning, and the exit status is then 4.

{options}
",
    man: man(r#"
export the named sessions, or all of them when none is named.
A damaged session is skipped with a warning, and the exit status is then 4.
To a terminal (stdout, or an
.B \-o
device that is one), what is written goes through the gate (see
.BR SECURITY );
to a pipe or a file it is the sessions' text byte for byte.
"#),
    options: &[
        option(
            "-f",
            "--format",
            Value::words(&["json", "jsonl", "markdown"]),
            "json (an array, default), \
            jsonl (one session a line, for import) or markdown",
        )
        .man(
            r#"
.B json
(an array, default),
.B jsonl
(one session a line, for import) or
.B markdown
"#,
        )
        .takes(|a, v| {
            a.format = v.lossy().parse()?;
            Ok(())
        }),
        option(
            "-o",
            "--output",
            Value::new("FILE", Kind::File),
            "write to FILE (atomically, mode 0600) \
            instead of stdout; a device or FIFO is written into, a symlink refused; a FILE that is there is \
                not replaced",
        )
        .man(
            r#"
write to
.I FILE
(atomically, mode 0600) instead of stdout;
a device or FIFO is written into, a symlink refused;
a FILE that is there is not replaced
(exit 2: hermes neither writes through a symbolic link nor replaces
it; nor an existing file, unless
.B \-\-force
is given).
The same holds for
.B /save
(and
.BR /save! ).
"#,
        )
        .takes(|a, v| {
            let file = v.os();
            if file.is_empty() {
                return Err(Error::usage("-o/--output wants a file name"));
            }
            a.output = Some(file);
            Ok(())
        }),
        switch("", "--force", "replace the -o FILE if it is there")
            .man(
                r#"
replace the
.B \-o
.I FILE
if it is there
"#,
            )
            .sets(|a| a.force = true),
    ],
    args: &[Arg::optional("NAME|ID", Kind::Session).many().takes(|a, v| {
        a.names.push(v.lossy());
        Ok(())
    })],
    start: || Args { names: Vec::new(), format: ExportFormat::Json, output: None, force: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        match &self.output {
            Some(file) if file != "-" => Access::ReadsToFile,
            _ => Access::Reads,
        }
    }
    /// To stdout (a terminal's, paged); never into a file.
    fn paged(&self) -> bool {
        self.access() == Access::Reads
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { names, format, output, force } = args;
    let names = &names;
    let output_file = output.as_deref();
    // Every session in ID order (IDs begin with their creation time), so
    // exports are stable and an export/import/export round trip is identical.
    let ids: Vec<[u8; 22]> = if names.is_empty() { store.session_ids()? } else { named_ids(store, names)? };
    let mut damaged = 0;
    // One session in memory at a time, written out as it is read, so an
    // export of the whole store needs no more memory than its largest session.
    let mut sink = match output_file {
        Some(path) if path != "-" => match destination(Path::new(path))? {
            Destination::Replace(path) => {
                if !force {
                    crate::output::refuse_existing(&path, "add --force to replace it")?;
                }
                Sink::File(fsio::AtomicFile::create(&path)?)
            }
            Destination::Stream(path) => {
                let stream = open_stream(&path)?;
                let terminal = crate::sys::isatty(std::os::fd::AsRawFd::as_raw_fd(&stream));
                Sink::Stream { path, terminal, out: BufWriter::new(stream) }
            }
        },
        _ => Sink::Stdout(Out::new()),
    };
    let mut progress = Progress::new("exporting", ids.len());
    let mut first = true;
    if format == ExportFormat::Json {
        sink.write("[")?;
    }
    for key in &ids {
        if crate::sys::write_aborted() {
            return Err(crate::error::Error::Interrupted); // the temporary goes with the sink
        }
        progress.tick();
        let id = std::str::from_utf8(key).expect("IDs are ASCII");
        // Every message checked before the first is written: a damaged
        // session is left out whole, never cut off in the export.
        let mut messages = match store.whole(id) {
            Ok(Some(messages)) => messages,
            Ok(None) => continue, // deleted meanwhile
            // Exporting everything is a backup: one damaged file must not
            // stop the rest. It is named, counted, and fails the command.
            Err(Error::Corrupt { path, why } | Error::DamagedSession { path, why, .. })
                if names.is_empty() =>
            {
                crate::output::warn_not_a_session_file(&path, &why, "not exported");
                damaged += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        match format {
            ExportFormat::Json | ExportFormat::Jsonl => {
                if format == ExportFormat::Json {
                    sink.write(if first { "\n" } else { ",\n" })?;
                }
                write_line(&mut sink, &mut messages)?;
                if format == ExportFormat::Jsonl {
                    sink.write("\n")?;
                }
            }
            ExportFormat::Markdown => {
                if !first {
                    sink.write(MARKDOWN_BETWEEN)?;
                }
                let header = messages.header().clone();
                markdown_each(&header, &mut || messages.next(), &mut |piece| sink.write(piece))?;
            }
        }
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
        return Err(Error::ExportIncomplete { damaged });
    }
    Ok(())
}

/// A session in the one-line form (`format::encode_line`), a message at a
/// time.
fn write_line(sink: &mut Sink, messages: &mut Messages) -> Result<()> {
    let form = format::Form::Line;
    sink.write(&form.head(messages.header()))?;
    let mut at = 0;
    while let Some(m) = messages.next()? {
        sink.write(form.separator(at))?;
        sink.write(&m.serialize_json())?;
        at += 1;
    }
    sink.write(form.tail())
}

/// Where the export goes: byte for byte, except to a terminal (stdout, or
/// a device that is one), where it goes through the gate: an OSC 52 or
/// ESC [6n in a message must not reach it.
enum Sink {
    Stdout(Out),
    File(fsio::AtomicFile),
    /// A device or pipe (`/dev/stdout`, a FIFO): written as it is.
    Stream {
        path: PathBuf,
        terminal: bool,
        out: BufWriter<File>,
    },
}

impl Sink {
    fn write(&mut self, text: &str) -> Result<()> {
        match self {
            Sink::Stdout(out) => out.data(text),
            Sink::File(file) => file.write_all(text.as_bytes()).map_err(|e| Error::io(file.target(), e)),
            Sink::Stream { path, terminal, out } => {
                let text = if *terminal { crate::text::printable(text, true) } else { text.into() };
                out.write_all(text.as_bytes()).map_err(|e| Error::io(path, e))
            }
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::File(file) => file.commit(),
            Sink::Stream { path, mut out, .. } => out.flush().map_err(|e| Error::io(&path, e)),
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
