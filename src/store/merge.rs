//! Two versions of one session made one: the conflict copies that sync
//! tools and editors leave beside a session file, and the three files git
//! hands a merge driver. The union of their messages in time order, each
//! message once, with the header worked out again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::store::Next;
use crate::store::session::{Header, Message, Session, TITLE_AUTO, TITLE_USER};

/// A file beside the sessions that holds another version of one: what a
/// sync tool makes when two machines changed the session at once, or an
/// editor's backup.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConflictCopy {
    pub(crate) path: PathBuf,
    /// The session it is a version of (from its name).
    pub(crate) id: String,
}

/// The session ID a conflict copy's file name belongs to, if it is one:
/// - Syncthing: `ID.sync-conflict-20260101-120000-ABCDEFG.json`
/// - Dropbox, Nextcloud, ownCloud: `ID (conflicted copy 2026-01-01).json`,
///   `ID (ana's conflicted copy 2026-01-01).json`,
///   `ID (conflicted copy 2026-01-01 120000).json`
/// - editors' backups: `ID.json~`
pub(crate) fn copy_of(name: &str) -> Option<&str> {
    let id = name.get(..22).filter(|id| crate::store::session::is_valid_id(id))?;
    let rest = &name[22..];
    let syncthing =
        rest.strip_prefix(".sync-conflict-").and_then(|r| r.strip_suffix(".json")).is_some_and(|r| {
            let b = r.as_bytes();
            b.len() > 16
                && b[..8].iter().all(u8::is_ascii_digit)
                && b[8] == b'-'
                && b[9..15].iter().all(u8::is_ascii_digit)
                && b[15] == b'-'
                && b[16..].iter().all(u8::is_ascii_alphanumeric)
        });
    let conflicted_copy = rest
        .strip_prefix(" (")
        .and_then(|r| r.strip_suffix(").json"))
        .is_some_and(|r| r.contains("conflicted copy") || r.contains("Conflicted copy"));
    let backup = rest == ".json~";
    (syncthing || conflicted_copy || backup).then_some(id)
}

/// What merging one version into another came to.
#[derive(Debug, PartialEq)]
pub(crate) struct Merged {
    pub(crate) session: Session,
    /// Messages of the incoming version that the other lacked.
    pub(crate) added: usize,
    /// Two different user titles: ours was kept; this is theirs.
    pub(crate) title_kept_over: Option<String>,
}

/// The identity of a message: the same role, time and content is the same
/// message, whichever file it came from.
fn message_key(m: &Message) -> (&str, u64, &str) {
    (&m.role, m.ts.to_bits(), &m.content)
}

/// `ours` with every message of `theirs` it lacks, in time order (a stable
/// sort: messages of one time keep ours-first order), and its header worked
/// out again: counts and preview from the messages, the earliest creation,
/// the latest activity, and a title a person gave kept over an automatic
/// one. Two different user titles keep ours, and say so. The header's ID
/// and format stay ours.
pub(crate) fn union(ours: &Session, theirs: &Session) -> Merged {
    let mut seen: HashSet<(&str, u64, &str)> = ours.messages.iter().map(message_key).collect();
    let mut messages = ours.messages.clone();
    for m in &theirs.messages {
        if seen.insert(message_key(m)) {
            messages.push(m.clone());
        }
    }
    let added = messages.len() - ours.messages.len();
    crate::order::sort_by(&mut messages, |a, b| a.ts.total_cmp(&b.ts));
    let mut outline = Outline::start(&ours.header, &theirs.header);
    for m in &messages {
        outline.note(m);
    }
    let (header, title_kept_over) = outline.finish(&ours.header, &theirs.header);
    Merged { session: Session { header, messages }, added, title_kept_over }
}

/// What `union` comes to, told without holding either version: its
/// header, how many messages theirs adds, and a user title of theirs that
/// ours kept its own over.
pub(crate) struct Planned {
    pub(crate) header: Header,
    pub(crate) added: usize,
    pub(crate) title_kept_over: Option<String>,
}

