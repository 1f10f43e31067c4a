//! One definition per command and per option, the way ripgrep's
//! `flags/defs.rs` holds its flags: the sessions verbs and the options of
//! chat and of hermes itself. Read from here: dispatch, `--help` lookup,
//! typo suggestions, each verb's option lines in `--help` and its line in
//! `hermes sessions --help`, the three completion scripts, the tests'
//! list of verbs, and the man-page check.
//!
//! The shape, all there is to it:
//! - `opt(SHORT, LONG, VALUE, HELP)`: `opt("-n", "--limit", Some("N"),
//!   "show at most N sessions (default 20)")`; `""` for no short form;
//!   VALUE `None` for a flag, `Some("[NAME]")` for an optional value;
//!   HELP is one line in the man page's words (wrapped on output).
//! - `Verb { name, alias, summary, help, options, parse }` in `VERBS`:
//!   `help` is the usage line and prose in texts.rs, with `{options}`.
//! - chat's options in `CHAT`, hermes's own in `GLOBAL`.
//!
//! A verb's own `parse` (beside its `run`) turns these options into its
//! typed `Args`; the unit tests here and in cli/mod.rs hold the two in
//! step (each verb takes exactly its options), and the man page with them.

use crate::error::Result;
use crate::sessions::{
    self, compact, current, delete, export, import, list, merge, merge_file, pick, prune, rename, search,
    show, stats,
};

use super::texts;

/// One option: `-n`, `--limit`, the name of its value (`N`), if any, and
/// what it does in one line.
#[derive(Debug)]
pub(crate) struct Opt {
    pub(crate) short: Option<&'static str>,
    pub(crate) long: &'static str,
    /// `N`, `FILE`, ...; `NAME` completes session titles, `ID` session IDs,
    /// `FILE` and `CMD` file names, and words joined by `|` (`json|jsonl`)
    /// complete as those words. In brackets (`[NAME]`) it may be left out.
    pub(crate) value: Option<&'static str>,
    /// One line (wrapped on output), in the man page's words. Empty: not
    /// shown in `--help` or offered by completion (`-v`, only after `-V`).
    pub(crate) help: &'static str,
    /// A heading `--help` shows before it (chat's options come in groups).
    pub(crate) heading: Option<&'static str>,
    /// `--help` lines after its own for other ways to give it: the name as
    /// shown (`-q -`), and what it does.
    pub(crate) also: &'static [(&'static str, &'static str)],
}

const fn opt(
    short: &'static str,
    long: &'static str,
    value: Option<&'static str>,
    help: &'static str,
) -> Opt {
    Opt {
        short: if short.is_empty() { None } else { Some(short) },
        long,
        value,
        help,
        heading: None,
        also: &[],
    }
}

impl Opt {
    /// The same option, with a heading before it in `--help`.
    const fn under(self, heading: &'static str) -> Opt {
        Opt { heading: Some(heading), ..self }
    }

    /// The same option, with lines for other ways to give it after its own.
    const fn also(self, lines: &'static [(&'static str, &'static str)]) -> Opt {
        Opt { also: lines, ..self }
    }
}

/// `-h, --help`, which every command takes.
pub(crate) const HELP: Opt = opt("-h", "--help", None, "show this help");

/// A `hermes sessions` verb.
pub(crate) struct Verb {
    pub(crate) name: &'static str,
    /// A second name (`ls`, `rm`).
    pub(crate) alias: Option<&'static str>,
    /// What it does, in one line: `hermes sessions --help` and completions.
    pub(crate) summary: &'static str,
    /// Its `--help`: the usage line (`hermes sessions --help` shows its
    /// arguments too) and prose; `{options}` stands for the option lines.
    pub(crate) help: &'static str,
    /// The options it takes, besides `-h, --help`.
    pub(crate) options: &'static [Opt],
    /// Its arguments, typed: the verb's own `parse`.
    pub(crate) parse: fn(&mut lexopt::Parser) -> Result<sessions::Command>,
}

/// The options before the command: `hermes -p NAME ...`, `hermes -V [-v]`.
pub(crate) const GLOBAL: &[Opt] = &[
    opt("-p", "--profile", Some("NAME"), "use $HERMES_HOME/profiles/NAME"),
    opt("-V", "--version", None, "show the version (-V -v: with build details)"),
    opt("-v", "--verbose", None, ""),
];

