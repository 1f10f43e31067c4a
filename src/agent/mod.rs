//! The agent: the external command that writes replies. `reply` runs it
//! (`process`), feeds it the conversation straight from the session file,
//! reads its output through the decoder (`decode`) while showing it, and
//! gives the verdict.

pub(crate) mod compact;
pub(crate) mod curl;
pub mod decode;
pub(crate) mod models;
pub(crate) mod probe;
pub(crate) mod process;
pub(crate) mod role;
pub(crate) mod shipped;

use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use nanoserde::SerJson;

use crate::error::{Error, Result, describe_io};
use crate::settings::{self, AgentInput, Settings};
use crate::store::Store;
use crate::store::context::Plan;
use crate::store::format::{Fault, Reader};
use crate::store::session::{Header, MAX_MESSAGE_BYTES, Message, Usage};
use crate::sys;
use decode::{Decoder, TooLarge};
use process::{Bounded, Process};

pub(crate) struct Agent {
    pub(crate) command: String,
    pub(crate) input: AgentInput,
    pub(crate) model: Option<String>,
    /// The server's API root (`base_url`), given as `OPENAI_BASE_URL`.
    pub(crate) base_url: Option<String>,
    /// Where the key comes from, asked at every turn.
    pub(crate) key: Option<Key>,
    /// When the agent is the shipped `openai-compatible`: the chat
    /// completions URL hermes posts to itself, with curl (see `curl`).
    pub(crate) server: Option<String>,
    /// Where the file an agent may report a reply's tokens in is made
    /// (`$HERMES_USAGE_FILE`, see `UsageFile`): the profile's directory.
    pub(crate) usage_dir: Option<PathBuf>,
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
pub(crate) enum Key {
    /// `api_key_env`: an environment variable of hermes's own.
    Env(String),
    /// `api_key_command`: a command run (under `/bin/sh -c`) for each
    /// turn, as git runs its credential helpers; its first line is the key.
    Command(String),
}

/// How long `api_key_command` may take in a chat (`config check` gives
/// it its `--timeout`): then it is killed, with whatever it started.
pub(crate) const KEY_COMMAND_SECONDS: u64 = 30;

impl Key {
    /// The key now: the variable's value, or what the command printed
    /// within `limit`.
    pub(crate) fn fetch(&self, limit: Duration) -> Result<String> {
        match self {
            Key::Env(name) => std::env::var(name).ok().filter(|k| !k.trim().is_empty()).ok_or_else(|| {
                Error::Agent(format!(
                    "api_key_env names {name}, which is not set in the environment; set it, or change api_key_env"
                ))
            }),
            Key::Command(command) => {
                let mut shell = Command::new("/bin/sh");
                shell.arg("-c").arg(command).stdin(Stdio::null()).stderr(Stdio::inherit());
                let no_key = "no key, the agent was not run";
                let (status, stdout) = match process::run_bounded(&mut shell, limit, 64 << 10) {
                    Ok(Bounded::Exited(status, stdout)) => (status, stdout),
                    Ok(Bounded::TimedOut) => {
                        return Err(Error::Agent(format!(
                            "api_key_command '{command}' did not finish within its timeout of {} s and was killed; {no_key}",
                            limit.as_secs()
                        )));
                    }
                    Ok(Bounded::Stopped(signal)) => {
                        return Err(Error::Agent(format!(
                            "api_key_command '{command}' was stopped by {}, probably reading the terminal, which it cannot use; it was killed; {no_key}",
                            sys::stop_signal_name(signal)
                        )));
                    }
                    Ok(Bounded::Interrupted) => return Err(Error::Interrupted),
                    Err(e) => {
                        return Err(Error::Agent(format!("cannot run api_key_command: {}", describe_io(&e))));
                    }
                };
                if !status.success() {
                    let how = match (status.code(), status.signal()) {
                        (Some(code), _) => format!("exited with status {code}"),
                        (None, Some(sig)) => format!("was killed by signal {sig}"),
                        _ => "failed".to_string(),
                    };
                    return Err(Error::Agent(format!("api_key_command '{command}' {how}; {no_key}")));
                }
                // Never quoted: what it printed is a secret, even when wrong.
                let text = String::from_utf8(stdout).map_err(|_| {
                    Error::Agent(format!("api_key_command '{command}' printed something that is not UTF-8 text"))
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
/// its command line said (`flags`: key, value, option), and whether a
/// bare agent name is one that comes with hermes and what it reads.
pub(crate) fn resolve_settings(
    store: &Store,
    flags: Vec<(&'static str, String, String)>,
) -> Result<Settings> {
    let settings = Settings::resolve(&settings::Sources {
        flags,
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

/// `--agent CMD` as a setting's flag, for `settings`.
pub(crate) fn choice_flag(choice: &Choice) -> Option<(&'static str, String, String)> {
    match choice {
        Choice::Command(command) => Some(("agent", command.clone(), "--agent".to_string())),
        _ => None,
    }
}

/// What came back: the reply text, and whether the user interrupted it.
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) interrupted: bool,
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

/// Write what the agent reads on stdin, reading the conversation one
/// message at a time from the session file: a long session is never held
/// in memory whole. Only the messages `plan` chooses go (see
/// `store::context`); what it left out or summarised is said in a system
/// note before the first message that is not a system prompt.
pub(crate) fn write_input(
    format: AgentInput,
    model: Option<&str>,
    mut conversation: Reader<impl Read>,
    plan: &Plan,
    to: &mut impl Write,
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
            to.write_all(model.unwrap_or("").to_string().serialize_json().as_bytes())?;
            to.write_all(b",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":[")?;
            let mut first = true;
            let mut one = |to: &mut dyn Write, role: &[u8], content: &[u8]| {
                let comma: &[u8] = if first { b"" } else { b"," };
                first = false;
                [comma, b"{\"role\":\"", role, b"\",\"content\":", content, b"}"]
                    .iter()
                    .try_for_each(|piece| to.write_all(piece))
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
                    one(to, b"system", text.serialize_json().as_bytes())?;
                }
                one(to, m.role.as_bytes(), &m.content)?;
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
                for piece in [m.role.as_bytes(), b": ", m.content.as_bytes(), b"\n\n"] {
                    to.write_all(piece)?;
                }
            }
        }
        AgentInput::Text => {
            let mut last = None;
            while let Some(m) = conversation.next_message()? {
                if m.role == "user" {
                    last = Some(m);
                }
            }
            let text = last.map(|m: Message| m.content).unwrap_or_default();
            to.write_all(text.as_bytes())?;
            to.write_all(b"\n")?;
        }
    }
    to.flush()?;
    Ok(())
}

/// What reading the agent's output came to, before the verdict.
struct Output {
    decoder: Decoder,
    too_large: bool,
    interrupted: bool,
    write_failed: Option<io::Error>,
}

/// How output is read, a piece at a time.
const READ_BYTES: usize = 8192;

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
        let key = match (settings.value("api_key_command"), settings.value("api_key_env")) {
            (Some(command), _) => Some(Key::Command(command.to_string())),
            (None, Some(name)) => Some(Key::Env(name.to_string())),
            (None, None) => None,
        };
        // The server's default is the agent's own, not given to it.
        let base_url = match settings.get("base_url") {
            Some((url, origin)) if !matches!(origin, settings::Origin::Default(_)) => Some(url.to_string()),
            _ => None,
        };
        let command = shipped::resolve(command)?;
        let input = settings.agent_input();
        // The shipped agent's turn, done without its shell.
        let server = (input == AgentInput::Json && curl::is_shipped(&command))
            .then(|| curl::url_of(settings.value("base_url").unwrap_or(settings::DEFAULT_SERVER)));
        Ok(Some(Agent {
            command,
            input,
            model: settings.model().map(str::to_string),
            base_url,
            key,
            server,
            usage_dir: None,
        }))
    }

    /// `program` set up as the agent: the session in its environment, its
    /// stdin and stdout hermes's pipes.
    fn command(
        &self,
        header: &Header,
        key: Option<&str>,
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
        program
            .env("HERMES_SESSION_ID", &header.id)
            .env("HERMES_SESSION_TITLE", &header.title)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(process::stderr_for());
        // The session's model (`-m`, `/model`, recorded), else the default.
        if let Some(model) = header.model.as_ref().or(self.model.as_ref()) {
            program.env("HERMES_MODEL", model);
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
        self.start(header)?.answer(conversation, plan, out, || {})
    }

    /// Whether `start` returns at once: not when api_key_command runs first
    /// (for up to `KEY_COMMAND_SECONDS`).
    pub(crate) fn starts_at_once(&self) -> bool {
        !matches!(self.key, Some(Key::Command(_)))
    }

    /// Start the agent for the session `header` names, before its input is
    /// ready: it gets none until `Started::answer`, and nothing at all if
    /// the `Started` is dropped (then it is killed first).
    pub(crate) fn start(&self, header: &Header) -> Result<Started<'_>> {
        let key = self.key_for_turn()?;
        let key = key.as_deref();
        if let Some(url) = &self.server {
            let model = header.model.clone().or_else(|| self.model.clone());
            return self.start_curl(model, url, key);
        }
        let usage = self.usage_dir.as_deref().map(UsageFile::new);
        // A command of one plain word is what `sh -c` would run, started
        // without the shell in between; if it cannot be started so (not
        // found, no #! line), the shell runs it and says why as it would.
        let direct = is_one_word(&self.command)
            .then(|| {
                Process::spawn(&mut self.command(header, key, usage.as_ref(), Command::new(&self.command)))
                    .ok()
            })
            .flatten();
        let spawned = match direct {
            Some(spawned) => Ok(spawned),
            None => {
                let mut shell = Command::new("/bin/sh");
                shell.arg("-c").arg(&self.command);
                Process::spawn(&mut self.command(header, key, usage.as_ref(), shell))
            }
        };
        let (process, stdin, stdout) = spawned
            .map_err(|e| Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e))))?;
        // The session's model (`-m`, `/model`, recorded), else the default.
        let model = header.model.clone().or_else(|| self.model.clone());
        Ok(Started {
            agent: self,
            process: Some(process),
            stdin: Some(stdin),
            stdout: Some(stdout),
            model,
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
        model: Option<String>,
        early: Option<Prestarted>,
    ) -> Result<Started<'_>> {
        if let Some(parts) = early.and_then(|mut early| early.0.take()) {
            return Ok(self.curl_started(parts, model));
        }
        let url = self.server.as_deref().expect("reads_input_only");
        let key = self.key_for_turn()?;
        self.start_curl(model, url, key.as_deref())
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
        if !self.reads_input_only() {
            return None;
        }
        let url = self.server.as_deref()?;
        let key = self.key_for_turn().ok()?;
        spawn_curl(url, key.as_deref()).ok().map(|parts| Prestarted(Some(parts)))
    }

    /// `start` for the shipped `openai-compatible`: curl itself, posting
    /// to `url` (see `curl`), with the key the script would send: the one
    /// configured, else `$OPENAI_API_KEY`.
    fn start_curl(&self, model: Option<String>, url: &str, key: Option<&str>) -> Result<Started<'_>> {
        let parts = spawn_curl(url, key).map_err(|e| match e {
            CurlNotStarted::Command(e) => {
                Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e)))
            }
            CurlNotStarted::Spawn(e) => {
                let status = curl::not_started(&e);
                Error::Agent(format!("agent '{}' exited with status {status}", self.command))
            }
        })?;
        Ok(self.curl_started(parts, model))
    }

