//! Which parts of a home hermes may trust, in the manner of ssh's
//! StrictModes: a directory or config file must belong to you (or root)
//! and be writable by no one else, and the directories hermes makes inside
//! its home must be directories, not links. Anything else could let
//! another user plant a config.toml whose agent hermes runs as you, or
//! steer a write or a sweep into a directory of their choosing.
//!
//! Group-writable is allowed only when the group is your private group
//! (its only member is you, as Debian's user private groups and its
//! openssh have it), so `umask 002` users are not refused their own files.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::sys;

/// Where a directory stands in the home.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Place {
    /// `$HERMES_HOME` itself: it may be a symbolic link (to a synced
    /// folder, say); the directory it reaches is what is checked.
    Home,
    /// A directory hermes makes inside the home (`sessions`, `damaged`,
    /// `terminal-sessions`, `profiles`, `profiles/NAME`): never a link.
    Inside,
}

/// What is wrong with a path, said as one line with the fix that fits.
#[derive(Debug, PartialEq)]
pub(crate) struct UntrustedPath {
    pub(crate) path: PathBuf,
    why: Why,
}

#[derive(Debug, PartialEq)]
enum Why {
    Link,
    NotRegular(&'static str),
    OthersOwn { uid: u32, mode: u32, place: Option<Place> },
    OthersWrite { uid: u32, mode: u32, place: Option<Place> },
}

impl UntrustedPath {
    /// The text of the error (or, on a read-only command, the warning).
    pub(crate) fn message(&self) -> String {
        let path = self.path.display();
        let described =
            |uid: u32, mode: u32| format!("{path} (owner {}, mode {:04o})", owner_name(uid), mode);
        let elsewhere = |place: &Option<Place>| match place {
            Some(Place::Inside) => "move it away and hermes makes its own".to_string(),
            _ => "use a directory of your own: set HERMES_HOME".to_string(),
        };
        match &self.why {
            Why::Link => format!(
                "{path} is a symbolic link; hermes follows no links inside its home: replace it with a \
                    directory (HERMES_HOME itself may be a link)"
            ),
            Why::NotRegular(kind) => {
                // config.toml or a role's file: the one that was opened.
                let name = self.path.file_name().unwrap_or(self.path.as_os_str()).to_string_lossy();
                format!("{path} is {kind}, not a regular file; {name} must be a file")
            }
            Why::OthersOwn { uid, mode, place } => {
                format!("{} belongs to another user; {}", described(*uid, *mode), elsewhere(place))
            }
            Why::OthersWrite { uid, mode, place } => {
                let fix = if *uid == sys::geteuid() {
                    let wanted = if place.is_some() { 700 } else { 600 };
                    format!("run 'chmod {wanted} {path}'")
                } else {
                    elsewhere(place)
                };
                let who = if mode & 0o002 != 0 { "anyone" } else { "its group" };
                format!("{} is writable by {who}; {fix}", described(*uid, *mode))
            }
        }
    }
}

/// Check a directory of the home; a path that does not exist yet is fine
/// (hermes creates it, mode 0700), and so, here, is one that is not a
/// directory at all.
pub(crate) fn check_dir(path: &Path, place: Place) -> Result<(), UntrustedPath> {
    let unsafe_because = |why| UntrustedPath { path: path.to_path_buf(), why };
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(_) => return Ok(()),
    };
    let meta = if meta.file_type().is_symlink() {
        if place == Place::Inside {
            return Err(unsafe_because(Why::Link));
        }
        match fs::metadata(path) {
            Ok(meta) => meta,
            Err(_) => return Ok(()), // a dangling link: creating the store says so
        }
    } else {
        meta
    };
    if !meta.is_dir() {
        // Not a matter of trust: writing the store fails on it with its own
        // message, and a breadcrumb (best effort) is just not kept.
        return Ok(());
    }
    check_owner_and_mode(&meta, Some(place)).map_err(unsafe_because)
}

