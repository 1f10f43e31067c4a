//! Command-line parsing: hermes's own options, then the command of the
//! tree in defs.rs, whose `Spec` reads its own arguments (`args::parse`).
//! Nothing here touches the file system, so `--help` and `--version`
//! always work.

pub(crate) mod completion;
pub(crate) mod defs;
#[cfg(test)]
mod environment;
mod exit_status;
pub(crate) mod help;
#[cfg(test)]
mod man;
#[cfg(test)]
mod reference;
pub(crate) mod run;

use std::ffi::OsString;

use lexopt::prelude::*;

use crate::args::{Command, Common, Given, Job, common_option, peek_option, peek_word, string};
use crate::error::{Error, Result};
use crate::store::Store;
use defs::{COMMANDS, GLOBAL, Globals, Node};

#[derive(Debug)]
pub struct Cli {
    pub(crate) profile: Option<String>,
    /// `--no-pager`: long output is never paged.
    pub(crate) no_pager: bool,
    pub(crate) action: Action,
}

pub(crate) enum Action {
    /// A command that runs on the store: chat, a sessions or config verb.
    Store(Box<dyn Job<Store>>),
    /// A command of hermes's own (completion, help).
    NoStore(Box<dyn Job<()>>),
    /// Print this text to stdout and succeed.
    Print(String),
    Version {
        verbose: bool,
    },
}

impl std::fmt::Debug for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Action::Store(job) => write!(f, "Store({:?})", job.access()),
            Action::NoStore(_) => f.write_str("NoStore"),
            Action::Print(text) => write!(f, "Print({text:?})"),
            Action::Version { verbose } => write!(f, "Version {{ verbose: {verbose} }}"),
        }
    }
}

/// Parse the process arguments.
pub fn parse() -> Result<Cli> {
    parse_from(std::env::args_os().skip(1))
}

pub(crate) fn parse_from(args: impl IntoIterator<Item = OsString>) -> Result<Cli> {
    let mut parser = lexopt::Parser::from_args(args);
    let mut globals = Globals::default();
    let flags = defs::global_flags();
    // hermes's own options before the command; anything else starts `chat`.
    {
        let mut take = |at: usize, given: Given| GLOBAL[at].apply(&mut globals, given);
        let mut common = Common { flags: &flags, take: &mut take };
        loop {
            if matches!(peek_option(&mut parser).as_deref(), Some("-h" | "--help")) {
                return Ok(Cli { profile: None, no_pager: false, action: Action::Print(help::main()) });
            }
            if !common_option(&mut parser, &mut common)? {
                break;
            }
        }
    }
    if globals.version
        && let Some(arg) = parser.next()?
    {
        return Err(arg.unexpected().into());
    }
    let command = if globals.version {
        None
    } else {
        let mut take = |at: usize, given: Given| GLOBAL[at].apply(&mut globals, given);
        Some(parse_command(&mut parser, &mut Common { flags: &flags, take: &mut take })?)
    };
    let Globals { profile, no_pager, version, verbose } = globals;
    if verbose && !version {
        return Err(Error::usage("-v/--verbose goes with -V: hermes -V -v"));
    }
    let command = match command {
        // `--help` among a command's words: its help, whatever else was said.
        Some(command @ Action::Print(_)) => command,
        _ if version => Action::Version { verbose },
        Some(command) => command,
        None => unreachable!("without -V there is a command"),
    };
    Ok(Cli { profile, no_pager, action: command })
}

