//! `hermes sessions compact`: have the agent summarise a session's older
//! messages. The summary itself is chat's work (it runs the agent, which
//! only chat does): the dispatcher hands `run` chat's summariser.

use lexopt::prelude::*;

use crate::args::{positional_args, string};
use crate::error::{Error, Result};
use crate::resolve;
use crate::store::Store;
use crate::store::context;
use crate::store::session::Header;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    /// `--agent CMD`: the summariser (else as chat: HERMES_AGENT, config.toml).
    pub(crate) agent: Option<String>,
    /// Keep the last N messages as they are (else what fits in half the budget).
    pub(crate) keep: Option<u64>,
    pub(crate) context: Option<u64>,
}

/// Chat's summariser (`chat::compact::summarise`), given the session, the
/// `--agent` command, the budget and `--keep`: what it came to, in words,
/// or why nothing was made.
pub(crate) type Summarise = fn(&Store, &Header, Option<&str>, u64, Option<u64>) -> Result<String>;

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut args = Args { name: String::new(), agent: None, keep: None, context: None };
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("agent") => {
                let command = crate::args::text(parser.value()?, "--agent")?;
                if command.trim().is_empty() {
                    return Err(Error::usage("--agent wants a command"));
                }
                args.agent = Some(command);
            }
            Long("keep") => {
                let value = string(parser.value()?);
                args.keep = Some(value.parse().map_err(|_| {
                    Error::usage(format!("--keep wants a number of messages, not '{value}'"))
                })?);
            }
            Long("context") => {
                args.context = Some(context::parse_budget(&string(parser.value()?)).map_err(Error::Usage)?);
            }
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [name] = positional_args("compact", positional, "NAME or ID")?;
    Ok(Args { name: string(name), ..args })
}

pub(crate) fn run(store: &Store, args: Args, summarise: Summarise) -> Result<()> {
    let header = resolve::find_by_name(store, &args.name)?;
    let budget = match args.context {
        Some(budget) => budget,
        None => crate::config::load(store)?.budget(),
    };
    let outcome = summarise(store, &header, args.agent.as_deref(), budget, args.keep)?;
    crate::output::note!("{outcome}");
    Ok(())
}
