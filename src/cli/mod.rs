//! Command-line parsing: the global options and the command, then each
//! command's own `parse` (beside it: `chat::args`, `sessions::VERB`) builds
//! its typed arguments. Nothing here touches the file system, so `--help`
//! and `--version` always work.

pub(crate) mod completion;
pub(crate) mod defs;
pub(crate) mod help;
pub(crate) mod run;
pub(crate) mod texts;

use std::ffi::OsString;

use lexopt::prelude::*;

use crate::args::{peek_option, peek_word, string};
use crate::chat;
use crate::error::{Error, Result};
use crate::sessions;
use completion::Shell;

#[derive(Debug)]
pub struct Cli {
    pub(crate) profile: Option<String>,
    pub(crate) command: Command,
}

#[derive(Debug)]
pub(crate) enum Command {
    Chat(chat::args::Args),
    Sessions(sessions::Command),
    Config(crate::configure::Command),
    Completion(Shell),
    /// Print this text to stdout and succeed.
    Print(String),
    Version {
        verbose: bool,
    },
}

/// Parse the process arguments.
pub fn parse() -> Result<Cli> {
    parse_from(std::env::args_os().skip(1))
}

pub(crate) fn parse_from(args: impl IntoIterator<Item = OsString>) -> Result<Cli> {
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
                return Ok(Cli { profile, command: Command::Print(help::main()) });
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
    let command = parse_command(&mut parser)?;
    Ok(Cli { profile, command })
}

/// The command after the global options, and its own arguments; no
/// command word is `chat`.
fn parse_command(parser: &mut lexopt::Parser) -> Result<Command> {
    Ok(match peek_word(parser).as_deref() {
        Some("chat") => {
            parser.next()?;
            parsed(chat::args::parse(parser), help::chat(), &defs::spellings(defs::CHAT), Command::Chat)?
        }
        Some("sessions") => {
            parser.next()?;
            parse_sessions(parser)?
        }
        Some("config") => {
            parser.next()?;
            parsed(
                crate::configure::parse(parser),
                texts::CONFIG.to_string(),
                &defs::spellings(defs::CONFIG),
                Command::Config,
            )?
        }
        Some("completion") => {
            parser.next()?;
            parse_completion(parser)?
        }
        Some("help") => {
            parser.next()?;
            parse_help(parser)?
        }
        Some(word) => {
            return Err(Error::usage(format!(
                "unknown command '{word}'{} (commands: {})",
                did_you_mean(word, COMMANDS.iter().copied()),
                COMMANDS.join(", ")
            )));
        }
        None => parsed(chat::args::parse(parser), help::chat(), &chat_and_global_options(), Command::Chat)?,
    })
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

/// The top-level commands, for the unknown-command message.
const COMMANDS: [&str; 5] = ["chat", "sessions", "config", "completion", "help"];

/// `; did you mean 'X'?` for the candidate nearest `word`, else nothing.
fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    crate::text::nearest(word, candidates).map(|near| format!("; did you mean '{near}'?")).unwrap_or_default()
}

/// Chat's options and the global ones: `hermes -x` is read as chat.
fn chat_and_global_options() -> Vec<&'static str> {
    let mut options = defs::spellings(defs::CHAT);
    options.extend(defs::GLOBAL.iter().take(2).flat_map(|o| o.short.into_iter().chain([o.long])));
    options
}

