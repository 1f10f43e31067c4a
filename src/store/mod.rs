//! The session store: where a profile's files live, and reading, creating,
//! appending to, updating and removing session files under the right locks.

pub mod catalog;
pub mod context;
pub mod format;
pub mod fsio;
pub mod index;
pub mod json;
pub mod lock;
pub mod merge;
pub mod search;
pub mod session;
pub mod titles;
pub mod trust;

use std::cell::{Cell, OnceCell};
use std::fs;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::catalog::{Catalog, DirStamp};
use crate::store::format::Fault;
use crate::store::lock::{Guard, LockFile};
use session::{FORMAT, Header, Message, Session};

/// A session file larger than this is refused rather than read into memory.
pub const MAX_SESSION_BYTES: u64 = 256 << 20;

pub struct Store {
    home: PathBuf,
    sessions_dir: PathBuf,
    crumbs_dir: PathBuf,
    /// The directories from `$HERMES_HOME` down to `home` (the profile's
    /// `profiles` and `profiles/NAME` when there is one), checked by
    /// `verify` along with the store's own.
    chain: Vec<(PathBuf, trust::Place)>,
    verified: OnceCell<()>,
    locks: OnceCell<LockFile>,
    /// Conflict copies (see `merge::copy_of`) the last read of the sessions
    /// directory passed: `list` and `stats` warn about them at no extra cost.
    copies_seen: Cell<usize>,
}

/// One entry of a scan: a session file and its header, or why it has none.
pub struct Scanned<'a> {
    dir: &'a Path,
    id: &'a str,
    /// The file's size, when the scan learned it.
    pub size: Option<u64>,
    pub header: std::result::Result<Header, String>,
}

impl Scanned<'_> {
    /// The session's ID, from its file name.
    pub fn id(&self) -> &str {
        self.id
    }

    /// The session file (built only when asked: scans visit every session).
    pub fn path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.id))
    }
}

impl Store {
    /// Describe the store at `home`; touches nothing on disk.
    pub fn at(home: PathBuf) -> Store {
        Store::in_home(home, None)
    }

    /// The store of `$HERMES_HOME` (`base`), or of its profile `NAME`
    /// (`base/profiles/NAME`); touches nothing on disk.
    pub fn in_home(base: PathBuf, profile: Option<&str>) -> Store {
        let mut chain = vec![(base.clone(), trust::Place::Home)];
        let home = match profile {
            Some(name) => {
                let profiles = base.join("profiles");
                let home = profiles.join(name);
                chain.push((profiles, trust::Place::Inside));
                chain.push((home.clone(), trust::Place::Inside));
                home
            }
            None => base,
        };
        Store {
            sessions_dir: home.join("sessions"),
            crumbs_dir: home.join("terminal-sessions"),
            home,
            chain,
            verified: OnceCell::new(),
            locks: OnceCell::new(),
            copies_seen: Cell::new(0),
        }
    }

    /// What is unsafe about the home, its profile directories and the
    /// store's own directories (see `trust`), first problem first.
    pub fn trust_problems(&self) -> Vec<trust::Unsafe> {
        let inside = [&self.sessions_dir, &self.crumbs_dir].map(|dir| (dir.clone(), trust::Place::Inside));
        self.chain
            .iter()
            .chain(inside.iter())
            .filter_map(|(dir, place)| trust::check_dir(dir, *place).err())
            .collect()
    }

    /// Refuse (exit 4) a home another user could tamper with: every
    /// command that writes to the store, or reads config.toml, asks first.
    pub fn verify(&self) -> Result<()> {
        if self.verified.get().is_some() {
            return Ok(());
        }
        if let Some(problem) = self.trust_problems().into_iter().next() {
            return Err(Error::Untrusted(problem.message()));
        }
        let _ = self.verified.set(());
        Ok(())
    }

    pub fn sessions_dir(&self) -> &Path {
        &self.sessions_dir
    }

