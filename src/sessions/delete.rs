//! `hermes sessions delete`: remove sessions, and the breadcrumbs that
//! pointed at them.

use crate::error::Result;
use crate::store::Store;
use crate::store::session::Header;
use crate::terminal::breadcrumb;
use crate::terminal::resolve;

pub fn run(store: &Store, names: &[String], yes: bool) -> Result<()> {
    // Resolve every name before deleting anything: a typo deletes nothing.
    let mut doomed: Vec<Header> = Vec::new();
    for name in names {
        let header = resolve::find_by_name(store, name)?;
        if !doomed.iter().any(|h| h.id == header.id) {
            doomed.push(header);
        }
    }
    if !yes {
        let what = match doomed.as_slice() {
            [one] => format!(
                "Delete session '{}' ({}, {})?",
                crate::text::printable(&one.title, false),
                one.id,
                crate::text::counted(one.message_count as usize, "message")
            ),
            many => format!("Delete {} sessions?", many.len()),
        };
        if !crate::terminal::prompt::confirm(&what, "hermes sessions delete")? {
            crate::note!("nothing deleted");
            return Ok(());
        }
    }
    let _guard = store.lock_store()?;
    let ids: Vec<String> = doomed.iter().map(|h| h.id.clone()).collect();
    for header in &doomed {
        store.remove(&header.id)?;
        crate::note!("deleted {} '{}'", header.id, crate::text::printable(&header.title, false));
    }
    breadcrumb::forget_sessions(store, &ids);
    Ok(())
}
