//! Keys from a terminal in raw mode: bytes read from a descriptor and the
//! escape sequences terminals send decoded into `Keypress`s, so that no sequence
//! a key produces ever reaches text.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::os::unix::io::RawFd;
use std::time::{Duration, Instant};

use crate::store::session::MAX_MESSAGE_BYTES;
use crate::sys;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Keypress {
    /// A printable character (never a control character).
    Char(char),
    /// Return (CR).
    Enter,
    Tab,
    /// DEL or Ctrl-H.
    Backspace,
    /// The Delete key (`ESC [3~`).
    Delete,
    Left,
    Right,
    Up,
    Down,
    Home,
    End,
    PageUp,
    PageDown,
    /// Ctrl-Left or Alt-Left.
    WordLeft,
    /// Ctrl-Right or Alt-Right.
    WordRight,
    /// Ctrl with a letter (lowercase: `Ctrl('a')`) or with `@ \ ] ^ _`.
    /// Ctrl-J (LF) is `Ctrl('j')`; Ctrl-I, Ctrl-M and Ctrl-H are Tab,
    /// Enter and Backspace.
    Ctrl(char),
    /// Alt (or Esc, then the key) with a printable character.
    Alt(char),
    /// Alt-Enter (ESC CR, or ESC LF).
    AltEnter,
    /// Alt-Backspace (ESC DEL).
    AltBackspace,
    /// Escape on its own.
    Escape,
    /// The start and end of a bracketed paste, as decoded; `KeyReader`
    /// turns them into one `Paste`.
    PasteStart,
    PasteEnd,
    /// Pasted text: line ends as `\n`, tabs kept, control characters and
    /// escape sequences taken out.
    Paste(String),
    /// The terminal's answer to a cursor position query (1-based).
    CursorPosition {
        row: usize,
        column: usize,
    },
    /// The window changed size, or the job was continued after a stop:
    /// the screen needs drawing again.
    Redraw,
    /// A sequence hermes has no use for (F keys, Insert, mouse), swallowed whole.
    Unknown,
}

pub(crate) enum Decoded {
    /// A key, and how many bytes it took.
    Keypress(Keypress, usize),
    /// The bytes so far start a longer sequence; more are needed.
    Incomplete,
}

/// Longest escape sequence waited for; past it, the bytes are junk.
const MAX_SEQUENCE: usize = 64;

/// The first key in `bytes` (not empty).
pub(crate) fn decode(bytes: &[u8]) -> Decoded {
    let key = |k, n| Decoded::Keypress(k, n);
    match bytes[0] {
        0x1b => decode_escape(bytes),
        b'\r' => key(Keypress::Enter, 1),
        b'\t' => key(Keypress::Tab, 1),
        0x7f | 0x08 => key(Keypress::Backspace, 1),
        0x00 => key(Keypress::Ctrl('@'), 1),
        b @ 0x01..=0x1a => key(Keypress::Ctrl(char::from(b'a' + b - 1)), 1),
        b @ 0x1c..=0x1f => key(Keypress::Ctrl(char::from(b + 0x40)), 1),
        _ => decode_utf8(bytes),
    }
}

/// The first key in `bytes` when no more bytes are coming soon: a lone
/// Escape is the Escape key, a cut-off character is dropped.
pub(crate) fn decode_stalled(bytes: &[u8]) -> (Keypress, usize) {
    match decode(bytes) {
        Decoded::Keypress(k, n) => (k, n),
        Decoded::Incomplete if bytes[0] == 0x1b && bytes.len() == 1 => (Keypress::Escape, 1),
        Decoded::Incomplete if bytes[0] == 0x1b => (Keypress::Unknown, bytes.len()),
        Decoded::Incomplete => (Keypress::Unknown, bytes.len()),
    }
}

fn decode_utf8(bytes: &[u8]) -> Decoded {
    let len = match bytes[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Decoded::Keypress(Keypress::Unknown, 1),
    };
    if bytes.len() < len {
        // A continuation byte that is no such is junk now, not later.
        if bytes[1..].iter().any(|b| b & 0xc0 != 0x80) {
            return Decoded::Keypress(Keypress::Unknown, 1);
        }
        return Decoded::Incomplete;
    }
    match std::str::from_utf8(&bytes[..len]) {
        Ok(s) => match s.chars().next() {
            Some(c) if !c.is_control() => Decoded::Keypress(Keypress::Char(c), len),
            _ => Decoded::Keypress(Keypress::Unknown, len),
        },
        Err(_) => Decoded::Keypress(Keypress::Unknown, 1),
    }
}

