//! `hermes sessions merge`: fold the conflict copies that sync tools and
//! editors leave beside session files back into their sessions.

use crate::args::{Access, Arg, Kind, Run, Spec, man, switch};
use crate::error::{Error, Result};
use crate::output::{self, Out};
use crate::resolve;
use crate::store::merge::{ConflictCopy, file_name};
use crate::store::{MergedCopy, Store};
use crate::terminal::breadcrumb;
use crate::text::{counted, printable};

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// Merge the sessions sharing this title, instead of conflict copies.
    pub(crate) title: Option<String>,
    pub(crate) dry_run: bool,
    /// Also bring back the sessions of copies whose session is gone.
    pub(crate) restore: bool,
    pub(crate) yes: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions merge",
    alias: None,
    summary: "merge sync tools' conflict copies, or the sessions sharing TITLE",
    about: "\
Merge the conflict copies that sync tools and editors leave beside session
files (Syncthing's ID.sync-conflict-*.json, Dropbox's and Nextcloud's
'ID (conflicted copy ...).json', ID.json~) into their sessions: every
message of both, in time order, each once; a title given by a person is
kept over an automatic one. Each copy is removed once the merged session
is safely on disk. A copy whose session is gone (deleted) is named and
left as it is; --restore brings it back as a session. A damaged copy is
named and left in place (exit 4). A merge never gives two sessions one
title.

With TITLE, merge the sessions that share that title (two machines started
the same thread before they synced) into the oldest of them, the same way;
the others are removed once it is safely on disk.

