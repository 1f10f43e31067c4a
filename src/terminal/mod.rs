//! Which terminal hermes runs in: its identity (which names its
//! breadcrumb), and which incarnation of it this is (its session leader). Beside it: the
//! breadcrumbs (`breadcrumb`), and talking to a person at the terminal: raw
//! mode and keys (`raw`, `keys`), the prompt's line editor (`lineedit`,
//! `compose`) and line-by-line reading (`prompt`).

pub mod breadcrumb;
pub(crate) mod compose;
mod edit;
pub(crate) mod history;
pub(crate) mod keys;
pub(crate) mod lineedit;
pub(crate) mod pager;
pub(crate) mod prompt;
pub(crate) mod raw;

use std::fs;
use std::path::{Path, PathBuf};

use crate::sys;

/// Variables naming a pane when no tty is on stdin/stdout/stderr, in the
/// order they are consulted.
pub(crate) const PANE_VARIABLES: [&str; 6] =
    ["ZELLIJ_PANE_ID", "TMUX_PANE", "KITTY_WINDOW_ID", "WEZTERM_PANE", "TERM_SESSION_ID", "WT_SESSION"];

const MAX_ID_LEN: usize = 120;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Terminal {
    /// Its identity, file-name-safe and scoped to this machine:
    /// `tty-dev-pts-3.` or `tmux_pane--5.` followed by the machine's tag
    /// (see `machine_tag`); its breadcrumb's name.
    pub(crate) id: String,
    /// The identity hermes gave this terminal before identities named the
    /// machine (`tty-dev-pts-3`): a breadcrumb left under it is read once,
    /// then replaced by one under `id`.
    pub(crate) legacy_id: String,
    /// Session leader pid and its start time: `4242@1234567`. A different
    /// value under the same identity means the terminal was closed and its name
    /// reused.
    pub(crate) leader: String,
}

/// This process's terminal, or None when it has none (cron, pipes, CI).
pub(crate) fn identify() -> Option<Terminal> {
    for fd in 0..=2 {
        if let Some(path) = tty_path(fd) {
            let leader = sys::tcgetsid(fd).or_else(sys::getsid_self);
            return Some(Terminal::named(&format!("tty{}", path.display()), describe_leader(leader)));
        }
    }
    for var in PANE_VARIABLES {
        if let Ok(value) = std::env::var(var)
            && !value.is_empty()
        {
            let raw = format!("{}-{}", var.to_ascii_lowercase(), value);
            return Some(Terminal::named(&raw, describe_leader(sys::getsid_self())));
        }
    }
    None
}

impl Terminal {
    /// The terminal called `raw` (a tty path, a pane variable and its
    /// value) on this machine.
    fn named(raw: &str, leader: String) -> Terminal {
        Terminal { id: machine_id(raw, &machine_tag()), legacy_id: sanitize_id(raw), leader }
    }
}

/// Characters of the machine tag that ends every terminal id.
const MACHINE_TAG_LEN: usize = 12;

/// `raw` as a id of the machine tagged `tag`: the sanitized name, cut to
/// leave room, then `.` and the tag, at most 120 characters in all.
pub(crate) fn machine_id(raw: &str, tag: &str) -> String {
    format!("{}.{tag}", sanitize_id_within(raw, MAX_ID_LEN - 1 - tag.len()))
}

/// This machine, as 12 hex digits: a hash of its machine id
/// (`/etc/machine-id`; see sys::machine_id for other systems) and the
/// host name. Two machines, or two containers sharing one home, that differ
/// in either get different tags, so their terminals (`/dev/pts/3` on each,
/// tmux pane `%1` on each) keep breadcrumbs of their own; both survive a
/// reboot, so the same machine keeps its identities. Where one of them is missing
/// the other alone decides; where both are, the tag is that of "nowhere".
pub(crate) fn machine_tag() -> String {
    let machine_id = sys::machine_id().unwrap_or_default();
    let host = fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(sys::host_name)
        .unwrap_or_default();
    let identity = format!("{}\n{host}", machine_id.trim());
    format!("{:016x}", crate::hash::fnv1a(identity.as_bytes()))[..MACHINE_TAG_LEN].to_string()
}

