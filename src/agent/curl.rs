//! The shipped `openai-compatible` agent's turn, done by hermes itself:
//! curl started directly, with no shell between (what
//! `contrib/agents/openai-compatible` does for a user who runs it by hand,
//! and says much the same way when it fails). The request body is
//! hermes's own (`write_input`, on curl's stdin, as the script posts it);
//! the server's answer is curl's stdout: its head first (`Response`), so
//! that an error's body is said on stderr, once, and never shown or saved
//! as a reply; a successful body goes to the decoder as any agent's
//! output. curl's stderr is kept and judged once curl has exited
//! (`failure`).
//!
//! The key reaches curl through a pipe that curl reads as a file of
//! headers (`--header @/dev/fd/N`): never on a command line, where `ps`
//! shows it to every user, nor in a file. Written whole before curl
//! starts and closed, so curl reads it and its end at once.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use crate::sys;

/// The shipped agent whose turn hermes does itself.
pub(crate) const AGENT: &str = crate::settings::SERVER_AGENT;

/// Whether `command` (as `shipped::resolve` gave it) is the shipped
/// `openai-compatible` script itself, by name or by its path.
pub(crate) fn is_shipped(command: &str) -> bool {
    let Some(shipped) = super::shipped::find(AGENT) else { return false };
    let same = |a: &Path, b: &Path| match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => {
            use std::os::unix::fs::MetadataExt;
            (a.dev(), a.ino()) == (b.dev(), b.ino())
        }
        _ => false,
    };
    command.contains('/') && same(&shipped, Path::new(command))
}

/// The chat completions URL under the API root `base`, as the script
/// makes it.
pub(crate) fn url_of(base: &str) -> String {
    format!("{}/chat/completions", base.strip_suffix('/').unwrap_or(base))
}

/// curl set up for one request to `url`, the key (if any) in a header read
/// from a pipe: the command, and the pipe's end for curl, which the caller
/// drops once curl has started. `connect`: how long connecting may take
/// (the turn's stall limit). The answer's head comes before its body on
/// stdout (`--include`), so that an error status is known before a byte
/// of its body could be shown as a reply (see `Response`).
pub(crate) fn command(
    url: &str,
    key: Option<&str>,
    connect: Option<Duration>,
) -> io::Result<(Command, Option<OwnedFd>)> {
    // Found here, once, with a few stat calls: not by the child trying
    // every directory of PATH with exec while hermes waits for it. Named
    // "curl" still, as the loader's and curl's own messages show it.
    let mut curl = match super::shipped::find_on_path("curl") {
        Some(path) => {
            let mut curl = Command::new(path);
            curl.arg0("curl");
            curl
        }
        None => Command::new("curl"),
    };
    let mut key_pipe = None;
    if let Some(key) = key {
        if key.contains(['\n', '\r']) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "the API key holds a line break"));
        }
        let (reader, mut writer) = io::pipe()?;
        let line = format!("Authorization: Bearer {key}\n");
        // What fits a pipe at once is written now; a longer key (it never
        // is one) by a thread, so that neither side waits on the other.
        if line.len() <= 4096 {
            writer.write_all(line.as_bytes())?;
        } else {
            std::thread::spawn(move || writer.write_all(line.as_bytes()));
        }
        sys::inheritable(reader.as_fd())?;
        curl.arg("--header").arg(format!("@/dev/fd/{}", reader.as_raw_fd()));
        key_pipe = Some(OwnedFd::from(reader));
    }
    if let Some(limit) = connect {
        curl.arg("--connect-timeout").arg(limit.as_secs().max(1).to_string());
    }
    // No `Expect: 100-continue` wait before a large body is sent.
    curl.args(["--silent", "--show-error", "--no-buffer", "--include", "--suppress-connect-headers"])
        .args(["--request", "POST", "--header", "Expect:", "--header", "Content-Type: application/json"])
        .args(["--header", "Accept: text/event-stream", "--data-binary", "@-", url]);
    Ok((curl, key_pipe))
}

/// curl's stdin: our end of a socket pair, whose receive queue holds one
/// byte hermes takes only once the request is whole. An end closed with
/// that byte unread (hermes killed at any moment, or a turn dropped) makes
/// curl's read of its stdin fail (ECONNRESET) instead of end, and curl
/// then posts nothing: at the end of a pipe it would post what it had, an
/// empty or a cut request.
pub(crate) struct Request(UnixStream);

