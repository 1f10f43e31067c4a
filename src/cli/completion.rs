//! Shell completion scripts for bash, zsh and fish: commands, options, and
//! session titles after `-c` and the `sessions` verbs that take a name.
//!
//! The scripts read titles from `hermes sessions list --all`, whose output
//! to a pipe is `MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID` per session
//! (titles never hold tabs or newlines). The shell logic is three templates
//! in `completions/`; the verbs, their summaries and options, and what each
//! option's value completes to are filled in from defs.rs (`@VERBS@`,
//! `@OPTIONS@`, ...). `make lint-shell` and tests/t6100-completion.sh run
//! shellcheck on the printed bash script; t6100 checks each script's
//! options against `--help`. A verb's positional arguments (session names,
//! files) are still written in each template.

use std::str::FromStr;

use crate::error::Error;

use super::defs::{CHAT, GLOBAL, HELP, Opt, VERBS};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl FromStr for Shell {
    type Err = Error;

    fn from_str(name: &str) -> Result<Shell, Error> {
        match name {
            "bash" => Ok(Shell::Bash),
            "zsh" => Ok(Shell::Zsh),
            "fish" => Ok(Shell::Fish),
            _ => Err(Error::usage(format!("completion: unknown shell '{name}' (bash, zsh, fish)"))),
        }
    }
}

/// The script for `shell`: its template with the verbs and options of
/// defs.rs filled in.
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

/// What completes an option's value, by the name of the value (defs.rs).
#[derive(PartialEq)]
enum Value<'a> {
    Title,
    Id,
    File,
    Words(Vec<&'a str>),
    Other,
}

fn value_of(o: &Opt) -> Option<(Value<'static>, bool)> {
    let value = o.value?;
    let optional = value.starts_with('[');
    let kind = match value.trim_matches(['[', ']']) {
        "NAME" => Value::Title,
        "ID" => Value::Id,
        "FILE" | "CMD" => Value::File,
        words if words.contains('|') => Value::Words(words.split('|').collect()),
        _ => Value::Other,
    };
    Some((kind, optional))
}

fn shown(options: &[Opt]) -> impl Iterator<Item = &Opt> {
    options.iter().filter(|o| !o.help.is_empty())
}

fn verb_names() -> String {
    VERBS.iter().map(|v| v.name).collect::<Vec<_>>().join(" ")
}

/// `text` inside single quotes, for bash, zsh and fish alike.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn bash() -> String {
    let mut takes_value = Vec::new();
    let mut values = Vec::new();
    let contexts = [("chat/", CHAT)].into_iter().chain(VERBS.iter().map(|v| (v.name, v.options)));
    for (context, options) in contexts {
        let context = if context == "chat/" { context.to_string() } else { format!("sessions/{context}") };
        for o in shown(options) {
            let Some((kind, optional)) = value_of(o) else { continue };
            let patterns: Vec<String> = spellings(o).map(|s| format!("{context}/{s}")).collect();
            if !optional {
                takes_value.extend(patterns.iter().cloned());
            }
            let action = match kind {
                Value::Title => "_hermes_add_sessions title \"$text\"; return".to_string(),
                Value::Id => "_hermes_add_sessions id \"$text\"; return".to_string(),
                Value::File => "compopt -o default 2>/dev/null; return".to_string(),
                Value::Words(words) => format!("_hermes_add_words '{}' \"$text\"; return", words.join(" ")),
                Value::Other => "return".to_string(),
            };
            let action = if optional { format!("[[ $text != -* ]] && {{ {action}; }}") } else { action };
            values.push(format!("{}) {action} ;;", patterns.join(" | ")));
        }
    }
    let options: Vec<String> = VERBS
        .iter()
        .map(|v| format!("sessions/{}) _hermes_add_words '{}' \"$text\" ;;", v.name, words(v.options)))
        .collect();
    BASH.replace("@GLOBAL@", &words(GLOBAL).replace(" -h --help", ""))
        .replace("@CHAT@", &words(CHAT))
        .replace("@VERBS@", &verb_names())
        .replace("@TAKES_VALUE@", &format!("{}) takes_value=1 ;;", takes_value.join(" | ")))
        .replace("@VALUES@", &values.join("\n\t"))
        .replace("@OPTIONS@", &options.join("\n\t\t"))
}

fn spellings(o: &Opt) -> impl Iterator<Item = &'static str> {
    o.short.into_iter().chain([o.long])
}

/// The spellings of the shown `options` and of `-h --help`, space-separated.
fn words(options: &[Opt]) -> String {
    shown(options).chain([&HELP]).flat_map(spellings).collect::<Vec<_>>().join(" ")
}