/// `union`'s header and count, from the two versions' messages given one
/// at a time; None when a version's messages are not in time order (then
/// only `union`, holding both, can sort them).
pub(crate) fn plan_union(o: &Header, t: &Header, ours: Next, theirs: Next) -> Result<Option<Planned>> {
    let mut outline = Outline::start(o, t);
    let mut added = 0;
    let sorted = walk_union(ours, theirs, &mut |m, new| {
        outline.note(m);
        added += usize::from(new);
        Ok(())
    })?;
    if !sorted {
        return Ok(None);
    }
    let (header, title_kept_over) = outline.finish(o, t);
    Ok(Some(Planned { header, added, title_kept_over }))
}

/// The messages of `union`, in its order, given to `visit` one at a time
/// (with whether it is one theirs adds), read a message at a time from
/// two versions whose messages are each in time order: a message of
/// theirs is new unless ours, or theirs before it, has one of the same
/// role, time and content, so only the messages of one time are held.
/// Ok(false) as soon as a version's messages go back in time; what was
/// visited until then is to be thrown away.
pub(crate) fn walk_union(
    ours: Next,
    theirs: Next,
    visit: &mut dyn FnMut(&Message, bool) -> Result<()>,
) -> Result<bool> {
    let (mut o, mut t) = (ours()?, theirs()?);
    let mut same_time: Vec<Message> = Vec::new();
    loop {
        let ts = match (&o, &t) {
            (None, None) => return Ok(true),
            (Some(a), None) => a.ts,
            (None, Some(b)) => b.ts,
            (Some(a), Some(b)) => {
                if b.ts.total_cmp(&a.ts).is_lt() {
                    b.ts
                } else {
                    a.ts
                }
            }
        };
        same_time.clear();
        // Ours first, every one kept; then theirs not told yet.
        if !take_time(ours, &mut o, ts, false, &mut same_time, visit)?
            || !take_time(theirs, &mut t, ts, true, &mut same_time, visit)?
        {
            return Ok(false);
        }
    }
}

/// `walk_union`'s step: the messages of time `ts` at the head of one
/// version, `head` left at its first later one; false if it goes back in
/// time.
fn take_time(
    next: Next,
    head: &mut Option<Message>,
    ts: f64,
    theirs: bool,
    same_time: &mut Vec<Message>,
    visit: &mut dyn FnMut(&Message, bool) -> Result<()>,
) -> Result<bool> {
    while let Some(m) = head.take_if(|m| m.ts.to_bits() == ts.to_bits()) {
        *head = next()?;
        if head.as_ref().is_some_and(|n| n.ts.total_cmp(&m.ts).is_lt()) {
            return Ok(false);
        }
        if !theirs || !same_time.iter().any(|s| message_key(s) == message_key(&m)) {
            visit(&m, theirs)?;
            same_time.push(m);
        }
    }
    Ok(true)
}

/// A merged header in the making: started from the two versions' headers,
/// each message of the union noted in its order, then finished.
struct Outline {
    header: Header,
    title_kept_over: Option<String>,
    /// The automatic title the union's first user message gives (if any).
    first_user_title: Option<Option<String>>,
}

impl Outline {
    fn start(o: &Header, t: &Header) -> Outline {
        let mut header = Header::new(o.id.clone(), o.cwd.clone(), o.created_at.min(t.created_at));
        header.format = o.format;
        if header.cwd.is_empty() {
            header.cwd = t.cwd.clone();
        }
        let mut title_kept_over = None;
        let (title, source) = if o.has_user_title() {
            if t.has_user_title() && t.title != o.title {
                title_kept_over = Some(t.title.clone());
            }
            (&o.title, &o.title_source)
        } else if t.has_user_title() || o.title.is_empty() {
            (&t.title, &t.title_source)
        } else {
            (&o.title, &o.title_source)
        };
        header.title = title.clone();
        header.title_source = source.clone();
        Outline { header, title_kept_over, first_user_title: None }
    }

