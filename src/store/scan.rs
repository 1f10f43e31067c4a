//! Reading the store: the session IDs, every header in one pass (through
//! the header index, the catalog rebuilt on the way), the catalog's
//! activity order and titles, one session's header, file or messages.

use std::fs;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::catalog::{self, Catalog, DirStamp};
use super::format::{self, Fault};
use super::lock::LockFile;
use super::session::{self, FORMAT, Header, Message, Session};
use super::{MAX_SESSION_BYTES, Store, context, fault_error, gone, index, merge, open_session};
use crate::error::{Error, Result};
use crate::fsio;

/// One entry of a scan: a session file and its header, or why it has none.
pub(crate) struct Scanned<'a> {
    dir: &'a Path,
    id: &'a str,
    /// The file's size, when the scan learned it.
    pub(crate) size: Option<u64>,
    pub(crate) header: std::result::Result<Header, String>,
    /// When `header` is Err because a message is damaged: the header,
    /// which still names the session (its title is taken, and finds it).
    pub(crate) damaged_header: Option<Header>,
    /// What its messages hold, when the scan knows (every message read,
    /// or the index vouches for the file).
    pub(crate) measure: Option<context::Measure>,
    /// The file's stamp, when the scan learned it.
    pub(crate) stamp: Option<index::Stamp>,
}

impl Scanned<'_> {
    /// The session's ID, from its file name.
    pub(crate) fn id(&self) -> &str {
        self.id
    }

    /// The header that names the session: its own, or that of a file
    /// whose messages are damaged (see `damaged_header`).
    pub(crate) fn named(self) -> Option<Header> {
        self.header.ok().or(self.damaged_header)
    }

    /// The session file (built only when asked: scans visit every session).
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.id))
    }
}

