//! `hermes sessions rename`: a new user title, under the title rules.

use crate::error::Result;
use crate::store::Store;
use crate::store::titles;
use crate::terminal::resolve;

pub fn run(store: &Store, name: &str, title: &str) -> Result<()> {
    let header = resolve::find_by_name(store, name)?;
    let renamed = titles::rename(store, &header.id, title)?;
    crate::note!("renamed {} to '{}'", renamed.id, renamed.title);
    Ok(())
}
