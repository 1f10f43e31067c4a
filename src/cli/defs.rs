//! One definition per command and per option, the way ripgrep's
//! `flags/defs.rs` holds its flags: the sessions verbs (name, alias, help
//! text, options, parse) and the options of chat and of hermes itself.
//! Dispatch, `--help` lookup, typo suggestions and the option lists checked
//! against the man page and the completion scripts are all read from here.
//! A verb's own `parse` (beside its `run`) turns these options into its
//! typed `Args`; the unit tests below hold the two in step.

use crate::error::Result;
use crate::sessions::{
    self, current, delete, export, import, list, merge, merge_file, pick, prune, rename, search, show, stats,
};

use super::help;

/// One option: `-n`, `--limit`, and the name of its value (`N`), if any.
#[derive(Debug)]
pub(crate) struct Opt {
    pub(crate) short: Option<&'static str>,
    pub(crate) long: &'static str,
    /// Read by the check that each `--help` shows `--long VALUE`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) value: Option<&'static str>,
}

const fn opt(short: &'static str, long: &'static str, value: Option<&'static str>) -> Opt {
    Opt { short: if short.is_empty() { None } else { Some(short) }, long, value }
}

/// `-h, --help`, which every command takes.
pub(crate) const HELP: Opt = opt("-h", "--help", None);

/// A `hermes sessions` verb.
pub(crate) struct Verb {
    pub(crate) name: &'static str,
    /// A second name (`ls`, `rm`).
    pub(crate) alias: Option<&'static str>,
    /// Its `--help`, which names each of `options` and describes them.
    pub(crate) help: &'static str,
    /// The options it takes, besides `-h, --help`.
    pub(crate) options: &'static [Opt],
    /// Its arguments, typed: the verb's own `parse`.
    pub(crate) parse: fn(&mut lexopt::Parser) -> Result<sessions::Command>,
}

/// The options before the command: `hermes -p NAME ...`, `hermes -V [-v]`.
pub(crate) const GLOBAL: &[Opt] =
    &[opt("-p", "--profile", Some("NAME")), opt("-V", "--version", None), opt("-v", "--verbose", None)];

/// `hermes chat`'s options (also read as chat before any command).
pub(crate) const CHAT: &[Opt] = &[
    opt("-c", "--continue", Some("NAME")),
    opt("-r", "--resume", Some("ID")),
    opt("", "--pick", None),
    opt("", "--create-if-missing", None),
    opt("-q", "--query", Some("TEXT")),
    opt("-Q", "--quiet", None),
    opt("", "--title", Some("TITLE")),
    opt("-m", "--model", Some("MODEL")),
    opt("-s", "--system", Some("TEXT")),
    opt("", "--system-file", Some("FILE")),
    opt("", "--agent", Some("CMD")),
    opt("", "--no-agent", None),
];

/// `hermes config`'s options (its verbs, `get`, `set`, ..., are words
/// `configure::parse` reads).
pub(crate) const CONFIG: &[Opt] = &[opt("", "--timeout", Some("SECONDS"))];

const LIMIT: Opt = opt("-n", "--limit", Some("N"));
const JSON: Opt = opt("", "--json", None);
const DRY_RUN: Opt = opt("", "--dry-run", None);
const YES: Opt = opt("-y", "--yes", None);

