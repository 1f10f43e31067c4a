//! Shell completion scripts for bash, zsh and fish, whole from the command
//! line's tree (defs.rs): the commands, every verb, every option, and each
//! value and argument by what it is (`args::Kind`: session titles and IDs,
//! files, config keys and their values, profiles, commands). The shell
//! logic is three templates in `completions/`; this fills in their tables
//! (`@VERBS@`, `@OPTIONS@`, ...). The scripts read titles from `hermes
//! sessions list --all`, whose output to a pipe is
//! `MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID` per session (titles never
//! hold tabs or newlines). `make lint-shell` and tests/t6100-completion.sh
//! run shellcheck on the bash script; t6100 drives all three shells.

use std::str::FromStr;

use crate::args::{Arg, Flag, HELP, Kind, Run, Spec};
use crate::error::{Error, Result};
use crate::settings;

use super::defs::{COMMANDS, Node, global_flags};

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
pub(crate) struct Args {
    shell: Shell,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "completion",
    alias: None,
    summary: "print a shell completion script",
    about: "\
Print a completion script. For example:
  bash:  eval \"$(hermes completion bash)\"
  zsh:   hermes completion zsh > \"${fpath[1]}/_hermes\"
  fish:  hermes completion fish > ~/.config/fish/completions/hermes.fish
",
    options: &[],
    args: &[Arg::one("", Kind::Words(&["bash", "zsh", "fish"])).takes(|a, v| {
        a.shell = v.text().parse()?;
        Ok(())
    })],
    start: || Args { shell: Shell::Bash },
    finish: Ok,
    stray: None,
};

impl Run<()> for Args {
    fn run(self, _: &()) -> Result<()> {
        super::print(&script(self.shell))
    }
}

/// The script for `shell`: its template with the tables filled in.
pub(crate) fn script(shell: Shell) -> String {
    match shell {
        Shell::Bash => bash(),
        Shell::Zsh => zsh(),
        Shell::Fish => fish(),
    }
}

const BASH: &str = include_str!("completions/hermes.bash");
const ZSH: &str = include_str!("completions/_hermes");
const FISH: &str = include_str!("completions/hermes.fish");

/// A place on the command line where options and arguments are read: its
/// names (`sessions/list`, `sessions/ls`), options and arguments.
struct Context {
    names: Vec<String>,
    flags: Vec<&'static Flag>,
    args: Vec<&'static Arg>,
}

/// Every context of the tree: hermes itself (`""`), each command, each verb.
fn contexts() -> Vec<Context> {
    let mut all = vec![Context { names: vec![String::new()], flags: global_flags(), args: vec![] }];
    for node in COMMANDS {
        match node {
            Node::Leaf(spec) => all.push(Context {
                names: vec![spec.path().into()],
                flags: spec.flags(),
                args: spec.positionals(),
            }),
            Node::Own(spec) => all.push(Context {
                names: vec![spec.path().into()],
                flags: spec.flags(),
                args: spec.positionals(),
            }),
            Node::Group(group) => {
                all.push(Context { names: vec![group.name.into()], flags: vec![], args: vec![] });
                for verb in group.verbs {
                    let names = [Some(verb.name()), verb.alias()].into_iter().flatten();
                    all.push(Context {
                        names: names.map(|n| format!("{}/{n}", group.name)).collect(),
                        flags: verb.flags(),
                        args: verb.positionals(),
                    });
                }
            }
        }
    }
    all
}

