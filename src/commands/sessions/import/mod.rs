//! `hermes sessions import`: sessions from hermes's own export, the Python
//! Hermes's, or llm's logs (`--from`). The whole input is read and checked
//! before anything is written (a wrong `--from` imports nothing); lines
//! that are not JSON at all are skipped and named; existing IDs are
//! skipped, never overwritten, even when the file there is damaged.

mod array;
mod large;
mod record;
mod source;
mod taken;
mod times;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Seek;
use std::path::Path;

use crate::args::{Access, Arg, Kind, Run, Spec, Value, man, option, switch};
use crate::error::{Error, Result};
use crate::fsio::Batch;
use crate::output;
use crate::store::format;
use crate::store::session::{self, Session};
use crate::store::{Settling, Store};
use crate::text::counted;

use large::{Checked, Large};
use source::Incoming;
pub(crate) use source::Source;
use taken::{ShortIds, Taken};

use super::Progress;

macro_rules! sources {
    ($($module:ident),+) => {
        $(mod $module;)+
        /// Every import source, in the order `--from` lists them.
        const SOURCES: &[&Source] = &[$(&$module::SOURCE),+];
    };
}

// Each source's module (which defines its `SOURCE`), in `--from`'s order,
// the default first. A new source is a file here and a word in this line.
sources![hermes, hermes_agent, llm];

/// Files staged before each durable commit; bounds memory and lost work.
const COMMIT_EVERY: usize = 2000;

/// Damaged lines named one by one; past this many, only counted.
const DAMAGED_NAMED: usize = 10;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// The file to read, `-` for stdin.
    pub(crate) file: OsString,
    pub(crate) from: &'static Source,
    pub(crate) dry_run: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions import",
    alias: None,
    summary: "import sessions from hermes, the Python Hermes or llm",
    about: "\
Import sessions from FILE ('-' for stdin). Sessions whose ID already exists
are skipped, never overwritten, so importing a file twice adds nothing.

{options}

