//! The agent: the external command that writes replies. Runs it, feeds it
//! the conversation, and turns its output (plain text, an OpenAI
//! chat-completion object, or an OpenAI server-sent-event stream) into the
//! reply, streaming it as it arrives.

use std::io::{self, Read, Write};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nanoserde::{DeJson, SerJson};

use crate::config::AgentInput;
use crate::error::{Error, Result, describe_io};
use crate::store::json;
use crate::store::session::{Header, MAX_MESSAGE_BYTES, Message};
use crate::sys;

pub struct Agent {
    pub command: String,
    pub input: AgentInput,
    pub model: Option<String>,
}

/// What came back: the reply text, and whether the user interrupted it.
pub struct Reply {
    pub text: String,
    pub interrupted: bool,
    /// stdout failed (other than a closed pipe) while the reply was shown:
    /// the reply is still whole and worth saving; the caller reports this.
    pub output_error: Option<io::Error>,
}

#[derive(SerJson)]
struct WireMessage<'a> {
    role: &'a str,
    content: &'a str,
}

#[derive(SerJson)]
struct Request<'a> {
    model: &'a str,
    /// Always asked for: hermes shows a streamed reply as it arrives, and
    /// an agent can hand the body to the server untouched.
    stream: bool,
    messages: Vec<WireMessage<'a>>,
}

/// The bytes the agent reads on stdin.
pub fn input_for(format: AgentInput, model: Option<&str>, messages: &[Message]) -> Vec<u8> {
    match format {
        AgentInput::Json => {
            let request = Request {
                model: model.unwrap_or(""),
                stream: true,
                messages: messages
                    .iter()
                    .map(|m| WireMessage { role: &m.role, content: &m.content })
                    .collect(),
            };
            let mut body = request.serialize_json().into_bytes();
            body.push(b'\n');
            body
        }
        AgentInput::Transcript => {
            let mut out = String::new();
            for m in messages {
                out.push_str(&m.role);
                out.push_str(": ");
                out.push_str(&m.content);
                out.push_str("\n\n");
            }
            out.into_bytes()
        }
        AgentInput::Text => {
            let last = messages.iter().rev().find(|m| m.role == "user");
            let mut text = last.map(|m| m.content.clone()).unwrap_or_default();
            text.push('\n');
            text.into_bytes()
        }
    }
}

/// How long an agent has to exit after SIGTERM before it gets SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// The longest hermes waits before looking for a signal again: one caught
/// just before a wait began does not interrupt that wait.
const TICK: Duration = Duration::from_millis(100);

/// The most agent output held undecoded (one unterminated SSE line, or a
/// whole JSON object): room for a reply at the store's limit, and escapes.
const PENDING_LIMIT: usize = MAX_MESSAGE_BYTES + (1 << 20);

