//! The command line's tree: hermes's own options, then its commands, each
//! a `Spec` (`args`) defined beside what it runs (`chat::args::SPEC`,
//! `sessions::VERBS`, `config::VERBS`), or a group of verbs. hermes's own
//! `completion` and `help` are the exception: their `Spec`s are here,
//! below completion.rs and help.rs, which run them and read the tree.
//! Dispatch, `--help`, `hermes help`, did-you-mean, the completion scripts
//! and the man page's check all read it; nothing else lists a command.

use std::str::FromStr;

#[cfg(test)]
use crate::args::Describe;
use crate::args::{Arg, Command, HELP, Kind, Man, Opt, OptionDef, Spec, Value, switch};
use crate::commands::{chat, config, models, roles, sessions};
use crate::error::{Error, Result};
use crate::store::Store;

/// A command of hermes.
pub(crate) enum Node {
    /// A command with its own options and arguments (`chat`).
    Leaf(&'static dyn Command<Store>),
    /// A command whose first word is a verb (`sessions list`).
    Group(Group),
    /// A command of hermes's own that needs no store (`completion`, `help`).
    NoStore(&'static dyn Command<()>),
}

/// A command of verbs.
pub(crate) struct Group {
    pub(crate) name: &'static str,
    pub(crate) summary: &'static str,
    /// Its `--help` after the usage and the list of verbs.
    pub(crate) about: &'static str,
    pub(crate) verbs: &'static [&'static dyn Command<Store>],
}

impl Node {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Node::Leaf(spec) => spec.name(),
            Node::Group(group) => group.name,
            Node::NoStore(spec) => spec.name(),
        }
    }

    /// What it does in one line; a group's names its verbs.
    pub(crate) fn summary(&self) -> String {
        match self {
            Node::Leaf(spec) => spec.summary().to_string(),
            Node::Group(group) => {
                let verbs: Vec<&str> = group.verbs.iter().map(|v| v.name()).collect();
                let (last, rest) = verbs.split_last().unwrap_or((&"", &[]));
                format!("{}: {} and {last}", group.summary, rest.join(", "))
            }
            Node::NoStore(spec) => spec.summary().to_string(),
        }
    }

    /// Its verbs, if it is a group.
    pub(crate) fn verbs(&self) -> &'static [&'static dyn Command<Store>] {
        match self {
            Node::Group(group) => group.verbs,
            _ => &[],
        }
    }
}

/// hermes's commands, in the order help and completions list them; the
/// first, `chat`, is the command when none is named.
pub(crate) const COMMANDS: &[Node] = &[
    Node::Leaf(&chat::args::SPEC),
    Node::Group(Group {
        name: "sessions",
        summary: "your sessions",
        about: "\
'ls' is list and 'rm' is delete. NAME is an ID, an exact title, or a short
ID: 8 or more leading characters of an ID, or its last 6 hex digits, when
only one session has them. Run 'hermes sessions COMMAND --help' for more.
",
        verbs: sessions::VERBS,
    }),
    Node::Group(Group {
        name: "config",
        summary: "the agent, server, key and model in config.toml",
        about: config::ABOUT,
        verbs: config::VERBS,
    }),
    Node::Leaf(&roles::SPEC),
    Node::Leaf(&models::SPEC),
    Node::NoStore(&COMPLETION_SPEC),
    Node::NoStore(&HELP_SPEC),
];

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl FromStr for Shell {
    type Err = Error;

    fn from_str(name: &str) -> Result<Shell> {
        match name {
            "bash" => Ok(Shell::Bash),
            "zsh" => Ok(Shell::Zsh),
            "fish" => Ok(Shell::Fish),
            _ => Err(Error::usage(format!("completion: unknown shell '{name}' (bash, zsh, fish)"))),
        }
    }
}

/// `hermes completion SHELL`.
pub(crate) struct CompletionArgs {
    pub(crate) shell: Shell,
}

pub(crate) const COMPLETION_SPEC: Spec<CompletionArgs> = Spec {
    path: "completion",
    alias: None,
    summary: "print a shell completion script",
    about: "\
Print a completion script. For example:
  bash:  eval \"$(hermes completion bash)\"
  zsh:   hermes completion zsh > \"${fpath[1]}/_hermes\"
  fish:  hermes completion fish > ~/.config/fish/completions/hermes.fish
",
    man: Man::NONE,
    options: &[],
    args: &[Arg::one("", Kind::Words(&["bash", "zsh", "fish"])).takes(|a, v| {
        a.shell = v.lossy().parse()?;
        Ok(())
    })],
    start: || CompletionArgs { shell: Shell::Bash },
    finish: Ok,
    stray: None,
};

/// `hermes help [COMMAND [VERB]]`.
pub(crate) struct HelpArgs {
    pub(crate) words: Vec<String>,
}

pub(crate) const HELP_SPEC: Spec<HelpArgs> = Spec {
    path: "help",
    alias: None,
    summary: "show help for a command",
    about: "\
Show the help of a command or a verb: 'hermes help sessions list' is
'hermes sessions list --help' ('hermes help list' too). With --all, the
help of every command and verb, one after the other.

{options}
",
    man: Man::NONE,
    options: &[switch("", "--all", "the help of every command and verb")
        .man(
            r#"
the help of every command and verb, one after the other.
"#,
        )
        .sets(|a| a.words = vec!["--all".into()])],
    args: &[Arg::optional("COMMAND", Kind::Command).many().takes(|a, v| {
        a.words.push(v.lossy());
        Ok(())
    })],
    start: || HelpArgs { words: Vec::new() },
    finish: Ok,
    stray: None,
};

