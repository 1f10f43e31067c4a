//! `hermes sessions merge-file BASE OURS THEIRS`: git's merge driver for
//! session files (`%O %A %B`). The merge is written into OURS.

use std::ffi::OsString;
use std::path::Path;

use lexopt::prelude::*;

use crate::args::positional_args;

use crate::error::{Error, Result};
use crate::fsio;
use crate::store::MAX_SESSION_BYTES;
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

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [base, ours, theirs] =
        positional_args("merge-file", positional, "BASE OURS THEIRS (git's %O %A %B)")?;
    Ok(Args { base, ours, theirs })
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
            "{}: OURS is session {} and THEIRS session {}: not two versions of one session; OURS left as it was",
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
            "session {}: titled '{}' here and '{}' there; kept '{}' (messages merged); rename it if you want theirs",
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
