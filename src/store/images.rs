//! Images in messages (`chat -f photo.png`): each kept once in the
//! profile's `images/`, named by the SHA-256 of its bytes and its kind's
//! extension (`<64 hex digits>.png`), written atomically with mode 0600;
//! a message names it (`session::Image`), the session file never holds
//! its bytes. What no file in `sessions/` (or `damaged/`) names any more
//! goes with `sessions delete` and `prune`, once it is old enough not to
//! belong to a message still being saved.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Store;
use crate::error::Result;
use crate::fsio;

/// The largest image a message takes.
pub(crate) const MAX_IMAGE_BYTES: usize = 20 << 20;

/// An image younger than this may belong to a message being saved (it is
/// written, or its time renewed, just before the message): never removed.
const GRACE: Duration = Duration::from_secs(60);

/// A kind of image hermes sends: what it is called, its file's extension
/// and its media type.
#[derive(Debug, PartialEq)]
pub(crate) struct Kind {
    pub(crate) what: &'static str,
    pub(crate) ext: &'static str,
    pub(crate) media: &'static str,
    /// The fewest bytes a whole header of it takes.
    header: usize,
}

const KINDS: [Kind; 4] = [
    Kind { what: "a PNG image", ext: "png", media: "image/png", header: 33 },
    Kind { what: "a JPEG image", ext: "jpg", media: "image/jpeg", header: 4 },
    Kind { what: "a GIF image", ext: "gif", media: "image/gif", header: 13 },
    Kind { what: "a WebP image", ext: "webp", media: "image/webp", header: 16 },
];

/// The kind of image `bytes` are, by their first bytes (their magic).
pub(crate) fn kind_of(bytes: &[u8]) -> Option<&'static Kind> {
    let at = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        0
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        1
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        2
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        3
    } else {
        return None;
    };
    Some(&KINDS[at])
}

/// Whether an image of `kind` is cut short before its header ends (a PNG
/// must go on with its IHDR chunk): no server could read it.
pub(crate) fn cut_short(kind: &Kind, bytes: &[u8]) -> bool {
    bytes.len() < kind.header || (kind.ext == "png" && bytes.get(12..16) != Some(b"IHDR"))
}

/// The media type of a file in `images/` by its name; None for a name
/// that is not one hermes gives (so a session file's field never names a
/// path outside the directory).
pub(crate) fn media_type(file: &str) -> Option<&'static str> {
    let (hash, ext) = file.split_once('.')?;
    let hex = hash.len() == 64 && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    KINDS.iter().find(|k| k.ext == ext && hex).map(|k| k.media)
}

/// Where the file `file` of `images/` lies in `dir`, when `file` is a
/// name hermes gives.
pub(crate) fn path_in(dir: &Path, file: &str) -> Option<PathBuf> {
    media_type(file).map(|_| dir.join(file))
}

/// A size as people read it: `812 bytes`, `34 KiB`, `2.5 MiB`.
pub(crate) fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => crate::text::counted(bytes as usize, "byte"),
        1024..0x10_0000 => format!("{} KiB", bytes.div_ceil(1024)),
        _ => format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0)),
    }
}

/// `images/` in the profile's directory `home`.
pub(crate) fn dir_in(home: &Path) -> PathBuf {
    home.join("images")
}

impl Store {
    /// `images/` in the profile's directory.
    pub(crate) fn images_dir(&self) -> PathBuf {
        dir_in(&self.home)
    }

    /// Keep `bytes`, an image of `kind`, in `images/` (once: the same bytes
    /// are one file, whose time is renewed); its file's name.
    pub(crate) fn keep_image(&self, bytes: &[u8], kind: &Kind) -> Result<String> {
        let name = format!("{}.{}", crate::hash::sha256_hex(bytes), kind.ext);
        self.prepare()?;
        let dir = self.images_dir();
        fsio::ensure_private_dir(&dir)?;
        let path = dir.join(&name);
        if renewed(&path, bytes.len() as u64) {
            return Ok(name);
        }
        fsio::write_atomic(&path, bytes)?;
        Ok(name)
    }

