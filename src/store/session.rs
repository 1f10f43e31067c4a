//! A session: its header and its messages, and the rules for IDs, titles
//! and previews. Their bytes on disk are `format`'s.

use nanoserde::{DeJson, SerJson};

pub const FORMAT: u64 = 1;
pub(crate) const MAX_TITLE_CHARS: usize = 100;
/// A model's name is a short identifier (`gpt-4o-mini`, `org/model:7b`).
pub(crate) const MAX_MODEL_CHARS: usize = 200;
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;
const PREVIEW_CHARS: usize = 80;
/// How far ahead of this machine's clock a stored time may be before it is
/// worth a warning: synced machines' clocks differ by seconds, not minutes.
pub(crate) const CLOCK_SKEW_SECS: f64 = 300.0;

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
    /// The model the session was last used with. Optional in format 1:
    /// written only when known, after the other header fields; readers
    /// that do not know it pass over it.
    pub model: Option<String>,
    /// The role the session was started with (`--role`, `/role`).
    /// Optional in format 1, as `model` is.
    pub role: Option<String>,
    /// The tokens of every reply that reported some, added up (see
    /// `Message::usage`). Optional in format 1, as `model` is: written
    /// once a reply reported usage.
    pub usage: Option<Usage>,
    /// The model options the session's replies were last asked with
    /// (`-o KEY=VALUE`, a role's, config.toml's). Optional in format 1, as
    /// `model` is: written only when one is set.
    pub options: Option<ModelOptions>,
}

/// The model options a request may carry besides the conversation, each
/// of its kind; the keys, their checks and their help are `OPTIONS`.
#[derive(Clone, Debug, Default, DeJson, SerJson, PartialEq)]
pub struct ModelOptions {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u64>,
    pub seed: Option<i64>,
    pub stop: Option<String>,
}

/// What a model option takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OptionKind {
    /// A number from `.0` to `.1`.
    Number(f64, f64),
    /// A whole number from 1.
    Count,
    /// A whole number, maybe negative.
    Integer,
    /// A line of text.
    Text,
}

/// A model option: its key (as the OpenAI API spells it), what it takes,
/// and what it does in a line (`--help`, `config --help`, the man page).
pub(crate) struct ModelOption {
    pub(crate) key: &'static str,
    pub(crate) kind: OptionKind,
    pub(crate) help: &'static str,
}

/// Every model option, in the order they are written.
pub(crate) const OPTIONS: [ModelOption; 5] = [
    ModelOption {
        key: "temperature",
        kind: OptionKind::Number(0.0, 2.0),
        help: "how random the reply is, from 0 (the likeliest words) to 2",
    },
    ModelOption {
        key: "top_p",
        kind: OptionKind::Number(0.0, 1.0),
        help: "sample from the likeliest words making up this share, from 0 to 1",
    },
    ModelOption { key: "max_tokens", kind: OptionKind::Count, help: "the most tokens the reply may take" },
    ModelOption {
        key: "seed",
        kind: OptionKind::Integer,
        help: "a whole number that makes sampling repeatable where the server supports it",
    },
    ModelOption { key: "stop", kind: OptionKind::Text, help: "a text at which the reply stops" },
];

