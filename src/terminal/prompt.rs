//! What a person types at the terminal: lines that Ctrl-C cancels (through
//! the line editor where the terminal can take it), and yes/no questions.

use std::io::{self, Read, Write};

use crate::error::{Error, Result};
use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;
use crate::terminal::keys;
use crate::terminal::lineedit::Editor;
pub(crate) use crate::terminal::lineedit::Line;

/// Where the chat reads what is typed: the line editor on a terminal that
/// can take it, else line by line, as the terminal's own line discipline
/// edits them (TERM=dumb, a terminal that does not answer).
pub(crate) enum LineReader {
    /// Line by line; `typed_ahead` is what was typed while the terminal was
    /// asked whether it can take the editor (read in raw mode: Enter as CR).
    Lines {
        typed_ahead: Vec<u8>,
    },
    Editor(Box<Editor>),
}

impl LineReader {
    /// Called only for an interactive chat: nothing of the editor runs in
    /// one-shot or scripted use.
    pub(crate) fn for_chat() -> LineReader {
        match Editor::for_terminal() {
            Ok(editor) => LineReader::Editor(Box::new(editor)),
            Err(typed) => LineReader::Lines {
                typed_ahead: typed.into_iter().map(|b| if b == b'\r' { b'\n' } else { b }).collect(),
            },
        }
    }

    /// Run `during` with the terminal in its ordinary mode (the editor
    /// keeps it raw between lines): an agent's reply, an external editor.
    pub(crate) fn cooked<T>(&mut self, during: impl FnOnce() -> T) -> T {
        match self {
            LineReader::Editor(editor) => editor.cooked(during),
            LineReader::Lines { .. } => during(),
        }
    }

    /// Run `during` (an agent's reply) with the terminal in its ordinary
    /// mode but without echo: what is typed meanwhile is held, unseen, and
    /// comes to the next prompt.
    pub(crate) fn replying<T>(&mut self, during: impl FnOnce() -> T) -> T {
        match self {
            LineReader::Editor(editor) => editor.cooked_quietly(during),
            LineReader::Lines { .. } if sys::isatty(0) => crate::terminal::raw::echo_off_during(0, during),
            LineReader::Lines { .. } => during(),
        }
    }

    /// Whether lines are read by the editor (not line by line).
    pub(crate) fn is_editor(&self) -> bool {
        matches!(self, LineReader::Editor(_))
    }

    /// Text the next prompt starts with, to be read and sent with Enter
    /// (what `/edit` brings back). Only the editor can.
    pub(crate) fn prefill(&mut self, text: String) {
        if let LineReader::Editor(editor) = self {
            editor.prefill(text);
        }
    }

    /// One message, after `prompt` (the session's name). The editor
    /// recalls `history` (Up, Down, Ctrl-R); line by line, the terminal's
    /// own line discipline edits the line.
    /// `complete` is what Tab may make of a slash command (the editor's).
    pub(crate) fn read(
        &mut self,
        prompt: &str,
        history: &crate::terminal::history::History,
        complete: &mut dyn FnMut(&str) -> Vec<String>,
    ) -> Result<Line> {
        match self {
            LineReader::Editor(editor) => editor.read_line(prompt, history, complete),
            LineReader::Lines { typed_ahead } => {
                {
                    let mut out = io::stdout().lock();
                    let _ = write!(out, "{prompt}");
                    let _ = out.flush();
                }
                Ok(match read_line_after(typed_ahead)? {
                    // Arrow keys and the like arrive here as escape
                    // sequences: they are no part of the message.
                    Line::Text(text) => Line::Text(keys::paste_text(text.as_bytes())),
                    other => other,
                })
            }
        }
    }
}

/// One line from the terminal. Reads byte by byte so that Ctrl-C (EINTR)
/// cancels the line instead of being retried away inside std.
pub(crate) fn read_line() -> Result<Line> {
    read_line_after(&mut Vec::new())
}

/// One line, taking first from `typed_ahead` (bytes already read).
fn read_line_after(typed_ahead: &mut Vec<u8>) -> Result<Line> {
    if let Some(end) = typed_ahead.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = typed_ahead.drain(..=end).take(end).collect();
        return Ok(Line::Text(String::from_utf8_lossy(&line).into_owned()));
    }
    let mut bytes = std::mem::take(typed_ahead);
    let mut stdin = io::stdin();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) if bytes.is_empty() => return Ok(Line::End),
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if bytes.len() < MAX_MESSAGE_BYTES => bytes.push(byte[0]),
            Ok(_) => {
                // The rest of the line goes too, not into the next one.
                while matches!(stdin.read(&mut byte), Ok(1)) && byte[0] != b'\n' {}
                return Err(Error::TooLarge(format!(
                    "the line is longer than {} MiB; nothing was sent",
                    MAX_MESSAGE_BYTES >> 20
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => match sys::take_signal() {
                Some(sys::SIGINT) => return Ok(Line::Cancelled),
                Some(_) => return Err(Error::Interrupted),
                None => continue,
            },
            Err(e) => {
                return Err(Error::TerminalRead(e));
            }
        }
    }
    Ok(Line::Text(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Ask a yes/no question on the terminal. Off a terminal there is nobody to
/// ask: refuse, and say how to go ahead.
pub(crate) fn confirm(question: &str, doing: &str, verb: &str) -> Result<bool> {
    if !sys::isatty(0) {
        return Err(Error::Refused(format!(
            "not {doing} without confirmation: stdin is not a terminal; add --yes to {verb}"
        )));
    }
    let mut err = io::stderr();
    let _ = write!(err, "{} [y/N] ", crate::text::printable(question, true));
    let _ = err.flush();
    sys::catch_interrupts();
    match read_line()? {
        Line::Text(answer) => Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES")),
        Line::End => {
            crate::output::note!("");
            Ok(false)
        }
        // Nothing is done yet: Ctrl-C at the question stops here and now.
        Line::Cancelled => {
            crate::output::note!("");
            Err(Error::Interrupted)
        }
    }
}
