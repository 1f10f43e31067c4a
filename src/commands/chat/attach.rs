//! Files in a message (`chat -f FILE`, `/file FILE`): each text file read
//! whole before anything is saved, and put into the message fenced and
//! named, as Markdown shows code:
//!
//! ````text
//! notes/todo.md:
//! ```md
//! ...
//! ```
//! ````
//!
//! An image (PNG, JPEG, GIF or WebP, told by its first bytes) goes with
//! the message as an image: kept in the store by its hash when the message
//! is saved (`store::images`), named in the message, never inside its text.
//! Any other file that is not text (a NUL byte, or not UTF-8: a PDF, a
//! program) is refused, saying what it looks like; so are more files, or
//! more text, than one message may hold, an image larger than 20 MiB or
//! cut short, and what is not a regular file (a FIFO, a device: it may
//! never end), before anything is read.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};
use crate::store::images::{self, Kind, MAX_IMAGE_BYTES};
use crate::store::session::MAX_MESSAGE_BYTES;

/// The most files one message takes.
pub(crate) const MAX_FILES: usize = 32;

/// A text file or an image, read.
#[derive(Debug, PartialEq)]
pub(crate) struct Attached {
    /// Its name as given (`notes/todo.md`), on one line.
    pub(crate) name: String,
    pub(crate) text: String,
    /// An image (then `text` is empty): its kind and its bytes.
    pub(crate) image: Option<(&'static Kind, Vec<u8>)>,
}

impl Attached {
    /// The file fenced and named, as the message holds it: a fence longer
    /// than any run of backticks in it, the name's extension as its
    /// language.
    pub(crate) fn fenced(&self) -> String {
        let longest = self.text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat((longest + 1).max(3));
        let language = Path::new(&self.name).extension().and_then(OsStr::to_str).unwrap_or("");
        let language = if language.chars().all(|c| c.is_ascii_alphanumeric()) { language } else { "" };
        let text = self.text.trim_end_matches(['\n', '\r']);
        format!("{}:\n{fence}{language}\n{text}\n{fence}", self.name)
    }
}

/// Read `path` (`-f FILE`, `/file FILE`: `place` says which) as a file to
/// put into a message: text, within the message's limit.
pub(crate) fn read(path: &OsStr, place: &str) -> Result<Attached> {
    let shown = Path::new(path).display().to_string();
    let name = crate::text::printable(&shown, false).into_owned();
    let fail = |why: String| Error::usage(format!("{place} {name}: {why}"));
    // A pipe named on the command line (`-f <(git diff)`) is opened and
    // read as it comes: hermes's terminal is not raw yet, and Ctrl-C ends
    // it as ever. Anything else never blocks: a FIFO is opened without
    // waiting for a writer, and refused below before anything is read.
    let pipe_on_command_line = place == "-f" && {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    };
    let no_wait = if pipe_on_command_line { 0 } else { libc::O_NONBLOCK };
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(no_wait | libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let near =
                nearest_file(Path::new(path)).map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
            return Err(fail(format!("no such file{near}")));
        }
        Err(e) => return Err(fail(format!("cannot read it: {}", crate::error::describe_io(&e)))),
    };
    let meta = file.metadata().map_err(|e| fail(crate::error::describe_io(&e)))?;
    if meta.is_dir() {
        return Err(fail("a directory; give its files one by one".into()));
    }
    if let Some(kind) = not_regular(&meta.file_type()).filter(|_| !pipe_on_command_line) {
        // What may never end (a FIFO, a terminal, a device) would hold the
        // chat, whose terminal is raw, beyond Ctrl-C.
        return Err(fail(format!(
            "{kind}, not a regular file; a message takes files, which end; nothing was read"
        )));
    }
    let mut bytes = Vec::new();
    let most = MAX_MESSAGE_BYTES.max(MAX_IMAGE_BYTES);
    let read = file.by_ref().take(most as u64 + 1).read_to_end(&mut bytes);
    read.map_err(|e| fail(format!("cannot read it: {}", crate::error::describe_io(&e))))?;
    if let Some(kind) = images::kind_of(&bytes) {
        return image(name, kind, bytes, place);
    }
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "{place} {name}: larger than a message may be ({} MiB); nothing was saved",
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    if let Some(kind) = not_text(&bytes) {
        return Err(fail(format!(
            "not a text file ({kind}); a message holds text files and PNG, JPEG, GIF or WebP images only, \
                nothing was saved"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?;
    Ok(Attached { name, text, image: None })
}

/// The image `bytes` of `kind`, read from `name`: within the limit, and
/// whole as far as its header goes.
fn image(name: String, kind: &'static Kind, bytes: Vec<u8>, place: &str) -> Result<Attached> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "{place} {name}: {} larger than an image may be ({} MiB); nothing was saved",
            kind.what,
            MAX_IMAGE_BYTES >> 20
        )));
    }
    if images::cut_short(kind, &bytes) {
        return Err(Error::usage(format!(
            "{place} {name}: {} cut short (its header is incomplete); nothing was saved",
            kind.what
        )));
    }
    Ok(Attached { name, text: String::new(), image: Some((kind, bytes)) })
}

/// What a file that is neither a regular file nor a directory is.
fn not_regular(kind: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() || kind.is_dir() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() {
        Some("a character device")
    } else {
        Some("a device")
    }
}

