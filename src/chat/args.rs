//! `hermes chat`'s arguments: which session, what to send, which agent.

use lexopt::prelude::*;

use crate::args::{peek_word, string, text};
use crate::error::{Error, Result};

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Args {
    pub(crate) target: Target,
    pub(crate) create_if_missing: bool,
    pub(crate) query: Option<Query>,
    pub(crate) quiet: bool,
    pub(crate) title: Option<String>,
    pub(crate) agent: AgentChoice,
    /// `-m MODEL`: the model of this chat, recorded in the session.
    pub(crate) model: Option<String>,
    /// `-s TEXT` or `--system-file FILE`: the session's system prompt.
    pub(crate) system: Option<System>,
    /// `--plain`: replies shown as the agent sent them, no Markdown drawn.
    pub(crate) plain: bool,
    /// `--context N`: this call's context budget, in characters.
    pub(crate) context: Option<u64>,
}

#[derive(Debug, PartialEq)]
pub(crate) enum System {
    Text(String),
    /// Read when the chat starts.
    File(std::ffi::OsString),
}

#[derive(Debug, Default, PartialEq)]
pub(crate) enum Target {
    #[default]
    New,
    /// Bare `-c`: this terminal's session.
    ContinueHere,
    /// `-c NAME`: by ID, then by title.
    ContinueNamed(String),
    /// `-r ID`: by ID, or a short ID.
    Resume(String),
    /// `--pick`: the one chosen on the picker.
    Pick,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Query {
    Text(String),
    Stdin,
}

#[derive(Debug, Default, PartialEq)]
pub(crate) enum AgentChoice {
    #[default]
    Configured,
    Command(String),
    Disabled,
}

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Args> {
    let mut args = Args::default();
    let mut continue_flag = false;
    let mut continue_name: Option<String> = None;
    let mut resume: Option<String> = None;
    let mut pick = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('c') | Long("continue") => {
                if continue_flag {
                    return Err(Error::usage("-c/--continue given twice"));
                }
                continue_flag = true;
                // `-c NAME`, `-c=NAME`, `--continue NAME`: NAME is optional,
                // and is the next word unless that is an option.
                // NAME may become a title (--create-if-missing): text.
                continue_name = match parser.optional_value() {
                    Some(v) => Some(text(v, "-c NAME")?),
                    None => match peek_word(parser) {
                        Some(_) => Some(text(parser.value()?, "-c NAME")?),
                        None => None,
                    },
                };
            }
            Short('r') | Long("resume") => resume = Some(string(parser.value()?)),
            Long("pick") => pick = true,
            Long("create-if-missing") => args.create_if_missing = true,
            Short('q') | Long("query") => {
                let value = parser.value()?;
                if args.query.is_some() {
                    return Err(Error::usage("-q given twice: one message at a time"));
                }
                args.query = Some(if value == "-" { Query::Stdin } else { Query::Text(text(value, "-q")?) });
            }
            Short('Q') | Long("quiet") => args.quiet = true,
            Short('m') | Long("model") => {
                if args.model.is_some() {
                    return Err(Error::usage("-m/--model given twice"));
                }
                let model = crate::store::session::clean_model(&text(parser.value()?, "-m")?)
                    .map_err(|why| Error::usage(format!("-m: {why}")))?;
                args.model = Some(model);
            }
            Short('s') | Long("system") | Long("system-file") => {
                if args.system.is_some() {
                    return Err(Error::usage("one system prompt: -s TEXT or --system-file FILE, once"));
                }
                let from_file = matches!(arg, Long("system-file"));
                let value = parser.value()?;
                args.system =
                    Some(if from_file { System::File(value) } else { System::Text(text(value, "-s")?) });
            }
            Long("title") => {
                if args.title.is_some() {
                    return Err(Error::usage("--title given twice"));
                }
                args.title = Some(text(parser.value()?, "--title")?);
            }
            Long("agent") => {
                let command = text(parser.value()?, "--agent")?;
                if command.trim().is_empty() {
                    return Err(Error::usage("--agent wants a command; --no-agent runs none"));
                }
                set_agent(&mut args, AgentChoice::Command(command))?;
            }
            Long("no-agent") => set_agent(&mut args, AgentChoice::Disabled)?,
            Long("plain") => args.plain = true,
            Long("context") => args.context = Some(budget_arg(&string(parser.value()?))?),
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Value(stray) => return Err(stray_error(&string(stray), continue_name.as_deref())),
            _ => return Err(arg.unexpected().into()),
        }
    }
    args.target = target(&args, continue_flag, continue_name, resume, pick)?;
    Ok(args)
}

/// The session the flags name, and the checks of the flags that go with it.
fn target(
    args: &Args,
    continue_flag: bool,
    continue_name: Option<String>,
    resume: Option<String>,
    pick: bool,
) -> Result<Target> {
    if pick {
        if continue_flag || resume.is_some() {
            return Err(Error::usage("--pick chooses the session itself: not with -c or -r"));
        }
        if args.create_if_missing || args.title.is_some() {
            return Err(Error::usage("--pick continues a session: not with --create-if-missing or --title"));
        }
        return Ok(Target::Pick);
    }
    let target = match (continue_flag, continue_name, resume) {
        (true, _, Some(_)) => return Err(Error::usage("-c and -r cannot be used together")),
        (false, _, Some(id)) => Target::Resume(id),
        (true, Some(name), None) => Target::ContinueNamed(name),
        (true, None, None) => Target::ContinueHere,
        (false, _, None) => Target::New,
    };
    if args.create_if_missing {
        match target {
            Target::ContinueNamed(_) => {}
            Target::ContinueHere => {
                return Err(Error::usage(
                    "--create-if-missing requires a session name: hermes chat -c NAME --create-if-missing",
                ));
            }
            _ => {
                return Err(Error::usage(
                    "--create-if-missing only works with -c NAME: hermes chat -c NAME --create-if-missing",
                ));
            }
        }
    }
    if args.title.is_some() && target != Target::New {
        return Err(Error::usage(
            "--title names a new session; to rename one use: hermes sessions rename NAME TITLE",
        ));
    }
    Ok(target)
}

/// `--agent` and `--no-agent`: one of them, once.
/// `--context N` and `/context N`: a budget, or a usage error.
pub(crate) fn budget_arg(text: &str) -> Result<u64> {
    crate::store::context::parse_budget(text).map_err(Error::Usage)
}

fn set_agent(args: &mut Args, choice: AgentChoice) -> Result<()> {
    if args.agent != AgentChoice::Configured {
        return Err(Error::usage("--agent and --no-agent: one of them, once"));
    }
    args.agent = choice;
    Ok(())
}

/// A word that is no option's value: most likely a title with spaces after
/// `-c`, or a message without `-q`.
fn stray_error(stray: &str, continue_name: Option<&str>) -> Error {
    match continue_name {
        Some(name) => Error::usage(format!(
            "unexpected argument '{stray}' after -c '{name}'; quote a title with spaces: hermes chat -c \"{name} {stray}\""
        )),
        None => Error::usage(format!("unexpected argument '{stray}'; to send a message use -q \"{stray}\"")),
    }
}
