//! The agents that come with hermes (`openai-compatible`, `ollama`, `llm`),
//! found by name where hermes was installed: `../share/hermes/agents/NAME`
//! beside the running binary (any PREFIX, DESTDIR layout or package), then,
//! for a binary not installed but built (`target/release/hermes`), the
//! source tree's `contrib/agents`, then the DATADIR the build was given
//! (`make` passes it as `HERMES_DATADIR`). The roles that come with hermes
//! are found the same way, in `roles` beside `agents` (`data_dirs`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::settings::AgentInput;

/// What a shipped agent reads, when it is not JSON (the default): for a
/// bare name that is the shipped agent, not a program of that name.
pub(crate) fn input(name: &str) -> Option<AgentInput> {
    let input = matches!(name, "ollama" | "llm").then_some(AgentInput::Transcript)?;
    find(name).map(|_| input)
}

/// The directories the shipped agents may be in, in the order looked in.
pub(crate) fn dirs() -> Vec<PathBuf> {
    data_dirs("agents")
}

/// The directories of what comes with hermes of one kind (`agents`,
/// `roles`), in the order looked in: `../share/hermes/KIND` beside the
/// binary, the source tree's `contrib/KIND` for a binary built there,
/// then the DATADIR the build was given.
pub(crate) fn data_dirs(kind: &str) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(exe) = own_path()
        && let Some(bin) = exe.parent()
    {
        let prefix = bin.parent().map_or_else(|| bin.join(".."), Path::to_path_buf);
        dirs.push(prefix.join("share/hermes").join(kind));
        // Built and not installed (target/release/hermes): the source tree
        // it was built in.
        if bin.parent().and_then(Path::file_name).is_some_and(|name| name == "target") {
            dirs.push(bin.join("../../contrib").join(kind));
        }
    }
    if let Some(datadir) = option_env!("HERMES_DATADIR").filter(|d| !d.is_empty()) {
        let dir = Path::new(datadir).join("hermes").join(kind);
        if !dirs.iter().any(|d| same_dir(d, &dir)) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Where this hermes is: `/proc/self/exe` (std's `current_exe`), else,
/// where there is no `/proc` (a chroot, a bare container), as a shell
/// found it: `argv[0]` when it holds a `/` (from the current directory
/// when relative), else the first program of that name on PATH; its
/// symbolic links followed, as `/proc/self/exe`'s are.
fn own_path() -> Option<PathBuf> {
    if let Ok(exe) = std::env::current_exe() {
        return Some(exe);
    }
    let argv0 = PathBuf::from(std::env::args_os().next()?);
    let found = if argv0.as_os_str().as_encoded_bytes().contains(&b'/') {
        argv0
    } else {
        find_on_path(argv0.to_str()?)?
    };
    found.canonicalize().ok()
}

/// Where the shipped agents were looked for, for an error: the
/// directories, or why there were none.
fn where_looked() -> String {
    let dirs = shown_dirs();
    let looked = if dirs.is_empty() { String::new() } else { format!("looked in {dirs}") };
    if own_path().is_some() {
        return looked;
    }
    let argv0 = std::env::args_os().next().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let lost = format!(
        "it cannot tell where it is itself: /proc/self/exe cannot be read, and its name '{argv0}' is neither \
            a path to it nor a program on PATH"
    );
    if looked.is_empty() { lost } else { format!("{looked}; {lost}") }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The shipped agent called `name`, if there is one.
pub(crate) fn find(name: &str) -> Option<PathBuf> {
    if !is_bare_name(name) {
        return None;
    }
    dirs().into_iter().map(|dir| dir.join(name)).find(|path| is_executable(path)).map(|p| tidy(&p))
}

/// The shipped agents' names, sorted, from every place looked in.
pub(crate) fn names() -> Vec<String> {
    let mut names: Vec<String> = dirs()
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .filter(|entry| is_executable(&entry.path()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    crate::order::sort(&mut names);
    names.dedup();
    names
}

/// The agent command to run for `command`: a bare name (one word, no `/`)
/// is a shipped agent first, then a program on PATH; one that is neither is
/// an error that says which agents there are. Anything else is run as it is.
pub(crate) fn resolve(command: &str) -> Result<String> {
    let word = command.trim();
    if !is_bare_name(word) {
        return Ok(command.to_string());
    }
    if let Some(path) = find(word) {
        return Ok(path.to_string_lossy().into_owned());
    }
    if on_path(word) {
        return Ok(command.to_string());
    }
    let names = names();
    let shipped = if names.is_empty() {
        format!("no agents are installed beside this hermes ({})", where_looked())
    } else {
        format!("the agents that come with hermes are {}", names.join(", "))
    };
    Err(Error::Agent(format!(
        "agent '{word}' not found: not a shipped agent nor a command on PATH; {shipped}"
    )))
}

fn shown_dirs() -> String {
    dirs().iter().map(|d| tidy(d).display().to_string()).collect::<Vec<_>>().join(", ")
}

/// One word of the characters a program's name is made of, with no `/`.
fn is_bare_name(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('.')
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b))
}

fn on_path(name: &str) -> bool {
    find_on_path(name).is_some()
}

/// Where the program `name` is on PATH, as a shell would find it: the
/// first executable file of that name.
pub(crate) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|file| is_executable(file))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `bin/../share/x` as `share/x`, when the directory exists: the path the
/// user sees in messages and `config list`.
fn tidy(path: &Path) -> PathBuf {
    match (path.parent().and_then(|dir| dir.canonicalize().ok()), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_names_are_looked_up() {
        for name in ["openai-compatible", "ollama", "llm", "my_agent2", "a.sh"] {
            assert!(is_bare_name(name), "{name}");
        }
        for command in ["./llm", "/usr/bin/llm", "llm -m x", "a|b", "", "..", "$X", "~/a"] {
            assert!(!is_bare_name(command), "{command}");
            assert_eq!(resolve(command).unwrap(), command);
        }
    }

    #[test]
    fn a_name_that_is_nothing_says_which_agents_there_are() {
        let Err(Error::Agent(message)) = resolve("no-such-agent-anywhere") else { panic!() };
        assert!(message.starts_with("agent 'no-such-agent-anywhere' not found"), "{message}");
        assert!(message.contains("agents"), "{message}");
    }
}
