//! The agent: the external command that writes replies. Runs it, feeds it
//! the conversation, and turns its output (plain text, an OpenAI
//! chat-completion object, or an OpenAI server-sent-event stream) into the
//! reply, streaming it as it arrives.

use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

use nanoserde::{DeJson, SerJson};

use crate::config::AgentInput;
use crate::error::{Error, Result};
use crate::json;
use crate::session::{Header, Message};
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
    messages: Vec<WireMessage<'a>>,
}

/// The bytes the agent reads on stdin.
pub fn input_for(format: AgentInput, model: Option<&str>, messages: &[Message]) -> Vec<u8> {
    match format {
        AgentInput::Json => {
            let request = Request {
                model: model.unwrap_or(""),
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

impl Agent {
    /// Run the agent on the conversation, writing the reply to `out` as it
    /// arrives. SIGINT/SIGTERM stop the agent (its whole process group) and
    /// return what had arrived, marked interrupted.
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
        let mut child =
            command.spawn().map_err(|e| Error::Agent(format!("cannot run agent '{}': {e}", self.command)))?;
        let pgid = child.id();
        let mut stdin = child.stdin.take().expect("piped");
        // Feed input from a thread so a large conversation cannot deadlock
        // against an agent that writes before it has read everything.
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&input); // an agent may ignore its stdin
        });
        let mut stdout = child.stdout.take().expect("piped");
        let mut decoder = Decoder::default();
        let mut interrupted = false;
        let mut buf = [0u8; 8192];
        let mut write_failed = None;
        loop {
            match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let shown = decoder.feed(&buf[..n]);
                    if !shown.is_empty()
                        && write_failed.is_none()
                        && let Err(e) = out.write_all(&shown).and_then(|()| out.flush())
                    {
                        write_failed = Some(e);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    if sys::take_signal().is_some() && !interrupted {
                        interrupted = true;
                        sys::kill_group(pgid, sys::SIGTERM);
                    }
                }
                Err(e) => {
                    return Err(Error::Agent(format!("reading from agent '{}': {e}", self.command)));
                }
            }
        }
        let status = loop {
            match child.wait() {
                Ok(s) => break s,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::Agent(format!("waiting for agent '{}': {e}", self.command)));
                }
            }
        };
        let _ = feeder.join();
        // A late signal (after EOF) still counts as an interruption.
        if sys::take_signal().is_some() {
            interrupted = true;
        }
        let finished = decoder.finish();
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
    text: Vec<u8>,
    error: Option<String>,
}

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

impl Decoder {
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(chunk);
        if self.form == Form::Undecided {
            let start = self.pending.iter().position(|b| !b.is_ascii_whitespace());
            let Some(start) = start else {
                return Vec::new();
            };
            let rest = &self.pending[start..];
            if rest.starts_with(b"{") {
                self.form = Form::Json;
            } else if rest.len() < 5 && b"data:".starts_with(rest) {
                return Vec::new(); // too early to tell
            } else if rest.starts_with(b"data:") || rest.starts_with(b"event:") || rest.starts_with(b":") {
                self.form = Form::Sse;
            } else {
                self.form = Form::Text;
            }
        }
        match self.form {
            Form::Text => {
                let shown = std::mem::take(&mut self.pending);
                self.text.extend_from_slice(&shown);
                shown
            }
            Form::Sse => self.sse_lines(false),
            _ => Vec::new(),
        }
    }

    fn sse_lines(&mut self, at_end: bool) -> Vec<u8> {
        let mut shown = Vec::new();
        loop {
            let line_end = self.pending.iter().position(|&b| b == b'\n');
            let line: Vec<u8> = match line_end {
                Some(at) => {
                    let line = self.pending[..at].to_vec();
                    self.pending.drain(..=at);
                    line
                }
                None if at_end && !self.pending.is_empty() => std::mem::take(&mut self.pending),
                None => break,
            };
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
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
        self.text.extend_from_slice(&shown);
        shown
    }

    pub fn finish(mut self) -> Finished {
        let shown = match self.form {
            Form::Sse => self.sse_lines(true),
            Form::Json => match parse_completion(&self.pending) {
                Some(c) if c.error.is_some() || !c.choices.is_empty() => {
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
                    let mut shown = content.into_bytes();
                    self.text.extend_from_slice(&shown);
                    if !shown.is_empty() && !shown.ends_with(b"\n") {
                        shown.push(b'\n');
                    }
                    shown
                }
                // JSON of another shape, or not JSON after all: plain text.
                _ => {
                    let shown = std::mem::take(&mut self.pending);
                    self.text.extend_from_slice(&shown);
                    shown
                }
            },
            Form::Text | Form::Undecided => {
                let shown = std::mem::take(&mut self.pending);
                self.text.extend_from_slice(&shown);
                shown
            }
        };
        let mut text = String::from_utf8_lossy(&self.text).into_owned();
        let trimmed_len = text.trim_end().len();
        text.truncate(trimmed_len);
        let mut shown = shown;
        if self.form == Form::Sse && !self.text.is_empty() && !self.text.ends_with(b"\n") {
            shown.push(b'\n');
        }
        Finished { text, shown, error: self.error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(chunks: &[&[u8]]) -> (String, Vec<u8>) {
        let mut d = Decoder::default();
        let mut shown = Vec::new();
        for c in chunks {
            shown.extend(d.feed(c));
        }
        let f = d.finish();
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
        d.feed(br#"{"error":{"message":"model not found"}}"#);
        assert_eq!(d.finish().error.as_deref(), Some("model not found"));
    }
}
