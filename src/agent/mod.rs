//! The agent: the external command that writes replies. `reply` runs it
//! (`process`), feeds it the conversation straight from the session file,
//! reads its output through the decoder (`decode`) while showing it, and
//! gives the verdict.

mod answer;
pub(crate) mod compact;
pub(crate) mod curl;
pub mod decode;
pub(crate) mod models;
mod parts;
pub(crate) mod probe;
pub(crate) mod process;
pub(crate) mod role;
pub(crate) mod schema;
mod servers;
pub(crate) mod shipped;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use nanoserde::SerJson;

use crate::error::{Error, Result, describe_io};
use crate::settings::{self, AgentInput, Settings};
use crate::store::Store;
use crate::store::context::Plan;
use crate::store::format::{Fault, Reader};
use crate::store::session::{Header, Message, ModelOptions, Usage};
use crate::sys;
use answer::Input;
pub(crate) use answer::Started;
use process::{Bounded, Process};

pub(crate) struct Agent {
    pub(crate) command: String,
    pub(crate) input: AgentInput,
    pub(crate) model: Option<String>,
    /// The server's API root (`base_url`), given as `OPENAI_BASE_URL`.
    pub(crate) base_url: Option<String>,
    /// Where the key comes from, asked at every turn.
    pub(crate) key: Option<ApiKey>,
    /// When the agent is the shipped `openai-compatible`: the chat
    /// completions URL hermes posts to itself, with curl (see `curl`).
    pub(crate) server: Option<String>,
    /// Where the file an agent may report a reply's tokens in is made
    /// (`$HERMES_USAGE_FILE`, see `UsageFile`): the profile's directory.
    pub(crate) usage_dir: Option<PathBuf>,
    /// How long a turn waits for the agent's next byte (`timeout`); None:
    /// for ever. Then what arrived is kept, and the turn fails.
    pub(crate) stall: Option<Duration>,
    /// `--schema`: the shape of JSON asked of every reply.
    pub(crate) schema: Option<String>,
    /// The named servers (`[servers.NAME]`), each as this agent talking to
    /// it: `-m NAME:MODEL` is answered by that one (see `servers`).
    pub(crate) servers: Vec<(String, Agent)>,
}

/// The side channel for a reply's token counts, for agents whose output
/// cannot carry them (plain text): `$HERMES_USAGE_FILE` names a file that
/// does not exist yet, in the profile's private directory; an agent that
/// knows the counts writes them there as JSON (`{"prompt_tokens":12,
/// "completion_tokens":34}`, or an object with `usage` as a server sends
/// it), and hermes reads it once the agent has exited, and removes it. A
/// count in the agent's output (an OpenAI stream or object) needs none.
struct UsageFile(PathBuf);

impl UsageFile {
    /// A fresh name in `dir`, shaped like the temporaries prune removes.
    fn new(dir: &Path) -> UsageFile {
        UsageFile(dir.join(format!(".usage.{}{}", crate::fsio::random_hex(12), crate::fsio::TEMP_SUFFIX)))
    }

    /// What the agent reported, if anything; the file is gone after.
    fn take(self) -> Option<Usage> {
        let bytes = crate::fsio::read_limited(&self.0, 64 << 10);
        drop(self);
        decode::usage_reported(&bytes.ok()?)
    }
}

impl Drop for UsageFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Where the API key comes from: it is given to the agent as
/// `OPENAI_API_KEY` in its environment, never on a command line, never
/// written to a file, never in a message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ApiKey {
    /// `api_key_env`: an environment variable of hermes's own.
    Env(String),
    /// `api_key_command`: a command run (under `/bin/sh -c`) for each
    /// turn, as git runs its credential helpers; its first line is the key.
    Command(String),
}

/// How long `api_key_command` may take in a chat (`config check` gives
/// it its `--timeout`): then it is killed, with whatever it started.
pub(crate) const KEY_COMMAND_SECONDS: u64 = 30;