impl ModelOptions {
    /// Set `key` to `value`, checked by its kind; why not, naming the key
    /// but not quoting the value.
    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let option = OPTIONS.iter().find(|o| o.key == key).ok_or_else(|| {
            let known: Vec<&str> = OPTIONS.iter().map(|o| o.key).collect();
            format!("'{key}' is no model option (they are {})", known.join(", "))
        })?;
        let value = value.trim();
        let number = || value.parse::<f64>().ok().filter(|n| n.is_finite());
        match option.kind {
            OptionKind::Number(low, high) => {
                let n = number()
                    .filter(|n| (low..=high).contains(n))
                    .ok_or_else(|| format!("{key} must be a number from {low} to {high}"))?;
                match key {
                    "temperature" => self.temperature = Some(n),
                    _ => self.top_p = Some(n),
                }
            }
            OptionKind::Count => {
                let n = value.parse::<u64>().ok().filter(|n| *n >= 1 && *n <= 1 << 31);
                self.max_tokens = Some(n.ok_or_else(|| format!("{key} must be a whole number from 1"))?);
            }
            OptionKind::Integer => {
                let n = value.parse::<i64>().ok().filter(|n| n.unsigned_abs() < 1 << 53);
                self.seed = Some(n.ok_or_else(|| format!("{key} must be a whole number"))?);
            }
            OptionKind::Text => {
                if value.is_empty() || value.len() > 200 || value.chars().any(char::is_control) {
                    return Err(format!("{key} must be a line of text, at most 200 bytes"));
                }
                self.stop = Some(value.to_string());
            }
        }
        Ok(())
    }

    /// Each option set, as `key` and its value in JSON, in `OPTIONS`' order.
    pub(crate) fn pairs(&self) -> Vec<(&'static str, String)> {
        let json = |n: f64| nanoserde::SerJson::serialize_json(&n);
        let values = [
            self.temperature.map(json),
            self.top_p.map(json),
            self.max_tokens.map(|n| n.to_string()),
            self.seed.map(|n| n.to_string()),
            self.stop.as_ref().map(nanoserde::SerJson::serialize_json),
        ];
        OPTIONS.iter().zip(values).filter_map(|(o, v)| Some((o.key, v?))).collect()
    }

    pub(crate) fn is_empty(&self) -> bool {
        *self == ModelOptions::default()
    }

    /// `KEY=VALUE` a line, the values as given (for an agent's environment).
    pub(crate) fn lines(&self) -> String {
        let mut text = String::new();
        for (key, json) in self.pairs() {
            let value = if key == "stop" { self.stop.clone().unwrap_or_default() } else { json };
            text.push_str(&format!("{key}={value}\n"));
        }
        text
    }

    /// `temperature=0.2 seed=7`: as `show` and errors say them.
    pub(crate) fn describe(&self) -> String {
        let pairs: Vec<String> = self.pairs().iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join(" ")
    }
}

/// The tokens a server counted for one reply (OpenAI's `usage`), or for
/// the replies of a session added up.
#[derive(Clone, Copy, Debug, Default, DeJson, SerJson, PartialEq)]
pub struct Usage {
    /// What the request sent: the conversation, as the server counts it.
    #[nserde(default)]
    pub prompt_tokens: u64,
    /// What the reply took.
    #[nserde(default)]
    pub completion_tokens: u64,
    #[nserde(default)]
    pub total_tokens: u64,
}

impl Usage {
    /// Counts as a server reported them, its total as it said it: one it
    /// left out is the sum.
    pub(crate) fn new(prompt_tokens: u64, completion_tokens: u64, total_tokens: Option<u64>) -> Usage {
        let sum = || prompt_tokens.saturating_add(completion_tokens);
        Usage { prompt_tokens, completion_tokens, total_tokens: total_tokens.unwrap_or_else(sum) }
    }

    pub(crate) fn add(&mut self, other: &Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
    }

    /// `1,234 in, 56 out`: as `show` and `stats` say it.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} in, {} out",
            crate::text::thousands(self.prompt_tokens),
            crate::text::thousands(self.completion_tokens)
        )
    }
}

/// The usage of `messages` added up; None when none reported any.
pub(crate) fn usage_of(messages: &[Message]) -> Option<Usage> {
    messages.iter().filter_map(|m| m.usage).reduce(|mut sum, u| {
        sum.add(&u);
        sum
    })
}

#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Message {
    pub role: String,
    pub content: String,
    pub ts: f64,
    /// `"interrupted": true` on a reply cut short by Ctrl-C. Optional in
    /// format 1: written only when true, and readers that do not know it
    /// pass over it.
    pub interrupted: Option<bool>,
    /// `"incomplete": true` on a reply that did not end: the connection
    /// was cut, the agent went silent for the turn's timeout, or failed,
    /// after it had begun. Optional in format 1 as `interrupted` is.
    pub incomplete: Option<bool>,
    /// `"replaced": true` on a reply `/retry` asked again for: kept, shown
    /// as replaced, never sent to an agent again. Optional in format 1 as
    /// `interrupted` is: written only when true, passed over by readers
    /// that do not know it.
    pub replaced: Option<bool>,
    /// `"summary": true` on a summary of the messages before it (made by
    /// `compact`): a system message that a turn sends in place of them.
    /// Optional in format 1 like `interrupted`; an older hermes reads it
    /// as an ordinary system message.
    pub summary: Option<bool>,
    /// The tokens the server counted for this reply, when it said. Optional
    /// in format 1 like `interrupted`: written only when known.
    pub usage: Option<Usage>,
    /// The images that go with a user's message (`-f photo.png`), each
    /// kept once in the store's `images/` by its content's hash (see
    /// `store::images`), never inside the file. Optional in format 1 like
    /// `usage`: written only when there are some.
    pub images: Option<Vec<Image>>,
}