    fn curl_started(&self, (process, stdin, stdout): CurlParts, model: Option<String>) -> Started<'_> {
        Started {
            agent: self,
            process: Some(process),
            stdin: Some(stdin),
            stdout: Some(stdout),
            model,
            usage: None,
        }
    }
}

/// curl, and the ends of its stdin and stdout.
type CurlParts = (Process, std::process::ChildStdin, std::process::ChildStdout);

/// Why curl was not started: its command line could not be made (a key
/// with a line break), or it could not be run.
enum CurlNotStarted {
    Command(io::Error),
    Spawn(io::Error),
}

/// curl started to post to `url` (see `curl`) with the key the script
/// would send: the one configured, else `$OPENAI_API_KEY`.
fn spawn_curl(url: &str, key: Option<&str>) -> std::result::Result<CurlParts, CurlNotStarted> {
    let from_env = std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.is_empty());
    let (mut curl, key_pipe) =
        curl::command(url, key.or(from_env.as_deref())).map_err(CurlNotStarted::Command)?;
    let spawned = Process::spawn_keeping_stderr(curl.stdin(Stdio::piped()).stdout(Stdio::piped()));
    // curl has its own copy of the key's pipe, or never will.
    drop(key_pipe);
    spawned.map_err(CurlNotStarted::Spawn)
}

