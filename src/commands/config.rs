//! `hermes config`: get, set, unset, list and path for the keys of
//! config.toml, each value with where it came from (the file, the
//! environment, a default), and `check`, one tiny request through the
//! configured agent that says plainly what is wrong.

use std::time::Duration;

use crate::agent::{self, Agent, shipped};
use crate::args::{Access, Arg, Command, Kind, Run, Spec, Value, man, option};
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::Out;
use crate::settings::{self, Key, edit};
use crate::store::Store;

/// `hermes config --help` after its verbs.
pub(crate) const ABOUT: &str = "\
The settings in config.toml ($HERMES_HOME/config.toml, or the profile's):
{settings}

More servers, each a table of its own (edited by hand; config list shows
them, config check asks each): -m work:MODEL asks this one.
  [servers.work]
  base_url = \"https://llm.example.com/v1\"
  api_key_env = \"WORK_API_KEY\"

The key reaches the agent as $OPENAI_API_KEY: never in config.toml, on a
command line or in a message.

Example:
  hermes config set agent openai-compatible
  hermes config set base_url https://api.openai.com/v1
  hermes config set api_key_command 'pass show openai'
  hermes config set model gpt-4o-mini
  hermes config check
";

/// `hermes config`'s verbs, in the order help and completions list them.
pub(crate) const VERBS: &[&dyn Command<Store>] = &[&GET, &SET, &UNSET, &LIST, &PATH, &CHECK];

/// `config get KEY`.
pub(crate) struct Get {
    key: Key,
}