/// An image a message refers to.
#[derive(Clone, Debug, DeJson, SerJson, PartialEq)]
pub struct Image {
    /// Its name as given (`photo.png`), for people.
    #[nserde(default)]
    pub name: String,
    /// Its file in `images/`: the SHA-256 of its bytes in hex, a dot and
    /// its kind's extension (`9f86d0….png`).
    pub file: String,
    /// Its size in bytes, for people.
    #[nserde(default)]
    pub bytes: u64,
}

impl Image {
    /// `[image: photo.png, 34 KiB, images/9f86….png]`: as `show` and an
    /// export name it (the name through the gate).
    pub(crate) fn describe(&self) -> String {
        format!(
            "[image: {}, {}, images/{}]",
            crate::text::printable(&self.name, false),
            crate::store::images::size(self.bytes),
            crate::text::printable(&self.file, false)
        )
    }
}

impl Message {
    pub fn new(role: &str, content: String, ts: f64) -> Message {
        Message {
            role: role.to_string(),
            content,
            ts,
            interrupted: None,
            incomplete: None,
            replaced: None,
            summary: None,
            usage: None,
            images: None,
        }
    }

    /// The images it refers to (none for most).
    pub(crate) fn images(&self) -> &[Image] {
        self.images.as_deref().unwrap_or_default()
    }

    pub(crate) fn is_replaced(&self) -> bool {
        self.replaced == Some(true)
    }

    /// A summary of the messages before it, as `compact` stores it.
    pub(crate) fn summary(content: String, ts: f64) -> Message {
        Message { summary: Some(true), ..Message::new("system", content, ts) }
    }

    pub(crate) fn is_summary(&self) -> bool {
        self.summary == Some(true) && self.role == "system"
    }

    pub(crate) fn is_interrupted(&self) -> bool {
        self.interrupted == Some(true)
    }

    pub(crate) fn is_incomplete(&self) -> bool {
        self.incomplete == Some(true)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub header: Header,
    pub messages: Vec<Message>,
}

pub(crate) const TITLE_USER: &str = "user";
pub(crate) const TITLE_AUTO: &str = "auto";

impl Header {
    pub(crate) fn new(id: String, cwd: String, now: f64) -> Header {
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
            model: None,
            role: None,
            usage: None,
            options: None,
        }
    }

    /// When the session was last active, for ordering and pruning: a time
    /// in the future (another machine's clock ran ahead) counts as now, so
    /// it neither stays "latest" for ever nor escapes pruning by being
    /// newer than any cutoff for ever.
    pub(crate) fn activity(&self, now: f64) -> f64 {
        self.updated_at.min(now)
    }

    /// Whether the stored activity time lies ahead of `now` by more than
    /// clocks of machines sharing a home usually disagree.
    pub(crate) fn is_from_the_future(&self, now: f64) -> bool {
        self.updated_at > now + CLOCK_SKEW_SECS
    }

    pub(crate) fn has_user_title(&self) -> bool {
        self.title_source == TITLE_USER
    }

