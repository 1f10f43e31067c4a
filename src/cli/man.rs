//! The man page's half of the command line: its SYNOPSIS made from the
//! tree, and each option's tag line (`.TP` then `\fB\-n\fR, ...`) made as
//! `--help` names it. The unit tests below hold man/hermes.1 to them in
//! both directions: the SYNOPSIS exactly (`HERMES_BLESS=1 cargo test`
//! writes it), and under each `.\" options of: COMMAND` mark, every option
//! of that command and no other, in the table's order, each after its
//! `.TP`.

use crate::args::{Describe, Flag};

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

/// An option's tag lines in the man page: its name as `--help` shows it,
/// then its other forms.
pub(crate) fn tags(flag: &Flag) -> Vec<String> {
    let mut tags = vec![roff(help::option_name(flag).trim())];
    tags.extend(flag.also.iter().map(|(name, _)| roff(name)));
    tags
}

/// The tag lines of a command's options, in order (`-h, --help` is
/// hermes's own, described once).
pub(crate) fn option_tags(flags: &[&Flag]) -> Vec<String> {
    flags.iter().filter(|f| !f.help.is_empty()).flat_map(|f| tags(f)).collect()
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

/// Every command and verb with options, as its mark names it (`hermes`
/// for hermes's own), and its option tag lines.
pub(crate) fn option_lists() -> Vec<(String, Vec<String>)> {
    let mut lists = vec![("hermes".to_string(), option_tags(&global_flags()))];
    for node in COMMANDS {
        let specs: Vec<&dyn Describe> = match node {
            Node::Leaf(spec) => vec![*spec as &dyn Describe],
            Node::Own(spec) => vec![*spec as &dyn Describe],
            Node::Group(group) => group.verbs.iter().map(|v| *v as &dyn Describe).collect(),
        };
        for spec in specs {
            lists.push((spec.path().to_string(), option_tags(&spec.flags())));
        }
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = include_str!("../../man/hermes.1");

    #[test]
    #[ignore]
    fn print_for_the_page() {
        print!("{}", synopsis());
        for (command, tags) in option_lists() {
            println!("== {command}");
            for tag in tags {
                println!("{tag}");
            }
        }
        for node in COMMANDS {
            for verb in node.verbs() {
                println!("VERB {}", verb_tag(*verb));
            }
        }
    }

    #[test]
    fn roff_marks_options_words_and_values() {
        assert_eq!(roff("-n, --limit N"), "\\fB\\-n\\fR, \\fB\\-\\-limit\\fR \\fIN\\fR");
        assert_eq!(roff("export [NAME|ID...]"), "\\fBexport\\fR [\\fINAME\\fR|\\fIID\\fR...]");
        assert_eq!(roff("-q TEXT|-"), "\\fB\\-q\\fR \\fITEXT\\fR|\\fB\\-\\fR");
    }

    /// The lines between `.SH SYNOPSIS` and the next `.SH`.
    fn section(page: &str, start: &str) -> Option<(usize, usize)> {
        let begin = page.find(start)? + start.len();
        let end = page[begin..].find("\n.SH ").map_or(page.len(), |at| begin + at + 1);
        Some((begin, end))
    }

    #[test]
    fn the_synopsis_is_the_one_the_tree_makes() {
        let (begin, end) = section(PAGE, ".SH SYNOPSIS\n").expect("a SYNOPSIS section");
        let want = synopsis();
        if std::env::var_os("HERMES_BLESS").is_some() && PAGE[begin..end] != want {
            let page = format!("{}{want}{}", &PAGE[..begin], &PAGE[end..]);
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/man/hermes.1"), page).unwrap();
            return;
        }
        assert_eq!(PAGE[begin..end], want, "man/hermes.1's SYNOPSIS (HERMES_BLESS=1 cargo test rewrites it)");
    }

    /// Under each `.\" options of: COMMAND` mark until the next mark or
    /// section: the tag lines after `.TP` that name options, and any line
    /// that looks like an option's tag without its `.TP`.
    fn marked_lists(page: &str) -> Vec<(String, Vec<String>)> {
        let mut lists: Vec<(String, Vec<String>)> = Vec::new();
        let lines: Vec<&str> = page.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if let Some(command) = line.strip_prefix(".\\\" options of: ") {
                lists.push((command.to_string(), Vec::new()));
                continue;
            }
            if line.starts_with(".SH ") || line.starts_with(".SS ") || line.starts_with(".\\\" end options") {
                lists.push((String::new(), Vec::new()));
                continue;
            }
            let Some((command, tags)) = lists.last_mut() else { continue };
            if command.is_empty() || !line.starts_with("\\fB\\-") {
                continue;
            }
            assert_eq!(lines[i - 1], ".TP", "man page, options of {command}: {line} has no .TP before it");
            tags.push(line.to_string());
        }
        lists.retain(|(command, _)| !command.is_empty());
        lists
    }

    #[test]
    fn the_man_page_lists_every_option_of_every_command_and_no_other() {
        let marked = marked_lists(PAGE);
        for (command, want) in option_lists() {
            let found: Vec<&Vec<String>> =
                marked.iter().filter(|(c, _)| *c == command).map(|(_, t)| t).collect();
            assert!(
                found.len() == 1,
                "man page: one '.\\\" options of: {command}' mark wanted, found {}",
                found.len()
            );
            assert_eq!(found[0], &want, "man page: the options of {command}");
        }
        for (command, _) in &marked {
            assert!(option_lists().iter().any(|(c, _)| c == command), "man page: no command '{command}'");
        }
    }

    #[test]
    fn the_man_page_lists_every_slash_command_in_the_tables_order() {
        let begin = PAGE.find(".\\\" slash commands\n").expect("a slash commands mark");
        let end = PAGE[begin..].find(".\\\" end slash commands\n").expect("its end") + begin;
        let lines: Vec<&str> = PAGE[begin..end].lines().collect();
        let found: Vec<&str> =
            lines.windows(2).filter(|w| w[0] == ".TP" && w[1].starts_with("\\fB/")).map(|w| w[1]).collect();
        let want: Vec<String> =
            crate::chat::slash_commands().iter().map(|c| slash_tag(c.name, c.args)).collect();
        assert_eq!(found, want, "man page: the slash commands");
    }

    #[test]
    fn each_verb_entry_shows_its_usage() {
        for node in COMMANDS {
            for verb in node.verbs() {
                let tag = verb_tag(*verb);
                let mark = format!(".\\\" options of: {}\n", verb.path());
                let at =
                    PAGE.find(&mark).unwrap_or_else(|| panic!("man page lacks the mark of {}", verb.path()));
                let entry = PAGE[..at].rfind(".TP\n").map(|tp| &PAGE[tp + 4..at]).unwrap_or_default();
                assert_eq!(
                    entry.lines().next(),
                    Some(tag.as_str()),
                    "man page: the entry of {}",
                    verb.path()
                );
            }
        }
    }
}
