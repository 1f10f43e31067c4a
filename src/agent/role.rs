//! Roles: a named system prompt with the settings that go with it (a
//! model, a context budget, an agent), chosen in one word (`chat --role
//! commit`, `/role commit`). A role is a Markdown file, `NAME.md`, in the
//! profile's `roles/` directory, else among the roles that come with
//! hermes (beside the shipped agents, see `shipped`): an optional header
//! of config.toml's lines between two `+++` lines, then the prompt.
//!
//! ```text
//! +++
//! description = "a commit message for the staged diff"
//! model = "gpt-4o-mini"
//! +++
//! Write a git commit message for the diff you are given. ...
//! ```
//!
//! Its settings reach the settings resolver as overrides, named `--role
//! NAME` (or `/role NAME`), so that where a value came from stays one
//! answer (`Settings::get`).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::shipped;
use crate::error::{Error, Result};
use crate::settings::{self, Key, Origin, Override, file::parse_line};
use crate::store::Store;
use crate::store::trust;

/// A key of a role's header: the prompt's own, or a key of config.toml.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Field {
    /// What the role is for, in a line.
    Description,
    /// A setting, given to the resolver as the role's override.
    Setting(Key),
}

impl Field {
    /// As the header spells it.
    fn name(self) -> &'static str {
        match self {
            Field::Description => "description",
            Field::Setting(key) => key.name(),
        }
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The keys a role's header may set: the prompt's own and those of
/// config.toml that belong to a way of talking, not to the server or its key.
pub(crate) const FIELDS: [Field; 11] = [
    Field::Description,
    Field::Setting(Key::Model),
    Field::Setting(Key::Context),
    Field::Setting(Key::Agent),
    Field::Setting(Key::AgentInput),
    Field::Setting(Key::Save),
    Field::Setting(Key::Temperature),
    Field::Setting(Key::TopP),
    Field::Setting(Key::MaxTokens),
    Field::Setting(Key::Seed),
    Field::Setting(Key::Stop),
];

/// The largest role file read: a prompt, not a document.
const MAX_ROLE_BYTES: u64 = 256 << 10;

/// The line that opens and closes a role's header.
const FENCE: &str = "+++";

/// A role, read from its file.
#[derive(Debug, PartialEq)]
pub(crate) struct Role {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    /// One of those that come with hermes (none of the profile's has its name).
    pub(crate) shipped: bool,
    /// What it is for, in a line: its `description`, else the prompt's
    /// first line.
    pub(crate) description: String,
    /// The settings of its header (key, value), in the file's order.
    pub(crate) settings: Vec<(Field, String)>,
    /// The system prompt; none when the file has only a header.
    pub(crate) prompt: Option<String>,
}

impl Role {
    /// Its settings and prompt as overrides of the settings resolver, said to
    /// come from `given` (`--role NAME`, `/role NAME`).
    pub(crate) fn overrides(&self, given: &str) -> Vec<Override> {
        let prompt = self.prompt.iter().map(|p| (Key::System, p.clone()));
        let settings = self.settings.iter().filter_map(|(field, value)| match field {
            Field::Setting(key) => Some((*key, value.clone())),
            Field::Description => None,
        });
        settings.chain(prompt).map(|(key, value)| (key, value, Origin::Role(given.to_string()))).collect()
    }

    /// A setting of its header.
    pub(crate) fn get(&self, key: Key) -> Option<&str> {
        self.settings.iter().find(|(k, _)| *k == Field::Setting(key)).map(|(_, v)| v.as_str())
    }

    /// The names its prompt's `{{KEY}}` holes wait for, each once, in order.
    pub(crate) fn variables(&self) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for (name, _) in holes(self.prompt.as_deref().unwrap_or("")) {
            if !found.iter().any(|f| *f == name) {
                found.push(name.to_string());
            }
        }
        found
    }

