//! Shell completion scripts for bash, zsh and fish: commands, options, and
//! session titles after `-c` and the `sessions` verbs that take a name.
//!
//! The scripts read titles from `hermes sessions list --all`, whose output
//! to a pipe is `MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID` per session
//! (titles never hold tabs or newlines). The scripts are files of their own
//! in `completions/` (so editors and shellcheck read them as shell; `make
//! check` runs shellcheck on the bash one); tests/t6100-completion.sh checks
//! their option lists against the `--help` texts.

use std::str::FromStr;

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shell {
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

pub fn script(shell: Shell) -> &'static str {
    match shell {
        Shell::Bash => BASH,
        Shell::Zsh => ZSH,
        Shell::Fish => FISH,
    }
}

const BASH: &str = include_str!("completions/hermes.bash");
const ZSH: &str = include_str!("completions/_hermes");
const FISH: &str = include_str!("completions/hermes.fish");
