//! `hermes sessions merge-file BASE OURS THEIRS`: git's merge driver for
//! session files (`%O %A %B`). The merge is written into OURS.

use std::ffi::OsString;
use std::path::Path;

use crate::args::{Access, Arg, Kind, Run, Spec, man};
use crate::error::{Error, Result};
use crate::fsio;
use crate::store::MAX_SESSION_BYTES;
use crate::store::Store;
use crate::store::format;
use crate::store::merge::union3;
use crate::store::session::{self, Session};
use crate::text::printable;

/// Exit 0 with the union in OURS; exit 1 when git must ask the user: two
/// different titles set by a person (OURS then holds the union under our
/// title), or a side that is not a session file (OURS left as it was).
#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) base: OsString,
    pub(crate) ours: OsString,
    pub(crate) theirs: OsString,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions merge-file",
    alias: None,
    summary: "merge two versions of a session file (a git merge driver)",
    about: "\
Merge two versions of one session file, as a git merge driver (%O %A %B):
the messages of both, in time order, each once, written into OURS (exit 0).
When both sides gave the session different titles, OURS keeps ours, the
messages are still merged, and the exit status is 1 so git asks you. Set
up, in a home kept in git:
  echo 'sessions/*.json merge=hermes' >> .gitattributes
  git config merge.hermes.name 'hermes sessions'
  git config merge.hermes.driver 'hermes sessions merge-file %O %A %B'
",
    man: man(r#"
merge two versions of one session file, as a git merge driver
.RB ( %O " " %A " " %B ):
the union of their messages, as
.B merge
makes it, written into
.IR OURS ,
exit 0.
A title changed on one side only is taken from that side; two different
changes keep ours, still merge the messages, say so, and exit 1 so that
git marks the file as conflicted.
A side that is not a session file leaves
.I OURS
as it was, exit 1.
.PP
Long operations
.RB ( export ,
.BR import ,
.BR prune )
show a progress counter on standard error only when it is a terminal.
"#),
    options: &[],
    args: &[
        Arg::one("BASE", Kind::File).takes(|a, v| {
            a.base = v.os();
            Ok(())
        }),
        Arg::one("OURS", Kind::File).takes(|a, v| {
            a.ours = v.os();
            Ok(())
        }),
        Arg::one("THEIRS", Kind::File).takes(|a, v| {
            a.theirs = v.os();
            Ok(())
        }),
    ],
    start: || Args { base: OsString::new(), ours: OsString::new(), theirs: OsString::new() },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, _store: &Store) -> Result<()> {
        run(self)
    }
    fn access(&self) -> Access {
        // It writes the files git names, never the store.
        Access::ReadsToFile
    }
}

pub(crate) fn run(args: Args) -> Result<()> {
    let (base, ours, theirs) = (Path::new(&args.base), Path::new(&args.ours), Path::new(&args.theirs));
    let ours_session = read(ours, "OURS")?
        .ok_or_else(|| Error::Unmerged(format!("{}: OURS is empty; left as it was", ours.display())))?;
    let Some(theirs_session) = read(theirs, "THEIRS")? else {
        return Ok(()); // nothing came from their side
    };
    // BASE is empty when both sides added the file: no common title then.
    let base_session = read(base, "BASE").ok().flatten();
    if ours_session.header.id != theirs_session.header.id {
        return Err(Error::Unmerged(format!(
            "{}: OURS is session {} and THEIRS session {}: not two versions of one session; OURS left as it \
                was",
            ours.display(),
            ours_session.header.id,
            theirs_session.header.id
        )));
    }
    if theirs_session.header.format > session::FORMAT || ours_session.header.format > session::FORMAT {
        return Err(Error::Unmerged(format!(
            "{}: written in a format newer than {}; OURS left as it was",
            ours.display(),
            session::FORMAT
        )));
    }
    let merged = union3(base_session.as_ref(), &ours_session, &theirs_session);
    let bytes = format::encode(&merged.session.header, &merged.session.messages);
    fsio::write_atomic(ours, &bytes)?;
    if let Some(theirs_title) = merged.title_kept_over {
        return Err(Error::Unmerged(format!(
            "session {}: titled '{}' here and '{}' there; kept '{}' (messages merged); rename it if you want \
                theirs",
            merged.session.header.id,
            printable(&merged.session.header.title, false),
            printable(&theirs_title, false),
            printable(&merged.session.header.title, false)
        )));
    }
    Ok(())
}

/// A side of the merge: None when empty (git gives an empty BASE for a
/// file both sides added), an error when it is not a session file.
fn read(path: &Path, side: &str) -> Result<Option<Session>> {
    let bytes = fsio::read_limited(path, MAX_SESSION_BYTES).map_err(|e| Error::io(path, e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    format::decode(&bytes).map(Some).map_err(|why| {
        Error::Unmerged(format!(
            "{}: {side} is not a valid session file ({why}); OURS left as it was",
            path.display()
        ))
    })
}