/// curl started before its turn is known (`Agent::prestart`), waiting for
/// its request on stdin: killed, before its stdin closes, if no turn takes
/// it (a wrong name, a model refused), so that it never posts an empty one.
pub(crate) struct Prestarted(Option<CurlParts>);

impl Drop for Prestarted {
    fn drop(&mut self) {
        if let Some((process, _, _)) = &mut self.0 {
            process.abandon();
        }
    }
}

/// An agent started and waiting for its input (see `Agent::start`).
pub(crate) struct Started<'a> {
    agent: &'a Agent,
    /// Taken only by an answer that leaves it ending (`Reply::ending`).
    process: Option<Process>,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<std::process::ChildStdout>,
    /// The model the request names.
    model: Option<String>,
    /// Where the agent may report its reply's tokens.
    usage: Option<UsageFile>,
}

impl Started<'_> {
    /// Give the agent the conversation and take its reply (see
    /// `Agent::reply`). `fed` runs once the input is on its way: what can
    /// wait until the agent is at work.
    pub(crate) fn answer<R: Read + Send + 'static>(
        mut self,
        conversation: Reader<R>,
        plan: Plan,
        out: &mut dyn Write,
        fed: impl FnOnce(),
    ) -> Result<Reply> {
        let agent = self.agent;
        let (Some(stdin), Some(stdout), Some(mut process)) =
            (self.stdin.take(), self.stdout.take(), self.process.take())
        else {
            unreachable!("taken only here");
        };
        // Feed input from a thread so a large conversation cannot deadlock
        // against an agent that writes before it has read everything. It is
        // not waited for: it ends by itself once nothing holds the agent's
        // stdin open (an agent may ignore its stdin).
        let (input, model) = (agent.input, self.model.take());
        let feeder = std::thread::Builder::new().spawn(move || {
            let mut stdin = io::BufWriter::with_capacity(64 << 10, stdin);
            let _ = write_input(input, model.as_deref(), conversation, &plan, &mut stdin);
        });
        if let Err(e) = feeder {
            process.abandon();
            return Err(agent.failure("cannot start a thread to feed", &e));
        }
        fed();
        let output = match agent.read_output(&mut process, stdout, out) {
            Ok(output) => output,
            Err(e) => {
                process.abandon();
                return Err(e);
            }
        };
        // hermes's own request whose stream the server ended (`[DONE]`,
        // after an answer with status 200: an error status has no such
        // stream): the reply is whole, and is saved while curl ends.
        if agent.server.is_some() && output.decoder.is_done() && !output.interrupted && !output.too_large {
            // Made first: a verdict that fails lets curl end the same way.
            let ending = Ending(process);
            let reply = agent.verdict(output, ExitStatus::from_raw(0), out)?;
            return Ok(Reply { ending: Some(ending), ..reply });
        }
        let mut interrupted = output.interrupted;
        let status = match process.wait(&mut interrupted) {
            Ok(status) => status,
            Err(e) => {
                process.abandon();
                return Err(agent.failure("waiting for", &e));
            }
        };
        // A late signal (after EOF) still counts as an interruption.
        if sys::take_signal().is_some() {
            interrupted = true;
        }
        // The shipped agent's words, said as its script would say them;
        // not when hermes itself stopped curl (a reply over the limit).
        let status = match &agent.server {
            Some(url) if !interrupted && !output.too_large => {
                curl::judge(url, status, &process.kept_stderr())
            }
            _ => status,
        };
        if let Some(signal) = process.stopped() {
            return Err(Error::Agent(format!(
                "agent '{}' was stopped by {}, probably reading the terminal, which an agent cannot use; it was killed. An agent reads the conversation on its stdin only",
                agent.command,
                sys::stop_signal_name(signal)
            )));
        }
        let reply = agent.verdict(Output { interrupted, ..output }, status, out)?;
        // What the agent reported besides its output counts over what its
        // output held.
        let reported = self.usage.take().and_then(UsageFile::take);
        Ok(Reply { usage: reported.or(reply.usage), ..reply })
    }
}

