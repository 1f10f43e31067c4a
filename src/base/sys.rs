//! Every `unsafe` call into libc that hermes makes, each behind a safe wrapper
//! (and the one into SSE2 compares, for scanning JSON strings).
//!
//! Nothing outside this module says `unsafe`. The wrappers are thin: they
//! turn C return conventions into `Option`/`io::Result` and nothing more.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::RawFd;
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};

/// Large buffers (a message may be 16 MiB) always come from mmap(2) and go
/// back to the system when freed. Otherwise glibc raises its mmap
/// threshold to the size of the last large buffer freed and serves the
/// next from a thread's heap, which keeps it: a turn on a session of
/// 16 MiB messages held two of them at once.
pub fn return_large_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator; a fixed
    // threshold also turns off its dynamic adjustment.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

pub(crate) fn isatty(fd: RawFd) -> bool {
    // SAFETY: isatty only inspects the descriptor number; any value is allowed.
    unsafe { libc::isatty(fd) == 1 }
}

/// What kind of file a descriptor is open on, as `st_mode` says. (`mode_t`
/// is 32 bits on Linux, 16 on macOS and FreeBSD: the bits are compared here,
/// in its own type, and callers see only the kind.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    Regular,
    Fifo,
    CharDevice,
    Other,
}

impl FileKind {
    fn of_mode(mode: libc::mode_t) -> FileKind {
        match mode & libc::S_IFMT {
            libc::S_IFREG => FileKind::Regular,
            libc::S_IFIFO => FileKind::Fifo,
            libc::S_IFCHR => FileKind::CharDevice,
            _ => FileKind::Other,
        }
    }
}

/// The kind of file open on `fd`, and its device number (st_rdev; the
/// terminal's, for a terminal).
pub(crate) fn fstat_device(fd: RawFd) -> Option<(FileKind, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes a whole `struct stat` into the buffer on success,
    // and we read it only then.
    let st = unsafe {
        if libc::fstat(fd, st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    // dev_t is u64 on Linux and FreeBSD, i32 on macOS: kept as its bits.
    #[allow(clippy::unnecessary_cast)]
    Some((FileKind::of_mode(st.st_mode), st.st_rdev as u64))
}

/// The session id of the terminal open on `fd` (its session leader's pid),
/// asked two ways: the session of the terminal's foreground process group
/// (`getsid(tcgetpgrp(fd))`), then the terminal's own answer (`tcgetsid`).
/// See `terminal_session` for why in that order.
pub(crate) fn tcgetsid(fd: RawFd) -> Option<i32> {
    // SAFETY: tcgetpgrp takes a descriptor by value and returns -1 on any error.
    let pgrp = unsafe { libc::tcgetpgrp(fd) };
    // SAFETY: getsid takes a pid by value and returns -1 on any error (ESRCH
    // when no process has that pid).
    let foreground = (pgrp > 0).then(|| unsafe { libc::getsid(pgrp) });
    // SAFETY: tcgetsid takes a descriptor by value and returns -1 on any error.
    terminal_session(foreground, || unsafe { libc::tcgetsid(fd) })
}

/// The terminal's session from the session of its foreground process group
/// (None when there was no group to ask about) and, called only when that
/// gives none, the terminal's own answer (TIOCGSID). On a real system both
/// name the same session: a terminal's foreground group always belongs to
/// the terminal's session. The group's answer comes first because
/// qemu-user hands TIOCGSID to the host kernel, which answers right, but
/// the program reads some other number (a different one each run on
/// s390x), while TIOCGPGRP and getsid pass through whole. TIOCGSID is still
/// asked when the group's leader has exited and getsid cannot find it.
fn terminal_session(foreground: Option<i32>, tiocgsid: impl FnOnce() -> i32) -> Option<i32> {
    foreground.filter(|&sid| sid > 0).or_else(|| Some(tiocgsid()).filter(|&sid| sid > 0))
}

/// The session id of this process.
pub(crate) fn getsid_self() -> Option<i32> {
    // SAFETY: getsid(0) asks about the calling process; it cannot fault.
    let sid = unsafe { libc::getsid(0) };
    (sid > 0).then_some(sid)
}

pub(crate) fn geteuid() -> u32 {
    // SAFETY: geteuid has no arguments and always succeeds.
    unsafe { libc::geteuid() }
}

/// Run `create` with the umask set to 077, so that files and directories get
/// exactly the mode they are created with (0600, 0700) whatever the user's
/// umask; restored before returning so that agents inherit the user's own.
pub(crate) fn with_private_umask<T>(create: impl FnOnce() -> T) -> T {
    // SAFETY: umask only swaps a process attribute. hermes creates files from
    // one thread only, so no other creation observes the temporary value.
    let old = unsafe { libc::umask(0o077) };
    let result = create();
    // SAFETY: as above; restores the previous mask.
    unsafe { libc::umask(old) };
    result
}

/// Try once to take a POSIX write lock on bytes `[start, start+len)` of `fd`.
/// Ok(false) means another process holds a conflicting lock.
pub(crate) fn try_lock_range(fd: RawFd, start: u64, len: u64) -> io::Result<bool> {
    // SAFETY: flock is a plain C struct; all-zero is a valid starting value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = start as libc::off_t;
    fl.l_len = len as libc::off_t;
    // SAFETY: F_SETLK reads the flock struct we own for the duration of the call.
    if unsafe { libc::fcntl(fd, libc::F_SETLK, &fl) } == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EAGAIN) => Ok(false),
        Some(libc::EINTR) => Ok(false),
        _ => Err(err),
    }
}

