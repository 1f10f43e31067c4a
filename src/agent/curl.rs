//! The shipped `openai-compatible` agent's turn, done by hermes itself:
//! curl started directly, with no shell between (what
//! `contrib/agents/openai-compatible` does for a user who runs it by hand,
//! and says the same way when it fails). The request body is hermes's own
//! (`write_input`, on curl's stdin, as the script posts it); the server's
//! answer is curl's stdout, which the decoder reads as any agent's output;
//! curl's stderr (its own message, then the HTTP status `--write-out`
//! puts there) is kept and judged once curl has exited.
//!
//! The key reaches curl through a pipe that curl reads as a file of
//! headers (`--header @/dev/fd/N`): never on a command line, where `ps`
//! shows it to every user, nor in a file. Written whole before curl
//! starts and closed, so curl reads it and its end at once.

use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};

use crate::sys;

/// The shipped agent whose turn hermes does itself.
pub(crate) const AGENT: &str = crate::settings::SERVER_AGENT;

/// How the script names itself in what it says.
const ME: &str = "openai-compatible";

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
/// drops once curl has started.
pub(crate) fn command(url: &str, key: Option<&str>) -> io::Result<(Command, Option<OwnedFd>)> {
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
    curl.args(["--silent", "--show-error", "--no-buffer", "--request", "POST"])
        .args(["--header", "Content-Type: application/json", "--header", "Accept: text/event-stream"])
        .args(["--write-out", "%{stderr}%{http_code}", "--data-binary", "@-", url]);
    Ok((curl, key_pipe))
}

/// Why curl could not be started at all, said as the script says it; the
/// exit status the script has then.
pub(crate) fn not_started(e: &io::Error) -> i32 {
    if e.kind() == io::ErrorKind::NotFound {
        say(&format!("{ME}: curl is not installed"));
        127
    } else {
        say(&format!("curl: {}", crate::error::describe_io(e)));
        say(&format!("{ME}: curl could not start (exit status 126)"));
        126
    }
}

/// What curl's `status` and what it wrote on `stderr` come to, said as the
/// script says it: the exit status the script has then. A reply the
/// server sent with an error status went to the decoder, which names the
/// server's message.
pub(crate) fn judge(url: &str, status: ExitStatus, stderr: &[u8]) -> ExitStatus {
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    let text = String::from_utf8_lossy(stderr);
    let result = text.trim_end_matches('\n');
    // `--write-out` puts the HTTP status (three digits) last.
    let cut = result.len().saturating_sub(3);
    let (said, http) = match result.get(cut..) {
        Some(http) if result.len() >= 3 => (result[..cut].trim_end_matches('\n'), http),
        _ => (result, ""),
    };
    let exit = match code {
        0 if http.starts_with('2') => 0,
        0 => {
            let hint = match http {
                "401" | "403" => {
                    " (check the key: api_key_env or api_key_command in config.toml, or OPENAI_API_KEY)"
                }
                "404" => " (check base_url and the model name)",
                "429" => " (too many requests, or out of quota: wait, or check your plan)",
                _ if http.starts_with('5') => " (the server failed: try again later)",
                _ => "",
            };
            let http = if http.is_empty() { "without a status" } else { http };
            say(&format!("{ME}: {url} answered HTTP {http}{hint}"));
            1
        }
        // Where the spawn cannot tell a missing program (a vfork emulated
        // as fork, as under qemu-user) the child exits 127 saying nothing;
        // curl itself never exits 127, and a loader that cannot load it
        // says why.
        127 if result.is_empty() => {
            say(&format!("{ME}: curl is not installed"));
            code
        }
        126 | 127 => {
            if !result.is_empty() {
                say(result);
            }
            say(&format!("{ME}: curl could not start (exit status {code})"));
            code
        }
        6 | 7 => {
            say(&format!(
                "{ME}: cannot connect to {url}: is the server running? (base_url in config.toml, or OPENAI_BASE_URL)"
            ));
            code
        }
        _ => {
            if !said.is_empty() {
                say(said);
            }
            say(&format!("{ME}: the request to {url} failed (curl exit status {code})"));
            code
        }
    };
    ExitStatus::from_raw(exit << 8)
}

/// A line on stderr, as the agent's own stderr would show it: through the
/// gate.
fn say(line: &str) {
    // hermes's own line: on a terminal, wrapped at words as `note!` wraps.
    let shown = crate::text::printable(line, true);
    let _ = sys::write_fd(2, format!("{}\n", crate::output::fitted(2, &shown)).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    #[test]
    fn the_status_is_the_scripts() {
        let url = "http://127.0.0.1:9/v1/chat/completions";
        assert_eq!(judge(url, exited(0), b"200").code(), Some(0));
        assert_eq!(judge(url, exited(0), b"401").code(), Some(1));
        assert_eq!(judge(url, exited(0), b"").code(), Some(1));
        assert_eq!(judge(url, exited(7), b"curl: (7) Failed to connect\n000").code(), Some(7));
        assert_eq!(judge(url, exited(127), b"curl: error while loading shared libraries").code(), Some(127));
        assert_eq!(judge(url, exited(28), b"curl: (28) timed out\n000").code(), Some(28));
        assert_eq!(judge(url, ExitStatus::from_raw(9), b"").code(), Some(137));
    }

    #[test]
    fn urls_as_the_script_makes_them() {
        assert_eq!(url_of("http://h:1/v1"), "http://h:1/v1/chat/completions");
        assert_eq!(url_of("http://h:1/v1/"), "http://h:1/v1/chat/completions");
    }
}