/// What a file that is not text looks like: a kind of image or document
/// hermes knows by its first bytes, else where the first byte that no
/// text has is; None for UTF-8 text without a NUL.
fn not_text(bytes: &[u8]) -> Option<String> {
    const KNOWN: [(&[u8], &str); 6] = [
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"),
        (b"\x7fELF", "a program"),
        (b"PK\x03\x04", "a zip archive"),
    ];
    if let Some((_, kind)) = KNOWN.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return Some(kind.to_string());
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        return Some("a WebP image".into());
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Some(format!("binary: a NUL byte at offset {at}"));
    }
    std::str::from_utf8(bytes)
        .err()
        .map(|e| format!("not UTF-8: byte {} at offset {}", bytes[e.valid_up_to()], e.valid_up_to()))
}

/// The name in `path`'s directory nearest to the one missing there, as
/// it would be given (`notes/todo.md`).
fn nearest_file(path: &Path) -> Option<String> {
    let wanted = path.file_name()?.to_str()?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let names: Vec<String> = std::fs::read_dir(dir.unwrap_or(Path::new(".")))
        .ok()?
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    let near = crate::text::nearest(wanted, names.iter().map(String::as_str))?;
    Some(match dir {
        Some(dir) => dir.join(near).display().to_string(),
        None => near.to_string(),
    })
}

/// What titles a new session (no `--title`): what the user wrote (`-q
/// TEXT`, or the text typed with `/file`), else the first file's name;
/// none when neither (the message's first line titles it). So `git diff
/// | hermes chat -q "review this"` is titled "review this", not by the
/// diff's first line.
pub(crate) fn title_hint(files: &[Attached], typed: &str) -> Option<String> {
    if !typed.trim().is_empty() {
        return Some(typed.to_string());
    }
    files.first().map(|first| first.name.clone())
}

/// A message made of pieces, each kept apart from the next by a blank
/// line, blank pieces left out: what came on stdin, the files, the text.
pub(crate) fn compose(before: &str, files: &[Attached], after: &str) -> Result<String> {
    if files.len() > MAX_FILES {
        return Err(Error::usage(format!(
            "{} files in one message; it takes at most {MAX_FILES}",
            files.len()
        )));
    }
    let fenced = files.iter().filter(|f| f.image.is_none()).map(Attached::fenced);
    let pieces = std::iter::once(before.trim_end_matches(['\n', '\r']).to_string()).chain(fenced);
    let pieces = pieces.chain(std::iter::once(after.to_string()));
    let text = pieces.filter(|p| !p.trim().is_empty()).collect::<Vec<_>>().join("\n\n");
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "the message with its files is larger than {} MiB; nothing was saved",
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    Ok(text)
}

impl super::Chat<'_> {
    /// What the files of the next message make of it, just before it is
    /// saved: the title a new session takes (see `title_hint`), and its
    /// images, kept in the store (`save_user_message` names them).
    pub(super) fn take_files(&self, files: &[Attached], typed: &str) -> Result<()> {
        *self.title_hint.borrow_mut() = title_hint(files, typed);
        *self.images.borrow_mut() = keep_images(self.store, files)?;
        Ok(())
    }
}

/// The images among `files`, kept in the store: as the message names them.
fn keep_images(
    store: &crate::store::Store,
    files: &[Attached],
) -> Result<Option<Vec<crate::store::session::Image>>> {
    let mut kept = Vec::new();
    for f in files {
        if let Some((kind, bytes)) = &f.image {
            let file = store.keep_image(bytes, kind)?;
            kept.push(crate::store::session::Image { name: f.name.clone(), file, bytes: bytes.len() as u64 });
        }
    }
    Ok((!kept.is_empty()).then_some(kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_fenced_and_named_with_a_fence_longer_than_its_backticks() {
        let a = Attached { name: "src/x.rs".into(), text: "fn main() {}\n".into(), image: None };
        assert_eq!(a.fenced(), "src/x.rs:\n```rs\nfn main() {}\n```");
        let b = Attached { name: "README".into(), text: "a ```` b\n".into(), image: None };
        assert_eq!(b.fenced(), "README:\n`````\na ```` b\n`````");
        let c = Attached { name: "odd.t-x".into(), text: "x".into(), image: None };
        assert_eq!(c.fenced(), "odd.t-x:\n```\nx\n```");
    }

    #[test]
    fn what_is_not_text_is_said_by_what_it_looks_like() {
        assert_eq!(not_text(b"\x89PNG\r\n\x1a\n\0\0").as_deref(), Some("a PNG image"));
        assert_eq!(not_text(b"RIFF\0\0\0\0WEBPVP8 ").as_deref(), Some("a WebP image"));
        assert_eq!(not_text(b"ab\0c").as_deref(), Some("binary: a NUL byte at offset 2"));
        assert_eq!(not_text(b"caf\xe9").as_deref(), Some("not UTF-8: byte 233 at offset 3"));
        assert_eq!(not_text("café\n".as_bytes()), None);
    }

    #[test]
    fn pieces_are_kept_apart_by_a_blank_line_and_blank_ones_left_out() {
        let f = [Attached { name: "a".into(), text: "x\n".into(), image: None }];
        assert_eq!(compose("log\n", &f, "why?").unwrap(), "log\n\na:\n```\nx\n```\n\nwhy?");
        assert_eq!(compose("", &f, "").unwrap(), "a:\n```\nx\n```");
        assert_eq!(compose("", &[], "q").unwrap(), "q");
        let many: Vec<Attached> =
            (0..=MAX_FILES).map(|_| Attached { name: "a".into(), text: "x".into(), image: None }).collect();
        assert!(compose("", &many, "").is_err());
    }
}
