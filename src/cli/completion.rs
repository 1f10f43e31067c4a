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

use crate::args::{Arg, HELP, Kind, OptionDef, Run};
use crate::error::Result;
use crate::settings;

use super::defs::{COMMANDS, CompletionArgs, Node, Shell, global_flags};

impl Run<()> for CompletionArgs {
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
    flags: Vec<&'static OptionDef>,
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
            Node::NoStore(spec) => all.push(Context {
                names: vec![spec.path().into()],
                flags: spec.flags(),
                args: spec.positionals(),
            }),
            Node::Group(group) => {
                all.push(Context { names: vec![group.name.into()], flags: vec![], args: vec![] });
                for verb in group.verbs {
                    let mut names = vec![format!("{}/{}", group.name, verb.name())];
                    names.extend(verb.alias().map(|n| format!("{}/{n}", group.name)));
                    all.push(Context { names, flags: verb.flags(), args: verb.positionals() });
                }
            }
        }
    }
    all
}

/// The options a context offers (with `-h, --help`), hidden ones left out.
fn shown(flags: &[&'static OptionDef]) -> Vec<&'static OptionDef> {
    let mut shown: Vec<&OptionDef> = Vec::new();
    for &flag in flags {
        if !flag.help.is_empty() {
            shown.push(flag);
        }
    }
    if !shown.iter().any(|f| f.long == HELP.long) {
        shown.push(&HELP);
    }
    shown
}

fn spellings(flags: &[&'static OptionDef]) -> String {
    joined_str(&mut flags.iter().flat_map(|f| f.spellings()), " ")
}

/// `parts` joined by `between`: one copy of the loop for every list of the
/// scripts, where collecting each into a `Vec` made one per list.
#[inline(never)]
fn joined(parts: &mut dyn Iterator<Item = String>, between: &str) -> String {
    let mut all = String::new();
    for (i, part) in parts.enumerate() {
        if i > 0 {
            all.push_str(between);
        }
        all.push_str(&part);
    }
    all
}

/// `joined`, of words.
#[inline(never)]
fn joined_str(parts: &mut dyn Iterator<Item = &str>, between: &str) -> String {
    joined(&mut parts.map(str::to_string), between)
}

/// The keys of config.toml, as one line of words.
fn setting_keys() -> String {
    joined_str(&mut settings::keys(), " ")
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
    joined_str(&mut COMMANDS.iter().map(Node::name), " ")
}

/// `text` inside single quotes, for bash, zsh and fish alike.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn bash() -> String {
    let (mut options, mut values, mut args) = (Vec::new(), Vec::new(), Vec::new());
    for context in contexts() {
        let names = joined(&mut context.names.iter().map(|n| quoted(n)), " | ");
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
            let patterns = joined(
                &mut context
                    .names
                    .iter()
                    .flat_map(|n| flag.spellings().map(move |s| format!("{}/{s}", quoted(n)))),
                " | ",
            );
            values.push(format!("{patterns}) REPLY='{kind}' ;;"));
        }
        if !context.args.is_empty() {
            let kinds = joined(
                &mut context.args.iter().map(|a| kind_word(a.kind) + if a.many { "..." } else { "" }),
                " ",
            );
            args.push(format!("{names}) REPLY='{kinds}' ;;"));
        }
    }
    let mut verbs = Vec::new();
    for node in COMMANDS.iter().filter(|node| !node.verbs().is_empty()) {
        verbs.push(format!("{}/) REPLY='{}' ;;", node.name(), verb_names(node)));
        verbs.push(format!("{}/all) REPLY='{}' ;;", node.name(), all_verb_names(node)));
    }
    let setting_values = joined(
        &mut settings::TABLE
            .iter()
            .filter(|s| !s.words.is_empty())
            .map(|s| format!("{}) REPLY='{}' ;;", s.key, s.words.join(" "))),
        "\n\t",
    );
    BASH.replace("@VERBS@", &verbs.join("\n\t"))
        .replace("@GLOBAL@", &spellings(&global_flags()))
        .replace("@OPTIONS@", &options.join("\n\t"))
        .replace("@VALUES@", &values.join("\n\t"))
        .replace("@ARGS@", &args.join("\n\t"))
        .replace("@SETTING_VALUES@", &setting_values)
        .replace("@SETTINGS@", &setting_keys())
        .replace("@COMMANDS@", &command_names())
}

/// A group's verbs, as one line of words.
fn verb_names(node: &Node) -> String {
    joined_str(&mut node.verbs().iter().map(|v| v.name()), " ")
}

/// A group's verbs and their other names (`ls` is `list`), as one line.
fn all_verb_names(node: &Node) -> String {
    joined_str(&mut node.verbs().iter().flat_map(|v| [Some(v.name()), v.alias()]).flatten(), " ")
}

/// What zsh's `_arguments` runs to complete a kind of value.
fn zsh_action(kind: Kind) -> String {
    match kind {
        Kind::Session => "_hermes_sessions title".into(),
        Kind::SessionId => "_hermes_sessions id".into(),
        Kind::File => "_files".into(),
        Kind::Shell => "_cmdstring".into(),
        Kind::Setting => format!("({})", setting_keys()),
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
fn zsh_option(flag: &OptionDef) -> String {
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
fn zsh_arguments(flags: &[&'static OptionDef], args: &[&Arg]) -> String {
    let mut words = vec!["_arguments -s $_hermes_help".to_string()];
    for flag in flags {
        if !flag.help.is_empty() {
            words.push(zsh_option(flag));
        }
    }
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
                let flags = spec.flags();
                let chat = joined(
                    &mut flags.iter().filter(|f| !f.help.is_empty()).map(|f| format!("  {}", zsh_option(f))),
                    "\n",
                );
                functions.push(format!("_hermes_chat_options=(\n{chat}\n)"));
                let mut words = vec!["_arguments -s $_hermes_help $_hermes_chat_options".to_string()];
                words.extend(zsh_args(&spec.positionals()));
                format!("  {}", words.join(" "))
            }
            Node::NoStore(spec) => format!("  {}", zsh_arguments(&spec.flags(), &spec.positionals())),
            Node::Group(group) => {
                let summaries = joined(
                    &mut group
                        .verbs
                        .iter()
                        .map(|v| format!("      {}", quoted(&format!("{}:{}", v.name(), v.summary())))),
                    "\n",
                );
                let arms = joined(
                    &mut group.verbs.iter().map(|v| {
                        let names = match v.alias() {
                            Some(alias) => format!("{} | {alias}", v.name()),
                            None => v.name().to_string(),
                        };
                        format!("  {names}) {} ;;", zsh_arguments(&v.flags(), &v.positionals()))
                    }),
                    "\n",
                );
                format!(
                    "  local -a verbs\n  if (( CURRENT == 2 )); then\n    verbs=(\n{}\n    )\n    _describe \
                        -t verbs '{name} command' verbs\n    return\n  fi\n  shift words\n  (( CURRENT-- \
                            ))\n  curcontext=${{curcontext%:*}}-$words[1]:\n  case $words[1] in\n{}\n  esac",
                    summaries, arms
                )
            }
        };
        functions.push(format!("{function}() {{\n{body}\n}}"));
    }
    let global = joined(
        &mut global_flags()
            .into_iter()
            .filter(|f| !f.help.is_empty())
            .map(|f| format!("    {} \\", zsh_option(f))),
        "\n",
    );
    let commands = joined(
        &mut COMMANDS.iter().map(|n| format!("      {}", quoted(&format!("{}:{}", n.name(), n.summary())))),
        "\n",
    );
    let setting_values = joined(
        &mut settings::TABLE
            .iter()
            .filter(|s| !s.words.is_empty())
            .map(|s| format!("  {}) values=({}) ;;", s.key, s.words.join(" "))),
        "\n",
    );
    let verbs_of = joined(
        &mut COMMANDS
            .iter()
            .filter(|node| !node.verbs().is_empty())
            .map(|node| format!("  {}) verbs=({}) ;;", node.name(), all_verb_names(node))),
        "\n",
    );
    ZSH.replace("@FUNCTIONS@", &functions.join("\n\n"))
        .replace("@GLOBAL@", &global)
        .replace("@COMMANDS@", &commands)
        .replace("@DISPATCH@", &dispatch.join("\n"))
        .replace("@SETTING_VALUES@", &setting_values)
        .replace("@VERBS_OF@", &verbs_of)
}

/// What fish offers for a kind of value, as `complete` options.
fn fish_values(kind: Kind) -> String {
    match kind {
        Kind::Session => "-a '(__hermes_sessions title)'".into(),
        Kind::SessionId => "-a '(__hermes_sessions id)'".into(),
        Kind::File | Kind::Shell => "-F".into(),
        Kind::Setting => format!("-a '{}'", setting_keys()),
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
fn fish_option(names: &str, flag: &OptionDef) -> String {
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
    let mut lines = Vec::new();
    for node in COMMANDS {
        let (name, summary) = (node.name(), quoted(&node.summary()));
        lines.push(format!("complete -c hermes -n '__hermes_at \"\"' -a {name} -d {summary}"));
    }
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
        verbs.push(format!("        case {}/\n            printf '%s\\n' {}", node.name(), verb_names(node)));
        let all = all_verb_names(node);
        verbs.push(format!("        case {}/all\n            printf '%s\\n' {all}", node.name()));
    }
    let setting_values = joined(
        &mut settings::TABLE
            .iter()
            .filter(|s| !s.words.is_empty())
            .map(|s| format!("        case {}\n            printf '%s\\n' {}", s.key, s.words.join(" "))),
        "\n",
    );
    FISH.replace("@VERBS@", &verbs.join("\n"))
        .replace("@VALUES@", &values.join("\n"))
        .replace("@GLOBAL@", &spellings(&global_flags()))
        .replace("@COMMANDS@", &command_names())
        .replace("@SETTING_VALUES@", &setting_values)
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
    let names =
        joined_str(&mut context.names.iter().map(|n| if n.is_empty() { "\"\"" } else { n.as_str() }), " ");
    // hermes -c ...: chat's options before any command.
    let names = if context.names == ["chat"] { format!("\"\" {names}") } else { names };
    for flag in shown(&context.flags) {
        lines.push(fish_option(&names, flag));
        let Some(value) = flag.value else { continue };
        let kind = kind_word(value.kind);
        let kind = if value.optional { format!("?{kind}") } else { kind };
        let cases = joined(
            &mut context
                .names
                .iter()
                .flat_map(|n| flag.spellings().map(move |s| quoted(&format!("{n}/{s}")))),
            " ",
        );
        values.push(format!("        case {cases}\n            echo '{kind}'"));
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
