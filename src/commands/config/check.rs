//! `hermes config check`: one tiny request through the configured agent
//! (and each named server's list of models), saying plainly what is wrong.

use std::time::Duration;

use crate::agent::{self, Agent, shipped};
use crate::args::{Access, Kind, Run, Spec, Value, man, option};
use crate::error::{Error, Result};
use crate::output::Out;
use crate::settings::{self, Key};
use crate::store::Store;

/// `config check [--timeout SECONDS]`.
pub(crate) struct Check {
    timeout: Duration,
}

/// How long `check` waits for an answer unless `--timeout` says otherwise.
pub(super) const CHECK_SECONDS: u64 = 30;

pub(super) const CHECK: Spec<Check> = Spec {
    path: "config check",
    alias: None,
    summary: "send one tiny request through the agent; say what is wrong",
    about: "\
Sends one tiny request through the agent and says what is wrong: no agent,
not found, cannot connect, HTTP 401 (the key), HTTP 404 (the URL or the
model).",
    man: man(r#"
send one tiny request through the agent, as a chat would (nothing is
saved), wait at most
.I SECONDS
(default 30), print the agent, server, model and where the key comes
from, then
.B ok
and the reply (its words on one line, without the fences of a code
block, cut at a word to 60 characters), or what is wrong, with exit
status 3: no agent configured,
an agent that is not found, a server it cannot connect to, HTTP 401 or 403
(the key), HTTP 404 (the URL or the model), 429, 5xx, no answer in time.
What the agent wrote on stderr is shown too, through the gate (see
.BR SECURITY ),
as are the values
.B get
and
.B list
print on a terminal (to a pipe, they are as set).
"#),
    options: &[option(
        "",
        "--timeout",
        Value::new("SECONDS", Kind::Number),
        "how long check waits (default 30)",
    )
    .man(
        r#"
how long check waits (default 30)
"#,
    )
    .takes(|a, v| {
        let text = v.lossy();
        let seconds = text.parse::<u64>().ok().filter(|s| (1..=3600).contains(s)).ok_or_else(|| {
            Error::usage(format!("config check --timeout: expected seconds from 1 to 3600, not '{text}'"))
        })?;
        a.timeout = Duration::from_secs(seconds);
        Ok(())
    })],
    args: &[],
    start: || Check { timeout: Duration::from_secs(CHECK_SECONDS) },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Check {
    fn run(self, store: &Store) -> Result<()> {
        check(store, self.timeout, &mut Out::new())
    }
    fn access(&self) -> Access {
        Access::RunsAgent
    }
}

/// Why an agent exited 127: the shell's "not found", or a program that
/// is there and could not start (curl's libraries under `ulimit -v`).
fn not_started(command: &str) -> String {
    format!(
        "the agent '{command}', or a program it runs, is not installed or could not start (exit status 127; \
            see what it said)"
    )
}

/// `config check`: which agent, which server, which model, then one tiny
/// request and a plain verdict.
fn check(store: &Store, timeout: Duration, out: &mut Out) -> Result<()> {
    let checked = check_default(store, timeout, out);
    let settings = agent::resolve_settings(store, Vec::new())?;
    let Some(agent) = Agent::from_settings(&settings).ok().flatten() else { return checked };
    let mut failed = None;
    for name in agent.server_names() {
        let Some(server) = agent.server(name) else { continue };
        let url = server.base_url.as_deref().unwrap_or_default();
        match server.list_models(timeout, true) {
            Ok(models) => out.write(&format!(
                "ok: [servers.{name}] {url} lists {}\n",
                crate::text::counted(models.len(), "model")
            ))?,
            Err(e) => {
                out.write(&format!("failed: [servers.{name}] {url}: {e}\n"))?;
                failed.get_or_insert_with(|| Error::Agent(format!("config check: [servers.{name}] failed")));
            }
        }
    }
    out.flush()?;
    checked.and(failed.map_or(Ok(()), Err))
}

/// `config check` of the default server (or the one its model names).
fn check_default(store: &Store, timeout: Duration, out: &mut Out) -> Result<()> {
    store.verify()?;
    let settings = agent::resolve_settings(store, Vec::new())?;
    let origin = |key: Key| settings.get(key).map(|(_, origin)| origin.describe()).unwrap_or_default();
    let Some(command) = settings.agent().map(str::to_string) else {
        return Err(no_agent());
    };
    let agent = Agent::from_settings(&settings)
        .map_err(|e| match e {
            Error::Agent(why) => Error::Agent(format!("config check: {why}")),
            e => e,
        })?
        .ok_or_else(no_agent)?;
    // The default model may name a server (`work:gpt-4o`): that one is asked.
    let (agent, _) = agent.route(agent.model.clone().as_deref());
    let agent_origin = origin(Key::Agent);
    if agent.command == command {
        out.write(&format!("agent:  {command} ({agent_origin})\n"))?;
    } else {
        out.write(&format!("agent:  {command} = {} ({agent_origin})\n", agent.command))?;
    }
    let server = say_server(&settings, agent, out)?;
    let model_named = settings.model().map(str::to_string);
    match &model_named {
        Some(model) => out.write(&format!("model:  {model} ({})\n", origin(Key::Model)))?,
        None => out.write("model:  none set (the agent's default)\n")?,
    }
    let key = key_source(agent);
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
        let reply = reply_in_a_line(&probe.text);
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
            "HTTP 404 from {server}: the URL or the model is wrong; check base_url ({server}) and model \
                ({model})"
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

/// `config check`'s line for the server `agent` asks: a named one's
/// (`model = "work:..."`), else base_url's; which, for what follows.
fn say_server(settings: &settings::Settings, agent: &Agent, out: &mut Out) -> Result<String> {
    let server = settings.value(Key::BaseUrl).unwrap_or("(the agent's own)").to_string();
    let named = settings.model().and_then(|m| m.split_once(':')).map(|(name, _)| name);
    match (agent.base_url.as_deref(), named) {
        (Some(url), Some(name)) if agent.server(name).is_none() && agent.model.is_some() && url != server => {
            out.write(&format!("server: {url} ([servers.{name}])\n"))?;
            Ok(url.to_string())
        }
        _ => {
            if let Some((_, origin)) = settings.get(Key::BaseUrl) {
                out.write(&format!("server: {server} ({})\n", origin.describe()))?;
            }
            Ok(server)
        }
    }
}

/// The test reply as one line of `config check`: its words, not its
/// Markdown's fences (a model may answer in a code block), its lines
/// joined, cut at a word to 60 characters.
pub(super) fn reply_in_a_line(reply: &str) -> String {
    let fence = |line: &str| {
        let line = line.trim_start();
        line.starts_with("```") || line.starts_with("~~~")
    };
    let words: Vec<&str> =
        reply.lines().filter(|line| !fence(line)).flat_map(str::split_whitespace).collect();
    crate::text::truncate_words(&words.join(" "), 60)
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
        Some(crate::agent::ApiKey::Env(name)) => format!("from ${name} (api_key_env)"),
        Some(crate::agent::ApiKey::Command(_)) => "from api_key_command".to_string(),
        None if std::env::var_os("OPENAI_API_KEY").is_some() => {
            "OPENAI_API_KEY of the environment".to_string()
        }
        None => "none".to_string(),
    }
}
