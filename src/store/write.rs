//! Writing the store, the one write path: creating, replacing, appending
//! to and removing session files, each under the session's lock and the
//! catalog's lock, the catalog told of the change.

use std::fs;
use std::path::Path;

use super::catalog::{self, Catalog, DirStamp};
use super::format::{self, Fault};
use super::lock::Guard;
use super::scan::Check;
use super::session::{self, Header, Message, Session};
use super::{Each, MAX_SESSION_BYTES, Store, fault_error, gone, open_session, refuse_newer};
use crate::error::{Error, Result};
use crate::fsio;

impl Store {
    /// Write a brand-new session. The caller holds the store lock and has
    /// made sure the title is free.
    pub(crate) fn create(&self, header: &Header, messages: &[Message]) -> Result<()> {
        self.prepare()?;
        let path = self.session_path(&header.id).expect("generated IDs are valid");
        if fs::symlink_metadata(&path).is_ok() {
            return Err(Error::AlreadyExists(path));
        }
        self.put(&path, &format::encode(header, messages), Change::Put(header))
    }

    /// Write a whole session over its file. The caller holds its lock.
    pub(super) fn replace(&self, path: &Path, session: &Session) -> Result<()> {
        let out = format::encode(&session.header, &session.messages);
        if out.len() as u64 > MAX_SESSION_BYTES {
            return Err(too_large(&session.header.id));
        }
        self.put(path, &out, Change::Put(&session.header))
    }

    /// `create` from a header and its messages handed one at a time by
    /// `each`: one message in memory. The caller holds the store lock.
    pub(crate) fn create_each(&self, header: &Header, each: Each) -> Result<()> {
        self.prepare()?;
        let path = self.session_path(&header.id).expect("generated IDs are valid");
        if fs::symlink_metadata(&path).is_ok() {
            return Err(Error::AlreadyExists(path));
        }
        self.put_each(&path, header, each)
    }

    /// `replace` from a header and its messages handed one at a time by
    /// `each`: one message in memory. The caller holds the session's lock.
    pub(super) fn replace_each(&self, path: &Path, header: &Header, each: Each) -> Result<()> {
        self.put_each(path, header, each)
    }

    /// A place for session `id`'s messages written before its header,
    /// which they make (see `Body`).
    pub(crate) fn body(&self, id: &str) -> Result<Body> {
        let file = unlinked_temp(&self.home).map_err(|e| Error::io(&self.home, e))?;
        let out = std::io::BufWriter::with_capacity(256 << 10, file);
        Ok(Body { out, home: self.home.clone(), id: id.to_string(), count: 0, bytes: 0 })
    }

    /// Write a session over its file (`replace`) from its header and its
    /// messages written ahead into `body`, copied after the header. The
    /// caller holds its lock.
    pub(super) fn replace_with(&self, path: &Path, header: &Header, body: Body) -> Result<()> {
        let form = format::Form::File;
        let (head, tail) = (form.head(header), form.tail());
        if head.len() as u64 + body.bytes + tail.len() as u64 > MAX_SESSION_BYTES {
            return Err(too_large(&header.id));
        }
        let mut messages = body.out.into_inner().map_err(|e| Error::io(&self.home, e.into_error()))?;
        std::io::Seek::rewind(&mut messages).map_err(|e| Error::io(&self.home, e))?;
        let mut watch = self.watch_dir()?;
        let mut file = self.begin_session_write(path, &mut watch)?;
        let mut write = || -> std::io::Result<()> {
            std::io::Write::write_all(&mut file, head.as_bytes())?;
            std::io::copy(&mut messages, &mut file)?;
            std::io::Write::write_all(&mut file, tail.as_bytes())
        };
        write().map_err(|e| Error::io(path, e))?;
        self.commit_session_write(file, &mut watch, || {})?;
        watch.finish(self, Change::Put(header));
        Ok(())
    }

