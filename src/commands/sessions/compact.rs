//! `hermes sessions compact`: have the agent summarise a session's older
//! messages (the summariser is the agent's: `agent::compact`).

use crate::args::{Access, Arg, Kind, Run, Spec, Value, man, option};
use crate::error::{Error, Result};
use crate::resolve;
use crate::settings::{Key, Origin};
use crate::store::Store;
use crate::store::context;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    /// `--agent CMD`: the summariser (else as chat: HERMES_AGENT, config.toml).
    pub(crate) agent: Option<String>,
    /// Keep the last N messages as they are (else what fits in half the budget).
    pub(crate) keep: Option<u64>,
    /// `--context N`, checked.
    pub(crate) context: Option<String>,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions compact",
    alias: None,
    summary: "have the agent summarise a session's older messages",
    about: "\
Ask the agent for a summary of the session's older messages and store it
in the session, after them, marked as a summary. From then on a turn sends
the system prompt, the latest summary and the messages after it. Nothing
is removed: the older messages stay in the file, shown and searchable.
Kept as they are: the newest messages that fit in half the context budget
(the other half is for the system prompt, the summary and the turns to
come), or with --keep the last N. If the agent fails, is interrupted or
writes nothing, the session is left as it was (exit 3, or 130).

{options}
",
    man: man(r#"
ask the agent for a summary of the session's older messages and store it
in the session, after them, marked as a summary. From then on a turn sends
the system prompt, the latest summary and the messages after it. Nothing
is removed: the older messages stay in the file, shown and searchable.
Kept as they are: the newest messages that fit in half the context budget
(the other half is for the system prompt, the summary and the turns to
come), or with
.B \-\-keep
the last N. If the agent fails, is interrupted or writes nothing, the
session is left as it was (exit 3, or 130). See
.BR CONTEXT .
"#),
    options: &[
        option("", "--keep", Value::new("N", Kind::Number), "keep the last N messages as they are")
            .man(
                r#"
keep the last N messages as they are
"#,
            )
            .takes(|a, v| {
                let text = v.lossy();
                a.keep =
                    Some(text.parse().map_err(|_| {
                        Error::usage(format!("--keep wants a number of messages, not '{text}'"))
                    })?);
                Ok(())
            }),
        option(
            "",
            "--agent",
            Value::new("CMD", Kind::Shell),
            "the command that writes the summary (default: as chat)",
        )
        .man(
            r#"
the command that writes the summary (default: as chat)
"#,
        )
        .takes(|a, v| {
            let command = v.utf8("--agent")?;
            if command.trim().is_empty() {
                return Err(Error::usage("--agent wants a command"));
            }
            a.agent = Some(command);
            Ok(())
        }),
        option("", "--context", Value::new("N", Kind::Number), context::BUDGET_HELP)
            .man(
                r#"
the context budget: a turn sends at most N characters of the conversation
(default: \(aqcontext\(aq in config.toml, else 300000; \(aqoff\(aq: no limit)
"#,
            )
            .takes(|a, v| {
                let text = v.lossy();
                context::parse_budget(&text).map_err(Error::Usage)?;
                a.context = Some(text);
                Ok(())
            }),
    ],
    args: &[Arg::one("NAME|ID", Kind::Session).takes(|a, v| {
        a.name = v.lossy();
        Ok(())
    })],
    start: || Args { name: String::new(), agent: None, keep: None, context: None },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        // It catches interrupts as chat does: Ctrl-C stops the summariser
        // and leaves the session as it was.
        Access::RunsAgent
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let header = resolve::find_by_name(store, &args.name)?;
    let overrides = [(Key::Agent, args.agent, "--agent"), (Key::Context, args.context, "--context")]
        .into_iter()
        .filter_map(|(key, value, flag)| Some((key, value?, Origin::CommandLine(flag.to_string()))))
        .collect();
    let settings = crate::agent::resolve_settings(store, overrides)?;
    let outcome = crate::agent::compact::summarise(store, &header, &settings, args.keep)?;
    crate::output::note!("{outcome}");
    Ok(())
}
