//! `hermes sessions current`: which session bare `hermes chat -c` would
//! continue in this terminal, and why.

use nanoserde::SerJson;

use crate::args::{Access, Kind, Run, Spec, Value, man, option, switch};
use crate::error::{Error, Result};
use crate::output::Out;
use crate::resolve::{self, Reason};
use crate::store::Store;
use crate::store::session::Header;
use crate::terminal;
use crate::text;
use crate::time;

#[derive(SerJson)]
struct Current<'a> {
    id: &'a str,
    title: &'a str,
    reason: &'a str,
}

#[derive(Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) json: bool,
    /// `--format TEMPLATE`, for a shell prompt or a status line.
    pub(crate) format: Option<String>,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "sessions current",
    alias: None,
    summary: "which session 'hermes chat -c' would continue, and why",
    about: "\
Print the session 'hermes chat -c' would continue here and why: breadcrumb
(this terminal used it last), workspace (newest in this git root or
directory), or latest (newest of all). Exit 1 when there is none.

{options}
",
    man: man(r#"
print the session
.B hermes chat \-c
would continue here and why: breadcrumb (this terminal used it last),
workspace (newest in this git root or directory), or latest (newest of
all).
Exit 1 when there is none.
"#),
    options: &[
        switch("", "--json", "{\"id\", \"title\", \"reason\"} as JSON")
            .group(1)
            .man(
                r#"
.B {\(dqid\(dq, \(dqtitle\(dq, \(dqreason\(dq}
as JSON (not with
.BR \-\-format ).
"#,
            )
            .sets(|a| a.json = true),
        option(
            "-f",
            "--format",
            Value::new("TEMPLATE", Kind::Text),
            "print TEMPLATE with {title}, \
            {title_tmux} (the title with each # doubled, for tmux's status line), {id}, {short_id} (the last \
                6 hex digits), {model} and {reason} filled in, for a shell prompt or a tmux status line; \
                    without a session, print nothing",
        )
        .group(1)
        .man(
            r#"
print TEMPLATE with {title}, {title_tmux} (the title with each # doubled,
for tmux's status line), {id}, {short_id} (the last 6 hex digits), {model}
and {reason} filled in, for a shell prompt or a tmux status line; without
a session, print nothing.
The values go through the gate (see
.BR SECURITY );
the template itself, colours included, is printed as typed.
In tmux's status line, a title's
.B #[fg=red]
or
.B #{pane_id}
would be read as tmux's own styles and formats: use {title_tmux} there.
{model} is the model the session was last used with, empty when it has
none.
.B \en
and
.B \et
in
.I TEMPLATE
are a newline and a tab; nothing else is added, not even a newline.
A
.BI { word }
that is no field is a usage error (exit 2) that names the fields.
Without a session (or with a store it cannot read) it prints nothing,
not even an error, and exits 1.
See EXAMPLES.
"#,
        )
        .takes(|a, v| {
            let template = v.lossy();
            check_fields(&template)?;
            a.format = Some(template);
            Ok(())
        }),
    ],
    args: &[],
    start: || Args { json: false, format: None },
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
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    let terminal = terminal::identify();
    let Some(template) = args.format else {
        return describe(store, terminal.as_ref(), args.json);
    };
    // For a shell prompt, run at every prompt: quiet and cheap. No
    // session, an unreadable one, or any trouble: nothing, exit 1.
    let Ok(Some((header, reason))) = resolve::resolve_continue(store, terminal.as_ref(), time::now()) else {
        return Err(Error::Silent(crate::error::EXIT_NOT_FOUND));
    };
    let mut out = Out::new();
    // The template is the user's own (colours for a prompt may be in it);
    // the values filled in went through the gate.
    out.write_own(&fill(&template, &header, reason))?;
    out.flush()
}
/// `template` with its fields filled in, each through the gate (the
/// template itself is the user's own). `\n` and `\t` are a newline and
/// a tab (an unknown `{word}` is refused when the template is read). `{title_tmux}` is the title
/// with every `#` doubled: tmux's status line reads what a `#(...)`
/// command prints as its own formats and styles (`#[fg=red]`,
/// `#{pane_id}`), and `##` as `#`.
/// The fields a `--format` template may hold.
const FIELDS: [&str; 6] = ["title", "title_tmux", "id", "short_id", "model", "reason"];

/// A `{word}` in `template` that is no field is a mistake, said at once
/// (a prompt that printed it as typed would hide it).
fn check_fields(template: &str) -> Result<()> {
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !word.is_empty() && rest[word.len()..].starts_with('}') && !FIELDS.contains(&word.as_str()) {
            let fields: Vec<String> = FIELDS.iter().map(|f| format!("{{{f}}}")).collect();
            let near =
                text::nearest(&word, FIELDS).map(|n| format!("; did you mean {{{n}}}?")).unwrap_or_default();
            return Err(Error::usage(format!(
                "--format: unknown field {{{word}}}{near} (the fields: {})",
                fields.join(", ")
            )));
        }
    }
    Ok(())
}

pub(crate) fn fill(template: &str, header: &Header, reason: Reason) -> String {
    let title = text::printable(&header.title, false);
    let title_tmux = title.replace('#', "##");
    let model = text::printable(header.model.as_deref().unwrap_or(""), false);
    let short_id = header.id.get(16..).unwrap_or(&header.id);
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(at) = rest.find(['{', '\\']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let field = [
            ("{title}", title.as_ref()),
            ("{title_tmux}", title_tmux.as_str()),
            ("{id}", header.id.as_str()),
            ("{short_id}", short_id),
            ("{model}", model.as_ref()),
            ("{reason}", reason.as_str()),
            ("\\n", "\n"),
            ("\\t", "\t"),
        ]
        .into_iter()
        .find(|(name, _)| rest.starts_with(name));
        match field {
            Some((name, value)) => {
                out.push_str(value);
                rest = &rest[name.len()..];
            }
            None => {
                out.push_str(&rest[..1]);
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn describe(store: &Store, terminal: Option<&terminal::Terminal>, json: bool) -> Result<()> {
    let Some((header, reason)) = resolve::resolve_continue(store, terminal, time::now())? else {
        return Err(Error::NothingToContinue);
    };
    let mut out = Out::new();
    if json {
        let current = Current { id: &header.id, title: &header.title, reason: reason.as_str() };
        out.data(&current.serialize_json())?;
        out.write_own("\n")?;
    } else {
        let why = match reason {
            Reason::Breadcrumb => "this terminal used it last",
            Reason::Workspace => "the newest session in this workspace",
            Reason::Latest => "the newest session",
        };
        out.line(&format!(
            "{}\t{}\t{} ({why})",
            header.id,
            crate::text::printable(&header.title, false),
            reason.as_str()
        ))?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_filled() {
        let mut h = Header::new("20261202_143015_a1b2c3".into(), String::new(), 0.0);
        h.title = "redis \u{1b}debug".into();
        assert_eq!(
            fill("[{title}|{short_id}|{reason}] {id}\\n{nope} {", &h, Reason::Breadcrumb),
            "[redis ^[debug|a1b2c3|breadcrumb] 20261202_143015_a1b2c3\n{nope} {"
        );
        assert_eq!(fill("", &h, Reason::Latest), "");
        h.title = "#[fg=red]x #{pane_id}".into();
        h.model = Some("m\u{1b}]0;PWN\u{7}".into());
        assert_eq!(
            fill("\u{1b}[32m{title_tmux}|{title}|{model}\u{1b}[0m", &h, Reason::Latest),
            "\u{1b}[32m##[fg=red]x ##{pane_id}|#[fg=red]x #{pane_id}|m^[]0;PWN^G\u{1b}[0m"
        );
        assert_eq!(fill("a\\tb\\", &h, Reason::Latest), "a\tb\\");
    }
}
