//! Raw mode: the terminal hands over every key as it is typed, and is
//! always given back as it was (on drop, on a panic, before a stop).

use std::io::{self, Write};
use std::os::unix::io::RawFd;
use std::sync::Mutex;

use crate::sys;

/// Bracketed paste on and off: the terminal wraps pasted text in
/// `ESC [200~` … `ESC [201~`, so it arrives as one piece instead of as keys.
const PASTE_ON: &str = "\x1b[?2004h";
const PASTE_OFF: &str = "\x1b[?2004l";

/// The attributes to give back, and their descriptor, while raw mode is on:
/// the panic hook reads them (a release build aborts, so no drop runs).
static ORIGINAL: Mutex<Option<(RawFd, libc::termios)>> = Mutex::new(None);

/// Raw mode on `fd` for as long as the guard lives.
pub(crate) struct RawMode {
    fd: RawFd,
    original: libc::termios,
    /// The echo flags the terminal had: given back after a reply drawn
    /// without them.
    echo: libc::tcflag_t,
}

impl RawMode {
    /// Switch the terminal on `fd` to raw mode and turn on bracketed paste.
    /// Err when `fd` is no terminal (or refuses the change). From now on
    /// SIGINT, SIGTERM and SIGHUP only set a flag (the key reader reports
    /// them, and the guard's drop gives the terminal back), and a resize or
    /// a continue after a stop is reported as `Keypress::Redraw`.
    pub(crate) fn enable(fd: RawFd) -> io::Result<RawMode> {
        let original = sys::tty_attributes(fd)?;
        sys::catch_interrupts();
        sys::catch_screen_changes();
        sys::set_tty_attributes(fd, &raw_attributes(&original))?;
        *ORIGINAL.lock().unwrap_or_else(|e| e.into_inner()) = Some((fd, original));
        install_panic_hook();
        write_to_terminal(fd, PASTE_ON);
        Ok(RawMode { fd, original, echo: original.c_lflag & libc::ECHO })
    }

    /// Give the terminal back for a while (an editor, a stop) and take it
    /// again when `during` returns.
    pub(crate) fn suspended<T>(&mut self, during: impl FnOnce() -> T) -> T {
        self.restore();
        self.resume_after(during)
    }

    /// `suspended`, but what is typed meanwhile is not echoed (an agent's
    /// reply is being drawn): it waits, unseen, for the next prompt.
    pub(crate) fn suspended_without_echo<T>(&mut self, during: impl FnOnce() -> T) -> T {
        write_to_terminal(self.fd, PASTE_OFF);
        let _ = sys::set_tty_attributes(self.fd, &without_echo(&self.original));
        // A panic meanwhile still gives back the echo.
        *ORIGINAL.lock().unwrap_or_else(|e| e.into_inner()) = Some((self.fd, self.original));
        self.resume_after(during)
    }

    fn resume_after<T>(&mut self, during: impl FnOnce() -> T) -> T {
        let result = during();
        if let Ok(current) = sys::tty_attributes(self.fd) {
            // Another program may have changed the terminal meanwhile: take
            // what it is now as the state to give back (echo and all).
            self.original = current;
            self.original.c_lflag |= self.echo;
        }
        let _ = sys::set_tty_attributes(self.fd, &raw_attributes(&self.original));
        *ORIGINAL.lock().unwrap_or_else(|e| e.into_inner()) = Some((self.fd, self.original));
        write_to_terminal(self.fd, PASTE_ON);
        result
    }

    /// Stop the job as Ctrl-Z does in a shell; on `fg`, raw mode again.
    pub(crate) fn suspend_job(&mut self) {
        self.suspended(sys::suspend_job);
    }

    /// Raw mode again, in case something changed the terminal behind our back.
    pub(crate) fn reapply(&self) {
        let _ = sys::set_tty_attributes(self.fd, &raw_attributes(&self.original));
    }

    fn restore(&self) {
        write_to_terminal(self.fd, PASTE_OFF);
        let _ = sys::set_tty_attributes(self.fd, &self.original);
        *ORIGINAL.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The terminal's own mode (lines, signals), without echo.
pub(crate) fn without_echo(original: &libc::termios) -> libc::termios {
    let mut quiet = *original;
    quiet.c_lflag &= !libc::ECHO;
    quiet
}

/// Run `during` with the echo of the terminal on `fd` off (when it is a
/// terminal), then give the echo back: keys typed while a reply is drawn
/// wait for the next prompt instead of landing inside the reply.
pub(crate) fn echo_off_during<T>(fd: RawFd, during: impl FnOnce() -> T) -> T {
    let Ok(original) = sys::tty_attributes(fd) else { return during() };
    let _ = sys::set_tty_attributes(fd, &without_echo(&original));
    let result = during();
    let _ = sys::set_tty_attributes(fd, &original);
    result
}

/// Raw as linenoise makes it: no echo, no line buffering, no signals from
/// Ctrl-C/Ctrl-Z/Ctrl-\ (they arrive as keys), no flow control, no CR to
/// NL translation, 8-bit characters; reads return after one byte. Output
/// processing stays on, so a `\n` written still starts a new line.
fn raw_attributes(original: &libc::termios) -> libc::termios {
    let mut raw = *original;
    raw.c_iflag &= !(libc::BRKINT | libc::ICRNL | libc::INPCK | libc::ISTRIP | libc::IXON);
    raw.c_cflag |= libc::CS8;
    raw.c_lflag &= !(libc::ECHO | libc::ICANON | libc::IEXTEN | libc::ISIG);
    raw.c_cc[libc::VMIN] = 1;
    raw.c_cc[libc::VTIME] = 0;
    raw
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut saved) = ORIGINAL.try_lock()
                && let Some((fd, original)) = saved.take()
            {
                write_to_terminal(fd, PASTE_OFF);
                let _ = sys::set_tty_attributes(fd, &original);
            }
            previous(info);
        }));
    });
}

/// To the terminal itself, not stdout: a picker's stdout is often a pipe
/// (`hermes chat -r "$(hermes sessions pick)"`), where these would end up
/// in the captured text. What stdout holds back is written first.
fn write_to_terminal(fd: RawFd, text: &str) {
    let _ = io::stdout().lock().flush();
    let _ = sys::write_fd(fd, text.as_bytes());
}

/// Rows and columns of the terminal on `fd`; 24 by 80 when it does not say.
pub(crate) fn window_size(fd: RawFd) -> (usize, usize) {
    sys::window_size(fd).unwrap_or((24, 80))
}