/// The options a context offers (with `-h, --help`), hidden ones left out.
fn shown(flags: &[&'static Flag]) -> Vec<&'static Flag> {
    let mut shown: Vec<&Flag> = flags.iter().copied().filter(|f| !f.help.is_empty()).collect();
    if !shown.iter().any(|f| f.long == HELP.long) {
        shown.push(&HELP);
    }
    shown
}

fn spellings(flags: &[&'static Flag]) -> String {
    flags.iter().flat_map(|f| f.spellings()).collect::<Vec<_>>().join(" ")
}

/// A kind as the scripts name it.
fn kind_word(kind: Kind) -> String {
    match kind {
        Kind::Session => "session".into(),
        Kind::SessionId => "session-id".into(),
        Kind::File => "file".into(),
        Kind::Shell => "shell".into(),
        Kind::Setting => "setting".into(),
        Kind::SettingValue => "setting-value".into(),
        Kind::Model => "model".into(),
        Kind::Profile => "profile".into(),
        Kind::Role => "role".into(),
        Kind::Command => "command".into(),
        Kind::Words(words) => format!("words:{}", words.join(",")),
        Kind::Number => "number".into(),
        Kind::Text => "text".into(),
    }
}

fn command_names() -> String {
    COMMANDS.iter().map(Node::name).collect::<Vec<_>>().join(" ")
}

/// The verbs of each group, with their aliases: (group, words).
fn groups() -> Vec<(&'static str, Vec<&'static str>)> {
    COMMANDS
        .iter()
        .filter(|node| !node.verbs().is_empty())
        .map(|node| {
            let words = node.verbs().iter().flat_map(|v| [Some(v.name()), v.alias()]).flatten().collect();
            (node.name(), words)
        })
        .collect()
}

/// `text` inside single quotes, for bash, zsh and fish alike.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn bash() -> String {
    let (mut options, mut values, mut args) = (Vec::new(), Vec::new(), Vec::new());
    for context in contexts() {
        let names = context.names.iter().map(|n| quoted(n)).collect::<Vec<_>>().join(" | ");
        let mut offered = shown(&context.flags);
        if context.names == [""] {
            // hermes -c NAME is chat: its options come before any command too.
            let Node::Leaf(chat) = &COMMANDS[0] else { unreachable!("chat is the first command") };
            offered.extend(shown(&chat.flags()).into_iter().filter(|f| f.long != HELP.long));
        }
        options.push(format!("{names}) REPLY='{}' ;;", spellings(&offered)));
        for flag in shown(&context.flags) {
            let Some(value) = flag.value else { continue };
            let kind = kind_word(value.kind);
            let kind = if value.optional { format!("?{kind}") } else { kind };
            let patterns: Vec<String> = context
                .names
                .iter()
                .flat_map(|n| flag.spellings().map(move |s| format!("{}/{s}", quoted(n))))
                .collect();
            values.push(format!("{}) REPLY='{kind}' ;;", patterns.join(" | ")));
        }
        if !context.args.is_empty() {
            let kinds: Vec<String> =
                context.args.iter().map(|a| kind_word(a.kind) + if a.many { "..." } else { "" }).collect();
            args.push(format!("{names}) REPLY='{}' ;;", kinds.join(" ")));
        }
    }
    let mut verbs = Vec::new();
    for node in COMMANDS.iter().filter(|node| !node.verbs().is_empty()) {
        let names: Vec<&str> = node.verbs().iter().map(|v| v.name()).collect();
        verbs.push(format!("{}/) REPLY='{}' ;;", node.name(), names.join(" ")));
        verbs.push(format!("{}/all) REPLY='{}' ;;", node.name(), all_verb_names(node).join(" ")));
    }
    let setting_values: Vec<String> = settings::TABLE
        .iter()
        .filter(|s| !s.words.is_empty())
        .map(|s| (s.key, s.words))
        .map(|(key, words)| format!("{key}) REPLY='{}' ;;", words.join(" ")))
        .collect();
    let global: Vec<&str> = global_flags().into_iter().flat_map(|f| f.spellings()).collect();
    BASH.replace("@VERBS@", &verbs.join("\n\t"))
        .replace("@GLOBAL@", &global.join(" "))
        .replace("@OPTIONS@", &options.join("\n\t"))
        .replace("@VALUES@", &values.join("\n\t"))
        .replace("@ARGS@", &args.join("\n\t"))
        .replace("@SETTING_VALUES@", &setting_values.join("\n\t"))
        .replace("@SETTINGS@", &settings::keys().collect::<Vec<_>>().join(" "))
        .replace("@COMMANDS@", &command_names())
}

/// A group's verbs and their other names (`ls` is `list`).
fn all_verb_names(node: &Node) -> Vec<&'static str> {
    node.verbs().iter().flat_map(|v| [Some(v.name()), v.alias()]).flatten().collect()
}

/// What zsh's `_arguments` runs to complete a kind of value.
fn zsh_action(kind: Kind) -> String {
    match kind {
        Kind::Session => "_hermes_sessions title".into(),
        Kind::SessionId => "_hermes_sessions id".into(),
        Kind::File => "_files".into(),
        Kind::Shell => "_cmdstring".into(),
        Kind::Setting => format!("({})", settings::keys().collect::<Vec<_>>().join(" ")),
        Kind::SettingValue => "_hermes_setting_values".into(),
        Kind::Profile => "_hermes_profiles".into(),
        Kind::Role => "_hermes_roles".into(),
        Kind::Command => format!("({})", command_names()),
        Kind::Words(words) => format!("({})", words.join(" ")),
        Kind::Model => "_hermes_models".into(),
        Kind::Number | Kind::Text => " ".into(),
    }
}

/// An `_arguments` spec for an option.
fn zsh_option(flag: &Flag) -> String {
    let help = flag.help.replace('[', r"\[").replace(']', r"\]");
    let (suffix, short_mark, long_mark) = match flag.value {
        Some(value) => {
            let name = value.name.to_lowercase().replace('|', " or ");
            let name = if name.is_empty() { "value".into() } else { name };
            let colons = if value.optional { "::" } else { ":" };
            let marks = if value.optional { ("", "") } else { ("+", "=") };
            (format!("{colons}{name}:{}", zsh_action(value.kind)), marks.0, marks.1)
        }
        None => (String::new(), "", ""),
    };
    let tail = quoted(&format!("[{help}]{suffix}"));
    if flag.short.is_empty() {
        format!("{}{long_mark}{tail}", flag.long)
    } else {
        let (short, long) = (flag.short, flag.long);
        format!("'({short} {long})'{{{short}{short_mark},{long}{long_mark}}}{tail}")
    }
}

/// `_arguments` specs for positional arguments.
fn zsh_args(args: &[&Arg]) -> Vec<String> {
    let mut specs = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let name = arg.name.to_lowercase().replace('|', " or ");
        let name = if name.is_empty() { "value".into() } else { name };
        if arg.kind == Kind::Command {
            specs.push(quoted(&format!("{}:command:{}", i + 1, zsh_action(arg.kind))));
            specs.push(quoted(&format!("{}:verb:_hermes_verbs_of", i + 2)));
            continue;
        }
        let action = zsh_action(arg.kind);
        specs.push(quoted(&match (arg.many, arg.optional) {
            (true, _) => format!("*:{name}:{action}"),
            (false, true) => format!("{}::{name}:{action}", i + 1),
            (false, false) => format!("{}:{name}:{action}", i + 1),
        }));
    }
    specs
}

