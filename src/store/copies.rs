//! Conflict copies (the `ID.sync-conflict-….json` files sync tools leave)
//! and two sessions of one title, merged into one under the right locks.

use std::fs;
use std::io;

use super::format;
use super::session::Session;
use super::{Store, fault_error, gone, merge, open_session, refuse_newer, titles};
use crate::error::{Error, Result};
use crate::fsio;

impl Store {
    /// How many conflict copies the last scan saw beside the sessions.
    pub(crate) fn copies_seen(&self) -> usize {
        self.copies_seen.get()
    }

    /// The conflict copies beside the session files, by name.
    pub(crate) fn conflict_copies(&self) -> Result<Vec<merge::ConflictCopy>> {
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
        crate::order::sort_by(&mut copies, |a, b| a.path.cmp(&b.path));
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
    pub(crate) fn merge_copy(
        &self,
        copy: &merge::ConflictCopy,
        dry_run: bool,
        restore: bool,
    ) -> Result<MergedCopy> {
        let _store = if dry_run { None } else { Some(self.lock_store()?) };
        let theirs = self.read_copy(copy)?;
        let _session = if dry_run { None } else { Some(self.lock_session(&copy.id)?) };
        let Some(ours) = self.load(&copy.id)? else {
            // Its session is gone, most likely deleted on purpose: a backup
            // or a sync tool's copy does not bring it back unasked.
            if !restore {
                return Ok(MergedCopy::Orphan {
                    messages: theirs.messages.len(),
                    title: theirs.header.title,
                });
            }
            let mut header = theirs.header.clone();
            let mut wanted = titles::foreign_title(&header.title);
            // Another session's short ID is freed as a taken title is.
            let ids = self.session_ids()?;
            if titles::id_like(&wanted, |suffix| titles::ending_in(&ids, suffix)).is_some() {
                wanted = titles::numbered(&wanted, 2);
            }
            header.title = if wanted.is_empty() { wanted } else { titles::unique_auto_title(self, &wanted)? };
            let retitled_from = (header.title != theirs.header.title).then(|| theirs.header.title.clone());
            if header.title.is_empty() {
                header.title_source = String::new();
            }
            if !dry_run {
                self.create(&header, &theirs.messages)?;
                fsio::remove(&copy.path)?;
            }
            return Ok(MergedCopy::Became {
                messages: theirs.messages.len(),
                title: header.title,
                retitled_from,
            });
        };
        let path = self.session_path(&copy.id).expect("a copy's ID is valid");
        refuse_newer(&path, &ours.header)?;
        let mut merged = merge::union(&ours, &theirs);
        // A title that came with the copy and that another session took
        // meanwhile, or that is a session's short ID, would make the name
        // ambiguous: ours stays.
        let ids = self.session_ids()?;
        let title = &merged.session.header.title;
        if *title != ours.header.title
            && (titles::holder(self, title, Some(&copy.id))?.is_some()
                || titles::id_like(title, |suffix| titles::ending_in(&ids, suffix)).is_some())
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
    pub(crate) fn absorb(&self, into: &str, other: &str, dry_run: bool) -> Result<usize> {
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
}

/// What `merge_copy` did with a conflict copy.
#[derive(Debug, PartialEq)]
pub(crate) enum MergedCopy {
    /// Merged into its session: how many messages were new to it, and the
    /// copy's user title when the session kept its own different one.
    Into { added: usize, title: String, title_kept_over: Option<String> },
    /// Its session was gone: the copy was left as it is.
    Orphan { messages: usize, title: String },
    /// Its session was gone and `restore` was asked: the copy became it,
    /// under a free title (the copy's own title when it was taken).
    Became { messages: usize, title: String, retitled_from: Option<String> },
}
