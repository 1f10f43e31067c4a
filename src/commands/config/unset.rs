//! `hermes config unset KEY`: one line of config.toml removed.

use crate::args::{Arg, Kind, Run, Spec, man};
use crate::error::{Error, Result};
use crate::settings::{Key, edit};
use crate::store::Store;

use super::{known_key, write};

/// `config unset KEY`.
pub(crate) struct Unset {
    key: Key,
}

pub(super) const UNSET: Spec<Unset> = Spec {
    path: "config unset",
    alias: None,
    summary: "remove a value from config.toml",
    about: "\
Removes KEY from config.toml (exit 1 when it was not set), under the same lock
as set; it also mends a config.toml made too large by hand.",
    man: man(r#"
remove its line; exit status 1 when it was not set.
.PP
.B set
and
.B unset
read, change and write the file under a lock (a byte of
.BR $HERMES_HOME/.lock ),
so two at once (two
.B config set
in a script's background jobs) both keep their key.
Every other command refuses a
.B config.toml
over 64 KiB (made by hand), saying how to mend it:
.B set
and
.B unset
read it whole (up to 16 MiB), say so, and write it back once it is within
the limit
.RB ( "hermes config unset system" ).
"#),
    options: &[],
    args: &[Arg::one("KEY", Kind::Setting).takes(|a, v| {
        a.key = known_key(&v.lossy())?;
        Ok(())
    })],
    start: || Unset { key: Key::Agent },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Unset {
    fn run(self, store: &Store) -> Result<()> {
        let mut found = false;
        write(store, |text| {
            let (text, was) = edit::unset(text, self.key);
            found = was;
            text
        })?;
        if found { Ok(()) } else { Err(Error::Silent(crate::error::EXIT_NOT_FOUND)) }
    }
}