    /// The role with its holes filled from `vars` (`--var KEY=VALUE`): a
    /// hole without a value, or a value for no hole, is the command
    /// line's mistake, named.
    pub(crate) fn filled(mut self, vars: &[(String, String)]) -> Result<Role> {
        let wanted = self.variables();
        let list =
            |names: &[String]| names.iter().map(|n| format!("--var {n}=VALUE")).collect::<Vec<_>>().join(" ");
        if let Some((key, _)) = vars.iter().find(|(k, _)| !wanted.contains(k)) {
            let has = if wanted.is_empty() { "none".to_string() } else { wanted.join(", ") };
            return Err(Error::usage(format!(
                "the role '{}' has no variable '{key}' (its variables: {has})",
                self.name
            )));
        }
        let missing: Vec<String> =
            wanted.iter().filter(|w| !vars.iter().any(|(k, _)| k == *w)).cloned().collect();
        if !missing.is_empty() {
            return Err(Error::usage(format!("the role '{}' needs {}", self.name, list(&missing))));
        }
        if let Some(prompt) = &self.prompt {
            let mut text = String::with_capacity(prompt.len());
            let mut last = 0;
            for (name, at) in holes(prompt) {
                text.push_str(&prompt[last..at.start]);
                text.push_str(vars.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str()));
                last = at.end;
            }
            text.push_str(&prompt[last..]);
            self.prompt = Some(text);
        }
        Ok(self)
    }
}

/// `{{KEY}}` in a role's text: each hole's name and where it lies. A name
/// is a variable's (`is_variable_name`); other braces are text.
fn holes(text: &str) -> Vec<(&str, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|at| from + at) {
        let Some(close) = text[open + 2..].find("}}").map(|at| open + 2 + at) else { break };
        let name = text[open + 2..close].trim();
        if is_variable_name(name) {
            found.push((name, open..close + 2));
            from = close + 2;
        } else {
            from = open + 2;
        }
    }
    found
}

/// A variable's name: letters, digits, `_` and `-`, at most 64.
fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b))
}

/// `--var KEY=VALUE`: the name and the value.
pub(crate) fn variable(pair: &str) -> std::result::Result<(String, String), String> {
    match pair.split_once('=') {
        Some((key, value)) if is_variable_name(key.trim()) => Ok((key.trim().to_string(), value.to_string())),
        Some(_) => Err("a variable's name is letters, digits, '_' and '-'".to_string()),
        None => {
            Err(format!("wants KEY=VALUE, as --var lang=rust; not '{}'", crate::text::printable(pair, false)))
        }
    }
}

/// The directories roles are looked for in, first first: the profile's,
/// then those that come with hermes.
fn dirs(store: &Store) -> Vec<(PathBuf, bool)> {
    let own = std::iter::once((store.home().join("roles"), false));
    // `bin/../share/hermes/roles` as the user reads it: `share/hermes/roles`.
    let shipped =
        shipped::data_dirs("roles").into_iter().map(|dir| (dir.canonicalize().unwrap_or(dir), true));
    own.chain(shipped).collect()
}

/// Whether `name` can be a role's: one word of letters, digits, `.`, `_`
/// and `-`, not starting with a dot, at most 64 characters.
pub(crate) fn is_role_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Every role's name and file, the profile's over a shipped one of the
/// same name, sorted by name.
pub(crate) fn names(store: &Store) -> Vec<(String, PathBuf, bool)> {
    let mut found: Vec<(String, PathBuf, bool)> = Vec::new();
    for (dir, shipped) in dirs(store) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".md")).map(String::from)
            else {
                continue;
            };
            if is_role_name(&name) && !found.iter().any(|(n, _, _)| *n == name) {
                found.push((name, entry.path(), shipped));
            }
        }
    }
    crate::order::sort(&mut found);
    found
}

