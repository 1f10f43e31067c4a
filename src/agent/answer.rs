//! A turn's answer: the agent started and waiting (`Started`), given the
//! conversation (`Input`: a pipe, or hermes's own request, which posts
//! nothing unless it was finished), its output read as it comes and shown,
//! the stall limit kept, and the verdict: the reply, with why it is not
//! whole when it failed after it began (kept, marked incomplete, by the
//! caller).

use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Instant;

use super::decode::{Decoder, TooLarge};
use super::process::Process;
use super::{Agent, Ask, Ending, Reply, UsageFile, curl, write_input};
use crate::error::{Error, Result, describe_io};
use crate::settings::AgentInput;
use crate::store::context::Plan;
use crate::store::format::Reader;
use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;

/// What reading the agent's output came to, before the verdict.
struct Output {
    decoder: Decoder,
    /// hermes's own request: the answer's head, and an error's body.
    response: Option<curl::Response>,
    too_large: bool,
    interrupted: bool,
    /// Nothing came for the stall limit: the agent was stopped.
    stalled: bool,
    write_failed: Option<io::Error>,
}

/// How output is read, a piece at a time.
const READ_BYTES: usize = 8192;

/// An agent started and waiting for its input (see `Agent::start`).
pub(crate) struct Started<'a> {
    pub(super) agent: &'a Agent,
    /// Taken only by an answer that leaves it ending (`Reply::ending`).
    pub(super) process: Option<Process>,
    pub(super) stdin: Option<Input>,
    pub(super) stdout: Option<std::process::ChildStdout>,
    /// What the request names besides the conversation.
    pub(super) ask: Ask,
    /// Where the agent may report its reply's tokens.
    pub(super) usage: Option<UsageFile>,
}

/// Where the agent's input goes: a pipe, or hermes's own request (curl),
/// which posts nothing unless its input was finished (`curl::Request`).
pub(super) enum Input {
    Pipe(std::process::ChildStdin),
    Request(curl::Request),
}

impl Input {
    /// Write the conversation, then end the input: a request only once
    /// it is whole.
    fn feed(
        self,
        format: AgentInput,
        ask: &Ask,
        images: Option<&Path>,
        conversation: Reader<impl Read>,
        plan: &Plan,
    ) {
        const BUFFER: usize = 64 << 10;
        match self {
            Input::Pipe(pipe) => {
                let mut pipe = io::BufWriter::with_capacity(BUFFER, pipe);
                let _ = write_input(format, ask, images, conversation, plan, &mut pipe);
            }
            Input::Request(request) => {
                let mut request = io::BufWriter::with_capacity(BUFFER, request);
                if write_input(format, ask, images, conversation, plan, &mut request).is_ok()
                    && let Ok(request) = request.into_inner()
                {
                    let _ = request.finish();
                }
            }
        }
    }
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
        let (input, ask) = (agent.input, std::mem::take(&mut self.ask));
        let images = agent.usage_dir.as_deref().map(crate::store::images::dir_in);
        let feeder = std::thread::Builder::new()
            .spawn(move || stdin.feed(input, &ask, images.as_deref(), conversation, &plan));
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
            let reply = agent.verdict(output, None, out)?;
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
        if let Some(signal) = process.stopped() {
            return Err(Error::Agent(format!(
                "agent '{}' was stopped by {}, probably reading the terminal, which an agent cannot use; it \
                    was killed. An agent reads the conversation on its stdin only",
                agent.command,
                sys::stop_signal_name(signal)
            )));
        }
        let failed = match (interrupted, &agent.server) {
            (true, _) => None,
            (false, _) if output.stalled => Some(agent.stalled(output.decoder.held() != (0, 0))),
            // The shipped agent's words: curl's, the server's.
            (false, Some(url)) => {
                let response = output.response.as_ref().expect("a request's answer is read as one");
                curl::failure(url, status, &process.kept_stderr(), response)
            }
            (false, None) => exit_failure(status).map(|how| format!("agent '{}' {how}", agent.command)),
        };
        let reply = agent.verdict(Output { interrupted, ..output }, failed, out)?;
        // What the agent reported besides its output counts over what its
        // output held.
        let reported = self.usage.take().and_then(UsageFile::take);
        Ok(Reply { usage: reported.or(reply.usage), ..reply })
    }
}