impl Store {
    /// IDs of all session files (names of the ID shape only), sorted.
    pub(crate) fn session_ids(&self) -> Result<Vec<[u8; 22]>> {
        let entries = match fs::read_dir(&self.sessions_dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&self.sessions_dir, e)),
        };
        let mut ids = Vec::new();
        let mut copies = 0;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.sessions_dir, e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            match name.strip_suffix(".json") {
                Some(id) if session::is_valid_id(id) => ids.push(session::id_key(id)),
                _ if merge::copy_of(name).is_some() => copies += 1,
                _ => {}
            }
        }
        self.copies_seen.set(copies);
        crate::order::sort(&mut ids);
        Ok(ids)
    }

    /// Read the header of every session, in ID order, calling `visit` for
    /// each. Only the first few KiB of a file are read, and in a large store
    /// not even that while the header index vouches for the file.
    pub(crate) fn scan(&self, mut visit: impl FnMut(Scanned)) -> Result<()> {
        // Taken before the directory is read: the catalog this pass builds
        // describes the directory as it was then, if it is still so at the end.
        let before = DirStamp::of(&self.sessions_dir);
        let listed_at = crate::time::now();
        let ids = self.session_ids()?;
        if ids.len() < index::MIN_SESSIONS {
            return self.walk(&ids, None, None, Check::Messages, &mut visit).map(drop);
        }
        // Every full pass writes a fresh catalog: what other programs
        // changed in place (no directory time tells) is caught up here.
        if let Some(before) = before {
            let mut builder = catalog::Builder::default();
            self.scan_indexed(&ids, &mut |entry: Scanned| {
                match &entry.header {
                    Ok(h) => builder.add_header(h),
                    Err(_) => builder.damaged += 1,
                }
                visit(entry)
            })?;
            drop(ids);
            self.install_catalog(builder, before, listed_at);
            return Ok(());
        }
        self.scan_indexed(&ids, &mut visit)
    }

    /// `scan` for what names a session (a lookup by title, a title taken):
    /// a header the index does not vouch for is read with its file's end
    /// checked (`Check::Ends`), not every message, as the command that then
    /// reads or rewrites the session checks them; nothing is cached from
    /// such a pass. A large store without an index gets one first (a full
    /// pass, once), so that later lookups stat its files instead.
    pub(crate) fn scan_names(&self, mut visit: impl FnMut(Scanned)) -> Result<()> {
        let ids = self.session_ids()?;
        let mut reader = index::Reader::open(&self.home.join("index"));
        if !reader.is_usable() && ids.len() >= index::MIN_SESSIONS {
            return self.scan(visit);
        }
        let cache = if reader.is_usable() { Some(&mut reader) } else { None };
        self.walk(&ids, cache, None, Check::Ends, &mut visit).map(drop)
    }

    /// Put a catalog built by a full pass in place, if the directory is
    /// still as it was before the pass (a cache: failures only cost speed).
    fn install_catalog(&self, builder: catalog::Builder, before: DirStamp, listed_at: f64) {
        // A change within the same coarse tick as the listing would leave
        // the directory's times as they were: not a state to vouch for.
        if before.racy(listed_at) {
            return;
        }
        // Not lock_file(): a listing prepares (and warns about) nothing.
        if self.locks.get().is_none() {
            let Ok(lock) = LockFile::open(&self.lock_path()) else { return };
            let _ = self.locks.set(lock);
        }
        let Some(Ok(_guard)) = self.locks.get().map(LockFile::catalog) else { return };
        if DirStamp::of(&self.sessions_dir) != Some(before) {
            return;
        }
        let generation = catalog::new_generation();
        if builder.write(&self.catalog_path(), generation).is_ok() {
            let state = catalog::State { generation, dir: before, journal: Vec::new() };
            let _ = state.write(&self.catalog_state_path());
        }
    }

    /// The catalog and its state, if they describe the sessions directory
    /// as it is now.
    pub(crate) fn catalog(&self) -> Option<(catalog::State, Catalog)> {
        let state = catalog::State::read(&self.catalog_state_path())?;
        if DirStamp::of(&self.sessions_dir) != Some(state.dir) {
            return None;
        }
        let catalog = Catalog::open(&self.catalog_path())?;
        (catalog.generation == state.generation).then_some((state, catalog))
    }

    /// Hand `visit` every session's activity time, ID, directory and
    /// title, newest activity first, as the catalog and the sessions its
    /// journal names tell it, without reading the rest, until `visit` says
    /// Break. The number of sessions in the store; None when the catalog
    /// cannot say (see `catalog`) or knows of a damaged file: what was
    /// handed is then to be thrown away, and every file read instead.
    pub(crate) fn by_activity(
        &self,
        mut visit: impl FnMut(&catalog::Entry) -> ControlFlow<()>,
    ) -> Option<usize> {
        let (state, catalog) = self.catalog()?;
        if catalog.damaged > 0 {
            return None;
        }
        self.visit_by_activity(&state, &catalog, &mut visit)?;
        Some(catalog.sessions as usize)
    }

    fn visit_by_activity(
        &self,
        state: &catalog::State,
        catalog: &Catalog,
        visit: &mut impl FnMut(&catalog::Entry) -> ControlFlow<()>,
    ) -> Option<()> {
        // Sessions appended to since: the catalog has their old time.
        let mut moved = Vec::with_capacity(state.journal.len());
        for key in &state.journal {
            let header = self.header(std::str::from_utf8(key).ok()?).ok()??;
            moved.push(catalog::Entry {
                updated_at: header.updated_at,
                id: *key,
                cwd: header.cwd,
                title: header.title,
            });
        }
        crate::order::sort_by(&mut moved, |a, b| {
            b.updated_at.total_cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
        });
        // Looked up once per catalog line: sorted, not scanned.
        let mut journaled = state.journal.clone();
        crate::order::sort(&mut journaled);
        let mut moved = moved.into_iter().peekable();
        for entry in catalog.entries()? {
            let entry = entry?;
            if journaled.binary_search(&entry.id).is_ok() {
                continue;
            }
            let newer = |m: &catalog::Entry| {
                m.updated_at.total_cmp(&entry.updated_at).then_with(|| m.id.cmp(&entry.id)).is_gt()
            };
            while let Some(m) = moved.next_if(newer) {
                if visit(&m).is_break() {
                    return Some(());
                }
            }
            if visit(&entry).is_break() {
                return Some(());
            }
        }
        for m in moved {
            if visit(&m).is_break() {
                return Some(());
            }
        }
        Some(())
    }

    /// The sessions whose title or ID starts with `prefix` (letters of any
    /// case alike), newest first, as completion offers them: from the
    /// catalog alone, each session's file not read (an offer, not an
    /// answer: the command then finds the session by its name as always;
    /// those appended to since it was written have their time from their
    /// own file). None when the catalog cannot say (see `by_activity`).
    pub(crate) fn starting(&self, prefix: &str) -> Option<Vec<catalog::Entry>> {
        let (state, catalog) = self.catalog()?;
        if catalog.damaged > 0 {
            return None;
        }
        let mut found = catalog.starting(prefix)?;
        for entry in found.iter_mut().filter(|e| state.journal.contains(&e.id)) {
            entry.updated_at = self.header(entry.id()).ok()??.updated_at;
        }
        crate::order::sort_by(&mut found, |a, b| {
            b.updated_at.total_cmp(&a.updated_at).then_with(|| b.id.cmp(&a.id))
        });
        Some(found)
    }

    /// The sessions titled any of `titles`, each checked against its own
    /// file; None when the catalog cannot say (missing, stale, damaged, no
    /// such title, or a session it names says otherwise), and every file
    /// must be read instead.
    pub(crate) fn sessions_titled(&self, titles: &[&str]) -> Option<Vec<Header>> {
        let (_, catalog) = self.catalog()?;
        // A damaged file keeps its title, which the catalog does not know.
        if catalog.damaged > 0 {
            return None;
        }
        let mut ids: Vec<[u8; 22]> = Vec::new();
        for title in titles {
            for id in catalog.titled(title)? {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        if ids.is_empty() {
            return None;
        }
        ids.iter()
            .map(|key| {
                let header = self.header(std::str::from_utf8(key).ok()?).ok()??;
                titles.contains(&header.title.as_str()).then_some(header)
            })
            .collect()
    }

    fn scan_indexed(&self, ids: &[[u8; 22]], visit: &mut dyn FnMut(Scanned)) -> Result<()> {
        let index_path = self.home.join("index");
        let mut reader = index::Reader::open(&index_path);
        if !reader.is_usable() {
            // No index yet: build one in this same pass.
            let mut writer = index::Writer::create(&index_path);
            self.walk(ids, None, writer.as_mut(), Check::Messages, visit)?;
            if let Some(_writer) = writer {
                index::Writer::finish(_writer)
            }
            return Ok(());
        }
        let stale = self.walk(ids, Some(&mut reader), None, Check::Messages, visit)?;
        if stale > 64 + ids.len() / 64 {
            // Enough has changed that re-reading it every time costs more
            // than refreshing the index once.
            let mut reader = index::Reader::open(&index_path);
            if let Some(mut writer) = index::Writer::create(&index_path) {
                self.walk(ids, Some(&mut reader), Some(&mut writer), Check::Messages, &mut |_| {})?;
                writer.finish();
            }
        }
        Ok(())
    }

    /// Like `scan`, for just these sessions (IDs sorted): what `list` uses
    /// to fill one page of a long listing.
    pub(crate) fn scan_ids(&self, ids: &[[u8; 22]], mut visit: impl FnMut(Scanned)) -> Result<()> {
        let mut reader = index::Reader::open(&self.home.join("index"));
        let cache = if reader.is_usable() { Some(&mut reader) } else { None };
        self.walk(ids, cache, None, Check::Messages, &mut visit).map(drop)
    }

    /// The merge of sorted IDs with the sorted index: a cached header when
    /// the file's stamp matches, else the file's own. Returns how many
    /// files had to be read although an index was given; a file read is
    /// checked as `check` says.
    fn walk(
        &self,
        ids: &[[u8; 22]],
        mut cache: Option<&mut index::Reader>,
        mut writer: Option<&mut index::Writer>,
        check: Check,
        visit: &mut dyn FnMut(Scanned),
    ) -> Result<usize> {
        let mut stale = 0;
        // With an index, a scan is one stat per file and little else: stat
        // by name relative to the open directory, a batch at a time, spread
        // over the cores (the kernel looks up names in parallel).
        let dir = match (&cache, fs::File::open(&self.sessions_dir)) {
            (Some(_), Ok(dir)) => Some(dir),
            _ => None,
        };
        let threads = dir.as_ref().map_or(1, |_| stat_threads(ids.len()));
        let dir_path = self.sessions_dir.as_path();
        for batch in ids.chunks(STAT_BATCH) {
            let stamps = match &dir {
                Some(dir) => stamps_in(dir, batch, threads),
                None => Vec::new(),
            };
            let mut stamps = stamps.into_iter();
            for key in batch {
                let id = std::str::from_utf8(key).expect("IDs are ASCII");
                if let (Some(reader), Some(stamp)) = (cache.as_mut(), stamps.next()) {
                    let cached = reader.entry_for(id);
                    let stamp = match stamp {
                        Ok(stamp) => stamp,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                        Err(e) => {
                            visit(Scanned {
                                dir: dir_path,
                                id,
                                size: None,
                                header: Err(e.to_string()),
                                damaged_header: None,
                                measure: None,
                                stamp: None,
                            });
                            continue;
                        }
                    };
                    if let Some(entry) = cached.filter(|e| Some(e.stamp) == stamp) {
                        if let Some(w) = writer.as_mut() {
                            w.add(id, entry.stamp, &entry.header, &entry.measure);
                        }
                        visit(Scanned {
                            dir: dir_path,
                            id,
                            size: Some(entry.stamp.size),
                            header: Ok(entry.header),
                            damaged_header: None,
                            measure: Some(entry.measure),
                            stamp: Some(entry.stamp),
                        });
                        continue;
                    }
                    stale += 1;
                }
                self.read_one(id, check, writer.as_deref_mut(), visit);
            }
        }
        Ok(stale)
    }

    /// The header of one file read from the file itself, for `walk`.
    fn read_one(
        &self,
        id: &str,
        check: Check,
        writer: Option<&mut index::Writer>,
        visit: &mut dyn FnMut(Scanned),
    ) {
        let dir_path = self.sessions_dir.as_path();
        let path = dir_path.join(format!("{id}.json"));
        let unread = |header, damaged_header| Scanned {
            dir: dir_path,
            id,
            size: None,
            header,
            damaged_header,
            measure: None,
            stamp: None,
        };
        match read_header(&path, check) {
            Err(HeaderError::Gone) => {} // deleted while we looked
            Err(HeaderError::Bad(why)) => visit(unread(Err(why), None)),
            Err(HeaderError::Damaged { header, why }) => visit(unread(Err(why), Some(*header))),
            Ok((header, stamp, measure)) => {
                // Only a header whose every message was checked is cached.
                if let (Some(w), Some(m)) = (writer, &measure) {
                    w.add(id, stamp, &header, m);
                }
                visit(Scanned {
                    dir: dir_path,
                    id,
                    size: Some(stamp.size),
                    header: Ok(header),
                    damaged_header: None,
                    measure,
                    stamp: Some(stamp),
                })
            }
        }
    }

    /// The header of one session; Ok(None) if there is no such session.
    /// Its messages are not read: what reads or rewrites the session
    /// checks them.
    pub(crate) fn header(&self, id: &str) -> Result<Option<Header>> {
        self.header_checked(id, Check::Ends)
    }

    pub(super) fn header_checked(&self, id: &str, check: Check) -> Result<Option<Header>> {
        let Some(path) = self.session_path(id) else {
            return Ok(None);
        };
        match read_header(&path, check) {
            Ok((h, ..)) => Ok(Some(h)),
            Err(HeaderError::Gone) => Ok(None),
            Err(HeaderError::Bad(why)) => Err(Error::Corrupt { path, why }),
            Err(HeaderError::Damaged { why, .. }) => Err(super::damaged_session(&path, why)),
        }
    }

    /// A whole session, every message in memory; Ok(None) if there is no
    /// such session. What reads a session to show or write it elsewhere
    /// takes it a message at a time instead (`messages`, `whole`).
    pub(crate) fn load(&self, id: &str) -> Result<Option<Session>> {
        let Some(mut read) = self.messages(id)? else {
            return Ok(None);
        };
        let mut messages = Vec::new();
        while let Some(m) = read.next()? {
            messages.push(m);
        }
        Ok(Some(Session { header: read.header().clone(), messages }))
    }

    /// A session's messages read one at a time, each checked as it comes
    /// (the errors `load` would give, at the message that has them);
    /// Ok(None) if there is no such session. One message in memory.
    pub(crate) fn messages(&self, id: &str) -> Result<Option<Messages>> {
        let Some(path) = self.session_path(id) else {
            return Ok(None);
        };
        Ok(self.open(id)?.map(|reader| Messages { reader, path }))
    }

    /// `messages`, every one of them checked first (a pass over the file
    /// that decodes none written as hermes writes them), then read again
    /// from the start: what is shown or written from it never stops
    /// midway at damage, which is found (the error `load` gives) before
    /// the first message is given. One message in memory.
    pub(crate) fn whole(&self, id: &str) -> Result<Option<Messages>> {
        self.messages(id)?.map(|m| m.checked().map(|(m, _)| m)).transpose()
    }

    /// A session's file opened for reading its messages one by one, header
    /// decoded; Ok(None) if there is no such session. What it reads is one
    /// version of the file, whatever replaces it meanwhile.
    pub(crate) fn open(&self, id: &str) -> Result<Option<format::Reader<fs::File>>> {
        let Some(path) = self.session_path(id) else {
            return Ok(None);
        };
        let Some(file) = open_session(&path)? else {
            return Ok(None);
        };
        let reader = format::read(file).map_err(|fault| fault_error(&path, fault))?;
        check_file_name(&path, reader.header()).map_err(|why| Error::Corrupt { path, why })?;
        Ok(Some(reader))
    }

    /// A session opened for a turn: what it sends under `budget` (a first
    /// pass over the messages' sizes) and the file read again from its
    /// start for sending them. Ok(None) if there is no such session.
    pub(crate) fn open_planned(
        &self,
        id: &str,
        budget: u64,
    ) -> Result<Option<(format::Reader<fs::File>, context::Plan)>> {
        let Some(mut reader) = self.open(id)? else {
            return Ok(None);
        };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let plan = context::plan(&mut reader, budget).map_err(|fault| fault_error(&path, fault))?;
        let reader = reader.rewind().map_err(|fault| fault_error(&path, fault))?;
        Ok(Some((reader, plan)))
    }

    /// A session's size in characters and what a turn would send of it
    /// (see `context::measure`); Ok(None) if there is no such session.
    pub(crate) fn measure(&self, id: &str) -> Result<Option<context::Measure>> {
        let Some(mut reader) = self.open(id)? else {
            return Ok(None);
        };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        context::measure(&mut reader).map(Some).map_err(|fault| fault_error(&path, fault))
    }
}

/// A session read a message at a time (`Store::messages`, `Store::whole`).
pub(crate) struct Messages {
    reader: format::Reader<fs::File>,
    path: PathBuf,
}

impl Messages {
    pub(crate) fn header(&self) -> &Header {
        self.reader.header()
    }

    /// The next message, checked; Ok(None) after the last.
    pub(crate) fn next(&mut self) -> Result<Option<Message>> {
        let format = self.reader.header().format;
        self.reader.next_message_alone().map_err(|fault| read_error(&self.path, format, fault))
    }

    /// Every message checked (see `Store::whole`), and how many there
    /// are; the file then read again from its start.
    pub(super) fn checked(mut self) -> Result<(Messages, u64)> {
        let format = self.reader.header().format;
        let mut count = 0;
        while self.reader.next_checked().map_err(|fault| read_error(&self.path, format, fault))? {
            count += 1;
        }
        Ok((self.rewind()?, count))
    }

    /// The same file read again from its start (the one version opened,
    /// whatever replaced it since).
    pub(crate) fn rewind(self) -> Result<Messages> {
        let Messages { reader, path } = self;
        let reader = reader.rewind().map_err(|fault| fault_error(&path, fault))?;
        Ok(Messages { reader, path })
    }

    /// A file that is not the session its name says (a conflict copy, or
    /// git's merge driver's), read a message at a time; Ok(None) if there
    /// is no such file.
    pub(super) fn of_file(path: &Path) -> Result<Option<Messages>> {
        let Some(file) = open_session(path)? else {
            return Ok(None);
        };
        let reader = format::read(file).map_err(|fault| fault_error(path, fault))?;
        Ok(Some(Messages { reader, path: path.to_path_buf() }))
    }
}

/// A fault met reading the messages of a file of `format` as the user
/// sees it: a newer hermes may lay its files out otherwise.
fn read_error(path: &Path, format: u64, fault: Fault) -> Error {
    match fault {
        Fault::Damaged(_) | Fault::Message(_) if format > FORMAT => {
            Error::NewerFormat { path: path.to_path_buf(), format, understood: FORMAT }
        }
        fault => fault_error(path, fault),
    }
}

/// The file name is the ID every command acts on. A header naming another
/// session (a copied file, or damage) would send an append or a delete
/// meant for this file to that session's, so it makes the file invalid.
fn check_file_name(path: &Path, header: &Header) -> std::result::Result<(), String> {
    format::check_id(header, path.file_stem().and_then(|s| s.to_str()).unwrap_or(""))
}

/// Files stat'ed per batch of a scan: enough to keep the threads busy,
/// few enough that a batch's stamps take little memory.
const STAT_BATCH: usize = 8192;

/// How many threads stat the files of a scan of `files` files.
pub(super) fn stat_threads(files: usize) -> usize {
    if files < 2048 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// The stamps of these session files in `dir`, in order, looked up by up
/// to `threads` threads.
pub(super) fn stamps_in(
    dir: &fs::File,
    ids: &[[u8; 22]],
    threads: usize,
) -> Vec<io::Result<Option<index::Stamp>>> {
    let stat_each = |ids: &[[u8; 22]]| -> Vec<io::Result<Option<index::Stamp>>> {
        let mut name = *b"YYYYMMDD_HHMMSS_xxxxxx.json\0";
        ids.iter()
            .map(|key| {
                name[..22].copy_from_slice(key);
                index::Stamp::at(
                    dir,
                    std::ffi::CStr::from_bytes_with_nul(&name).expect("one NUL, at the end"),
                )
            })
            .collect()
    };
    super::fan_out(ids, threads, &stat_each)
}

enum HeaderError {
    Gone,
    Bad(String),
    /// The header reads, a message does not (see `Fault::Message`).
    Damaged {
        header: Box<Header>,
        why: String,
    },
}

/// How much of a file `read_header` checks.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Check {
    /// Every message (a damaged message makes the whole file damaged):
    /// what a scan and a removal rely on.
    Messages,
    /// The header, and that the file ends as a session does: enough to
    /// resolve a name, as the command that then reads or rewrites the
    /// session checks every message anyway.
    Ends,
}

/// The header of a session file, checked as `check` says, its stamp, and
/// what its messages hold when every one was read. A file written by a
/// newer hermes is taken at its header's word: its layout may differ.
type Read = (Header, index::Stamp, Option<context::Measure>);
fn read_header(path: &Path, check: Check) -> std::result::Result<Read, HeaderError> {
    let (file, meta) = match fsio::open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(HeaderError::Gone),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(HeaderError::Bad("is a symbolic link".into()));
        }
        Err(e) => return Err(HeaderError::Bad(e.to_string())),
    };
    // Too big to load is as unusable as damaged: `list` says so up front
    // instead of listing a session that every other command refuses.
    if meta.len() > MAX_SESSION_BYTES {
        return Err(HeaderError::Bad(format!("larger than {} MiB", MAX_SESSION_BYTES >> 20)));
    }
    let bad = |fault| match fault {
        Fault::Header(header, why) => match check_file_name(path, &header) {
            Ok(()) => HeaderError::Damaged { header, why },
            Err(_) => HeaderError::Bad(why),
        },
        Fault::Damaged(why) | Fault::Message(why) => HeaderError::Bad(why),
        Fault::Io(e) => HeaderError::Bad(e.to_string()),
        Fault::Newer(format) => HeaderError::Bad(format!("format {format}")),
        Fault::TooLarge => HeaderError::Bad(format!("larger than {} MiB", MAX_SESSION_BYTES >> 20)),
    };
    let mut tail = [0u8; 16];
    let tail = match std::os::unix::fs::FileExt::read_at(&file, &mut tail, meta.len().saturating_sub(16)) {
        Ok(n) => tail[..n].to_vec(),
        Err(e) => return Err(HeaderError::Bad(e.to_string())),
    };
    let mut reader = format::read(file).map_err(bad)?;
    check_file_name(path, reader.header()).map_err(HeaderError::Bad)?;
    let header = reader.header().clone();
    let stamp = index::Stamp::of(&meta);
    if header.format > FORMAT || check == Check::Ends && format::ends_like_a_session(&tail) {
        // A file cut short (a full disk, a copy interrupted) still has its
        // header; its end tells (and then every message, which says where).
        return Ok((header, stamp, None));
    }
    // Every message checked, and measured on the way.
    match context::measure(&mut reader) {
        Ok(measure) => Ok((header, stamp, Some(measure))),
        Err(Fault::Message(why)) => Err(HeaderError::Damaged { header: Box::new(header), why }),
        Err(fault) => Err(bad(fault)),
    }
}