const GET: Spec<Get> = Spec {
    path: "config get",
    alias: None,
    summary: "print the value hermes uses",
    about: "\
Prints the value a chat would use, wherever it comes from (config.toml, the
environment, a default); exit 1 when there is none.",
    man: man(r#"
print the value hermes uses, wherever it came from; exit status 1 when
there is none.
"#),
    options: &[],
    args: &[Arg::one("KEY", Kind::Setting).takes(|a, v| {
        a.key = known_key(&v.lossy())?;
        Ok(())
    })],
    // The key is the argument's (one is required).
    start: || Get { key: Key::Agent },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Get {
    fn run(self, store: &Store) -> Result<()> {
        match agent::resolve_settings(store, Vec::new())?.value(self.key) {
            Some(value) => print(&format!("{value}\n")),
            None => Err(Error::Silent(crate::error::EXIT_NOT_FOUND)),
        }
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

/// `config set KEY VALUE`.
pub(crate) struct Set {
    key: Key,
    value: String,
}

const SET: Spec<Set> = Spec {
    path: "config set",
    alias: None,
    summary: "write a value to config.toml",
    about: "\
Writes KEY = VALUE to config.toml, its comments and order kept, under a lock
(racing writers both land). A file that would grow past 64 KiB is not
written: exit 2.",
    man: man(r#"
write it to
.BR config.toml :
the key's line is rewritten where it stands (its comment kept), a new key
is added at the end, every other line is kept as it is; the file is
replaced atomically (mode 0600), and a
.B config.toml
that is a symbolic link is written where it points.
An unknown key or a bad value is a usage error that does not repeat the
value.
A
.B config.toml
is at most 64 KiB: a value that would make it larger (a long system
prompt: give it with
.B chat \-\-system\-file
instead) is refused before anything is written, exit 2, naming the key.
"#),
    options: &[],
    args: &[
        Arg::one("KEY", Kind::Setting).takes(|a, v| {
            a.key = known_key(&v.lossy())?;
            Ok(())
        }),
        Arg::one("VALUE", Kind::SettingValue).takes(|a, v| {
            a.value = v.utf8("config set VALUE")?;
            Ok(())
        }),
    ],
    start: || Set { key: Key::Agent, value: String::new() },
    // The value is never echoed: it may be what should not be there.
    finish: |set| match settings::check_value(set.key, &set.value) {
        Ok(()) => Ok(set),
        Err(why) => Err(Error::usage(why)),
    },
    stray: None,
};

impl Run<Store> for Set {
    fn run(self, store: &Store) -> Result<()> {
        write(store, |text| edit::set(text, self.key, &self.value))
    }
}

/// `config unset KEY`.
pub(crate) struct Unset {
    key: Key,
}

const UNSET: Spec<Unset> = Spec {
    path: "config unset",
    alias: None,
    summary: "remove a value from config.toml",
    about: "\
Removes KEY from config.toml (exit 1 when it was not set), under the same lock
as set; it also mends a config.toml made too large by hand.",
    man: man(r#"
remove its line; exit status 1 when it was not set.
.PP
.B set
and
.B unset
read, change and write the file under a lock (a byte of
.BR $HERMES_HOME/.lock ),
so two at once (two
.B config set
in a script's background jobs) both keep their key.
Every other command refuses a
.B config.toml
over 64 KiB (made by hand), saying how to mend it:
.B set
and
.B unset
read it whole (up to 16 MiB), say so, and write it back once it is within
the limit
.RB ( "hermes config unset system" ).
"#),
    options: &[],
    args: &[Arg::one("KEY", Kind::Setting).takes(|a, v| {
        a.key = known_key(&v.lossy())?;
        Ok(())
    })],
    start: || Unset { key: Key::Agent },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Unset {
    fn run(self, store: &Store) -> Result<()> {
        let mut found = false;
        write(store, |text| {
            let (text, was) = edit::unset(text, self.key);
            found = was;
            text
        })?;
        if found { Ok(()) } else { Err(Error::Silent(crate::error::EXIT_NOT_FOUND)) }
    }
}

/// `config list`.
pub(crate) struct List;

const LIST: Spec<List> = Spec {
    path: "config list",
    alias: None,
    summary: "every value, and where it came from",
    about: "\
Every setting with the value a chat would use and where it came from:
config.toml, the environment, or a default.",
    man: man(r#"
every value hermes uses, one
.IB key " = " \(dqvalue\(dq
line each, and after
.B #
where it came from:
.BR config.toml ,
.BI "environment: " NAME
(as
.B HERMES_AGENT
overrides
.BR agent ,
and
.B HERMES_MODEL
(then, for an agent reading
.BR json ,
.BR OPENAI_MODEL )
and
.B OPENAI_BASE_URL
stand in for
.B model
and
.BR base_url ),
or a default.
No key is ever shown: only where it comes from.
"#),
    options: &[],
    args: &[],
    start: || List,
    finish: Ok,
    stray: None,
};

impl Run<Store> for List {
    fn run(self, store: &Store) -> Result<()> {
        let settings = agent::resolve_settings(store, Vec::new())?;
        let rows: Vec<(String, String)> = settings
            .all()
            .filter_map(|(key, found)| {
                let (value, origin) = found?;
                Some((edit::assignment(key, value), origin.describe()))
            })
            .collect();
        let width = rows.iter().map(|(left, _)| crate::text::columns_of(left)).max().unwrap_or(0);
        let mut text = String::new();
        for (left, origin) in rows {
            let pad = " ".repeat(width - crate::text::columns_of(&left));
            text.push_str(&format!("{left}{pad}  # {origin}\n"));
        }
        // The named servers as config.toml holds them.
        for server in settings.servers() {
            text.push_str(&format!("\n[servers.{}]\n", server.name));
            for (key, value) in &server.values {
                text.push_str(&format!("{}\n", edit::assignment(*key, value)));
            }
        }
        print(&text)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

/// `config path`.
pub(crate) struct PathOf;

const PATH: Spec<PathOf> = Spec {
    path: "config path",
    alias: None,
    summary: "print where config.toml is",
    about: "",
    man: man(r#"
print where
.B config.toml
is (it need not exist).
"#),
    options: &[],
    args: &[],
    start: || PathOf,
    finish: Ok,
    stray: None,
};

impl Run<Store> for PathOf {
    fn run(self, store: &Store) -> Result<()> {
        print(&format!("{}\n", store.config_path().display()))
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

/// `config check [--timeout SECONDS]`.
pub(crate) struct Check {
    timeout: Duration,
}

/// How long `check` waits for an answer unless `--timeout` says otherwise.
const CHECK_SECONDS: u64 = 30;

const CHECK: Spec<Check> = Spec {
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

/// A value for scripts: byte for byte into a pipe, through the gate on a
/// terminal.
fn print(text: &str) -> Result<()> {
    let mut out = Out::new();
    out.data(text)?;
    out.flush()
}

/// The key of config.toml named `key`; else a usage error naming the keys.
fn known_key(key: &str) -> Result<Key> {
    if let Some(key) = Key::parse(key) {
        return Ok(key);
    }
    if matches!(key, "api_key" | "key" | "openai_api_key") {
        return Err(Error::usage(
            "hermes keeps no key in config.toml: set api_key_env (the environment variable that holds it) or \
                api_key_command (a command that prints it)",
        ));
    }
    Err(Error::usage(format!(
        "unknown config key '{key}'{} (keys: {})",
        crate::text::nearest(key, settings::keys())
            .map(|n| format!("; did you mean '{n}'?"))
            .unwrap_or_default(),
        settings::keys().collect::<Vec<_>>().join(", ")
    )))
}

/// Rewrite config.toml with `change`, atomically, once the home is safe
/// and the file as it stands reads without error, under config.toml's
/// lock (read, change and write: two at once lose no key). A config.toml
/// that is a link is written where it points (dotfile managers make such
/// links). One over the size limit (made by hand) is read whole, to be
/// mended, and said so; nothing over it is ever written.
fn write(store: &Store, change: impl FnOnce(&str) -> String) -> Result<()> {
    store.verify()?;
    let _lock = store.lock_config()?;
    let text = settings::file::read_text(store, settings::file::MEND_CONFIG_BYTES)?;
    if text.as_ref().is_some_and(|t| t.len() as u64 > settings::file::MAX_CONFIG_BYTES) {
        crate::output::notice(&format!(
            "{} is larger than the {} KiB a config file may be (every other command refuses it): read whole, \
                to mend it",
            store.config_path().display(),
            settings::file::MAX_CONFIG_BYTES >> 10
        ));
    }
    let path = store.config_path();
    let target = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => path.canonicalize().map_err(|e| Error::io(&path, e))?,
        _ => path,
    };
    if let Some(dir) = target.parent() {
        fsio::ensure_private_dir(dir)?;
    }
    let new = change(text.as_deref().unwrap_or(""));
    // A mistake in the file is fixed by hand first, unless this change is
    // what fixes it (`config unset base_url` of one with a password).
    settings::file::parse(store, &new)?;
    if text.as_deref() == Some(new.as_str()) {
        return Ok(());
    }
    if new.len() as u64 > settings::file::MAX_CONFIG_BYTES {
        return Err(edit::too_large(&new, settings::file::MAX_CONFIG_BYTES));
    }
    fsio::write_atomic(&target, new.as_bytes())
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
fn reply_in_a_line(reply: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(words: &[&str]) -> String {
        let spec = VERBS.iter().find(|v| v.name() == words[0]).unwrap();
        match spec.read(
            &mut lexopt::Parser::from_args(words[1..].iter().copied()),
            &mut crate::args::Common::none(&mut |_, _| Ok(())),
        ) {
            Err(Error::Usage(why)) => why,
            Err(e) => panic!("{words:?}: {e:?}"),
            Ok(_) => panic!("{words:?}: accepted"),
        }
    }

    #[test]
    fn the_test_reply_is_one_line_of_words_without_fences_cut_at_a_word() {
        assert_eq!(reply_in_a_line("Hello from the fake server"), "Hello from the fake server");
        assert_eq!(reply_in_a_line("```\nok\n```\n"), "ok");
        let fenced = "```text\nHello! I am here, ready to answer whatever you ask of me today.\n```";
        assert_eq!(reply_in_a_line(fenced), "Hello! I am here, ready to answer whatever you ask of me…");
        assert_eq!(reply_in_a_line("two\n\nlines"), "two lines");
    }

    #[test]
    fn a_refused_value_is_never_repeated() {
        let why = usage(&["set", "api_key", "sk-secret"]);
        assert!(!why.contains("sk-secret") && why.contains("api_key_command"), "{why}");
        let why = usage(&["set", "api_key_env", "sk-secret=1"]);
        assert!(!why.contains("sk-secret"), "{why}");
    }

    #[test]
    fn verbs_refuse_what_they_do_not_take() {
        for bad in [
            &["set", "model"][..],
            &["get"],
            &["set", "modle", "x"],
            &["list", "x"],
            &["check", "--timeout", "0"],
        ] {
            usage(bad);
        }
    }
}
