//! `hermes config get KEY`: a value, and where it came from.

use crate::agent;
use crate::args::{Access, Arg, Kind, Run, Spec, man};
use crate::error::{Error, Result};
use crate::settings::Key;
use crate::store::Store;

use super::{known_key, print};

/// `config get KEY`.
pub(crate) struct Get {
    key: Key,
}

pub(super) const GET: Spec<Get> = Spec {
    path: "config get",
    alias: None,
    summary: "print the value hermes uses",
    about: "\
Prints the value a chat would use, wherever it comes from (config.toml, the
environment, a default); exit 1 when there is none.",
    man: man(r#"
print the value hermes uses, wherever it came from; exit status 1 when
there is none.
"#),
    options: &[],
    args: &[Arg::one("KEY", Kind::Setting).takes(|a, v| {
        a.key = known_key(&v.lossy())?;
        Ok(())
    })],
    // The key is the argument's (one is required).
    start: || Get { key: Key::Agent },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Get {
    fn run(self, store: &Store) -> Result<()> {
        match agent::resolve_settings(store, Vec::new())?.value(self.key) {
            Some(value) => print(&format!("{value}\n")),
            None => Err(Error::Silent(crate::error::EXIT_NOT_FOUND)),
        }
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}