/// The role called `name`: the profile's, else one that comes with hermes.
/// One that is nowhere is an error with the nearest name, if one is near.
pub(crate) fn find(store: &Store, name: &str) -> Result<Role> {
    if is_role_name(name) {
        for (dir, shipped) in dirs(store) {
            let path = dir.join(format!("{name}.md"));
            if let Some(role) = read(&path, name, shipped)? {
                return Ok(role);
            }
        }
    }
    let known: Vec<String> = names(store).into_iter().map(|(n, _, _)| n).collect();
    let did_you_mean = crate::text::nearest(name, known.iter().map(String::as_str))
        .or_else(|| known.iter().find(|k| k.starts_with(name) && !name.is_empty()).map(String::as_str))
        .map(str::to_string);
    Err(Error::NoSuchRole { name: name.to_string(), did_you_mean, known })
}

/// The role in `path`, if there is such a file. It may name a command
/// hermes runs (its agent): one that another user owns or can write is
/// refused, as config.toml is, and so is its directory.
pub(crate) fn read(path: &Path, name: &str, shipped: bool) -> Result<Option<Role>> {
    if let Some(dir) = path.parent()
        && let Err(problem) = trust::check_dir(dir, trust::Place::Home)
    {
        return Err(Error::Untrusted(problem.message()));
    }
    let mut file = match trust::open_config(path) {
        Ok(None) => return Ok(None),
        Ok(Some(Ok(file))) => file,
        Ok(Some(Err(problem))) => return Err(Error::Untrusted(problem.message())),
        Err(e) => return Err(Error::io(path, e)),
    };
    let bad = |why: String| Error::NotAConfig { path: path.to_path_buf(), why };
    let mut bytes = Vec::new();
    file.by_ref().take(MAX_ROLE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_ROLE_BYTES {
        return Err(bad(format!("a role larger than {} KiB", MAX_ROLE_BYTES >> 10)));
    }
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
    parse(path, name, shipped, &text).map(Some)
}

/// A role file's text: its header (if it starts with a `+++` line) and
/// its prompt.
fn parse(path: &Path, name: &str, shipped: bool, text: &str) -> Result<Role> {
    let text = text.trim_start_matches('\u{feff}');
    let at_line = |line: usize, why: String| Error::ConfigSyntax { path: path.to_path_buf(), line, why };
    let mut settings: Vec<(Field, String)> = Vec::new();
    // Each line with where the text after it starts.
    let mut lines = text.split_inclusive('\n').scan(0, |end, line| {
        *end += line.len();
        Some((line.trim_end(), *end))
    });
    let mut body = text;
    if let Some((FENCE, _)) = lines.next() {
        let mut number = 1;
        body = loop {
            number += 1;
            let Some((line, end)) = lines.next() else {
                return Err(at_line(
                    1,
                    format!("the header that opens with {FENCE} does not end with a {FENCE} line"),
                ));
            };
            if line == FENCE {
                break &text[end..];
            }
            let Some((key, value)) = parse_line(line).map_err(|why| at_line(number, why))? else {
                continue;
            };
            let Some(field) = FIELDS.into_iter().find(|f| f.name() == key) else {
                let names: Vec<&str> = FIELDS.iter().map(|f| f.name()).collect();
                return Err(at_line(number, format!("a role sets only {}, not '{key}'", names.join(", "))));
            };
            if settings.iter().any(|(f, _)| *f == field) {
                return Err(at_line(number, format!("'{key}' is set twice")));
            }
            if let Field::Setting(key) = field {
                settings::check_value(key, &value).map_err(|why| at_line(number, why))?;
            }
            settings.push((field, value.trim().to_string()));
        };
    }
    let prompt = Some(body.trim().to_string()).filter(|p| !p.is_empty());
    let description = settings
        .iter()
        .find(|(f, _)| *f == Field::Description)
        .map(|(_, d)| d.clone())
        .or_else(|| prompt.as_deref().and_then(|p| p.lines().next()).map(str::to_string))
        .unwrap_or_default();
    Ok(Role { name: name.to_string(), path: path.to_path_buf(), shipped, description, settings, prompt })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(text: &str) -> Result<Role> {
        parse(Path::new("roles/x.md"), "x", false, text)
    }

    #[test]
    fn a_header_of_settings_then_the_prompt() {
        let r = role(
            "+++\ndescription = \"a test\"\nmodel = \"m-1\" # small\n\ncontext = '24k'\n+++\n\nBe \
            brief.\nVery.\n",
        )
        .unwrap();
        assert_eq!(r.description, "a test");
        assert_eq!(r.prompt.as_deref(), Some("Be brief.\nVery."));
        assert_eq!(r.get(Key::Model), Some("m-1"));
        let overrides = r.overrides("--role x");
        let keys: Vec<Key> = overrides.iter().map(|(k, _, _)| *k).collect();
        assert_eq!(keys, [Key::Model, Key::Context, Key::System]);
        assert!(overrides.iter().all(|(_, _, given)| *given == Origin::Role("--role x".to_string())));
    }

    #[test]
    fn without_a_header_the_whole_file_is_the_prompt() {
        let r = role("Explain the shell command.\n\n+++\n").unwrap();
        assert_eq!(r.prompt.as_deref(), Some("Explain the shell command.\n\n+++"));
        assert_eq!(r.description, "Explain the shell command.");
        assert!(r.settings.is_empty());
        let only_settings = role("+++\nmodel = \"m\"\n+++\n").unwrap();
        assert_eq!((only_settings.prompt, only_settings.description.as_str()), (None, ""));
    }

    #[test]
    fn mistakes_are_named_by_their_line() {
        let why = |text: &str| match role(text) {
            Err(Error::ConfigSyntax { line, why, .. }) => format!("{line}: {why}"),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            why("+++\nbase_url = \"http://x\"\n+++\nhi"),
            "2: a role sets only description, model, context, agent, agent_input, save, temperature, top_p, \
                max_tokens, seed, stop, not 'base_url'"
        );
        assert_eq!(why("+++\nmodel = \"a\"\nmodel = \"b\"\n+++\n"), "3: 'model' is set twice");
        assert!(why("+++\n\ncontext = \"lots\"\n+++\n").starts_with("3: context must be"));
        assert!(why("+++\nmodel = \"m\"\n").starts_with("1: the header that opens with +++ does not end"));
        assert!(why("+++\nmodel = m\n+++\n").starts_with("2: the value of 'model' must be a quoted string"));
    }

    #[test]
    fn variables_fill_their_holes() {
        let r = role("Review this {{lang}} code for {{ focus }}; {{lang}} only. {not} {{a b}}").unwrap();
        assert_eq!(r.variables(), ["lang", "focus"]);
        let vars = |pairs: &[(&str, &str)]| {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>()
        };
        let filled = role("Review {{lang}} for {{ focus }}; {{lang}}. {{a b}}").unwrap();
        let filled = filled.filled(&vars(&[("lang", "rust"), ("focus", "{{lang}}")])).unwrap();
        assert_eq!(filled.prompt.as_deref(), Some("Review rust for {{lang}}; rust. {{a b}}"));
        let missing = role("{{lang}} {{focus}}").unwrap().filled(&vars(&[("lang", "c")]));
        assert!(matches!(missing, Err(Error::Usage(t)) if t == "the role 'x' needs --var focus=VALUE"));
        let stray = role("plain").unwrap().filled(&vars(&[("lang", "c")]));
        assert!(matches!(stray, Err(Error::Usage(t)) if t == "the role 'x' has no variable 'lang' (its \
                variables: none)"));
        assert_eq!(variable("k=a=b"), Ok(("k".to_string(), "a=b".to_string())));
        assert!(variable("k").is_err() && variable("a b=c").is_err());
    }

    #[test]
    fn role_names_are_one_plain_word() {
        for name in ["commit", "shell-explain", "v2.review", "a_b"] {
            assert!(is_role_name(name), "{name}");
        }
        for name in ["", ".hidden", "../x", "a b", "a/b", &"x".repeat(65)] {
            assert!(!is_role_name(name), "{name}");
        }
    }
}
