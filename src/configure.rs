//! `hermes config`: get, set, unset, list and path for the keys of
//! config.toml, each value with where it came from (the file, the
//! environment, a default), and `check`, one tiny request through the
//! configured agent that says plainly what is wrong.

use std::time::Duration;

use lexopt::prelude::*;

use crate::args::string;
use crate::chat::agent::{Agent, shipped};
use crate::config::{self, KEYS, edit};
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::Out;
use crate::store::Store;

pub(crate) const VERBS: [&str; 6] = ["get", "set", "unset", "list", "path", "check"];

#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    Get(String),
    Set(String, String),
    Unset(String),
    List,
    Path,
    Check { timeout: Duration },
}

/// How long `check` waits for an answer unless `--timeout` says otherwise.
const CHECK_SECONDS: u64 = 30;

pub(crate) fn parse(parser: &mut lexopt::Parser) -> Result<Command> {
    let mut words = Vec::new();
    let mut timeout = None;
    while let Some(arg) = parser.next()? {
        match arg {
            // The third word is set's VALUE, stored in config.toml: text.
            Value(v) if words.len() == 2 && words[0] == "set" => {
                words.push(crate::args::text(v, "config set VALUE")?);
            }
            Value(v) => words.push(string(v)),
            Long("timeout") => {
                let text = string(parser.value()?);
                let seconds =
                    text.parse::<u64>().ok().filter(|s| (1..=3600).contains(s)).ok_or_else(|| {
                        Error::usage(format!(
                            "config check --timeout: expected seconds from 1 to 3600, not '{text}'"
                        ))
                    })?;
                timeout = Some(Duration::from_secs(seconds));
            }
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let mut words = words.into_iter();
    let verb = words.next().ok_or(Error::HelpWanted)?;
    let rest: Vec<String> = words.collect();
    let wants = |n: usize, usage: &str| {
        if rest.len() == n { Ok(()) } else { Err(Error::usage(format!("usage: hermes config {usage}"))) }
    };
    if timeout.is_some() && verb != "check" {
        return Err(Error::usage("--timeout goes with 'config check'"));
    }
    let command = match verb.as_str() {
        "get" => {
            wants(1, "get KEY")?;
            Command::Get(known_key(&rest[0])?)
        }
        "set" => {
            // The value is never echoed: it may be what should not be there.
            wants(2, "set KEY VALUE")?;
            let key = known_key(&rest[0])?;
            config::check_value(&key, &rest[1]).map_err(Error::usage)?;
            Command::Set(key, rest[1].clone())
        }
        "unset" => {
            wants(1, "unset KEY")?;
            Command::Unset(known_key(&rest[0])?)
        }
        "list" => {
            wants(0, "list")?;
            Command::List
        }
        "path" => {
            wants(0, "path")?;
            Command::Path
        }
        "check" => {
            wants(0, "check [--timeout SECONDS]")?;
            Command::Check { timeout: timeout.unwrap_or(Duration::from_secs(CHECK_SECONDS)) }
        }
        _ => {
            return Err(Error::usage(format!(
                "unknown config command '{verb}'{} ({})",
                crate::text::nearest(&verb, VERBS)
                    .map(|n| format!("; did you mean '{n}'?"))
                    .unwrap_or_default(),
                VERBS.join(", ")
            )));
        }
    };
    Ok(command)
}

/// `key`, if config.toml has it; else a usage error naming the keys.
fn known_key(key: &str) -> Result<String> {
    if KEYS.contains(&key) {
        return Ok(key.to_string());
    }
    if matches!(key, "api_key" | "key" | "openai_api_key") {
        return Err(Error::usage(
            "hermes keeps no key in config.toml: set api_key_env (the environment variable that holds it) or api_key_command (a command that prints it)",
        ));
    }
    Err(Error::usage(format!(
        "unknown config key '{key}'{} (keys: {})",
        crate::text::nearest(key, KEYS).map(|n| format!("; did you mean '{n}'?")).unwrap_or_default(),
        KEYS.join(", ")
    )))
}

pub(crate) fn run(store: &Store, command: Command) -> Result<()> {
    let mut out = Out::new();
    match command {
        Command::Path => out.write(&format!("{}\n", store.config_path().display()))?,
        Command::Get(key) => {
            let config = config::load(store)?;
            match settings(&config).into_iter().find(|s| s.key == key).and_then(|s| s.value) {
                Some(value) => out.write(&format!("{value}\n"))?,
                None => return Err(Error::Silent(crate::error::EXIT_NOT_FOUND)),
            }
        }
        Command::List => {
            let config = config::load(store)?;
            let rows: Vec<(String, String)> = settings(&config)
                .into_iter()
                .filter_map(|s| Some((edit::assignment(s.key, &s.value?), s.origin)))
                .collect();
            let width = rows.iter().map(|(left, _)| crate::text::columns_of(left)).max().unwrap_or(0);
            for (left, origin) in rows {
                let pad = " ".repeat(width - crate::text::columns_of(&left));
                out.write(&format!("{left}{pad}  # {origin}\n"))?;
            }
        }
        Command::Set(key, value) => write(store, |text| edit::set(text, &key, &value))?,
        Command::Unset(key) => {
            let mut found = false;
            write(store, |text| {
                let (text, was) = edit::unset(text, &key);
                found = was;
                text
            })?;
            if !found {
                return Err(Error::Silent(crate::error::EXIT_NOT_FOUND));
            }
        }
        Command::Check { timeout } => return check(store, timeout, &mut out),
    }
    out.flush()
}

/// A key's value as hermes would use it, and where it came from.
struct Setting {
    key: &'static str,
    value: Option<String>,
    origin: String,
}

/// Every key, in KEYS's order: config.toml first, then the environment
/// where hermes reads one, then the default.
fn settings(config: &config::Config) -> Vec<Setting> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let file = |value: &Option<String>| value.clone().map(|v| (v, "config.toml".to_string()));
    let from_env = |name: &str| env(name).map(|v| (v, format!("environment: {name}")));
    let default = |value: &str| Some((value.to_string(), "default".to_string()));
    KEYS.iter()
        .map(|&key| {
            let found = match key {
                // The environment wins for the agent: HERMES_AGENT is the
                // way to try another without editing the file.
                "agent" => from_env("HERMES_AGENT").or_else(|| file(&config.agent)).or_else(|| {
                    let agent = config::SERVER_AGENT.to_string();
                    config.base_url.as_ref().map(|_| (agent, "default, as base_url is set".to_string()))
                }),
                "agent_input" => {
                    let agent = from_env("HERMES_AGENT").or_else(|| file(&config.agent)).map(|(a, _)| a);
                    // (SERVER_AGENT reads JSON, the default.)
                    let shipped_input = agent.as_deref().and_then(|a| {
                        let input = shipped::input_of(a.trim())?;
                        shipped::find(a.trim())?;
                        Some((format!("{input:?}").to_lowercase(), format!("default of {}", a.trim())))
                    });
                    config
                        .agent_input
                        .map(|input| (format!("{input:?}").to_lowercase(), "config.toml".to_string()))
                        .or(shipped_input)
                        .or_else(|| default("json"))
                }
                "model" => file(&config.model).or_else(|| from_env("HERMES_MODEL")).or_else(|| {
                    // An agent that reads an OpenAI request gets $OPENAI_MODEL.
                    let json = config.agent_input.is_none_or(|input| input == config::AgentInput::Json)
                        && !from_env("HERMES_AGENT").or_else(|| file(&config.agent)).is_some_and(|(a, _)| {
                            shipped::input_of(a.trim()).is_some() && shipped::find(a.trim()).is_some()
                        });
                    from_env("OPENAI_MODEL").filter(|_| json)
                }),
                "base_url" => file(&config.base_url).or_else(|| from_env("OPENAI_BASE_URL")).or_else(|| {
                    Some(("http://127.0.0.1:11434/v1".into(), "default of openai-compatible".into()))
                }),
                "api_key_env" => file(&config.api_key_env),
                "api_key_command" => file(&config.api_key_command),
                "system" => file(&config.system),
                "render" if config.plain => Some(("plain".into(), "config.toml".into())),
                "render" => default("markdown"),
                "context" => Some(match config.context {
                    Some(crate::store::context::UNLIMITED) => ("off".into(), "config.toml".into()),
                    Some(n) => (n.to_string(), "config.toml".into()),
                    None => (crate::store::context::DEFAULT_BUDGET.to_string(), "default".into()),
                }),
                "compact" => Some(match config.compact {
                    Some(config::Compact::Auto) => ("auto".into(), "config.toml".into()),
                    Some(config::Compact::Off) => ("off".into(), "config.toml".into()),
                    None => ("off".into(), "default".into()),
                }),
                _ => None,
            };
            let (value, origin) = found.map_or((None, String::new()), |(v, o)| (Some(v), o));
            Setting { key, value, origin }
        })
        .collect()
}

/// Rewrite config.toml with `change`, atomically, once the home is safe
/// and the file as it stands reads without error. A config.toml that is a
/// link is written where it points (dotfile managers make such links).
fn write(store: &Store, change: impl FnOnce(&str) -> String) -> Result<()> {
    store.verify()?;
    let text = config::read_text(store)?;
    config::load(store)?; // a mistake in the file is fixed by hand first
    let path = store.config_path();
    let target = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => path.canonicalize().map_err(|e| Error::io(&path, e))?,
        _ => path,
    };
    if let Some(dir) = target.parent() {
        fsio::ensure_private_dir(dir)?;
    }
    let new = change(text.as_deref().unwrap_or(""));
    if text.as_deref() == Some(new.as_str()) {
        return Ok(());
    }
    fsio::write_atomic(&target, new.as_bytes())
}