/// Open a config file for reading, if there is one: a symbolic link is
/// followed (dotfile managers make them), but what it reaches must be a
/// regular file that passes the same owner and mode check. Opening never
/// blocks (a FIFO planted there is refused, not waited on).
pub(crate) fn open_config(path: &Path) -> io::Result<Option<Result<File, UntrustedPath>>> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    let unsafe_because = |why| UntrustedPath { path: path.to_path_buf(), why };
    let kind = meta.file_type();
    if !kind.is_file() {
        let name = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_dir() {
            "a directory"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return Ok(Some(Err(unsafe_because(Why::NotRegular(name)))));
    }
    Ok(Some(check_owner_and_mode(&meta, None).map(|()| file).map_err(unsafe_because)))
}

fn check_owner_and_mode(meta: &fs::Metadata, place: Option<Place>) -> Result<(), Why> {
    let (uid, mode) = (meta.uid(), meta.mode() & 0o7777);
    let me = sys::geteuid();
    if uid != me && uid != 0 {
        return Err(Why::OthersOwn { uid, mode, place });
    }
    if mode & 0o002 != 0 || mode & 0o020 != 0 && !is_private_group(meta.gid(), me) {
        return Err(Why::OthersWrite { uid, mode, place });
    }
    Ok(())
}

/// Why hermes was denied `path`, in the home `home`, when one of the
/// directories from the home down to it, or the file itself, belongs to
/// another user (root, most likely: `sudo hermes` with HOME kept made
/// them): the first such, whose it is, and the fix. None when what can be
/// seen is all yours (a mode you set yourself).
pub(crate) fn not_yours(home: &Path, path: &Path) -> Option<String> {
    let me = sys::geteuid();
    let below = path.strip_prefix(home).ok()?;
    let mut at = home.to_path_buf();
    // The home may be a link (see Place::Home): what it reaches counts.
    let mut owner = fs::metadata(&at).ok()?.uid();
    for part in below.components() {
        if owner != me {
            break;
        }
        at.push(part);
        owner = fs::symlink_metadata(&at).ok()?.uid();
    }
    if owner == me {
        return None;
    }
    let (user, other) = (owner_name(me), owner_name(owner));
    let chown_to = user_name(me).unwrap_or_else(|| me.to_string());
    Some(format!(
        "{} belongs to {other}, not to {user} (was hermes run as {other} with HOME kept, as sudo does?), so \
            hermes cannot use it; give it back: sudo chown -R {chown_to} {}",
        at.display(),
        home.display()
    ))
}

/// Whether group `gid` has one member, and that member is user `uid`: no
/// other account has it as its primary group, and /etc/group lists no one
/// but that user (Debian's rule for ssh's StrictModes). Unknown is no.
fn is_private_group(gid: u32, uid: u32) -> bool {
    let Some(passwd) = read_small("/etc/passwd") else { return false };
    let Some(group) = read_small("/etc/group") else { return false };
    let mut my_name = None;
    let mut primary_members = 0;
    for fields in passwd.lines().map(|l| l.split(':').collect::<Vec<_>>()).filter(|f| f.len() >= 4) {
        let (name, user, primary) = (fields[0], fields[2].parse::<u32>(), fields[3].parse::<u32>());
        if user == Ok(uid) && my_name.is_none() {
            my_name = Some(name);
        }
        if primary == Ok(gid) {
            if user != Ok(uid) {
                return false;
            }
            primary_members += 1;
        }
    }
    let Some(my_name) = my_name else { return false };
    let Some(entry) = group
        .lines()
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() >= 4 && f[2].parse::<u32>() == Ok(gid))
    else {
        return false;
    };
    let listed: Vec<&str> = entry[3].split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    match listed.as_slice() {
        [] => primary_members > 0,
        [only] => *only == my_name,
        _ => false,
    }
}

/// A user's name for a message, else `uid N`.
fn owner_name(uid: u32) -> String {
    user_name(uid).unwrap_or_else(|| format!("uid {uid}"))
}

/// A user's name in /etc/passwd, if it has one fit to show.
fn user_name(uid: u32) -> Option<String> {
    read_small("/etc/passwd")
        .and_then(|passwd| {
            passwd.lines().find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() >= 3 && f[2].parse::<u32>() == Ok(uid)).then(|| f[0].to_string())
            })
        })
        .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_graphic()))
}

/// A system file such as /etc/passwd (which may be a link), bounded.
fn read_small(path: &str) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    File::open(path).ok()?.take(16 << 20).read_to_string(&mut text).ok()?;
    Some(text)
}