    /// Record one more message: counts, activity time, preview, and the
    /// automatic title when it is the session's first message (only a new
    /// session, made under the store lock, can be titled uniquely; one
    /// imported untitled stays so until renamed).
    pub(crate) fn note_message(&mut self, message: &Message) {
        let first = self.message_count == 0;
        self.message_count = self.message_count.saturating_add(1);
        self.updated_at = self.updated_at.max(message.ts);
        if let Some(usage) = &message.usage {
            self.usage.get_or_insert_default().add(usage);
        }
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

/// The order of a listing: newest activity first (a time in the future
/// counts as now), ties by ID.
pub(crate) fn newest_first(a: &Header, b: &Header, now: f64) -> std::cmp::Ordering {
    b.activity(now).total_cmp(&a.activity(now)).then_with(|| b.id.cmp(&a.id))
}

/// Sort headers in a listing's order.
pub(crate) fn sort_newest_first(headers: &mut [Header], now: f64) {
    crate::order::sort_by(headers, |a, b| newest_first(a, b, now));
}

/// A model's name as typed (`-m`, `/model`, `config set model`, config.toml,
/// `$HERMES_MODEL`), checked as a title is: one line of visible characters
/// (no control character, no bidi override or other invisible one), at
/// most `MAX_MODEL_CHARS`; else why not (never quoting it).
pub(crate) fn clean_model(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err("a model name cannot be empty".into());
    }
    if name.chars().any(is_invisible) {
        return Err(
            "a model name is one line, without control characters or invisible ones (bidi overrides, \
                zero-width spaces)"
                .into(),
        );
    }
    if name.chars().count() > MAX_MODEL_CHARS {
        return Err(format!("a model name has at most {MAX_MODEL_CHARS} characters"));
    }
    Ok(name.to_string())
}

/// A model's name from elsewhere (an import, a merged copy), which is not
/// refused (the conversation must not be lost) but made what `clean_model`
/// accepts: invisible characters removed, blanks made one space, cut to
/// `MAX_MODEL_CHARS`. None when nothing is left.
pub(crate) fn foreign_model(raw: &str) -> Option<String> {
    let clean: String = sanitize_title(raw)?.chars().take(MAX_MODEL_CHARS).collect();
    Some(clean.trim_end().to_string()).filter(|m| !m.is_empty())
}

/// `YYYYMMDD_HHMMSS_xxxxxx`: the only strings that ever become file names.
pub(crate) fn is_valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 22
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'_'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'_'
        && b[16..].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// What part of a session ID a name has the shape of, if any: the names
/// that are read as an ID (or part of one) before they are read as a title.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum IdShape {
    /// A whole ID: `20261202_143015_a1b2c3`.
    Full,
    /// 8 or more of its leading characters: `20261202`, `20261202_1430`.
    Prefix,
    /// The 6 hex digits that end one: `a1b2c3`.
    Suffix,
}

impl IdShape {
    /// The shape in words, for messages.
    /// The part of a session's ID a name of this shape is.
    pub(crate) fn part(self) -> &'static str {
        match self {
            IdShape::Full => "the ID",
            IdShape::Prefix => "the start of the ID",
            IdShape::Suffix => "the short ID",
        }
    }

    pub(crate) fn words(self) -> &'static str {
        match self {
            IdShape::Full => "a session ID",
            IdShape::Prefix => "a session ID prefix",
            IdShape::Suffix => "a short session ID (6 hex digits)",
        }
    }
}

/// The shape of (part of) an ID that `name` has, if any, its hex digits
/// in either case: `ABCDEF` is read as a short ID as `abcdef` is.
pub(crate) fn id_shape(name: &str) -> Option<IdShape> {
    let b = name.as_bytes();
    if b.len() == 22 && is_valid_id(&name.to_ascii_lowercase()) {
        return Some(IdShape::Full);
    }
    if b.len() == 6 && b.iter().all(u8::is_ascii_hexdigit) {
        return Some(IdShape::Suffix);
    }
    let is_prefix = (8..22).contains(&b.len())
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 15 => *c == b'_',
            16.. => c.is_ascii_hexdigit(),
            _ => c.is_ascii_digit(),
        });
    is_prefix.then_some(IdShape::Prefix)
}

/// `name` as hermes writes IDs (lower case) when it has the shape of
/// (part of) one, for comparing with IDs; else as it is.
pub(crate) fn as_written_id(name: &str) -> std::borrow::Cow<'_, str> {
    match id_shape(name) {
        Some(_) if name.bytes().any(|c| c.is_ascii_uppercase()) => name.to_ascii_lowercase().into(),
        _ => name.into(),
    }
}

/// An ID as a fixed-size key: what scans and sets of IDs hold, so that
/// 100,000 of them take 2 MiB and no allocations. Longer input is cut,
/// shorter padded with zeros (only valid IDs are ever looked up).
pub(crate) fn id_key(id: &str) -> [u8; 22] {
    let mut key = [0u8; 22];
    let n = id.len().min(22);
    key[..n].copy_from_slice(&id.as_bytes()[..n]);
    key
}