impl Request {
    /// Ours, and curl's end, for its stdin.
    pub(crate) fn pair() -> io::Result<(Request, OwnedFd)> {
        let (ours, theirs) = UnixStream::pair()?;
        (&theirs).write_all(b"!")?;
        Ok((Request(ours), OwnedFd::from(theirs)))
    }

    /// The request is whole: the byte taken, then curl reads its end.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        let mut byte = [0u8; 1];
        self.0.read_exact(&mut byte)?;
        self.0.shutdown(std::net::Shutdown::Write)
    }
}

impl Write for Request {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Why curl could not be started at all: what a user reads.
pub(crate) fn not_started(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::NotFound {
        NOT_INSTALLED.to_string()
    } else {
        format!("curl could not start: {}", crate::error::describe_io(e))
    }
}

const NOT_INSTALLED: &str = "curl is not installed; the openai-compatible agent needs it";

/// The most of an error's body kept to say (the rest is read and dropped).
const ERROR_BODY: usize = 64 << 10;

/// The most of a head read before it is given up as no HTTP answer.
const HEAD_LIMIT: usize = 64 << 10;

/// The server's answer as curl writes it with `--include`: heads (a `1xx`
/// one, then the final one), then the body. `feed` passes on the body of
/// a successful answer; an error's body is kept, bounded, to be said
/// (never shown or saved as a reply).
#[derive(Default)]
pub(crate) struct Response {
    head: Vec<u8>,
    /// The final status, once its head is whole.
    status: Option<u16>,
    error_body: Vec<u8>,
    /// A head that was no HTTP answer, or too long to be one.
    garbled: bool,
}

impl Response {
    /// The part of `bytes` that is a successful answer's body.
    pub(crate) fn feed<'a>(&mut self, mut bytes: &'a [u8]) -> &'a [u8] {
        while self.status.is_none() && !self.garbled && !bytes.is_empty() {
            let before = self.head.len();
            self.head.extend_from_slice(bytes);
            let Some(end) = crate::store::json::find(&self.head, b"\r\n\r\n").map(|at| at + 4) else {
                self.garbled = self.head.len() > HEAD_LIMIT;
                return &[];
            };
            bytes = &bytes[end - before..];
            let status = status_of(&self.head[..end]);
            self.head.clear();
            match status {
                Some(100..=199) => {}
                Some(status) => self.status = Some(status),
                None => self.garbled = true,
            }
        }
        match self.status {
            Some(200..=299) => bytes,
            Some(_) => {
                let room = ERROR_BODY.saturating_sub(self.error_body.len());
                self.error_body.extend_from_slice(&bytes[..bytes.len().min(room)]);
                &[]
            }
            None => &[],
        }
    }

    /// Whether the answer is a success whose body is the reply.
    pub(crate) fn succeeded(&self) -> bool {
        matches!(self.status, Some(200..=299))
    }
}

/// The status of a head's first line: `HTTP/1.1 200 OK`, `HTTP/2 429`.
fn status_of(head: &[u8]) -> Option<u16> {
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_ascii_whitespace();
    words.next().filter(|w| w.starts_with("HTTP/"))?;
    words.next()?.parse().ok().filter(|s| (100..600).contains(s))
}

/// What went wrong with curl's request to `url`, as a user reads it, once
/// curl has exited with `status`, having said `stderr`; None when the
/// server answered with success and curl finished. `cut`: the reply had
/// begun (what arrived is kept).
pub(crate) fn failure(url: &str, status: ExitStatus, stderr: &[u8], response: &Response) -> Option<String> {
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    // curl's last words: what it said last is why it ended.
    let said = String::from_utf8_lossy(stderr);
    let said = said.lines().rev().map(str::trim).find(|line| !line.is_empty()).unwrap_or("");
    if let Some(http) = response.status.filter(|s| !(200..300).contains(s)) {
        return Some(http_error(url, http, &response.error_body));
    }
    let curl_said = || if said.is_empty() { String::new() } else { format!(" ({})", one_line(said)) };
    match code {
        0 if response.succeeded() => None,
        0 => Some(format!("{url} sent no HTTP answer{}", curl_said())),
        // Where the spawn cannot tell a missing program (a vfork emulated
        // as fork, as under qemu-user) the child exits 127 saying nothing;
        // curl itself never exits 127, and a loader that cannot load it
        // says why.
        127 if said.is_empty() => Some(NOT_INSTALLED.to_string()),
        126 | 127 => Some(format!("curl could not start (exit status {code}){}", curl_said())),
        6 | 7 => Some(format!(
            "cannot connect to {url}: is the server running? (base_url in config.toml, or OPENAI_BASE_URL)"
        )),
        28 => Some(format!("cannot connect to {url}: no connection within the turn's timeout")),
        18 | 52 | 55 | 56 | 92 if response.status.is_some() => {
            Some(format!("the connection to {url} was cut before the reply ended{}", curl_said()))
        }
        _ => Some(format!("the request to {url} failed (curl exit status {code}){}", curl_said())),
    }
}

