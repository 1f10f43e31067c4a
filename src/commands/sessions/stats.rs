//! `hermes sessions stats`: how much is in the store.

use nanoserde::SerJson;

use crate::args::{Access, Arg, Kind, Run, Spec, man, switch};
use crate::error::{Error, Result};
use crate::output::Out;
use crate::resolve;
use crate::store::Store;
use crate::store::context;
use crate::store::session::Usage;
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
    /// The context budget, and the sessions a turn could not send whole
    /// under it (their system prompt, latest summary and what follows).
    budget: u64,
    over_budget: u64,
    /// The tokens of the replies that reported them, added up.
    usage: Option<Usage>,
}

/// One session, with a name.
#[derive(SerJson)]
struct One {
    id: String,
    messages: u64,
    bytes: u64,
    chars: u64,
    summaries: u64,
    context_chars: u64,
    budget: u64,
    over_budget: bool,
    usage: Option<Usage>,
}

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) json: bool,
    /// One session's size against the budget.
    pub(crate) name: Option<String>,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions stats",
    alias: None,
    summary: "counts and sizes of the store (with NAME, of one session)",
    about: "\
Print the number of sessions and messages, bytes on disk, the oldest and
newest activity, the number of terminal breadcrumbs, the temporary files
interrupted writes left (count and bytes; prune removes them), how
many sessions a turn could not send whole under the context budget, and
the tokens of every reply whose server counted them, added up (in: what
the requests sent; out: what the replies took).

With NAME, one session: its messages, bytes, characters, summaries, the
characters a turn would send without a budget (the system prompt, the
latest summary and the messages after it), the budget, whether that is
over it, and its replies' tokens.

{options}
",
    man: man(r#"
print the number of sessions and messages, bytes on disk, the oldest and
newest activity, the number of terminal breadcrumbs, the temporary
files interrupted writes left (count and bytes; prune removes them), the
context budget and how many sessions a turn could not send whole under it;
with
.IR NAME ,
one session: its messages, bytes, characters, summaries, the characters
a turn would send without a budget (the system prompt, the latest summary
and the messages after it), the budget, and whether that is over it.
Numbers are written as the budget is, with a comma every three digits
.RB ( "characters:   37,523" );
.B \-\-json
has them as numbers.
"#),
    options: &[switch("", "--json", "the same as a JSON object")
        .man(
            r#"
the same as a JSON object.
"#,
        )
        .sets(|a| a.json = true)],
    args: &[Arg::optional("NAME|ID", Kind::Session).takes(|a, v| {
        a.name = Some(v.lossy());
        Ok(())
    })],
    start: || Args { json: false, name: None },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let budget = crate::settings::Settings::of_file(store).map_or(context::DEFAULT_BUDGET, |s| s.budget());
    if let Some(name) = &args.name {
        return one(store, name, budget, args.json);
    }
    let mut stats = Stats { budget, ..Stats::default() };
    let mut large = Vec::new();
    store.scan(|entry| {
        let size =
            entry.size.unwrap_or_else(|| std::fs::symlink_metadata(entry.path()).map_or(0, |m| m.len()));
        stats.bytes += size;
        match entry.header {
            Ok(h) => {
                // Characters never outnumber bytes: only a larger file
                // can be over the budget, and only those are read.
                if size > budget {
                    large.push(h.id.clone());
                }
                stats.sessions += 1;
                stats.messages = stats.messages.saturating_add(h.message_count);
                stats.oldest_activity =
                    Some(stats.oldest_activity.map_or(h.updated_at, |o| o.min(h.updated_at)));
                stats.newest_activity =
                    Some(stats.newest_activity.map_or(h.updated_at, |n| n.max(h.updated_at)));
                if let Some(usage) = &h.usage {
                    stats.usage.get_or_insert_default().add(usage);
                }
            }
            Err(_) => stats.unreadable += 1,
        }
    })?;
    for id in large {
        if store.measure(&id).ok().flatten().is_some_and(|m| m.over(budget)) {
            stats.over_budget += 1;
        }
    }
    crate::view::list::warn_conflict_copies(store);
    stats.breadcrumbs = breadcrumb::all(store).len() as u64;
    for (_, _, size, _) in store.temporaries() {
        stats.temporaries += 1;
        stats.temporary_bytes += size;
    }
    let mut out = Out::new();
    if args.json {
        out.data(&stats.serialize_json())?;
        out.write_own("\n")?;
        return out.flush();
    }
    let when = |t: Option<f64>| t.map_or("-".to_string(), time::local_minutes);
    // Every count with the budget's thousands separator: 37,523 beside 300,000.
    let n = crate::text::thousands;
    out.write(&format!(
        "sessions:     {}\nmessages:     {}\nbytes:        {}\nunreadable:   {}\noldest:       \
            {}\nnewest:       {}\nbreadcrumbs:  {}\ntemporaries:  {} ({} bytes)\nbudget:       {}\nover \
                budget:  {}\ntokens:       {}\n",
        n(stats.sessions),
        n(stats.messages),
        n(stats.bytes),
        n(stats.unreadable),
        when(stats.oldest_activity),
        when(stats.newest_activity),
        n(stats.breadcrumbs),
        n(stats.temporaries),
        n(stats.temporary_bytes),
        context::describe(budget),
        n(stats.over_budget),
        tokens(stats.usage.as_ref()),
    ))?;
    out.flush()
}

fn one(store: &Store, name: &str, budget: u64, json: bool) -> Result<()> {
    let header = resolve::find_by_name(store, name)?;
    let gone = || Error::Vanished { id: header.id.clone() };
    let m = store.measure(&header.id)?.ok_or_else(gone)?;
    let path = store.session_path(&header.id).ok_or_else(gone)?;
    let bytes = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
    let one = One {
        id: header.id.clone(),
        messages: m.messages,
        bytes,
        chars: m.chars,
        summaries: m.summaries,
        context_chars: m.context_chars,
        budget,
        over_budget: m.over(budget),
        usage: header.usage,
    };
    let mut out = Out::new();
    if json {
        out.data(&one.serialize_json())?;
        out.write_own("\n")?;
        return out.flush();
    }
    let n = crate::text::thousands;
    out.write(&format!(
        "id:           {}\nmessages:     {}\nbytes:        {}\ncharacters:   {}\nsummaries:    {}\nin \
            context:   {} characters (the system prompt, the latest summary and what follows)\nbudget:       \
                {}\nover budget:  {}\ntokens:       {}\n",
        one.id,
        n(one.messages),
        n(one.bytes),
        n(one.chars),
        n(one.summaries),
        n(one.context_chars),
        context::describe(budget),
        if one.over_budget { "yes" } else { "no" },
        tokens(one.usage.as_ref()),
    ))?;
    out.flush()
}

/// The tokens the replies reported, added up: `1,234 in, 56 out`, or `-`
/// when none reported any.
fn tokens(usage: Option<&Usage>) -> String {
    usage.map_or("-".to_string(), |u| {
        format!("{} ({} in all)", u.describe(), crate::text::thousands(u.total_tokens))
    })
}