/// The ID an `id_key` was made from (every valid ID is 22 ASCII bytes).
pub(crate) fn id_of_key(key: &[u8; 22]) -> Option<String> {
    std::str::from_utf8(key).ok().filter(|id| is_valid_id(id)).map(str::to_string)
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
pub(crate) fn has_visible(text: &str) -> bool {
    text.chars().any(|c| !c.is_whitespace() && !is_invisible(c))
}

/// Whether a reply (or a summary) is empty: nothing in it shows (no text,
/// blanks, invisible characters only). The one definition: such a reply
/// is never saved, and the agent that wrote it has failed.
pub(crate) fn is_empty_reply(text: &str) -> bool {
    !has_visible(text)
}

/// Title rules: invisible characters removed, whitespace collapsed to one
/// space, trimmed. None when nothing is left. Length is checked separately
/// so a too-long user title can be refused rather than cut.
pub(crate) fn sanitize_title(raw: &str) -> Option<String> {
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
/// at a word boundary to fit; none when it has the shape of an ID or an
/// ID prefix (a name would find the sessions of that ID, never this one).
pub(crate) fn clean_title(text: &str) -> Option<String> {
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let title = sanitize_title(first_line)?;
    let title = crate::text::truncate_words(&title, 60);
    match id_shape(&title) {
        Some(IdShape::Full | IdShape::Prefix) => None,
        _ => Some(title),
    }
}

pub(crate) fn preview_of(text: &str) -> String {
    crate::text::truncate_words(&sanitize_title(text).unwrap_or_default(), PREVIEW_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_are_one_short_line() {
        assert_eq!(clean_model("  gpt-4o-mini \n").unwrap(), "gpt-4o-mini");
        assert_eq!(clean_model("org/model:7b").unwrap(), "org/model:7b");
        assert!(clean_model("").is_err());
        assert!(clean_model("a\nb").is_err());
        assert!(clean_model("a\u{1b}[31m").is_err());
        assert!(clean_model(&"m".repeat(MAX_MODEL_CHARS + 1)).is_err());
        assert!(clean_model("gpt\u{202e}4").is_err());
        assert_eq!(foreign_model("  m\u{1b}]0;PWN\u{7}x "), Some("m]0;PWNx".into()));
        assert_eq!(
            foreign_model(&format!("a\nb{}", "m".repeat(1008))).unwrap().chars().count(),
            MAX_MODEL_CHARS
        );
        assert_eq!(foreign_model("\u{7}\u{202e}"), None);
    }

    #[test]
    fn the_model_is_written_only_when_known_and_read_when_missing() {
        let mut header = Header::new("20261202_143015_a1b2c3".into(), "/".into(), 1.0);
        assert!(!header.serialize_json().contains("model"));
        header.model = Some("m".into());
        let text = header.serialize_json();
        assert!(text.ends_with(r#","preview":"","model":"m"}"#), "{text}");
        let back: Header = DeJson::deserialize_json(&text).unwrap();
        assert_eq!(back, header);
        let old: Header =
            DeJson::deserialize_json(r#"{"format":1,"id":"20261202_143015_a1b2c3","title":"t"}"#).unwrap();
        assert_eq!(old.model, None);
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
    fn names_shaped_like_ids_are_told_apart() {
        assert_eq!(id_shape("20261202_143015_a1b2c3"), Some(IdShape::Full));
        assert_eq!(id_shape("20261202"), Some(IdShape::Prefix));
        assert_eq!(id_shape("20261202_1430"), Some(IdShape::Prefix));
        assert_eq!(id_shape("20261202_143015_a1b2"), Some(IdShape::Prefix));
        assert_eq!(id_shape("a1b2c3"), Some(IdShape::Suffix));
        for not in ["2026120", "a1b2c", "2026x202", "report 20261202", "../../etc", "", "ABCDEG"] {
            assert_eq!(id_shape(not), None, "{not}");
        }
        // Any case: hex digits are hex digits.
        assert_eq!(id_shape("A1B2C3"), Some(IdShape::Suffix));
        assert_eq!(id_shape("20261202_143015_A1B2C3"), Some(IdShape::Full));
        assert_eq!(id_shape("20261202_143015_A1"), Some(IdShape::Prefix));
        assert_eq!(as_written_id("20261202_143015_A1B2C3"), "20261202_143015_a1b2c3");
        assert_eq!(as_written_id("3BEB24"), "3beb24");
        assert_eq!(as_written_id("Decade"), "decade");
        assert_eq!(as_written_id("Report"), "Report");
        assert_eq!(clean_title("20261202_143015_ABCDEF"), None);
        assert_eq!(clean_title("20261202\nthe rest"), None);
        assert_eq!(clean_title("decade").as_deref(), Some("decade"));
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