/// Release a lock taken by `try_lock_range`.
pub(crate) fn unlock_range(fd: RawFd, start: u64, len: u64) {
    // SAFETY: as in try_lock_range.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_UNLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = start as libc::off_t;
    fl.l_len = len as libc::off_t;
    // SAFETY: as in try_lock_range; an error only means nothing was held.
    unsafe { libc::fcntl(fd, libc::F_SETLK, &fl) };
}

// time_t must be 64 bits, or every time past 2038-01-19 (a session's date,
// a file's mtime) is lost. It is on 64-bit targets; on 32-bit musl the C
// library's is 64 bits since musl 1.2, but the libc crate binds the old
// 32-bit functions (localtime_r, fstatat) unless built with
// RUSTFLAGS=--cfg=libc_unstable_time64, which make static-i686 gives.
#[allow(deprecated)] // the 32-bit alias is deprecated where it is 32 bits
const _: () = assert!(
    std::mem::size_of::<libc::time_t>() == 8,
    "a 32-bit time_t: build with RUSTFLAGS=--cfg=libc_unstable_time64 (see the Makefile's static-i686)"
);

/// Broken-down local time of a Unix timestamp:
/// (year, month 1-12, day, hour, minute, second).
///
/// time_t is 64 bits (checked above); it is not named here, and a time it
/// cannot hold gives None, not a wrapped one.
pub(crate) fn local_time(secs: i64) -> Option<(i32, u32, u32, u32, u32, u32)> {
    #[allow(clippy::useless_conversion)] // i64 to i64 on 64-bit targets
    let t = secs.try_into().ok()?;
    let mut tm = std::mem::MaybeUninit::<libc::tm>::uninit();
    // SAFETY: localtime_r fills the tm we own and returns NULL on failure;
    // we read it only on success.
    let tm = unsafe {
        if libc::localtime_r(&t, tm.as_mut_ptr()).is_null() {
            return None;
        }
        tm.assume_init()
    };
    Some((
        tm.tm_year + 1900,
        (tm.tm_mon + 1) as u32,
        tm.tm_mday as u32,
        tm.tm_hour as u32,
        tm.tm_min as u32,
        tm.tm_sec as u32,
    ))
}

/// Send `signal` to every process in process group `pgid`.
pub(crate) fn kill_group(pgid: u32, signal: i32) {
    // SAFETY: kill takes plain integers; a negative pid names a process group.
    unsafe { libc::kill(-(pgid as libc::pid_t), signal) };
}