/// `config check`: which agent, which server, which model, then one tiny
/// request and a plain verdict.
/// Why an agent exited 127: the shell's "not found", or a program that
/// is there and could not start (curl's libraries under `ulimit -v`).
fn not_started(command: &str) -> String {
    format!(
        "the agent '{command}', or a program it runs, is not installed or could not start (exit status 127; see what it said)"
    )
}

fn check(store: &Store, timeout: Duration, out: &mut Out) -> Result<()> {
    store.verify()?;
    let config = config::load(store)?;
    let list = settings(&config);
    let origin = |key: &str| list.iter().find(|s| s.key == key).map(|s| s.origin.clone()).unwrap_or_default();
    let Some(command) = list.iter().find(|s| s.key == "agent").and_then(|s| s.value.clone()) else {
        return Err(no_agent());
    };
    let agent = Agent::named(&command, config).map_err(|e| match e {
        Error::Agent(why) => Error::Agent(format!("config check: {why}")),
        e => e,
    })?;
    let agent_origin = origin("agent");
    if agent.command == command {
        out.write(&format!("agent:  {command} ({agent_origin})\n"))?;
    } else {
        out.write(&format!("agent:  {command} = {} ({agent_origin})\n", agent.command))?;
    }
    let server = list.iter().find(|s| s.key == "base_url").and_then(|s| s.value.clone()).unwrap_or_default();
    out.write(&format!("server: {server} ({})\n", origin("base_url")))?;
    match &agent.model {
        Some(model) => out.write(&format!("model:  {model} ({})\n", origin("model")))?,
        None => out.write("model:  none set (the agent's default)\n")?,
    }
    let key = key_source(&agent);
    out.write(&format!("key:    {key}\n"))?;
    out.flush()?;
    let probe = agent.probe(timeout)?;
    let said = probe.stderr.trim_end();
    if !said.is_empty() {
        let mut text = String::from("the agent said:\n");
        for line in said.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        out.write(&text)?;
        out.flush()?;
    }
    let server_said = probe.error.as_ref().map(|m| format!(" (the server said: {m})")).unwrap_or_default();
    let fail = |why: String| Err(Error::Agent(format!("config check: {why}{server_said}")));
    let Some(status) = probe.status else {
        return fail(format!(
            "no answer within {} s: the server is slow or does not answer",
            timeout.as_secs()
        ));
    };
    if status.success() && probe.error.is_none() && !crate::store::session::is_empty_reply(&probe.text) {
        let reply: String = probe.text.trim().chars().take(60).collect();
        // Tenths of a second counted in integers: `{:.1}` on a float would
        // link the exact float formatter (some 5 KB) for this one line.
        let tenths = (probe.took.as_millis() + 50) / 100;
        out.write(&format!("ok: the agent answered in {}.{} s: {reply}\n", tenths / 10, tenths % 10))?;
        return out.flush();
    }
    let model = agent.model.as_deref().unwrap_or("(none)");
    match probe.http_status() {
        Some(401 | 403) => fail(format!(
            "HTTP {} from {server}: the key was refused; check api_key_env or api_key_command ({key})",
            probe.http_status().unwrap_or(401)
        )),
        Some(404) => fail(format!(
            "HTTP 404 from {server}: the URL or the model is wrong; check base_url ({server}) and model ({model})"
        )),
        Some(429) => fail(format!("HTTP 429 from {server}: too many requests, or out of quota")),
        Some(code) if code >= 500 => fail(format!("HTTP {code} from {server}: the server failed")),
        Some(code) if !status.success() => fail(format!("HTTP {code} from {server}")),
        _ if said.contains("cannot connect") => {
            fail(format!("cannot connect to {server}: is the server running? (set base_url)"))
        }
        _ if status.code() == Some(127) => fail(not_started(&agent.command)),
        _ if !status.success() => fail(match status.code() {
            Some(code) => format!("the agent failed (exit status {code})"),
            None => "the agent was killed by a signal".to_string(),
        }),
        _ if probe.error.is_some() => fail("the server answered with an error".to_string()),
        _ => fail("the agent answered nothing".to_string()),
    }
}

