//! A reply as a terminal shows it while it streams: through the gate
//! (`text::TerminalFilter`, or the Markdown drawer, `markdown::Renderer`,
//! which draws each character through it), wrapped at words to the window
//! (re-read at each piece), a quiet sign of waiting until
//! its first byte, always ended on a line of its own, and the attributes
//! an agent's colours set reset at its end. Only the screen sees any of
//! this; the reply saved is the agent's bytes.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::output::OpenLine;
use crate::sys;
use crate::text::TerminalFilter;
use crate::view::markdown::Renderer;
use crate::wrap::Wrap;

/// How a reply is drawn on a terminal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Render {
    /// Markdown drawn as the terminal can show it.
    Markdown,
    /// The text as the agent sent it (made safe all the same).
    Plain,
}

/// Every attribute back to the terminal's default.
const RESET: &str = "\x1b[0m";

/// How soon the waiting sign appears: a quick reply never shows it.
const SIGN_AFTER: Duration = Duration::from_millis(200);

/// The reply on its way to a terminal (`out`, which is stdout).
pub(crate) struct OnTerminal<'a> {
    out: &'a mut dyn Write,
    filter: TerminalFilter,
    drawer: Drawer,
    /// Whether what is on screen ends a line (nothing shown counts).
    at_line_start: bool,
    shown_any: bool,
    waiting: Option<Waiting>,
}

impl<'a> OnTerminal<'a> {
    /// `colors`: not under NO_COLOR (the agent's colours are then dropped
    /// too); `waiting_sign`: draw one until the first byte comes.
    pub(crate) fn new(
        out: &'a mut dyn Write,
        render: Render,
        colors: bool,
        waiting_sign: bool,
    ) -> OnTerminal<'a> {
        let width = crate::sys::terminal_columns(1);
        OnTerminal {
            out,
            filter: match render {
                Render::Markdown => TerminalFilter::for_renderer(colors),
                Render::Plain => TerminalFilter::new(colors),
            },
            drawer: match render {
                Render::Markdown => Drawer::Markdown(Box::new(Renderer::new(colors, width).redrawing())),
                Render::Plain => Drawer::Plain(Box::new(Wrap::new(width))),
            },
            at_line_start: true,
            shown_any: false,
            waiting: waiting_sign.then(|| Waiting::start(colors)),
        }
    }

    /// What was held back, and a newline if the reply did not end with
    /// one: the next prompt must not draw over its last line. Then, if an
    /// agent's SGR sequence was let through, `ESC [0m`: what hermes writes
    /// next (the session ID, the prompt, the shell's after it) must not be
    /// hidden (`ESC [8m`) or coloured by it.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        self.stop_waiting();
        let rest = self.filter.finish();
        let mut shown = self.drawer.finish(&rest);
        if self.shown_any || !shown.is_empty() {
            // A line an agent's stderr ended (see `output::stderr_line`) is.
            let at_line_start = self.at_line_start || !crate::output::reply_line_open();
            let ends_line = if shown.is_empty() { at_line_start } else { shown.ends_with('\n') };
            if !ends_line {
                shown.push('\n');
            }
        }
        if self.filter.let_sgr_through() {
            shown.push_str(RESET);
        }
        self.out.write_all(shown.as_bytes())?;
        crate::output::set_open_line(OpenLine::None);
        self.out.flush()
    }

    fn stop_waiting(&mut self) {
        if let Some(waiting) = self.waiting.take() {
            waiting.stop();
        }
    }
}

