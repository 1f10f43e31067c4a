//! `config.toml`: the agent command, how it takes its input, the server,
//! where the key comes from, the model, the system prompt, how replies are
//! drawn, and the context budget and compaction. Read by a small parser of
//! the one TOML form it needs, `key = "string"`, so that a mistake is
//! reported by its line; `edit` rewrites a line of it.

pub(crate) mod edit;

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::trust;

/// How the conversation is handed to the agent on its stdin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AgentInput {
    /// An OpenAI chat-completions request body.
    Json,
    /// The conversation as plain text, one `role: content` block each.
    Transcript,
    /// The latest user message only.
    Text,
}

impl std::str::FromStr for AgentInput {
    /// Why not, for the caller to place (a line of config.toml).
    type Err = String;

    fn from_str(name: &str) -> Result<AgentInput, String> {
        match name {
            "json" => Ok(AgentInput::Json),
            "transcript" => Ok(AgentInput::Transcript),
            "text" => Ok(AgentInput::Text),
            _ => Err(format!("agent_input must be \"json\", \"transcript\" or \"text\", not \"{name}\"")),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Config {
    pub(crate) agent: Option<String>,
    pub(crate) agent_input: Option<AgentInput>,
    pub(crate) model: Option<String>,
    /// The server's API root, handed to the agent as `OPENAI_BASE_URL`.
    pub(crate) base_url: Option<String>,
    /// The environment variable of hermes's own that holds the key.
    pub(crate) api_key_env: Option<String>,
    /// A command whose output is the key, run at every turn.
    pub(crate) api_key_command: Option<String>,
    /// The system prompt of a new session.
    pub(crate) system: Option<String>,
    /// `render = "plain"`: replies shown as the agent sent them, not as
    /// Markdown drawn for the terminal (`"markdown"`, the default).
    pub(crate) plain: bool,
    /// `context`: the most characters one turn sends (see `store::context`).
    pub(crate) context: Option<u64>,
    /// `compact = "auto"`: compact before a turn that would exceed the budget.
    pub(crate) compact: Option<Compact>,
}

/// When a session is compacted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Compact {
    /// Only when asked (`/compact`, `sessions compact`): the default.
    Off,
    /// Before a turn that would leave messages out.
    Auto,
}

impl Config {
    /// The context budget: config.toml's, else the default.
    pub(crate) fn budget(&self) -> u64 {
        self.context.unwrap_or(crate::store::context::DEFAULT_BUDGET)
    }
}

pub(crate) const KEYS: [&str; 10] = [
    "agent",
    "agent_input",
    "model",
    "base_url",
    "api_key_env",
    "api_key_command",
    "system",
    "render",
    "context",
    "compact",
];

/// The agent when config.toml sets `base_url` and no `agent`: the shipped
/// agent that talks to such a server.
pub(crate) const SERVER_AGENT: &str = "openai-compatible";

/// Check a value for `key` as `load` would, without naming the value (the
/// caller may be reading a file that is no config): why not, else nothing.
pub(crate) fn check_value(key: &str, value: &str) -> Result<(), String> {
    match key {
        "agent_input" => value.parse::<AgentInput>().map(|_| ()),
        "render" if value != "plain" && value != "markdown" => {
            Err("render must be \"markdown\" or \"plain\"".to_string())
        }
        "compact" if value != "auto" && value != "off" => {
            Err("compact must be \"auto\" or \"off\"".to_string())
        }
        "context" if crate::store::context::parse_budget(value).is_err() => {
            Err("context must be a number of characters, as \"300000\" or \"300k\", or \"off\"".to_string())
        }
        "api_key_env" if !is_env_name(value) => {
            Err("api_key_env must name an environment variable (letters, digits and '_')".to_string())
        }
        "base_url" if !(value.starts_with("http://") || value.starts_with("https://")) => {
            Err("base_url must start with http:// or https://".to_string())
        }
        "base_url" if has_credentials(value) => Err(CREDENTIALS_IN_URL.replace("{name}", "base_url")),
        "model" => crate::store::session::clean_model(value).map(|_| ()),
        _ if value.contains('\0') => Err(format!("the value of '{key}' holds a NUL character")),
        _ => Ok(()),
    }
}

/// Why a server's URL with a user name or password in it is refused (with
/// `{name}` the setting or variable that holds it): hermes would show it
/// (`config list`, errors) and hand it to the agent, which puts the URL on
/// curl's command line, where every user of the machine can read it.
const CREDENTIALS_IN_URL: &str = "{name} holds a user name or password (user:password@host), which would be shown by 'hermes config list' and in errors, and be on curl's command line for every user to see; give the server's URL without it, and the key with api_key_env (the environment variable that holds it) or api_key_command (a command that prints it)";

/// Whether a URL names a user (or a user and password) before its host.
pub(crate) fn has_credentials(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.split(['/', '?', '#']).next().is_some_and(|authority| authority.contains('@'))
}

/// `$OPENAI_BASE_URL`, which the agent reads when config.toml has no
/// base_url: refused as base_url is, when it holds a password.
pub(crate) fn base_url_from_env() -> Result<Option<String>> {
    let url = std::env::var("OPENAI_BASE_URL").ok().filter(|v| !v.trim().is_empty());
    match url {
        Some(url) if has_credentials(&url) => Err(Error::Refused(
            CREDENTIALS_IN_URL.replace("{name}", "the environment variable OPENAI_BASE_URL"),
        )),
        url => Ok(url),
    }
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// config.toml is a few lines; anything far larger is not one.
const MAX_CONFIG_BYTES: u64 = 64 << 10;

/// Read the profile's config.toml; a missing file is an empty config. It
/// names a command hermes runs, so a file another user owns or can write
/// is refused (see `store::trust`), and no message ever quotes a line of
/// it: a file that is not a config (a link to /etc/shadow) stays unread.
pub(crate) fn load(store: &Store) -> Result<Config> {
    match read_text(store)? {
        Some(text) => parse(store, &text),
        None => Ok(Config::default()),
    }
}

/// The text of config.toml, if there is one, read as `load` reads it
/// (trusted, bounded, UTF-8), for `load` and for `config set` to edit.
pub(crate) fn read_text(store: &Store) -> Result<Option<String>> {
    use std::io::Read;
    let path = store.config_path();
    let bad = |why: String| Error::NotAConfig { path: path.clone(), why };
    let mut file = match trust::open_config(&path) {
        Ok(None) => return Ok(None),
        Ok(Some(Ok(file))) => file,
        Ok(Some(Err(problem))) => return Err(Error::Untrusted(problem.message())),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let mut bytes = Vec::new();
    file.by_ref().take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(&path, e))?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(bad(format!("larger than {} KiB", MAX_CONFIG_BYTES >> 10)));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| bad("not UTF-8 text".into()))
}

/// Whether `text` would read as config.toml without error (what `config
/// set` and `unset` are about to write).
pub(crate) fn check_text(store: &Store, text: &str) -> Result<()> {
    parse(store, text).map(|_| ())
}

/// Read the settings in `text`, config.toml's.
fn parse(store: &Store, text: &str) -> Result<Config> {
    let path = store.config_path();
    let mut config = Config::default();
    let mut seen: Vec<String> = Vec::new();
    for (number, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
        let at_line = |why: String| Error::ConfigSyntax { path: path.clone(), line: number + 1, why };
        let Some((key, value)) = parse_line(line).map_err(at_line)? else {
            continue;
        };
        if seen.contains(&key) {
            return Err(at_line(format!("'{key}' is set twice")));
        }
        seen.push(key.clone());
        match key.as_str() {
            "agent" => config.agent = Some(value).filter(|v| !v.trim().is_empty()),
            "agent_input" => {
                // Not the value: the file may be anything but a config.
                config.agent_input = Some(value.parse().map_err(|_: String| {
                    at_line("agent_input must be \"json\", \"transcript\" or \"text\"".to_string())
                })?)
            }
            "model" => {
                // Checked as `config set` checks it; the value is not quoted.
                if !value.is_empty() {
                    check_value(&key, &value).map_err(at_line)?;
                }
                config.model = Some(value.trim().to_string()).filter(|v| !v.is_empty());
            }
            "base_url" | "api_key_env" | "api_key_command" | "system" => {
                // The value is not quoted: the file may be anything but a config.
                if !value.is_empty() {
                    check_value(&key, &value).map_err(at_line)?;
                }
                let value = Some(value).filter(|v| !v.trim().is_empty());
                match key.as_str() {
                    "base_url" => config.base_url = value,
                    "api_key_env" => config.api_key_env = value,
                    "api_key_command" => config.api_key_command = value,
                    _ => config.system = value,
                }
            }
            "render" => {
                config.plain = match value.as_str() {
                    "plain" => true,
                    "markdown" => false,
                    _ => return Err(at_line("render must be \"markdown\" or \"plain\"".to_string())),
                }
            }
            "context" => {
                config.context = Some(crate::store::context::parse_budget(&value).map_err(|_| {
                    at_line(
                        "context must be a number of characters, as \"300000\" or \"300k\", or \"off\""
                            .into(),
                    )
                })?)
            }
            "compact" => {
                config.compact = Some(match value.as_str() {
                    "auto" => Compact::Auto,
                    "off" => Compact::Off,
                    _ => return Err(at_line("compact must be \"auto\" or \"off\"".to_string())),
                })
            }
            other => crate::output::warn(&format!(
                "{}: line {}: unknown key '{other}' ignored (known: {})",
                path.display(),
                number + 1,
                KEYS.join(", ")
            )),
        }
    }
    Ok(config)
}

/// Another program's settings where config.toml would be (the Python
/// Hermes keeps its `config.yaml` in the same `~/.hermes`), when there is
/// no config.toml: named in the no-agent note, so that nobody wonders why
/// the agent set up there is not used. Never read.
pub(crate) fn foreign_config(store: &Store) -> Option<std::path::PathBuf> {
    let toml = store.config_path();
    if toml.exists() {
        return None;
    }
    ["config.yaml", "config.yml"].into_iter().map(|name| toml.with_file_name(name)).find(|p| p.exists())
}

/// One line of config.toml: nothing (blank, a comment), or `key = value`
/// with a basic ("...") or literal ('...') string and maybe a comment.
pub(crate) fn parse_line(line: &str) -> Result<Option<(String, String)>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    if line.starts_with('[') {
        return Err(format!("tables are not used here; the keys are {}", KEYS.join(", ")));
    }
    let Some((key, rest)) = line.split_once('=') else {
        return Err("expected key = \"value\"".to_string());
    };
    let key = key.trim();
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("not a key before '='; the keys are {}", KEYS.join(", ")));
    }
    let rest = rest.trim_start();
    // Only a known key is named: the file may be anything but a config.
    let key_shown = if KEYS.contains(&key) { format!("'{key}'") } else { "a key".to_string() };
    let example = if KEYS.contains(&key) { key } else { "key" };
    let must_quote =
        || format!("the value of {key_shown} must be a quoted string on one line, as in {example} = \"...\"");
    let (value, after) = match rest.chars().next() {
        Some('"') if !rest.starts_with("\"\"\"") => {
            basic_string(&rest[1..]).map_err(|why| format!("the value of {key_shown}: {why}"))?
        }
        Some('\'') if !rest.starts_with("'''") => {
            let end = rest[1..].find('\'').ok_or_else(must_quote)?;
            (rest[1..1 + end].to_string(), &rest[2 + end..])
        }
        _ => return Err(must_quote()),
    };
    let after = after.trim_start();
    if !after.is_empty() && !after.starts_with('#') {
        return Err(format!("unexpected text after the value of {key_shown}"));
    }
    if value.contains('\0') {
        return Err(format!("the value of {key_shown} holds a NUL character"));
    }
    Ok(Some((key.to_string(), value)))
}

