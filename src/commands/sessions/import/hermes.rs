//! hermes's own export: `sessions export --format jsonl` (one session a
//! line, in the session file's own form) or `--format json` (the default:
//! a JSON array of them), either read as it comes.

use std::fs::File;
use std::io::Seek;

use crate::error::Result;
use crate::store::format;
use crate::store::json;
use crate::store::session::{self, FORMAT, Header, Session};

use super::large::{self, Checked};
use super::record::{Record, rejected};
use super::source::{self, Incoming, Source, Tally};
use super::times;

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
    checked: &Checked,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let mut one = |line_no: usize, record: Record| -> Result<()> {
        // A session too long to hold, read as a stream when it reads so.
        if let Record::Span(span) = &record
            && let Some((header, large)) = large::take(span, checked, name)?
        {
            if admissible(name, line_no, &header, large.first_bad_time, &mut tally)? {
                let session = Session { header, messages: Vec::new() };
                return each(Incoming { session, derived_from: None, large: Some((large, *span)) });
            }
            return Ok(());
        }
        let record = &*record.bytes(name, line_no)?;
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
        let first_bad = session.messages.iter().enumerate().find(|(_, m)| !times::sane_time(m.ts));
        if admissible(name, line_no, &session.header, first_bad.map(|(i, m)| (i, m.ts)), &mut tally)? {
            return each(Incoming::own(session));
        }
        Ok(())
    };
    // `export --format json`: an array of the same records.
    let io_error =
        |source: std::io::Error| crate::error::Error::ImportRead { name: name.to_string(), source };
    let array = source::first_byte(input).map_err(io_error)? == Some(b'[');
    input.rewind().map_err(io_error)?;
    if array {
        super::array::for_each_element(input, name, SOURCE.kind, |element, record| {
            one(element.line, record)
        })?;
    } else {
        source::for_each_record(input, name, &SOURCE, one)?;
    }
    Ok(tally)
}

/// Whether a session read is counted: an ID of hermes's shape and a format
/// this hermes knows (else the whole input is refused), and times it keeps
/// (else the line is damaged, and noted so); `first_bad` is its first
/// message whose time is not one.
fn admissible(
    name: &str,
    line_no: usize,
    header: &Header,
    first_bad: Option<(usize, f64)>,
    tally: &mut Tally,
) -> Result<bool> {
    if !session::is_valid_id(&header.id) {
        let id = crate::text::clipped(&header.id);
        return Err(rejected(name, line_no, &format!("invalid session id '{id}'")));
    }
    if header.format > FORMAT {
        return Err(rejected(
            name,
            line_no,
            &format!("session format {} is newer than this hermes understands", header.format),
        ));
    }
    if let Some(why) = times::bad_times(header, first_bad) {
        tally.damaged.push((line_no, why));
        return Ok(false);
    }
    tally.sessions += 1;
    Ok(true)
}