    pub fn crumbs_dir(&self) -> &Path {
        &self.crumbs_dir
    }

    pub fn config_path(&self) -> PathBuf {
        self.home.join("config.toml")
    }

    pub fn lock_path(&self) -> PathBuf {
        self.home.join(".lock")
    }

    fn catalog_path(&self) -> PathBuf {
        self.home.join("catalog")
    }

    fn catalog_state_path(&self) -> PathBuf {
        self.home.join("catalog-state")
    }

    /// The file of a session. Only well-formed IDs become names, so nothing
    /// a user types can point outside the store.
    pub fn session_path(&self, id: &str) -> Option<PathBuf> {
        session::is_valid_id(id).then(|| self.sessions_dir.join(format!("{id}.json")))
    }

    /// Create the store's directories (0700) on first write, once the
    /// home has passed `verify`.
    pub fn prepare(&self) -> Result<()> {
        self.verify()?;
        fsio::ensure_private_dir(&self.sessions_dir)
    }

    fn lock_file(&self) -> Result<&LockFile> {
        if let Some(l) = self.locks.get() {
            return Ok(l);
        }
        self.prepare()?;
        let lock = LockFile::open(&self.lock_path())?;
        Ok(self.locks.get_or_init(|| lock))
    }

    /// Store-wide lock: held while creating, renaming, importing or
    /// deleting, so titles stay unique.
    pub fn lock_store(&self) -> Result<Guard<'_>> {
        self.lock_file()?.store()
    }

    /// Lock of one session: held while re-reading and rewriting it.
    pub fn lock_session(&self, id: &str) -> Result<Guard<'_>> {
        self.lock_file()?.session(id)
    }

    /// The lock of session `id` if no live writer holds it right now.
    pub fn try_lock_session(&self, id: &str) -> Result<Option<Guard<'_>>> {
        self.lock_file()?.try_session(id)
    }

    /// hermes's temporary files in the store: (path, name, size, mtime),
    /// sessions' first. Only what a crash or a kill left lingers.
    pub fn temporaries(&self) -> Vec<(PathBuf, String, u64, std::time::SystemTime)> {
        [&self.sessions_dir, &self.crumbs_dir, &self.home]
            .iter()
            .flat_map(|dir| fsio::temporaries_in(dir))
            .collect()
    }

    /// IDs of all session files (names of the ID shape only), sorted.
    pub fn session_ids(&self) -> Result<Vec<[u8; 22]>> {
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
        ids.sort_unstable();
        Ok(ids)
    }

    /// How many conflict copies the last scan saw beside the sessions.
    pub fn copies_seen(&self) -> usize {
        self.copies_seen.get()
    }

    /// The conflict copies beside the session files, by name.
    pub fn conflict_copies(&self) -> Result<Vec<merge::ConflictCopy>> {
        let entries = match fs::read_dir(&self.sessions_dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&self.sessions_dir, e)),
        };
        let mut copies = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(&self.sessions_dir, e))?;
            let name = entry.file_name();
            if let Some(id) = name.to_str().and_then(merge::copy_of) {
                copies.push(merge::ConflictCopy { path: entry.path(), id: id.to_string() });
            }
        }
        copies.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(copies)
    }

    /// Merge a conflict copy into its session, then remove the copy: the
    /// union of their messages (see `merge::union`), written atomically
    /// under the store lock (the title may change) and the session's lock
    /// (an append waits, then appends to the merged file). The copy goes
    /// only once the merged file is durable, so a merge killed at any point
    /// leaves at worst the copy, and running it again adds nothing twice.
    /// A copy whose session is gone becomes the session. With `dry_run`,
    /// only says what it would do. A damaged copy is an error naming it,
    /// and is left alone.
    pub fn merge_copy(&self, copy: &merge::ConflictCopy, dry_run: bool) -> Result<MergedCopy> {
        let _store = if dry_run { None } else { Some(self.lock_store()?) };
        let theirs = self.read_copy(copy)?;
        let _session = if dry_run { None } else { Some(self.lock_session(&copy.id)?) };
        let Some(ours) = self.load(&copy.id)? else {
            if !dry_run {
                self.create(&theirs.header, &theirs.messages)?;
                fsio::remove(&copy.path)?;
            }
            return Ok(MergedCopy::Became { messages: theirs.messages.len(), title: theirs.header.title });
        };
        let path = self.session_path(&copy.id).expect("a copy's ID is valid");
        refuse_newer(&path, &ours.header)?;
        let mut merged = merge::union(&ours, &theirs);
        // A title that came with the copy and that another session took
        // meanwhile would make the name ambiguous: ours stays.
        if merged.session.header.title != ours.header.title
            && titles::holder(self, &merged.session.header.title, Some(&copy.id))?.is_some()
        {
            merged.session.header.title = ours.header.title.clone();
            merged.session.header.title_source = ours.header.title_source.clone();
        }
        if !dry_run {
            if merged.session != ours {
                self.replace(&path, &merged.session)?;
            }
            fsio::remove(&copy.path)?;
        }
        Ok(MergedCopy::Into {
            added: merged.added,
            title: merged.session.header.title,
            title_kept_over: merged.title_kept_over,
        })
    }

    /// Fold session `other` into session `into` (two sessions of one title,
    /// made on two machines before they synced): the union of their
    /// messages written to `into`, then `other` removed, under the store
    /// lock and both sessions' locks. Killed before the removal, both are
    /// left and doing it again finishes the job. With `dry_run`, only
    /// counts what `into` would gain.
    pub fn absorb(&self, into: &str, other: &str, dry_run: bool) -> Result<usize> {
        let _store = if dry_run { None } else { Some(self.lock_store()?) };
        let _into = if dry_run { None } else { Some(self.lock_session(into)?) };
        let _other = if dry_run { None } else { Some(self.lock_session(other)?) };
        let theirs = self.load(other)?.ok_or_else(|| gone(other))?;
        let ours = self.load(into)?.ok_or_else(|| gone(into))?;
        let path = self.session_path(into).expect("a loaded ID is valid");
        refuse_newer(&path, &ours.header)?;
        refuse_newer(&self.session_path(other).expect("a loaded ID is valid"), &theirs.header)?;
        let mut merged = merge::union(&ours, &theirs);
        merged.session.header.title = ours.header.title.clone();
        merged.session.header.title_source = ours.header.title_source.clone();
        if !dry_run {
            if merged.session != ours {
                self.replace(&path, &merged.session)?;
            }
            self.remove_locked(other)?;
        }
        Ok(merged.added)
    }

    /// A conflict copy, read whole: a copy of session `id` in a format
    /// hermes can rewrite, else an error naming the copy.
    fn read_copy(&self, copy: &merge::ConflictCopy) -> Result<Session> {
        let corrupt = |why: String| Error::Corrupt { path: copy.path.clone(), why };
        let file = open_session(&copy.path)?.ok_or_else(|| corrupt("vanished".into()))?;
        let reader = format::read(file).map_err(|fault| fault_error(&copy.path, fault))?;
        refuse_newer(&copy.path, reader.header())?;
        let session = reader.into_session().map_err(|fault| fault_error(&copy.path, fault))?;
        if session.header.id != copy.id {
            return Err(corrupt(format!(
                "it says it is session '{}', not the one its name says",
                session.header.id
            )));
        }
        Ok(session)
    }

    /// Write a whole session over its file. The caller holds its lock.
    fn replace(&self, path: &Path, session: &Session) -> Result<()> {
        let out = format::encode(&session.header, &session.messages);
        if out.len() as u64 > MAX_SESSION_BYTES {
            return Err(Error::TooLarge(format!(
                "session {} would grow past {} MiB",
                session.header.id,
                MAX_SESSION_BYTES >> 20
            )));
        }
        let mut watch = self.watch_dir()?;
        let mut file = self.begin_session_write(path, &mut watch)?;
        std::io::Write::write_all(&mut file, &out).map_err(|e| Error::io(path, e))?;
        self.commit_session_write(file, &mut watch)?;
        watch.finish(self, Change::Put(&session.header));
        Ok(())
    }

    /// Read the header of every session, in ID order, calling `visit` for
    /// each. Only the first few KiB of a file are read, and in a large store
    /// not even that while the header index vouches for the file.
    pub fn scan(&self, mut visit: impl FnMut(Scanned)) -> Result<()> {
        // Taken before the directory is read: the catalog this pass builds
        // describes the directory as it was then, if it is still so at the end.
        let before = DirStamp::of(&self.sessions_dir);
        let ids = self.session_ids()?;
        if ids.len() < index::MIN_SESSIONS {
            return self.walk(&ids, None, None, &mut visit).map(drop);
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
            self.install_catalog(builder, before);
            return Ok(());
        }
        self.scan_indexed(&ids, &mut visit)
    }

    /// Put a catalog built by a full pass in place, if the directory is
    /// still as it was before the pass (a cache: failures only cost speed).
    fn install_catalog(&self, builder: catalog::Builder, before: DirStamp) {
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
    pub fn catalog(&self) -> Option<(catalog::State, Catalog)> {
        let state = catalog::State::read(&self.catalog_state_path())?;
        if DirStamp::of(&self.sessions_dir) != Some(state.dir) {
            return None;
        }
        let catalog = Catalog::open(&self.catalog_path())?;
        (catalog.generation == state.generation).then_some((state, catalog))
    }

    /// Hand `visit` every session's activity time, ID and title, newest
    /// activity first, as the catalog and the sessions its journal names
    /// tell it, without reading the rest, until `visit` says Break. False
    /// when the catalog cannot say (see `catalog`) or knows of a damaged
    /// file: what was handed is then to be thrown away, and every file
    /// read instead.
    pub fn by_activity(&self, mut visit: impl FnMut(f64, [u8; 22], &str) -> ControlFlow<()>) -> bool {
        self.visit_by_activity(&mut visit).is_some()
    }

    fn visit_by_activity(
        &self,
        visit: &mut impl FnMut(f64, [u8; 22], &str) -> ControlFlow<()>,
    ) -> Option<()> {
        let (state, catalog) = self.catalog()?;
        if catalog.damaged > 0 {
            return None;
        }
        // Sessions appended to since: the catalog has their old time.
        let mut moved = Vec::with_capacity(state.journal.len());
        for key in &state.journal {
            let header = self.header(std::str::from_utf8(key).ok()?).ok()??;
            moved.push((header.updated_at, *key, header.title));
        }
        moved.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
        // Looked up once per catalog line: sorted, not scanned.
        let mut journaled = state.journal.clone();
        journaled.sort_unstable();
        let mut moved = moved.into_iter().peekable();
        for entry in catalog.entries()? {
            let entry = entry?;
            if journaled.binary_search(&entry.id).is_ok() {
                continue;
            }
            let newer = |m: &(f64, [u8; 22], String)| {
                m.0.total_cmp(&entry.updated_at).then_with(|| m.1.cmp(&entry.id)).is_gt()
            };
            while let Some((updated_at, id, title)) = moved.next_if(newer) {
                if visit(updated_at, id, &title).is_break() {
                    return Some(());
                }
            }
            if visit(entry.updated_at, entry.id, &entry.title).is_break() {
                return Some(());
            }
        }
        for (updated_at, id, title) in moved {
            if visit(updated_at, id, &title).is_break() {
                return Some(());
            }
        }
        Some(())
    }

    /// The sessions titled any of `titles`, each checked against its own
    /// file; None when the catalog cannot say (missing, stale, damaged, no
    /// such title, or a session it names says otherwise), and every file
    /// must be read instead.
    pub fn sessions_titled(&self, titles: &[&str]) -> Option<Vec<Header>> {
        let (_, catalog) = self.catalog()?;
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
            self.walk(ids, None, writer.as_mut(), visit)?;
            if let Some(_writer) = writer {
                index::Writer::finish(_writer)
            }
            return Ok(());
        }
        let stale = self.walk(ids, Some(&mut reader), None, visit)?;
        if stale > 64 + ids.len() / 64 {
            // Enough has changed that re-reading it every time costs more
            // than refreshing the index once.
            let mut reader = index::Reader::open(&index_path);
            if let Some(mut writer) = index::Writer::create(&index_path) {
                self.walk(ids, Some(&mut reader), Some(&mut writer), &mut |_| {})?;
                writer.finish();
            }
        }
        Ok(())
    }

    /// Like `scan`, for just these sessions (IDs sorted): what `list` uses
    /// to fill one page of a long listing.
    pub fn scan_ids(&self, ids: &[[u8; 22]], mut visit: impl FnMut(Scanned)) -> Result<()> {
        let mut reader = index::Reader::open(&self.home.join("index"));
        let cache = if reader.is_usable() { Some(&mut reader) } else { None };
        self.walk(ids, cache, None, &mut visit).map(drop)
    }

    /// The merge of sorted IDs with the sorted index: a cached header when
    /// the file's stamp matches, else the file's own. Returns how many
    /// files had to be read although an index was given.
    fn walk(
        &self,
        ids: &[[u8; 22]],
        mut cache: Option<&mut index::Reader>,
        mut writer: Option<&mut index::Writer>,
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
                            visit(Scanned { dir: dir_path, id, size: None, header: Err(e.to_string()) });
                            continue;
                        }
                    };
                    if let Some(entry) = cached.filter(|e| Some(e.stamp) == stamp) {
                        if let Some(w) = writer.as_mut() {
                            w.add(id, entry.stamp, &entry.header);
                        }
                        visit(Scanned {
                            dir: dir_path,
                            id,
                            size: Some(entry.stamp.size),
                            header: Ok(entry.header),
                        });
                        continue;
                    }
                    stale += 1;
                }
                self.read_one(id, writer.as_deref_mut(), visit);
            }
        }
        Ok(stale)
    }

    /// The header of one file read from the file itself, for `walk`.
    fn read_one(&self, id: &str, writer: Option<&mut index::Writer>, visit: &mut dyn FnMut(Scanned)) {
        let dir_path = self.sessions_dir.as_path();
        let path = dir_path.join(format!("{id}.json"));
        match read_header(&path, Check::Messages) {
            Err(HeaderError::Gone) => {} // deleted while we looked
            Err(HeaderError::Bad(why)) => visit(Scanned { dir: dir_path, id, size: None, header: Err(why) }),
            Ok((header, stamp)) => {
                if let Some(w) = writer {
                    w.add(id, stamp, &header);
                }
                visit(Scanned { dir: dir_path, id, size: Some(stamp.size), header: Ok(header) })
            }
        }
    }

    /// The header of one session; Ok(None) if there is no such session.
    /// Its messages are not read: what reads or rewrites the session
    /// checks them.
    pub fn header(&self, id: &str) -> Result<Option<Header>> {
        self.header_checked(id, Check::Ends)
    }

    fn header_checked(&self, id: &str, check: Check) -> Result<Option<Header>> {
        let Some(path) = self.session_path(id) else {
            return Ok(None);
        };
        match read_header(&path, check) {
            Ok((h, _)) => Ok(Some(h)),
            Err(HeaderError::Gone) => Ok(None),
            Err(HeaderError::Bad(why)) => Err(Error::Corrupt { path, why }),
        }
    }

    /// A whole session; Ok(None) if there is no such session.
    pub fn load(&self, id: &str) -> Result<Option<Session>> {
        let Some(path) = self.session_path(id) else {
            return Ok(None);
        };
        let Some(reader) = self.open(id)? else {
            return Ok(None);
        };
        let format = reader.header().format;
        match reader.into_session() {
            Ok(session) => Ok(Some(session)),
            // A newer hermes may lay its files out otherwise.
            Err(Fault::Damaged(_)) if format > FORMAT => {
                Err(Error::NewerFormat { path, format, understood: FORMAT })
            }
            Err(fault) => Err(fault_error(&path, fault)),
        }
    }

    /// A session's file opened for reading its messages one by one, header
    /// decoded; Ok(None) if there is no such session. What it reads is one
    /// version of the file, whatever replaces it meanwhile.
    pub fn open(&self, id: &str) -> Result<Option<format::Reader<fs::File>>> {
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
    pub fn open_planned(
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
    pub fn measure(&self, id: &str) -> Result<Option<context::Measure>> {
        let Some(mut reader) = self.open(id)? else {
            return Ok(None);
        };
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        context::measure(&mut reader).map(Some).map_err(|fault| fault_error(&path, fault))
    }

    /// Write a brand-new session. The caller holds the store lock and has
    /// made sure the title is free.
    pub fn create(&self, header: &Header, messages: &[Message]) -> Result<()> {
        self.prepare()?;
        let path = self.session_path(&header.id).expect("generated IDs are valid");
        if fs::symlink_metadata(&path).is_ok() {
            return Err(Error::AlreadyExists(path));
        }
        let mut watch = self.watch_dir()?;
        let mut file = self.begin_session_write(&path, &mut watch)?;
        std::io::Write::write_all(&mut file, &format::encode(header, messages))
            .map_err(|e| Error::io(&path, e))?;
        self.commit_session_write(file, &mut watch)?;
        watch.finish(self, Change::Put(header));
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
    fn commit_session_write(&self, file: fsio::AtomicFile, watch: &mut Watch) -> Result<()> {
        let clean = std::cell::Cell::new(watch.state.is_some());
        let after_temp = watch.after_temp;
        file.commit_with(
            || clean.set(clean.get() && DirStamp::of(&self.sessions_dir) == after_temp),
            || watch.dir_after = DirStamp::of(&self.sessions_dir).filter(|_| clean.get()),
        )
    }

    /// Append messages to a session under its lock, re-reading it first so
    /// that concurrent writers never lose each other's messages. `edit` may
    /// adjust the header (say, the title) in the same write. The file is
    /// streamed through bounded buffers into its replacement: memory does
    /// not grow with the session.
    pub fn append(&self, id: &str, messages: &[Message], edit: impl FnOnce(&mut Header)) -> Result<Header> {
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
        self.commit_session_write(out, &mut watch)?;
        // A new title (rename, under the store lock) changes the catalog;
        // a new message only moves the session's activity.
        watch.finish(self, if retitled { Change::Put(&header) } else { Change::Touch(id) });
        Ok(header)
    }

    /// Insert a message at `place` (a summary after the messages it
    /// covers), under the session's lock, streaming the file as `append`
    /// does. Ok(None) when the session changed since `place` was found
    /// (the message there is another): the file is left as it was.
    pub fn insert(&self, id: &str, place: format::Place, message: &Message) -> Result<Option<Header>> {
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
        self.commit_session_write(out, &mut watch)?;
        watch.finish(self, Change::Touch(id));
        Ok(Some(header))
    }

    /// Change a session's messages under its lock (the last ones, in
    /// practice: /retry drops an interrupted reply, an unanswered message
    /// takes in the next one). `edit` returns false to leave the file alone.
    pub fn edit_messages(&self, id: &str, edit: impl FnOnce(&mut Vec<Message>) -> bool) -> Result<Header> {
        let _guard = self.lock_session(id)?;
        let path = self.session_path(id).ok_or_else(|| gone(id))?;
        let Session { mut header, mut messages } = self.load(id)?.ok_or_else(|| gone(id))?;
        refuse_newer(&path, &header)?;
        if !edit(&mut messages) {
            return Ok(header);
        }
        header.message_count = messages.len() as u64;
        header.updated_at = messages.iter().map(|m| m.ts).fold(header.updated_at, f64::max);
        let out = format::encode(&header, &messages);
        if out.len() as u64 > MAX_SESSION_BYTES {
            return Err(Error::TooLarge(format!(
                "session {id} would grow past {} MiB; start a new session",
                MAX_SESSION_BYTES >> 20
            )));
        }
        fsio::write_atomic(&path, &out)?;
        Ok(header)
    }

    /// Rewrite a session's header only (rename), under its lock.
    pub fn update_header(&self, id: &str, edit: impl FnOnce(&mut Header)) -> Result<Header> {
        self.append(id, &[], edit)
    }

    /// Remove a session file. The caller holds the store lock.
    pub fn remove(&self, id: &str) -> Result<()> {
        let _guard = self.lock_session(id)?;
        self.remove_locked(id)
    }

    /// Remove a session file whose lock the caller holds (a second guard on
    /// the same byte would release the caller's when dropped).
    fn remove_locked(&self, id: &str) -> Result<()> {
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
    pub fn remove_if(&self, id: &str, doomed: impl FnOnce(&Header) -> bool) -> Result<bool> {
        let _guard = self.lock_session(id)?;
        let Some(path) = self.session_path(id) else {
            return Ok(false);
        };
        match self.header_checked(id, Check::Messages)? {
            // Prune removes many: the next full pass rebuilds the catalog
            // once, rather than each removal rewriting it.
            Some(header) if doomed(&header) => fsio::remove(&path).map(|()| true),
            _ => Ok(false),
        }
    }

    /// A fresh ID: local time plus 6 random hex digits, unused so far.
    pub fn new_id(&self, now: f64) -> String {
        let (y, mo, d, h, mi, s) = crate::sys::local_time(now as i64).unwrap_or((1970, 1, 1, 0, 0, 0));
        loop {
            let id = format!("{y:04}{mo:02}{d:02}_{h:02}{mi:02}{s:02}_{}", fsio::random_hex(6));
            match self.session_path(&id) {
                Some(p) if !p.exists() => return id,
                _ => continue,
            }
        }
    }
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

/// What `merge_copy` did with a conflict copy.
#[derive(Debug, PartialEq)]
pub enum MergedCopy {
    /// Merged into its session: how many messages were new to it, and the
    /// copy's user title when the session kept its own different one.
    Into { added: usize, title: String, title_kept_over: Option<String> },
    /// Its session was gone: the copy became it.
    Became { messages: usize, title: String },
}

/// The file name is the ID every command acts on. A header naming another
/// session (a copied file, or damage) would send an append or a delete
/// meant for this file to that session's, so it makes the file invalid.
fn check_file_name(path: &Path, header: &Header) -> std::result::Result<(), String> {
    format::check_id(header, path.file_stem().and_then(|s| s.to_str()).unwrap_or(""))
}

/// A fault of the file at `path` as the user sees it.
fn fault_error(path: &Path, fault: Fault) -> Error {
    match fault {
        Fault::Damaged(why) => Error::Corrupt { path: path.to_path_buf(), why },
        Fault::Newer(format) => Error::NewerFormat { path: path.to_path_buf(), format, understood: FORMAT },
        Fault::TooLarge => Error::Corrupt {
            path: path.to_path_buf(),
            why: format!("larger than {} MiB", MAX_SESSION_BYTES >> 20),
        },
        Fault::Io(e) => Error::io(path, e),
    }
}

fn gone(id: &str) -> Error {
    Error::Vanished { id: id.to_string() }
}

pub fn refuse_newer(path: &Path, header: &Header) -> Result<()> {
    if header.format > FORMAT {
        return Err(Error::NewerFormat {
            path: path.to_path_buf(),
            format: header.format,
            understood: FORMAT,
        });
    }
    Ok(())
}

/// Files stat'ed per batch of a scan: enough to keep the threads busy,
/// few enough that a batch's stamps take little memory.
const STAT_BATCH: usize = 8192;

/// How many threads stat the files of a scan of `files` files.
fn stat_threads(files: usize) -> usize {
    if files < 2048 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// The stamps of these session files in `dir`, in order, looked up by up
/// to `threads` threads. A thread that cannot be started leaves its share
/// to the calling one.
fn stamps_in(dir: &fs::File, ids: &[[u8; 22]], threads: usize) -> Vec<io::Result<Option<index::Stamp>>> {
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
    if threads <= 1 || ids.len() < 2 * threads {
        return stat_each(ids);
    }
    let share = ids.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut shares = ids.chunks(share);
        let own = shares.next().unwrap_or_default();
        let others: Vec<_> = shares
            .map(|ids| (ids, std::thread::Builder::new().spawn_scoped(scope, move || stat_each(ids))))
            .collect();
        let mut stamps = stat_each(own);
        for (ids, started) in others {
            match started {
                Ok(thread) => stamps.extend(thread.join().expect("panics abort")),
                Err(_) => stamps.extend(stat_each(ids)),
            }
        }
        stamps
    })
}

/// A session file opened for reading; None when it does not exist. Files
/// that are not a regular file of sane size are errors (exit 4).
fn open_session(path: &Path) -> Result<Option<fs::File>> {
    match fsio::open_regular(path) {
        Ok((_, meta)) if meta.len() > MAX_SESSION_BYTES => Err(Error::Corrupt {
            path: path.to_path_buf(),
            why: format!("larger than {} MiB", MAX_SESSION_BYTES >> 20),
        }),
        Ok((file, _)) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            Err(Error::Corrupt { path: path.to_path_buf(), why: e.to_string() })
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(Error::Corrupt { path: path.to_path_buf(), why: "is a symbolic link".into() })
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

enum HeaderError {
    Gone,
    Bad(String),
}

/// How much of a file `read_header` checks.
#[derive(Clone, Copy, PartialEq)]
enum Check {
    /// Every message (a damaged message makes the whole file damaged):
    /// what a scan and a removal rely on.
    Messages,
    /// The header, and that the file ends as a session does: enough to
    /// resolve a name, as the command that then reads or rewrites the
    /// session checks every message anyway.
    Ends,
}

/// The header of a session file, checked as `check` says. A file written
/// by a newer hermes is taken at its header's word: its layout may differ.
fn read_header(path: &Path, check: Check) -> std::result::Result<(Header, index::Stamp), HeaderError> {
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
        Fault::Damaged(why) => HeaderError::Bad(why),
        Fault::Io(e) => HeaderError::Bad(e.to_string()),
        Fault::Newer(format) => HeaderError::Bad(format!("format {format}")),
        Fault::TooLarge => HeaderError::Bad(format!("larger than {} MiB", MAX_SESSION_BYTES >> 20)),
    };
    let mut tail = [0u8; 16];
    let tail = match std::os::unix::fs::FileExt::read_at(&file, &mut tail, meta.len().saturating_sub(16)) {
        Ok(n) => tail[..n].to_vec(),
        Err(e) => return Err(HeaderError::Bad(e.to_string())),
    };
    let reader = format::read(file).map_err(bad)?;
    check_file_name(path, reader.header()).map_err(HeaderError::Bad)?;
    let header = if reader.header().format > FORMAT {
        reader.header().clone()
    } else if check == Check::Ends {
        // A file cut short (a full disk, a copy interrupted) still has its
        // header; its end tells.
        if !format::ends_like_a_session(&tail) {
            return Err(HeaderError::Bad(format::TRUNCATED.into()));
        }
        reader.header().clone()
    } else {
        reader.check().map_err(bad)?
    };
    Ok((header, index::Stamp::of(&meta)))
}
