//! The models the server offers, asked of the agent (hermes keeps no
//! network code): it is run with `$HERMES_REQUEST` set to `models` and
//! nothing on its stdin, and prints them as the server lists them (OpenAI's
//! `{"data":[{"id":...},...]}`, ollama's `{"models":[{"name":...}]}`) or one
//! a line. The list is kept in the profile (`models.cache`) for an hour,
//! for `/model` Tab and the shell's completion; `hermes models` asks again.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use nanoserde::DeJson;

use super::Agent;
use super::process::{self, Bounded};
use crate::error::{Error, Result, describe_io};
use crate::store::Store;
use crate::store::json;
use crate::store::session::clean_model;
use crate::{fsio, sys, time};

/// How long a kept list is used before the agent is asked again.
const FRESH_SECS: f64 = 3600.0;

/// How long the server is given to list its models again before a model
/// missing from the kept list is refused (else the server judges it).
const LOOK_AGAIN_SECS: u64 = 5;

/// The most the agent may print: a server's list, with every field.
const MAX_OUTPUT: usize = 4 << 20;

/// The first line of the cache file.
const MAGIC: &str = "hermes-models 1";

/// What the agent is asked, in `$HERMES_REQUEST`.
pub(crate) const REQUEST: &str = "models";

// nanoserde's derived DeJson (see decode.rs's `wire`).
#[allow(clippy::question_mark)]
mod wire {
    use super::*;

    /// OpenAI's list (`data`), or ollama's (`models`); an `error`.
    #[derive(DeJson)]
    pub struct List {
        #[nserde(default)]
        pub data: Vec<Entry>,
        #[nserde(default)]
        pub models: Vec<Entry>,
        #[nserde(default)]
        pub error: Option<Failure>,
    }

    #[derive(DeJson)]
    pub struct Entry {
        #[nserde(default)]
        pub id: Option<String>,
        #[nserde(default)]
        pub name: Option<String>,
        #[nserde(default)]
        pub model: Option<String>,
    }

    #[derive(DeJson)]
    pub struct Failure {
        #[nserde(default)]
        pub message: Option<String>,
    }
}

/// Why what the agent printed holds no list.
#[derive(Debug, PartialEq)]
enum Unreadable {
    /// The server's error object, passed on.
    Said(String),
    /// JSON of another shape.
    NotAList(String),
}

/// The models in what the agent printed, sorted, each once: names a
/// typed one could not be (`clean_model`) are left out.
fn parse(out: &[u8]) -> std::result::Result<Vec<String>, Unreadable> {
    let text = String::from_utf8_lossy(out);
    let mut names: Vec<String> = if text.trim_start().starts_with('{') {
        let list: wire::List = json::parse(text.trim().as_bytes()).map_err(Unreadable::NotAList)?;
        if let Some(failure) = list.error {
            return Err(Unreadable::Said(failure.message.unwrap_or_else(|| "unknown error".into())));
        }
        let entries = list.data.into_iter().chain(list.models);
        entries.filter_map(|e| e.id.or(e.name).or(e.model)).collect()
    } else {
        text.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_string).collect()
    };
    names.retain(|name| clean_model(name).as_deref() == Ok(name.as_str()));
    crate::order::sort(&mut names);
    names.dedup();
    Ok(names)
}

