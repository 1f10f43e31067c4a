//! `hermes sessions show`: one conversation, roles clearly marked.

use crate::args::{Access, Arg, Kind, Run, Spec, man, switch};
use crate::error::{Error, Result};
use crate::output::Out;
use crate::resolve;
use crate::store::format;
use crate::store::{Messages, Store};
use nanoserde::SerJson;

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) name: String,
    pub(crate) json: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions show",
    alias: None,
    summary: "print a conversation",
    about: "\
Print a session's conversation. NAME is an ID, an exact title or a short
ID (see 'hermes sessions --help'). Control
characters in it are shown as ^[ and the like, not sent to the terminal.

{options}
",
    man: man(r#"
print a session's conversation.
On a terminal, through the pager (see
.BR \-\-no\-pager ),
wrapped at words to its width, replies drawn as Markdown as in a chat
(not with
.B render = \(dqplain\(dq
or TERM=dumb); into a pipe or a file, as stored.
Control characters in it (an escape sequence an agent wrote, say) are
shown as
.B ^[
and the like, and bidi overrides as
.BR \eu{202e} ,
never sent to the terminal as they are (see
.BR SECURITY ).
"#),
    options: &[switch("", "--json", "the whole session file as JSON, raw text included")
        .man(
            r#"
the whole session file as JSON, raw text included.
"#,
        )
        .sets(|a| a.json = true)],
    args: &[Arg::one("NAME|ID", Kind::Session).takes(|a, v| {
        a.name = v.lossy();
        Ok(())
    })],
    start: || Args { name: String::new(), json: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        run(store, self)
    }
    fn access(&self) -> Access {
        Access::Reads
    }
    fn paged(&self) -> bool {
        true
    }
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    // A message at a time, every one checked before the first is shown.
    let mut messages = open_named(store, &args.name)?;
    let header = messages.header().clone();
    let mut next = || messages.next();
    let mut out = Out::new();
    if args.json {
        let form = format::Form::File;
        out.data(&form.head(&header))?;
        let mut at = 0;
        while let Some(m) = next()? {
            out.data(form.separator(at))?;
            out.data(&m.serialize_json())?;
            at += 1;
        }
        out.data(form.tail())?;
        return out.flush();
    }
    let screen =
        if crate::output::stdout_on_terminal() { crate::view::Screen::of_stdout(plain(store)) } else { None };
    match screen {
        // Drawn for the terminal, every piece from elsewhere through the gate.
        Some(screen) => {
            crate::view::render(&header, &mut next, Some(screen), &mut |piece| out.write_own(piece))?
        }
        None => crate::view::render(&header, &mut next, None, &mut |piece| out.write(piece))?,
    }
    out.flush()
}

/// Replies shown as stored rather than drawn: `render = "plain"`, or a
/// terminal that cannot draw (TERM=dumb). A config.toml that does not read
/// is chat's to report; show goes on with the defaults.
fn plain(store: &Store) -> bool {
    let file = crate::settings::load_file(store).unwrap_or_default();
    crate::settings::Settings::resolve(&crate::settings::Sources { file, ..Default::default() }).plain()
}

/// The session called `name` (ID, else exact title), to be read whole a
/// message at a time (see `Store::whole`).
fn open_named(store: &Store, name: &str) -> Result<Messages> {
    let header = resolve::find_by_name(store, name)?;
    store
        .whole(&header.id)?
        .ok_or_else(|| Error::NoSuchSession { name: name.to_string(), did_you_mean: Vec::new() })
}
