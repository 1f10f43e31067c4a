//! Shell completion scripts for bash, zsh and fish.

pub fn script(shell: &str) -> &'static str {
    match shell {
        "bash" => BASH,
        "zsh" => ZSH,
        _ => FISH,
    }
}

const BASH: &str = "";
const ZSH: &str = "";
const FISH: &str = "";