    /// note_message titles an untitled session from its first message; one
    /// that had a title keeps it, whatever came first.
    fn note(&mut self, m: &Message) {
        self.header.note_message(m);
        if self.first_user_title.is_none() && m.role == "user" {
            self.first_user_title = Some(crate::store::session::clean_title(&m.content));
        }
    }

    fn finish(self, o: &Header, t: &Header) -> (Header, Option<String>) {
        let Outline { mut header, mut title_kept_over, first_user_title } = self;
        if header.title.is_empty() {
            header.title_source = String::new();
        } else if header.title_source.is_empty() {
            header.title_source = TITLE_AUTO.to_string();
        }
        header.updated_at = header.updated_at.max(o.updated_at).max(t.updated_at);
        header.model = merged_model(o, t);
        header.role = o.role.clone().or_else(|| t.role.clone());
        header.options = o.options.clone().or_else(|| t.options.clone());
        debug_assert!(
            header.title_source.is_empty()
                || [TITLE_USER, TITLE_AUTO].contains(&header.title_source.as_str())
        );
        clean_title(&mut header, &mut title_kept_over, || first_user_title.flatten());
        (header, title_kept_over)
    }
}

/// The model the session was last used with: that of the version active
/// last (ours on a tie), else the other's. Another version's file is
/// outside input: a model's name that a typed one could not be is cleaned
/// (`session::foreign_model`), and said.
fn merged_model(ours: &Header, theirs: &Header) -> Option<String> {
    let (first, second) = if theirs.updated_at > ours.updated_at { (theirs, ours) } else { (ours, theirs) };
    let model = first.model.as_ref().or(second.model.as_ref())?;
    if crate::store::session::clean_model(model).as_deref() == Ok(model.as_str()) {
        return Some(model.clone());
    }
    crate::output::warn(&format!(
        "session {}: its model's name held control or invisible characters, or more than {} characters; \
            cleaned",
        ours.id,
        crate::store::session::MAX_MODEL_CHARS
    ));
    crate::store::session::foreign_model(model)
}

/// A title that came with another version is outside input like a typed
/// one: cleaned the same way (no escape sequences, no bidi overrides, no
/// ID's shape); one with nothing left gives way to an automatic title
/// (`first_user_title`: what the union's first user message gives).
fn clean_title(
    header: &mut Header,
    title_kept_over: &mut Option<String>,
    first_user_title: impl FnOnce() -> Option<String>,
) {
    let clean = crate::store::titles::foreign_title(&header.title);
    if clean != header.title {
        header.title = clean;
        if header.title.is_empty() {
            header.title_source = String::new();
            if let Some(title) = first_user_title() {
                header.title = title;
                header.title_source = TITLE_AUTO.to_string();
            }
        }
    }
    if let Some(theirs) = title_kept_over
        && crate::store::titles::foreign_title(theirs) == header.title
    {
        *title_kept_over = None;
    }
}

/// Like `union`, knowing the version both came from (git's merge base):
/// a title only theirs changed is taken, one only ours changed is kept,
/// and only two different changes are a conflict (ours kept, theirs in
/// `title_kept_over`).
pub(crate) fn union3(base: Option<&Session>, ours: &Session, theirs: &Session) -> Merged {
    let mut merged = union(ours, theirs);
    let titled = |s: &Session| (s.header.title.clone(), s.header.title_source.clone());
    if let Some(base) = base {
        if titled(ours) == titled(base) && titled(theirs) != titled(base) {
            let (title, source) = titled(theirs);
            merged.session.header.title = title;
            merged.session.header.title_source = source;
            merged.title_kept_over = None;
        } else if titled(theirs) == titled(base) {
            merged.title_kept_over = None;
        }
    }
    let Merged { session, title_kept_over, .. } = &mut merged;
    let messages = &session.messages;
    let first_user = || messages.iter().find(|m| m.role == "user").and_then(|m| clean_title_of(&m.content));
    clean_title(&mut session.header, title_kept_over, first_user);
    merged
}

fn clean_title_of(content: &str) -> Option<String> {
    crate::store::session::clean_title(content)
}

