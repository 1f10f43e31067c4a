//! `--help` and `hermes help`, made from the command line's tree
//! (defs.rs) and each command's `Spec`: usage lines, option lines, the
//! lists of commands and verbs; only the prose is written by hand, beside
//! each command.

use crate::args::{Arg, Describe, HELP, Kind, OptionDef, Run, Value};
use crate::error::{Error, Result};

use super::defs::{self, COMMANDS, Group, HelpArgs, Node, global_flags};

impl Run<()> for HelpArgs {
    fn run(self, _: &()) -> Result<()> {
        let words: Vec<&str> = self.words.iter().map(String::as_str).collect();
        let text = for_words(&words)?;
        let pager = crate::terminal::pager::start_for(&text);
        crate::terminal::pager::around(pager, || super::print(&text))
    }
}

/// The help `hermes help WORDS...` prints.
pub(crate) fn for_words(words: &[&str]) -> Result<String> {
    let unknown = || {
        // The nearest command or verb, for the word that is none.
        let (word, names): (&str, Vec<&str>) = match words {
            [name, verb, ..] if defs::command(name).is_some() => (
                verb,
                defs::command(name).map(Node::verbs).unwrap_or_default().iter().map(|v| v.name()).collect(),
            ),
            [name, ..] => {
                let verbs = crate::commands::sessions::VERBS.iter().map(|v| v.name());
                (name, COMMANDS.iter().map(Node::name).chain(verbs).collect())
            }
            [] => ("", Vec::new()),
        };
        Error::usage(format!(
            "help: no such command '{}'{}",
            words.join(" "),
            super::did_you_mean(word, names.iter().copied())
        ))
    };
    Ok(match words {
        [] => main(),
        ["--all"] => all(),
        [name] => match defs::command(name) {
            Some(node) => node_help(node),
            // `hermes help list`: a verb of sessions.
            None => command(defs::verb(crate::commands::sessions::VERBS, name).ok_or_else(unknown)?),
        },
        [name, verb] => {
            let verbs = defs::command(name).map(Node::verbs).unwrap_or_default();
            command(defs::verb(verbs, verb).ok_or_else(unknown)?)
        }
        _ => return Err(unknown()),
    })
}

/// A command's help, as `--help` after it prints it.
pub(crate) fn node_help(node: &Node) -> String {
    match node {
        Node::Leaf(spec) => command(*spec),
        Node::Group(group) => group_help(group),
        Node::NoStore(spec) => command(*spec),
    }
}

/// Every command's and verb's help, in the order of the tree.
fn all() -> String {
    let mut text = main();
    for node in COMMANDS {
        text.push_str(&format!("\n{}\n\n", rule(&format!("hermes {}", node.name()))));
        text.push_str(&node_help(node));
        for verb in node.verbs() {
            text.push_str(&format!("\n{}\n\n", rule(&format!("hermes {}", verb.path()))));
            text.push_str(&command(*verb));
        }
    }
    text
}

fn rule(title: &str) -> String {
    format!("== {title} {}", "=".repeat(72usize.saturating_sub(title.len())))
}

/// The main `--help`.
pub(crate) fn main() -> String {
    let mut text =
        String::from("hermes - chat sessions as plain files, one conversation per terminal\n\nUsage:\n");
    for line in main_usage(false) {
        text.push_str(&format!("  {line}\n"));
    }
    text.push_str("\nCommands:\n");
    for node in COMMANDS {
        text.push_str(&row(&format!("  {}", node.name()), 15, &node.summary()));
        text.push('\n');
    }
    text.push_str("\nOptions (before or after the command, or among its own):\n");
    text.push_str(&option_lines(&global_flags()));
    text.push_str(MAIN_TAIL);
    text.push_str(&crate::wrap::wrapped(&super::exit_status::help_line(), Some(78), ""));
    text.push('\n');
    text
}

