//! config.toml read: a small parser of the one TOML form it needs,
//! `key = "string"`, so that a mistake is reported by its line; each key
//! read into its `Key` and each value checked by its entry in the settings
//! table.

use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::trust;

use super::{Key, check_value, keys};

/// config.toml's values, by key; a key set to "" (or blanks) is not set.
#[derive(Debug, Default)]
pub(crate) struct File {
    values: Vec<(Key, String)>,
    /// Its `[servers.NAME]` tables, in the file's order.
    pub(crate) servers: Vec<Server>,
}

impl File {
    pub(crate) fn get(&self, key: Key) -> Option<&str> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

/// A named server: `[servers.NAME]` with its `base_url` and where its key
/// comes from, chosen by `-m NAME:MODEL` (or a role's, or the default).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Server {
    pub(crate) name: String,
    /// The line of its `[servers.NAME]`.
    pub(crate) line: usize,
    pub(crate) values: Vec<(Key, String)>,
}

impl Server {
    pub(crate) fn get(&self, key: Key) -> Option<&str> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

/// The keys a `[servers.NAME]` table holds.
pub(crate) const SERVER_KEYS: [Key; 3] = [Key::BaseUrl, Key::ApiKeyEnv, Key::ApiKeyCommand];

/// The name in a `[servers.NAME]` line; Err for another table, or a name
/// that `-m NAME:MODEL` could not give.
fn server_table(line: &str) -> Option<Result<String, String>> {
    let line = line.trim();
    let inner = line.strip_prefix('[')?.split('#').next()?.trim_end().strip_suffix(']')?.trim();
    let Some(name) = inner.strip_prefix("servers.") else {
        return Some(Err(format!(
            "the only tables are [servers.NAME]; the other keys are {}",
            keys().collect::<Vec<_>>().join(", ")
        )));
    };
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b));
    Some(if ok {
        Ok(name.to_string())
    } else {
        Err("a server's name is letters, digits, '_' and '-': [servers.work]".to_string())
    })
}

/// config.toml is a few lines; anything far larger is not one: every
/// command refuses it, and `config set` never writes one.
pub(crate) const MAX_CONFIG_BYTES: u64 = 64 << 10;
/// How much of a config.toml over that limit `config set` and `unset`
/// read, to mend it.
pub(crate) const MEND_CONFIG_BYTES: u64 = 16 << 20;

/// Read the profile's config.toml; a missing file is an empty one. It
/// names a command hermes runs, so a file another user owns or can write
/// is refused (see `store::trust`), and no message ever quotes a line of
/// it: a file that is not a config (a link to /etc/shadow) stays unread.
pub(crate) fn load_file(store: &Store) -> Result<File> {
    match read_text(store, MAX_CONFIG_BYTES)? {
        Some(text) => parse(store, &text),
        None => Ok(File::default()),
    }
}

/// The text of config.toml, if there is one, read as `load` reads it
/// (trusted, UTF-8, at most `limit` bytes: `MAX_CONFIG_BYTES`, or
/// `MEND_CONFIG_BYTES` for `config set` and `unset`).
pub(crate) fn read_text(store: &Store, limit: u64) -> Result<Option<String>> {
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
    file.by_ref().take(limit + 1).read_to_end(&mut bytes).map_err(|e| Error::io(&path, e))?;
    if bytes.len() as u64 > limit {
        if limit == MAX_CONFIG_BYTES {
            return Err(Error::ConfigTooLarge { path, limit: MAX_CONFIG_BYTES });
        }
        return Err(bad(format!("larger than {} MiB", limit >> 20)));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| bad("not UTF-8 text".into()))
}

/// Read the settings in `text`, config.toml's.
pub(crate) fn parse(store: &Store, text: &str) -> Result<File> {
    let path = store.config_path();
    let mut file = File::default();
    let mut seen: Vec<String> = Vec::new();
    for (number, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
        let at_line = |why: String| Error::ConfigSyntax { path: path.clone(), line: number + 1, why };
        if let Some(table) = server_table(line) {
            let name = table.map_err(at_line)?;
            if file.servers.iter().any(|s| s.name == name) {
                return Err(at_line(format!("[servers.{name}] is there twice")));
            }
            file.servers.push(Server { name, line: number + 1, values: Vec::new() });
            continue;
        }
        let Some((key, value)) = parse_line(line).map_err(at_line)? else {
            continue;
        };
        if let Some(server) = file.servers.last_mut() {
            let Some(key) = SERVER_KEYS.into_iter().find(|k| k.name() == key) else {
                let names: Vec<&str> = SERVER_KEYS.iter().map(|k| k.name()).collect();
                return Err(at_line(format!(
                    "[servers.{}] holds only {}, not '{key}'",
                    server.name,
                    names.join(", ")
                )));
            };
            if server.get(key).is_some() {
                return Err(at_line(format!("'{key}' is set twice in [servers.{}]", server.name)));
            }
            check_value(key, &value).map_err(at_line)?;
            server.values.push((key, value));
            continue;
        }
        if seen.contains(&key) {
            return Err(at_line(format!("'{key}' is set twice")));
        }
        seen.push(key.clone());
        let Some(key) = Key::parse(&key) else {
            crate::output::warn(&format!(
                "{}: line {}: unknown key '{key}' ignored (known: {})",
                path.display(),
                number + 1,
                keys().collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        if value.trim().is_empty() {
            continue;
        }
        // The value is not quoted: the file may be anything but a config.
        check_value(key, &value).map_err(at_line)?;
        file.values.push((key, value));
    }
    if let Some(server) = file.servers.iter().find(|s| s.get(Key::BaseUrl).is_none()) {
        return Err(Error::ConfigSyntax {
            path,
            line: server.line,
            why: format!("[servers.{}] has no base_url", server.name),
        });
    }
    Ok(file)
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
        return Err(format!(
            "the only tables are [servers.NAME] in config.toml; the keys are {}",
            keys().collect::<Vec<_>>().join(", ")
        ));
    }
    let Some((key, rest)) = line.split_once('=') else {
        return Err("expected key = \"value\"".to_string());
    };
    let key = key.trim();
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("not a key before '='; the keys are {}", keys().collect::<Vec<_>>().join(", ")));
    }
    let rest = rest.trim_start();
    // Only a known key is named: the file may be anything but a config.
    let known = Key::parse(key).is_some();
    let key_shown = if known { format!("'{key}'") } else { "a key".to_string() };
    let example = if known { key } else { "key" };
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
    use super::parse_line;

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
