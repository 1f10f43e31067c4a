//! The agent's process: started in a process group of its own, stopped on
//! a signal (SIGTERM to the group, SIGKILL after a grace period or a second
//! signal), and never outlived by what it started: once it has exited, what
//! is left of its group is killed. What it writes on stderr reaches a
//! terminal through the gate.

use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sys;

/// How long an agent has to exit after SIGTERM before it gets SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// How long output is still read once the agent itself has exited: what it
/// wrote last is in the pipe by then; a child it left behind (a server it
/// started, a stray `sleep`) may hold the pipe open for ever.
pub(crate) const AFTER_EXIT: Duration = Duration::from_millis(500);

/// The longest hermes waits before looking for a signal again: one caught
/// just before a wait began does not interrupt that wait.
pub(crate) const TICK: Duration = Duration::from_millis(100);

/// A running agent, and how far stopping it has gone.
pub(crate) struct Process {
    child: Child,
    stop: Stop,
    /// When the agent was seen to have exited, and how.
    exited: Option<(Instant, ExitStatus)>,
    /// Readable once the agent has exited, where the system has such a
    /// descriptor: waiting for the exit wakes at once instead of at the
    /// end of a nap.
    exit_watch: Option<std::os::fd::OwnedFd>,
    /// What copies its stderr to a terminal (see `copy_stderr`).
    stderr: Option<JoinHandle<()>>,
    /// Its stderr, kept rather than shown (see `spawn_keeping_stderr`).
    kept: Option<Kept>,
    /// The signal that stopped it (it read the terminal from the
    /// background, most likely), after which it was killed.
    stopped: Option<i32>,
}

#[derive(Clone, Copy, PartialEq)]
enum Stop {
    No,
    /// SIGTERM went to its process group; SIGKILL follows at this instant.
    Asked(Instant),
    Killed,
}

impl Process {
    /// Start `command` (set up with piped stdin and stdout, and stderr
    /// piped when it would be a terminal: see `stderr_for`) in a process
    /// group of its own: Ctrl-C reaches hermes alone, which then stops the
    /// agent and everything it started, and keeps the chat.
    pub(crate) fn spawn(command: &mut Command) -> io::Result<(Process, ChildStdin, ChildStdout)> {
        let (process, stdin, stdout) = Process::start(command, false)?;
        Ok((process, stdin.expect("piped"), stdout))
    }

    /// `spawn` for a command whose stdin the caller set up, with what it
    /// writes on stderr kept for `kept_stderr` (its last `KEPT_STDERR`
    /// bytes) instead of shown.
    pub(crate) fn spawn_keeping_stderr(command: &mut Command) -> io::Result<(Process, ChildStdout)> {
        let (process, _, stdout) = Process::start(command.stderr(Stdio::piped()), true)?;
        Ok((process, stdout))
    }

    fn start(command: &mut Command, keep: bool) -> io::Result<(Process, Option<ChildStdin>, ChildStdout)> {
        use std::os::unix::process::CommandExt;
        let mut child = command.process_group(0).spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let (stderr, kept) = match child.stderr.take() {
            Some(pipe) if keep => (None, Some(Kept { pipe: Some(pipe), bytes: Vec::new() })),
            pipe => (pipe.and_then(copy_stderr), None),
        };
        let exit_watch = sys::exit_watch(child.id());
        Ok((
            Process { child, stop: Stop::No, exited: None, exit_watch, stderr, kept, stopped: None },
            stdin,
            stdout,
        ))
    }

    /// Stop the agent and everything it started: SIGTERM to its process
    /// group the first time, SIGKILL the next.
    pub(crate) fn stop(&mut self) {
        match self.stop {
            Stop::No => {
                sys::kill_group(self.child.id(), sys::SIGTERM);
                self.stop = Stop::Asked(Instant::now() + GRACE);
            }
            Stop::Asked(_) => self.kill(),
            Stop::Killed => {}
        }
    }

    fn kill(&mut self) {
        sys::kill_group(self.child.id(), sys::SIGKILL);
        if self.exited.is_none() {
            let _ = self.child.kill(); // in case it left its process group
        }
        self.stop = Stop::Killed;
    }

    pub(crate) fn is_killed(&self) -> bool {
        self.stop == Stop::Killed
    }

    /// The signal that stopped the agent, if one did (see `check`).
    pub(crate) fn stopped(&self) -> Option<i32> {
        self.stopped
    }

