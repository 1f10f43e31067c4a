//! `-e`: the reply's one command, shown on the terminal and run with
//! `$SHELL -c` only when the user says so; the choice (and the command's
//! exit status) kept in the session as a note. Without a terminal to ask
//! on, nothing is run.

use std::io::Write;

use super::Chat;
use crate::error::{Error, Result};
use crate::store::session::Message;
use crate::terminal::prompt::{self, Line, LineReader};
use crate::{output, sys, time};

/// What the user chose at the question.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Choice {
    Run,
    Edit,
    Copy,
    No,
}

impl Chat<'_> {
    /// `-e`: once the reply is shown (and kept, in `kept`'s session unless
    /// `--no-save`), its command: asked about, and run if the user says so.
    /// hermes then exits with the command's status.
    pub(super) fn execute_reply(&self, kept: Option<&str>) -> Result<()> {
        if !self.execute {
            return Ok(());
        }
        let reply = self.reply_for_json.borrow().as_ref().map(|m| m.content.clone()).unwrap_or_default();
        let Some(mut command) = command_of(&reply) else {
            let kept = kept.map_or(" (--no-save: it is not kept)".to_string(), |id| {
                format!("; it is kept: hermes sessions show {id}")
            });
            return Err(Error::Agent(format!(
                "-e: the reply is not one command (one fenced block, or a line){kept}"
            )));
        };
        if !(sys::isatty(0) && sys::isatty(2)) {
            let mut out = crate::output::Out::new();
            out.data(&command)?;
            out.data("\n")?;
            out.flush()?;
            return Err(Error::Refused(
                "-e: not run: there is no terminal to ask on (stdin and stderr); the command is printed"
                    .into(),
            ));
        }
        let status = loop {
            show(&command);
            match ask()? {
                Choice::Run => break run(&command)?,
                Choice::Edit => {
                    // The editor keeps the terminal raw while it lives:
                    // gone before the question is asked again.
                    let mut reader = LineReader::for_chat();
                    reader.prefill(command.clone());
                    let history = crate::terminal::history::History::default();
                    let edited = reader.read("command> ", &history, &mut |_| Vec::new())?;
                    drop(reader);
                    if let Line::Text(text) = edited
                        && !text.trim().is_empty()
                    {
                        command = text.trim().to_string();
                    }
                }
                Choice::Copy => {
                    self.copy_text("the command", &command)?;
                    self.note_execution(kept, &command, "copied, not run");
                    return Ok(());
                }
                Choice::No => {
                    output::note!("Not run.");
                    self.note_execution(kept, &command, "not run");
                    return Ok(());
                }
            }
        };
        let how = match status {
            0 => "ran it: exit status 0".to_string(),
            code if code > 128 => format!("ran it: stopped by signal {}", code - 128),
            code => format!("ran it: exit status {code}"),
        };
        self.note_execution(kept, &command, &how);
        match status {
            0 => Ok(()),
            code => Err(Error::Silent(code)),
        }
    }

    /// The note of what became of the command, after the reply.
    fn note_execution(&self, kept: Option<&str>, command: &str, what: &str) {
        let Some(id) = kept else { return };
        let note = Message::new("system", format!("hermes -e: {what}: {command}"), time::now());
        if let Err(e) = self.store.append(id, &[note], |_| {}) {
            output::warn(&format!("-e: what became of the command was not noted in the session: {e}"));
        }
    }
}

/// The command of a reply: the text of its one fenced block, or the reply
/// itself when it is one line (a `$ ` prompt or backticks around it
/// taken off). None for anything else.
fn command_of(reply: &str) -> Option<String> {
    let blocks = super::copy::code_blocks(reply);
    let command = match blocks.as_slice() {
        [one] => one.trim().to_string(),
        [] => {
            let line = reply.trim();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            let line = line.strip_prefix('`').and_then(|l| l.strip_suffix('`')).unwrap_or(line);
            if line.contains('\n') {
                return None;
            }
            line.trim().to_string()
        }
        _ => return None,
    };
    Some(command).filter(|c| !c.is_empty())
}

/// The command on stderr, through the gate, set off from the reply.
fn show(command: &str) {
    let mut err = std::io::stderr().lock();
    let shown = crate::text::TerminalFilter::new(false).whole(command).into_owned();
    let _ = writeln!(err, "\n  {}", shown.replace('\n', "\n  "));
}

/// The question, until it has an answer: Enter, `n` and Ctrl-D are no.
fn ask() -> Result<Choice> {
    loop {
        {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "Run it? [r]un, [e]dit, [c]opy, [n]o: ");
            let _ = err.flush();
        }
        sys::catch_interrupts();
        let answer = match prompt::read_line()? {
            Line::Text(answer) => answer.trim().to_lowercase(),
            Line::End => return Ok(Choice::No),
            Line::Cancelled => return Err(Error::Interrupted),
        };
        return Ok(match answer.as_str() {
            "r" | "run" | "y" | "yes" => Choice::Run,
            "e" | "edit" => Choice::Edit,
            "c" | "copy" => Choice::Copy,
            "" | "n" | "no" => Choice::No,
            _ => continue,
        });
    }
}

/// Run `command` with `$SHELL -c` (else `/bin/sh`) on the terminal; its
/// exit status, 128 + the signal's number when a signal ended it.
fn run(command: &str) -> Result<i32> {
    let shell =
        std::env::var("SHELL").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "/bin/sh".into());
    let status =
        std::process::Command::new(&shell).arg("-c").arg(command).status().map_err(|e| {
            Error::Agent(format!("-e: cannot run {shell}: {}", crate::error::describe_io(&e)))
        })?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::command_of;

    #[test]
    fn a_command_is_one_block_or_one_line() {
        assert_eq!(command_of("```sh\necho ran-it\n```\n").as_deref(), Some("echo ran-it"));
        assert_eq!(command_of("Run:\n\n```\nls -l |\n  wc -l\n```\n").as_deref(), Some("ls -l |\n  wc -l"));
        assert_eq!(command_of("$ du -sh *").as_deref(), Some("du -sh *"));
        assert_eq!(command_of("`df -h`\n").as_deref(), Some("df -h"));
        assert_eq!(command_of("First this,\nthen that."), None);
        assert_eq!(command_of("```\na\n```\nor\n```\nb\n```"), None);
        assert_eq!(command_of("  \n"), None);
    }
}