impl ApiKey {
    /// The key now: the variable's value, or what the command printed
    /// within `limit`.
    pub(crate) fn fetch(&self, limit: Duration) -> Result<String> {
        match self {
            ApiKey::Env(name) => std::env::var(name).ok().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
                Error::Agent(format!(
                    "api_key_env names {name}, which is not set in the environment; set it, or change \
                        api_key_env"
                ))
            }),
            ApiKey::Command(command) => {
                let mut shell = Command::new("/bin/sh");
                shell.arg("-c").arg(command).stdin(Stdio::null()).stderr(Stdio::inherit());
                let no_key = "no key, the agent was not run";
                let (status, stdout) = match process::run_bounded(&mut shell, limit, 64 << 10) {
                    Ok(Bounded::Exited(status, stdout)) => (status, stdout),
                    Ok(Bounded::TimedOut) => {
                        return Err(Error::Agent(format!(
                            "api_key_command '{command}' did not finish within its timeout of {} s and was \
                                killed; {no_key}",
                            limit.as_secs()
                        )));
                    }
                    Ok(Bounded::Stopped(signal)) => {
                        return Err(Error::Agent(format!(
                            "api_key_command '{command}' was stopped by {}, probably reading the terminal, \
                                which it cannot use; it was killed; {no_key}",
                            sys::stop_signal_name(signal)
                        )));
                    }
                    Ok(Bounded::Interrupted) => return Err(Error::Interrupted),
                    Err(e) => {
                        return Err(Error::Agent(format!("cannot run api_key_command: {}", describe_io(&e))));
                    }
                };
                if let Some(how) = answer::exit_failure(status) {
                    return Err(Error::Agent(format!("api_key_command '{command}' {how}; {no_key}")));
                }
                // Never quoted: what it printed is a secret, even when wrong.
                let text = String::from_utf8(stdout).map_err(|_| {
                    Error::Agent(format!(
                        "api_key_command '{command}' printed something that is not UTF-8 \
                        text"
                    ))
                })?;
                let key = text.lines().next().unwrap_or("").trim();
                if key.is_empty() {
                    return Err(Error::Agent(format!("api_key_command '{command}' printed no key")));
                }
                Ok(key.to_string())
            }
        }
    }
}

/// Which agent a command asked for.
#[derive(Debug, Default, PartialEq)]
pub(crate) enum Choice {
    /// `--agent CMD`.
    Command(String),
    /// `--no-agent`.
    Disabled,
    /// None said: the environment's, config.toml's.
    #[default]
    Configured,
}

/// The settings a command with an agent works with: config.toml's, what
/// its command line said (`overrides`: key, value, option), and whether a
/// bare agent name is one that comes with hermes and what it reads.
pub(crate) fn resolve_settings(store: &Store, overrides: Vec<settings::Override>) -> Result<Settings> {
    let settings = Settings::resolve(&settings::Sources {
        overrides,
        file: settings::load_file(store)?,
        shipped_input: Some(shipped::input),
        ..Default::default()
    });
    settings.check_environment()?;
    Ok(settings)
}

/// The agent `choice` and the settings name: `--agent`, else
/// `HERMES_AGENT`, else `agent` in config.toml, else openai-compatible when
/// config.toml names a server (`base_url`); none with `--no-agent`.
pub(crate) fn choose(settings: &Settings, choice: &Choice) -> Result<Option<Agent>> {
    if *choice == Choice::Disabled {
        return Ok(None);
    }
    Agent::from_settings(settings)
}

/// `--agent CMD` as a setting's override, for `settings`.
pub(crate) fn choice_override(choice: &Choice) -> Option<settings::Override> {
    match choice {
        Choice::Command(command) => Some((
            settings::Key::Agent,
            command.clone(),
            settings::Origin::CommandLine("--agent".to_string()),
        )),
        _ => None,
    }
}

/// What came back: the reply text, and whether the user interrupted it.
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) interrupted: bool,
    /// Why the reply is not whole (the connection was cut, the agent went
    /// silent, failed or sent an error): `text` is what had arrived, to
    /// be kept marked incomplete, and the turn fails.
    pub(crate) failed: Option<Error>,
    /// stdout failed (other than a closed pipe) while the reply was shown:
    /// the reply is still whole and worth saving; the caller reports this.
    pub(crate) output_error: Option<io::Error>,
    /// The tokens the server counted, when the agent said.
    pub(crate) usage: Option<Usage>,
    /// hermes's own request, still ending after the server said the reply
    /// was whole: waited for (briefly) when the reply is dropped, so that
    /// saving it does not wait on curl's exit.
    pub(crate) ending: Option<Ending>,
}