fn decode_escape(bytes: &[u8]) -> Decoded {
    let Some(&second) = bytes.get(1) else {
        return Decoded::Incomplete;
    };
    match second {
        b'[' => decode_csi(bytes),
        b'O' => match bytes.get(2) {
            None => Decoded::Incomplete,
            Some(&last) => Decoded::Keypress(
                match last {
                    b'A' => Keypress::Up,
                    b'B' => Keypress::Down,
                    b'C' => Keypress::Right,
                    b'D' => Keypress::Left,
                    b'H' => Keypress::Home,
                    b'F' => Keypress::End,
                    _ => Keypress::Unknown,
                },
                3,
            ),
        },
        b'\r' | b'\n' => Decoded::Keypress(Keypress::AltEnter, 2),
        0x7f | 0x08 => Decoded::Keypress(Keypress::AltBackspace, 2),
        // Esc, then Esc or another control: the first is a key of its own.
        0x00..=0x1f => Decoded::Keypress(Keypress::Escape, 1),
        _ => match decode_utf8(&bytes[1..]) {
            Decoded::Keypress(Keypress::Char(c), n) => Decoded::Keypress(Keypress::Alt(c), n + 1),
            Decoded::Keypress(_, _) => Decoded::Keypress(Keypress::Escape, 1),
            Decoded::Incomplete => Decoded::Incomplete,
        },
    }
}

/// `ESC [ params final`: parameters 0x30-0x3f, intermediates 0x20-0x2f,
/// one final byte 0x40-0x7e.
fn decode_csi(bytes: &[u8]) -> Decoded {
    let mut end = 2;
    loop {
        match bytes.get(end) {
            None if end >= MAX_SEQUENCE => return Decoded::Keypress(Keypress::Unknown, end),
            None => return Decoded::Incomplete,
            Some(0x20..=0x3f) => end += 1,
            Some(0x40..=0x7e) => break,
            // Not a sequence after all: drop what was read of it.
            Some(_) => return Decoded::Keypress(Keypress::Unknown, end),
        }
    }
    let params: Vec<usize> = std::str::from_utf8(&bytes[2..end])
        .unwrap_or("")
        .split(';')
        .map(|p| p.parse().unwrap_or(0))
        .collect();
    let first = params.first().copied().unwrap_or(0);
    // xterm's modifier parameter: 1 + (Shift 1, Alt 2, Ctrl 4).
    let modified = params.get(1).is_some_and(|&m| m > 1 && (m - 1) & 6 != 0);
    let key = match bytes[end] {
        b'A' => Keypress::Up,
        b'B' => Keypress::Down,
        b'C' if modified => Keypress::WordRight,
        b'D' if modified => Keypress::WordLeft,
        b'C' => Keypress::Right,
        b'D' => Keypress::Left,
        b'H' => Keypress::Home,
        b'F' => Keypress::End,
        b'R' if params.len() == 2 => Keypress::CursorPosition { row: first, column: params[1] },
        b'~' => match first {
            1 | 7 => Keypress::Home,
            4 | 8 => Keypress::End,
            3 => Keypress::Delete,
            5 => Keypress::PageUp,
            6 => Keypress::PageDown,
            200 => Keypress::PasteStart,
            201 => Keypress::PasteEnd,
            _ => Keypress::Unknown,
        },
        _ => Keypress::Unknown,
    };
    Decoded::Keypress(key, end + 1)
}

/// Pasted bytes as text: CR LF and lone CR become `\n` (terminals send a
/// pasted line end as CR), tabs stay, escape sequences and other control
/// characters are taken out.
pub(crate) fn paste_text(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let mut kept = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                kept.push('\n');
            }
            '\n' | '\t' => kept.push(c),
            '\u{1b}' => skip_escape_sequence(&mut chars),
            c if c.is_control() => {}
            c => kept.push(c),
        }
    }
    kept
}

/// Skip what follows an ESC: a CSI up to its final byte, an OSC or other
/// string up to BEL or ESC \, else one character.
fn skip_escape_sequence(chars: &mut std::iter::Peekable<std::str::Chars>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | '_' | '^' | 'X') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{1b}' && chars.next_if_eq(&'\\').is_some() {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// How long the rest of an escape sequence may take to arrive before the
/// bytes so far are taken as they are (a lone Esc).
const SEQUENCE_WAIT: Duration = Duration::from_millis(100);