/// How each command is called, a line each: the main `--help`'s usage
/// and, `whole` (with chat's every option), the man page's SYNOPSIS.
pub(crate) fn main_usage(whole: bool) -> Vec<String> {
    COMMANDS
        .iter()
        .map(|node| match node {
            Node::Leaf(spec) if whole => {
                let parts = usage_parts(*spec).join(" ");
                format!("hermes [-p PROFILE] [{}] {parts}", spec.name())
            }
            Node::Leaf(spec) => {
                let args: String = spec.positionals().iter().map(|a| format!(" {}", a.usage())).collect();
                format!(
                    "hermes [-p PROFILE] [{}] [{} OPTIONS]{args}",
                    spec.name(),
                    spec.name().to_uppercase()
                )
            }
            Node::Group(group) => {
                let verbs: Vec<&str> = group.verbs.iter().map(|v| v.name()).collect();
                if verbs.len() <= 6 {
                    format!("hermes [-p PROFILE] {} {} [ARGS]", group.name, verbs.join("|"))
                } else {
                    format!("hermes [-p PROFILE] {} COMMAND [ARGS]", group.name)
                }
            }
            Node::NoStore(spec) => {
                let args: Vec<String> = spec.positionals().iter().map(|a| a.usage()).collect();
                format!("hermes {} {}", spec.path(), args.join(" "))
            }
        })
        .collect()
}

const MAIN_TAIL: &str = "

Common use:
  hermes chat -c                       continue this terminal's session
  hermes chat -c \"redis debug\"         continue the session with that title
  hermes chat -c NAME --create-if-missing -q TEXT
                                       post to a named thread, creating it once
  hermes sessions list                 find your way back to any session

Environment: HERMES_HOME (default ~/.hermes), HERMES_AGENT.
";

/// A command's or verb's `--help`: its usage line, then its prose with its
/// option lines (and chat's list of slash commands) in their place.
pub(crate) fn command(spec: &dyn Describe) -> String {
    let options = option_lines(&spec.flags().into_iter().chain([&HELP]).collect::<Vec<_>>());
    let about = if spec.about().is_empty() { "{options}\n" } else { spec.about() };
    let about = about.replace("{options}", &options);
    // Chat's slash commands, in their paragraph, filled to the width.
    let about = match about.split("\n\n").find(|p| p.contains("{slash}")) {
        Some(paragraph) => {
            let names: Vec<String> = crate::commands::chat::slash_commands()
                .iter()
                .map(|c| format!("/{} {}", c.name, c.args).trim_end().to_string())
                .collect();
            let filled = crate::words::fill(&paragraph.replace("{slash}", &names.join(" ")), 78);
            about.replace(paragraph, &filled)
        }
        None => about,
    };
    format!("{}\n\n{}", usage(spec), about.trim_end_matches('\n')) + "\n"
}

/// A group's `--help`: how to call it, its verbs, its prose.
fn group_help(group: &Group) -> String {
    let mut text = format!("Usage: hermes {} COMMAND [ARGS]\n\nCommands:\n", group.name);
    for verb in group.verbs {
        let words = usage_words(*verb);
        let synopsis = words.strip_prefix(&format!("hermes {} ", group.name)).unwrap_or(&words);
        text.push_str(&row(&format!("  {synopsis}"), 25, verb.summary()));
        text.push('\n');
    }
    let settings: Vec<String> =
        crate::settings::TABLE.iter().map(|s| row(&format!("  {}", s.key), 19, s.help)).collect();
    format!("{text}\n{}", group.about.replace("{settings}", &settings.join("\n")))
}

/// `Usage: hermes sessions list [TEXT] [-n N] ...`, wrapped at 78 columns
/// under its first argument.
pub(crate) fn usage(spec: &dyn Describe) -> String {
    let head = format!("Usage: hermes {}", spec.path());
    let indent = " ".repeat(head.len() + 1);
    let mut lines = vec![head];
    for word in usage_parts(spec) {
        let line = lines.last_mut().unwrap_or_else(|| unreachable!());
        if line.len() + 1 + word.len() > 78 && line.len() > indent.len() {
            lines.push(format!("{indent}{word}"));
        } else {
            line.push(' ');
            line.push_str(&word);
        }
    }
    lines.join("\n")
}