/// The command after the global options, and its own arguments (hermes's
/// own options taken among them too, `common`); no command word is `chat`.
fn parse_command(parser: &mut lexopt::Parser, common: &mut Common) -> Result<Action> {
    let Node::Leaf(chat) = &COMMANDS[0] else { unreachable!("chat is the first command") };
    let Some(word) = peek_word(parser) else {
        return read(*chat, parser, common, Action::Store);
    };
    let Some(node) = defs::command(&word) else {
        // A near miss of a command is said; any other words are a message.
        let names: Vec<&str> = COMMANDS.iter().map(Node::name).collect();
        let meant = near_miss(parser, &word);
        if meant.is_empty() {
            return read(*chat, parser, common, Action::Store);
        }
        return Err(Error::usage(format!(
            "unknown command '{word}'{meant} (commands: {})",
            names.join(", ")
        )));
    };
    parser.next()?;
    match node {
        Node::Leaf(spec) => read(*spec, parser, common, Action::Store),
        Node::NoStore(spec) => read(*spec, parser, common, Action::NoStore),
        Node::Group(group) => {
            while common_option(parser, common)? {}
            let verb = match parser.next()? {
                Some(Value(v)) => string(v),
                Some(Short('h') | Long("help")) | None => return Ok(Action::Print(help::node_help(node))),
                Some(other) => return Err(other.unexpected().into()),
            };
            let Some(spec) = defs::verb(group.verbs, &verb) else {
                let names: Vec<&str> = group.verbs.iter().map(|v| v.name()).collect();
                return Err(Error::usage(format!(
                    "unknown {} command '{verb}'{} ({})",
                    group.name,
                    verb_meant(&verb, &names),
                    names.join(", ")
                )));
            };
            read(spec, parser, common, Action::Store)
        }
    }
}

/// A command's arguments read by its spec: `--help` answered with its
/// help, a usage error pointing at it.
fn read<C: 'static>(
    spec: &'static dyn Command<C>,
    parser: &mut lexopt::Parser,
    common: &mut Common,
    command: impl FnOnce(Box<dyn Job<C>>) -> Action,
) -> Result<Action> {
    match spec.read(parser, common) {
        Ok(job) => Ok(command(job)),
        Err(Error::HelpWanted) => Ok(Action::Print(help::command(spec))),
        Err(Error::Usage(text)) => Err(Error::UsageIn { text, command: spec.path() }),
        Err(Error::UnknownOption { option, did_you_mean, command: "" }) => {
            Err(Error::UnknownOption { option, did_you_mean, command: spec.path() })
        }
        Err(e) => Err(e),
    }
}

/// Print `text` to stdout (a closed pipe is not an error).
pub(crate) fn print(text: &str) -> Result<()> {
    let mut out = crate::output::Out::new();
    out.write_own(text)?;
    out.flush()
}