/// An `_arguments` spec for `o`.
fn zsh_spec(o: &Opt) -> String {
    let help = o.help.replace('[', r"\[").replace(']', r"\]");
    let value = value_of(o).map(|(kind, optional)| {
        let action = match kind {
            Value::Title => "_hermes_sessions title".to_string(),
            Value::Id => "_hermes_sessions id".to_string(),
            Value::File if o.value == Some("CMD") => "_cmdstring".to_string(),
            Value::File => "_files".to_string(),
            Value::Words(words) => format!("({})", words.join(" ")),
            Value::Other => String::new(),
        };
        let name = o.value.unwrap_or_default().trim_matches(['[', ']']).to_lowercase();
        (format!("{}{name}:{action}", if optional { "::" } else { ":" }), optional)
    });
    let (suffix, short_mark, long_mark) = match &value {
        Some((suffix, false)) => (suffix.clone(), "+", "="),
        Some((suffix, true)) => (suffix.clone(), "", ""),
        None => (String::new(), "", ""),
    };
    let tail = quoted(&format!("[{help}]{suffix}"));
    match o.short {
        Some(short) => {
            format!("'({short} {long})'{{{short}{short_mark},{long}{long_mark}}}{tail}", long = o.long)
        }
        None => format!("{}{long_mark}{tail}", o.long),
    }
}

fn zsh() -> String {
    let chat: Vec<String> = shown(CHAT).map(|o| format!("  {}", zsh_spec(o))).collect();
    let summaries: Vec<String> =
        VERBS.iter().map(|v| format!("      {}", quoted(&format!("{}:{}", v.name, v.summary)))).collect();
    let options: Vec<String> = VERBS
        .iter()
        .filter(|v| !v.options.is_empty())
        .map(|v| {
            let specs: Vec<String> = shown(v.options).map(zsh_spec).collect();
            format!("  {}) opts=({}) ;;", v.name, specs.join(" "))
        })
        .collect();
    ZSH.replace("@CHAT@", &chat.join("\n"))
        .replace("@VERBS@", &verb_names())
        .replace("@VERB_SUMMARIES@", &summaries.join("\n"))
        .replace("@OPTIONS@", &options.join("\n"))
}

/// A fish `complete` line for `o` under `condition`.
fn fish_line(condition: &str, o: &Opt) -> String {
    let mut line = format!("complete -c hermes -n {condition}");
    if let Some(short) = o.short {
        line.push_str(&format!(" -s {}", &short[1..]));
    }
    line.push_str(&format!(" -l {}", &o.long[2..]));
    match value_of(o) {
        Some((_, true)) | None => {}
        Some((Value::Title, false)) => line.push_str(" -x -a '(__hermes_sessions title)'"),
        Some((Value::Id, false)) => line.push_str(" -x -a '(__hermes_sessions id)'"),
        Some((Value::File, false)) => line.push_str(" -r -F"),
        Some((Value::Words(words), false)) => line.push_str(&format!(" -x -a '{}'", words.join(" "))),
        Some((Value::Other, false)) => line.push_str(" -x"),
    }
    line.push_str(&format!(" -d {}", quoted(o.help)));
    line
}

fn fish() -> String {
    let mut chat: Vec<String> = Vec::new();
    for o in shown(CHAT) {
        chat.push(fish_line("$chat", o));
        if let Some((Value::Title, true)) = value_of(o) {
            let previous: Vec<&str> = spellings(o).collect();
            chat.push(format!(
                "complete -c hermes -n '__hermes_command_is chat; and __hermes_previous {}' -x -a '(__hermes_sessions title)'",
                previous.join(" ")
            ));
        }
    }
    let summaries: Vec<String> = VERBS
        .iter()
        .map(|v| format!("complete -c hermes -n __hermes_needs_verb -a {} -d {}", v.name, quoted(v.summary)))
        .collect();
    let options: Vec<String> = VERBS
        .iter()
        .flat_map(|v| shown(v.options).map(|o| fish_line(&format!("'__hermes_sessions_verb {}'", v.name), o)))
        .collect();
    FISH.replace("@CHAT@", &chat.join("\n"))
        .replace("@VERB_SUMMARIES@", &summaries.join("\n"))
        .replace("@OPTIONS@", &options.join("\n"))
        .replace("@VERBS@", &verb_names())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_filled() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let text = script(shell);
            for word in [
                "@GLOBAL@",
                "@CHAT@",
                "@VERBS@",
                "@TAKES_VALUE@",
                "@VALUES@",
                "@OPTIONS@",
                "@VERB_SUMMARIES@",
            ] {
                assert!(!text.contains(word), "{shell:?}: {word}");
            }
        }
    }

    #[test]
    fn each_script_offers_every_option_of_every_verb() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let text = script(shell);
            for verb in VERBS {
                assert!(text.contains(verb.name), "{shell:?}: {}", verb.name);
                for o in verb.options {
                    let long = if shell == Shell::Fish {
                        format!("-l {}", &o.long[2..])
                    } else {
                        o.long.to_string()
                    };
                    assert!(text.contains(&long), "{shell:?}: {} {}", verb.name, o.long);
                }
            }
        }
    }
}
