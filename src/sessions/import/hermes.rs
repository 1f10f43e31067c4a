//! hermes's own export (`sessions export --format jsonl`): one session a
//! line, in the session file's own form.

use std::fs::File;

use crate::error::Result;
use crate::store::format;
use crate::store::json;
use crate::store::session::{self, FORMAT};

use super::source::{self, Incoming, Source, Tally, rejected};

pub(crate) const SOURCE: Source = Source {
    name: "hermes",
    kind: "a hermes export",
    wrote: |has| has("messages") && has("format"),
    read,
    as_array: Some("this looks like 'export --format json'; import reads --format jsonl"),
};

fn read(
    input: &mut File,
    name: &str,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<Tally> {
    let mut tally = Tally::default();
    source::for_each_record(input, name, &SOURCE, |line_no, line| {
        if let Err(why) = json::validate(line) {
            tally.damaged.push((line_no, why.to_string()));
            return Ok(());
        }
        let session = match format::decode(line) {
            Ok(session) => session,
            // A hermes session with damaged messages is a damaged line.
            Err(why) if format::decode_header(line).is_ok() => {
                tally.damaged.push((line_no, why));
                return Ok(());
            }
            Err(why) => return Err(source::wrong_source(name, line_no, &SOURCE, line, &why)),
        };
        if !session::is_valid_id(&session.header.id) {
            return Err(rejected(
                name,
                line_no,
                &format!("invalid session id '{}'", crate::text::clipped(&session.header.id)),
            ));
        }
        if session.header.format > FORMAT {
            return Err(rejected(
                name,
                line_no,
                &format!("session format {} is newer than this hermes understands", session.header.format),
            ));
        }
        if let Some(why) = source::bad_times(&session) {
            tally.damaged.push((line_no, why));
            return Ok(());
        }
        tally.sessions += 1;
        each(Incoming::own(session))
    })?;
    Ok(tally)
}
