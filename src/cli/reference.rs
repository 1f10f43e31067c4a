//! The generated reference, checked in: `man/hermes.1`, and under
//! `tests/reference/` `hermes help --all` (every command's and verb's
//! `--help`) and the three completion scripts, and README.md's lists (its
//! exit statuses, its slash commands). Each test compares the file
//! with what the tables make now; `HERMES_BLESS=1 cargo test reference`
//! (`make bless`) writes them anew, so that a change to what users read
//! shows in review as a change to these files. `tests/t6110-reference.sh`
//! holds the built binary to the same files.

use super::completion::script;
use super::defs::Shell;
use super::help;
use super::man;

/// `path`, under the project's root, is `want`; or, blessing, becomes it.
fn check_in(path: &str, want: &str) {
    let file = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let have = std::fs::read_to_string(&file).unwrap_or_default();
    if have == want {
        return;
    }
    if std::env::var_os("HERMES_BLESS").is_some() {
        std::fs::write(&file, want).unwrap_or_else(|e| panic!("{file}: {e}"));
        return;
    }
    let line = have
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(have.lines().count().min(want.lines().count()));
    panic!("{path} is not what the tables make (first difference at line {}): run 'make bless'", line + 1);
}

#[test]
fn the_man_page() {
    check_in("man/hermes.1", &man::page(include_str!("../../man/hermes.1.in")));
}

#[test]
fn every_help() {
    check_in("tests/reference/help.txt", &help::for_words(&["--all"]).expect("help --all"));
}

#[test]
fn the_completion_scripts() {
    for (shell, name) in [(Shell::Bash, "bash"), (Shell::Zsh, "zsh"), (Shell::Fish, "fish")] {
        check_in(&format!("tests/reference/completion.{name}"), &script(shell));
    }
}

/// Options of other programs that the man page and the README show
/// (`git diff --staged`, `cargo build --release`), and the test runner's.
const OTHERS_OPTIONS: &[&str] = &[
    "--short",
    "--staged",
    "--release",
    "--target",
    "--all-targets",
    "--cfg",
    "--remap-path-prefix",
    "--run",
];

/// Where a command line starts in Markdown (code, a shell's prompt).
const MARKDOWN_CODE: &[&str] = &["`", "\n$ "];

/// Where a command line starts in the man page (bold, an example's line).
const MAN_CODE: &[&str] = &["\"", "\n.B ", "\n$ ", "\n"];

/// Words shown after `hermes` that are no command on purpose: a bare
/// prompt's (`hermes what is a tty`), and a typo shown with its error.
const NOT_COMMANDS: &[&str] = &["what", "rules", "sesions"];

/// Words shown after a '/' that are no slash command: a path, an endpoint.
const NOT_SLASH: &[&str] = &["proc", "models"];

/// The text of a man page with its fonts and escapes read: `\fB\-\-all\fR`
/// is `--all`.
fn plain_roff(page: &str) -> String {
    page.replace("\\-", "-")
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
        .replace("\\(aq", "'")
        .replace("\\ ", " ")
}

/// Each word in `text` right after `lead` (and a word's start), as far as
/// it is made of `[a-z0-9_!-]`.
fn words_after<'a>(text: &'a str, lead: &str) -> Vec<&'a str> {
    let mut words = Vec::new();
    for (at, _) in text.match_indices(lead) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '/' || c == '.') {
            continue;
        }
        let rest = &text[at + lead.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "_!-".contains(c)))
            .unwrap_or(rest.len());
        let word = rest[..end].trim_end_matches(['-', '!']);
        // A path goes on with '/'; an upper-case word is a placeholder.
        if !word.is_empty()
            && !rest[end..].starts_with('/')
            && word.starts_with(|c: char| c.is_ascii_lowercase())
        {
            words.push(&rest[..end]);
        }
    }
    words
}