/// How long a paste may pause before it is taken to be over: a terminal
/// that never sends the end of a paste must not swallow all later typing.
const PASTE_STALL: Duration = Duration::from_secs(2);

/// Reads keys from a terminal descriptor in raw mode.
pub(crate) struct KeyReader {
    fd: RawFd,
    pending: Vec<u8>,
    /// Keys read while waiting for something else (an answer to a query).
    queued: VecDeque<Keypress>,
    /// Every byte read while a query waits for its answer, so that what
    /// was typed meanwhile can be handed on if the answer never comes.
    recording: Option<Vec<u8>>,
}

impl KeyReader {
    pub(crate) fn new(fd: RawFd) -> KeyReader {
        KeyReader { fd, pending: Vec::new(), queued: VecDeque::new(), recording: None }
    }

    /// Hand back a key read early, to be read again after any handed back
    /// before it.
    pub(crate) fn requeue(&mut self, key: Keypress) {
        self.queued.push_back(key);
    }

    /// The next key, waiting as long as it takes. A caught SIGINT, SIGTERM
    /// or SIGHUP is Err(Interrupted) (`sys::take_signal` says which); the
    /// terminal gone is Err(UnexpectedEof).
    pub(crate) fn read_key(&mut self) -> io::Result<Keypress> {
        loop {
            if let Some(key) = self.read_key_by(None)? {
                return Ok(key);
            }
        }
    }