/// Whether any process of group `pgid` is left.
pub(crate) fn group_exists(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks that the group exists and may be signalled.
    unsafe { libc::kill(-(pgid as libc::pid_t), 0) == 0 }
}

pub(crate) const SIGINT: i32 = libc::SIGINT;
pub(crate) const SIGTERM: i32 = libc::SIGTERM;
pub(crate) const SIGKILL: i32 = libc::SIGKILL;

/// Wait at most `timeout` (rounded up to whole milliseconds) until `fd` can
/// be read without blocking: data, end of file, or an error. Ok(false) when
/// the time ran out; a caught signal ends the wait early as Err(Interrupted).
pub(crate) fn wait_readable(fd: RawFd, timeout: std::time::Duration) -> io::Result<bool> {
    let millis = timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: poll reads and writes the one pollfd we own, for the call only.
    let rc = unsafe { libc::poll(&mut pfd, 1, millis) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(rc > 0) }
}

/// A descriptor that becomes readable once process `pid` (a child not yet
/// reaped) has exited, for `wait_readable`; None where the kernel has no
/// such descriptors (Linux before 5.3, other systems).
pub(crate) fn exit_watch(pid: u32) -> Option<std::os::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: pidfd_open takes a pid and flags and returns a new
        // descriptor (close-on-exec) or -1; a non-negative one is ours alone.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0 as libc::c_uint) };
        if fd >= 0 {
            // SAFETY: fd was just opened and nothing else owns it.
            return Some(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as RawFd) });
        }
    }
    let _ = pid;
    None
}

/// `store::json::string_stop_ascii` over the whole blocks of 16 bytes of
/// `bytes`, sixteen bytes a step: the answer if a stop is among them, else
/// None with `at` past them and `ascii` told whether they were all ASCII.
#[cfg(target_arch = "x86_64")]
pub(crate) fn string_stop_blocks(
    bytes: &[u8],
    controls: bool,
    at: &mut usize,
    ascii: &mut bool,
) -> Option<(Option<usize>, bool)> {
    // SAFETY: the function needs SSE2 only, which is part of the x86-64
    // baseline: every processor this build runs on has it.
    unsafe { stop_blocks_sse2(bytes, controls, at, ascii) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn stop_blocks_sse2(
    bytes: &[u8],
    controls: bool,
    at: &mut usize,
    ascii: &mut bool,
) -> Option<(Option<usize>, bool)> {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128};
    use std::arch::x86_64::{_mm_set_epi64x, _mm_set1_epi8};
    let (quote, backslash, below) =
        (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8), _mm_set1_epi8(0x1f));
    let (blocks, _) = bytes.as_chunks::<16>();
    for block in blocks {
        let v = u128::from_le_bytes(*block);
        let x = _mm_set_epi64x((v >> 64) as u64 as i64, v as u64 as i64);
        let mut hits = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash));
        if controls {
            // x <= 0x1f exactly where min(x, 0x1f) is x, unsigned.
            hits = _mm_or_si128(hits, _mm_cmpeq_epi8(_mm_min_epu8(x, below), x));
        }
        let stops = _mm_movemask_epi8(hits) as u32;
        let high = _mm_movemask_epi8(x) as u32; // the top bit of each byte
        if stops != 0 {
            let p = stops.trailing_zeros();
            return Some((Some(*at + p as usize), *ascii && high & ((1 << p) - 1) == 0));
        }
        *ascii &= high == 0;
        *at += 16;
    }
    None
}

/// The last SIGINT/SIGTERM/SIGHUP received, or 0.
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// A SIGTERM or SIGHUP came: unlike Ctrl-C, which stops what is under
/// way, it ends hermes once what was acknowledged is saved. Never reset.
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn remember_signal(signal: libc::c_int) {
    LAST_SIGNAL.store(signal, Ordering::SeqCst);
    if signal != libc::SIGINT {
        ENDING.store(true, Ordering::SeqCst);
    }
}