/// The agent of a reply already whole, let end by itself when dropped (for
/// at most `process::AFTER_EXIT`), then stopped.
pub(crate) struct Ending(Process);

impl Drop for Ending {
    fn drop(&mut self) {
        self.0.finish_within(process::AFTER_EXIT);
    }
}

/// What a request says besides the conversation: the model it names
/// (a named server's prefix taken off), and its other members (the model
/// options, `response_format`) as JSON, each after a comma.
#[derive(Debug, Default)]
pub(crate) struct Ask {
    pub(crate) model: Option<String>,
    pub(crate) members: String,
    /// The model options as `KEY=VALUE` lines, for `$HERMES_OPTIONS`.
    pub(crate) options: String,
    /// `--schema`, for `$HERMES_SCHEMA`.
    pub(crate) schema: Option<String>,
}

impl Ask {
    /// The request for `model` with `options`, and `schema` if given.
    pub(crate) fn new(model: Option<String>, options: Option<&ModelOptions>, schema: Option<&str>) -> Ask {
        let mut members = String::new();
        for (key, value) in options.map(ModelOptions::pairs).unwrap_or_default() {
            members.push_str(&format!(",\"{key}\":{value}"));
        }
        if let Some(schema) = schema {
            members.push_str(&schema::request_members(schema));
        }
        let options = options.map(ModelOptions::lines).unwrap_or_default();
        Ask { model, members, options, schema: schema.map(str::to_string) }
    }
}