/// `[A-Za-z0-9._-]` only, at most 120 characters; other ASCII (`/`, `%`)
/// becomes `-`. A value with non-ASCII characters gets each as its code
/// point (`é` is `ue9`), and it or a value too long to fit gets a hash of
/// the whole value at the end, so that pane IDs in other scripts, or that
/// differ only past the cut, stay apart from each other and from the rest.
pub fn sanitize_id(raw: &str) -> String {
    sanitize_id_within(raw, MAX_ID_LEN)
}

/// `sanitize_id` in at most `room` characters.
fn sanitize_id_within(raw: &str, room: usize) -> String {
    let (mut id, cut) = encode_id(raw, room);
    if !raw.is_ascii() || cut {
        let hash = format!("-{:08x}", crate::hash::fnv1a(raw.as_bytes()) as u32);
        id = encode_id(raw, room - hash.len()).0 + &hash;
    }
    // A id is a file name: never "." or "..".
    if id.chars().all(|c| c == '.') {
        id = id.replace('.', "-");
    }
    id
}

/// The file-name-safe form of `raw` in at most `room` bytes, and whether
/// it had to be cut (never inside one character's code point).
fn encode_id(raw: &str, room: usize) -> (String, bool) {
    let mut id = String::with_capacity(raw.len().min(room));
    for c in raw.chars() {
        let start = id.len();
        match c {
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') => id.push(c),
            c if c.is_ascii() => id.push('-'),
            c => id.push_str(&format!("u{:x}", c as u32)),
        }
        if id.len() > room {
            id.truncate(start);
            return (id, true);
        }
    }
    (id, false)
}

fn describe_leader(sid: Option<i32>) -> String {
    match sid {
        // /proc of another PID namespace (a container given the host's)
        // would give the start time of an unrelated process.
        Some(sid) => match process_start_time(sid) {
            Some(start) => format!("{sid}@{start}"),
            None => sid.to_string(),
        },
        // The leader lies outside this PID namespace (a container, a CI
        // runner, `docker exec` without -t): getsid gives 0. The outermost
        // ancestor in the namespace stands in for it; it lives as long as
        // the terminal, shell or container does, and a new one gets a new
        // pid or start time.
        None => match outermost_ancestor_in_namespace() {
            Some((pid, start)) => format!("{pid}@{start}"),
            None => String::new(),
        },
    }
}

/// The fields of /proc/PID/stat with the command name (field 2, in
/// parentheses and free to hold spaces) left out: pid, state, ppid, ...
fn proc_stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (before_name, after_name) = (stat.split(' ').next()?, &stat[stat.rfind(')')? + 1..]);
    Some(std::iter::once(before_name).chain(after_name.split_whitespace()).map(str::to_owned).collect())
}

/// Start time of a process in clock ticks since boot (field 22 of
/// /proc/PID/stat); None where /proc is absent.
#[cfg(not(any(target_vendor = "apple", target_os = "freebsd")))]
fn process_start_time(pid: i32) -> Option<u64> {
    proc_stat_fields(&pid.to_string())?.get(20)?.parse().ok().filter(|_| proc_is_ours())
}

/// Start time of a process, from the kernel's process table (no /proc).
#[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
fn process_start_time(pid: i32) -> Option<u64> {
    sys::process_start_time(pid)
}

/// Whether /proc numbers processes as this PID namespace does: this
/// process has a pid in no namespace above it there. Kernels without NSpid
/// (before 4.1) are asked whether /proc gives our own pid.
fn proc_is_ours() -> bool {
    match namespace_depth("self") {
        Some(depth) => depth == 1,
        None => proc_stat_fields("self").and_then(|f| f[0].parse().ok()) == Some(std::process::id()),
    }
}