/// The sessions verbs, in the order help and completions list them.
pub(crate) const VERBS: &[Verb] = &[
    Verb {
        name: "list",
        alias: Some("ls"),
        help: help::LIST,
        options: &[LIMIT, opt("", "--all", None), opt("", "--here", None), JSON],
        parse: |p| list::parse(p).map(sessions::Command::List),
    },
    Verb {
        name: "search",
        alias: None,
        help: help::SEARCH,
        options: &[LIMIT, JSON],
        parse: |p| search::parse(p).map(sessions::Command::Search),
    },
    Verb {
        name: "pick",
        alias: None,
        help: help::PICK,
        options: &[],
        parse: |p| pick::parse(p).map(sessions::Command::Pick),
    },
    Verb {
        name: "show",
        alias: None,
        help: help::SHOW,
        options: &[JSON],
        parse: |p| show::parse(p).map(sessions::Command::Show),
    },
    Verb {
        name: "current",
        alias: None,
        help: help::CURRENT,
        options: &[JSON, opt("-f", "--format", Some("TEMPLATE"))],
        parse: |p| current::parse(p).map(sessions::Command::Current),
    },
    Verb {
        name: "export",
        alias: None,
        help: help::EXPORT,
        options: &[opt("-f", "--format", Some("FORMAT")), opt("-o", "--output", Some("FILE"))],
        parse: |p| export::parse(p).map(sessions::Command::Export),
    },
    Verb {
        name: "import",
        alias: None,
        help: help::IMPORT,
        options: &[opt("", "--from", Some("FORMAT")), DRY_RUN],
        parse: |p| import::parse(p).map(sessions::Command::Import),
    },
    Verb {
        name: "rename",
        alias: None,
        help: help::RENAME,
        options: &[],
        parse: |p| rename::parse(p).map(sessions::Command::Rename),
    },
    Verb {
        name: "delete",
        alias: Some("rm"),
        help: help::DELETE,
        options: &[YES],
        parse: |p| delete::parse(p).map(sessions::Command::Delete),
    },
    Verb {
        name: "prune",
        alias: None,
        help: help::PRUNE,
        options: &[opt("", "--older-than", Some("DAYS")), DRY_RUN, YES],
        parse: |p| prune::parse(p).map(sessions::Command::Prune),
    },
    Verb {
        name: "stats",
        alias: None,
        help: help::STATS,
        options: &[JSON],
        parse: |p| stats::parse(p).map(sessions::Command::Stats),
    },
    Verb {
        name: "merge",
        alias: None,
        help: help::MERGE,
        options: &[DRY_RUN, YES],
        parse: |p| merge::parse(p).map(sessions::Command::Merge),
    },
    Verb {
        name: "merge-file",
        alias: None,
        help: help::MERGE_FILE,
        options: &[],
        parse: |p| merge_file::parse(p).map(sessions::Command::MergeFile),
    },
];

/// The verb called `name` (or by its alias).
pub(crate) fn verb(name: &str) -> Option<&'static Verb> {
    VERBS.iter().find(|verb| verb.name == name || verb.alias == Some(name))
}

/// Every spelling of `options` and of `-h, --help`: `-n`, `--limit`, ...
pub(crate) fn spellings(options: &[Opt]) -> Vec<&'static str> {
    options.iter().chain([&HELP]).flat_map(|o| o.short.into_iter().chain([o.long])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The man page's source with roff's escaped hyphens and fonts made plain.
    fn man_page() -> String {
        include_str!("../../man/hermes.1")
            .replace("\\-", "-")
            .replace("\\fB", "")
            .replace("\\fR", "")
            .replace("\\fI", "")
    }

    /// Long options the man page names that belong to other programs.
    const OTHER_PROGRAMS: &[&str] = &["--short"];

    #[test]
    fn the_man_page_names_every_verb_and_option_and_no_other() {
        let man = man_page();
        for verb in VERBS {
            let entry = format!("\n.B {}", verb.name);
            assert!(
                man.contains(&format!("{entry}\n")) || man.contains(&format!("{entry} ")),
                "man: {}",
                verb.name
            );
        }
        let defined: Vec<&str> = [GLOBAL, CHAT, CONFIG]
            .into_iter()
            .chain(VERBS.iter().map(|v| v.options))
            .flat_map(spellings)
            .collect();
        for long in defined.iter().filter(|o| o.starts_with("--")) {
            assert!(man.contains(long), "man page lacks {long}");
        }
        let mut rest = man.as_str();
        while let Some(at) = rest.find("--") {
            rest = &rest[at + 2..];
            let word: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '-').collect();
            let option = format!("--{word}");
            if word.is_empty() || !word.starts_with(|c: char| c.is_ascii_lowercase()) {
                continue;
            }
            assert!(
                defined.contains(&option.as_str()) || OTHER_PROGRAMS.contains(&option.as_str()),
                "the man page names {option}, which no command defines"
            );
        }
    }

    #[test]
    fn each_help_shows_the_value_of_each_option_that_takes_one() {
        let helps = [(help::CHAT, CHAT), (help::CONFIG, CONFIG)]
            .into_iter()
            .chain(VERBS.iter().map(|v| (v.help, v.options)));
        for (text, options) in helps {
            for o in options.iter().filter(|o| o.value.is_some()) {
                let shown = format!("{} {}", o.long, o.value.unwrap_or_default());
                assert!(text.contains(&shown), "--help lacks {shown}");
            }
        }
        assert!(help::main().contains("--profile NAME"));
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut names: Vec<&str> = VERBS.iter().flat_map(|v| [v.name].into_iter().chain(v.alias)).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