/// Whether a SIGTERM or SIGHUP has come since hermes started (see
/// `catch_interrupts`), whether or not `take_signal` has taken it since.
pub(crate) fn ending() -> bool {
    ENDING.load(Ordering::SeqCst)
}

extern "C" fn do_nothing(_signal: libc::c_int) {}

/// SIGXFSZ (a write past `ulimit -f`) would kill hermes in the middle of
/// a write, leaving its temporary file behind and saying nothing: caught
/// instead by a handler that does nothing, the write fails with EFBIG
/// ("File too large"), which is reported and its temporary removed. A
/// handler rather than SIG_IGN, as exec resets it: agents get the default.
/// Left ignored when it was ignored at start.
pub fn survive_file_size_limit() {
    if is_ignored(libc::SIGXFSZ) {
        return;
    }
    // SAFETY: as in catch_interrupts: a zeroed sigaction with a handler
    // that does nothing at all, which is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = do_nothing as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        action.sa_flags = libc::SA_RESTART;
        libc::sigaction(libc::SIGXFSZ, &action, std::ptr::null_mut());
    }
}

/// The signal that stopped child `pid` (SIGTTIN when it read the terminal
/// from the background, SIGTTOU, SIGSTOP, SIGTSTP), if it is stopped now.
/// Its state stays for a later wait to collect (WNOWAIT), so the child's
/// own `wait` and `try_wait` are unaffected.
pub(crate) fn stopped_by(pid: u32) -> Option<i32> {
    // SAFETY: siginfo_t is plain data; all-zero is a valid starting value.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WSTOPPED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: waitid writes one siginfo_t into the struct we own; with
    // WNOHANG it does not block, with WNOWAIT it reaps nothing.
    let rc = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
    // SAFETY: si_pid and si_status read the union member waitid fills for
    // a child's state change; a child not stopped leaves si_pid 0.
    let (who, status) = unsafe { (info.si_pid(), info.si_status()) };
    (rc == 0 && who != 0 && info.si_code == libc::CLD_STOPPED).then_some(status)
}

/// The name of a signal that stops a process, for a message.
pub(crate) fn stop_signal_name(signal: i32) -> String {
    match signal {
        libc::SIGTTIN => "SIGTTIN".into(),
        libc::SIGTTOU => "SIGTTOU".into(),
        libc::SIGSTOP => "SIGSTOP".into(),
        libc::SIGTSTP => "SIGTSTP".into(),
        other => format!("signal {other}"),
    }
}

/// From now on SIGINT, SIGTERM and SIGHUP only set a flag that `take_signal`
/// reads, so a running agent can be stopped and the conversation kept. exec
/// resets caught signals to their defaults, so children are unaffected.
/// A signal that was ignored when hermes started stays ignored, for hermes
/// and (exec keeps ignored signals ignored) for its agent: SIGHUP under
/// `nohup`, SIGINT in a background job of a script, as `sleep` leaves them.
pub(crate) fn catch_interrupts() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        if is_ignored(signal) {
            continue;
        }
        // SAFETY: sigaction is given a zeroed struct with a valid handler that
        // only performs an atomic store, which is async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = remember_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = 0; // no SA_RESTART: a blocked read returns EINTR
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Whether `signal` is set to be ignored (SIG_IGN) right now.
fn is_ignored(signal: i32) -> bool {
    // SAFETY: with a null new action sigaction only writes the current one
    // into the zeroed struct we own.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
    }
}

/// Whether a store write should give up at a caught signal (see
/// `abort_writes_on_signal`).
static ABORT_WRITES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For the maintenance verbs (import, rename, delete, prune, export -o):
/// catch SIGINT, SIGTERM and SIGHUP, and have every write in progress give
/// up at the next step, removing its temporary file, instead of dying with
/// it left behind. The verbs look at `signal_pending` between items.
pub(crate) fn abort_writes_on_signal() {
    ABORT_WRITES.store(true, Ordering::SeqCst);
    catch_interrupts();
}

/// A signal is pending and writes are to give up at one.
pub(crate) fn write_aborted() -> bool {
    ABORT_WRITES.load(Ordering::SeqCst) && signal_pending()
}

