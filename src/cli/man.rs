//! The man page, made: `man/hermes.1.in` (the guide, written by hand) with
//! its reference filled in from the tables: the SYNOPSIS from the tree,
//! and each option's, verb's and slash command's entry from its own
//! `.man(...)` text, under its tag line as `--help` names it. The page is
//! made only by the tests (`cli::reference`), so a build for use carries
//! none of it.

use crate::args::{Describe, OptionDef};

use super::defs::{COMMANDS, Node, global_flags};
use super::help;

/// A usage text as roff: options and words in bold, names of values in
/// italics, `-` escaped: `-n, --limit N` is `\fB\-n\fR, \fB\-\-limit\fR \fIN\fR`.
pub(crate) fn roff(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' && !word.ends_with('.')) {
                    break;
                }
                word.push(c);
                chars.next();
            }
            // A trailing "..." is not part of the word.
            let dots = word.len() - word.trim_end_matches('.').len();
            let word = &word[..word.len() - dots];
            let upper = word.chars().any(|c| c.is_ascii_uppercase()) && !word.starts_with('-');
            let font = if upper { "\\fI" } else { "\\fB" };
            out.push_str(&format!("{font}{}\\fR{}", word.replace('-', "\\-"), ".".repeat(dots)));
        } else {
            out.push(c);
            chars.next();
        }
    }
    out
}

/// A verb's entry in the man page: its name and arguments, as its usage line.
pub(crate) fn verb_tag(spec: &dyn Describe) -> String {
    let parts = help::usage_parts(spec);
    roff(&[spec.name().to_string()].into_iter().chain(parts).collect::<Vec<_>>().join(" "))
}

/// The SYNOPSIS section's body.
pub(crate) fn synopsis() -> String {
    let mut text = String::new();
    let lines = help::main_usage(true).into_iter().chain(["hermes -V [-v]".to_string()]);
    for line in lines {
        let words = line.strip_prefix("hermes ").unwrap_or(&line);
        // A part a line: bracketed groups stay whole.
        // Nor is an option parted from its value at a line's end.
        let parts: Vec<String> = top_level_words(words)
            .iter()
            .map(|part| roff(part).replace(" | ", "\u{0}").replace(' ', "\\ ").replace('\u{0}', " | "))
            .collect();
        text.push_str(&format!(".SY hermes\n{}\n.YS\n", parts.join("\n")));
    }
    text
}

/// `text` split at the blanks outside brackets.
fn top_level_words(text: &str) -> Vec<&str> {
    let (mut words, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ' ' if depth == 0 => {
                words.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    words.push(&text[start..]);
    words
}

/// A slash command's tag line: `\fB/title\fR [\fINEW\fR]`.
pub(crate) fn slash_tag(name: &str, args: &str) -> String {
    let args = if args.is_empty() { String::new() } else { format!(" {}", roff(args)) };
    format!("\\fB/{name}\\fR{args}")
}

/// The man page: `man/hermes.1.in`, the hand-written guide, with each of
/// its marks filled from the tables: `@synopsis`, `@options COMMAND` (the
/// entries of its options), `@verbs GROUP` (each verb's entry and its
/// options), `@slash` (the slash commands), `@settings` (each key of config.toml and
/// its help), `@environment`, `@exit-statuses`. `HERMES_BLESS=1 cargo test`
/// writes it to `man/hermes.1`.
#[cfg(test)]
pub(crate) fn page(template: &str) -> String {
    let mut out = String::from(GENERATED);
    for line in template.lines() {
        let Some(mark) = line.strip_prefix(".\\\" @") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let (what, name) = mark.split_once(' ').unwrap_or((mark, ""));
        match what {
            "synopsis" => out.push_str(&synopsis()),
            "options" => out.push_str(&option_entries(&flags_of(name))),
            "verbs" => {
                let node = COMMANDS.iter().find(|n| n.name() == name).expect("@verbs names a group");
                for verb in node.verbs() {
                    out.push_str(&entry(&verb_tag(*verb), verb.man()));
                    let flags = verb.flags();
                    if flags.iter().any(|f| !f.help.is_empty()) {
                        out.push_str(&format!(".RS\n{}.RE\n", option_entries(&flags)));
                    }
                }
            }
            "environment" => {
                for variable in super::environment::ENVIRONMENT {
                    out.push_str(&entry(&super::environment::tag(variable), variable.man));
                }
            }
            "settings" => {
                for setting in crate::settings::TABLE {
                    out.push_str(&format!(".TP\n.B {}\n{}\n", setting.name, escaped(setting.help)));
                }
            }
            "exit-statuses" => {
                for status in super::exit_status::EXIT_STATUSES {
                    out.push_str(&entry(&format!(".B {}", status.code), status.man));
                }
            }
            "slash" => {
                for slash in crate::commands::chat::slash_commands() {
                    out.push_str(&entry(&slash_tag(slash.name, slash.args), slash.man));
                }
            }
            _ => panic!("man/hermes.1.in: no mark @{what}"),
        }
    }
    out
}

/// Plain text as roff: a backslash, a dash and a quote escaped, in lines
/// of at most 78 bytes, a line that would start with a control character
/// guarded.
#[cfg(test)]
fn escaped(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        let word = word.replace('\\', "\\e").replace('-', "\\-").replace('\'', "\\(aq");
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= 78 => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(if word.starts_with(['.', '\'']) { format!("\\&{word}") } else { word }),
        }
    }
    lines.join("\n")
}