/// Words people type for a verb that is called otherwise, and the verb:
/// said ("did you mean 'search'?"), never taken.
pub(crate) const MEANT: &[(&str, &str)] = &[
    ("find", "search"),
    ("grep", "search"),
    ("remove", "delete"),
    ("del", "delete"),
    ("mv", "rename"),
    ("cat", "show"),
    ("view", "show"),
    ("open", "show"),
];

/// The command called `name`.
pub(crate) fn command(name: &str) -> Option<&'static Node> {
    COMMANDS.iter().find(|node| node.name() == name)
}

/// The verb of `verbs` called `name` (or by its alias).
pub(crate) fn verb<C>(
    verbs: &'static [&'static dyn Command<C>],
    name: &str,
) -> Option<&'static dyn Command<C>> {
    verbs.iter().copied().find(|verb| verb.name() == name || verb.alias() == Some(name))
}

/// hermes's own options, as read from the line: the profile, the pager,
/// the version.
#[derive(Debug, Default)]
pub(crate) struct Globals {
    pub(crate) profile: Option<String>,
    /// `--no-pager`: long output is never paged.
    pub(crate) no_pager: bool,
    pub(crate) version: bool,
    pub(crate) verbose: bool,
}

/// hermes's own options: `hermes -p NAME ...`, `hermes --no-pager ...`,
/// `hermes -V [-v]`. They are taken before the command, between a group
/// and its verb, and among any command's own options
/// (`hermes sessions show daily --no-pager`): the one reading loop
/// (`args::parse_with`) reads them with the command's.
pub(crate) const GLOBAL: &[Opt<Globals>] = &[
    global("-p", "--profile", Some(Value::new("NAME", Kind::Profile)), "use $HERMES_HOME/profiles/NAME")
        .man(
            r#"
use
.BI $HERMES_HOME/profiles/ NAME
instead of
.BR $HERMES_HOME :
a separate set of sessions, breadcrumbs and
.BR config.toml .
.I NAME
consists of letters, digits,
.RB \(aq . \(aq,
.RB \(aq _ \(aq
and
.RB \(aq \- \(aq,
and does not start with
.RB \(aq . \(aq.
"#,
        )
        .takes(|g: &mut Globals, v| {
            if g.profile.is_some() {
                return Err(Error::usage("-p/--profile given twice"));
            }
            g.profile = Some(super::valid_profile(v.lossy())?);
            Ok(())
        }),
    HELP.man(
        r#"
show this help; after a command, that command's help
.RB ( "hermes chat \-\-help" ,
.BR "hermes sessions list \-\-help" ).
"#,
    )
    .sets(|_| {}),
    global("-V", "--version", None, "show the version (-V -v: with build details)")
        .man(
            r#"
show the version
.RB ( \-V " " \-v ":"
with build details).
.B \-V \-v
(or
.BR "\-\-version \-\-verbose" )
adds the session format, the target, the build profile, and whether the
binary is statically linked.
"#,
        )
        .sets(|g| g.version = true),
    global("", "--no-pager", None, "never page long output (show, export, help) on a terminal")
        .man(
            r#"
never page long output (show, export, help) on a terminal.
Otherwise, on a terminal,
.BR "sessions show" ,
.B sessions export
to stdout, and a help longer than the screen go through a pager, as
git's output does:
.BR $HERMES_PAGER ,
else
.BR $PAGER ,
else
.BR less ,
given
.B LESS=FRX
when
.B LESS
is not set (it quits at once when the text fits on the screen, passes
colours, and leaves the text on the screen).
A pager named as empty or
.B cat
is none; into a pipe or a file nothing is paged.
Quitting the pager before the end is not an error (exit status 0).
A pager of one word that is not installed is said in a warning, and the
output is shown without it; a pager that fails (its shell finds no such
command, or it exits with an error) makes the command fail, exit 4,
saying so: its output may not have been shown.
"#,
        )
        .sets(|g| g.no_pager = true),
    global("-v", "--verbose", None, "").sets(|g| g.verbose = true),
];

/// The entries of hermes's own options, as help, completion and the man
/// page see them.
pub(crate) fn global_flags() -> Vec<&'static OptionDef> {
    GLOBAL.iter().map(|o| &o.flag).collect()
}

const fn global(
    short: &'static str,
    long: &'static str,
    value: Option<Value>,
    help: &'static str,
) -> OptionDef {
    OptionDef { value, ..crate::args::switch(short, long, help) }
}

/// Every command and verb, for the tests that walk them all.
#[cfg(test)]
pub(crate) fn every_spec() -> Vec<&'static dyn Describe> {
    let mut specs: Vec<&'static dyn Describe> = Vec::new();
    for node in COMMANDS {
        match node {
            Node::Leaf(spec) => specs.push(*spec),
            Node::Group(group) => specs.extend(group.verbs.iter().map(|v| *v as &dyn Describe)),
            Node::NoStore(spec) => specs.push(*spec),
        }
    }
    specs
}