impl Drop for Started<'_> {
    /// Never given its input: killed before its stdin closes, so that it
    /// cannot take the end of its input for an empty conversation.
    fn drop(&mut self) {
        if self.stdin.is_some()
            && let Some(process) = &mut self.process
        {
            process.abandon();
        }
    }
}

impl Agent {
    /// Read the agent's output until it ends (or the agent is killed, or it
    /// has exited and left something holding its stdout), showing each
    /// decoded piece on `out` as it comes.
    fn read_output(
        &self,
        agent: &mut Process,
        mut stdout: std::process::ChildStdout,
        out: &mut dyn Write,
    ) -> Result<Output> {
        let mut o =
            Output { decoder: Decoder::default(), too_large: false, interrupted: false, write_failed: None };
        let mut buf = [0u8; READ_BYTES];
        loop {
            // Every turn, not only when a read is interrupted: a signal that
            // came while hermes was writing or decoding counts as well.
            o.interrupted |= agent.check().map_err(|e| self.failure("waiting for", &e))?;
            if agent.is_killed() || agent.outlived() {
                break; // whatever still holds its stdout is not waited for
            }
            match sys::wait_readable(stdout.as_raw_fd(), agent.patience()) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.failure("reading from", &e)),
            }
            let n = match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.failure("reading from", &e)),
            };
            if o.too_large {
                continue; // drained, not kept, until the agent has stopped
            }
            match o.decoder.feed(&buf[..n]) {
                Ok(shown) => {
                    show(out, &shown, &mut o.write_failed);
                    // hermes's own request: the server's end of the stream
                    // is the reply's, whenever curl ends.
                    if self.server.is_some() && o.decoder.is_done() {
                        break;
                    }
                }
                Err(TooLarge) => {
                    o.too_large = true;
                    o.decoder = Decoder::default(); // its memory back now
                    agent.stop();
                }
            }
        }
        Ok(o)
    }

    /// The reply, or why there is none, once the agent has exited.
    fn verdict(&self, output: Output, status: ExitStatus, out: &mut dyn Write) -> Result<Reply> {
        let Output { decoder, too_large, interrupted, mut write_failed } = output;
        let finished = if too_large { Err(TooLarge) } else { decoder.finish() };
        let Ok(finished) = finished else {
            return Err(Error::Agent(format!(
                "agent '{}' wrote a reply larger than {} MiB; stopped it, the reply was not saved",
                self.command,
                MAX_MESSAGE_BYTES >> 20
            )));
        };
        show(out, &finished.shown, &mut write_failed);
        if finished.malformed > 0 {
            crate::output::warn(&format!(
                "agent '{}' sent {} that {} not JSON; skipped",
                self.command,
                crate::text::counted(finished.malformed, "event"),
                if finished.malformed == 1 { "was" } else { "were" }
            ));
        }
        // A reader that went away is not an error; a full disk is, once
        // the reply is safe.
        let output_error = write_failed.filter(|e| e.kind() != io::ErrorKind::BrokenPipe);
        if interrupted {
            return Ok(Reply {
                text: finished.text,
                interrupted: true,
                output_error,
                usage: finished.usage,
                ending: None,
            });
        }
        if let Some(message) = finished.error {
            return Err(Error::Agent(format!("agent '{}' returned an error: {message}", self.command)));
        }
        if !status.success() {
            let how = match (status.code(), status.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(sig)) => format!("was killed by signal {sig}"),
                _ => "failed".to_string(),
            };
            return Err(Error::Agent(format!("agent '{}' {how}", self.command)));
        }
        Ok(Reply {
            text: finished.text,
            interrupted: false,
            output_error,
            usage: finished.usage,
            ending: None,
        })
    }

    /// An I/O error of hermes' own while it ran the agent, as the user sees it.
    fn failure(&self, doing: &str, e: &io::Error) -> Error {
        Error::Agent(format!("{doing} agent '{}': {}", self.command, describe_io(e)))
    }
}

/// Show a decoded piece, unless showing already failed once.
fn show(out: &mut dyn Write, shown: &[u8], failed: &mut Option<io::Error>) {
    if !shown.is_empty()
        && failed.is_none()
        && let Err(e) = out.write_all(shown).and_then(|()| out.flush())
    {
        *failed = Some(e);
    }
}
