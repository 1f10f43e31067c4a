//! hermes's own export: `sessions export --format jsonl` (one session a
//! line, in the session file's own form) or `--format json` (the default:
//! a JSON array of them), either read as it comes.

use std::fs::File;
use std::io::Seek;

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
    as_array: None,
};

fn read(
    input: &mut File,
    name: &str,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut one = |line_no: usize, record: &[u8]| -> Result<()> {
        if let Err(why) = json::validate(record) {
            tally.not_json(line_no, why.to_string());
            return Ok(());
        }
        let session = match format::decode(record) {
            Ok(session) => session,
            // A hermes session with damaged messages is a damaged line.
            Err(why) if format::decode_header(record).is_ok() => {
                tally.damaged.push((line_no, why));
                return Ok(());
            }
            Err(why) => return Err(source::wrong_source(name, line_no, &SOURCE, record, &why)),
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
    };
    // `export --format json`: an array of the same records.
    let io_error = |source: std::io::Error| crate::error::Error::ImportRead { name: name.to_string(), source };
    let array = source::first_byte(input).map_err(io_error)? == Some(b'[');
    input.rewind().map_err(io_error)?;
    if array {
        super::array::for_each_element(input, name, SOURCE.kind, |element, bytes| one(element.line, bytes))?;
    } else {
        source::for_each_record(input, name, &SOURCE, one)?;
    }
    Ok(tally)
}
