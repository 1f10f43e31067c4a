//! Command-line parsing: argv in, a typed `Cli` out. Nothing here touches
//! the file system, so `--help` and `--version` always work.

pub mod completion;
pub mod help;

use std::ffi::OsString;

use lexopt::prelude::*;

use crate::error::{Error, Result};

#[derive(Debug)]
pub struct Cli {
    pub profile: Option<String>,
    pub command: Command,
}

#[derive(Debug)]
pub enum Command {
    Chat(ChatArgs),
    Sessions(SessionsCommand),
    Completion(String),
    /// Print this text to stdout and succeed.
    Print(String),
    Version {
        verbose: bool,
    },
}

#[derive(Debug, Default)]
pub struct ChatArgs {
    pub target: Target,
    pub create_if_missing: bool,
    pub query: Option<Query>,
    pub quiet: bool,
    pub title: Option<String>,
    pub agent: AgentChoice,
}

#[derive(Debug, Default, PartialEq)]
pub enum Target {
    #[default]
    New,
    /// Bare `-c`: this terminal's session.
    ContinueHere,
    /// `-c NAME`: by ID, then by title.
    ContinueNamed(String),
    /// `-r ID`: by exact ID.
    Resume(String),
}

#[derive(Debug, PartialEq)]
pub enum Query {
    Text(String),
    Stdin,
}

#[derive(Debug, Default, PartialEq)]
pub enum AgentChoice {
    #[default]
    Configured,
    Command(String),
    Disabled,
}

#[derive(Debug)]
pub enum SessionsCommand {
    List { limit: usize, all: bool, here: bool, json: bool },
    Show { name: String, json: bool },
    Current { json: bool },
    Export { names: Vec<String>, format: ExportFormat, output: Option<OsString> },
    Import(crate::sessions::import::Args),
    Rename { name: String, title: String },
    Delete { names: Vec<String>, yes: bool },
    Prune { days: f64, dry_run: bool, yes: bool },
    Stats { json: bool },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExportFormat {
    Json,
    Jsonl,
    Markdown,
}

pub const DEFAULT_LIST_LIMIT: usize = 20;

/// Parse the process arguments.
pub fn parse() -> Result<Cli> {
    parse_from(std::env::args_os().skip(1))
}

pub fn parse_from(args: impl IntoIterator<Item = OsString>) -> Result<Cli> {
    let mut parser = lexopt::Parser::from_args(args);
    let mut profile = None;
    let mut version = false;
    let mut verbose = false;
    // Global options come before the command; anything else starts `chat`.
    while let Some(arg) = peek_option(&mut parser) {
        match arg.as_str() {
            // `-p NAME`, `-pNAME`, `--profile NAME`, `--profile=NAME`.
            _ if arg.starts_with("-p") && !arg.starts_with("--")
                || arg.split('=').next() == Some("--profile") =>
            {
                parser.next()?;
                profile = Some(valid_profile(string(parser.value()?))?);
            }
            "-V" | "--version" => {
                parser.next()?;
                version = true;
            }
            "-v" | "--verbose" if version => {
                parser.next()?;
                verbose = true;
            }
            "-h" | "--help" => {
                return Ok(Cli { profile, command: Command::Print(help::MAIN.to_string()) });
            }
            _ => break,
        }
    }
    if version {
        if let Some(arg) = parser.next()? {
            return Err(arg.unexpected().into());
        }
        return Ok(Cli { profile, command: Command::Version { verbose } });
    }
    let command = match peek_word(&mut parser).as_deref() {
        Some("chat") => {
            parser.next()?;
            parse_chat(&mut parser)?
        }
        Some("sessions") => {
            parser.next()?;
            parse_sessions(&mut parser)?
        }
        Some("completion") => {
            parser.next()?;
            parse_completion(&mut parser)?
        }
        Some("help") => {
            parser.next()?;
            parse_help(&mut parser)?
        }
        Some(word) => {
            return Err(Error::usage(format!(
                "unknown command '{word}' (commands: chat, sessions, completion, help)"
            )));
        }
        None => parse_chat(&mut parser)?,
    };
    Ok(Cli { profile, command })
}

/// The next raw argument if it looks like an option (without consuming it).
fn peek_option(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_str()?;
    next.starts_with('-').then(|| next.to_string())
}

/// The next raw argument if it is a plain word (without consuming it).
fn peek_word(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_string_lossy().into_owned();
    (!next.starts_with('-')).then_some(next)
}

fn string(os: OsString) -> String {
    os.into_string().unwrap_or_else(|os| os.to_string_lossy().into_owned())
}

fn valid_profile(name: String) -> Result<String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !name.starts_with('.');
    if ok {
        Ok(name)
    } else {
        Err(Error::usage(format!(
            "invalid profile name '{name}': use letters, digits, '.', '_' and '-', not starting with '.'"
        )))
    }
}