/// Write what the agent reads on stdin, reading the conversation one
/// message at a time from the session file: a long session is never held
/// in memory whole. Only the messages `plan` chooses go (see
/// `store::context`); what it left out or summarised is said in a system
/// note before the first message that is not a system prompt. A
/// message's images are read from `images` (see `parts`).
pub(crate) fn write_input(
    format: AgentInput,
    ask: &Ask,
    images: Option<&Path>,
    mut conversation: Reader<impl Read>,
    plan: &Plan,
    to: &mut dyn Write,
) -> Result<(), Fault> {
    let mut note = plan.note();
    let mut at = 0u64;
    match format {
        AgentInput::Json => {
            // `{"model":"...","stream":true,"stream_options":{"include_usage":true},
            // "messages":[{"role":...,"content":...},...]}`: streaming is
            // always asked for, as hermes shows a streamed reply as it
            // arrives, with the tokens counted in a last event (recorded
            // with the reply), and an agent can hand the body to the
            // server untouched.
            to.write_all(b"{\"model\":")?;
            to.write_all(ask.model.as_deref().unwrap_or("").to_string().serialize_json().as_bytes())?;
            to.write_all(ask.members.as_bytes())?;
            to.write_all(b",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":[")?;
            let mut first = true;
            let mut one =
                |to: &mut dyn Write, role: &[u8], content: &dyn Fn(&mut dyn Write) -> io::Result<()>| {
                    let comma: &[u8] = if first { b"" } else { b"," };
                    first = false;
                    [comma, b"{\"role\":\"", role, b"\",\"content\":"]
                        .iter()
                        .try_for_each(|piece| to.write_all(piece))?;
                    content(to)?;
                    to.write_all(b"}")
                };
            while let Some(m) = conversation.next_json()? {
                at += 1;
                // A reply /retry replaced is kept in the file, never sent.
                if !plan.sends(at - 1) || m.replaced {
                    continue;
                }
                if (m.role != "system" || m.summary)
                    && let Some(text) = note.take()
                {
                    one(to, b"system", &|to| to.write_all(text.serialize_json().as_bytes()))?;
                }
                one(to, m.role.as_bytes(), &|to| parts::write_content(to, &m.content, &m.images, images))?;
            }
            to.write_all(b"]}\n")?;
        }
        AgentInput::Transcript => {
            while let Some(m) = conversation.next_message()? {
                at += 1;
                if !plan.sends(at - 1) || m.is_replaced() {
                    continue;
                }
                if (m.role != "system" || m.is_summary())
                    && let Some(text) = note.take()
                {
                    for piece in [b"system: ", text.as_bytes(), b"\n\n"] {
                        to.write_all(piece)?;
                    }
                }
                for piece in [m.role.as_bytes(), b": ", m.content.as_bytes(), b"\n"] {
                    to.write_all(piece)?;
                }
                parts::write_lines(to, m.images(), images)?;
                to.write_all(b"\n")?;
            }
        }
        AgentInput::Text => {
            let mut last = None;
            while let Some(m) = conversation.next_message()? {
                if m.role == "user" {
                    last = Some(m);
                }
            }
            let last = last.unwrap_or_else(|| Message::new("user", String::new(), 0.0));
            to.write_all(last.content.as_bytes())?;
            to.write_all(b"\n")?;
            parts::write_lines(to, last.images(), images)?;
        }
    }
    to.flush()?;
    Ok(())
}

/// Whether a command is one word with nothing a shell would read in it
/// (no blanks, quotes, `$`, `~`, `=`, globs or operators): a program's
/// name or path, which `sh -c` would only look up and run.
fn is_one_word(command: &str) -> bool {
    !command.is_empty() && command.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%".contains(&b))
}

impl Agent {
    /// The agent the settings name, found as `shipped::resolve` finds it
    /// (None when they name none), with its input, the model, the server
    /// and where the key comes from (`api_key_command` first).
    pub(crate) fn from_settings(settings: &Settings) -> Result<Option<Agent>> {
        let Some(command) = settings.agent() else { return Ok(None) };
        let key =
            match (settings.value(settings::Key::ApiKeyCommand), settings.value(settings::Key::ApiKeyEnv)) {
                (Some(command), _) => Some(ApiKey::Command(command.to_string())),
                (None, Some(name)) => Some(ApiKey::Env(name.to_string())),
                (None, None) => None,
            };
        // The server's default is the agent's own, not given to it.
        let base_url = match settings.get(settings::Key::BaseUrl) {
            Some((url, origin)) if !matches!(origin, settings::Origin::Default(_)) => Some(url.to_string()),
            _ => None,
        };
        let command = shipped::resolve(command)?;
        let input = settings.agent_input();
        // The shipped agent's turn, done without its shell.
        let server = (input == AgentInput::Json && curl::is_shipped(&command)).then(|| {
            curl::url_of(settings.value(settings::Key::BaseUrl).unwrap_or(settings::DEFAULT_SERVER))
        });
        let agent = Agent {
            command,
            input,
            model: settings.model().map(str::to_string),
            base_url,
            key,
            server,
            usage_dir: None,
            stall: settings.stall_limit(),
            schema: None,
            servers: Vec::new(),
        };
        Ok(Some(agent.with_servers(settings.servers())))
    }

    /// `program` set up as the agent: the session in its environment, its
    /// stdin and stdout hermes's pipes.
    fn command(
        &self,
        header: &Header,
        (key, ask): (Option<&str>, &Ask),
        usage: Option<&UsageFile>,
        mut program: Command,
    ) -> Command {
        if let Some(usage) = usage {
            program.env("HERMES_USAGE_FILE", &usage.0);
        }
        if let Some(url) = &self.base_url {
            program.env("OPENAI_BASE_URL", url);
        }
        if let Some(key) = key {
            program.env("OPENAI_API_KEY", key);
        }
        // The shipped scripts give it to curl's --connect-timeout.
        program.env("HERMES_TIMEOUT", self.stall.map_or(0, |s| s.as_secs()).to_string());
        program
            .env("HERMES_SESSION_ID", &header.id)
            .env("HERMES_SESSION_TITLE", &header.title)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(process::stderr_for());
        // The session's model (`-m`, `/model`, recorded), else the default.
        if let Some(model) = &ask.model {
            program.env("HERMES_MODEL", model);
        }
        // An agent that reads text learns the model options and the
        // schema here (one reading JSON has them in the request too).
        if !ask.options.is_empty() {
            program.env("HERMES_OPTIONS", &ask.options);
        }
        if let Some(schema) = &ask.schema {
            program.env("HERMES_SCHEMA", schema);
        }
        program
    }

    /// Run the agent on the conversation, writing the reply to `out` as it
    /// arrives. SIGINT/SIGTERM stop the agent (its whole process group) and
    /// return what had arrived, marked interrupted; an agent that does not
    /// stop within the grace period, or a second signal, gets SIGKILL. Once
    /// the agent has exited, output is read for a moment more, then what it
    /// left running is killed and the reply is complete.
    pub(crate) fn reply<R: Read + Send + 'static>(
        &self,
        header: &Header,
        conversation: Reader<R>,
        plan: Plan,
        out: &mut dyn Write,
    ) -> Result<Reply> {
        let reply = self.start(header)?.answer(conversation, plan, out, || {})?;
        match reply.failed {
            Some(e) => Err(e),
            None => Ok(reply),
        }
    }

    /// Whether `start` returns at once: not when api_key_command runs first
    /// (for up to `KEY_COMMAND_SECONDS`).
    pub(crate) fn starts_at_once(&self) -> bool {
        !matches!(self.key, Some(ApiKey::Command(_)))
    }

    /// Start the agent for the session `header` names, before its input is
    /// ready: it gets none until `Started::answer`, and nothing at all if
    /// the `Started` is dropped (then it is killed first).
    pub(crate) fn start(&self, header: &Header) -> Result<Started<'_>> {
        // The session's model (`-m`, `/model`, recorded), else the default,
        // answered by the server it names, if it names one.
        let (agent, model) = self.route(header.model.as_deref().or(self.model.as_deref()));
        let ask = Ask::new(model, header.options.as_ref(), self.schema.as_deref());
        agent.start_asking(header, ask)
    }

    fn start_asking(&self, header: &Header, ask: Ask) -> Result<Started<'_>> {
        let key = self.key_for_turn()?;
        let key = key.as_deref();
        if let Some(url) = &self.server {
            return self.start_curl(ask, url, key);
        }
        let usage = self.usage_dir.as_deref().map(UsageFile::new);
        // A command of one plain word is what `sh -c` would run, started
        // without the shell in between; if it cannot be started so (not
        // found, no #! line), the shell runs it and says why as it would.
        let direct = is_one_word(&self.command)
            .then(|| {
                Process::spawn(&mut self.command(
                    header,
                    (key, &ask),
                    usage.as_ref(),
                    Command::new(&self.command),
                ))
                .ok()
            })
            .flatten();
        let spawned = match direct {
            Some(spawned) => Ok(spawned),
            None => {
                let mut shell = Command::new("/bin/sh");
                shell.arg("-c").arg(&self.command);
                Process::spawn(&mut self.command(header, (key, &ask), usage.as_ref(), shell))
            }
        };
        let (process, stdin, stdout) = spawned
            .map_err(|e| Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e))))?;
        Ok(Started {
            agent: self,
            process: Some(process),
            stdin: Some(Input::Pipe(stdin)),
            stdout: Some(stdout),
            ask,
            usage,
        })
    }

    /// Whether the agent reads nothing of the session but its input: hermes's
    /// own request (curl), which may then start before the message is
    /// saved, with `start_request` (it gets its input only after).
    pub(crate) fn reads_input_only(&self) -> bool {
        self.server.is_some() && self.starts_at_once()
    }

    /// `start` for an agent that `reads_input_only`, its request naming
    /// `model`: the curl started `early` (see `prestart`), if there is
    /// one, else a curl started now.
    pub(crate) fn start_request(
        &self,
        (model, options): (Option<&str>, Option<&ModelOptions>),
        early: Option<Prestarted>,
    ) -> Result<Started<'_>> {
        let (agent, model) = self.route(model);
        let ask = Ask::new(model, options, self.schema.as_deref());
        let url = agent.server.as_deref().expect("reads_input_only");
        // Started early for another server: killed unheard.
        if let Some(parts) = early.and_then(|early| early.take_for(url)) {
            return Ok(agent.curl_started(parts, ask));
        }
        let key = agent.key_for_turn()?;
        agent.start_curl(ask, url, key.as_deref())
    }

    /// The configured key (if any) for a turn: the variable's value, or
    /// what api_key_command printed within `KEY_COMMAND_SECONDS`.
    fn key_for_turn(&self) -> Result<Option<String>> {
        self.key.as_ref().map(|k| k.fetch(Duration::from_secs(KEY_COMMAND_SECONDS))).transpose()
    }

    /// hermes's own request (curl) started before hermes knows the session,
    /// for an agent that `reads_input_only`: the loader's work for curl
    /// (some 4 ms) then overlaps the lookup as well as the save. None where
    /// it cannot be started so; `start_request` then starts it, and says
    /// why it cannot.
    pub(crate) fn prestart(&self) -> Option<Prestarted> {
        // To the server the chosen model names, if it names one.
        let (agent, _) = self.route(self.model.as_deref());
        if !self.reads_input_only() || !agent.reads_input_only() {
            return None;
        }
        let url = agent.server.as_deref()?;
        let key = agent.key_for_turn().ok()?;
        let parts = spawn_curl(url, key.as_deref(), self.stall).ok()?;
        Some(Prestarted(Some(parts), url.to_string()))
    }

    /// `start` for the shipped `openai-compatible`: curl itself, posting
    /// to `url` (see `curl`), with the key the script would send: the one
    /// configured, else `$OPENAI_API_KEY`.
    fn start_curl(&self, ask: Ask, url: &str, key: Option<&str>) -> Result<Started<'_>> {
        let parts = spawn_curl(url, key, self.stall).map_err(|e| match e {
            CurlNotStarted::Command(e) => {
                Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e)))
            }
            CurlNotStarted::Spawn(e) => Error::Agent(curl::not_started(&e)),
        })?;
        Ok(self.curl_started(parts, ask))
    }

    fn curl_started(&self, (process, stdin, stdout): CurlParts, ask: Ask) -> Started<'_> {
        Started {
            agent: self,
            process: Some(process),
            stdin: Some(Input::Request(stdin)),
            stdout: Some(stdout),
            ask,
            usage: None,
        }
    }
}