/// `_arguments -s ...` for a context's options and arguments.
fn zsh_arguments(flags: &[&'static Flag], args: &[&Arg]) -> String {
    let mut words = vec!["_arguments -s $_hermes_help".to_string()];
    words.extend(flags.iter().filter(|f| !f.help.is_empty()).map(|f| zsh_option(f)));
    words.extend(zsh_args(args));
    words.join(" ")
}

fn zsh() -> String {
    let mut functions = Vec::new();
    let mut dispatch = Vec::new();
    for node in COMMANDS {
        let name = node.name();
        let function = format!("_hermes_cmd_{}", name.replace('-', "_"));
        dispatch.push(format!("    {name}) {function} && ret=0 ;;"));
        let body = match node {
            Node::Leaf(spec) => {
                let chat: Vec<String> = spec
                    .flags()
                    .iter()
                    .filter(|f| !f.help.is_empty())
                    .map(|f| format!("  {}", zsh_option(f)))
                    .collect();
                functions.push(format!("_hermes_chat_options=(\n{}\n)", chat.join("\n")));
                let mut words = vec!["_arguments -s $_hermes_help $_hermes_chat_options".to_string()];
                words.extend(zsh_args(&spec.positionals()));
                format!("  {}", words.join(" "))
            }
            Node::Own(spec) => format!("  {}", zsh_arguments(&spec.flags(), &spec.positionals())),
            Node::Group(group) => {
                let summaries: Vec<String> = group
                    .verbs
                    .iter()
                    .map(|v| format!("      {}", quoted(&format!("{}:{}", v.name(), v.summary()))))
                    .collect();
                let arms: Vec<String> = group
                    .verbs
                    .iter()
                    .map(|v| {
                        let names =
                            [Some(v.name()), v.alias()].into_iter().flatten().collect::<Vec<_>>().join(" | ");
                        format!("  {names}) {} ;;", zsh_arguments(&v.flags(), &v.positionals()))
                    })
                    .collect();
                format!(
                    "  local -a verbs\n  if (( CURRENT == 2 )); then\n    verbs=(\n{}\n    )\n    _describe -t verbs '{name} command' verbs\n    return\n  fi\n  shift words\n  (( CURRENT-- ))\n  curcontext=${{curcontext%:*}}-$words[1]:\n  case $words[1] in\n{}\n  esac",
                    summaries.join("\n"),
                    arms.join("\n")
                )
            }
        };
        functions.push(format!("{function}() {{\n{body}\n}}"));
    }
    let global: Vec<String> = global_flags()
        .into_iter()
        .filter(|f| !f.help.is_empty())
        .map(|f| format!("    {} \\", zsh_option(f)))
        .collect();
    let commands: Vec<String> = COMMANDS
        .iter()
        .map(|n| format!("      {}", quoted(&format!("{}:{}", n.name(), n.summary()))))
        .collect();
    let setting_values: Vec<String> = settings::TABLE
        .iter()
        .filter(|s| !s.words.is_empty())
        .map(|s| (s.key, s.words))
        .map(|(key, words)| format!("  {key}) values=({}) ;;", words.join(" ")))
        .collect();
    let verbs_of: Vec<String> =
        groups().iter().map(|(g, words)| format!("  {g}) verbs=({}) ;;", words.join(" "))).collect();
    ZSH.replace("@FUNCTIONS@", &functions.join("\n\n"))
        .replace("@GLOBAL@", &global.join("\n"))
        .replace("@COMMANDS@", &commands.join("\n"))
        .replace("@DISPATCH@", &dispatch.join("\n"))
        .replace("@SETTING_VALUES@", &setting_values.join("\n"))
        .replace("@VERBS_OF@", &verbs_of.join("\n"))
}

/// What fish offers for a kind of value, as `complete` options.
fn fish_values(kind: Kind) -> String {
    match kind {
        Kind::Session => "-a '(__hermes_sessions title)'".into(),
        Kind::SessionId => "-a '(__hermes_sessions id)'".into(),
        Kind::File | Kind::Shell => "-F".into(),
        Kind::Setting => format!("-a '{}'", settings::keys().collect::<Vec<_>>().join(" ")),
        Kind::SettingValue => "-a '(__hermes_setting_values)'".into(),
        Kind::Profile => "-a '(__hermes_profiles)'".into(),
        Kind::Role => "-a '(__hermes_roles)'".into(),
        Kind::Command => format!("-a '{}'", command_names()),
        Kind::Words(words) => format!("-a '{}'", words.join(" ")),
        Kind::Model => "-a '(__hermes_models)'".into(),
        Kind::Number | Kind::Text => String::new(),
    }
}

/// A fish `complete` line for an option, in the contexts `names`.
fn fish_option(names: &str, flag: &Flag) -> String {
    let mut line = format!("complete -c hermes -n '__hermes_at {names}'");
    if !flag.short.is_empty() {
        line.push_str(&format!(" -s {}", &flag.short[1..]));
    }
    line.push_str(&format!(" -l {}", &flag.long[2..]));
    match flag.value {
        Some(value) if value.optional => {}
        Some(value) if matches!(value.kind, Kind::File | Kind::Shell) => line.push_str(" -r -F"),
        Some(value) => {
            line.push_str(" -x");
            let values = fish_values(value.kind);
            if !values.is_empty() {
                line.push(' ');
                line.push_str(&values);
            }
        }
        None => {}
    }
    line.push_str(&format!(" -d {}", quoted(flag.help)));
    line
}

fn fish() -> String {
    let mut lines: Vec<String> = COMMANDS
        .iter()
        .map(|node| {
            format!(
                "complete -c hermes -n '__hermes_at \"\"' -a {} -d {}",
                node.name(),
                quoted(&node.summary())
            )
        })
        .collect();
    let mut values = Vec::new();
    let mut optional_kinds = Vec::new();
    for context in contexts() {
        fish_context(&context, &mut lines, &mut values, &mut optional_kinds);
    }
    for node in COMMANDS {
        for verb in node.verbs() {
            let (name, summary) = (verb.name(), quoted(verb.summary()));
            lines.push(format!("complete -c hermes -n '__hermes_at {}' -a {name} -d {summary}", node.name()));
        }
    }
    let mut verbs = Vec::new();
    for node in COMMANDS.iter().filter(|node| !node.verbs().is_empty()) {
        let names: Vec<&str> = node.verbs().iter().map(|v| v.name()).collect();
        verbs.push(format!("        case {}/\n            printf '%s\\n' {}", node.name(), names.join(" ")));
        let all = all_verb_names(node).join(" ");
        verbs.push(format!("        case {}/all\n            printf '%s\\n' {all}", node.name()));
    }
    let setting_values: Vec<String> = settings::TABLE
        .iter()
        .filter(|s| !s.words.is_empty())
        .map(|s| format!("        case {}\n            printf '%s\\n' {}", s.key, s.words.join(" ")))
        .collect();
    let global: Vec<&str> = global_flags().into_iter().flat_map(|f| f.spellings()).collect();
    FISH.replace("@VERBS@", &verbs.join("\n"))
        .replace("@VALUES@", &values.join("\n"))
        .replace("@GLOBAL@", &global.join(" "))
        .replace("@COMMANDS@", &command_names())
        .replace("@SETTING_VALUES@", &setting_values.join("\n"))
        .replace("@COMPLETIONS@", &lines.join("\n"))
}

/// A context's fish lines: its options (with what their values are, for
/// `__hermes_value`) and what its arguments complete to.
fn fish_context(
    context: &Context,
    lines: &mut Vec<String>,
    values: &mut Vec<String>,
    optional: &mut Vec<Kind>,
) {
    let names: Vec<String> =
        context.names.iter().map(|n| if n.is_empty() { "\"\"".to_string() } else { n.clone() }).collect();
    // hermes -c ...: chat's options before any command.
    let names = if context.names == ["chat"] { format!("\"\" {}", names.join(" ")) } else { names.join(" ") };
    for flag in shown(&context.flags) {
        lines.push(fish_option(&names, flag));
        let Some(value) = flag.value else { continue };
        let kind = kind_word(value.kind);
        let kind = if value.optional { format!("?{kind}") } else { kind };
        let cases: Vec<String> = context
            .names
            .iter()
            .flat_map(|n| flag.spellings().map(move |s| quoted(&format!("{n}/{s}"))))
            .collect();
        values.push(format!("        case {}\n            echo '{kind}'", cases.join(" ")));
        if value.optional && !optional.contains(&value.kind) {
            optional.push(value.kind);
            let (word, offered) = (kind_word(value.kind), fish_values(value.kind));
            lines.push(format!("complete -c hermes -n '__hermes_optional {word}' {offered}"));
        }
    }
    for (i, arg) in context.args.iter().enumerate() {
        let at = if arg.many { format!("{i}+") } else { i.to_string() };
        if arg.kind == Kind::Command {
            lines.push(format!("complete -c hermes -n '__hermes_arg 0 {names}' {}", fish_values(arg.kind)));
            lines.push(format!(
                "complete -c hermes -n '__hermes_arg 1 {names}' -a '(__hermes_verbs (__hermes_first))'"
            ));
            continue;
        }
        let offered = fish_values(arg.kind);
        if !offered.is_empty() {
            lines.push(format!("complete -c hermes -n '__hermes_arg {at} {names}' {offered}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_filled() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let text = script(shell);
            let mut rest = text.as_str();
            while let Some(at) = rest.find('@') {
                let word: String =
                    rest[at + 1..].chars().take_while(|c| c.is_ascii_uppercase() || *c == '_').collect();
                assert!(
                    word.len() < 2 || !rest[at + 1 + word.len()..].starts_with('@'),
                    "{shell:?}: @{word}@ left"
                );
                rest = &rest[at + 1..];
            }
        }
    }

    #[test]
    fn each_script_offers_every_command_verb_and_option() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let text = script(shell);
            for context in contexts() {
                for name in &context.names {
                    let word = name.rsplit('/').next().unwrap_or_default();
                    assert!(text.contains(word), "{shell:?}: {name}");
                }
                for flag in shown(&context.flags) {
                    let long = if shell == Shell::Fish {
                        format!("-l {}", &flag.long[2..])
                    } else {
                        flag.long.to_string()
                    };
                    assert!(text.contains(&long), "{shell:?}: {:?} {}", context.names, flag.long);
                }
            }
        }
    }
}
