//! `hermes config path`: where config.toml is.

use crate::args::{Access, Run, Spec, man};
use crate::error::Result;
use crate::store::Store;

use super::print;

/// `config path`.
pub(crate) struct PathOf;

pub(super) const PATH: Spec<PathOf> = Spec {
    path: "config path",
    alias: None,
    summary: "print where config.toml is",
    about: "",
    man: man(r#"
print where
.B config.toml
is (it need not exist).
"#),
    options: &[],
    args: &[],
    start: || PathOf,
    finish: Ok,
    stray: None,
};

impl Run<Store> for PathOf {
    fn run(self, store: &Store) -> Result<()> {
        print(&format!("{}\n", store.config_path().display()))
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}