/// An error status, with the server's own words (its JSON error's
/// message, else the body's first lines) and what to check.
fn http_error(url: &str, http: u16, body: &[u8]) -> String {
    let hint = match http {
        401 | 403 => " (check the key: api_key_env or api_key_command in config.toml, or OPENAI_API_KEY)",
        404 => " (check base_url and the model name)",
        429 => " (too many requests, or out of quota: wait, or check your plan)",
        500..=599 => " (the server failed: try again later)",
        _ => "",
    };
    let words =
        super::decode::error_message(body).unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let words = one_line(&words);
    if words.is_empty() {
        format!("{url} answered HTTP {http}{hint}")
    } else {
        format!("{url} answered HTTP {http}{hint}: {words}")
    }
}

/// A server's or curl's words on one line, cut to what a line of stderr
/// holds: markup and blank runs folded to one space. The gate sees it
/// where it is shown (`report`).
fn one_line(text: &str) -> String {
    const MOST: usize = 300;
    // An HTML page's words are in its body (its title says them again).
    let lower = text.to_ascii_lowercase();
    let text = lower.find("<body").map_or(text, |at| &text[at..]);
    let mut line = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                line.push(' ');
            }
            _ if in_tag => {}
            c if c.is_whitespace() => line.push(' '),
            c => line.push(c),
        }
    }
    let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
    let mut line = words.join(" ");
    if line.chars().count() > MOST {
        line = line.chars().take(MOST).collect::<String>() + "…";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    fn answered(bytes: &[&[u8]]) -> (Response, Vec<u8>) {
        let mut response = Response::default();
        let mut body = Vec::new();
        for piece in bytes {
            body.extend_from_slice(response.feed(piece));
        }
        (response, body)
    }

    #[test]
    fn the_body_follows_the_last_head_in_any_pieces() {
        let answer: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nA: b\r\n\r\ndata: x\n\n";
        for cut in 0..answer.len() {
            let (response, body) = answered(&[&answer[..cut], &answer[cut..]]);
            assert!(response.succeeded(), "cut at {cut}");
            assert_eq!(body, b"data: x\n\n", "cut at {cut}");
        }
    }

    #[test]
    fn an_error_body_is_kept_to_be_said_never_passed_on() {
        let (response, body) = answered(&[b"HTTP/2 500 \r\n\r\nInternal Server Error"]);
        assert!(body.is_empty());
        let url = "http://h/v1/chat/completions";
        let said = failure(url, exited(0), b"", &response).unwrap();
        assert_eq!(
            said,
            "http://h/v1/chat/completions answered HTTP 500 (the server failed: try again later): Internal \
                Server Error"
        );
        let (response, _) =
            answered(&[b"HTTP/1.1 404 Not Found\r\n\r\n{\"error\":{\"message\":\"no model x\"}}"]);
        assert!(failure(url, exited(0), b"", &response).unwrap().ends_with("model name): no model x"));
    }

    #[test]
    fn what_curl_says_is_one_line_per_failure() {
        let url = "http://127.0.0.1:9/v1/chat/completions";
        let none = Response::default();
        let (ok, _) = answered(&[b"HTTP/1.1 200 OK\r\n\r\n"]);
        assert_eq!(failure(url, exited(0), b"", &ok), None);
        assert!(
            failure(url, exited(7), b"curl: (7) Failed to connect", &none)
                .unwrap()
                .starts_with("cannot connect")
        );
        assert!(failure(url, exited(18), b"curl: (18) transfer closed", &ok).unwrap().contains("was cut"));
        assert_eq!(failure(url, exited(127), b"", &none).unwrap(), NOT_INSTALLED);
        assert!(failure(url, exited(0), b"", &none).unwrap().contains("no HTTP answer"));
        assert_eq!(
            one_line("<html><title>502</title><body><h1>502 Bad\n Gateway</h1></body></html>"),
            "502 Bad Gateway"
        );
    }

    #[test]
    fn urls_as_the_script_makes_them() {
        assert_eq!(url_of("http://h:1/v1"), "http://h:1/v1/chat/completions");
        assert_eq!(url_of("http://h:1/v1/"), "http://h:1/v1/chat/completions");
    }
}