/// `hermes chat`'s options (also read as chat before any command).
pub(crate) const CHAT: &[Opt] = &[
    opt(
        "-c",
        "--continue",
        Some("[NAME]"),
        "this terminal's last session; else the newest one in this workspace (git root, else directory); else the newest of all",
    )
    .under("Which session (with none of these, a new one):")
    .also(&[("-c, --continue NAME", "the session whose ID is NAME, else whose title is NAME")]),
    opt(
        "",
        "--create-if-missing",
        None,
        "with -c NAME: create the session titled NAME if none matches (parallel calls create exactly one)",
    ),
    opt(
        "-r",
        "--resume",
        Some("ID"),
        "the session with this ID, or the one a short ID names (8 or more leading characters, or the last 6 hex digits)",
    ),
    opt(
        "",
        "--pick",
        None,
        "choose the session on a full-screen list and continue it here (see 'hermes sessions pick --help')",
    ),
    opt("", "--title", Some("TITLE"), "title for a new session (refused if another session has it)"),
    opt(
        "-q",
        "--query",
        Some("TEXT"),
        "send TEXT, print the reply, exit (one-shot); with stdin a pipe or file, one message: stdin, a blank line, then TEXT",
    )
    .under("How:")
    .also(&[("-q -", "read the message from stdin (also when stdin is not a terminal)")]),
    opt("-Q", "--quiet", None, "do not print 'session_id: ID' or hints to stderr"),
    opt(
        "-m",
        "--model",
        Some("MODEL"),
        "the model to use, kept in the session: -c continues with the session's model unless -m says otherwise (default: 'model' in config.toml, then $HERMES_MODEL, then $OPENAI_MODEL for json)",
    ),
    opt(
        "-s",
        "--system",
        Some("TEXT"),
        "the session's system prompt (a new session's default: 'system' in config.toml)",
    ),
    opt("", "--system-file", Some("FILE"), "the system prompt from FILE"),
    opt(
        "",
        "--agent",
        Some("CMD"),
        "the command that writes replies (default: $HERMES_AGENT, then 'agent' in config.toml)",
    ),
    opt("", "--no-agent", None, "only save the message; no reply"),
    opt(
        "",
        "--plain",
        None,
        "show replies as the agent sent them, not as Markdown drawn for the terminal (also: render = \"plain\" in config.toml, or TERM=dumb)",
    ),
    CONTEXT,
];

/// `--context N`, which chat and `sessions compact` take.
const CONTEXT: Opt = opt(
    "",
    "--context",
    Some("N"),
    "the context budget: a turn sends at most N characters of the conversation (default: 'context' in config.toml, else 300000; 'off': no limit)",
);

/// `hermes config`'s options (its verbs, `get`, `set`, ..., are words
/// `configure::parse` reads).
pub(crate) const CONFIG: &[Opt] =
    &[opt("", "--timeout", Some("SECONDS"), "how long check waits (default 30)")];

const LIMIT: Opt = opt("-n", "--limit", Some("N"), "show at most N sessions (default 20)");
const YES: Opt = opt("-y", "--yes", None, "do not ask (needed when not on a terminal)");