/// The rest of a basic string after its opening quote: its value, with
/// escapes undone, and what follows the closing quote.
fn basic_string(s: &str) -> Result<(String, &str), String> {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((value, &s[i + 1..])),
            '\\' => {
                let bad = |_: &str| {
                    "a bad escape in a string (TOML has \\\" \\\\ \\n \\t \\uXXXX and a few more)".to_string()
                };
                value.push(match chars.next().map(|(_, c)| c) {
                    Some('b') => '\u{8}',
                    Some('t') => '\t',
                    Some('n') => '\n',
                    Some('f') => '\u{c}',
                    Some('r') => '\r',
                    Some('"') => '"',
                    Some('\\') => '\\',
                    Some(u @ ('u' | 'U')) => {
                        let len = if u == 'u' { 4 } else { 8 };
                        let digits: String = chars.by_ref().take(len).map(|(_, c)| c).collect();
                        let code = Some(&digits)
                            .filter(|d| d.len() == len && d.chars().all(|c| c.is_ascii_hexdigit()))
                            .and_then(|d| char::from_u32(u32::from_str_radix(d, 16).ok()?));
                        code.ok_or_else(|| bad(&format!("{u}{digits}")))?
                    }
                    Some(other) => return Err(bad(&other.to_string())),
                    None => break,
                });
            }
            c => value.push(c),
        }
    }
    Err("a string that does not end on its line".into())
}