impl Write for OnTerminal<'_> {
    fn write(&mut self, piece: &[u8]) -> io::Result<usize> {
        if piece.is_empty() {
            return Ok(0);
        }
        self.stop_waiting();
        let safe = self.filter.push(piece);
        let shown = self.drawer.push(&safe);
        if !shown.is_empty() {
            self.shown_any = true;
            self.at_line_start = shown.ends_with('\n');
            self.out.write_all(shown.as_bytes())?;
            let open = if self.at_line_start { OpenLine::None } else { OpenLine::Reply };
            crate::output::set_open_line(open);
        }
        Ok(piece.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// What draws a reply: the Markdown drawer, or its text as sent, wrapped
/// at words (both to the window's width, read again at each piece: what
/// is still to be drawn fits a window resized meanwhile).
enum Drawer {
    Markdown(Box<Renderer>),
    Plain(Box<Wrap>),
}

impl Drawer {
    fn push(&mut self, safe: &str) -> String {
        let width = crate::sys::terminal_columns(1);
        match self {
            Drawer::Markdown(markdown) => {
                markdown.resize(width);
                markdown.push(safe)
            }
            Drawer::Plain(wrap) => {
                let mut shown = String::new();
                wrap.set_width(width, &mut shown);
                wrap.push(safe, &mut shown);
                shown
            }
        }
    }

    /// The rest, once no more is coming.
    fn finish(&mut self, rest: &str) -> String {
        match self {
            Drawer::Markdown(markdown) => markdown.push(rest) + &markdown.finish(),
            Drawer::Plain(wrap) => {
                let mut shown = String::new();
                wrap.push(rest, &mut shown);
                wrap.finish(&mut shown);
                shown
            }
        }
    }
}

/// The waiting sign: `…` on the reply's line, then `… 3s`, drawn by a
/// thread of its own (the agent's output is waited for meanwhile) straight
/// to the terminal, and erased before the reply's first byte is shown.
struct Waiting {
    state: Arc<(Mutex<Sign>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct Sign {
    drawn: bool,
    stopped: bool,
}

impl Waiting {
    fn start(colors: bool) -> Waiting {
        let state = Arc::new((Mutex::new(Sign::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("waiting-sign".into())
            .spawn(move || draw_until_stopped(&shared, colors))
            .ok();
        Waiting { state, thread }
    }

    /// Erase the sign; it is not drawn again.
    fn stop(mut self) {
        let (lock, wake) = &*self.state;
        {
            let mut sign = lock.lock().unwrap_or_else(|e| e.into_inner());
            sign.stopped = true;
            if sign.drawn {
                let _ = sys::write_fd(1, b"\r\x1b[K");
                sign.drawn = false;
                crate::output::set_open_line(OpenLine::None);
            }
        }
        wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn draw_until_stopped(state: &(Mutex<Sign>, Condvar), colors: bool) {
    let (lock, wake) = state;
    let started = Instant::now();
    let mut next = SIGN_AFTER;
    let mut sign = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = started.elapsed();
        if now < next {
            sign = wake.wait_timeout(sign, next - now).unwrap_or_else(|e| e.into_inner()).0;
        }
        if sign.stopped {
            return;
        }
        if started.elapsed() < next {
            continue; // woken early, not stopped
        }
        let seconds = started.elapsed().as_secs();
        let text = if seconds >= 1 { format!("… {seconds}s") } else { "…".to_string() };
        let text = if colors { format!("\r\x1b[2m{text}\x1b[22m\x1b[K") } else { format!("\r{text}\x1b[K") };
        if sys::write_fd(1, text.as_bytes()).is_err() {
            return;
        }
        sign.drawn = true;
        crate::output::set_open_line(OpenLine::Sign);
        next = Duration::from_secs(seconds + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(pieces: &[&str], render: Render) -> String {
        let mut out = Vec::new();
        let mut on = OnTerminal::new(&mut out, render, false, false);
        for piece in pieces {
            on.write_all(piece.as_bytes()).unwrap();
        }
        on.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_reply_always_ends_its_line_on_screen() {
        assert_eq!(
            shown(&["line one\nno newline", " at end"], Render::Plain),
            "line one\nno newline at end\n"
        );
        assert_eq!(shown(&["ends\n"], Render::Plain), "ends\n");
        assert_eq!(shown(&["**ends**"], Render::Markdown), "\x1b[1mends\x1b[22m\n");
        assert_eq!(shown(&["ends\n"], Render::Markdown), "ends\n");
        assert_eq!(shown(&[], Render::Markdown), "");
    }

    #[test]
    fn the_attributes_an_agent_set_are_reset_after_its_reply() {
        for render in [Render::Plain, Render::Markdown] {
            let mut out = Vec::new();
            let mut on = OnTerminal::new(&mut out, render, true, false);
            on.write_all(b"red \x1b[31;7mand reverse").unwrap();
            on.finish().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), "red \x1b[31;7mand reverse\n\x1b[0m");
            let mut out = Vec::new();
            let on = OnTerminal::new(&mut out, render, true, false);
            on.finish().unwrap();
            assert_eq!(out, b"");
        }
    }

    #[test]
    fn colours_are_dropped_under_no_color_and_markdown_is_drawn() {
        // The agent's colour is dropped; bold is an attribute, drawn still.
        assert_eq!(shown(&["\x1b[1;32mgreen\x1b[0m **b**\n"], Render::Markdown), "green \x1b[1mb\x1b[22m\n");
        assert_eq!(shown(&["\x1b[1;32mgreen\x1b[0m **b**\n"], Render::Plain), "green **b**\n");
        assert_eq!(shown(&["\x1b]0;title\x07x\n"], Render::Plain), "^[]0;title^Gx\n");
    }
}
