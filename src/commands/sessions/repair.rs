//! `hermes sessions repair`: mend a damaged session whose ID and title
//! read: the file is copied aside whole, then written back with every
//! readable message.

use crate::args::{Access, Arg, Kind, Run, Spec, man, switch};
use crate::error::{Error, Result};
use crate::resolve;
use crate::store::Store;
use crate::text::{counted, printable};

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) dry_run: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions repair",
    alias: None,
    summary: "mend a damaged session: keep every readable message, the file copied aside first",
    about: "\
Mend a damaged session whose ID and title still read (every command that
would write to it refuses it, exit 4, and names this one). The file is
first copied, whole and byte for byte, into damaged/ beside sessions/
(ID.json.YYYYMMDD_HHMMSS, mode 0600), never deleted; then the session is
written back with every readable message, its title and ID kept, its
message count, activity time and preview made anew, and what was kept and
left out is said. A session that is not damaged is left as it is.

{options}
",
    man: man(r#"
mend a damaged session: keep every readable message, the file copied
aside first.
A session is its ID and title whatever else of its file is damaged (a
bad escape, a byte that is no UTF\-8 or a control character in a message
or in the header, the file cut short by a full disk, bytes changed by
hand): wherever a forgiving scan of the header still finds its
.B id
and
.B title
(keys in any order, any whitespace, unknown keys passed over), it is
found by its title, ID and short ID, and its title stays taken (never a
second session of that title, not even with
.BR \-\-create\-if\-missing );
every command that would write to it refuses it (exit 4), naming the
file, the damage, and this command;
.B list
skips it with a warning that says the same.
.B repair
copies the file first, whole and byte for byte, to
.BI $HERMES_HOME/damaged/ ID .json. YYYYMMDD_HHMMSS
(mode 0600, the directory 0700, made by hermes: a link there, or a
directory another user owns or others may write, is refused), then
writes the session back with every message that reads, wherever it lies
in the file, and its header: title, ID and every other field that reads
kept,
.BR message_count ,
.B updated_at
and
.B preview
made anew from the messages kept (a time that does not read is the
messages' own or the file's, never 1970); it says how many messages it
kept, each damaged part it left out (by message number, or the header),
and where the original is.
It holds one message at a time (the largest: at most 16 MiB of text)
when the header is whole and in the order hermes writes it (every field
hermes writes before
.BR messages ),
whatever else is damaged; a file whose header is damaged or in another
key order is read whole first (a field of the header may follow the
messages): two to three times the file in memory.
A session that is not damaged is left as it is (exit 0); a file whose ID
or title does not read, which names no session, is refused (exit 4).
"#),
    options: &[switch("", "--dry-run", "say what would be kept and left out; write nothing")
        .man(
            r#"
say what would be kept and left out; write nothing.
"#,
        )
        .sets(|a| a.dry_run = true)],
    args: &[Arg::one("NAME|ID", Kind::Session).takes(|a, v| {
        a.name = v.lossy();
        Ok(())
    })],
    start: || Args { name: String::new(), dry_run: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        if self.dry_run { Access::Reads } else { Access::Writes }
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    // A damaged session is found by its names; one that the lookup itself
    // reads as damaged (cut short: found by ID) says which it is.
    let (id, title) = match resolve::find_by_name(store, &args.name) {
        Ok(header) => (header.id, header.title),
        Err(Error::DamagedSession { id, .. }) => (id, String::new()),
        Err(e) => return Err(e),
    };
    let named = |title: &str| match title {
        "" => id.clone(),
        title => format!("{id} '{}'", printable(title, false)),
    };
    let Some(repair) = store.repair(&id, args.dry_run)? else {
        crate::output::say!("session {} is not damaged; nothing to do", named(&title));
        return Ok(());
    };
    let named = named(&repair.title);
    let mut text = match &repair.aside {
        None => format!(
            "would keep {} of session {named}, and leave out {}",
            counted(repair.kept, "readable message"),
            counted(repair.lost.len(), "damaged part")
        ),
        Some(_) => format!(
            "repaired session {named}: kept {}, left out {}",
            counted(repair.kept, "readable message"),
            counted(repair.lost.len(), "damaged part")
        ),
    };
    text.push(':');
    for why in &repair.lost {
        text.push_str(&format!("\n  {}", printable(why, false)));
    }
    match &repair.aside {
        None => text.push_str(&format!(
            "\nnothing was written; without --dry-run the file is first copied, whole, into {}",
            store.damaged_dir().display()
        )),
        Some(aside) => text
            .push_str(&format!("\nthe original file, damaged parts and all, is kept in {}", aside.display())),
    }
    crate::output::say!("{text}");
    Ok(())
}