#[cfg(test)]
mod tests {
    use super::{has_credentials, parse_line};

    #[test]
    fn a_user_or_password_in_a_url_is_seen() {
        assert!(has_credentials("http://user:pw@host/v1"));
        assert!(has_credentials("https://token@host:8080"));
        assert!(!has_credentials("http://host/v1?mail=a@b"));
        assert!(!has_credentials("http://host:11434/v1#x@y"));
        assert!(!has_credentials("http://127.0.0.1:11434/v1"));
    }

    fn pair(k: &str, v: &str) -> Result<Option<(String, String)>, String> {
        Ok(Some((k.to_string(), v.to_string())))
    }

    #[test]
    fn the_one_form_of_toml_it_needs() {
        assert_eq!(parse_line("  # a comment"), Ok(None));
        assert_eq!(parse_line(""), Ok(None));
        assert_eq!(parse_line("agent = \"llm -m x\""), pair("agent", "llm -m x"));
        assert_eq!(parse_line(r#"agent="a \"b\" \\ \u00e9" # note"#), pair("agent", "a \"b\" \\ é"));
        assert_eq!(parse_line(r"model = 'C:\raw'"), pair("model", r"C:\raw"));
        assert_eq!(parse_line("model = \"\""), pair("model", ""));
        let bad = [
            "agent = echo",
            "agent = 3",
            "agent = \"open",
            "agent = \"a\" b",
            "[table]",
            "= \"x\"",
            "a b = \"x\"",
            "agent = \"\"\"x\"\"\"",
            r#"agent = "bad \q escape""#,
            r#"agent = "\u12""#,
            r#"agent = "\u+041""#,
            r#"agent = "\uD800""#,
            r#"agent = "echo \u0000x""#,
        ];
        for line in bad {
            assert!(parse_line(line).is_err(), "{line}");
        }
    }
}