/// The usage line on one line, without "Usage: ".
pub(crate) fn usage_words(spec: &dyn Describe) -> String {
    let mut words = format!("hermes {}", spec.path());
    for part in usage_parts(spec) {
        words.push(' ');
        words.push_str(&part);
    }
    words
}

/// A command's arguments, then its options, as a usage line shows them:
/// the options of one group in one bracket (`[-s TEXT | --system-file FILE]`).
pub(crate) fn usage_parts(spec: &dyn Describe) -> Vec<String> {
    let mut parts: Vec<String> = spec.positionals().iter().map(|arg| Arg::usage(arg)).collect();
    let flags: Vec<&OptionDef> = spec.flags().into_iter().filter(|f| !f.help.is_empty()).collect();
    for (i, flag) in flags.iter().enumerate() {
        if flag.group != 0 && flags[..i].iter().any(|f| f.group == flag.group) {
            continue;
        }
        let members: Vec<String> = flags[i..]
            .iter()
            .filter(|f| f.long == flag.long || (flag.group != 0 && f.group == flag.group))
            .map(|f| usage_of(f))
            .collect();
        let members = members.join(" | ");
        parts.push(if flag.required { members } else { format!("[{members}]") });
    }
    parts
}

/// An option as a usage line names it: its short form if it has one.
fn usage_of(flag: &OptionDef) -> String {
    let name = if flag.short.is_empty() { flag.long } else { flag.short };
    match flag.value {
        Some(value) if value.optional => format!("{name} [{}]", value_name(&value)),
        Some(value) => format!("{name} {}", value_name(&value)),
        None => name.to_string(),
    }
}

/// How help names a value: its name, or its words (`json|jsonl|markdown`).
pub(crate) fn value_name(value: &Value) -> String {
    match value.kind {
        Kind::Words(words) if value.name.is_empty() => words.join("|"),
        _ => value.name.to_string(),
    }
}

/// How an option is named on its line: `  -n, --limit N`, `      --all`.
pub(crate) fn option_name(flag: &OptionDef) -> String {
    let value = match flag.value {
        Some(value) if value.optional => format!(" [{}]", value_name(&value)),
        Some(value) => format!(" {}", value_name(&value)),
        None => String::new(),
    };
    if flag.short.is_empty() {
        format!("      {}{value}", flag.long)
    } else {
        format!("  {}, {}{value}", flag.short, flag.long)
    }
}

/// The option lines of a `--help`: names, then descriptions in one column
/// (the longest name's, from 18 to 26), wrapped at 78; each option's
/// heading (after a blank line) before it and its other forms after it.
pub(crate) fn option_lines(flags: &[&OptionDef]) -> String {
    let shown: Vec<&OptionDef> = flags.iter().copied().filter(|f| !f.help.is_empty()).collect();
    let column = shown.iter().map(|f| option_name(f).len() + 3).max().unwrap_or(0).clamp(18, 26);
    let mut lines = Vec::new();
    for flag in shown {
        if let Some(heading) = flag.heading {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(heading.to_string());
        }
        lines.push(row(&option_name(flag), column, flag.help));
        lines.extend(flag.also.iter().map(|(name, what, _)| row(&format!("  {name}"), column, what)));
    }
    lines.join("\n")
}

/// `name`, then `text` from `column` on, wrapped at 78; on a line of its
/// own when `name` reaches into the column.
pub(crate) fn row(name: &str, column: usize, text: &str) -> String {
    let indent = " ".repeat(column);
    let (mut out, mut line) = if name.len() + 2 > column {
        (format!("{name}\n"), indent.clone())
    } else {
        (String::new(), format!("{name:column$}"))
    };
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.len() + 1 + word.len() > 78 {
            out.push_str(&line);
            out.push('\n');
            line = indent.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out
}