impl Agent {
    /// Run the agent on the conversation, writing the reply to `out` as it
    /// arrives. SIGINT/SIGTERM stop the agent (its whole process group) and
    /// return what had arrived, marked interrupted; an agent that does not
    /// stop within the grace period, or a second signal, gets SIGKILL.
    pub fn reply(&self, header: &Header, messages: &[Message], out: &mut dyn Write) -> Result<Reply> {
        let input = input_for(self.input, self.model.as_deref(), messages);
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(&self.command)
            .env("HERMES_SESSION_ID", &header.id)
            .env("HERMES_SESSION_TITLE", &header.title)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // Its own process group: Ctrl-C reaches hermes alone, which then
            // stops the agent and everything it started, and keeps the chat.
            .process_group(0);
        if let Some(model) = &self.model {
            command.env("HERMES_MODEL", model);
        }
        let mut child = command
            .spawn()
            .map_err(|e| Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e))))?;
        let mut stdin = child.stdin.take().expect("piped");
        let mut stdout = child.stdout.take().expect("piped");
        let mut agent = Running { child, stop: Stop::No };
        // Feed input from a thread so a large conversation cannot deadlock
        // against an agent that writes before it has read everything.
        let feeder = std::thread::Builder::new().spawn(move || {
            let _ = stdin.write_all(&input); // an agent may ignore its stdin
        });
        let feeder = match feeder {
            Ok(feeder) => feeder,
            Err(e) => return Err(agent.abandon(self.failure("cannot start a thread to feed", &e))),
        };
        let mut decoder = Decoder::default();
        let mut interrupted = false;
        let mut too_large = false;
        let mut buf = [0u8; 8192];
        let mut write_failed = None;
        loop {
            // Every turn, not only when a read is interrupted: a signal that
            // came while hermes was writing or decoding counts as well.
            interrupted |= agent.check();
            if agent.stop == Stop::Killed {
                break; // whatever still holds its stdout is not waited for
            }
            match sys::wait_readable(stdout.as_raw_fd(), agent.patience()) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(agent.abandon(self.failure("reading from", &e))),
            }
            let n = match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(agent.abandon(self.failure("reading from", &e))),
            };
            if too_large {
                continue; // drained, not kept, until the agent has stopped
            }
            match decoder.feed(&buf[..n]) {
                Ok(shown) => {
                    if !shown.is_empty()
                        && write_failed.is_none()
                        && let Err(e) = out.write_all(&shown).and_then(|()| out.flush())
                    {
                        write_failed = Some(e);
                    }
                }
                Err(TooLarge) => {
                    too_large = true;
                    decoder = Decoder::default(); // its memory back now
                    agent.stop();
                }
            }
        }
        let status = match agent.wait(&mut interrupted) {
            Ok(status) => status,
            Err(e) => return Err(agent.abandon(self.failure("waiting for", &e))),
        };
        // The feeder is not waited for: it ends by itself once nothing holds
        // the agent's stdin open, and something the agent left running
        // outside its process group (or deaf to SIGTERM) could hold it open
        // for ever.
        drop(feeder);
        // A late signal (after EOF) still counts as an interruption.
        if sys::take_signal().is_some() {
            interrupted = true;
        }
        let finished = if too_large { Err(TooLarge) } else { decoder.finish() };
        let Ok(finished) = finished else {
            return Err(Error::Agent(format!(
                "agent '{}' wrote a reply larger than {} MiB; stopped it, the reply was not saved",
                self.command,
                MAX_MESSAGE_BYTES >> 20
            )));
        };
        if !finished.shown.is_empty()
            && write_failed.is_none()
            && let Err(e) = out.write_all(&finished.shown).and_then(|()| out.flush())
        {
            write_failed = Some(e);
        }
        // A reader that went away is not an error; a full disk is, once
        // the reply is safe.
        let output_error = write_failed.filter(|e| e.kind() != io::ErrorKind::BrokenPipe);
        if interrupted {
            return Ok(Reply { text: finished.text, interrupted: true, output_error });
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
        Ok(Reply { text: finished.text, interrupted: false, output_error })
    }

    /// An I/O error of hermes' own while it ran the agent, as the user sees it.
    fn failure(&self, doing: &str, e: &io::Error) -> Error {
        Error::Agent(format!("{doing} agent '{}': {}", self.command, describe_io(e)))
    }
}

/// A running agent, and how far stopping it has gone.
struct Running {
    child: Child,
    stop: Stop,
}

#[derive(Clone, Copy, PartialEq)]
enum Stop {
    No,
    /// SIGTERM went to its process group; SIGKILL follows at this instant.
    Asked(Instant),
    Killed,
}

impl Running {
    /// Stop the agent and everything it started: SIGTERM to its process
    /// group the first time, SIGKILL the next.
    fn stop(&mut self) {
        match self.stop {
            Stop::No => {
                sys::kill_group(self.child.id(), sys::SIGTERM);
                self.stop = Stop::Asked(Instant::now() + GRACE);
            }
            Stop::Asked(_) => self.kill(),
            Stop::Killed => {}
        }
    }

    fn kill(&mut self) {
        sys::kill_group(self.child.id(), sys::SIGKILL);
        let _ = self.child.kill(); // in case it left its process group
        self.stop = Stop::Killed;
    }

    /// Act on what happened since the last look: a caught signal stops the
    /// agent (a second one kills it), and so does a grace period that ran
    /// out. Returns whether a signal was caught.
    fn check(&mut self) -> bool {
        let caught = sys::take_signal().is_some();
        if caught {
            self.stop();
        }
        if let Stop::Asked(deadline) = self.stop
            && Instant::now() >= deadline
        {
            self.kill();
        }
        caught
    }

