//! The generated reference, checked in: `man/hermes.1`, and under
//! `tests/reference/` `hermes help --all` (every command's and verb's
//! `--help`) and the three completion scripts. Each test compares the file
//! with what the tables make now; `HERMES_BLESS=1 cargo test reference`
//! (`make bless`) writes them anew, so that a change to what users read
//! shows in review as a change to these files. `tests/t6110-reference.sh`
//! holds the built binary to the same files.

use super::completion::{Shell, script};
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
