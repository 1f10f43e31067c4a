//! `hermes sessions import`: sessions from `export --format jsonl`. Every
//! line is checked before anything is written; existing IDs are skipped,
//! never overwritten, even when the file there is damaged.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result, describe_io};
use crate::output;
use crate::store::fsio::Batch;
use crate::store::session::{self, FORMAT, Session};
use crate::store::{MAX_SESSION_BYTES, Store};

use super::Progress;

/// Files staged before each durable commit; bounds memory and lost work.
const COMMIT_EVERY: usize = 2000;

pub fn run(store: &Store, file: &OsStr) -> Result<()> {
    let name = Path::new(file).display().to_string();
    let mut input = open_input(file)?;
    // Pass 1: check every line, write nothing.
    let total = for_each_session(&mut input, &name, |_| Ok(()))?;
    input.rewind().map_err(|e| Error::Store(format!("{name}: {}", describe_io(&e))))?;

    store.prepare()?;
    let _guard = store.lock_store()?;
    // IDs as fixed-size keys and titles as hashes: 100,000 sessions fit in
    // a few MiB. A (vanishingly rare) title-hash collision only costs an
    // unneeded " (2)" suffix. An ID is taken by any file of its name, read
    // cleanly or not: a damaged file is never replaced.
    let mut ids: HashSet<[u8; 22]> = store.session_ids()?.into_iter().collect();
    let mut titles: HashSet<u64> = HashSet::new();
    let mut damaged: HashMap<[u8; 22], (PathBuf, String)> = HashMap::new();
    store.scan(|entry| match &entry.header {
        Ok(h) => {
            titles.insert(title_key(&h.title));
        }
        Err(why) => {
            damaged.insert(session::id_key(entry.id()), (entry.path(), why.clone()));
        }
    })?;
    let (mut imported, mut skipped, mut retitled) = (0usize, 0usize, 0usize);
    let mut progress = Progress::new("importing", total);
    let mut batch = Batch::new(store.sessions_dir());
    // Pass 2: write, in batches.
    for_each_session(&mut input, &name, |mut s| {
        progress.tick();
        let key = session::id_key(&s.header.id);
        if !ids.insert(key) {
            if let Some((path, why)) = damaged.remove(&key) {
                output::warn(&format!(
                    "{}: not a valid session file ({why}); left in place, so session {} was not imported",
                    path.display(),
                    s.header.id
                ));
            }
            skipped += 1;
            return Ok(());
        }
        // An import file is outside input like any typed title: the title
        // rules apply, so no escape sequence or bidi override reaches a
        // terminal through `list`. Too long is cut here, not refused.
        s.header.title = session::sanitize_title(&s.header.title)
            .map(|t| crate::text::truncate_words(&t, session::MAX_TITLE_CHARS))
            .unwrap_or_default();
        if !s.header.title.is_empty() && titles.contains(&title_key(&s.header.title)) {
            let base = s.header.title.clone();
            s.header.title = (2..)
                .map(|n| crate::store::titles::numbered(&base, n))
                .find(|t| !titles.contains(&title_key(t)))
                .expect("unbounded");
            retitled += 1;
        }
        titles.insert(title_key(&s.header.title));
        s.header.message_count = s.messages.len() as u64;
        let path = store.session_path(&s.header.id).expect("checked in pass 1");
        batch.add(&path, &session::encode(&s.header, &s.messages))?;
        imported += 1;
        if batch.len() >= COMMIT_EVERY {
            let existed = batch.commit()?;
            (imported, skipped) = (imported - existed, skipped + existed);
        }
        Ok(())
    })?;
    let existed = batch.commit()?;
    (imported, skipped) = (imported - existed, skipped + existed);
    drop(progress);
    crate::note!(
        "imported {imported} session{}, skipped {skipped} that already existed{}",
        if imported == 1 { "" } else { "s" },
        if retitled > 0 { format!(", renamed {retitled} whose title was taken") } else { String::new() }
    );
    Ok(())
}

fn title_key(title: &str) -> u64 {
    let mut h = DefaultHasher::new();
    title.hash(&mut h);
    h.finish()
}

/// A file is read twice (check, then write); stdin is first copied to an
/// unnamed temporary file so it can be too.
fn open_input(file: &OsStr) -> Result<File> {
    if file == "-" {
        let mut spool = tempfile_in_tmp()?;
        std::io::copy(&mut std::io::stdin().lock(), &mut spool)
            .map_err(|e| Error::Store(format!("reading stdin: {}", describe_io(&e))))?;
        return Ok(spool);
    }
    let path = Path::new(file);
    File::open(path).map_err(|e| Error::io(path, e))
}

fn tempfile_in_tmp() -> Result<File> {
    let dir = std::env::temp_dir();
    loop {
        let path = dir.join(format!("hermes-import.{}", crate::store::fsio::random_hex(12)));
        match crate::store::fsio::create_new_private(&path) {
            Ok(_) => {
                let file = std::fs::OpenOptions::new().read(true).write(true).open(&path);
                let _ = std::fs::remove_file(&path);
                return file.map_err(|e| Error::io(&path, e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
}

/// Decode each non-empty line as a session and hand it to `each`; the first
/// bad line is an error naming its number, before `each` sees anything in
/// pass 1. Returns how many sessions there were.
fn for_each_session(
    input: &mut File,
    name: &str,
    mut each: impl FnMut(Session) -> Result<()>,
) -> Result<usize> {
    let mut reader = BufReader::new(Read::by_ref(input));
    let mut line = Vec::new();
    let mut line_no = 0usize;
    let mut count = 0usize;
    loop {
        line.clear();
        let n = Read::by_ref(&mut reader)
            .take(MAX_SESSION_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::Store(format!("{name}: {}", describe_io(&e))))?;
        if n == 0 {
            return Ok(count);
        }
        line_no += 1;
        let bad = |why: String| Error::Store(format!("{name}:{line_no}: {why}; nothing was imported"));
        if line.len() as u64 > MAX_SESSION_BYTES {
            return Err(bad(format!("line longer than {} MiB", MAX_SESSION_BYTES >> 20)));
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if line_no == 1 && line.trim_ascii_start().starts_with(b"[") {
            return Err(bad("this looks like 'export --format json'; import reads --format jsonl".into()));
        }
        let session =
            session::decode(line.trim_ascii()).map_err(|why| bad(format!("not a session ({why})")))?;
        if !session::is_valid_id(&session.header.id) {
            return Err(bad(format!("invalid session id '{}'", session.header.id)));
        }
        if session.header.format > FORMAT {
            return Err(bad(format!(
                "session format {} is newer than this hermes understands",
                session.header.format
            )));
        }
        count += 1;
        each(session)?;
    }
}
