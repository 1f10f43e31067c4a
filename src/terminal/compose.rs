//! Writing a message in the user's own editor: `$VISUAL`, else `$EDITOR`,
//! else `vi`, on a private temporary file that is removed afterwards.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::process::Command;

use crate::error::{Error, Result};
use crate::sys;

/// The editor command, as the shell will read it (`code -w` works).
pub(crate) fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .find(|value| !value.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Open `initial` in the editor and return what was saved. The terminal
/// must be in its ordinary mode (the caller's raw mode suspended).
pub(crate) fn in_editor(initial: &str) -> Result<String> {
    let (path, mut file) = private_temp_file()?;
    let written = file.write_all(initial.as_bytes()).and_then(|_| file.flush());
    drop(file);
    let result = written.map_err(|e| Error::io(&path, e)).and_then(|()| run_editor(&path));
    let _ = fs::remove_file(&path);
    result
}

fn run_editor(path: &PathBuf) -> Result<String> {
    let editor = editor_command();
    let status = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .map_err(|source| Error::Editor { editor: editor.to_string(), source })?;
    // Ctrl-C inside the editor is the editor's; a SIGTERM or SIGHUP still ends hermes.
    match sys::take_signal() {
        Some(signal) if signal != sys::SIGINT => return Err(Error::Interrupted),
        _ => {}
    }
    if !status.success() {
        let how = match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed".to_string(),
        };
        return Err(Error::Refused(format!("the editor '{editor}' {how}; nothing was sent")));
    }
    let bytes = fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// A new file only this user can read, in $TMPDIR (else /tmp).
fn private_temp_file() -> Result<(PathBuf, fs::File)> {
    let dir = std::env::temp_dir();
    let mut attempt = 0u32;
    loop {
        let name = format!("hermes-message-{}-{}.md", std::process::id(), attempt);
        let path = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
}
