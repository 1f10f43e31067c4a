//! `hermes sessions import`: sessions from `export --format jsonl`. All
//! lines are checked before anything is written; existing IDs are skipped.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::session::{self, FORMAT, Session};
use crate::store::Store;

use super::Progress;

/// An import file may hold many sessions, but not more than this.
const MAX_IMPORT_BYTES: u64 = 4 << 30;

pub fn run(store: &Store, file: &OsStr) -> Result<()> {
    let bytes = read_input(file)?;
    let sessions = parse_lines(file, &bytes)?;
    let _guard = store.lock_store()?;
    let mut ids = HashSet::new();
    let mut titles = HashSet::new();
    store.scan(|entry| {
        if let Ok(h) = entry.header {
            ids.insert(h.id);
            titles.insert(h.title);
        }
    })?;
    let (mut imported, mut skipped, mut retitled) = (0, 0, 0);
    let mut progress = Progress::new("importing", sessions.len());
    for mut s in sessions {
        progress.tick();
        if !ids.insert(s.header.id.clone()) {
            skipped += 1;
            continue;
        }
        if !s.header.title.is_empty() && titles.contains(&s.header.title) {
            // Titles stay unique: an imported duplicate gets a suffix.
            let base = s.header.title.clone();
            s.header.title = (2..)
                .map(|n| format!("{base} ({n})"))
                .find(|t| !titles.contains(t))
                .expect("unbounded");
            retitled += 1;
        }
        titles.insert(s.header.title.clone());
        s.header.message_count = s.messages.len() as u64;
        store.create(&s.header, &s.messages)?;
        imported += 1;
    }
    drop(progress);
    crate::note!(
        "imported {imported} session{}, skipped {skipped} that already existed{}",
        if imported == 1 { "" } else { "s" },
        if retitled > 0 {
            format!(", renamed {retitled} whose title was taken")
        } else {
            String::new()
        }
    );
    Ok(())
}

fn read_input(file: &OsStr) -> Result<Vec<u8>> {
    if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_IMPORT_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Store(format!("reading stdin: {e}")))?;
        return Ok(bytes);
    }
    let path = Path::new(file);
    std::fs::File::open(path)
        .and_then(|f| {
            let mut bytes = Vec::new();
            f.take(MAX_IMPORT_BYTES).read_to_end(&mut bytes)?;
            Ok(bytes)
        })
        .map_err(|e| Error::io(path, e))
}

/// Every non-empty line must be a valid session of a format this hermes
/// writes; the first bad one stops the import before anything is written.
fn parse_lines(file: &OsStr, bytes: &[u8]) -> Result<Vec<Session>> {
    let name = Path::new(file).display().to_string();
    let mut sessions = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = n + 1;
        let bad =
            |why: String| Error::Store(format!("{name}:{line_no}: {why}; nothing was imported"));
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line_no == 1 && line.trim_ascii_start().starts_with(b"[") {
            return Err(bad(
                "this looks like 'export --format json'; import reads --format jsonl".into(),
            ));
        }
        let session = session::decode(line).map_err(|why| bad(format!("not a session ({why})")))?;
        if !session::is_valid_id(&session.header.id) {
            return Err(bad(format!("invalid session id '{}'", session.header.id)));
        }
        if session.header.format > FORMAT {
            return Err(bad(format!(
                "session format {} is newer than this hermes understands",
                session.header.format
            )));
        }
        sessions.push(session);
    }
    Ok(sessions)
}