    /// `put` of a session's file form written as its messages come, the
    /// size limit counted on the way (the temporary goes if it is passed).
    fn put_each(&self, path: &Path, header: &Header, each: Each) -> Result<()> {
        let mut watch = self.watch_dir()?;
        let mut file = self.begin_session_write(path, &mut watch)?;
        let (form, mut written, mut at) = (format::Form::File, 0u64, 0u64);
        let mut write = |piece: &str| -> Result<()> {
            written += piece.len() as u64;
            if written > MAX_SESSION_BYTES {
                return Err(too_large(&header.id));
            }
            std::io::Write::write_all(&mut file, piece.as_bytes()).map_err(|e| Error::io(path, e))
        };
        write(&form.head(header))?;
        each(&mut |m| {
            write(form.separator(at))?;
            at += 1;
            write(&nanoserde::SerJson::serialize_json(m))
        })?;
        write(form.tail())?;
        self.commit_session_write(file, &mut watch, || {})?;
        watch.finish(self, Change::Put(header));
        Ok(())
    }

    /// Write `bytes` over a session's file, under the catalog's lock, and
    /// tell the catalog of `change`. The caller holds the session's lock.
    fn put(&self, path: &Path, bytes: &[u8], change: Change) -> Result<()> {
        let mut watch = self.watch_dir()?;
        let mut file = self.begin_session_write(path, &mut watch)?;
        std::io::Write::write_all(&mut file, bytes).map_err(|e| Error::io(path, e))?;
        self.commit_session_write(file, &mut watch, || {})?;
        watch.finish(self, change);
        Ok(())
    }