/// curl, and the ends of its stdin and stdout.
type CurlParts = (Process, curl::Request, std::process::ChildStdout);

/// Why curl was not started: its command line could not be made (a key
/// with a line break), or it could not be run.
enum CurlNotStarted {
    Command(io::Error),
    Spawn(io::Error),
}

/// curl started to post to `url` (see `curl`) with the key the script
/// would send: the one configured, else `$OPENAI_API_KEY`.
fn spawn_curl(
    url: &str,
    key: Option<&str>,
    connect: Option<Duration>,
) -> std::result::Result<CurlParts, CurlNotStarted> {
    let from_env = std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.is_empty());
    let (mut curl, key_pipe) =
        curl::command(url, key.or(from_env.as_deref()), connect).map_err(CurlNotStarted::Command)?;
    let (request, for_curl) = curl::Request::pair().map_err(CurlNotStarted::Spawn)?;
    let spawned = Process::spawn_keeping_stderr(curl.stdin(for_curl).stdout(Stdio::piped()));
    // curl has its own copies of the key's pipe and of its stdin, or
    // never will.
    drop(key_pipe);
    drop(curl);
    let (process, stdout) = spawned.map_err(CurlNotStarted::Spawn)?;
    Ok((process, request, stdout))
}

/// curl started before its turn is known (`Agent::prestart`), waiting for
/// its request on stdin: killed, before its stdin closes, if no turn takes
/// it (a wrong name, a model refused), so that it never posts an empty one.
pub(crate) struct Prestarted(Option<CurlParts>, String);

impl Prestarted {
    /// The curl, if it was started for `url`; else it is killed unheard.
    fn take_for(mut self, url: &str) -> Option<CurlParts> {
        if self.1 != url {
            return None;
        }
        self.0.take()
    }
}

impl Drop for Prestarted {
    fn drop(&mut self) {
        if let Some((process, _, _)) = &mut self.0 {
            process.abandon();
        }
    }
}
