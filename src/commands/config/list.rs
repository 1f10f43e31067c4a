//! `hermes config list`: every key with its value and where it came from.

use crate::agent;
use crate::args::{Access, Run, Spec, man};
use crate::error::Result;
use crate::settings::edit;
use crate::store::Store;

use super::print;

/// `config list`.
pub(crate) struct List;

pub(super) const LIST: Spec<List> = Spec {
    path: "config list",
    alias: None,
    summary: "every value, and where it came from",
    about: "\
Every setting with the value a chat would use and where it came from:
config.toml, the environment, or a default.",
    man: man(r#"
every value hermes uses, one
.IB key " = " \(dqvalue\(dq
line each, and after
.B #
where it came from:
.BR config.toml ,
.BI "environment: " NAME
(as
.B HERMES_AGENT
overrides
.BR agent ,
and
.B HERMES_MODEL
(then, for an agent reading
.BR json ,
.BR OPENAI_MODEL )
and
.B OPENAI_BASE_URL
stand in for
.B model
and
.BR base_url ),
or a default.
No key is ever shown: only where it comes from.
"#),
    options: &[],
    args: &[],
    start: || List,
    finish: Ok,
    stray: None,
};

impl Run<Store> for List {
    fn run(self, store: &Store) -> Result<()> {
        let settings = agent::resolve_settings(store, Vec::new())?;
        let rows: Vec<(String, String)> = settings
            .all()
            .filter_map(|(key, found)| {
                let (value, origin) = found?;
                Some((edit::assignment(key, value), origin.describe()))
            })
            .collect();
        let width = rows.iter().map(|(left, _)| crate::text::columns_of(left)).max().unwrap_or(0);
        let mut text = String::new();
        for (left, origin) in rows {
            let pad = " ".repeat(width - crate::text::columns_of(&left));
            text.push_str(&format!("{left}{pad}  # {origin}\n"));
        }
        // The named servers as config.toml holds them.
        for server in settings.servers() {
            text.push_str(&format!("\n[servers.{}]\n", server.name));
            for (key, value) in &server.values {
                text.push_str(&format!("{}\n", edit::assignment(*key, value)));
            }
        }
        print(&text)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}
