//! `--help` for every command: the words of texts.rs with the lines made
//! from the option table in defs.rs filled in (each command's option lines,
//! the verb lines of `hermes sessions --help`, the main one's verbs).

use super::defs::{self, Opt, VERBS, Verb};
use super::texts::{CHAT, MAIN, SESSIONS};

/// The main `--help`: `MAIN` with the sessions verbs of defs.rs named.
pub(crate) fn main() -> String {
    let names: Vec<&str> = VERBS.iter().map(|verb| verb.name).collect();
    let mut lines = vec![String::new()];
    for (i, name) in names.iter().enumerate() {
        let word = match names.len() - i {
            1 => format!("and {name}"),
            2 => name.to_string(),
            _ => format!("{name},"),
        };
        let line = lines.last_mut().unwrap_or_else(|| unreachable!());
        if !line.is_empty() && line.len() + 1 + word.len() > 60 {
            lines.push(word);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
    }
    MAIN.replace("{sessions}", &lines.join("\n               "))
}

/// `hermes chat --help`: its text with its option lines, in their groups.
pub(crate) fn chat() -> String {
    let mut options: Vec<&Opt> = defs::CHAT.iter().collect();
    options.push(&defs::HELP);
    CHAT.replace("{options}", &option_rows(&options))
}

/// `hermes sessions VERB --help`: its text with its option lines filled in.
pub(crate) fn verb(verb: &Verb) -> String {
    verb.help.replace("{options}", &option_lines(verb.options))
}

/// `hermes sessions --help`: each verb with its arguments (from its usage
/// line) and its summary.
pub(crate) fn sessions() -> String {
    let lines: Vec<String> = VERBS
        .iter()
        .map(|verb| {
            let usage = verb.help.lines().next().unwrap_or_default();
            let synopsis = usage.strip_prefix("Usage: hermes sessions ").unwrap_or(verb.name);
            row(&format!("  {synopsis}"), 25, verb.summary)
        })
        .collect();
    SESSIONS.replace("{verbs}", &lines.join("\n"))
}

/// How an option is named on its line: `  -n, --limit N`, `      --all`.
fn option_name(o: &Opt) -> String {
    let value = o.value.map(|v| format!(" {v}")).unwrap_or_default();
    match o.short {
        Some(short) => format!("  {short}, {}{value}", o.long),
        None => format!("      {}{value}", o.long),
    }
}

/// The option lines of a `--help`: names, then descriptions in one column
/// (the longest name's, from 18 to 26), wrapped at 78.
pub(crate) fn option_lines(options: &[Opt]) -> String {
    option_rows(&options.iter().collect::<Vec<_>>())
}

/// `option_lines`, with each option's heading (after a blank line) before
/// it and its other forms after it.
fn option_rows(options: &[&Opt]) -> String {
    let shown: Vec<&Opt> = options.iter().copied().filter(|o| !o.help.is_empty()).collect();
    let column = shown.iter().map(|o| option_name(o).len() + 3).max().unwrap_or(0).clamp(18, 26);
    let mut lines = Vec::new();
    for o in shown {
        if let Some(heading) = o.heading {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(heading.to_string());
        }
        lines.push(row(&option_name(o), column, o.help));
        lines.extend(o.also.iter().map(|(name, what)| row(&format!("  {name}"), column, what)));
    }
    lines.join("\n")
}

/// `name`, then `text` from `column` on, wrapped at 78; on a line of its
/// own when `name` reaches into the column.
fn row(name: &str, column: usize, text: &str) -> String {
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