fn parse_chat(parser: &mut lexopt::Parser) -> Result<Command> {
    let mut args = ChatArgs::default();
    let mut continue_flag = false;
    let mut continue_name: Option<String> = None;
    let mut resume: Option<String> = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Short('c') | Long("continue") => {
                if continue_flag {
                    return Err(Error::usage("-c/--continue given twice"));
                }
                continue_flag = true;
                // `-c NAME`, `-c=NAME`, `--continue NAME`: NAME is optional,
                // and is the next word unless that is an option.
                continue_name = match parser.optional_value() {
                    Some(v) => Some(string(v)),
                    None => peek_word(parser).map(|_| parser.value().map(string)).transpose()?,
                };
            }
            Short('r') | Long("resume") => resume = Some(string(parser.value()?)),
            Long("create-if-missing") => args.create_if_missing = true,
            Short('q') | Long("query") => {
                let value = parser.value()?;
                if args.query.is_some() {
                    return Err(Error::usage("-q given twice: one message at a time"));
                }
                args.query = Some(if value == "-" { Query::Stdin } else { Query::Text(string(value)) });
            }
            Short('Q') | Long("quiet") => args.quiet = true,
            Long("title") => {
                if args.title.is_some() {
                    return Err(Error::usage("--title given twice"));
                }
                args.title = Some(string(parser.value()?));
            }
            Long("agent") => {
                let command = string(parser.value()?);
                if command.trim().is_empty() {
                    return Err(Error::usage("--agent wants a command; --no-agent runs none"));
                }
                if args.agent != AgentChoice::Configured {
                    return Err(Error::usage("--agent and --no-agent: one of them, once"));
                }
                args.agent = AgentChoice::Command(command);
            }
            Long("no-agent") => {
                if args.agent != AgentChoice::Configured {
                    return Err(Error::usage("--agent and --no-agent: one of them, once"));
                }
                args.agent = AgentChoice::Disabled;
            }
            Short('h') | Long("help") => return Ok(Command::Print(help::CHAT.to_string())),
            Value(stray) => {
                let stray = string(stray);
                return Err(match &continue_name {
                    Some(name) => Error::usage(format!(
                        "unexpected argument '{stray}' after -c '{name}'; quote a title with spaces: hermes chat -c \"{name} {stray}\""
                    )),
                    None => Error::usage(format!(
                        "unexpected argument '{stray}'; to send a message use -q \"{stray}\""
                    )),
                });
            }
            _ => return Err(arg.unexpected().into()),
        }
    }
    args.target = match (continue_flag, continue_name, resume) {
        (true, _, Some(_)) => return Err(Error::usage("-c and -r cannot be used together")),
        (false, _, Some(id)) => Target::Resume(id),
        (true, Some(name), None) => Target::ContinueNamed(name),
        (true, None, None) => Target::ContinueHere,
        (false, _, None) => Target::New,
    };
    if args.create_if_missing {
        match args.target {
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
    if args.title.is_some() && args.target != Target::New {
        return Err(Error::usage(
            "--title names a new session; to rename one use: hermes sessions rename NAME TITLE",
        ));
    }
    Ok(Command::Chat(args))
}

fn parse_sessions(parser: &mut lexopt::Parser) -> Result<Command> {
    let verb = match parser.next()? {
        Some(Value(v)) => string(v),
        Some(Short('h') | Long("help")) | None => {
            return Ok(Command::Print(help::SESSIONS.to_string()));
        }
        Some(other) => return Err(other.unexpected().into()),
    };
    let Some(verb_help) = help::for_sessions_verb(&verb) else {
        return Err(Error::usage(format!(
            "unknown sessions command '{verb}' (list, show, current, export, import, rename, delete, prune, stats)"
        )));
    };
    let mut positional: Vec<String> = Vec::new();
    let mut positional_os: Vec<OsString> = Vec::new();
    let mut json = false;
    let mut limit = DEFAULT_LIST_LIMIT;
    let mut all = false;
    let mut here = false;
    let mut format = None;
    let mut output = None;
    let mut yes = false;
    let mut dry_run = false;
    let mut days = None;
    let mut from = None;
    let flag_ok = |flag: &str| help::verb_takes(&verb, flag);
    while let Some(arg) = parser.next()? {
        match arg {
            Short('h') | Long("help") => return Ok(Command::Print(verb_help.to_string())),
            Long("json") if flag_ok("--json") => json = true,
            Long("all") if flag_ok("--all") => all = true,
            Long("here") if flag_ok("--here") => here = true,
            Long("limit") | Short('n') if flag_ok("--limit") => {
                let v = string(parser.value()?);
                limit = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| Error::usage(format!("--limit wants a positive number, not '{v}'")))?;
            }
            Long("format") | Short('f') if flag_ok("--format") => {
                let v = string(parser.value()?);
                format = Some(match v.as_str() {
                    "json" => ExportFormat::Json,
                    "jsonl" => ExportFormat::Jsonl,
                    "markdown" | "md" => ExportFormat::Markdown,
                    _ => {
                        return Err(Error::usage(format!(
                            "--format must be json, jsonl or markdown, not '{v}'"
                        )));
                    }
                });
            }
            Short('o') | Long("output") if flag_ok("--output") => {
                output = Some(parser.value()?).filter(|file| !file.is_empty());
                if output.is_none() {
                    return Err(Error::usage("-o/--output wants a file name"));
                }
            }
            Short('y') | Long("yes") if flag_ok("--yes") => yes = true,
            Long("dry-run") if flag_ok("--dry-run") => dry_run = true,
            Long("from") if flag_ok("--from") => from = Some(string(parser.value()?).parse()?),
            Long("older-than") if flag_ok("--older-than") => {
                let v = string(parser.value()?);
                days =
                    Some(v.parse::<f64>().ok().filter(|d| d.is_finite() && *d >= 0.0).ok_or_else(|| {
                        Error::usage(format!("--older-than wants a number of days, not '{v}'"))
                    })?);
            }
            Value(v) => {
                positional.push(v.to_string_lossy().into_owned());
                positional_os.push(v);
            }
            _ => return Err(arg.unexpected().into()),
        }
    }
    let want = |n: usize, what: &str| -> Result<()> {
        if positional.len() == n {
            Ok(())
        } else if positional.len() < n {
            Err(Error::usage(format!("sessions {verb}: missing {what}; see 'hermes sessions {verb} --help'")))
        } else {
            Err(Error::usage(format!(
                "sessions {verb}: unexpected argument '{}'; quote names with spaces",
                positional[n]
            )))
        }
    };
    let command = match verb.as_str() {
        "list" => {
            want(0, "")?;
            SessionsCommand::List { limit, all, here, json }
        }
        "show" => {
            want(1, "NAME or ID")?;
            SessionsCommand::Show { name: positional.remove(0), json }
        }
        "current" => {
            want(0, "")?;
            SessionsCommand::Current { json }
        }
        "export" => SessionsCommand::Export {
            names: positional,
            format: format.unwrap_or(ExportFormat::Json),
            output,
        },
        "import" => {
            want(1, "FILE")?;
            SessionsCommand::Import(crate::sessions::import::Args {
                file: positional_os.remove(0),
                from: from.unwrap_or(crate::sessions::import::Source::Hermes),
                dry_run,
            })
        }
        "rename" => {
            want(2, "NAME or ID and the new TITLE")?;
            let title = positional.pop().unwrap_or_default();
            SessionsCommand::Rename { name: positional.remove(0), title }
        }
        "delete" => {
            if positional.is_empty() {
                want(1, "NAME or ID")?;
            }
            SessionsCommand::Delete { names: positional, yes }
        }
        "prune" => {
            want(0, "")?;
            let days = days.ok_or_else(|| {
                Error::usage("sessions prune: --older-than DAYS is required, e.g. hermes sessions prune --older-than 90")
            })?;
            SessionsCommand::Prune { days, dry_run, yes }
        }
        "stats" => {
            want(0, "")?;
            SessionsCommand::Stats { json }
        }
        _ => unreachable!("verb checked above"),
    };
    Ok(Command::Sessions(command))
}