/// How a process that failed ended, as a sentence's end; None: it
/// succeeded.
pub(super) fn exit_failure(status: ExitStatus) -> Option<String> {
    if status.success() {
        return None;
    }
    Some(match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was killed by signal {sig}"),
        _ => "failed".to_string(),
    })
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
    /// decoded piece on `out` as it comes. An agent that sends nothing for
    /// the stall limit is stopped.
    fn read_output(
        &self,
        agent: &mut Process,
        mut stdout: std::process::ChildStdout,
        out: &mut dyn Write,
    ) -> Result<Output> {
        let mut o = Output {
            decoder: Decoder::default(),
            response: self.server.is_some().then(curl::Response::default),
            too_large: false,
            interrupted: false,
            stalled: false,
            write_failed: None,
        };
        let mut buf = [0u8; READ_BYTES];
        let mut last_byte = Instant::now();
        loop {
            // Every turn, not only when a read is interrupted: a signal that
            // came while hermes was writing or decoding counts as well.
            o.interrupted |= agent.check().map_err(|e| self.failure("waiting for", &e))?;
            if agent.is_killed() || agent.outlived() {
                break; // whatever still holds its stdout is not waited for
            }
            if let Some(limit) = self.stall
                && !o.stalled
                && last_byte.elapsed() >= limit
            {
                o.stalled = true;
                agent.stop();
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
            last_byte = Instant::now();
            if o.too_large {
                continue; // drained, not kept, until the agent has stopped
            }
            let body = match &mut o.response {
                Some(response) => response.feed(&buf[..n]),
                None => &buf[..n],
            };
            match o.decoder.feed(body) {
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

    /// The reply once the agent has exited, with why it is not whole
    /// (`failed`, said by the caller); an error where nothing can be kept.
    fn verdict(&self, output: Output, failed: Option<String>, out: &mut dyn Write) -> Result<Reply> {
        let Output { decoder, too_large, interrupted, mut write_failed, .. } = output;
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
        if finished.odd_count {
            crate::output::warn(&format!(
                "{} sent a token count that is not a whole number of at most 20 digits; the reply's counts \
                    are not kept",
                self.speaker()
            ));
        }
        // A reader that went away is not an error; a full disk is, once
        // the reply is safe.
        let output_error = write_failed.filter(|e| e.kind() != io::ErrorKind::BrokenPipe);
        // The server's own error in its stream counts over how curl ended.
        let failed = match (&finished.error, interrupted) {
            (_, true) => None,
            (Some(message), false) => Some(format!("{} sent an error: {message}", self.speaker())),
            (None, false) => failed,
        };
        Ok(Reply {
            text: finished.text,
            interrupted,
            failed: failed.map(Error::Agent),
            output_error,
            usage: finished.usage,
            ending: None,
        })
    }

    /// Who answers, as an error names it: the server hermes asks itself,
    /// else the agent.
    fn speaker(&self) -> String {
        match &self.server {
            Some(url) => url.clone(),
            None => format!("agent '{}'", self.command),
        }
    }

    /// Why a turn that waited for the stall limit failed; `began`: some
    /// of the reply had come.
    fn stalled(&self, began: bool) -> String {
        let seconds = self.stall.map_or(0, |s| s.as_secs());
        let what = match (&self.server, began) {
            (Some(url), false) => format!("no answer from {url}"),
            (Some(url), true) => format!("{url} sent nothing more"),
            (None, false) => format!("agent '{}' wrote nothing", self.command),
            (None, true) => format!("agent '{}' wrote nothing more", self.command),
        };
        format!(
            "{what} for {seconds} s, the turn's timeout; it was stopped (--timeout SECONDS, or timeout in \
                config.toml; 0 waits for ever)"
        )
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