    /// Start a change to the sessions directory: the catalog lock, and
    /// whether the catalog describes the directory up to now.
    fn watch_dir(&self) -> Result<Watch<'_>> {
        let guard = self.lock_file()?.catalog()?;
        let state = catalog::State::read(&self.catalog_state_path())
            .filter(|s| DirStamp::of(&self.sessions_dir) == Some(s.dir));
        Ok(Watch { _guard: guard, state, after_temp: None, dir_after: None })
    }

    /// The temporary file of a session write, noting the directory right
    /// after it appeared.
    fn begin_session_write(&self, path: &Path, watch: &mut Watch) -> Result<fsio::AtomicFile> {
        let file = fsio::AtomicFile::create(path)?;
        watch.after_temp = watch.state.as_ref().and_then(|_| DirStamp::of(&self.sessions_dir));
        Ok(file)
    }

    /// Rename a session write into place, watching that nothing but this
    /// write changed the directory since its temporary file appeared (what
    /// changed meanwhile the catalog must not vouch for).
    fn commit_session_write(
        &self,
        file: fsio::AtomicFile,
        watch: &mut Watch,
        renamed: impl FnOnce(),
    ) -> Result<()> {
        let clean = std::cell::Cell::new(watch.state.is_some());
        let after_temp = watch.after_temp;
        file.commit_with(
            || clean.set(clean.get() && DirStamp::of(&self.sessions_dir) == after_temp),
            || {
                watch.dir_after = DirStamp::of(&self.sessions_dir).filter(|_| clean.get());
                renamed();
            },
        )
    }

    /// Append messages to a session under its lock, re-reading it first so
    /// that concurrent writers never lose each other's messages. `edit` may
    /// adjust the header (say, the title) in the same write. The file is
    /// streamed through bounded buffers into its replacement: memory does
    /// not grow with the session.
    pub(crate) fn append(
        &self,
        id: &str,
        messages: &[Message],
        edit: impl FnOnce(&mut Header),
    ) -> Result<Header> {
        // The catalog's bookkeeping, done at once.
        self.append_then(id, messages, edit, || {}).map(|(header, _later)| header)
    }

    /// `append`, calling `renamed` as soon as the new file is in place (its
    /// data synced, the directory not yet), and leaving the catalog's
    /// bookkeeping until the returned `CatalogUpdate` is dropped: a one-shot chat
    /// starts its agent in `renamed`, and gives the agent its input before
    /// the bookkeeping. The catalog lock is held until then.
    pub(crate) fn append_then(
        &self,
        id: &str,
        messages: &[Message],
        edit: impl FnOnce(&mut Header),
        renamed: impl FnOnce(),
    ) -> Result<(Header, CatalogUpdate<'_>)> {
        // The closures are passed on as `dyn`: one copy of the body below
        // (and of the streaming copy it calls) serves every caller, where
        // each closure type would otherwise get its own, some 3 KB each.
        let (mut edit, mut renamed) = (Some(edit), Some(renamed));
        self.append_dyn(id, messages, &mut |h| edit.take().map_or((), |f| f(h)), &mut || {
            renamed.take().map_or((), |f| f())
        })
    }

    fn append_dyn(
        &self,
        id: &str,
        messages: &[Message],
        edit: &mut dyn FnMut(&mut Header),
        renamed: &mut dyn FnMut(),
    ) -> Result<(Header, CatalogUpdate<'_>)> {
        let _guard = self.lock_session(id)?;
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let file = open_session(&path)?.ok_or_else(|| gone(id))?;
        let too_large = || {
            Error::TooLarge(format!(
                "session {id} would grow past {} MiB; start a new session",
                MAX_SESSION_BYTES >> 20
            ))
        };
        // Refuse before copying when the size alone says so.
        let adding: u64 = messages.iter().map(|m| m.content.len() as u64 + 2).sum();
        let size = file.metadata().map_err(|e| Error::io(&path, e))?.len();
        if size.saturating_add(adding) > MAX_SESSION_BYTES {
            return Err(too_large());
        }
        // A time from a clock that ran ahead counts as now (see
        // Header::activity); a message written now makes it now, so the
        // session no longer outranks every later one.
        let newest = messages.iter().map(|m| m.ts).fold(f64::NEG_INFINITY, f64::max);
        let mut watch = self.watch_dir()?;
        let mut out = self.begin_session_write(&path, &mut watch)?;
        let mut retitled = false;
        let edit = |h: &mut Header| {
            let before = h.title.clone();
            if !messages.is_empty() {
                h.updated_at = h.updated_at.min(crate::time::now()).max(newest);
            }
            edit(h);
            retitled = h.title != before;
        };
        let header = match format::append(file, &mut out, id, messages, edit, MAX_SESSION_BYTES) {
            Ok(header) => header,
            Err(Fault::TooLarge) => return Err(too_large()),
            Err(fault) => return Err(fault_error(&path, fault)),
        };
        self.commit_session_write(out, &mut watch, renamed)?;
        // A new title (rename, under the store lock) changes the catalog;
        // a new message only moves the session's activity.
        let change =
            if retitled { Noted::Put(Box::new(header.clone())) } else { Noted::Touch(id.to_string()) };
        Ok((header, CatalogUpdate { store: self, watch: Some(watch), change }))
    }

    /// Insert a message at `place` (a summary after the messages it
    /// covers), under the session's lock, streaming the file as `append`
    /// does. Ok(None) when the session changed since `place` was found
    /// (the message there is another): the file is left as it was.
    pub(crate) fn insert(&self, id: &str, place: format::Place, message: &Message) -> Result<Option<Header>> {
        let _guard = self.lock_session(id)?;
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let file = open_session(&path)?.ok_or_else(|| gone(id))?;
        let mut watch = self.watch_dir()?;
        let mut out = self.begin_session_write(&path, &mut watch)?;
        let header = match format::insert(file, &mut out, id, place, message, MAX_SESSION_BYTES) {
            Ok(Some(header)) => header,
            Ok(None) => return Ok(None),
            Err(Fault::TooLarge) => {
                return Err(Error::TooLarge(format!(
                    "session {id} would grow past {} MiB",
                    MAX_SESSION_BYTES >> 20
                )));
            }
            Err(fault) => return Err(fault_error(&path, fault)),
        };
        self.commit_session_write(out, &mut watch, || {})?;
        watch.finish(self, Change::Touch(id));
        Ok(Some(header))
    }

    /// Change a session's messages under its lock (the last ones, in
    /// practice: /retry drops an interrupted reply, an unanswered message
    /// takes in the next one). `edit` returns false to leave the file alone.
    pub(crate) fn edit_messages(
        &self,
        id: &str,
        edit: impl FnOnce(&mut Vec<Message>) -> bool,
    ) -> Result<Header> {
        // As `dyn`, for one copy of the body (see append_then).
        let mut edit = Some(edit);
        self.edit_messages_dyn(id, &mut |messages| edit.take().is_some_and(|f| f(messages)))
    }

    fn edit_messages_dyn(&self, id: &str, edit: &mut dyn FnMut(&mut Vec<Message>) -> bool) -> Result<Header> {
        let _guard = self.lock_session(id)?;
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let Session { mut header, mut messages } = self.load(id)?.ok_or_else(|| gone(id))?;
        refuse_newer(&path, &header)?;
        if !edit(&mut messages) {
            return Ok(header);
        }
        header.message_count = messages.len() as u64;
        header.usage = crate::store::session::usage_of(&messages);
        header.updated_at = messages.iter().map(|m| m.ts).fold(header.updated_at, f64::max);
        let out = format::encode(&header, &messages);
        if out.len() as u64 > MAX_SESSION_BYTES {
            return Err(Error::TooLarge(format!(
                "session {id} would grow past {} MiB; start a new session",
                MAX_SESSION_BYTES >> 20
            )));
        }
        // The title stays: only the session's activity may move.
        self.put(&path, &out, Change::Touch(id))?;
        Ok(header)
    }

    /// Rewrite a session's header only (rename), under its lock.
    pub(crate) fn update_header(&self, id: &str, edit: impl FnOnce(&mut Header)) -> Result<Header> {
        self.append(id, &[], edit)
    }

    /// Remove a session file. The caller holds the store lock.
    pub(crate) fn remove(&self, id: &str) -> Result<()> {
        let _guard = self.lock_session(id)?;
        self.remove_locked(id)
    }

    /// Remove a session file whose lock the caller holds (a second guard on
    /// the same byte would release the caller's when dropped).
    pub(super) fn remove_locked(&self, id: &str) -> Result<()> {
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let mut watch = self.watch_dir()?;
        let clean = watch.state.is_some();
        fsio::remove_with(&path, || watch.dir_after = DirStamp::of(&self.sessions_dir).filter(|_| clean))?;
        watch.finish(self, Change::Remove(id));
        Ok(())
    }

    /// Remove a session file if `doomed` holds for its header, read under
    /// the session's lock and kept until the file is gone: an append either
    /// finished before the check, which then sees it, or starts after the
    /// removal and finds no session. Ok(false) when kept or already gone.
    /// The caller holds the store lock.
    pub(crate) fn remove_if(&self, id: &str, doomed: impl FnOnce(&Header) -> bool) -> Result<bool> {
        let _guard = self.lock_session(id)?;
        let Some(path) = self.session_path(id) else {
            return Ok(false);
        };
        match self.header_checked(id, Check::Messages)? {
            Some(header) if doomed(&header) => {
                // Under the catalog's lock like every change, but not told
                // to it: prune removes many, and the next full pass rebuilds
                // the catalog once rather than each removal rewriting it.
                let _watch = self.watch_dir()?;
                fsio::remove(&path).map(|()| true)
            }
            _ => Ok(false),
        }
    }
}