    /// How long to wait for the agent before looking again.
    fn patience(&self) -> Duration {
        match self.stop {
            Stop::Asked(deadline) => deadline.saturating_duration_since(Instant::now()).min(TICK),
            _ => TICK,
        }
    }

    /// Wait for the agent to exit, still acting on signals (which set
    /// `interrupted`) and on the grace period.
    fn wait(&mut self, interrupted: &mut bool) -> io::Result<ExitStatus> {
        let mut nap = Duration::from_millis(1);
        let mut status = None;
        loop {
            *interrupted |= self.check();
            if status.is_none() {
                status = self.child.try_wait()?;
            }
            if let Some(status) = status {
                // Once stopped, the agent is gone: what it left running in
                // its group (deaf to SIGTERM, or not yet reaped) goes too.
                if matches!(self.stop, Stop::Asked(_)) && sys::group_exists(self.child.id()) {
                    self.kill();
                }
                return Ok(status);
            }
            std::thread::sleep(nap.min(self.patience()));
            nap = (nap * 2).min(TICK);
        }
    }

    /// Give up on the agent after an error of hermes' own: kill it and
    /// reap it, so that nothing is left running; returns `error`.
    fn abandon(&mut self, error: Error) -> Error {
        if self.stop != Stop::Killed {
            self.kill();
        }
        let _ = self.child.wait();
        error
    }
}

#[derive(Default, PartialEq, Debug)]
enum Form {
    #[default]
    Undecided,
    Text,
    Json,
    Sse,
}

/// Incremental decoder of agent output. `feed` returns what to show now.
#[derive(Default)]
pub struct Decoder {
    form: Form,
    pending: Vec<u8>,
    /// How much of `pending` was searched already, so that a long line (or
    /// a long blank start) arriving in pieces is not searched again from its
    /// start: for SSE the part known to hold no line end, while undecided
    /// the part known to be whitespace.
    scanned: usize,
    text: Vec<u8>,
    error: Option<String>,
}

/// The agent wrote more than a reply may hold (`MAX_MESSAGE_BYTES` decoded,
/// `PENDING_LIMIT` undecoded): decoding stopped, nothing is to be saved.
#[derive(Debug, PartialEq)]
pub struct TooLarge;

pub struct Finished {
    pub text: String,
    pub shown: Vec<u8>,
    pub error: Option<String>,
}

#[derive(DeJson)]
struct Completion {
    #[nserde(default)]
    choices: Vec<Choice>,
    #[nserde(default)]
    error: Option<ApiError>,
}

#[derive(DeJson)]
struct Choice {
    #[nserde(default)]
    message: Option<Content>,
    #[nserde(default)]
    delta: Option<Content>,
}

#[derive(DeJson)]
struct Content {
    #[nserde(default)]
    content: Option<String>,
}

#[derive(DeJson)]
struct ApiError {
    #[nserde(default)]
    message: Option<String>,
}

fn parse_completion(bytes: &[u8]) -> Option<Completion> {
    json::validate(bytes).ok()?;
    Completion::deserialize_json(std::str::from_utf8(bytes).ok()?).ok()
}

/// Which form the output takes, from its first bytes after any leading
/// whitespace; Undecided while too few have come to tell.
fn decide(rest: &[u8]) -> Form {
    if rest.is_empty() {
        Form::Undecided
    } else if rest.starts_with(b"{") {
        Form::Json
    } else if rest.len() < 5 && b"data:".starts_with(rest) {
        Form::Undecided
    } else if rest.starts_with(b"data:") || rest.starts_with(b"event:") || rest.starts_with(b":") {
        Form::Sse
    } else {
        Form::Text
    }
}