    /// Act on what happened since the last look: a caught signal stops the
    /// agent (a second one kills it), and so does a grace period that ran
    /// out; an agent stopped (SIGTTIN: it read the terminal, which belongs
    /// to hermes, from its own process group) would wait for ever, and is
    /// killed; notice the agent's exit. Returns whether a signal was caught.
    pub(crate) fn check(&mut self) -> io::Result<bool> {
        // What it wrote on a kept stderr is taken now and then: it never
        // waits on a full pipe.
        if let Some(kept) = &mut self.kept {
            kept.take(Duration::ZERO);
        }
        let caught = sys::take_signal().is_some();
        if caught {
            self.stop();
        }
        if self.exited.is_none()
            && !self.is_killed()
            && let Some(signal) = sys::stopped_by(self.child.id())
        {
            self.stopped = Some(signal);
            self.kill();
        }
        if let Stop::Asked(deadline) = self.stop
            && Instant::now() >= deadline
        {
            self.kill();
        }
        if self.exited.is_none()
            && let Some(status) = self.child.try_wait()?
        {
            self.exited = Some((Instant::now(), status));
        }
        Ok(caught)
    }

    /// Whether reading its output should end although the pipe is still
    /// open: the agent exited a while ago, and what holds the pipe is
    /// something it left behind. That is killed now.
    pub(crate) fn outlived(&mut self) -> bool {
        match self.exited {
            Some((at, _)) if at.elapsed() >= AFTER_EXIT => {
                if !self.is_killed() {
                    self.kill();
                }
                true
            }
            _ => false,
        }
    }

    /// How long to wait for the agent before looking again.
    pub(crate) fn patience(&self) -> Duration {
        let mut patience = TICK;
        if let Stop::Asked(deadline) = self.stop {
            patience = patience.min(deadline.saturating_duration_since(Instant::now()));
        }
        if let Some((at, _)) = self.exited {
            patience = patience.min(AFTER_EXIT.saturating_sub(at.elapsed()));
        }
        patience
    }

    /// Wait for the agent to exit, still acting on signals (which set
    /// `interrupted`) and on the grace period. Once it is gone, what it
    /// left running in its group (deaf to SIGTERM, or holding a pipe) goes
    /// too.
    pub(crate) fn wait(&mut self, interrupted: &mut bool) -> io::Result<ExitStatus> {
        let mut nap = Duration::from_millis(1);
        loop {
            *interrupted |= self.check()?;
            if let Some((_, status)) = self.exited {
                if !self.is_killed() && sys::group_exists(self.child.id()) {
                    self.kill();
                }
                return Ok(status);
            }
            match &self.exit_watch {
                // A caught signal ends the wait early (Interrupted), and
                // is acted on at the top of the loop.
                Some(fd) => match sys::wait_readable(fd.as_raw_fd(), self.patience()) {
                    Err(e) if e.kind() != io::ErrorKind::Interrupted => return Err(e),
                    _ => {}
                },
                None => {
                    std::thread::sleep(nap.min(self.patience()));
                    nap = (nap * 2).min(TICK);
                }
            }
        }
    }

    /// Let the copy of its stderr finish (it ends when nothing holds the
    /// pipe any more), for at most AFTER_EXIT: what hermes writes next
    /// comes after all the agent said. Something that left its group
    /// holding the pipe is not waited for.
    fn stderr_done(&mut self) {
        let Some(copy) = self.stderr.take() else { return };
        let until = Instant::now() + AFTER_EXIT;
        while !copy.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        if copy.is_finished() {
            let _ = copy.join();
        }
    }

    /// What it wrote on stderr, once it has exited, when it was started
    /// by `spawn_keeping_stderr`: up to the pipe's end, waited for at most
    /// AFTER_EXIT (something it left may hold the pipe).
    pub(crate) fn kept_stderr(&mut self) -> Vec<u8> {
        let Some(mut kept) = self.kept.take() else { return Vec::new() };
        let until = Instant::now() + AFTER_EXIT;
        while kept.pipe.is_some() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            kept.take(left);
        }
        let extra = kept.bytes.len().saturating_sub(KEPT_STDERR);
        kept.bytes.split_off(extra)
    }

    /// Once the reply is whole: let the agent end by itself for at most
    /// `limit`, then stop what is left of it; reaped either way. Signals
    /// are not taken here: one that comes now is the caller's to see.
    pub(crate) fn finish_within(&mut self, limit: Duration) {
        let until = Instant::now() + limit;
        while self.exited.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exited = Some((Instant::now(), status));
                break;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match &self.exit_watch {
                Some(fd) => {
                    let _ = sys::wait_readable(fd.as_raw_fd(), left);
                }
                None => std::thread::sleep(left.min(Duration::from_millis(1))),
            }
        }
        if self.exited.is_none() || sys::group_exists(self.child.id()) {
            self.abandon();
        }
    }

    /// Give up on the agent after an error of hermes' own: kill it and
    /// reap it, so that nothing is left running.
    pub(crate) fn abandon(&mut self) {
        if !self.is_killed() {
            self.kill();
        }
        if self.exited.is_none() {
            let _ = self.child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stderr_done();
    }
}

/// How the agent's stderr is set up: hermes's own stderr, unless that is a
/// terminal; then a pipe, copied there through the gate (`copy_stderr`).
pub(crate) fn stderr_for() -> std::process::Stdio {
    if sys::isatty(2) { std::process::Stdio::piped() } else { std::process::Stdio::inherit() }
}

