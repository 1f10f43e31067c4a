//! hermes's own export (`sessions export --format jsonl`): one session a
//! line, in the session file's own form.

use std::fs::File;
use std::io::Seek;

use crate::error::Result;
use crate::store::format;
use crate::store::json;
use crate::store::session::{self, FORMAT};

use super::source::{self, Incoming, Source, Tally, rejected};

pub fn read(input: &mut File, name: &str, each: &mut dyn FnMut(Incoming) -> Result<()>) -> Result<Tally> {
    let head = source::sniff_head(input);
    input.rewind().map_err(|e| crate::error::Error::io(std::path::Path::new(name), e))?;
    let mut tally = Tally::default();
    source::for_each_line(input, name, |line_no, line| {
        if line_no == 1 && line.starts_with(b"[") {
            return Err(match head {
                Some(other @ (Source::Llm | Source::HermesAgent)) => rejected(
                    name,
                    line_no,
                    &format!(
                        "a JSON array, not JSON Lines; it looks like {}: use --from {}",
                        other.kind(),
                        other.name()
                    ),
                ),
                _ => rejected(
                    name,
                    line_no,
                    "this looks like 'export --format json'; import reads --format jsonl",
                ),
            });
        }
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
            Err(why) => return Err(source::wrong_source(name, line_no, Source::Hermes, line, &why)),
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