/// The first lines of the page made.
#[cfg(test)]
const GENERATED: &str = "\
.\\\" Generated by the tests from man/hermes.1.in and the tables in src/;
.\\\" do not edit: change those, then run 'make bless'.
";

/// A `.TP` entry: its tag line, then its text.
#[cfg(test)]
fn entry(tag: &str, man: crate::args::Man) -> String {
    let text = man.roff.strip_prefix('\n').unwrap_or(man.roff);
    let end = if text.ends_with('\n') || text.is_empty() { "" } else { "\n" };
    format!(".TP\n{tag}\n{text}{end}")
}

/// The entries of options shown in help, each under its heading if it has
/// one, then its other forms.
#[cfg(test)]
fn option_entries(flags: &[&OptionDef]) -> String {
    let mut out = String::new();
    for flag in flags.iter().filter(|f| !f.help.is_empty()) {
        if let Some(heading) = flag.heading {
            out.push_str(&format!(".PP\n{heading}\n"));
        }
        out.push_str(&entry(&roff(help::option_name(flag).trim()), flag.man));
        for (name, _, man) in flag.also {
            out.push_str(&entry(&roff(name), *man));
        }
    }
    out
}

/// The options of a command as the page names it (`hermes`: hermes's own).
#[cfg(test)]
fn flags_of(command: &str) -> Vec<&'static OptionDef> {
    if command == "hermes" {
        return global_flags();
    }
    super::defs::every_spec()
        .into_iter()
        .find(|spec| spec.path() == command)
        .unwrap_or_else(|| panic!("man/hermes.1.in: no command {command}"))
        .flags()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_marks_options_words_and_values() {
        assert_eq!(roff("-n, --limit N"), "\\fB\\-n\\fR, \\fB\\-\\-limit\\fR \\fIN\\fR");
        assert_eq!(roff("export [NAME|ID...]"), "\\fBexport\\fR [\\fINAME\\fR|\\fIID\\fR...]");
        assert_eq!(roff("-q TEXT|-"), "\\fB\\-q\\fR \\fITEXT\\fR|\\fB\\-\\fR");
    }

    #[test]
    fn every_option_verb_and_slash_command_has_its_entry() {
        let mut missing = Vec::new();
        for spec in super::super::defs::every_spec() {
            if spec.path().contains(' ') && spec.man().roff.trim().is_empty() {
                missing.push(spec.path().to_string());
            }
            for flag in spec.flags().iter().chain(global_flags().iter()) {
                if !flag.help.is_empty() && flag.man.roff.trim().is_empty() {
                    missing.push(format!("{} {}", spec.path(), flag.long));
                }
                missing
                    .extend(flag.also.iter().filter(|a| a.2.roff.trim().is_empty()).map(|a| a.0.to_string()));
            }
        }
        for slash in crate::commands::chat::slash_commands() {
            if slash.man.roff.trim().is_empty() {
                missing.push(format!("/{}", slash.name));
            }
        }
        assert!(missing.is_empty(), "no man page entry (.man(...)) for: {}", missing.join(", "));
    }

    #[test]
    fn every_mark_of_the_template_is_known_and_each_command_listed_once() {
        let template = include_str!("../../man/hermes.1.in");
        let marks: Vec<&str> = template.lines().filter_map(|l| l.strip_prefix(".\\\" @")).collect();
        let mut seen = std::collections::HashSet::new();
        for mark in &marks {
            assert!(seen.insert(*mark), "man/hermes.1.in: @{mark} twice");
        }
        for node in COMMANDS {
            let listed = match node {
                Node::Group(_) => seen.contains(format!("verbs {}", node.name()).as_str()),
                _ => {
                    flags_of(node.name()).iter().all(|f| f.help.is_empty())
                        || seen.contains(format!("options {}", node.name()).as_str())
                }
            };
            assert!(listed, "man/hermes.1.in lists nowhere the options of {}", node.name());
        }
    }
}
