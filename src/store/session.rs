//! A session: its header and its messages, and the rules for IDs, titles
//! and previews. Their bytes on disk are `format`'s.

use nanoserde::{DeJson, SerJson};

pub const FORMAT: u64 = 1;
pub const MAX_TITLE_CHARS: usize = 100;
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;
const PREVIEW_CHARS: usize = 80;
/// How far ahead of this machine's clock a stored time may be before it is
/// worth a warning: synced machines' clocks differ by seconds, not minutes.
pub const CLOCK_SKEW_SECS: f64 = 300.0;

/// The small fields before `messages`: all that listing needs.
#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Header {
    pub format: u64,
    pub id: String,
    #[nserde(default)]
    pub title: String,
    #[nserde(default)]
    pub title_source: String,
    #[nserde(default)]
    pub created_at: f64,
    #[nserde(default)]
    pub updated_at: f64,
    #[nserde(default)]
    pub cwd: String,
    #[nserde(default)]
    pub message_count: u64,
    #[nserde(default)]
    pub preview: String,
}

// nanoserde's derived `DeJson` unwraps fields with a `match` clippy would
// write with `?` (clippy::question_mark); the derived impl is a sibling of
// the struct, out of reach of an attribute on it, so the allow is on this
// module, which holds only the derived type.
#[allow(clippy::question_mark)]
mod message {
    use super::*;

    #[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
    pub struct Message {
        pub role: String,
        pub content: String,
        pub ts: f64,
        /// `"interrupted": true` on a reply cut short by Ctrl-C. Optional in
        /// format 1: written only when true, and readers that do not know it
        /// pass over it.
        pub interrupted: Option<bool>,
    }
}
pub use message::Message;

impl Message {
    pub fn new(role: &str, content: String, ts: f64) -> Message {
        Message { role: role.to_string(), content, ts, interrupted: None }
    }

    pub fn is_interrupted(&self) -> bool {
        self.interrupted == Some(true)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub header: Header,
    pub messages: Vec<Message>,
}

pub const TITLE_USER: &str = "user";
pub const TITLE_AUTO: &str = "auto";

impl Header {
    pub fn new(id: String, cwd: String, now: f64) -> Header {
        Header {
            format: FORMAT,
            id,
            title: String::new(),
            title_source: String::new(),
            created_at: now,
            updated_at: now,
            cwd,
            message_count: 0,
            preview: String::new(),
        }
    }

    /// When the session was last active, for ordering and pruning: a time
    /// in the future (another machine's clock ran ahead) counts as now, so
    /// it neither stays "latest" for ever nor escapes pruning by being
    /// newer than any cutoff for ever.
    pub fn activity(&self, now: f64) -> f64 {
        self.updated_at.min(now)
    }

    /// Whether the stored activity time lies ahead of `now` by more than
    /// clocks of machines sharing a home usually disagree.
    pub fn is_from_the_future(&self, now: f64) -> bool {
        self.updated_at > now + CLOCK_SKEW_SECS
    }

    pub fn has_user_title(&self) -> bool {
        self.title_source == TITLE_USER
    }

    /// Record one more message: counts, activity time, preview, and the
    /// automatic title when it is the session's first message (only a new
    /// session, made under the store lock, can be titled uniquely; one
    /// imported untitled stays so until renamed).
    pub fn note_message(&mut self, message: &Message) {
        let first = self.message_count == 0;
        self.message_count = self.message_count.saturating_add(1);
        self.updated_at = self.updated_at.max(message.ts);
        if message.role == "user" {
            if self.preview.is_empty() {
                self.preview = preview_of(&message.content);
            }
            if first
                && self.title.is_empty()
                && let Some(title) = clean_title(&message.content)
            {
                self.title = title;
                self.title_source = TITLE_AUTO.to_string();
            }
        }
    }
}

/// `YYYYMMDD_HHMMSS_xxxxxx`: the only strings that ever become file names.
pub fn is_valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 22
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'_'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'_'
        && b[16..].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// An ID as a fixed-size key: what scans and sets of IDs hold, so that
/// 100,000 of them take 2 MiB and no allocations. Longer input is cut,
/// shorter padded with zeros (only valid IDs are ever looked up).
pub fn id_key(id: &str) -> [u8; 22] {
    let mut key = [0u8; 22];
    let n = id.len().min(22);
    key[..n].copy_from_slice(&id.as_bytes()[..n]);
    key
}

/// Characters a title never keeps: controls, and the invisible or
/// direction-changing marks that could disguise one title as another.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}'                  // soft hyphen
            | '\u{034F}'                // combining grapheme joiner
            | '\u{061C}'                // arabic letter mark
            // Format characters that show nothing (the Arabic number signs
            // and the like, also format characters, are drawn: they stay).
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotation
            | '\u{13430}'..='\u{1343F}' // egyptian hieroglyph format controls
            | '\u{1BCA0}'..='\u{1BCA3}' // shorthand format controls
            | '\u{1D173}'..='\u{1D17A}' // musical symbol format controls
            | '\u{2800}'                // braille blank
            | '\u{115F}' | '\u{1160}'   // hangul fillers
            | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'   // mongolian selectors
            | '\u{200B}'..='\u{200F}'   // zero-width, LRM, RLM
            | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'   // word joiner, invisible operators, isolates
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'   // variation selectors
            | '\u{FEFF}'                // BOM / zero-width no-break space
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{E0000}'..='\u{E007F}' // tags
        )
}

/// Whether `text` shows anything: a character neither whitespace nor
/// invisible.
pub fn has_visible(text: &str) -> bool {
    text.chars().any(|c| !c.is_whitespace() && !is_invisible(c))
}

/// Title rules: invisible characters removed, whitespace collapsed to one
/// space, trimmed. None when nothing is left. Length is checked separately
/// so a too-long user title can be refused rather than cut.
pub fn sanitize_title(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len().min(512));
    let mut pending_space = false;
    for c in raw.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else if !is_invisible(c) {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A title for a session made from its first message: sanitized and cut
/// at a word boundary to fit; none when it has the shape of an ID (a
/// name would find the session of that ID, never this one).
pub fn clean_title(text: &str) -> Option<String> {
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let title = sanitize_title(first_line)?;
    Some(crate::text::truncate_words(&title, 60)).filter(|t| !is_valid_id(t))
}

fn preview_of(text: &str) -> String {
    crate::text::truncate_words(&sanitize_title(text).unwrap_or_default(), PREVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_id_shape() {
        assert!(is_valid_id("20261202_143015_a1b2c3"));
        for bad in
            ["", "..", "../x", "20261202_143015_A1B2C3", "20261202_143015_a1b2c", "20261202-143015_a1b2c3"]
        {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn sanitizes_titles() {
        assert_eq!(sanitize_title("  a\u{202E}b \u{200B}\t\n c\u{1b}[31m "), Some("ab c[31m".into()));
        assert_eq!(sanitize_title("\u{200B}\u{7} "), None);
        assert_eq!(sanitize_title("\u{1D173}\u{2800}\u{FFF9}\u{E0001}"), None);
        assert_eq!(crate::text::truncate_words("hello wonderful world", 12), "hello wonde…");
        assert_eq!(crate::text::truncate_words("hello wonderful world", 18), "hello wonderful…");
    }
}