/// The sessions verbs, in the order help and completions list them.
pub(crate) const VERBS: &[Verb] = &[
    Verb {
        name: "list",
        alias: Some("ls"),
        summary: "sessions, newest activity first ('*' marks the one 'hermes chat -c' would continue here); with TEXT, those whose title holds it",
        help: texts::LIST,
        options: &[
            LIMIT,
            opt("", "--all", None, "show every session"),
            opt(
                "",
                "--here",
                None,
                "only sessions started in this workspace (git root, else the current directory)",
            ),
            opt("", "--json", None, "a JSON array of session headers, for scripts"),
        ],
        parse: |p| list::parse(p).map(sessions::Command::List),
    },
    Verb {
        name: "search",
        alias: None,
        summary: "sessions whose title or messages hold TEXT",
        help: texts::SEARCH,
        options: &[
            LIMIT,
            opt(
                "",
                "--json",
                None,
                "a JSON array: per session its ID, title, times, the count of matches and the first 10 snippets",
            ),
        ],
        parse: |p| search::parse(p).map(sessions::Command::Search),
    },
    Verb {
        name: "pick",
        alias: None,
        summary: "choose a session on a full-screen list; print its ID",
        help: texts::PICK,
        options: &[],
        parse: |p| pick::parse(p).map(sessions::Command::Pick),
    },
    Verb {
        name: "show",
        alias: None,
        summary: "print a conversation",
        help: texts::SHOW,
        options: &[opt("", "--json", None, "the whole session file as JSON, raw text included")],
        parse: |p| show::parse(p).map(sessions::Command::Show),
    },
    Verb {
        name: "current",
        alias: None,
        summary: "which session 'hermes chat -c' would continue, and why",
        help: texts::CURRENT,
        options: &[
            opt("", "--json", None, "{\"id\", \"title\", \"reason\"} as JSON"),
            opt(
                "-f",
                "--format",
                Some("TEMPLATE"),
                "print TEMPLATE with {title}, {title_tmux} (the title with each # doubled, for tmux's status line), {id}, {short_id} (the last 6 hex digits), {model} and {reason} filled in, for a shell prompt or a tmux status line; without a session, print nothing",
            ),
        ],
        parse: |p| current::parse(p).map(sessions::Command::Current),
    },
    Verb {
        name: "export",
        alias: None,
        summary: "export some or all sessions",
        help: texts::EXPORT,
        options: &[
            opt(
                "-f",
                "--format",
                Some("json|jsonl|markdown"),
                "json (an array, default), jsonl (one session a line, for import) or markdown",
            ),
            opt(
                "-o",
                "--output",
                Some("FILE"),
                "write to FILE (atomically, mode 0600) instead of stdout; a device or FIFO is written into, a symlink refused; a FILE that is there is not replaced",
            ),
            opt("", "--force", None, "replace the -o FILE if it is there"),
        ],
        parse: |p| export::parse(p).map(sessions::Command::Export),
    },
    Verb {
        name: "import",
        alias: None,
        summary: "import sessions from hermes, the Python Hermes or llm",
        help: texts::IMPORT,
        options: &[
            opt("", "--from", Some(import::FROM), "what wrote FILE (default: hermes)"),
            opt("", "--dry-run", None, "report what would be imported; write nothing"),
        ],
        parse: |p| import::parse(p).map(sessions::Command::Import),
    },
    Verb {
        name: "rename",
        alias: None,
        summary: "give a session a new title",
        help: texts::RENAME,
        options: &[],
        parse: |p| rename::parse(p).map(sessions::Command::Rename),
    },
    Verb {
        name: "delete",
        alias: Some("rm"),
        summary: "delete sessions (asks first on a terminal)",
        help: texts::DELETE,
        options: &[opt("-y", "--yes", None, "do not ask")],
        parse: |p| delete::parse(p).map(sessions::Command::Delete),
    },
    Verb {
        name: "prune",
        alias: None,
        summary: "delete sessions inactive for DAYS, stray temporary files and stale breadcrumbs",
        help: texts::PRUNE,
        options: &[
            opt("", "--older-than", Some("DAYS"), "required"),
            opt("", "--dry-run", None, "list what would be removed; remove nothing"),
            YES,
        ],
        parse: |p| prune::parse(p).map(sessions::Command::Prune),
    },
    Verb {
        name: "stats",
        alias: None,
        summary: "counts, sizes, oldest and newest, stray temporaries; with NAME, one session's size against the context budget",
        help: texts::STATS,
        options: &[opt("", "--json", None, "the same as a JSON object")],
        parse: |p| stats::parse(p).map(sessions::Command::Stats),
    },
    Verb {
        name: "compact",
        alias: None,
        summary: "have the agent summarise a session's older messages",
        help: texts::COMPACT,
        options: &[
            opt("", "--keep", Some("N"), "keep the last N messages as they are"),
            opt("", "--agent", Some("CMD"), "the command that writes the summary (default: as chat)"),
            CONTEXT,
        ],
        parse: |p| compact::parse(p).map(sessions::Command::Compact),
    },
    Verb {
        name: "merge",
        alias: None,
        summary: "merge conflict copies left by sync tools or editors into their sessions, or the sessions sharing TITLE",
        help: texts::MERGE,
        options: &[
            opt("", "--dry-run", None, "say what would be merged; change nothing"),
            opt(
                "",
                "--restore",
                None,
                "bring back the session of a copy whose session is gone, under a free title (its own, else its own with (2), (3)...)",
            ),
            YES,
        ],
        parse: |p| merge::parse(p).map(sessions::Command::Merge),
    },
    Verb {
        name: "merge-file",
        alias: None,
        summary: "merge two versions of a session file (a git merge driver)",
        help: texts::MERGE_FILE,
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
    use crate::cli::help;

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
        let helps = [(help::chat(), CHAT), (texts::CONFIG.to_string(), CONFIG)]
            .into_iter()
            .chain(VERBS.iter().map(|v| (help::verb(v), v.options)));
        for (text, options) in helps {
            for o in options.iter().filter(|o| o.value.is_some()) {
                let value = o.value.unwrap_or_default().trim_matches(['[', ']']);
                let shown = format!("{} {value}", o.long);
                assert!(text.contains(&shown), "--help lacks {shown}");
            }
        }
        assert!(help::main().contains("--profile NAME"));
    }

    #[test]
    fn every_help_fits_in_80_columns() {
        let texts = [help::main(), help::chat(), help::sessions(), texts::CONFIG.to_string()]
            .into_iter()
            .chain([texts::COMPLETION.to_string()])
            .chain(VERBS.iter().map(help::verb));
        for text in texts {
            for line in text.lines() {
                assert!(line.chars().count() < 80, "a --help line over 79 columns: {line}");
            }
        }
    }

    #[test]
    fn chat_help_shows_each_option_and_its_other_forms_under_their_headings() {
        let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = one_line(&help::chat());
        for o in CHAT {
            assert!(text.contains(&one_line(o.help)), "chat --help lacks: {}", o.help);
            for (name, what) in o.also {
                assert!(text.contains(&format!("{name} {}", one_line(what))), "chat --help lacks {name}");
            }
        }
        let which = text.find("Which session").unwrap();
        let how = text.find("How:").unwrap();
        assert!(which < text.find("--continue").unwrap() && text.find("--continue").unwrap() < how);
        assert!(how < text.find("--query TEXT").unwrap());
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
