//! `hermes sessions delete`: remove sessions, the breadcrumbs that
//! pointed at them, and the images no session names any more.

use crate::args::{Arg, Kind, Run, Spec, man, switch};
use crate::error::Result;
use crate::resolve;
use crate::store::Store;
use crate::store::session::Header;
use crate::terminal::breadcrumb;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    /// One or more, each an ID or an exact title.
    pub(crate) names: Vec<String>,
    pub(crate) yes: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions delete",
    alias: Some("rm"),
    summary: "delete sessions (asks first on a terminal)",
    about: "\
Delete sessions, and the images (in the store's images/) that no session
names any more. On a terminal hermes asks first; otherwise --yes is needed.

{options}
",
    man: man(r#"
delete sessions, and the images (in
.BR images/ )
that no session names any more.
On a terminal
.B hermes
asks first, naming each (its title, ID and messages); otherwise
.B \-\-yes
is needed.
"#),
    options: &[switch("-y", "--yes", super::YES_HELP)
        .man(
            r#"
do not ask
"#,
        )
        .sets(|a| a.yes = true)],
    args: &[Arg::one("NAME|ID", Kind::Session).many().takes(|a, v| {
        a.names.push(v.lossy());
        Ok(())
    })],
    start: || Args { names: Vec::new(), yes: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let Args { names, yes } = args;
    let names = &names;
    // Resolve every name before deleting anything: a typo deletes nothing.
    let mut doomed: Vec<Header> = Vec::new();
    for name in names {
        let header = resolve::find_by_name(store, name)?;
        if !doomed.iter().any(|h| h.id == header.id) {
            doomed.push(header);
        }
    }
    if !yes {
        let named = |h: &Header| {
            format!(
                "'{}' ({}, {})",
                crate::text::printable(&h.title, false),
                h.id,
                crate::text::counted(h.message_count as usize, "message")
            )
        };
        let what = match doomed.as_slice() {
            [one] => format!("Delete session {}?", named(one)),
            // Each named before the question: a yes to a number is a guess.
            many => {
                for h in many {
                    crate::output::note!("  {}", named(h));
                }
                format!("Delete these {} sessions?", many.len())
            }
        };
        if !crate::terminal::prompt::confirm(&what, "deleting", "hermes sessions delete")? {
            crate::output::note!("nothing deleted");
            return Ok(());
        }
    }
    let _guard = store.lock_store()?;
    let mut ids: Vec<String> = Vec::new();
    for header in &doomed {
        if crate::sys::signal_pending() {
            breadcrumb::forget_sessions(store, &ids);
            return Err(crate::error::Error::Interrupted);
        }
        store.remove(&header.id)?;
        ids.push(header.id.clone());
        crate::output::note!("deleted {} '{}'", header.id, crate::text::printable(&header.title, false));
    }
    breadcrumb::forget_sessions(store, &ids);
    super::prune::remove_images(store)
}