/// A session's messages in the file form, written ahead of its header (a
/// mended session's: the header counts what they hold) to a temporary
/// file of the home, unlinked at once: one message in memory, and the
/// messages taken apart once.
pub(crate) struct Body {
    out: std::io::BufWriter<fs::File>,
    /// Where it is made, for what is said when writing it fails.
    home: std::path::PathBuf,
    id: String,
    count: u64,
    bytes: u64,
}

impl Body {
    pub(crate) fn push(&mut self, m: &Message) -> Result<()> {
        let form = format::Form::File;
        let (separator, message) = (form.separator(self.count), nanoserde::SerJson::serialize_json(m));
        self.bytes += (separator.len() + message.len()) as u64;
        if self.bytes > MAX_SESSION_BYTES {
            return Err(too_large(&self.id));
        }
        let mut write = |bytes: &[u8]| std::io::Write::write_all(&mut self.out, bytes);
        let written = write(separator.as_bytes()).and_then(|()| write(message.as_bytes()));
        written.map_err(|e| Error::io(&self.home, e))?;
        self.count += 1;
        Ok(())
    }
}

/// A private temporary file in `dir`, removed from it as soon as it is
/// made: only this process holds it, nothing is left however it ends.
fn unlinked_temp(dir: &Path) -> std::io::Result<fs::File> {
    loop {
        let path = dir.join(format!(".body.{}{}", fsio::random_hex(12), fsio::TEMP_SUFFIX));
        match fsio::create_new_private(&path) {
            Ok(_) => {
                let file = fs::OpenOptions::new().read(true).write(true).open(&path);
                let _ = fs::remove_file(&path);
                return file;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The error of a session that would grow past the size limit.
fn too_large(id: &str) -> Error {
    Error::TooLarge(format!("session {id} would grow past {} MiB", MAX_SESSION_BYTES >> 20))
}

/// A change to the sessions directory under way (see `Store::watch_dir`):
/// the catalog lock, and the catalog's state while it still holds.
struct Watch<'a> {
    _guard: Guard<'a>,
    state: Option<catalog::State>,
    /// The directory right after this write's temporary file appeared.
    after_temp: Option<DirStamp>,
    /// The directory right after the change, if nothing else changed it
    /// while this write was under way.
    dir_after: Option<DirStamp>,
}

/// The catalog's bookkeeping of an append (see `Store::append_then`),
/// done when this is dropped.
pub(crate) struct CatalogUpdate<'a> {
    store: &'a Store,
    watch: Option<Watch<'a>>,
    change: Noted,
}

/// What an append did, for the catalog.
enum Noted {
    /// Boxed: a header is large beside the other variant.
    Put(Box<Header>),
    Touch(String),
}

impl Drop for CatalogUpdate<'_> {
    fn drop(&mut self) {
        if let Some(watch) = self.watch.take() {
            watch.finish(
                self.store,
                match &self.change {
                    Noted::Put(header) => Change::Put(header),
                    Noted::Touch(id) => Change::Touch(id),
                },
            );
        }
    }
}

/// What a write did, for the catalog.
enum Change<'a> {
    /// A session written with this header (new, or retitled).
    Put(&'a Header),
    /// A session's activity moved.
    Touch(&'a str),
    Remove(&'a str),
}

impl Watch<'_> {
    /// Record the change in the catalog and the directory's new times,
    /// if the catalog held up to the change. Otherwise nothing: its state
    /// no longer matches the directory, so it is not believed.
    fn finish(self, store: &Store, change: Change) {
        let (Some(mut state), Some(after)) = (self.state, self.dir_after) else { return };
        if after.racy(crate::time::now()) {
            // Another change in this same coarse tick would go unseen.
            catalog::forget(&store.catalog_state_path());
            return;
        }
        state.dir = after;
        match change {
            Change::Touch(id) => {
                let key = session::id_key(id);
                if !state.journal.contains(&key) {
                    if state.journal.len() >= catalog::JOURNAL_MAX {
                        return;
                    }
                    state.journal.push(key);
                }
            }
            Change::Put(_) | Change::Remove(_) => {
                let Some(old) =
                    Catalog::open(&store.catalog_path()).filter(|c| c.generation == state.generation)
                else {
                    return;
                };
                let mut builder = catalog::Builder::default();
                if !builder.load(&old) {
                    return;
                }
                let id = match &change {
                    Change::Put(h) => h.id.as_str(),
                    Change::Remove(id) | Change::Touch(id) => id,
                };
                let key = session::id_key(id);
                builder.remove(|k| *k == key);
                if let Change::Put(header) = change {
                    builder.add_header(header);
                }
                state.journal.retain(|k| *k != key);
                state.generation = catalog::new_generation();
                if builder.write(&store.catalog_path(), state.generation).is_err() {
                    return;
                }
            }
        }
        let _ = state.write(&store.catalog_state_path());
    }
}