pub(crate) fn valid_profile(name: String) -> Result<String> {
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

/// `; did you mean 'X'?` for a verb of `names`: the nearest in spelling,
/// else the one a word people try means (`find` for `search`).
fn verb_meant(word: &str, names: &[&str]) -> String {
    let near = did_you_mean(word, names.iter().copied());
    if !near.is_empty() {
        return near;
    }
    defs::MEANT
        .iter()
        .find(|(tried, verb)| *tried == word && names.contains(verb))
        .map(|(_, verb)| format!("; did you mean '{verb}'?"))
        .unwrap_or_default()
}

/// `; did you mean 'X'?` when the first word of `hermes WORD ...` is no
/// command but a typo of one: one word (no space) a few edits from a
/// command other than chat (`did_you_mean`'s distance; chat's near misses
/// would be a message anyway), followed by no other word, or by a verb of
/// that command (`hermes sesions list`). Empty: the words are a message.
fn near_miss(parser: &mut lexopt::Parser, word: &str) -> String {
    if word.chars().any(char::is_whitespace) {
        return String::new();
    }
    let names = COMMANDS.iter().skip(1).map(Node::name);
    let Some(meant) = crate::text::nearest(word, names).and_then(defs::command) else {
        return String::new();
    };
    let next = parser.try_raw_args().and_then(|raw| {
        raw.as_slice()
            .iter()
            .skip(1)
            .map(|w| w.to_string_lossy())
            .find(|w| !w.starts_with('-'))
            .map(|w| w.into_owned())
    });
    let typo = match next {
        None => true,
        Some(next) => meant.verbs().iter().any(|v| v.name() == next || v.alias() == Some(next.as_str())),
    };
    if typo { format!("; did you mean '{}'?", meant.name()) } else { String::new() }
}

/// `; did you mean 'X'?` for the candidate nearest `word`, else nothing.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    crate::text::nearest(word, candidates).map(|near| format!("; did you mean '{near}'?")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::chat;
    use crate::commands::sessions::{export, list};

    fn parse_words(words: &[&str]) -> Result<Cli> {
        parse_from(words.iter().map(OsString::from))
    }

    fn printed(words: &[&str]) -> String {
        match parse_words(words) {
            Ok(Cli { action: Action::Print(text), .. }) => text,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    #[test]
    fn names_and_aliases_are_unique_in_each_group() {
        let mut names: Vec<&str> = COMMANDS.iter().map(Node::name).collect();
        for node in COMMANDS {
            let mut verbs: Vec<&str> =
                node.verbs().iter().flat_map(|v| [Some(v.name()), v.alias()]).flatten().collect();
            let count = verbs.len();
            crate::order::sort(&mut verbs);
            verbs.dedup();
            assert_eq!(verbs.len(), count, "{}", node.name());
        }
        let count = names.len();
        crate::order::sort(&mut names);
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn hermes_options_anywhere_on_the_line_and_no_command_spells_one_of_its_own_so() {
        for words in [
            &["--no-pager", "-p", "work", "sessions", "show", "daily"][..],
            &["sessions", "show", "daily", "--no-pager", "-p", "work"],
            &["sessions", "--no-pager", "show", "-pwork", "daily"],
            &["-p", "work", "sessions", "show", "--no-pager", "daily"],
            &["sessions", "show", "--profile=work", "daily", "--no-pager"],
        ] {
            let cli = parse_words(words).unwrap();
            assert_eq!((cli.profile.as_deref(), cli.no_pager), (Some("work"), true), "{words:?}");
        }
        assert!(matches!(parse_words(&["sessions", "list", "-V"]).unwrap().action, Action::Version { .. }));
        let group = printed(&["sessions", "--no-pager", "--help", "list"]);
        assert!(group.contains("merge-file BASE OURS THEIRS"), "{group}");
        assert!(parse_words(&["sessions", "list", "-v"]).is_err());
        let globals: Vec<&str> = defs::global_flags().into_iter().flat_map(|f| f.spellings()).collect();
        for spec in defs::every_spec() {
            for flag in spec.flags() {
                for spelling in flag.spellings() {
                    assert!(!globals.contains(&spelling), "{} {spelling} is hermes's own", spec.path());
                }
            }
        }
    }

    #[test]
    fn every_help_line_fits_in_80_columns() {
        for line in help::for_words(&["--all"]).unwrap().lines() {
            assert!(line.chars().count() < 80, "a --help line over 79 columns: {line}");
        }
    }

    #[test]
    fn help_anywhere_among_a_commands_arguments_prints_its_help() {
        let prune = defs::verb(crate::commands::sessions::VERBS, "prune").unwrap();
        assert_eq!(printed(&["sessions", "prune", "--dry-run", "--help"]), help::command(prune));
        assert_eq!(help::for_words(&["prune"]).unwrap(), help::command(prune));
        assert_eq!(help::for_words(&["sessions", "prune"]).unwrap(), help::command(prune));
        let chat = &chat::args::SPEC;
        assert_eq!(printed(&["chat", "-c", "x", "-h"]), help::command(chat));
        assert_eq!(printed(&["-c", "x", "--help"]), help::command(chat));
        assert!(printed(&["config", "set", "--help"]).starts_with("Usage: hermes config set KEY VALUE\n"));
        assert!(printed(&["sessions"]).contains("merge-file BASE OURS THEIRS"));
    }

    #[test]
    fn usage_errors_point_at_their_commands_help() {
        let error = parse_words(&["sessions", "show"]).unwrap_err().to_string();
        assert!(error.contains("sessions show: missing NAME or ID"), "{error}");
        let error = parse_words(&["sessions", "list", "--limt", "2"]).unwrap_err().to_string();
        assert!(error.contains("did you mean '--limit'?\nTry 'hermes sessions list --help'"), "{error}");
        let error = parse_words(&["sessions", "list", "-n", "0"]).unwrap_err().to_string();
        assert!(error.ends_with("Try 'hermes sessions list --help' for more information."), "{error}");
        let error = parse_words(&["sesions"]).unwrap_err().to_string();
        assert!(error.contains("did you mean 'sessions'?"), "{error}");
        let error = parse_words(&["config", "lst"]).unwrap_err().to_string();
        assert!(error.contains("unknown config command 'lst'; did you mean 'list'?"), "{error}");
    }

    #[test]
    fn verbs_build_their_typed_arguments() {
        let read = |spec, words: &[&str]| {
            crate::args::parse(spec, &mut lexopt::Parser::from_args(words.iter().copied()))
        };
        let args = read(&list::SPEC, &["-n", "5", "--here", "redis"]).unwrap();
        assert_eq!(
            args,
            list::Args {
                title: Some("redis".into()),
                limit: 5,
                all: false,
                here: true,
                json: false,
                completing: None
            }
        );
        let args = crate::args::parse(
            &export::SPEC,
            &mut lexopt::Parser::from_args(["a", "b", "-f", "md", "-o", "out"]),
        )
        .unwrap();
        assert_eq!(args.names, ["a", "b"]);
        assert_eq!(args.format, export::ExportFormat::Markdown);
        assert_eq!(args.output.as_deref(), Some(std::ffi::OsStr::new("out")));
        let args = crate::args::parse(
            &chat::args::SPEC,
            &mut lexopt::Parser::from_args(["-c", "redis debug", "-q", "-"]),
        )
        .unwrap();
        assert_eq!(args.target, chat::args::Target::ContinueNamed("redis debug".into()));
        assert_eq!(args.query, Some(chat::args::Query::Stdin));
        let cli = parse_words(&["-p", "work", "sessions", "ls"]).unwrap();
        assert_eq!(cli.profile.as_deref(), Some("work"));
        assert!(matches!(cli.action, Action::Store(job) if job.access() == crate::args::Access::Reads));
    }

    #[test]
    fn every_option_of_every_command_is_in_its_usage_and_its_help() {
        for spec in defs::every_spec() {
            let text = help::command(spec);
            let usage = help::usage(spec);
            for flag in spec.flags().iter().filter(|f| !f.help.is_empty()) {
                let name = if flag.short.is_empty() { flag.long } else { flag.short };
                assert!(usage.contains(name), "{}: usage lacks {name}", spec.path());
                assert!(text.contains(flag.long), "{}: help lacks {}", spec.path(), flag.long);
            }
        }
    }

    #[test]
    fn shells_and_formats_parse_by_name_and_refuse_others() {
        use defs::Shell;
        assert_eq!("zsh".parse::<Shell>().unwrap(), Shell::Zsh);
        assert!(matches!("tcsh".parse::<Shell>(), Err(Error::Usage(_))));
        assert!(matches!(parse_words(&["completion", "csh"]), Err(Error::UsageIn { .. })));
        assert_eq!("jsonl".parse::<export::ExportFormat>().unwrap(), export::ExportFormat::Jsonl);
        assert!("yaml".parse::<export::ExportFormat>().is_err());
        assert_eq!("text".parse::<crate::settings::AgentInput>(), Ok(crate::settings::AgentInput::Text));
        assert!("xml".parse::<crate::settings::AgentInput>().is_err());
    }
}