/// The reply as saved: valid UTF-8 (each bad sequence U+FFFD), trailing
/// whitespace trimmed, within the store's limit.
fn reply_text(bytes: Vec<u8>) -> Result<String, TooLarge> {
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // Each U+FFFD takes three bytes: check the size before building.
            let bytes = e.into_bytes();
            let size: usize = bytes
                .utf8_chunks()
                .map(|c| c.valid().len() + if c.invalid().is_empty() { 0 } else { 3 })
                .sum();
            if size > MAX_MESSAGE_BYTES {
                return Err(TooLarge);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    text.truncate(text.trim_end().len());
    Ok(text)
}

impl Decoder {
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<u8>, TooLarge> {
        self.pending.extend_from_slice(chunk);
        if self.form == Form::Undecided {
            // Leading whitespace is looked at once, however slowly it comes.
            let blank = self.pending[self.scanned..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .map_or(self.pending.len(), |at| self.scanned + at);
            self.form = decide(&self.pending[blank..]);
            self.scanned = if self.form == Form::Undecided { blank } else { 0 };
        }
        let shown = match self.form {
            Form::Text => {
                let shown = std::mem::take(&mut self.pending);
                self.keep(&shown)?;
                shown
            }
            Form::Sse => self.sse_lines(false)?,
            Form::Json | Form::Undecided => Vec::new(),
        };
        if self.pending.len() > PENDING_LIMIT {
            return Err(TooLarge);
        }
        Ok(shown)
    }

    /// Add decoded bytes to the reply, unless that would pass the limit.
    fn keep(&mut self, piece: &[u8]) -> Result<(), TooLarge> {
        if self.text.len() + piece.len() > MAX_MESSAGE_BYTES {
            return Err(TooLarge);
        }
        self.text.extend_from_slice(piece);
        Ok(())
    }

    fn sse_lines(&mut self, at_end: bool) -> Result<Vec<u8>, TooLarge> {
        let mut shown = Vec::new();
        let mut start = 0; // where the next line begins in pending
        loop {
            let from = start.max(self.scanned);
            let line_end = self.pending[from..].iter().position(|&b| b == b'\n').map(|at| from + at);
            let line = match line_end {
                Some(end) => {
                    let line = start..end;
                    start = end + 1;
                    line
                }
                None if at_end && start < self.pending.len() => {
                    let line = start..self.pending.len();
                    start = self.pending.len();
                    line
                }
                None => break,
            };
            let line = &self.pending[line];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.strip_prefix(b" ").unwrap_or(data);
            if data == b"[DONE]" {
                continue;
            }
            match parse_completion(data) {
                Some(c) => {
                    if let Some(e) = c.error {
                        self.error = Some(e.message.unwrap_or_else(|| "unknown error".into()));
                    }
                    for choice in c.choices.into_iter().take(1) {
                        let piece = choice.delta.or(choice.message).and_then(|d| d.content);
                        if let Some(piece) = piece {
                            shown.extend_from_slice(piece.as_bytes());
                        }
                    }
                }
                None => shown.extend_from_slice(data), // not JSON: show as is
            }
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        self.keep(&shown)?;
        Ok(shown)
    }

    pub fn finish(mut self) -> Result<Finished, TooLarge> {
        let mut shown = match self.form {
            Form::Sse => self.sse_lines(true)?,
            Form::Json => {
                let raw = std::mem::take(&mut self.pending);
                match parse_completion(&raw) {
                    Some(c) if c.error.is_some() || !c.choices.is_empty() => {
                        drop(raw);
                        if let Some(e) = c.error {
                            self.error = Some(e.message.unwrap_or_else(|| "unknown error".into()));
                        }
                        let content = c
                            .choices
                            .into_iter()
                            .next()
                            .and_then(|ch| ch.message.or(ch.delta))
                            .and_then(|m| m.content)
                            .unwrap_or_default();
                        self.keep(content.as_bytes())?;
                        let mut shown = content.into_bytes();
                        if !shown.is_empty() && !shown.ends_with(b"\n") {
                            shown.push(b'\n');
                        }
                        shown
                    }
                    // JSON of another shape, or not JSON after all: plain text.
                    _ => {
                        self.keep(&raw)?;
                        raw
                    }
                }
            }
            Form::Text | Form::Undecided => {
                let shown = std::mem::take(&mut self.pending);
                self.keep(&shown)?;
                shown
            }
        };
        if self.form == Form::Sse && !self.text.is_empty() && !self.text.ends_with(b"\n") {
            shown.push(b'\n');
        }
        let text = reply_text(self.text)?;
        Ok(Finished { text, shown, error: self.error })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> (String, Vec<u8>) {
        let mut d = Decoder::default();
        let mut shown = Vec::new();
        for c in chunks {
            shown.extend(d.feed(c).expect("within the limits"));
        }
        let f = d.finish().expect("within the limits");
        shown.extend(f.shown);
        (f.text, shown)
    }

    #[test]
    fn plain_text_streams() {
        let (text, shown) = decode_all(&[b"hel", b"lo\n"]);
        assert_eq!(text, "hello");
        assert_eq!(shown, b"hello\n");
    }

    #[test]
    fn completion_object() {
        let (text, _) = decode_all(&[
            br#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi there"}}]}"#,
        ]);
        assert_eq!(text, "hi there");
    }

    #[test]
    fn sse_stream_split_anywhere() {
        let stream = b"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\ndata: [DONE]\n\n";
        for split in 1..stream.len() {
            let (text, _) = decode_all(&[&stream[..split], &stream[split..]]);
            assert_eq!(text, "Hello", "split at {split}");
        }
    }

    #[test]
    fn api_error_is_reported() {
        let mut d = Decoder::default();
        d.feed(br#"{"error":{"message":"model not found"}}"#).unwrap();
        assert_eq!(d.finish().unwrap().error.as_deref(), Some("model not found"));
    }

    /// Feed `total` bytes of `fill` after `head`, in 8 KiB pieces as the
    /// agent loop does; the first refusal, if any, and the decoder.
    fn feed_many(head: &[u8], fill: u8, total: usize) -> (Result<(), TooLarge>, Decoder) {
        let mut d = Decoder::default();
        let piece = [fill; 8192];
        let mut result = d.feed(head).map(drop);
        let mut left = total;
        while result.is_ok() && left > 0 {
            let n = left.min(piece.len());
            result = d.feed(&piece[..n]).map(drop);
            left -= n;
        }
        (result, d)
    }

    #[test]
    fn plain_text_up_to_the_limit_is_kept() {
        let (fed, d) = feed_many(b"", b'a', MAX_MESSAGE_BYTES);
        assert_eq!(fed, Ok(()));
        assert_eq!(d.finish().unwrap().text.len(), MAX_MESSAGE_BYTES);
    }

    #[test]
    fn plain_text_past_the_limit_is_refused_without_growing() {
        let (fed, d) = feed_many(b"", b'a', MAX_MESSAGE_BYTES + 1);
        assert_eq!(fed, Err(TooLarge));
        assert!(d.text.len() <= MAX_MESSAGE_BYTES);
    }

    #[test]
    fn an_endless_sse_line_is_refused() {
        let (fed, d) = feed_many(b"data: ", b'a', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
        assert!(d.pending.len() <= PENDING_LIMIT + 8192);
    }

    #[test]
    fn an_endless_json_object_is_refused() {
        let (fed, _) = feed_many(b"{\"choices\":\"", b'a', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn endless_whitespace_is_refused() {
        let (fed, _) = feed_many(b"", b' ', PENDING_LIMIT + 1);
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn sse_deltas_past_the_limit_are_refused() {
        let mut d = Decoder::default();
        let content = "a".repeat(1 << 20);
        let event = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{content}\"}}}}]}}\n\n");
        let mut fed = Ok(Vec::new());
        for _ in 0..=(MAX_MESSAGE_BYTES >> 20) {
            fed = d.feed(event.as_bytes());
        }
        assert_eq!(fed, Err(TooLarge));
    }

    #[test]
    fn bad_utf8_that_grows_past_the_limit_is_refused() {
        // Every byte 0xff becomes U+FFFD, three bytes.
        let (fed, d) = feed_many(b"", 0xff, MAX_MESSAGE_BYTES / 2);
        assert_eq!(fed, Ok(()));
        assert_eq!(d.finish().err(), Some(TooLarge));
    }

    #[test]
    fn a_long_sse_line_in_pieces_still_decodes() {
        let content = "b".repeat(100_000);
        let event = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{content}\"}}}}]}}\n\n");
        let pieces: Vec<&[u8]> = event.as_bytes().chunks(1000).collect();
        let (text, _) = decode_all(&pieces);
        assert_eq!(text, content);
    }
}