/// `config check` with no agent configured: how to configure one.
fn no_agent() -> Error {
    let names = shipped::names();
    let shipped =
        if names.is_empty() { String::new() } else { format!(" (comes with hermes: {})", names.join(", ")) };
    Error::Agent(format!(
        "config check: no agent configured: run 'hermes config set agent openai-compatible'{shipped}"
    ))
}

/// Where `config check` says the agent's key comes from.
fn key_source(agent: &Agent) -> String {
    match &agent.key {
        Some(crate::chat::agent::Key::Env(name)) => format!("from ${name} (api_key_env)"),
        Some(crate::chat::agent::Key::Command(_)) => "from api_key_command".to_string(),
        None if std::env::var_os("OPENAI_API_KEY").is_some() => {
            "OPENAI_API_KEY of the environment".to_string()
        }
        None => "none".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &[&str]) -> Result<Command> {
        parse(&mut lexopt::Parser::from_args(words.iter().copied()))
    }

    #[test]
    fn verbs_and_their_arguments() {
        assert_eq!(parse_words(&["get", "model"]).unwrap(), Command::Get("model".into()));
        assert_eq!(parse_words(&["set", "model", "m"]).unwrap(), Command::Set("model".into(), "m".into()));
        assert_eq!(parse_words(&["list"]).unwrap(), Command::List);
        assert_eq!(
            parse_words(&["check", "--timeout", "5"]).unwrap(),
            Command::Check { timeout: Duration::from_secs(5) }
        );
        assert!(matches!(parse_words(&[]), Err(Error::HelpWanted)));
        for bad in [&["set", "model"][..], &["get"], &["lst"], &["set", "modle", "x"], &["list", "x"]] {
            assert!(matches!(parse_words(bad), Err(Error::Usage(_))), "{bad:?}");
        }
    }

    #[test]
    fn a_refused_value_is_never_repeated() {
        let Err(Error::Usage(why)) = parse_words(&["set", "api_key", "sk-secret"]) else { panic!() };
        assert!(!why.contains("sk-secret") && why.contains("api_key_command"), "{why}");
        let Err(Error::Usage(why)) = parse_words(&["set", "api_key_env", "sk-secret=1"]) else { panic!() };
        assert!(!why.contains("sk-secret"), "{why}");
    }
}
