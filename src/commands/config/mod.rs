//! `hermes config`: get, set, unset, list and path for the keys of
//! config.toml, each value with where it came from (the file, the
//! environment, a default), and `check`, one tiny request through the
//! configured agent that says plainly what is wrong; a file per verb, and
//! here what they share (the verbs' list, printing a value, naming a key,
//! rewriting the file).

mod check;
mod get;
mod list;
mod path;
mod set;
mod unset;

use crate::args::Command;
use crate::error::{Error, Result};
use crate::fsio;
use crate::output::Out;
use crate::settings::{self, Key, edit};
use crate::store::Store;

use check::CHECK;
use get::GET;
use list::LIST;
use path::PATH;
use set::SET;
use unset::UNSET;

/// `hermes config --help` after its verbs.
pub(crate) const ABOUT: &str = "\
The settings in config.toml ($HERMES_HOME/config.toml, or the profile's):
{settings}

More servers, each a table of its own (edited by hand; config list shows
them, config check asks each): -m work:MODEL asks this one.
  [servers.work]
  base_url = \"https://llm.example.com/v1\"
  api_key_env = \"WORK_API_KEY\"

The key reaches the agent as $OPENAI_API_KEY: never in config.toml, on a
command line or in a message.

Example:
  hermes config set agent openai-compatible
  hermes config set base_url https://api.openai.com/v1
  hermes config set api_key_command 'pass show openai'
  hermes config set model gpt-4o-mini
  hermes config check
";

/// `hermes config`'s verbs, in the order help and completions list them.
pub(crate) const VERBS: &[&dyn Command<Store>] = &[&GET, &SET, &UNSET, &LIST, &PATH, &CHECK];

/// A value for scripts: byte for byte into a pipe, through the gate on a
/// terminal.
fn print(text: &str) -> Result<()> {
    let mut out = Out::new();
    out.data(text)?;
    out.flush()
}

/// The key of config.toml named `key`; else a usage error naming the keys.
fn known_key(key: &str) -> Result<Key> {
    if let Some(key) = Key::parse(key) {
        return Ok(key);
    }
    if matches!(key, "api_key" | "key" | "openai_api_key") {
        return Err(Error::usage(
            "hermes keeps no key in config.toml: set api_key_env (the environment variable that holds it) or \
                api_key_command (a command that prints it)",
        ));
    }
    Err(Error::usage(format!(
        "unknown config key '{key}'{} (keys: {})",
        crate::text::nearest(key, settings::keys())
            .map(|n| format!("; did you mean '{n}'?"))
            .unwrap_or_default(),
        settings::keys().collect::<Vec<_>>().join(", ")
    )))
}

/// Rewrite config.toml with `change`, atomically, once the home is safe
/// and the file as it stands reads without error, under config.toml's
/// lock (read, change and write: two at once lose no key). A config.toml
/// that is a link is written where it points (dotfile managers make such
/// links). One over the size limit (made by hand) is read whole, to be
/// mended, and said so; nothing over it is ever written.
fn write(store: &Store, change: impl FnOnce(&str) -> String) -> Result<()> {
    store.verify()?;
    let _lock = store.lock_config()?;
    let text = settings::file::read_text(store, settings::file::MEND_CONFIG_BYTES)?;
    if text.as_ref().is_some_and(|t| t.len() as u64 > settings::file::MAX_CONFIG_BYTES) {
        crate::output::notice(&format!(
            "{} is larger than the {} KiB a config file may be (every other command refuses it): read whole, \
                to mend it",
            store.config_path().display(),
            settings::file::MAX_CONFIG_BYTES >> 10
        ));
    }
    let path = store.config_path();
    let target = match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => path.canonicalize().map_err(|e| Error::io(&path, e))?,
        _ => path,
    };
    if let Some(dir) = target.parent() {
        fsio::ensure_private_dir(dir)?;
    }
    let new = change(text.as_deref().unwrap_or(""));
    // A mistake in the file is fixed by hand first, unless this change is
    // what fixes it (`config unset base_url` of one with a password).
    settings::file::parse(store, &new)?;
    if text.as_deref() == Some(new.as_str()) {
        return Ok(());
    }
    if new.len() as u64 > settings::file::MAX_CONFIG_BYTES {
        return Err(edit::too_large(&new, settings::file::MAX_CONFIG_BYTES));
    }
    fsio::write_atomic(&target, new.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::check::reply_in_a_line;
    use super::*;

    fn usage(words: &[&str]) -> String {
        let spec = VERBS.iter().find(|v| v.name() == words[0]).unwrap();
        match spec.read(
            &mut lexopt::Parser::from_args(words[1..].iter().copied()),
            &mut crate::args::Common::none(&mut |_, _| Ok(())),
        ) {
            Err(Error::Usage(why)) => why,
            Err(e) => panic!("{words:?}: {e:?}"),
            Ok(_) => panic!("{words:?}: accepted"),
        }
    }

    #[test]
    fn the_test_reply_is_one_line_of_words_without_fences_cut_at_a_word() {
        assert_eq!(reply_in_a_line("Hello from the fake server"), "Hello from the fake server");
        assert_eq!(reply_in_a_line("```\nok\n```\n"), "ok");
        let fenced = "```text\nHello! I am here, ready to answer whatever you ask of me today.\n```";
        assert_eq!(reply_in_a_line(fenced), "Hello! I am here, ready to answer whatever you ask of me…");
        assert_eq!(reply_in_a_line("two\n\nlines"), "two lines");
    }

    #[test]
    fn a_refused_value_is_never_repeated() {
        let why = usage(&["set", "api_key", "sk-secret"]);
        assert!(!why.contains("sk-secret") && why.contains("api_key_command"), "{why}");
        let why = usage(&["set", "api_key_env", "sk-secret=1"]);
        assert!(!why.contains("sk-secret"), "{why}");
    }

    #[test]
    fn verbs_refuse_what_they_do_not_take() {
        for bad in [
            &["set", "model"][..],
            &["get"],
            &["set", "modle", "x"],
            &["list", "x"],
            &["check", "--timeout", "0"],
        ] {
            usage(bad);
        }
    }
}