/// A command's own parse, with its `--help` answered by `help_text`, and an
/// option it does not take answered with the nearest of `options`.
fn parsed<T>(
    parsed: Result<T>,
    help_text: String,
    options: &[&'static str],
    command: impl FnOnce(T) -> Command,
) -> Result<Command> {
    match parsed {
        Ok(args) => Ok(command(args)),
        Err(Error::HelpWanted) => Ok(Command::Print(help_text)),
        // A one-letter option is one edit from every other: no guess.
        Err(Error::UnknownOption { option, did_you_mean: None }) if option.starts_with("--") => {
            let did_you_mean = crate::text::nearest(&option, options.iter().copied()).map(str::to_string);
            Err(Error::UnknownOption { option, did_you_mean })
        }
        Err(e) => Err(e),
    }
}

fn parse_sessions(parser: &mut lexopt::Parser) -> Result<Command> {
    let verb = match parser.next()? {
        Some(Value(v)) => string(v),
        Some(Short('h') | Long("help")) | None => {
            return Ok(Command::Print(help::sessions()));
        }
        Some(other) => return Err(other.unexpected().into()),
    };
    let Some(def) = defs::verb(&verb) else {
        let names: Vec<&str> = defs::VERBS.iter().map(|v| v.name).collect();
        return Err(Error::usage(format!(
            "unknown sessions command '{verb}'{} ({})",
            did_you_mean(&verb, names.iter().copied()),
            names.join(", ")
        )));
    };
    parsed((def.parse)(parser), help::verb(def), &defs::spellings(def.options), Command::Sessions)
}

fn parse_completion(parser: &mut lexopt::Parser) -> Result<Command> {
    match parser.next()? {
        Some(Value(shell)) => {
            let shell = string(shell);
            if let Some(arg) = parser.next()? {
                return Err(arg.unexpected().into());
            }
            Ok(Command::Completion(shell.parse()?))
        }
        Some(Short('h') | Long("help")) | None => Ok(Command::Print(texts::COMPLETION.to_string())),
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
        [] => return Ok(Command::Print(help::main())),
        ["chat"] => help::chat(),
        ["sessions"] => help::sessions(),
        ["config"] => texts::CONFIG.to_string(),
        ["completion"] => texts::COMPLETION.to_string(),
        ["sessions", verb] | [verb] if defs::verb(verb).is_some() => {
            defs::verb(verb).map_or_else(help::sessions, help::verb)
        }
        _ => {
            return Err(Error::usage(format!("help: no such command '{}'", words.join(" "))));
        }
    };
    Ok(Command::Print(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Cli> {
        parse_from(words.iter().map(OsString::from))
    }

    use crate::sessions::{export, list};

    /// Each verb's options, as defs.rs defines them.
    fn verb_options() -> Vec<(&'static str, Vec<&'static str>)> {
        defs::VERBS.iter().map(|verb| (verb.name, defs::spellings(verb.options))).collect()
    }

    /// The options a help text defines: those on its Usage lines and
    /// option lines, not the ones its prose mentions.
    fn options_in_help(text: &str) -> Vec<String> {
        let mut options: Vec<String> = text
            .lines()
            .take_while(|line| !line.starts_with("Interactive commands:"))
            .filter(|line| line.starts_with("Usage:") || line.trim_start().starts_with('-'))
            .flat_map(|line| line.split(|c: char| c.is_whitespace() || "[],|".contains(c)))
            .filter(|word| word.starts_with('-') && word.len() > 1 && word != &"-")
            .map(str::to_string)
            .collect();
        options.extend(["-h".to_string(), "--help".to_string()]);
        options.sort_unstable();
        options.dedup();
        options
    }

    fn sorted(options: &[&str]) -> Vec<String> {
        let mut options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
        options.sort_unstable();
        options
    }

    #[test]
    fn every_verb_lists_the_options_its_help_shows() {
        for (verb, options) in verb_options() {
            let help_text = help::verb(defs::verb(verb).unwrap());
            assert_eq!(sorted(&options), options_in_help(&help_text), "sessions {verb}");
        }
        assert_eq!(sorted(&defs::spellings(defs::CHAT)), options_in_help(&help::chat()), "chat");
    }

    #[test]
    fn every_verb_takes_its_options_and_refuses_the_others() {
        let all: Vec<&str> = verb_options().iter().flat_map(|(_, options)| options.iter().copied()).collect();
        for (verb, options) in verb_options() {
            for option in &all {
                // A value that every option taking one accepts.
                let value = if option.contains("format") || *option == "-f" { "json" } else { "1" };
                let result = parse_words(&["sessions", verb, option, value, "x", "y"]);
                let refused = matches!(&result, Err(Error::UnknownOption { .. }));
                assert_eq!(refused, !options.contains(option), "sessions {verb} {option}: {result:?}");
            }
        }
    }

    #[test]
    fn verbs_build_their_typed_arguments() {
        let cli = parse_words(&["sessions", "list", "-n", "5", "--here"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Sessions(sessions::Command::List(list::Args {
                title: None,
                limit: 5,
                all: false,
                here: true,
                json: false
            }))
        ));
        let cli = parse_words(&["sessions", "list", "redis"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Sessions(sessions::Command::List(list::Args { title: Some(ref t), .. })) if t == "redis"
        ));
        let cli =
            parse_words(&["-p", "work", "sessions", "export", "a", "b", "-f", "md", "-o", "out"]).unwrap();
        assert_eq!(cli.profile.as_deref(), Some("work"));
        let Command::Sessions(sessions::Command::Export(args)) = cli.command else {
            panic!("{:?}", cli.command)
        };
        assert_eq!(args.names, ["a", "b"]);
        assert_eq!(args.format, export::ExportFormat::Markdown);
        assert_eq!(args.output.as_deref(), Some(std::ffi::OsStr::new("out")));
        let cli = parse_words(&["-c", "redis debug", "-q", "-"]).unwrap();
        let Command::Chat(args) = cli.command else { panic!("{:?}", cli.command) };
        assert_eq!(args.target, chat::args::Target::ContinueNamed("redis debug".into()));
        assert_eq!(args.query, Some(chat::args::Query::Stdin));
    }

    #[test]
    fn help_anywhere_among_a_verbs_arguments_prints_its_help() {
        let cli = parse_words(&["sessions", "prune", "--dry-run", "--help"]).unwrap();
        assert!(
            matches!(cli.command, Command::Print(text) if text == help::verb(defs::verb("prune").unwrap()))
        );
        let cli = parse_words(&["chat", "-c", "x", "-h"]).unwrap();
        assert!(matches!(cli.command, Command::Print(text) if text == help::chat()));
    }

    #[test]
    fn shells_and_formats_parse_by_name_and_refuse_others() {
        assert_eq!("zsh".parse::<Shell>().unwrap(), Shell::Zsh);
        assert!(matches!("tcsh".parse::<Shell>(), Err(Error::Usage(_))));
        assert!(matches!(parse_words(&["completion", "csh"]), Err(Error::Usage(_))));
        assert_eq!("jsonl".parse::<export::ExportFormat>().unwrap(), export::ExportFormat::Jsonl);
        assert!("yaml".parse::<export::ExportFormat>().is_err());
        assert_eq!("text".parse::<crate::config::AgentInput>(), Ok(crate::config::AgentInput::Text));
        assert!("xml".parse::<crate::config::AgentInput>().is_err());
    }
}
