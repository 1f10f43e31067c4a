//! `/copy [code]`: the last reply, or its last code block, to the
//! clipboard through the terminal: OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`),
//! which works over ssh and, where tmux lets it through
//! (`set-clipboard on`), inside tmux. What cannot work is said instead:
//! no terminal, TERM=dumb, tmux's set-clipboard not on, GNU screen.

use super::Chat;
use super::state::Interactive;
use crate::error::{Error, Result};
use crate::output::{self, Out};
use crate::sys;

/// A reply larger than this is not copied: terminals cut such sequences,
/// or choke on them.
const MAX_COPY_BYTES: usize = 1 << 20;

impl Chat<'_> {
    /// `/copy`: the last reply; `/copy code`: its last code block.
    pub(super) fn copy_command(&self, state: &Interactive, what: &str) -> Result<()> {
        let code = match what {
            "" => false,
            "code" => true,
            other => {
                return Err(Error::usage(format!(
                    "/copy [code]: copy the last reply, or its last code block, not '{other}'"
                )));
            }
        };
        let Some(reply) = self.last_reply(state)? else {
            output::say!("Nothing to copy: this session has no reply yet.");
            return Ok(());
        };
        let text = if code {
            match last_code_block(&reply) {
                Some(block) => block,
                None => {
                    output::say!("The last reply has no code block; /copy copies all of it.");
                    return Ok(());
                }
            }
        } else {
            reply
        };
        if let Some(why) = why_no_clipboard() {
            output::say!("Nothing copied: {why}.");
            return Ok(());
        }
        if text.len() > MAX_COPY_BYTES {
            output::say!(
                "Nothing copied: {} is larger than the 1 MiB a terminal takes.",
                if code { "the code block" } else { "the reply" }
            );
            return Ok(());
        }
        let mut out = Out::new();
        out.write_own(&osc52(&text))?;
        out.flush()?;
        output::say!(
            "Copied {} ({}) to the clipboard, through the terminal (OSC 52).",
            if code { "the last code block" } else { "the last reply" },
            crate::text::counted(text.chars().count(), "character")
        );
        Ok(())
    }

    /// The session's last reply (one `/retry` replaced is not), as stored.
    fn last_reply(&self, state: &Interactive) -> Result<Option<String>> {
        let Some(h) = &state.current else { return Ok(None) };
        let vanished = || Error::Vanished { id: h.id.clone() };
        let mut reader = self.store.open(&h.id)?.ok_or_else(vanished)?;
        let mut last = None;
        while let Some(m) = reader.next_message().map_err(|_| vanished())? {
            if m.role == "assistant" && !m.is_replaced() {
                last = Some(m.content);
            }
        }
        Ok(last)
    }
}

/// Why OSC 52 cannot reach a clipboard from here, if it cannot.
fn why_no_clipboard() -> Option<String> {
    if !sys::isatty(1) {
        return Some("the output is not a terminal, and the clipboard is reached through one".into());
    }
    let term = std::env::var("TERM").unwrap_or_default();
    if term.is_empty() || term == "dumb" || term == "linux" {
        return Some(format!("this terminal (TERM={term}) takes no clipboard sequence (OSC 52)"));
    }
    if std::env::var_os("TMUX").is_some() {
        let shown = std::process::Command::new("tmux")
            .args(["show-options", "-gv", "set-clipboard"])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output();
        let setting =
            shown.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
        if setting != "on" {
            let now = if setting.is_empty() { String::new() } else { format!(" (it is {setting})") };
            return Some(format!(
                "tmux passes a program's clipboard sequence (OSC 52) on only with 'set -g set-clipboard on'{now}"
            ));
        }
    } else if std::env::var_os("STY").is_some() {
        return Some("GNU screen does not pass the clipboard sequence (OSC 52) on".into());
    }
    None
}

/// The sequence that puts `text` on the clipboard: OSC 52, `c` for the
/// clipboard, the text in base64, BEL.
fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(DIGITS[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The last fenced code block of a Markdown text (``` or ~~~, at most three
/// spaces in), without its fences; one left open runs to the end.
fn last_code_block(text: &str) -> Option<String> {
    let mut last = None;
    let mut open: Option<(char, usize, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let fence = |c: char| trimmed.chars().take_while(|x| *x == c).count();
        match &mut open {
            Some((c, len, lines)) => {
                if indent <= 3 && fence(*c) >= *len && trimmed.trim_start_matches(*c).trim().is_empty() {
                    last = Some(lines.join("\n"));
                    open = None;
                } else {
                    lines.push(line);
                }
            }
            None if indent <= 3 => {
                for c in ['`', '~'] {
                    let len = fence(c);
                    if len >= 3 && !(c == '`' && trimmed[len..].contains('`')) {
                        open = Some((c, len, Vec::new()));
                        break;
                    }
                }
            }
            None => {}
        }
    }
    if let Some((_, _, lines)) = open {
        last = Some(lines.join("\n"));
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_as_rfc_4648_has_it() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
        assert_eq!(base64("é\n".as_bytes()), "w6kK");
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn the_last_code_block_without_its_fences() {
        let reply = "Try:\n\n```sh\nls -l\n```\n\nor\n\n~~~~\na ``` b\n~~~~\nthen done";
        assert_eq!(last_code_block(reply).as_deref(), Some("a ``` b"));
        assert_eq!(last_code_block("```\nx\n  y\n```").as_deref(), Some("x\n  y"));
        assert_eq!(last_code_block("text ```not a fence```\n").as_deref(), None);
        assert_eq!(last_code_block("```py\nopen\nto the end").as_deref(), Some("open\nto the end"));
        assert_eq!(last_code_block("no code here"), None);
    }
}