impl Agent {
    /// Ask the agent for the server's models, waiting at most `limit`.
    /// `quiet`: what it says on stderr is dropped (Tab at the prompt),
    /// else said after, through the gate.
    pub(crate) fn list_models(&self, limit: Duration, quiet: bool) -> Result<Vec<String>> {
        let key = self.key.as_ref().map(|k| k.fetch(limit)).transpose()?;
        let mut shell = Command::new("/bin/sh");
        shell.arg("-c").arg(&self.command).env("HERMES_REQUEST", REQUEST).stdin(Stdio::null());
        if let Some(url) = &self.base_url {
            shell.env("OPENAI_BASE_URL", url);
        }
        if let Some(key) = &key {
            shell.env("OPENAI_API_KEY", key);
        }
        if let Some(model) = &self.model {
            shell.env("HERMES_MODEL", model);
        }
        let (ran, said) = if quiet {
            shell.stderr(Stdio::null());
            (process::run_bounded(&mut shell, limit, MAX_OUTPUT), String::new())
        } else {
            run_keeping_stderr(&mut shell, limit)
        };
        if !said.trim().is_empty() {
            for line in said.lines() {
                crate::output::note!("{}", crate::text::printable(line, false));
            }
        }
        let failed =
            |how: String| Error::Agent(format!("agent '{}' could not list the models: {how}", self.command));
        // An agent that knows nothing of the request answers it as a turn.
        let unknown = format!(
            "an agent lists them when $HERMES_REQUEST is '{REQUEST}' (those that come with hermes do)"
        );
        let (status, out) = match ran {
            Ok(Bounded::Exited(status, out)) => (status, out),
            Ok(Bounded::TimedOut) => return Err(failed(format!("no answer within {} s", limit.as_secs()))),
            Ok(Bounded::Stopped(signal)) => {
                return Err(failed(format!("stopped by {}", sys::stop_signal_name(signal))));
            }
            Ok(Bounded::Interrupted) => return Err(Error::Interrupted),
            Err(e) => return Err(failed(describe_io(&e))),
        };
        let names = match parse(&out) {
            Ok(names) => names,
            Err(Unreadable::Said(why)) => return Err(failed(format!("the server said: {why}"))),
            Err(Unreadable::NotAList(why)) => {
                return Err(failed(format!("what it printed is not a list ({why}); {unknown}")));
            }
        };
        match status.code() {
            Some(0) if names.is_empty() => Err(failed(format!("it printed none; {unknown}"))),
            Some(0) => Ok(names),
            Some(code) => Err(failed(format!("it exited with status {code}"))),
            None => Err(failed("it was killed".into())),
        }
    }

    /// What identifies the list this agent gives: its command and server.
    fn cache_key(&self) -> String {
        format!("{:016x}", crate::hash::fnv1a(format!("{}\0{:?}", self.command, self.base_url).as_bytes()))
    }
}

/// Run `command` as `process::run_bounded` does, its stderr (when piped)
/// read on the side, at most 64 KiB of it.
fn run_keeping_stderr(command: &mut Command, limit: Duration) -> (std::io::Result<Bounded>, String) {
    // The child's stderr is read from a pipe made here: run_bounded pipes
    // stdout alone. Dropped by the command once spawned, the write end
    // closes with the child (and what it left running, which is killed).
    let (sender, said) = std::sync::mpsc::channel();
    if let Ok((mut read, write)) = std::io::pipe() {
        command.stderr(Stdio::from(write));
        std::thread::spawn(move || {
            let mut said = Vec::new();
            let _ = read.by_ref().take(64 << 10).read_to_end(&mut said);
            let _ = sender.send(String::from_utf8_lossy(&said).into_owned());
        });
    }
    let ran = process::run_bounded(command, limit, MAX_OUTPUT);
    // Nothing in hermes keeps the write end open now; something the agent
    // started outside its process group might: not waited for long.
    command.stderr(Stdio::null());
    let said = said.recv_timeout(process::AFTER_EXIT).unwrap_or_default();
    (ran, said)
}

/// The kept list for `agent`, if there is one for it, and how old it is.
pub(crate) fn cached(store: &Store, agent: &Agent) -> Option<(Vec<String>, f64)> {
    let bytes = fsio::read_limited(&store.home().join("models.cache"), MAX_OUTPUT as u64).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC || lines.next()? != agent.cache_key() {
        return None;
    }
    let when: f64 = lines.next()?.parse().ok()?;
    let names = lines.filter(|l| clean_model(l).as_deref() == Ok(*l)).map(str::to_string).collect();
    Some((names, time::now() - when))
}