/// What `text` names that hermes does not have: options, commands and
/// verbs after `hermes`, slash commands, config keys after `config set`.
fn unknown_names(text: &str, code: &[&str]) -> Vec<String> {
    use super::defs::{COMMANDS, every_spec, global_flags};
    let specs = every_spec();
    let options: Vec<&str> =
        specs.iter().flat_map(|s| s.flags()).chain(global_flags()).map(|f| f.long).collect();
    let slashes: Vec<&str> = crate::commands::chat::slash_commands()
        .iter()
        .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()))
        .collect();
    let keys: Vec<&str> = crate::settings::keys().collect();
    let mut unknown = Vec::new();
    for word in words_after(text, "--") {
        let option = format!("--{}", word.trim_end_matches('!'));
        if !options.contains(&option.as_str()) && !OTHERS_OPTIONS.contains(&option.as_str()) {
            unknown.push(option);
        }
    }
    // A command where it is shown as one: in code, or in bold.
    for lead in code {
        for word in words_after(text, &format!("{lead}hermes ")) {
            if COMMANDS.iter().all(|c| c.name() != word) && !NOT_COMMANDS.contains(&word) {
                unknown.push(format!("hermes {word}"));
            }
        }
    }
    for (group, lead) in
        COMMANDS.iter().filter(|c| !c.verbs().is_empty()).flat_map(|g| code.iter().map(move |l| (g, l)))
    {
        for word in words_after(text, &format!("{lead}hermes {} ", group.name())) {
            if group.verbs().iter().all(|v| v.name() != word && v.alias() != Some(word)) {
                unknown.push(format!("hermes {} {word}", group.name()));
            }
        }
    }
    for lead in ["config set ", "config get ", "config unset "] {
        unknown.extend(
            words_after(text, lead).into_iter().filter(|k| !keys.contains(k)).map(|k| format!("{lead}{k}")),
        );
    }
    for lead in ["`/", "\n.B /", "\n.BR /", "\n.RB ( /"] {
        for word in words_after(text, lead) {
            if !slashes.contains(&word) && !NOT_SLASH.contains(&word) {
                unknown.push(format!("/{word}"));
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    unknown
}

#[test]
fn the_man_page_and_readme_name_only_what_there_is() {
    let root = env!("CARGO_MANIFEST_DIR");
    for (file, code) in
        [("man/hermes.1", MAN_CODE), ("README.md", MARKDOWN_CODE), ("CONTRIBUTING.md", MARKDOWN_CODE)]
    {
        let text = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        let text = if code == MAN_CODE { plain_roff(&text) } else { text };
        let unknown = unknown_names(&text, code);
        assert!(unknown.is_empty(), "{file} names what hermes does not have: {}", unknown.join(", "));
    }
}

#[test]
fn the_prose_check_sees_a_name_that_is_not_there() {
    let text = "Run `hermes sessions lsit --limt 3`, then `/tilte` and `hermes config set modle x`.";
    let unknown = unknown_names(text, MARKDOWN_CODE);
    assert_eq!(unknown, ["--limt", "/tilte", "config set modle", "hermes sessions lsit"]);
    let known = "`hermes sessions list --limit 3`, `/title`, config set model x";
    assert!(unknown_names(known, MARKDOWN_CODE).is_empty());
}

/// README.md with each of its generated parts made anew: the text between
/// `<!-- generated: NAME; ... -->` and `<!-- end generated -->`.
fn readme(text: &str) -> String {
    const END: &str = "<!-- end generated -->";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- generated: ") {
        let open = at + rest[at..].find("-->").expect("a generated part's mark ends") + 3;
        let name = rest[at + 16..].split(';').next().unwrap_or_default();
        let end = rest[open..].find(END).expect("a generated part ends") + open;
        let block = rest[open..end].starts_with('\n');
        let made = match name {
            "exit-statuses" => exit_table(),
            "slash-commands" => slash_list(),
            _ => panic!("README.md: no generated part {name}"),
        };
        out.push_str(&rest[..open]);
        out.push_str(&if block { format!("\n{made}\n") } else { made });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn exit_table() -> String {
    let rows: Vec<String> =
        super::exit_status::EXIT_STATUSES.iter().map(|s| format!("| {} | {} |", s.code, s.summary)).collect();
    format!("| code | meaning |\n|---|---|\n{}", rows.join("\n"))
}

/// Every slash command but `/help` (which the sentence names), with the
/// arguments it must have.
fn slash_list() -> String {
    let names: Vec<String> = crate::commands::chat::slash_commands()
        .iter()
        .filter(|s| s.name != "help")
        .map(|s| {
            if s.args.is_empty() || s.args.starts_with('[') {
                format!("`/{}`", s.name)
            } else {
                format!("`/{} {}`", s.name, s.args)
            }
        })
        .collect();
    names.join(", ")
}

#[test]
fn the_readme_lists() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    check_in("README.md", &readme(&text));
}