fn parse_completion(parser: &mut lexopt::Parser) -> Result<Command> {
    match parser.next()? {
        Some(Value(shell)) => {
            let shell = string(shell);
            if let Some(arg) = parser.next()? {
                return Err(arg.unexpected().into());
            }
            match shell.as_str() {
                "bash" | "zsh" | "fish" => Ok(Command::Completion(shell)),
                _ => Err(Error::usage(format!("completion: unknown shell '{shell}' (bash, zsh, fish)"))),
            }
        }
        Some(Short('h') | Long("help")) | None => Ok(Command::Print(help::COMPLETION.to_string())),
        Some(other) => Err(other.unexpected().into()),
    }
}

fn parse_help(parser: &mut lexopt::Parser) -> Result<Command> {
    let mut words = Vec::new();
    while let Some(arg) = parser.next()? {
        match arg {
            Value(v) => words.push(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let text = match words.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => help::MAIN,
        ["chat"] => help::CHAT,
        ["sessions"] => help::SESSIONS,
        ["completion"] => help::COMPLETION,
        ["sessions", verb] | [verb] if help::for_sessions_verb(verb).is_some() => {
            help::for_sessions_verb(verb).unwrap_or(help::SESSIONS)
        }
        _ => {
            return Err(Error::usage(format!("help: no such command '{}'", words.join(" "))));
        }
    };
    Ok(Command::Print(text.to_string()))
}
