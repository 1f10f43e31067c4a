//! `hermes sessions export`: sessions as a JSON array, JSON lines (what
//! `import` reads) or Markdown, to stdout or atomically to a file.

use std::ffi::OsStr;
use std::path::Path;

use crate::cli::ExportFormat;
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::{self, Out};
use crate::resolve;
use crate::session::{self, Session};
use crate::store::Store;
use crate::timefmt;

use super::Progress;

pub fn run(
    store: &Store,
    names: &[String],
    format: ExportFormat,
    output_file: Option<&OsStr>,
) -> Result<()> {
    let ids = if names.is_empty() {
        all_ids(store)?
    } else {
        named_ids(store, names)?
    };
    let mut progress = Progress::new("exporting", ids.len());
    let mut text = String::new();
    let mut first = true;
    if format == ExportFormat::Json {
        text.push('[');
    }
    for id in &ids {
        progress.tick();
        let Some(session) = store.load(id)? else {
            continue;
        }; // deleted meanwhile
        match format {
            ExportFormat::Json => {
                text.push_str(if first { "\n" } else { ",\n" });
                text.push_str(&session::encode_line(&session.header, &session.messages));
            }
            ExportFormat::Jsonl => {
                text.push_str(&session::encode_line(&session.header, &session.messages));
                text.push('\n');
            }
            ExportFormat::Markdown => {
                if !first {
                    text.push_str("\n---\n\n");
                }
                text.push_str(&markdown_one(&session));
            }
        }
        first = false;
        // Write as we go to stdout so memory stays flat for large exports.
        if output_file.is_none() && text.len() > 1 << 20 {
            emit(&std::mem::take(&mut text))?;
        }
    }
    if format == ExportFormat::Json {
        text.push_str(if first { "]\n" } else { "\n]\n" });
    }
    drop(progress);
    match output_file {
        Some(path) if path != "-" => write_file(Path::new(path), text.as_bytes()),
        _ => emit(&text),
    }
}

fn emit(text: &str) -> Result<()> {
    let mut out = Out::new();
    out.write(text)?;
    out.flush()
}

/// Every session ID, oldest first (IDs begin with their creation time), so
/// exports are stable and an export/import/export round trip is identical.
fn all_ids(store: &Store) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    store.scan(|entry| match entry.header {
        Ok(h) => ids.push(h.id),
        Err(why) => output::warn(&format!(
            "{}: not a valid session file ({why}); not exported",
            entry.path.display()
        )),
    })?;
    ids.sort();
    Ok(ids)
}

fn named_ids(store: &Store, names: &[String]) -> Result<Vec<String>> {
    let mut ids: Vec<String> = Vec::new();
    for name in names {
        let id = resolve::find_by_name(store, name)?.id;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Sessions as one Markdown document.
pub fn markdown(sessions: &[Session]) -> String {
    sessions
        .iter()
        .map(markdown_one)
        .collect::<Vec<_>>()
        .join("\n---\n\n")
}

fn markdown_one(session: &Session) -> String {
    let h = &session.header;
    let mut text = format!(
        "# {}\n\n- id: `{}`\n- created: {}\n- last active: {}\n- messages: {}\n",
        if h.title.is_empty() {
            "(untitled)"
        } else {
            &h.title
        },
        h.id,
        timefmt::local_seconds(h.created_at),
        timefmt::local_seconds(h.updated_at),
        h.message_count
    );
    for m in &session.messages {
        text.push_str(&format!(
            "\n## {} ({})\n\n{}\n",
            m.role,
            timefmt::local_seconds(m.ts),
            m.content
        ));
    }
    text
}

/// Write an export file atomically with mode 0600.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let path = if path.parent().is_some_and(|p| p.as_os_str().is_empty()) {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    if path.is_dir() {
        return Err(Error::usage(format!(
            "{} is a directory; give a file name",
            path.display()
        )));
    }
    // Otherwise the error would name the temporary file, which the user
    // never asked for.
    if let Some(dir) = path.parent().filter(|d| !d.is_dir()) {
        return Err(Error::Store(format!(
            "cannot write {}: no directory {}",
            path.display(),
            dir.display()
        )));
    }
    fsio::write_atomic(&path, bytes)
}