/// The most of a program's stderr `spawn_keeping_stderr` keeps: its last
/// bytes; what came before is read and dropped.
const KEPT_STDERR: usize = 64 << 10;

/// A program's stderr being kept: read by hermes's own thread as it looks
/// at the program (`Process::check`), not by a thread of its own, which
/// could wake late on a busy machine.
struct Kept {
    /// None once it has ended.
    pipe: Option<ChildStderr>,
    bytes: Vec<u8>,
}

impl Kept {
    /// Read what is there, waiting at most `patience` for the first bytes.
    fn take(&mut self, patience: Duration) {
        let Some(pipe) = &mut self.pipe else { return };
        let mut buf = [0u8; 4096];
        let mut wait = patience;
        while let Ok(true) = sys::wait_readable(pipe.as_raw_fd(), wait) {
            wait = Duration::ZERO;
            match pipe.read(&mut buf) {
                Ok(n) if n > 0 => {
                    // The last words count (curl's status comes last).
                    self.bytes.extend_from_slice(&buf[..n]);
                    if self.bytes.len() > 2 * KEPT_STDERR {
                        self.bytes.drain(..self.bytes.len() - KEPT_STDERR);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                _ => {
                    self.pipe = None;
                    return;
                }
            }
        }
    }
}

/// Copy what the agent writes on stderr to hermes's stderr, a terminal, as
/// its reply is shown: through the gate, colours let through (and reset at
/// the end) where they may be.
fn copy_stderr(mut pipe: ChildStderr) -> Option<JoinHandle<()>> {
    let copy = move || {
        let mut filter = crate::text::TerminalFilter::new(crate::text::colors_allowed());
        let mut buf = [0u8; 4096];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let shown = filter.push(&buf[..n]);
                    if !shown.is_empty() {
                        crate::output::stderr_line();
                        let _ = sys::write_fd(2, shown.as_bytes());
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let mut rest = filter.finish();
        if filter.let_sgr_through() {
            rest.push_str("\x1b[0m");
        }
        let _ = sys::write_fd(2, rest.as_bytes());
    };
    std::thread::Builder::new().name("agent-stderr".into()).spawn(copy).ok()
}

/// How a command run with a time limit (`run_bounded`) ended.
pub(crate) enum Bounded {
    /// It exited: its status, and what it wrote (at most the bytes asked).
    Exited(ExitStatus, Vec<u8>),
    /// The time ran out: it was killed, with its process group.
    TimedOut,
    /// It stopped (by this signal): it read the terminal from the
    /// background, most likely. It was killed, with its process group.
    Stopped(i32),
    /// A signal came (Ctrl-C): it was killed, with its process group.
    Interrupted,
}

/// Run `command` in a process group of its own for at most `limit`,
/// keeping at most `max` bytes of its stdout; a caught signal ends it
/// early. Once it has exited, what it left running in its group is killed
/// (it may hold the pipe open): nothing it started outlives it.
pub(crate) fn run_bounded(command: &mut Command, limit: Duration, max: usize) -> io::Result<Bounded> {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let mut child = command.stdout(Stdio::piped()).process_group(0).spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let (mut output, mut open, mut exited) = (Vec::new(), true, None);
    let mut buf = [0u8; 4096];
    let end = |child: &mut Child, how: Bounded| {
        sys::kill_group(child.id(), sys::SIGKILL);
        let _ = child.kill();
        let _ = child.wait();
        Ok(how)
    };
    loop {
        if sys::take_signal().is_some() {
            return end(&mut child, Bounded::Interrupted);
        }
        if exited.is_none() {
            if let Some(signal) = sys::stopped_by(child.id()) {
                return end(&mut child, Bounded::Stopped(signal));
            }
            exited = child.try_wait()?.map(|status| (Instant::now(), status));
        }
        if let Some((at, status)) = exited
            && (!open || at.elapsed() >= AFTER_EXIT)
        {
            sys::kill_group(child.id(), sys::SIGKILL);
            return Ok(Bounded::Exited(status, output));
        }
        let Some(left) = limit.checked_sub(started.elapsed()).filter(|left| !left.is_zero()) else {
            return end(&mut child, Bounded::TimedOut);
        };
        if !open {
            std::thread::sleep(left.min(TICK / 10));
            continue;
        }
        let read = match sys::wait_readable(stdout.as_raw_fd(), left.min(TICK)) {
            Ok(true) => stdout.read(&mut buf),
            Ok(false) => continue,
            Err(e) => Err(e),
        };
        match read {
            Ok(0) => open = false,
            Ok(n) => output.extend_from_slice(&buf[..n.min(max.saturating_sub(output.len()))]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = end(&mut child, Bounded::Interrupted);
                return Err(e);
            }
        }
    }
}
