//! `hermes config set KEY VALUE`: one line of config.toml written.

use crate::args::{Arg, Kind, Run, Spec, man};
use crate::error::{Error, Result};
use crate::settings::{self, Key, edit};
use crate::store::Store;

use super::{known_key, write};

/// `config set KEY VALUE`.
pub(crate) struct Set {
    key: Key,
    value: String,
}

pub(super) const SET: Spec<Set> = Spec {
    path: "config set",
    alias: None,
    summary: "write a value to config.toml",
    about: "\
Writes KEY = VALUE to config.toml, its comments and order kept, under a lock
(racing writers both land). A file that would grow past 64 KiB is not
written: exit 2.",
    man: man(r#"
write it to
.BR config.toml :
the key's line is rewritten where it stands (its comment kept), a new key
is added at the end, every other line is kept as it is; the file is
replaced atomically (mode 0600), and a
.B config.toml
that is a symbolic link is written where it points.
An unknown key or a bad value is a usage error that does not repeat the
value.
A
.B config.toml
is at most 64 KiB: a value that would make it larger (a long system
prompt: give it with
.B chat \-\-system\-file
instead) is refused before anything is written, exit 2, naming the key.
"#),
    options: &[],
    args: &[
        Arg::one("KEY", Kind::Setting).takes(|a, v| {
            a.key = known_key(&v.lossy())?;
            Ok(())
        }),
        Arg::one("VALUE", Kind::SettingValue).takes(|a, v| {
            a.value = v.utf8("config set VALUE")?;
            Ok(())
        }),
    ],
    start: || Set { key: Key::Agent, value: String::new() },
    // The value is never echoed: it may be what should not be there.
    finish: |set| match settings::check_value(set.key, &set.value) {
        Ok(()) => Ok(set),
        Err(why) => Err(Error::usage(why)),
    },
    stray: None,
};

impl Run<Store> for Set {
    fn run(self, store: &Store) -> Result<()> {
        write(store, |text| edit::set(text, self.key, &self.value))
    }
}
