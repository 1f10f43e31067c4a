//! What was typed at the prompt of any session, for Ctrl-R in every
//! other: `$HERMES_HOME/history`, one JSON object a line
//! (`{"ts":...,"session":"ID","title":"...","text":"..."}`), oldest first.
//! Private (0600, from its creation) and bounded: a message over
//! `MAX_TEXT` is not kept in it, and once the file passes `MAX_BYTES` it
//! is written anew with its newest lines, at most `MAX_ENTRIES` and half
//! those bytes. Several terminals may type at once: each line is added by
//! one write(2) with O_APPEND under the history's lock (a byte of
//! `.lock`, which is never renamed), and the rewrite, an atomic replace,
//! holds the same lock, so no line another terminal adds is lost to it.
//! Readers take no lock: they see the old file or the new one, and leave
//! out a line that does not read (one being added, one a crash cut).

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;

use nanoserde::{DeJson, SerJson};

use super::Store;
use super::json;
use crate::error::{Error, Result};
use crate::fsio;

/// The most messages kept, newest last.
pub(crate) const MAX_ENTRIES: usize = 1000;
/// Past this the file is written anew with its newest lines.
pub(crate) const MAX_BYTES: u64 = 1 << 20;
/// A message longer than this (a paste) is not kept in the history.
pub(crate) const MAX_TEXT: usize = 64 << 10;

/// A message typed at the prompt, and the session it went to.
#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Typed {
    pub ts: f64,
    pub session: String,
    pub title: String,
    pub text: String,
}

impl Store {
    pub(crate) fn history_path(&self) -> PathBuf {
        self.home().join("history")
    }

    /// Add `typed` to the history, and cut the file down to its newest
    /// lines once it passes `MAX_BYTES`.
    pub(crate) fn remember_typed(&self, typed: &Typed) -> Result<()> {
        if typed.text.len() > MAX_TEXT || typed.text.trim().is_empty() {
            return Ok(());
        }
        let path = self.history_path();
        let line = format!("{}\n", typed.serialize_json());
        let locks = self.lock_file()?;
        let _held = locks.history()?;
        let mut file = crate::sys::with_private_umask(|| {
            OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(&path)
        })
        .map_err(|e| Error::io(&path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(&path, e))?;
        if !meta.is_file() {
            return Err(Error::io(&path, std::io::Error::other("not a regular file")));
        }
        // A line a crash cut short is ended first, so that it spoils no other.
        let mut last = [0u8; 1];
        let ended =
            meta.len() == 0 || file.read_at(&mut last, meta.len() - 1).is_ok_and(|_| last[0] == b'\n');
        let bytes = if ended { line } else { format!("\n{line}") };
        file.write_all(bytes.as_bytes()).map_err(|e| Error::io(&path, e))?;
        if meta.len() + bytes.len() as u64 > MAX_BYTES {
            let kept = newest(&read_lines(&path)?, MAX_ENTRIES, (MAX_BYTES / 2) as usize);
            fsio::write_atomic(&path, kept.as_bytes())?;
        }
        Ok(())
    }

    /// The history, oldest first: its newest `MAX_ENTRIES` messages that
    /// read. None there yet, or one that cannot be read, is an empty one.
    pub(crate) fn typed_history(&self) -> Vec<Typed> {
        let Ok(text) = read_lines(&self.history_path()) else { return Vec::new() };
        let mut all: Vec<Typed> = text.lines().filter_map(|line| json::parse(line.as_bytes()).ok()).collect();
        let extra = all.len().saturating_sub(MAX_ENTRIES);
        all.drain(..extra);
        all
    }

    /// What tells the history changed (its size and time), to read it
    /// again only then.
    pub(crate) fn history_stamp(&self) -> Option<(u64, std::time::SystemTime)> {
        let meta = std::fs::symlink_metadata(self.history_path()).ok()?;
        Some((meta.len(), meta.modified().ok()?))
    }
}

/// The file's lines, at most its last `MAX_BYTES` and a message's more:
/// what a rewrite left, and what was added since.
fn read_lines(path: &std::path::Path) -> Result<String> {
    let (mut file, meta) = fsio::open_regular(path).map_err(|e| Error::io(path, e))?;
    let limit = MAX_BYTES + 2 * MAX_TEXT as u64;
    let from = meta.len().saturating_sub(limit);
    file.seek(SeekFrom::Start(from)).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Started inside a line: not that one.
    Ok(match (from > 0, text.find('\n')) {
        (true, Some(end)) => text[end + 1..].to_string(),
        _ => text,
    })
}

/// The newest of `lines` (those that read), at most `count` of them and
/// `bytes` in all, as the file holds them.
fn newest(lines: &str, count: usize, bytes: usize) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0;
    for line in lines.lines().rev().filter(|line| json::parse::<Typed>(line.as_bytes()).is_ok()) {
        if kept.len() == count || size + line.len() + 1 > bytes {
            break;
        }
        size += line.len() + 1;
        kept.push(line);
    }
    kept.iter().rev().map(|line| format!("{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(i: usize, text: &str) -> Typed {
        Typed { ts: i as f64, session: "20260101_000000_aaaaaa".into(), title: "t".into(), text: text.into() }
    }

    #[test]
    fn a_line_reads_back_whatever_the_text_holds() {
        let t = typed(1, "a \"quote\", a \\ and an escape \u{1b}]0;x\u{7} and\nlines");
        let line = t.serialize_json();
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert_eq!(json::parse::<Typed>(line.as_bytes()).unwrap(), t);
    }

    #[test]
    fn the_newest_are_kept_within_the_count_and_the_bytes_and_bad_lines_dropped() {
        let lines: String =
            (0..10).map(|i| format!("{}\n", typed(i, &format!("message {i}")).serialize_json())).collect();
        let lines = format!("not json\n{lines}{{\"ts\":1,\"sess");
        let kept = newest(&lines, 3, usize::MAX);
        let texts: Vec<String> =
            kept.lines().map(|l| json::parse::<Typed>(l.as_bytes()).unwrap().text).collect();
        assert_eq!(texts, ["message 7", "message 8", "message 9"]);
        let one = typed(9, "message 9").serialize_json().len() + 1;
        assert_eq!(newest(&lines, 100, 2 * one).lines().count(), 2);
    }
}