/// Keep `names` as `agent`'s list (best effort: a cache).
pub(crate) fn keep(store: &Store, agent: &Agent, names: &[String]) {
    let text = format!("{MAGIC}\n{}\n{}\n{}\n", agent.cache_key(), time::now(), names.join("\n"));
    let _ = fsio::write_atomic(&store.home().join("models.cache"), text.as_bytes());
}

/// The models for Tab: the kept list while it is fresh, else the agent's
/// (asked quietly, for a few seconds), kept; none when it cannot say.
pub(crate) fn for_completion(store: &Store, agent: &Agent) -> Vec<String> {
    if let Some((names, age)) = cached(store, agent)
        && (0.0..FRESH_SECS).contains(&age)
    {
        return names;
    }
    match agent.list_models(Duration::from_secs(5), true) {
        Ok(names) => {
            keep(store, agent, &names);
            names
        }
        Err(_) => Vec::new(),
    }
}

/// A model typed for hermes's own request (`-m`, `/model`) that the
/// server's list does not hold: the error to say, with the nearest names;
/// nothing is saved. The list kept within the hour is a hint, never a
/// wall: a model missing from it is looked up again, on the server, before
/// it is refused (a server adds models). None when there is no fresh list
/// (the server is not asked for one here), when the server cannot say, or
/// when the model is on it (as `NAME:latest` too). Other agents' models
/// (llm's aliases, ollama's tags) are theirs to judge.
pub(crate) fn unknown(store: &Store, agent: &Agent, model: &str, place: &str) -> Option<Error> {
    agent.server.as_ref()?;
    // A named server's model is that server's to judge.
    if !std::ptr::eq(agent.route(Some(model)).0, agent) {
        return None;
    }
    let (names, age) = cached(store, agent)?;
    // ollama's `NAME` is its `NAME:latest`.
    let latest = format!("{model}:latest");
    let bare = model.strip_suffix(":latest").unwrap_or(model);
    let listed = |n: &String| *n == model || *n == latest || *n == bare;
    if !(0.0..FRESH_SECS).contains(&age) || names.is_empty() || names.iter().any(listed) {
        return None;
    }
    let names = agent.list_models(Duration::from_secs(LOOK_AGAIN_SECS), true).ok()?;
    keep(store, agent, &names);
    if names.is_empty() || names.iter().any(listed) {
        return None;
    }
    let wanted = model.to_lowercase();
    let near: Vec<&str> = names
        .iter()
        .filter(|n| crate::suggest::is_close(&wanted, &n.to_lowercase()))
        .map(String::as_str)
        .take(3)
        .collect();
    let hint = if near.is_empty() { String::new() } else { format!(" (did you mean {}?)", near.join(", ")) };
    Some(Error::usage(format!(
        "{place} {}: the server offers no such model{hint}; 'hermes models' lists them, asking the server \
            again",
        crate::text::printable(model, false)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_of_openai_ollama_and_plain_lines() {
        let openai = concat!(
            r#"{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1,"owned_by":"x"},"#,
            r#"{"id":"a/b:7b"}]}"#
        );
        assert_eq!(parse(openai.as_bytes()).unwrap(), ["a/b:7b", "gpt-4o"]);
        let ollama = br#"{"models":[{"name":"llama3.2:latest","details":{"family":"llama"}}]}"#;
        assert_eq!(parse(ollama).unwrap(), ["llama3.2:latest"]);
        assert_eq!(parse(b"m2\n\n  m1 extra words\nm2\n").unwrap(), ["m1", "m2"]);
        assert_eq!(parse(br#"{"error":{"message":"bad key"}}"#), Err(Unreadable::Said("bad key".into())));
        assert!(matches!(parse(br#"{"data":"#), Err(Unreadable::NotAList(_))));
        let hostile = "{\"data\":[{\"id\":\"ok\"},{\"id\":\"x\\u001b[31m\"},{\"id\":\"\\u202eevil\"}]}";
        assert_eq!(parse(hostile.as_bytes()).unwrap(), ["ok"]);
    }
}