hermes is what 'hermes sessions export' writes, json (the default) or
jsonl; hermes-agent is the Python Hermes's own 'sessions export --format
jsonl -'; llm is 'llm logs list --json -n 0'. The whole file is checked
first: a file that is not what --from says imports nothing (exit 2). A line
that is not JSON at all is skipped and named, the rest is imported, and
hermes exits 2. What hermes cannot hold (tool calls and results,
attachments) is left out and counted.
",
    man: man(r#"
import sessions from
.I FILE
.RB ( \- " for stdin)."
Sessions whose ID already exists are skipped, never overwritten, so
importing the same file twice adds nothing.
.B \-\-from hermes
reads what
.B hermes sessions export
writes, in either form: json (the default, one array, on any number of
lines) or jsonl (a session a line); export and import round-trip.
The whole input is checked before anything is written: a file that is
not what
.B \-\-from
says is an error naming its line (and, where it can tell, the
.B \-\-from
that fits), and imports nothing (exit 2).
A line that is not JSON at all, or that holds a time hermes does not
keep (before 1970, after the year 9999, or not a number), is named and
skipped, the rest is imported, and the exit status is 2; in an llm log
such a time skips that one exchange.
In an array (an llm log, a json export), damage hides where the next
entry begins: a damaged entry is named by its line and nothing is
imported (exit 2).
A file that cannot be read is exit 4.
A report on standard error says how many sessions were imported, how
many skipped, and what was left out.
Sessions are written in batches of 2000, each made durable before the
next: an import killed midway (SIGKILL, a crash, a power cut) keeps the
batches before, each session whole, and leaves in
.B sessions/
a temporary file for each session of the batch it was writing (up to
2000, never another kind of file); the next
.B import
(which says how many) or
.B prune
removes them, and importing the same file again adds what is missing.
.IP
What each source becomes:
a title and its source (user or automatic) as the source has them
(llm's
.B conversation_name
is an automatic title; a session without one is titled from its first
message); times from the source (an llm reply at the time its exchange
ended); a system prompt as a
.B system
message before the rest; the working directory where the source has
one.
An ID of hermes's form (the Python Hermes's) is kept; any other (llm's
conversation IDs) becomes one made of the conversation's start time in
UTC and a hash of the source ID, the same on every import.
Two conversations that start in the same second can get the same such
ID: the second gets the next free one.
A conversation is known as imported when a session at one of its IDs
begins with its messages (even if it was continued since), so importing
the same log again adds nothing.
A title is cleaned like a typed one (see
.BR rename ),
cut to 100 characters; a title taken by another session gets
.RI \(dq " (2)\(dq" ,
and so does one shaped like a session ID or an ID prefix, or equal to
the short ID of a session there or imported, with a warning.
Messages in roles other than user, assistant and system (the Python
Hermes's tool results), tool calls and their results, attachments, the
model's reasoning texts, llm's prompt and system fragments and messages
undone by a rewind have no place in a hermes session: they are left out
and counted in the report.
llm's token counts
.RB ( input_tokens ,
.BR output_tokens )
become its replies'
.B usage
(see
.BR FILES );
a count that is no whole number (text, a negative or fractional number)
is ignored with one warning, the rest imported.
A
.B datetime_utc
that is no date (30 February, an offset of +99:00) refuses the input,
naming its line, as one that is not RFC 3339 does;
per-message models, the Python Hermes's token counts and costs are not
kept.
"#),
    options: &[
        option("", "--from", Value::words(source::NAMES), "what wrote FILE (default: hermes)")
            .man(
                r#"
what wrote FILE (default: hermes).
.B hermes
is
.BR "hermes sessions export \-\-format jsonl" ;
.B hermes\-agent
is the Python Hermes agent's own
.B sessions export \-\-format jsonl \-
(version 0.22);
.B llm
is
.BR "llm logs list \-\-json \-n 0" ,
read as a stream an entry at a time, however it is laid out in lines
(as
.B jq \-c
writes it, the whole array may be one line), so a log of any size
imports in little memory.
Every source is read in time linear in its size; what is kept in memory
is about 20 bytes a session there and written (its ID and title, so
that none is given twice), 2 MiB for the short IDs, and 32 bytes an llm
exchange (and some 40 a conversation, while llm's are grouped), plus the
largest session, never the input or a line of it; what the index and
catalog it leaves hold (so that the first listing after it reads no
file) goes to a temporary file in the home as it is written, and is
merged from there at the end.
A session of hermes's own export longer than 4 MiB is not held either:
it is checked, then written, a message at a time.
An export of 1,000,000 short conversations imports in under 64 MiB (43
MiB measured), one of 100,000 in 16 MiB, a 1 GB llm log of 46,000
conversations in under 64 MiB.
"#,
            )
            .takes(|a, v| {
                a.from = source::named(&v.lossy())?;
                Ok(())
            }),
        switch("", "--dry-run", "report what would be imported; write nothing")
            .man(
                r#"
report what would be imported; write nothing.
"#,
            )
            .sets(|a| a.dry_run = true),
    ],
    args: &[Arg::one("FILE", Kind::File).takes(|a, v| {
        a.file = v.os();
        Ok(())
    })],
    start: || Args { file: OsString::new(), from: SOURCES[0], dry_run: false },
    finish: Ok,
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

/// Every session of the input, in order, whatever its source.
fn read(
    from: &Source,
    input: &mut File,
    name: &str,
    checked: &Checked,
    each: &mut dyn FnMut(Incoming) -> Result<()>,
) -> Result<source::Tally> {
    input.rewind().map_err(|source| Error::ImportRead { name: name.to_string(), source })?;
    let tally = (from.read)(input, name, checked, each)?;
    // No line JSON at all is not a damaged file but another kind of file.
    // (Lines of the right kind damaged in a part, a message or a time,
    // are said as such.)
    if tally.sessions == 0
        && tally.not_json == tally.damaged.len()
        && let Some((line, why)) = tally.damaged.first()
    {
        return Err(record::rejected(name, *line, &format!("not {}: no line is JSON ({why})", from.kind)));
    }
    Ok(tally)
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let name = Path::new(&args.file).display().to_string();
    let mut input = open_input(&args.file)?;
    // Pass 1: check everything, write nothing; note the IDs the input
    // brings, whose short IDs a title must not be, and what the sessions
    // too long to hold hold.
    let (mut short_ids, mut checked) = (ShortIds::new(), Checked::default());
    let tally = read(args.from, &mut input, &name, &Checked::default(), &mut |incoming| {
        note_id(&mut short_ids, &mut checked, &incoming)
    })?;

    // A dry run takes no lock and creates nothing: it reads what is there.
    let _guard = if args.dry_run {
        None
    } else {
        store.prepare()?;
        Some(store.lock_store()?)
    };
    if !args.dry_run {
        remove_left_behind(store)?;
    }
    let mut settling = Settling::new(store, !args.dry_run);
    let mut taken = Taken::of(store, &mut settling, short_ids, tally.sessions)?;
    let (mut imported, mut skipped, mut retitled) = (0usize, 0usize, 0usize);
    let mut models_cleaned = Cleaned::default();
    let mut progress = Progress::new("importing", tally.sessions);
    let mut batch = Batch::new(store.sessions_dir());
    // Pass 2: write, in batches.
    read(args.from, &mut input, &name, &checked, &mut |incoming| {
        interrupted()?;
        progress.tick();
        let Incoming { session: mut s, derived_from, large } = incoming;
        if let Some(source_id) = &derived_from {
            // A made-up ID can be another conversation's: try the next
            // until one is free, or until one holds this very conversation
            // (imported before: skipped below).
            match free_derived_id(store, &s, source_id, &taken)? {
                Some(id) => s.header.id = id,
                None => {
                    skipped += 1;
                    return Ok(());
                }
            }
        }
        let key = session::id_key(&s.header.id);
        if !taken.take(&key) {
            if let Some((path, why)) = taken.damaged.remove(&key) {
                output::warn_not_a_session_file(
                    &path,
                    &why,
                    &format!("left in place, so session {} was not imported", s.header.id),
                );
            }
            skipped += 1;
            return Ok(());
        }
        clean_title(&mut s, large.as_ref().map(|(large, _)| large));
        free_id_like_title(&mut s, &taken);
        models_cleaned.clean_model(&mut s);
        if taken.make_unique(&mut s.header.title) {
            retitled += 1;
        }
        (s.header.message_count, s.header.usage) = match &large {
            None => (s.messages.len() as u64, crate::store::session::usage_of(&s.messages)),
            Some((large, _)) => (large.count, large.usage),
        };
        imported += 1;
        if args.dry_run {
            return Ok(());
        }
        stage(store, &mut batch, &mut settling, &s, large.as_ref(), &name)?;
        if batch.len() >= COMMIT_EVERY {
            commit(&mut batch, (&mut imported, &mut skipped), &mut settling)?;
        }
        Ok(())
    })?;
    commit(&mut batch, (&mut imported, &mut skipped), &mut settling)?;
    drop(taken);
    if !args.dry_run {
        // The store ready for the first listing: index and catalog.
        settling.finish(store);
    }
    drop(progress);
    report(&tally, imported, skipped, retitled, args.dry_run);
    models_cleaned.report();
    match tally.damaged.len() {
        0 => Ok(()),
        damaged => Err(Error::ImportIncomplete { name, damaged, dry_run: args.dry_run }),
    }
}

/// Make what is staged durable; a session someone else made meanwhile is
/// skipped, not imported (and the store's settling is told).
fn commit(
    batch: &mut Batch,
    (imported, skipped): (&mut usize, &mut usize),
    settling: &mut Settling,
) -> Result<()> {
    let existed = batch.commit()?;
    (*imported, *skipped) = (*imported - existed, *skipped + existed);
    if existed > 0 {
        settling.unsure();
    }
    Ok(())
}

/// The modification time of an imported session's file: the session's
/// last activity, or a few seconds ago for one without a past time (see
/// store::settle: the index caches a file only once its time is settled).
fn dated(updated_at: f64) -> std::time::SystemTime {
    let settled = crate::time::now() - 3.0;
    let secs =
        if updated_at.is_finite() && (0.0..=settled).contains(&updated_at) { updated_at } else { settled };
    std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs.max(0.0))
}

/// What an import (or any write) killed midway left in `sessions/` goes
/// first, said (see `Store::remove_stray_temporaries`).
fn remove_left_behind(store: &Store) -> Result<()> {
    let swept = store.remove_stray_temporaries()?;
    if swept > 0 {
        output::note!(
            "removed {} that an interrupted import or write left",
            counted(swept, "temporary file")
        );
    }
    Ok(())
}

/// An import file is outside input like any typed title: the title rules
/// apply, so no escape sequence or bidi override reaches a terminal through
/// `list`, and no title has an ID's shape (one that has is freed, and
/// said). Too long is cut here, not refused; a title cleaned to nothing is
/// made from the first message.
fn clean_title(s: &mut Session, large: Option<&Large>) {
    let cleaned = crate::store::titles::foreign_title(&s.header.title);
    if let Some(shape) = session::sanitize_title(&s.header.title).and_then(|t| session::id_shape(&t))
        && cleaned != session::sanitize_title(&s.header.title).unwrap_or_default()
    {
        warn_id_like(&s.header.id, &s.header.title, shape.words(), &cleaned);
    }
    s.header.title = cleaned;
    if s.header.title.is_empty() {
        s.header.title_source = String::new();
        match large {
            None => source::finish(s),
            Some(large) => source::title_from_first_user(&mut s.header, large.first_user_title.clone()),
        }
    }
}

/// Stage session `s` in `batch`, written in the file form (one too long
/// to hold read from the input again as it is written), and tell
/// `settling` of it.
fn stage(
    store: &Store,
    batch: &mut Batch,
    settling: &mut Settling,
    s: &Session,
    large: Option<&(Large, record::Span)>,
    name: &str,
) -> Result<()> {
    let path = store.session_path(&s.header.id).expect("valid IDs only");
    let dated = Some(dated(s.header.updated_at));
    match large {
        None => {
            batch.add(&path, &format::encode(&s.header, &s.messages), dated)?;
            settling.wrote(&s.header, &s.messages);
        }
        Some((large, span)) => {
            batch.add_with(&path, dated, &mut |file| large::write(span, &s.header, file, name))?;
            settling.wrote_measured(&s.header, &large.measure);
        }
    }
    Ok(())
}

/// Pass 1's step: the short ID of the ID a session brings, when it has
/// one of its own.
fn note_id(short_ids: &mut ShortIds, checked: &mut Checked, incoming: &Incoming) -> Result<()> {
    if incoming.derived_from.is_none() {
        short_ids.note(&session::id_key(&incoming.session.header.id));
    }
    if let Some((large, _)) = &incoming.large {
        checked.note(large);
    }
    interrupted()
}

/// A title that is the short ID of a session there or coming (or an ID
/// shaped one, which `clean_title` freed already) is not refused, as a
/// typed one would be: freed as a taken title is (`a1b2c3 (2)`), and said.
fn free_id_like_title(s: &mut Session, taken: &Taken) {
    // The IDs it is the short ID of are not named here: one stands for them.
    let holders = |suffix: &str| Vec::from_iter(taken.has_short_id(suffix).then(|| session::id_key(suffix)));
    let Some(like) = crate::store::titles::id_like(&s.header.title, holders) else {
        return;
    };
    let freed = crate::store::titles::numbered(&s.header.title, 2);
    let was = std::mem::replace(&mut s.header.title, freed);
    warn_id_like(&s.header.id, &was, like.shape.words(), &s.header.title);
}

/// Say that session `id`'s title `was` has an ID's shape, and what it is now.
fn warn_id_like(id: &str, was: &str, shape: &str, now: &str) {
    output::warn(&format!(
        "session {id}: the title '{}' has the shape of {shape}, which a title must not have; \
         imported as '{}'",
        crate::text::printable(was, false),
        crate::text::printable(now, false)
    ));
}

/// The sessions whose model was cleaned: the first few named, the rest counted.
#[derive(Default)]
struct Cleaned {
    named: Vec<String>,
    count: usize,
}

impl Cleaned {
    /// A model is outside input as a title is: one that `clean_model`
    /// would refuse is not refused here (the conversation must not be
    /// lost) but cleaned (`session::foreign_model`), and said.
    fn clean_model(&mut self, s: &mut Session) {
        let Some(model) = &s.header.model else { return };
        if session::clean_model(model).as_deref() == Ok(model.as_str()) {
            return;
        }
        s.header.model = session::foreign_model(model);
        self.count += 1;
        if self.named.len() < DAMAGED_NAMED {
            self.named.push(s.header.id.clone());
        }
    }

    fn report(&self) {
        for id in &self.named {
            output::warn(&format!(
                "session {id}: its model's name held control or invisible characters, or more than {} \
                    characters; cleaned",
                session::MAX_MODEL_CHARS
            ));
        }
        if self.count > self.named.len() {
            output::warn(&format!("{} more models' names cleaned", self.count - self.named.len()));
        }
    }
}

/// What the import did (or, with --dry-run, would do), on stderr.
fn report(tally: &source::Tally, imported: usize, skipped: usize, retitled: usize, dry_run: bool) {
    if dry_run {
        crate::output::note!(
            "would import {}, skip {skipped} that already exist{}",
            counted(imported, "session"),
            if retitled > 0 { format!(", rename {retitled} whose title is taken") } else { String::new() }
        );
    } else {
        crate::output::note!(
            "imported {imported} session{}, skipped {skipped} that already existed{}",
            if imported == 1 { "" } else { "s" },
            if retitled > 0 { format!(", renamed {retitled} whose title was taken") } else { String::new() }
        );
    }
    if !tally.left_out.is_empty() {
        let total: usize = tally.left_out.iter().map(|(_, n)| n).sum();
        let parts: Vec<String> = tally.left_out.iter().map(|(why, n)| format!("{n} {why}")).collect();
        crate::output::note!(
            "left out {total} item{} hermes sessions cannot hold: {}",
            if total == 1 { "" } else { "s" },
            parts.join(", ")
        );
    }
    if let Some((line, field)) = tally.ignored.first() {
        let more = match tally.ignored.len() - 1 {
            0 => String::new(),
            n => format!(" (so {} {n} more)", if n == 1 { "is" } else { "are" }),
        };
        output::warn(&format!(
            "line {line}: {field} is not a number of tokens; ignored{more}, the rest imported"
        ));
    }
    for (line, why) in tally.damaged.iter().take(DAMAGED_NAMED) {
        output::warn(&format!("line {line} is damaged ({why}); skipped"));
    }
    if tally.damaged.len() > DAMAGED_NAMED {
        output::warn(&format!("{} more damaged lines skipped", tally.damaged.len() - DAMAGED_NAMED));
    }
}

/// Ctrl-C or SIGTERM: stop before the next session; what is staged goes
/// with the batch, what was committed stays (each file whole).
fn interrupted() -> Result<()> {
    if crate::sys::signal_pending() { Err(Error::Interrupted) } else { Ok(()) }
}

/// The ID a conversation whose ID was made up gets: the first of its
/// candidate IDs that no session has, or None when a session already
/// holds this conversation (the same messages from the start: an earlier
/// import of it, maybe continued since). A session of this import run is
/// never this conversation (each source conversation comes once).
fn free_derived_id(store: &Store, s: &Session, source_id: &str, taken: &Taken) -> Result<Option<String>> {
    for attempt in 0.. {
        let id = source::derived_id(s.header.created_at, source_id, attempt);
        let key = session::id_key(&id);
        match taken.holder(&key) {
            None => return Ok(Some(id)),
            Some(true) => {
                if let Ok(Some(there)) = store.load(&id)
                    && holds(&there, s)
                {
                    return Ok(None);
                }
            }
            Some(false) => {}
        }
    }
    unreachable!("attempts are unbounded")
}

/// Whether session `there` begins with every message of `s`.
fn holds(there: &Session, s: &Session) -> bool {
    there.messages.len() >= s.messages.len()
        && there
            .messages
            .iter()
            .zip(&s.messages)
            .all(|(a, b)| a.role == b.role && a.content == b.content && a.ts.to_bits() == b.ts.to_bits())
}

/// A file is read twice (check, then write); stdin is first copied to an
/// unnamed temporary file so it can be too.
fn open_input(file: &OsStr) -> Result<File> {
    if file == "-" {
        let mut spool = tempfile_in_tmp()?;
        std::io::copy(&mut std::io::stdin().lock(), &mut spool)
            .map_err(|source| Error::ImportRead { name: "reading stdin".into(), source })?;
        return Ok(spool);
    }
    let path = Path::new(file);
    File::open(path).map_err(|e| Error::io(path, e))
}

fn tempfile_in_tmp() -> Result<File> {
    let dir = std::env::temp_dir();
    loop {
        let path = dir.join(format!("hermes-import.{}", crate::fsio::random_hex(12)));
        match crate::fsio::create_new_private(&path) {
            Ok(_) => {
                let file = std::fs::OpenOptions::new().read(true).write(true).open(&path);
                let _ = std::fs::remove_file(&path);
                return file.map_err(|e| Error::io(&path, e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_each_importer_writes_takes_the_fast_path() {
        // hermes's own export, of messages with this clock's times; the
        // Python Hermes's and llm's, as their tools wrote them.
        let dir = std::env::temp_dir().join(format!("hermes-import-fast-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let own = dir.join("own.jsonl");
        let now = crate::time::now();
        let mut header = session::Header::new("20261202_143015_a1b2c3".into(), "/w".into(), now);
        let messages: Vec<session::Message> = ["hi", "a \u{1b}[1mreply\u{1b}[0m", "é 🦀"]
            .iter()
            .enumerate()
            .map(|(i, text)| {
                session::Message::new(["user", "assistant"][i % 2], text.to_string(), now + i as f64 / 7.0)
            })
            .collect();
        messages.iter().for_each(|m| header.note_message(m));
        std::fs::write(&own, format::encode_line(&header, &messages) + "\n").expect("written");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let inputs = [
            (&hermes::SOURCE, own),
            (&hermes_agent::SOURCE, fixtures.join("hermes-agent-0.22.2-export.jsonl")),
            (&llm::SOURCE, fixtures.join("llm-0.36-logs.json")),
        ];
        for (source, path) in inputs {
            let mut file = File::open(&path).expect("the input");
            let mut told = (0, 0);
            (source.read)(&mut file, "input", &Checked::default(), &mut |incoming| {
                let s = incoming.session;
                let (fast, all) = format::told_fast(&format::encode(&s.header, &s.messages));
                told = (told.0 + fast, told.1 + all);
                Ok(())
            })
            .expect("read");
            assert!(told.1 > 2 && told.0 == told.1, "{}: {told:?}", source.name);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
