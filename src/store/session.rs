//! A session: its header, its messages, and their on-disk JSON form
//! (format 1), plus the rules for IDs, titles and previews.

use nanoserde::{DeJson, SerJson};

use crate::store::json;

pub const FORMAT: u64 = 1;
pub const MAX_TITLE_CHARS: usize = 100;
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;
const PREVIEW_CHARS: usize = 80;

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

#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Message {
    pub role: String,
    pub content: String,
    #[nserde(default)]
    pub ts: f64,
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

/// Why a document is not a session, phrased for the user.
pub type DecodeError = String;

/// Parse the header from the start of a session file. `prefix` may be the
/// whole file or only its first bytes.
pub fn decode_header(prefix: &[u8]) -> Result<Header, DecodeError> {
    let Some((key, _)) = json::find_messages_key(prefix) else {
        return Err(if prefix.is_empty() { "empty file".into() } else { "no \"messages\" field".into() });
    };
    let mut end = key;
    while end > 0 && prefix[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if end == 0 || prefix[end - 1] != b',' {
        return Err("\"messages\" is not the last field".into());
    }
    let mut head = prefix[..end - 1].to_vec();
    head.push(b'}');
    json::validate(&head).map_err(|e| e.to_string())?;
    let text = std::str::from_utf8(&head).map_err(|e| e.to_string())?;
    let header = Header::deserialize_json(text).map_err(|e| format!("bad header: {e}"))?;
    // 1e999 parses as infinity, which would be written back as `inf`: a
    // file hermes could no longer read. Such a file is damaged, not data.
    if !(header.created_at.is_finite() && header.updated_at.is_finite()) {
        return Err(TIME_OUT_OF_RANGE.into());
    }
    Ok(header)
}

const TIME_OUT_OF_RANGE: &str = "a time is out of range";

/// Parse a whole session file.
pub fn decode(doc: &[u8]) -> Result<Session, DecodeError> {
    let layout =
        json::layout(doc).map_err(|e| e.to_string())?.ok_or("not a session object with \"messages\" last")?;
    let header = decode_header(doc)?;
    let messages = decode_messages(&doc[layout.messages])?;
    Ok(Session { header, messages })
}

/// Parse the inside of a messages array (no brackets).
pub fn decode_messages(inner: &[u8]) -> Result<Vec<Message>, DecodeError> {
    let mut array = Vec::with_capacity(inner.len() + 2);
    array.push(b'[');
    array.extend_from_slice(inner);
    array.push(b']');
    let text = std::str::from_utf8(&array).map_err(|e| e.to_string())?;
    let messages = Vec::<Message>::deserialize_json(text).map_err(|e| format!("bad messages: {e}"))?;
    if messages.iter().any(|m| !m.ts.is_finite()) {
        return Err(TIME_OUT_OF_RANGE.into());
    }
    Ok(messages)
}

/// The file form: header fields first, one message per line, `messages` last.
pub fn encode(header: &Header, messages: &[Message]) -> Vec<u8> {
    let mut raw = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            raw.push(b',');
        }
        raw.push(b'\n');
        raw.extend_from_slice(m.serialize_json().as_bytes());
    }
    encode_raw(header, &raw)
}

/// Like `encode`, with the messages already serialized (comma separated,
/// each on its own line): appending to a long session copies the existing
/// messages as bytes instead of decoding and re-encoding them.
pub fn encode_raw(header: &Header, raw_messages: &[u8]) -> Vec<u8> {
    let head = header.serialize_json();
    let mut out = Vec::with_capacity(head.len() + raw_messages.len() + 32);
    out.extend_from_slice(&head.as_bytes()[..head.len() - 1]); // drop '}'
    out.extend_from_slice(b",\"messages\":[");
    out.extend_from_slice(raw_messages);
    out.extend_from_slice(b"\n]}\n");
    out
}

/// The one-line form used by `export --format jsonl` and inside
/// `--format json`: the same fields, no newlines.
pub fn encode_line(header: &Header, messages: &[Message]) -> String {
    let head = header.serialize_json();
    let mut out = String::with_capacity(head.len() + 64 * messages.len() + 16);
    out.push_str(&head[..head.len() - 1]);
    out.push_str(",\"messages\":[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&m.serialize_json());
    }
    out.push_str("]}");
    out
}

pub fn encode_message(m: &Message) -> String {
    m.serialize_json()
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
/// at a word boundary to fit.
pub fn clean_title(text: &str) -> Option<String> {
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let title = sanitize_title(first_line)?;
    Some(crate::text::truncate_words(&title, 60))
}

fn preview_of(text: &str) -> String {
    crate::text::truncate_words(&sanitize_title(text).unwrap_or_default(), PREVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Session {
        let mut header = Header::new("20261202_143015_a1b2c3".into(), "/home/ana".into(), 1.5);
        let messages = vec![
            Message { role: "user".into(), content: "why \"quotes\"\n and \u{7}bell".into(), ts: 2.0 },
            Message { role: "assistant".into(), content: "ok".into(), ts: 3.25 },
        ];
        for m in &messages {
            header.note_message(m);
        }
        Session { header, messages }
    }

    #[test]
    fn round_trips_through_the_file_form() {
        let s = sample();
        let bytes = encode(&s.header, &s.messages);
        assert_eq!(decode(&bytes).unwrap(), s);
        assert_eq!(decode_header(&bytes[..bytes.len() / 2 + 60]).unwrap(), s.header);
        assert_eq!(s.header.message_count, 2);
        assert_eq!(s.header.title, "why \"quotes\"");
        assert_eq!(s.header.title_source, TITLE_AUTO);
    }

    #[test]
    fn rejects_what_is_not_a_session() {
        for doc in [
            "",
            "[]",
            "{}",
            "{\"messages\":[]}",
            "{\"format\":1,\"messages\":[1]}",
            "{\"id\":1,\"messages\":[]}",
            "{\"format\":1,\"id\":\"x\",\"created_at\":1e999,\"messages\":[]}",
            "{\"format\":1,\"id\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"\",\"ts\":-1e999}]}",
        ] {
            assert!(decode(doc.as_bytes()).is_err(), "{doc}");
        }
    }

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