    /// The images no session names, old enough to go (see `GRACE`), sorted;
    /// the sessions `leaving` (IDs, about to go) are taken as gone. Looked
    /// for only when there are images at all; none when a session file
    /// cannot be read (what it names is not known).
    pub(crate) fn unreferenced_images(&self, leaving: &[&str]) -> Vec<PathBuf> {
        let old = SystemTime::now().checked_sub(GRACE).unwrap_or(SystemTime::UNIX_EPOCH);
        let Ok(entries) = fs::read_dir(self.images_dir()) else { return Vec::new() };
        let mut candidates: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                media_type(&name)?;
                let meta = entry.metadata().ok().filter(|m| m.is_file())?;
                (meta.modified().ok()? < old).then(|| (name[..64].to_string(), entry.path()))
            })
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        let Ok(named) = self.hashes_named(leaving) else { return Vec::new() };
        candidates.retain(|(hash, _)| !named.contains_key(hash.as_str()));
        let mut paths: Vec<PathBuf> = candidates.into_iter().map(|(_, path)| path).collect();
        crate::order::sort(&mut paths);
        paths
    }

    /// Remove the images no session names (see `unreferenced_images`):
    /// how many went. The caller holds the store lock.
    pub(crate) fn remove_unreferenced_images(&self) -> Result<usize> {
        let doomed = self.unreferenced_images(&[]);
        for path in &doomed {
            fsio::remove(path)?;
        }
        Ok(doomed.len())
    }

    /// Every hash (a run of 64 lowercase hex digits) written anywhere in
    /// the files of `sessions/` and `damaged/` but those of the sessions
    /// `leaving`: a superset of the images their messages name, found
    /// without decoding a message, and whatever a file's damage.
    fn hashes_named(&self, leaving: &[&str]) -> io::Result<Named> {
        let mut named = Named::new();
        for dir in [self.sessions_dir.clone(), self.damaged_dir()] {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            for entry in entries {
                let entry = entry?;
                let name = entry.file_name();
                let id = name.to_str().and_then(|n| n.strip_suffix(".json"));
                if dir == self.sessions_dir && id.is_some_and(|id| leaving.contains(&id)) {
                    continue;
                }
                if entry.file_type()?.is_file() {
                    hashes_in(&entry.path(), &mut named)?;
                }
            }
        }
        Ok(named)
    }
}

/// Whether the image at `path` is there already, `len` bytes long: its
/// time renewed, so that no prune takes it before its message is saved.
fn renewed(path: &Path, len: u64) -> bool {
    let opened = OpenOptions::new().write(true).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC).open(path);
    opened.is_ok_and(|file| {
        file.metadata().is_ok_and(|m| m.is_file() && m.len() == len)
            && file.set_modified(SystemTime::now()).is_ok()
    })
}

/// Add every run of exactly 64 lowercase hex digits in the file at `path`
/// to `named`, reading it a piece at a time.
fn hashes_in(path: &Path, named: &mut Named) -> io::Result<()> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()), // removed meanwhile
        Err(e) => return Err(e),
    };
    let mut piece = vec![0u8; 256 << 10];
    let mut run: Vec<u8> = Vec::with_capacity(65);
    loop {
        let n = match file.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &b in &piece[..n] {
            if matches!(b, b'0'..=b'9' | b'a'..=b'f') {
                if run.len() <= 64 {
                    run.push(b);
                }
            } else {
                end_run(&mut run, named);
            }
        }
    }
    end_run(&mut run, named);
    Ok(())
}

/// The hashes named in sessions, as a set (the values unused): the map
/// of the catalog's kind, not a set of its own.
type Named = HashMap<String, u32>;

fn end_run(run: &mut Vec<u8>, named: &mut Named) {
    if run.len() == 64 {
        named.insert(String::from_utf8_lossy(run).into_owned(), 0);
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_by_their_first_bytes() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
        assert_eq!(kind_of(png).map(|k| k.ext), Some("png"));
        assert!(!cut_short(kind_of(png).unwrap(), png));
        assert!(cut_short(kind_of(png).unwrap(), &png[..20]));
        assert_eq!(kind_of(b"\xff\xd8\xff\xe0\0\x10JFIF").map(|k| k.media), Some("image/jpeg"));
        assert_eq!(kind_of(b"GIF89a\x01\0\x01\0\0\0\0").map(|k| k.ext), Some("gif"));
        assert_eq!(kind_of(b"RIFF\x24\0\0\0WEBPVP8 ").map(|k| k.ext), Some("webp"));
        assert_eq!(kind_of(b"\x89PNG"), None); // not even the signature
        assert_eq!(kind_of(b"%PDF-1.7"), None);
    }

    #[test]
    fn sizes_as_people_read_them() {
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(812), "812 bytes");
        assert_eq!(size(34 * 1024 - 100), "34 KiB");
        assert_eq!(size(5 << 19), "2.5 MiB");
    }

    #[test]
    fn only_names_hermes_gives_are_files_of_images() {
        let hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(media_type(&format!("{hash}.png")), Some("image/png"));
        assert_eq!(media_type(&format!("{hash}.webp")), Some("image/webp"));
        assert_eq!(media_type(&format!("{hash}.exe")), None);
        assert_eq!(media_type(&format!("{}.png", hash.to_uppercase())), None);
        assert_eq!(media_type("../../etc/passwd.png"), None);
        assert_eq!(path_in(Path::new("/h/images"), &format!("../{hash}.png")), None);
    }
}