/// The signal caught since the last call, if any.
pub(crate) fn take_signal() -> Option<i32> {
    match LAST_SIGNAL.swap(0, Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Whether a signal is pending, without consuming it.
pub(crate) fn signal_pending() -> bool {
    LAST_SIGNAL.load(Ordering::SeqCst) != 0
}

/// SIGINT and SIGQUIT ignored from now on: a pager in front of hermes
/// takes Ctrl-C and Ctrl-\ (hermes ends when it quits). Children started
/// before keep theirs.
pub(crate) fn ignore_interrupts() {
    for signal in [libc::SIGINT, libc::SIGQUIT] {
        // SAFETY: setting a signal's disposition to SIG_IGN touches no memory of ours.
        unsafe {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
}

/// A new descriptor (close-on-exec, above 2) for what `fd` is open on.
pub(crate) fn dup(fd: RawFd) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_DUPFD_CLOEXEC only adds a descriptor to the table, or fails.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` was just made and nothing else owns it.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(new) })
}

/// Make descriptor `to` (stdout) a copy of `from`, closing what it was.
pub(crate) fn dup_onto(from: RawFd, to: RawFd) -> io::Result<()> {
    // SAFETY: dup2 only changes the descriptor table; `to` stays owned by
    // whoever owned it (the standard streams are the process's).
    let rc = unsafe { libc::dup2(from, to) };
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Create a directory with mode 0700, not following a final symlink.
pub(crate) fn mkdir_private(path: &Path) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))?;
    // SAFETY: c is a valid NUL-terminated string for the duration of the call.
    let rc = with_private_umask(|| unsafe { libc::mkdir(c.as_ptr(), 0o700) });
    if rc == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// Columns of the terminal on `fd`, if it is one.
pub(crate) fn terminal_columns(fd: RawFd) -> Option<usize> {
    // SAFETY: winsize is plain data; TIOCGWINSZ fills it on success only.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we own.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0).then_some(size.ws_col as usize)
}

/// Flush all dirty data of the file system holding `dir` (syncfs on Linux;
/// elsewhere, sync of everything).
pub(crate) fn sync_filesystem_of(dir: &Path) -> io::Result<()> {
    let file = std::fs::File::open(dir)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: syncfs takes a descriptor we keep open for the call.
        if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        // SAFETY: sync has no arguments and cannot fail.
        unsafe { libc::sync() };
        // sync(2) on macOS schedules the writes and returns; the drive's
        // own cache is emptied only by F_FULLFSYNC (see sync_file).
        #[cfg(target_vendor = "apple")]
        full_fsync(&file)?;
        drop(file);
    }
    Ok(())
}

/// Make the data written to `file` durable before it is renamed into place
/// (fdatasync(2); on macOS fcntl(F_FULLFSYNC), see `full_fsync`).
pub(crate) fn sync_file(file: &std::fs::File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return full_fsync(file);
    #[cfg(not(target_vendor = "apple"))]
    return file.sync_data();
}

/// Make a rename or unlink in the directory open as `dir` durable (fsync(2);
/// on macOS fcntl(F_FULLFSYNC)).
pub(crate) fn sync_directory(dir: &std::fs::File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    return full_fsync(dir);
    #[cfg(not(target_vendor = "apple"))]
    return dir.sync_all();
}

/// macOS's fsync(2) moves the data to the drive but not out of the drive's
/// cache; fcntl(F_FULLFSYNC) asks the drive to write it to permanent
/// storage (fsync(2) and fcntl(2) man pages, as SQLite and PostgreSQL use
/// it). File systems that do not support it (some network ones) refuse
/// it: fsync(2) is then the best there is, as SQLite falls back to.
#[cfg(target_vendor = "apple")]
fn full_fsync(file: &std::fs::File) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: F_FULLFSYNC takes no argument; the descriptor is open for the call.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_FULLFSYNC) } == 0 {
        return Ok(());
    }
    // SAFETY: fsync takes a descriptor we keep open for the call.
    if unsafe { libc::fsync(file.as_raw_fd()) } == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// This machine's identity, stable across reboots, where the system keeps
/// one: /etc/machine-id on Linux (systemd's machine-id(5), also written by
/// dbus and OpenRC setups); the sysctl kern.uuid on macOS (the hardware
/// UUID); kern.hostuuid on FreeBSD (set at boot from /etc/hostid, which is
/// read when the sysctl is empty).
pub(crate) fn machine_id() -> Option<String> {
    #[cfg(target_vendor = "apple")]
    let id = sysctl_string(c"kern.uuid");
    #[cfg(target_os = "freebsd")]
    let id = sysctl_string(c"kern.hostuuid").or_else(|| std::fs::read_to_string("/etc/hostid").ok());
    #[cfg(not(any(target_vendor = "apple", target_os = "freebsd")))]
    let id = std::fs::read_to_string("/etc/machine-id").ok();
    id.map(|id| id.trim().to_string()).filter(|id| !id.is_empty())
}

/// A string-valued sysctl, by name (sysctlbyname(3)).
#[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
fn sysctl_string(name: &std::ffi::CStr) -> Option<String> {
    let mut buf = [0u8; 256];
    let mut len: libc::size_t = buf.len();
    // SAFETY: name is NUL-terminated; sysctlbyname writes at most len bytes
    // into the buffer we own and stores the length written in len; nothing
    // is set (new value null, length 0).
    let rc = unsafe {
        libc::sysctlbyname(name.as_ptr(), buf.as_mut_ptr().cast(), &mut len, std::ptr::null_mut(), 0)
    };
    if rc != 0 {
        return None;
    }
    let value = &buf[..len.min(buf.len())];
    let end = value.iter().position(|&b| b == 0).unwrap_or(value.len());
    Some(String::from_utf8_lossy(&value[..end]).into_owned())
}

/// When process `pid` started, in microseconds since the epoch, from the
/// kernel's process table: sysctl {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid}
/// gives its `struct kinfo_proc` (sysctl(3)). Linux reads /proc instead
/// (see terminal::process_start_time). None for a pid that does not exist.
#[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
pub(crate) fn process_start_time(pid: i32) -> Option<u64> {
    // Room for the whole struct (648 bytes on 64-bit macOS, 1088 on
    // FreeBSD amd64), aligned as it needs.
    let mut buf = [0u64; 256];
    let mut len: libc::size_t = std::mem::size_of_val(&buf);
    let mut mib = [libc::CTL_KERN, libc::KERN_PROC, libc::KERN_PROC_PID, pid];
    // SAFETY: mib holds the 4 names we pass; sysctl writes at most len bytes
    // into the buffer we own and stores the length written in len.
    let rc = unsafe {
        libc::sysctl(mib.as_mut_ptr(), 4, buf.as_mut_ptr().cast(), &mut len, std::ptr::null_mut(), 0)
    };
    // No such process: success with nothing written.
    if rc != 0 || len < std::mem::size_of::<libc::timeval>() {
        return None;
    }
    // macOS: kinfo_proc begins with extern_proc, which begins with the
    // union p_un whose member __p_starttime is p_starttime (sys/proc.h,
    // sys/sysctl.h); the libc crate does not declare the struct.
    #[cfg(target_vendor = "apple")]
    // SAFETY: at least one timeval was written at the start of the buffer,
    // which is 8-byte aligned, and any bits are a valid timeval.
    let start = unsafe { std::ptr::read(buf.as_ptr().cast::<libc::timeval>()) };
    // FreeBSD: the kernel fills a whole kinfo_proc (sys/user.h).
    #[cfg(target_os = "freebsd")]
    let start = {
        if len < std::mem::size_of::<libc::kinfo_proc>() {
            return None;
        }
        // SAFETY: a whole kinfo_proc was written at the start of the
        // aligned buffer; it is plain data.
        unsafe { std::ptr::read(buf.as_ptr().cast::<libc::kinfo_proc>()) }.ki_start
    };
    // time_t is i64 on both; suseconds_t is i32 on macOS, i64 on FreeBSD.
    #[allow(clippy::useless_conversion)]
    let micros = i64::from(start.tv_sec).checked_mul(1_000_000)?.checked_add(i64::from(start.tv_usec))?;
    u64::try_from(micros).ok()
}

/// lstat of `name` inside the open directory `dir`: one path lookup instead
/// of a walk from the root. Returns (size, mtime s, mtime ns, inode,
/// is a regular file).
pub(crate) fn stat_at(dir: RawFd, name: &std::ffi::CStr) -> io::Result<(u64, i64, i64, u64, bool)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: name is NUL-terminated; fstatat fills the whole struct on
    // success, and we read it only then.
    let st = unsafe {
        if libc::fstatat(dir, name.as_ptr(), st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW) != 0 {
            return Err(io::Error::last_os_error());
        }
        st.assume_init()
    };
    let regular = st.st_mode & libc::S_IFMT == libc::S_IFREG;
    Ok((st.st_size as u64, st.st_mtime as i64, st.st_mtime_nsec as i64, st.st_ino as u64, regular))
}

/// This machine's host name (gethostname(2)); None if it has none.
pub(crate) fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into the buffer we
    // own; the last byte is kept NUL so the result is always terminated.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len() - 1) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = String::from_utf8_lossy(&buf[..end]).into_owned();
    (!name.is_empty()).then_some(name)
}

/// The terminal attributes of `fd` (termios), if it is a terminal.
pub(crate) fn tty_attributes(fd: RawFd) -> io::Result<libc::termios> {
    let mut attributes = std::mem::MaybeUninit::<libc::termios>::uninit();
    // SAFETY: tcgetattr fills the whole termios we own on success, and we
    // read it only then.
    unsafe {
        if libc::tcgetattr(fd, attributes.as_mut_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(attributes.assume_init())
    }
}

/// Set the terminal attributes of `fd` once its pending output is written
/// (TCSADRAIN: no typed-ahead input is thrown away).
pub(crate) fn set_tty_attributes(fd: RawFd, attributes: &libc::termios) -> io::Result<()> {
    // SAFETY: tcsetattr only reads the termios we lend it for the call; it is
    // async-signal-safe, so the panic hook may call this too.
    if unsafe { libc::tcsetattr(fd, libc::TCSADRAIN, attributes) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Where `byte` first is in `haystack`: the C library's memchr, which
/// compares a vector at a time where core's compares a word (a catalog of
/// 100,000 sessions, 11 MB, is split into its lines and fields at Tab).
pub(crate) fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    // SAFETY: memchr reads at most haystack.len() bytes of the slice we
    // lend, and returns null or a pointer into it.
    let found = unsafe { libc::memchr(haystack.as_ptr().cast(), i32::from(byte), haystack.len()) };
    (!found.is_null()).then(|| found as usize - haystack.as_ptr() as usize)
}

/// One read(2) from `fd`, without std's buffering (whatever std's stdin
/// holds back would be invisible to a poll on the descriptor). A caught
/// signal ends it as Err(Interrupted).
pub(crate) fn read_fd(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: read writes at most buf.len() bytes into the buffer we own.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 { Err(io::Error::last_os_error()) } else { Ok(n as usize) }
}

/// Let the programs this process starts from now on inherit `fd` (clear its
/// close-on-exec flag), at the same number: a descriptor handed to one
/// child, which the parent closes once that child is started.
pub(crate) fn inheritable(fd: std::os::fd::BorrowedFd) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: F_SETFD on a descriptor the caller holds open (borrowed for
    // the call) changes only its flags; no memory is touched.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// One write(2) of all of `bytes` to `fd` (retried where cut short).
pub(crate) fn write_fd(fd: RawFd, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: write reads at most bytes.len() bytes from the slice we lend.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Rows and columns of the terminal on `fd`, if it is one and knows them.
pub(crate) fn window_size(fd: RawFd) -> Option<(usize, usize)> {
    // SAFETY: winsize is plain data; TIOCGWINSZ fills it on success only.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we own.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0 && size.ws_row > 0).then_some((size.ws_row as usize, size.ws_col as usize))
}

/// Set when the window was resized (SIGWINCH) or the job continued after a
/// stop (SIGCONT): what is on the screen may need drawing again.
static SCREEN_CHANGED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn remember_screen_change(_signal: libc::c_int) {
    SCREEN_CHANGED.store(true, Ordering::SeqCst);
}

/// From now on SIGWINCH and SIGCONT set a flag that `take_screen_change`
/// reads, and end a blocked read with EINTR so the screen can be redrawn.
pub(crate) fn catch_screen_changes() {
    for signal in [libc::SIGWINCH, libc::SIGCONT] {
        // SAFETY: as in catch_interrupts: a zeroed sigaction with a handler
        // that only performs an atomic store.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = remember_screen_change as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = 0;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Whether the window changed size or the job was continued since the last call.
pub(crate) fn take_screen_change() -> bool {
    SCREEN_CHANGED.swap(false, Ordering::SeqCst)
}

/// Stop this process as Ctrl-Z would (SIGTSTP, to its own process group,
/// as the terminal driver sends it); returns once it is continued (`fg`).
pub(crate) fn suspend_job() {
    // SAFETY: kill(0, ...) signals our own process group; plain integers.
    unsafe { libc::kill(0, libc::SIGTSTP) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminals_session_is_its_foreground_groups_then_its_own_answer() {
        // The foreground group's session wins: TIOCGSID is not even asked
        // (under qemu-user it reads garbage such as 8385632).
        assert_eq!(terminal_session(Some(4242), || panic!("TIOCGSID asked")), Some(4242));
        // The group's leader has exited (getsid gave -1), or there was no
        // group: the terminal's own answer.
        assert_eq!(terminal_session(Some(-1), || 4242), Some(4242));
        assert_eq!(terminal_session(None, || 4242), Some(4242));
        // Neither knows (not a controlling terminal; a session outside this
        // PID namespace is 0).
        assert_eq!(terminal_session(Some(-1), || -1), None);
        assert_eq!(terminal_session(None, || 0), None);
    }

    #[test]
    fn a_pipe_has_no_terminal_session() {
        use std::os::unix::io::AsRawFd;
        let (reader, _writer) = std::io::pipe().expect("pipe");
        assert_eq!(tcgetsid(reader.as_raw_fd()), None);
    }

    #[test]
    fn local_time_holds_times_past_2038() {
        // 2100-01-01 12:00 UTC is in 2100 in every time zone.
        assert_eq!(local_time(4_102_488_000).map(|t| t.0), Some(2100));
        // 2038-01-19 03:14:08 UTC, one second past a 32-bit time_t.
        assert_eq!(local_time(2_147_483_648).map(|t| t.0), Some(2038));
    }

    #[test]
    fn file_kinds_whatever_the_width_of_mode_t() {
        use std::os::unix::io::AsRawFd;
        let (reader, _writer) = std::io::pipe().expect("pipe");
        assert_eq!(fstat_device(reader.as_raw_fd()).map(|k| k.0), Some(FileKind::Fifo));
        let file = std::fs::File::open("Cargo.toml").expect("Cargo.toml");
        assert_eq!(fstat_device(file.as_raw_fd()).map(|k| k.0), Some(FileKind::Regular));
        let null = std::fs::File::open("/dev/null").expect("/dev/null");
        assert_eq!(fstat_device(null.as_raw_fd()).map(|k| k.0), Some(FileKind::CharDevice));
        let dir = std::fs::File::open(".").expect(".");
        assert_eq!(fstat_device(dir.as_raw_fd()).map(|k| k.0), Some(FileKind::Other));
    }

    #[test]
    fn durable_syncs_succeed_on_files_and_directories() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("hermes-sys-test-{}", std::process::id()));
        let file = std::fs::File::create(&path).expect("create");
        let synced = sync_file(&file);
        let _ = std::fs::remove_file(&path);
        synced.expect("sync_file");
        sync_directory(&std::fs::File::open(&dir).expect("open dir")).expect("sync_directory");
    }
}