/// The pid (as /proc numbers it) and start time of the last ancestor of
/// this process, or of this process itself, in the same PID namespace:
/// the namespace's first process, or one entered into it from outside.
///
/// A /proc of our own namespace shows a parent outside it as 0. The host's
/// /proc seen from a child namespace shows every parent; there a parent
/// nested in fewer namespaces than we are lies outside. Both are readable
/// by anyone: a walk that needed /proc/PID/ns would stop at an ancestor of
/// another user, or a non-dumpable runner in a container without
/// CAP_SYS_PTRACE.
fn outermost_ancestor_in_namespace() -> Option<(i32, u64)> {
    let our_depth = if proc_is_ours() { None } else { Some(namespace_depth("self")?) };
    let mut pid = "self".to_string();
    // A bound, in case /proc is not what it seems.
    for _ in 0..256 {
        let fields = proc_stat_fields(&pid)?;
        let parent = fields.get(2)?;
        let outermost = parent.parse::<i32>().ok()? <= 0
            || match our_depth {
                Some(depth) => namespace_depth(parent)? != depth,
                None => false,
            };
        if outermost {
            return Some((fields[0].parse().ok()?, fields.get(20)?.parse().ok()?));
        }
        pid = parent.clone();
    }
    None
}

/// How many PID namespaces, from the one /proc belongs to down, a process
/// has a pid in: the length of the NSpid line of /proc/PID/status (Linux
/// 4.1 and later; without it, a walk through the host's /proc finds no
/// leader, and breadcrumbs there record none).
fn namespace_depth(pid: &str) -> Option<usize> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|line| line.strip_prefix("NSpid:"))?;
    Some(line.split_whitespace().count())
}

/// The path of the terminal open on `fd`: a hand-rolled ttyname(3) that
/// checks the device number, so it cannot be fooled by a stale name.
pub(crate) fn tty_path(fd: i32) -> Option<PathBuf> {
    if !sys::isatty(fd) {
        return None;
    }
    let (kind, rdev) = sys::fstat_device(fd)?;
    if kind != sys::FileKind::CharDevice {
        return None;
    }
    let is_it = |p: &Path| {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device() && m.rdev() == rdev)
    };
    if let Ok(link) = fs::read_link(format!("/proc/self/fd/{fd}"))
        && link.starts_with("/dev/")
        && is_it(&link)
    {
        return Some(link);
    }
    for dir in ["/dev/pts", "/dev"] {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // /dev/tty and /dev/console are aliases, not the terminal itself.
            if path == Path::new("/dev/tty") || path == Path::new("/dev/console") {
                continue;
            }
            if entry.file_type().is_ok_and(|t| !t.is_symlink()) && is_it(&path) {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_file_name_safe() {
        assert_eq!(sanitize_id("tty/dev/pts/3"), "tty-dev-pts-3");
        assert_eq!(sanitize_id("tmux_pane-%5"), "tmux_pane--5");
        assert_eq!(sanitize_id(".."), "--");
        assert_eq!(sanitize_id(&"x".repeat(500)).len(), 120);
        assert_eq!(sanitize_id(&"x".repeat(120)), "x".repeat(120));
        assert_ne!(sanitize_id(&("x".repeat(200) + "1")), sanitize_id(&("x".repeat(200) + "2")));
        assert_eq!(sanitize_id("a/../b"), "a-..-b");
        assert!(sanitize_id("tmux_pane-é").starts_with("tmux_pane-ue9-"));
        assert_eq!(sanitize_id("tmux_pane-é").len(), "tmux_pane-ue9-".len() + 8);
        assert_ne!(sanitize_id("pane-é"), sanitize_id("pane-ue9"));
        assert_ne!(sanitize_id("pane-é1"), sanitize_id("pane-\u{e91}"));
        assert_ne!(sanitize_id("pane-日本"), sanitize_id("pane-中文"));
        assert!(sanitize_id(&"日".repeat(100)).len() <= 120);
    }

    #[test]
    fn machine_ids_end_in_the_tag_within_the_limit() {
        assert_eq!(machine_id("tty/dev/pts/3", "0123456789ab"), "tty-dev-pts-3.0123456789ab");
        let long = machine_id(&"x".repeat(500), "0123456789ab");
        assert_eq!(long.len(), 120);
        assert!(long.ends_with(".0123456789ab"));
        assert_ne!(machine_id("tmux_pane-%1", "0123456789ab"), machine_id("tmux_pane-%1", "ba9876543210"));
        assert_eq!(machine_tag().len(), 12);
        assert_eq!(machine_tag(), machine_tag());
    }
}