    /// The next key, or None if none came by `deadline`.
    pub(crate) fn read_key_by(&mut self, deadline: Option<Instant>) -> io::Result<Option<Keypress>> {
        if let Some(key) = self.queued.pop_front() {
            return Ok(Some(key));
        }
        loop {
            if sys::take_screen_change() {
                return Ok(Some(Keypress::Redraw));
            }
            if !self.pending.is_empty() {
                let (key, used) = match decode(&self.pending) {
                    Decoded::Keypress(key, used) => (key, used),
                    Decoded::Incomplete => {
                        if self.wait_through(Instant::now() + SEQUENCE_WAIT)? {
                            self.fill()?;
                            continue;
                        }
                        decode_stalled(&self.pending)
                    }
                };
                self.pending.drain(..used);
                return match key {
                    Keypress::PasteStart => self.read_paste().map(Some),
                    key => Ok(Some(key)),
                };
            }
            if self.wait(deadline)? {
                self.fill()?;
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
        }
    }

    /// Ask the terminal where its cursor is (`ESC [6n`), waiting at most
    /// `timeout` for the answer; keys typed meanwhile are kept for later.
    /// Err(bytes) means the terminal did not answer: `bytes` is all that
    /// was read meanwhile, as it came, for whoever reads the terminal next.
    pub(crate) fn cursor_position(
        &mut self,
        out: &mut dyn Write,
        timeout: Duration,
    ) -> io::Result<Result<(usize, usize), Vec<u8>>> {
        out.write_all(b"\x1b[6n")?;
        out.flush()?;
        let deadline = Instant::now() + timeout;
        let mut typed = Vec::new();
        self.recording = Some(self.pending.clone());
        let answer = loop {
            match self.read_key_by(Some(deadline)) {
                Ok(Some(Keypress::CursorPosition { row, column })) => break Ok((row, column)),
                Ok(Some(key)) => typed.push(key),
                Ok(None) => break Err(self.recording.take().unwrap_or_default()),
                Err(e) => {
                    self.recording = None;
                    return Err(e);
                }
            }
        };
        self.recording = None;
        self.queued.extend(typed);
        Ok(answer)
    }

    /// The rest of a bracketed paste, up to its end marker.
    fn read_paste(&mut self) -> io::Result<Keypress> {
        const END: &[u8] = b"\x1b[201~";
        let mut raw = std::mem::take(&mut self.pending);
        let mut searched = 0;
        loop {
            if let Some(at) = raw[searched..].windows(END.len()).position(|w| w == END) {
                let at = searched + at;
                self.pending = raw.split_off(at + END.len());
                raw.truncate(at);
                return Ok(Keypress::Paste(paste_text(&raw)));
            }
            searched = raw.len().saturating_sub(END.len() - 1);
            if !self.wait_through(Instant::now() + PASTE_STALL)? {
                return Ok(Keypress::Paste(paste_text(&raw)));
            }
            let mut buf = [0u8; 4096];
            let n = self.read_some(&mut buf)?;
            raw.extend_from_slice(&buf[..n]);
            // Past the largest message nothing more is kept (but the end
            // marker is still looked for): the message check then refuses
            // it, instead of memory filling up.
            let keep_tail = raw.len().saturating_sub(END.len() - 1);
            if keep_tail > MAX_MESSAGE_BYTES + 1 {
                raw.drain(MAX_MESSAGE_BYTES + 1..keep_tail);
                searched = MAX_MESSAGE_BYTES + 1;
            }
        }
    }

    /// Whether input is ready before `deadline` (None: an hour). A resize
    /// or continue ends the wait early with false (the caller checks the
    /// flag); a terminating signal is Err(Interrupted).
    ///
    /// A signal that lands just before the poll starts would not interrupt
    /// it, so the wait goes in slices and looks at the flag before each.
    fn wait(&self, deadline: Option<Instant>) -> io::Result<bool> {
        const SLICE: Duration = Duration::from_millis(200);
        let deadline = deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        loop {
            if sys::signal_pending() {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match sys::wait_readable(self.fd, left.min(SLICE)) {
                Ok(false) if left > SLICE => continue,
                Err(e) if e.kind() == io::ErrorKind::Interrupted && !sys::signal_pending() => {
                    return Ok(false);
                }
                result => return result,
            }
        }
    }

    /// Whether input is ready before `deadline`, whatever resizes come meanwhile.
    fn wait_through(&self, deadline: Instant) -> io::Result<bool> {
        loop {
            if self.wait(Some(deadline))? {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        let mut buf = [0u8; 4096];
        let n = self.read_some(&mut buf)?;
        self.pending.extend_from_slice(&buf[..n]);
        if let Some(recording) = &mut self.recording {
            recording.extend_from_slice(&buf[..n]);
        }
        Ok(())
    }

    fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match sys::read_fd(self.fd, buf) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted && !sys::signal_pending() => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All keys in `bytes`, decoding as if no more bytes were coming.
    fn keys(bytes: &[u8]) -> Vec<Keypress> {
        let mut rest = bytes;
        let mut found = Vec::new();
        while !rest.is_empty() {
            let (key, used) = match decode(rest) {
                Decoded::Keypress(key, used) => (key, used),
                Decoded::Incomplete => decode_stalled(rest),
            };
            found.push(key);
            rest = &rest[used..];
        }
        found
    }

    #[test]
    fn plain_and_wide_characters() {
        assert_eq!(
            keys("aé调试😀".as_bytes()),
            vec![
                Keypress::Char('a'),
                Keypress::Char('é'),
                Keypress::Char('调'),
                Keypress::Char('试'),
                Keypress::Char('😀')
            ]
        );
    }

    #[test]
    fn control_keys() {
        assert_eq!(
            keys(b"\r\n\t\x7f\x08\x01\x05\x17\x03\x04\x1a\x18\x1f"),
            vec![
                Keypress::Enter,
                Keypress::Ctrl('j'),
                Keypress::Tab,
                Keypress::Backspace,
                Keypress::Backspace,
                Keypress::Ctrl('a'),
                Keypress::Ctrl('e'),
                Keypress::Ctrl('w'),
                Keypress::Ctrl('c'),
                Keypress::Ctrl('d'),
                Keypress::Ctrl('z'),
                Keypress::Ctrl('x'),
                Keypress::Ctrl('_'),
            ]
        );
    }

    #[test]
    fn arrows_and_editing_keys_in_their_several_spellings() {
        assert_eq!(
            keys(b"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\x1bOD"),
            vec![Keypress::Up, Keypress::Down, Keypress::Right, Keypress::Left, Keypress::Up, Keypress::Left]
        );
        assert_eq!(
            keys(b"\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~\x1b[7~\x1b[8~"),
            vec![
                Keypress::Home,
                Keypress::End,
                Keypress::Home,
                Keypress::End,
                Keypress::Home,
                Keypress::End,
                Keypress::Home,
                Keypress::End
            ]
        );
        assert_eq!(
            keys(b"\x1b[3~\x1b[5~\x1b[6~\x1b[2~\x1b[15~"),
            vec![
                Keypress::Delete,
                Keypress::PageUp,
                Keypress::PageDown,
                Keypress::Unknown,
                Keypress::Unknown
            ]
        );
        assert_eq!(
            keys(b"\x1b[1;5C\x1b[1;5D\x1b[1;3C\x1b[1;3D\x1b[1;2C"),
            vec![
                Keypress::WordRight,
                Keypress::WordLeft,
                Keypress::WordRight,
                Keypress::WordLeft,
                Keypress::Right
            ]
        );
    }

    #[test]
    fn alt_keys() {
        assert_eq!(
            keys(b"\x1bb\x1bf\x1bd\x1b\r\x1b\n\x1b\x7f"),
            vec![
                Keypress::Alt('b'),
                Keypress::Alt('f'),
                Keypress::Alt('d'),
                Keypress::AltEnter,
                Keypress::AltEnter,
                Keypress::AltBackspace
            ]
        );
        assert_eq!(keys("\x1bé".as_bytes()), vec![Keypress::Alt('é')]);
    }

    #[test]
    fn a_lone_escape_is_a_key_only_once_nothing_follows() {
        assert!(matches!(decode(b"\x1b"), Decoded::Incomplete));
        assert!(matches!(decode(b"\x1b["), Decoded::Incomplete));
        assert!(matches!(decode(b"\x1b[1;5"), Decoded::Incomplete));
        assert_eq!(decode_stalled(b"\x1b"), (Keypress::Escape, 1));
        assert_eq!(keys(b"\x1b\x1b[A"), vec![Keypress::Escape, Keypress::Up]);
    }

    #[test]
    fn a_cut_character_waits_and_junk_is_dropped_not_typed() {
        assert!(matches!(decode("调".as_bytes().split_at(2).0), Decoded::Incomplete));
        assert_eq!(
            keys(b"\xffa\xe8x"),
            vec![Keypress::Unknown, Keypress::Char('a'), Keypress::Unknown, Keypress::Char('x')]
        );
        // A C1 control (CSI as UTF-8) is no character to type.
        assert_eq!(keys("\u{9b}".as_bytes()), vec![Keypress::Unknown]);
        // Junk inside a sequence ends it.
        assert_eq!(keys(b"\x1b[1\x01"), vec![Keypress::Unknown, Keypress::Ctrl('a')]);
    }

    #[test]
    fn paste_markers_and_cursor_reports() {
        assert_eq!(
            keys(b"\x1b[200~\x1b[201~\x1b[12;40R"),
            vec![Keypress::PasteStart, Keypress::PasteEnd, Keypress::CursorPosition { row: 12, column: 40 }]
        );
    }

    #[test]
    fn pasted_text_keeps_lines_and_indentation_but_no_controls() {
        assert_eq!(paste_text(b"def f():\r    return 1\r\n\tx\n"), "def f():\n    return 1\n\tx\n");
        assert_eq!(
            paste_text(b"red \x1b[31mtext\x1b[0m\x07 \x1b]0;title\x07end\x1b]8;;u\x1b\\"),
            "red text end"
        );
        assert_eq!(paste_text("调试 😀\x00\x7f".as_bytes()), "调试 😀");
    }

    #[test]
    fn a_sequence_that_never_ends_is_dropped() {
        let mut long = b"\x1b[".to_vec();
        long.extend(std::iter::repeat_n(b'1', MAX_SEQUENCE));
        assert_eq!(decode(&long).key(), Some(Keypress::Unknown));
    }

    #[test]
    fn any_bytes_decode_into_keys_that_each_take_some() {
        // A small fixed generator: the same bytes every run. The fuzz
        // target `keys` goes much further.
        let mut state: u32 = 0x2545_f491;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let alphabet =
            b"\x1b[O;0123456789~ABCDFHR\r\n\t\x7f\x01\xe8\xb0\x83\xc3\xa9\xf0\x9f\x98\x80\xff200~201~";
        for _ in 0..2000 {
            let len = (next() % 40) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| alphabet[next() as usize % alphabet.len()]).collect();
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let (key, used) = match decode(rest) {
                    Decoded::Keypress(key, used) => (key, used),
                    Decoded::Incomplete => decode_stalled(rest),
                };
                assert!(used >= 1 && used <= rest.len(), "{bytes:?}");
                if let Keypress::Char(c) | Keypress::Alt(c) = key {
                    assert!(!c.is_control(), "{bytes:?}");
                }
                rest = &rest[used..];
            }
            let text = paste_text(&bytes);
            assert!(text.chars().all(|c| !c.is_control() || c == '\n' || c == '\t'), "{bytes:?}");
        }
    }

    impl Decoded {
        fn key(self) -> Option<Keypress> {
            match self {
                Decoded::Keypress(key, _) => Some(key),
                Decoded::Incomplete => None,
            }
        }
    }
}
