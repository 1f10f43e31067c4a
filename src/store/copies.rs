//! Conflict copies (the `ID.sync-conflict-….json` files sync tools leave)
//! and two sessions of one title, merged into one under the right locks.

use std::fs;
use std::io;

use super::session::{Header, Message, Session};
use super::{Messages, Store, gone, merge, refuse_newer, titles};
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
        let (mut theirs, messages) = self.read_copy(copy)?;
        let _session = if dry_run { None } else { Some(self.lock_session(&copy.id)?) };
        let Some(ours) = self.whole(&copy.id)? else {
            // Its session is gone, most likely deleted on purpose: a backup
            // or a sync tool's copy does not bring it back unasked.
            let theirs_title = theirs.header().title.clone();
            if !restore {
                return Ok(MergedCopy::Orphan { messages, title: theirs_title });
            }
            let mut header = theirs.header().clone();
            let mut wanted = titles::foreign_title(&header.title);
            // Another session's short ID is freed as a taken title is.
            let ids = self.session_ids()?;
            if titles::id_like(&wanted, |suffix| titles::ending_in(&ids, suffix)).is_some() {
                wanted = titles::numbered(&wanted, 2);
            }
            header.title = if wanted.is_empty() { wanted } else { titles::unique_auto_title(self, &wanted)? };
            let retitled_from = (header.title != theirs_title).then_some(theirs_title);
            if header.title.is_empty() {
                header.title_source = String::new();
            }
            if !dry_run {
                self.create_each(&header, &mut |emit| each_of(&mut theirs, emit))?;
                fsio::remove(&copy.path)?;
            }
            return Ok(MergedCopy::Became { messages, title: header.title, retitled_from });
        };
        let path = self.session_path(&copy.id).expect("a copy's ID is valid");
        refuse_newer(&path, ours.header())?;
        let mut union = Union::of(ours, theirs)?;
        // A title that came with the copy and that another session took
        // meanwhile, or that is a session's short ID, would make the name
        // ambiguous: ours stays.
        let ids = self.session_ids()?;
        let title = &union.header.title;
        if *title != union.ours.title
            && (titles::holder(self, title, Some(&copy.id))?.is_some()
                || titles::id_like(title, |suffix| titles::ending_in(&ids, suffix)).is_some())
        {
            union.header.title = union.ours.title.clone();
            union.header.title_source = union.ours.title_source.clone();
        }
        let (added, title, title_kept_over) =
            (union.added, union.header.title.clone(), union.title_kept_over.take());
        if !dry_run {
            union.write(self, &path)?;
            fsio::remove(&copy.path)?;
        }
        Ok(MergedCopy::Into { added, title, title_kept_over })
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
        let theirs = self.whole(other)?.ok_or_else(|| gone(other))?;
        let ours = self.whole(into)?.ok_or_else(|| gone(into))?;
        let path = self.session_path(into).expect("a loaded ID is valid");
        refuse_newer(&path, ours.header())?;
        refuse_newer(&self.session_path(other).expect("a loaded ID is valid"), theirs.header())?;
        let mut union = Union::of(ours, theirs)?;
        union.header.title = union.ours.title.clone();
        union.header.title_source = union.ours.title_source.clone();
        let added = union.added;
        if !dry_run {
            union.write(self, &path)?;
            self.remove_locked(other)?;
        }
        Ok(added)
    }

    /// A conflict copy, every message checked, to be read a message at a
    /// time, and how many messages it holds: a copy of session `id` in a
    /// format hermes can rewrite, else an error naming the copy.
    fn read_copy(&self, copy: &merge::ConflictCopy) -> Result<(Messages, usize)> {
        let corrupt = |why: String| Error::Corrupt { path: copy.path.clone(), why };
        let messages = Messages::of_file(&copy.path)?.ok_or_else(|| corrupt("vanished".into()))?;
        refuse_newer(&copy.path, messages.header())?;
        let (messages, count) = messages.checked()?;
        if messages.header().id != copy.id {
            return Err(corrupt(format!(
                "it says it is session '{}', not the one its name says",
                messages.header().id
            )));
        }
        Ok((messages, count as usize))
    }
}

/// Every message of `messages` handed to `emit`, in order.
fn each_of(messages: &mut Messages, emit: &mut dyn FnMut(&Message) -> Result<()>) -> Result<()> {
    while let Some(m) = messages.next()? {
        emit(&m)?;
    }
    Ok(())
}

/// Two versions of one session being made one (see `merge::union`): its
/// header and count told a message at a time while each version's
/// messages are in time order, both then read again to write it; else
/// (messages out of order: only a sort tells their order) held whole.
struct Union {
    /// Ours, as it was.
    ours: Header,
    header: Header,
    added: usize,
    title_kept_over: Option<String>,
    how: How,
}

enum How {
    /// Boxed: a reader is large beside a list.
    Walked(Box<(Messages, Messages)>),
    /// The union's messages, and ours'.
    Held(Vec<Message>, Vec<Message>),
}

impl Union {
    fn of(mut ours: Messages, mut theirs: Messages) -> Result<Union> {
        let (o, t) = (ours.header().clone(), theirs.header().clone());
        if let Some(planned) = merge::plan_union(&o, &t, &mut || ours.next(), &mut || theirs.next())? {
            let merge::Planned { header, added, title_kept_over } = planned;
            let how = How::Walked(Box::new((ours.rewind()?, theirs.rewind()?)));
            return Ok(Union { ours: o, header, added, title_kept_over, how });
        }
        let (ours, theirs) = (held(ours.rewind()?)?, held(theirs.rewind()?)?);
        let merged = merge::union(&ours, &theirs);
        let how = How::Held(merged.session.messages, ours.messages);
        let (header, added, title_kept_over) = (merged.session.header, merged.added, merged.title_kept_over);
        Ok(Union { ours: ours.header, header, added, title_kept_over, how })
    }

    /// Write the union over ours at `path` (the caller holds its lock),
    /// unless it is ours as it was.
    fn write(self, store: &Store, path: &std::path::Path) -> Result<()> {
        match self.how {
            How::Walked(both) => {
                let (mut ours, mut theirs) = *both;
                if self.added == 0 && self.header == self.ours {
                    return Ok(());
                }
                store.replace_each(path, &self.header, &mut |emit| {
                    let walk = &mut |m: &Message, _| emit(m);
                    merge::walk_union(&mut || ours.next(), &mut || theirs.next(), walk).map(|_| ())
                })
            }
            How::Held(messages, ours) => {
                if self.header == self.ours && messages == ours {
                    return Ok(());
                }
                store.replace(path, &Session { header: self.header, messages })
            }
        }
    }
}

/// A whole session in memory, from its messages.
fn held(mut messages: Messages) -> Result<Session> {
    let mut all = Vec::new();
    while let Some(m) = messages.next()? {
        all.push(m);
    }
    Ok(Session { header: messages.header().clone(), messages: all })
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