/// The file name of a path, for messages.
pub(crate) fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "20261202_143015_a1b2c3";

    #[test]
    fn knows_the_names_sync_tools_and_editors_give_copies() {
        for name in [
            "20261202_143015_a1b2c3.sync-conflict-20260101-120000-ABCDEFG.json",
            "20261202_143015_a1b2c3 (conflicted copy 2026-01-01).json",
            "20261202_143015_a1b2c3 (ana's conflicted copy 2026-01-01).json",
            "20261202_143015_a1b2c3 (conflicted copy 2026-01-01 120000).json",
            "20261202_143015_a1b2c3.json~",
        ] {
            assert_eq!(copy_of(name), Some(ID), "{name}");
        }
        for name in [
            "20261202_143015_a1b2c3.json",
            "20261202_143015_a1b2c3.sync-conflict-2026-120000-ABCDEFG.json",
            "20261202_143015_a1b2c3 (copy).json",
            "x0261202_143015_a1b2c3.json~",
            ".20261202_143015_a1b2c3.json.0123456789ab.tmp",
            "20261202_143015_a1b2c3.json~~",
            "2026",
        ] {
            assert_eq!(copy_of(name), None, "{name}");
        }
    }

    #[test]
    fn every_message_a_merge_writes_takes_the_fast_path() {
        // Ours with this clock's times; theirs read from a file another
        // writer laid out otherwise (keys reordered, blanks, \u escapes).
        let now = crate::time::now();
        let ours = session(
            "t",
            TITLE_USER,
            vec![msg("user", "one \u{1b}[1m", now), msg("assistant", "two", now + 0.25)],
        );
        let theirs_file = format!(
            "{{\"format\":1,\"id\":\"{ID}\",\"title\":\"t\",\"messages\":[\n\
            {{ \"ts\": {now}, \"content\": \"one \\u001b[1m\", \"role\": \"user\" }},\n\
            {{\"content\":\"th\\u00e9 \\ud83d\\ude00\",\"ts\":{},\"role\":\"user\",\
                \"interrupted\":true}}\n]}}",
            now + 1.5
        );
        let theirs = crate::store::format::decode(theirs_file.as_bytes()).expect("a session");
        let merged = union(&ours, &theirs);
        assert_eq!((merged.added, merged.session.messages.len()), (1, 3));
        let bytes = crate::store::format::encode(&merged.session.header, &merged.session.messages);
        assert_eq!(crate::store::format::told_fast(&bytes), (3, 3));
    }

    fn msg(role: &str, content: &str, ts: f64) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
            ts,
            interrupted: None,
            incomplete: None,
            replaced: None,
            summary: None,
            usage: None,
            images: None,
        }
    }

    fn session(title: &str, source: &str, messages: Vec<Message>) -> Session {
        let mut header = Header::new(ID.into(), "/w".into(), messages.first().map_or(1.0, |m| m.ts));
        header.title = title.into();
        header.title_source = source.into();
        for m in &messages {
            header.note_message(m);
        }
        Session { header, messages }
    }

    #[test]
    fn unites_messages_in_time_order_each_once() {
        let common = vec![msg("user", "hi", 10.0), msg("assistant", "hello", 11.0)];
        let mut a = common.clone();
        a.push(msg("user", "from a", 20.0));
        let mut b = common.clone();
        b.push(msg("user", "from b", 15.0));
        b.push(msg("user", "hi", 30.0)); // same words, another time: another message
        let merged = union(&session("hi", "auto", a), &session("hi", "auto", b));
        let texts: Vec<_> = merged.session.messages.iter().map(|m| (m.content.as_str(), m.ts)).collect();
        assert_eq!(texts, [("hi", 10.0), ("hello", 11.0), ("from b", 15.0), ("from a", 20.0), ("hi", 30.0)]);
        assert_eq!(merged.added, 2);
        assert_eq!(merged.session.header.message_count, 5);
        assert_eq!(merged.session.header.updated_at, 30.0);
        assert_eq!(merged.session.header.preview, "hi");
        // Merging again adds nothing: a merge cut short can be run again.
        let again = union(&merged.session, &session("hi", "auto", common));
        assert_eq!(again.added, 0);
        assert_eq!(again.session, merged.session);
    }

    #[test]
    fn a_user_title_wins_over_an_automatic_one_and_ours_over_theirs() {
        let m = vec![msg("user", "hi", 10.0)];
        let auto = session("hi", "auto", m.clone());
        let named = session("redis", "user", m.clone());
        let other = session("cache", "user", m.clone());
        let merged = union(&auto, &named);
        assert_eq!((merged.session.header.title.as_str(), merged.title_kept_over), ("redis", None));
        let merged = union(&named, &auto);
        assert_eq!((merged.session.header.title.as_str(), merged.title_kept_over), ("redis", None));
        let merged = union(&named, &other);
        assert_eq!(merged.session.header.title, "redis");
        assert_eq!(merged.title_kept_over.as_deref(), Some("cache"));
        assert_eq!(merged.session.header.title_source, "user");
        // With the common ancestor: only theirs renamed, so theirs is taken.
        let merged = union3(Some(&named), &named, &other);
        assert_eq!((merged.session.header.title.as_str(), merged.title_kept_over), ("cache", None));
        let merged = union3(Some(&other), &named, &other);
        assert_eq!((merged.session.header.title.as_str(), merged.title_kept_over), ("redis", None));
        let merged = union3(Some(&auto), &named, &other);
        assert_eq!(merged.title_kept_over.as_deref(), Some("cache"));
    }

    #[test]
    fn the_union_walked_a_message_at_a_time_is_the_union_held_whole() {
        // Pairs of versions in time order, with messages of one time (the
        // same and not), repeated in either, titled or not: walked, they
        // give what union gives; out of time order, the walk says so.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        for round in 0..400 {
            let mut version = || -> Vec<Message> {
                let n = next() % 8;
                let mut ms: Vec<Message> = (0..n)
                    .map(|_| {
                        let role = ["user", "assistant", "system"][(next() % 3) as usize];
                        msg(role, ["a", "b", "c"][(next() % 3) as usize], (next() % 6) as f64 + 0.5)
                    })
                    .collect();
                crate::order::sort_by(&mut ms, |a, b| a.ts.total_cmp(&b.ts));
                ms
            };
            let (a, b) = (version(), version());
            let titles = [("", ""), ("hi", "auto"), ("redis", "user"), ("\u{1b}[1m", "user")];
            let (ta, tb) = (titles[round % 4], titles[(round / 4) % 4]);
            let (ours, theirs) = (session(ta.0, ta.1, a), session(tb.0, tb.1, b));
            let held = union(&ours, &theirs);
            let pull = |s: &Session| {
                let mut it = s.messages.clone().into_iter();
                move || Ok(it.next())
            };
            let planned = plan_union(&ours.header, &theirs.header, &mut pull(&ours), &mut pull(&theirs))
                .expect("no error")
                .expect("in time order");
            let mut walked = Vec::new();
            let sorted = walk_union(&mut pull(&ours), &mut pull(&theirs), &mut |m, _| {
                walked.push(m.clone());
                Ok(())
            });
            assert!(sorted.expect("no error"));
            assert_eq!(walked, held.session.messages, "{round}");
            assert_eq!(planned.header, held.session.header, "{round}");
            assert_eq!((planned.added, planned.title_kept_over), (held.added, held.title_kept_over));
        }
        let late_first = session("t", "user", vec![msg("user", "b", 2.0), msg("user", "a", 1.0)]);
        let fine = session("t", "user", vec![msg("user", "c", 1.5)]);
        let pull = |s: &Session| {
            let mut it = s.messages.clone().into_iter();
            move || Ok(it.next())
        };
        let (o, t) = (&late_first.header, &fine.header);
        assert!(plan_union(o, t, &mut pull(&late_first), &mut pull(&fine)).unwrap().is_none());
        assert!(plan_union(t, o, &mut pull(&fine), &mut pull(&late_first)).unwrap().is_none());
    }
}