{options}
",
    man: man(r#"
merge the conflict copies that sync tools and editors leave beside
session files (see
.BR "MANY MACHINES" )
into their sessions: every message of both, in time order, each once
(the same role, time and content); the header worked out again; a title
given by a person kept over an automatic one, and of two different ones
the session's own (with a warning).
Each copy is removed only once the merged session is safely on disk, so
a merge cut short at any point loses nothing and is finished by running
it again.
A copy whose session is gone (most likely deleted on purpose) is not
brought back silently: it is named, with how to restore it, and left as
it is; with
.B \-\-restore
it becomes the session again.
A merge never gives two sessions one title: a title that came with a copy
and that another session holds is not taken (the session keeps its own),
and a restored session whose title is taken gets the first free
.RI \(dq TITLE " (2)\(dq, \(dq" TITLE " (3)\(dq..."
A title that came with a copy is cleaned like a typed one (control
characters, bidi overrides, an ID's shape), here and in
.BR merge\-file .
A damaged copy is named and left in place, and the exit status is then 4.
With
.IR TITLE ,
merge the sessions that share that title into the oldest of them, the
same way; the others are removed, and breadcrumbs that pointed at them
follow.
"#),
    options: &[
        switch("", "--dry-run", "say what would be merged; change nothing")
            .man(
                r#"
say what would be merged; change nothing
"#,
            )
            .sets(|a| a.dry_run = true),
        switch(
            "",
            "--restore",
            "bring back the session of a copy whose session is gone, under a free title \
            (its own, else its own with (2), (3)...)",
        )
        .man(
            r#"
bring back the session of a copy whose session is gone, under a free
title (its own, else its own with (2), (3)...)
"#,
        )
        .sets(|a| a.restore = true),
        switch("-y", "--yes", super::YES_HELP)
            .man(
                r#"
do not ask (needed when not on a terminal)
"#,
            )
            .sets(|a| a.yes = true),
    ],
    args: &[Arg::optional("TITLE", Kind::Session).takes(|a, v| {
        a.title = Some(v.lossy());
        Ok(())
    })],
    start: || Args { title: None, dry_run: false, restore: false, yes: false },
    finish: |args| {
        if args.restore && args.title.is_some() {
            return Err(Error::usage("sessions merge: --restore is for conflict copies, not with a TITLE"));
        }
        Ok(args)
    },
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        if self.dry_run { Access::Reads } else { Access::Writes }
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { title, dry_run, restore, yes } = args;
    if let Some(title) = title {
        return merge_titled(store, &title, dry_run, yes);
    }
    let copies = store.conflict_copies()?;
    if copies.is_empty() {
        crate::output::note!("no conflict copies to merge");
        return Ok(());
    }
    if !dry_run && !yes {
        let question = format!(
            "Merge {} into {}?",
            copies_counted(copies.len()),
            if copies.len() == 1 { "its session" } else { "their sessions" }
        );
        if !crate::terminal::prompt::confirm(&question, "merging", "hermes sessions merge")? {
            crate::output::note!("nothing merged");
            return Ok(());
        }
    }
    let mut out = Out::new();
    let mut left = 0;
    let mut orphans = 0;
    for copy in &copies {
        match store.merge_copy(copy, dry_run, restore) {
            Ok(merged) => {
                orphans += usize::from(matches!(merged, MergedCopy::Orphan { .. }));
                tell(&mut out, copy, merged, dry_run)?;
            }
            Err(
                e @ (Error::Corrupt { .. }
                | Error::DamagedSession { .. }
                | Error::NewerFormat { .. }
                | Error::TooLarge(_)),
            ) => {
                left += 1;
                out.flush()?;
                output::warn(&e.to_string());
            }
            Err(e) => return Err(e),
        }
    }
    out.flush()?;
    let done = copies.len() - left - orphans;
    if dry_run {
        crate::output::note!("dry run: {} would be merged", copies_counted(done));
    } else {
        crate::output::note!("merged {}", copies_counted(done));
    }
    if left > 0 {
        return Err(Error::MergeIncomplete(format!(
            "{} could not be merged (named above); fix or remove {}",
            copies_counted(left),
            if left == 1 { "it" } else { "them" }
        )));
    }
    Ok(())
}

/// What became of one conflict copy: a line on stdout, and a warning
/// when its title or its session is not what the user may think.
fn tell(out: &mut Out, copy: &ConflictCopy, merged: MergedCopy, dry_run: bool) -> Result<()> {
    let (merge, restored) = if dry_run { ("would merge", "would restore") } else { ("merged", "restored") };
    let name = file_name(&copy.path);
    match merged {
        MergedCopy::Into { added, title, title_kept_over } => {
            out.line(&format!(
                "{merge} {} into {} '{}': {}",
                printable(&name, false),
                copy.id,
                printable(&title, false),
                counted(added, "new message")
            ))?;
            if let Some(theirs) = title_kept_over {
                output::warn(&format!(
                    "{}: titled '{}' there; the session keeps its title '{}' (rename it to change that)",
                    printable(&name, false),
                    printable(&theirs, false),
                    printable(&title, false)
                ));
            }
        }
        MergedCopy::Orphan { messages, title } => {
            out.flush()?;
            output::warn(&format!(
                "{}: its session {} '{}' is gone (deleted?); left as it is ({}). Bring it back with 'hermes \
                    sessions merge --restore', or remove the file",
                printable(&name, false),
                copy.id,
                printable(&title, false),
                counted(messages, "message")
            ));
        }
        MergedCopy::Became { messages, title, retitled_from } => {
            out.line(&format!(
                "{restored} session {} '{}' from {}: {}",
                copy.id,
                printable(&title, false),
                printable(&name, false),
                counted(messages, "message")
            ))?;
            if let Some(theirs) = retitled_from {
                out.flush()?;
                output::warn(&format!(
                    "{}: titled '{}', which another session has (or which is no usable title); restored as \
                        '{}'",
                    printable(&name, false),
                    printable(&theirs, false),
                    printable(&title, false)
                ));
            }
        }
    }
    Ok(())
}

/// `merge TITLE`: the sessions sharing a title (two machines made the same
/// thread before they synced) become the oldest of them; breadcrumbs that
/// pointed at the others follow.
fn merge_titled(store: &Store, title: &str, dry_run: bool, yes: bool) -> Result<()> {
    let mut sessions = resolve::titled(store, title)?;
    if sessions.is_empty() {
        return Err(Error::NoSuchSession { name: title.to_string(), did_you_mean: Vec::new() });
    }
    if sessions.len() == 1 {
        crate::output::note!("only one session is titled '{}'; nothing to merge", printable(title, false));
        return Ok(());
    }
    crate::order::sort_by(&mut sessions, |a, b| a.created_at.total_cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let into = sessions.remove(0);
    if !dry_run && !yes {
        let question = format!(
            "Merge {} titled '{}' into {}?",
            counted(sessions.len() + 1, "session"),
            printable(title, false),
            into.id
        );
        if !crate::terminal::prompt::confirm(&question, "merging", "hermes sessions merge")? {
            crate::output::note!("nothing merged");
            return Ok(());
        }
    }
    let merge = if dry_run { "would merge" } else { "merged" };
    let mut out = Out::new();
    for other in &sessions {
        let added = store.absorb(&into.id, &other.id, dry_run)?;
        if !dry_run {
            breadcrumb::repoint(store, &other.id, &into.id);
        }
        out.line(&format!(
            "{merge} session {} into {} '{}': {}",
            other.id,
            into.id,
            printable(&into.title, false),
            counted(added, "new message")
        ))?;
    }
    out.flush()
}

fn copies_counted(n: usize) -> String {
    format!("{n} conflict {}", if n == 1 { "copy" } else { "copies" })
}
