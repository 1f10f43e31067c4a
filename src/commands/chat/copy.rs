//! `/copy [code]`: the last reply, or its last code block, to the
//! clipboard through the terminal: OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`),
//! which works over ssh and, where tmux lets it through
//! (`set-clipboard on`), inside tmux. What is copied is what the screen
//! showed, as characters: text, newlines and tabs, every other control
//! character as the gate shows it (`^[`), so that a paste runs nothing.
//! What cannot work is said instead: no terminal, TERM=dumb, tmux's
//! set-clipboard not on, GNU screen, more than the terminal takes.

use super::Chat;
use super::state::Interactive;
use crate::error::{Error, Result};
use crate::output::{self, Out};
use crate::sys;

/// A reply larger than this is not copied: terminals cut such sequences,
/// or choke on them.
const MAX_COPY_BYTES: usize = 1 << 20;
/// The most bytes tmux keeps of one sequence after its `ESC ]` (its input
/// buffer doubles up to 1 MiB and needs a byte to spare): a longer one is
/// dropped whole, and the clipboard never hears of it.
const TMUX_SEQUENCE_MAX: usize = (1 << 20) - 2;

impl Chat<'_> {
    /// `/copy`: the last reply; `/copy code`: its last code block.
    pub(super) fn copy_command(&self, state: &Interactive, what: &str) -> Result<()> {
        let code = match what {
            "" => false,
            "code" => true,
            other => {
                return Err(Error::usage(format!(
                    "{}: copy the last reply, or its last code block, not '{other}'",
                    super::slash::usage("/copy")
                )));
            }
        };
        let Some(reply) = self.last_reply(state)? else {
            output::say!("Nothing to copy: this session has no reply yet.");
            return Ok(());
        };
        let stored = if code {
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
        let what = if code { "the last code block" } else { "the last reply" };
        self.copy_text(what, &stored)
    }

    /// Put `stored` on the clipboard through the terminal (OSC 52), as the
    /// screen showed it, and say so; or say why not. `what` names it.
    pub(super) fn copy_text(&self, what: &str, stored: &str) -> Result<()> {
        if let Some(why) = why_no_clipboard() {
            output::say!("Nothing copied: {why}.");
            return Ok(());
        }
        // What the screen showed, as characters: colours left out, every
        // other control character shown, never itself.
        let text = crate::text::TerminalFilter::new(false).whole(stored).into_owned();
        let (limit, taker) = if in_tmux() {
            (text_bytes_within(TMUX_SEQUENCE_MAX), "tmux takes")
        } else {
            (MAX_COPY_BYTES, "a terminal takes")
        };
        if text.len() > limit {
            let bytes = crate::text::thousands;
            output::say!(
                "Nothing copied: {what} is {} bytes, more than the {} {taker} in one clipboard sequence (OSC \
                    52).",
                bytes(text.len() as u64),
                bytes(limit as u64)
            );
            return Ok(());
        }
        let mut out = Out::new();
        out.write_own(&osc52(&text))?;
        out.flush()?;
        let shown = match controls(stored) {
            0 => String::new(),
            n => format!(
                "; {} in it as the screen shows {} (^[, \\u{{202e}}), not as {}",
                crate::text::counted(n, "control character"),
                if n == 1 { "it" } else { "them" },
                if n == 1 { "itself" } else { "themselves" }
            ),
        };
        output::say!(
            "Copied {what} ({}) to the clipboard, through the terminal (OSC 52){shown}.",
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

/// The characters of `text` that are not copied as themselves (see
/// `text::is_harmful`; a CRLF line end is a line end).
fn controls(text: &str) -> usize {
    let mut chars = text.chars().peekable();
    let mut n = 0;
    while let Some(c) = chars.next() {
        if crate::text::is_harmful(c, true) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            n += 1;
        }
    }
    n
}

/// The most bytes of text whose OSC 52 sequence has at most `limit`
/// bytes after its `ESC ]` (`52;c;`, then 4 base64 digits for each 3).
fn text_bytes_within(limit: usize) -> usize {
    (limit - "52;c;".len()) / 4 * 3
}

fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some()
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
    if in_tmux() {
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
                "tmux passes a program's clipboard sequence (OSC 52) on only with 'set -g set-clipboard \
                    on'{now}"
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
    format!("\x1b]52;c;{}\x07", crate::encoding::encode(text.as_bytes()))
}

/// The last fenced code block of a Markdown text (``` or ~~~, at most three
/// spaces in), without its fences; one left open runs to the end.
fn last_code_block(text: &str) -> Option<String> {
    code_blocks(text).pop()
}

/// Every fenced code block of a reply, in order, without its fences (one
/// left open at the end runs to the end).
pub(super) fn code_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(char, usize, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        let indent = line.len() - trimmed.len();
        let fence = |c: char| trimmed.chars().take_while(|x| *x == c).count();
        match &mut open {
            Some((c, len, lines)) => {
                if indent <= 3 && fence(*c) >= *len && trimmed.trim_start_matches(*c).trim().is_empty() {
                    blocks.push(lines.join("\n"));
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
        blocks.push(lines.join("\n"));
    }
    blocks
}

impl Chat<'_> {
    /// `-x`: the code blocks of the reply just made, to print once the
    /// turn is over; None without `-x`, or with no reply.
    pub(super) fn code_of_reply(&self) -> Option<Vec<String>> {
        let reply = self.reply_for_json.borrow();
        self.code.then(|| reply.as_ref().map(|m| code_blocks(&m.content))).flatten()
    }

    /// `-x`: print `code`, each block and a newline (with `--json` the
    /// object has them); a reply without any fails the turn, exit 3.
    /// `kept`: the session that keeps the reply (none: `--no-save`).
    pub(super) fn print_code(&self, code: Option<Vec<String>>, kept: Option<&str>) -> Result<()> {
        let Some(blocks) = code else { return Ok(()) };
        if blocks.is_empty() {
            return Err(Error::Agent(match kept {
                Some(id) => {
                    format!("-x: the reply has no fenced code block; it is kept: hermes sessions show {id}")
                }
                None => "-x: the reply has no fenced code block (--no-save: it is not kept)".to_string(),
            }));
        }
        if self.json {
            return Ok(());
        }
        let mut out = Out::new();
        for block in blocks {
            out.data(&block)?;
            out.data("\n")?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_the_text_in_base64_between_osc_52_and_bel() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn tmux_takes_768_kib_of_text_less_six_bytes() {
        let most = text_bytes_within(TMUX_SEQUENCE_MAX);
        assert_eq!(most, 786_426);
        let body = |n: usize| osc52(&"a".repeat(n)).len() - "\x1b]\x07".len();
        assert!(body(most) <= TMUX_SEQUENCE_MAX && body(most + 1) > TMUX_SEQUENCE_MAX);
    }

    #[test]
    fn control_characters_are_counted_as_the_gate_shows_them() {
        assert_eq!(controls("a\tb\nc\r\nd"), 0);
        assert_eq!(controls("\x1b[201~\u{7}\u{9b}\u{202e}\r"), 5);
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
