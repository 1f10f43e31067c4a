//! `hermes sessions stats`: how much is in the store.

use lexopt::prelude::*;
use nanoserde::SerJson;

use crate::args::positional_args;
use crate::error::{Error, Result};
use crate::output::Out;
use crate::store::Store;
use crate::terminal::breadcrumb;
use crate::time;

#[derive(SerJson, Default)]
#[nserde(serialize_none_as_null)]
struct Stats {
    sessions: u64,
    messages: u64,
    bytes: u64,
    unreadable: u64,
    oldest_activity: Option<f64>,
    newest_activity: Option<f64>,
    breadcrumbs: u64,
    /// Temporary files of writes that never finished (or are running now).
    temporaries: u64,
    temporary_bytes: u64,
}

#[derive(Debug, PartialEq)]
pub struct Args {
    pub json: bool,
}

pub fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut json = false;
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => json = true,
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [] = positional_args("stats", positional, "")?;
    Ok(Args { json })
}

pub fn run(store: &Store, args: Args) -> Result<()> {
    let mut stats = Stats::default();
    store.scan(|entry| {
        stats.bytes +=
            entry.size.unwrap_or_else(|| std::fs::symlink_metadata(entry.path()).map_or(0, |m| m.len()));
        match entry.header {
            Ok(h) => {
                stats.sessions += 1;
                stats.messages = stats.messages.saturating_add(h.message_count);
                stats.oldest_activity =
                    Some(stats.oldest_activity.map_or(h.updated_at, |o| o.min(h.updated_at)));
                stats.newest_activity =
                    Some(stats.newest_activity.map_or(h.updated_at, |n| n.max(h.updated_at)));
            }
            Err(_) => stats.unreadable += 1,
        }
    })?;
    crate::view::list::warn_conflict_copies(store);
    stats.breadcrumbs = breadcrumb::all(store).len() as u64;
    for (_, _, size, _) in store.temporaries() {
        stats.temporaries += 1;
        stats.temporary_bytes += size;
    }
    let mut out = Out::new();
    if args.json {
        out.line(&stats.serialize_json())?;
        return out.flush();
    }
    let when = |t: Option<f64>| t.map_or("-".to_string(), time::local_minutes);
    out.write(&format!(
        "sessions:     {}\nmessages:     {}\nbytes:        {}\nunreadable:   {}\noldest:       {}\nnewest:       {}\nbreadcrumbs:  {}\ntemporaries:  {} ({} bytes)\n",
        stats.sessions,
        stats.messages,
        stats.bytes,
        stats.unreadable,
        when(stats.oldest_activity),
        when(stats.newest_activity),
        stats.breadcrumbs,
        stats.temporaries,
        stats.temporary_bytes
    ))?;
    out.flush()
}
