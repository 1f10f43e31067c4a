//! `hermes sessions compact`: have the agent summarise a session's older
//! messages (the work is chat's, in chat/compact.rs: it runs the agent).

use lexopt::prelude::*;

use crate::args::{positional_args, string};
use crate::chat::{self, args::AgentChoice, compact};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::terminal::resolve;
use crate::{config, sys};

#[derive(Debug, PartialEq)]
pub struct Args {
    pub name: String,
    pub agent: AgentChoice,
    /// Keep the last N messages as they are (else what fits in half the budget).
    pub keep: Option<u64>,
    pub context: Option<u64>,
}

pub fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut args = Args { name: String::new(), agent: AgentChoice::Configured, keep: None, context: None };
    let mut positional = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("agent") => {
                let command = string(parser.value()?);
                if command.trim().is_empty() {
                    return Err(Error::usage("--agent wants a command"));
                }
                args.agent = AgentChoice::Command(command);
            }
            Long("keep") => {
                let value = string(parser.value()?);
                args.keep = Some(value.parse().map_err(|_| {
                    Error::usage(format!("--keep wants a number of messages, not '{value}'"))
                })?);
            }
            Long("context") => args.context = Some(compact::budget_arg(&string(parser.value()?))?),
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(value) => positional.push(value),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [name] = positional_args("compact", positional, "NAME or ID")?;
    Ok(Args { name: string(name), ..args })
}

pub fn run(store: &Store, args: Args) -> Result<()> {
    let header = resolve::find_by_name(store, &args.name)?;
    let budget = match args.context {
        Some(budget) => budget,
        None => config::load(store)?.budget(),
    };
    let Some(agent) = chat::choose_agent(store, &args.agent)? else {
        return Err(Error::usage(
            "no agent to write the summary: give --agent CMD, or set HERMES_AGENT or 'agent' in config.toml",
        ));
    };
    sys::catch_interrupts();
    let outcome = compact::compact(store, &agent, &header, budget, args.keep)?;
    crate::note!("{}", outcome.describe());
    Ok(())
}
