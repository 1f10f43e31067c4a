//! One tiny request through the agent, for `hermes config check`: run with
//! a time limit, its stderr kept (to read an HTTP status in it) as well as
//! passed on, and nothing saved.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nanoserde::SerJson;

use super::Agent;
use super::decode::Decoder;
use crate::error::{Error, Result, describe_io};
use crate::settings::AgentInput;
use crate::sys;

/// What the agent did with the request.
pub(crate) struct Probe {
    /// The reply, as hermes would save it.
    pub(crate) text: String,
    /// An error object the agent passed on from the server.
    pub(crate) error: Option<String>,
    /// What it wrote on stderr.
    pub(crate) stderr: String,
    /// How it ended: its exit status, or `None` when the time ran out.
    pub(crate) status: Option<std::process::ExitStatus>,
    pub(crate) took: Duration,
}

/// What the probe asks.
pub(crate) const QUESTION: &str = "Reply with the word OK.";

impl Agent {
    /// Send `QUESTION` and wait at most `limit` for the agent to finish.
    pub(crate) fn probe(&self, limit: Duration) -> Result<Probe> {
        let key = self.key.as_ref().map(|k| k.fetch(limit)).transpose()?;
        let mut shell = Command::new("/bin/sh");
        shell.arg("-c").arg(&self.command);
        if let Some(url) = &self.base_url {
            shell.env("OPENAI_BASE_URL", url);
        }
        if let Some(key) = &key {
            shell.env("OPENAI_API_KEY", key);
        }
        if let Some(model) = &self.model {
            shell.env("HERMES_MODEL", model);
        }
        use std::os::unix::process::CommandExt;
        let started = Instant::now();
        let mut child = shell
            .env("HERMES_SESSION_ID", "config-check")
            .env("HERMES_SESSION_TITLE", "config check")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| Error::Agent(format!("cannot run agent '{}': {}", self.command, describe_io(&e))))?;
        let input = self.probe_input();
        let mut stdin = child.stdin.take().expect("piped");
        let _ = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let mut stdout = child.stdout.take().expect("piped");
        let out = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stdout.by_ref().take(1 << 20).read_to_end(&mut bytes);
            bytes
        });
        let mut stderr = child.stderr.take().expect("piped");
        let err = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stderr.by_ref().take(64 << 10).read_to_end(&mut bytes);
            bytes
        });
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if started.elapsed() >= limit => {
                    sys::kill_group(child.id(), sys::SIGKILL);
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => {
                    return Err(Error::Agent(format!(
                        "waiting for agent '{}': {}",
                        self.command,
                        describe_io(&e)
                    )));
                }
            }
        };
        let took = started.elapsed();
        // What it left running would hold the pipes open.
        sys::kill_group(child.id(), sys::SIGKILL);
        let out = out.join().unwrap_or_default();
        let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
        let mut decoder = Decoder::default();
        let _ = decoder.feed(&out);
        let (text, error) = match decoder.finish() {
            Ok(finished) => (finished.text, finished.error),
            Err(_) => (String::new(), None),
        };
        Ok(Probe { text, error, stderr, status, took })
    }

    fn probe_input(&self) -> Vec<u8> {
        match self.input {
            AgentInput::Json => format!(
                "{{\"model\":{},\"stream\":true,\"messages\":[{{\"role\":\"user\",\"content\":{}}}]}}\n",
                self.model.clone().unwrap_or_default().serialize_json(),
                QUESTION.to_string().serialize_json()
            )
            .into_bytes(),
            AgentInput::Transcript => format!("user: {QUESTION}\n\n").into_bytes(),
            AgentInput::Text => format!("{QUESTION}\n").into_bytes(),
        }
    }
}

impl Probe {
    /// The HTTP status the agent named on stderr (`... HTTP 404 ...`), if any.
    pub(crate) fn http_status(&self) -> Option<u16> {
        let at = self.stderr.rfind("HTTP ")?;
        let digits: String = self.stderr[at + 5..].chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok().filter(|code| (100..600).contains(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(stderr: &str) -> Probe {
        Probe { text: String::new(), error: None, stderr: stderr.into(), status: None, took: Duration::ZERO }
    }

    #[test]
    fn the_http_status_is_read_from_the_agents_message() {
        assert_eq!(
            probe("x: http://h/v1/chat/completions answered HTTP 401 (check)\n").http_status(),
            Some(401)
        );
        assert_eq!(probe("HTTP 404").http_status(), Some(404));
        assert_eq!(probe("HTTP/1.1 or HTTP x").http_status(), None);
        assert_eq!(probe("cannot connect").http_status(), None);
    }
}
