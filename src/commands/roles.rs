//! `hermes roles [NAME]`: the roles there are (the profile's, then those
//! that come with hermes), or one of them whole; see `agent::role`.

use nanoserde::SerJson;

use crate::agent::role::{self, Role};
use crate::args::{Access, Arg, Kind, Man, Run, Spec, switch};
use crate::error::Result;
use crate::output::{self, Out};
use crate::settings::Key;
use crate::store::Store;
use crate::sys;

pub(crate) struct Args {
    name: Option<String>,
    json: bool,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "roles",
    alias: None,
    summary: "the roles chat --role takes: a system prompt with its model, budget and agent",
    about: "\
A role is a system prompt with the settings that go with it, chosen in one
word: hermes chat --role NAME, or /role NAME in a chat. It is a file
roles/NAME.md in the profile ($HERMES_HOME/roles/, or the profile's), else
one of those that come with hermes. Its header, between two +++ lines,
holds config.toml's lines for description, model, context, agent,
agent_input and the model options (temperature, top_p, max_tokens, seed,
stop); the rest of the file is the prompt, where {{KEY}} is a variable that
chat --var KEY=VALUE fills (a role's variable left unfilled is refused):

  +++
  description = \"a commit message for the staged diff\"
  model = \"gpt-4o-mini\"
  +++
  Write a git commit message for the diff you are given. ...

With NAME, that role: its file, its settings and its prompt (copy the file
into roles/ to change one that comes with hermes). Piped, the list is one
role a line: name, model, description, file and variables (by commas),
tab-separated.

{options}
",
    man: Man::NONE,
    options: &[switch("", "--json", "the same as JSON")
        .man(
            r#"
the same as JSON: an object per role with
.BR name ,
.BR description ,
.BR model ,
.BR context ,
.BR agent ,
.BR agent_input ,
.B system
(its prompt),
.B file
and
.B shipped
(whether it comes with hermes).
"#,
        )
        .sets(|a| a.json = true)],
    args: &[Arg::optional("NAME", Kind::Role).takes(|a, v| {
        a.name = Some(v.lossy());
        Ok(())
    })],
    start: || Args { name: None, json: false },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        match &self.name {
            Some(name) => show(&role::find(store, name)?, self.json),
            None => list(store, self.json),
        }
    }
    fn access(&self) -> Access {
        Access::Reads
    }
}

/// A role as `--json` gives it.
#[derive(SerJson)]
#[nserde(serialize_none_as_null)]
struct Entry {
    name: String,
    description: String,
    model: Option<String>,
    context: Option<String>,
    agent: Option<String>,
    agent_input: Option<String>,
    system: Option<String>,
    variables: Vec<String>,
    file: String,
    shipped: bool,
}

fn entry(role: &Role) -> Entry {
    let get = |key| role.get(key).map(str::to_string);
    Entry {
        name: role.name.clone(),
        description: role.description.clone(),
        model: get(Key::Model),
        context: get(Key::Context),
        agent: get(Key::Agent),
        agent_input: get(Key::AgentInput),
        system: role.prompt.clone(),
        variables: role.variables(),
        file: role.path.display().to_string(),
        shipped: role.shipped,
    }
}

/// Every role, one a line; one whose file cannot be read is warned about
/// and left out.
fn list(store: &Store, json: bool) -> Result<()> {
    let mut roles = Vec::new();
    for (name, path, shipped) in role::names(store) {
        match role::read(&path, &name, shipped) {
            Ok(Some(role)) => roles.push(role),
            Ok(None) => {}
            Err(e) => output::warn(&format!("{e}; left out")),
        }
    }
    let mut out = Out::new();
    if json {
        let entries: Vec<Entry> = roles.iter().map(entry).collect();
        out.data(&entries.serialize_json())?;
        out.write_own("\n")?;
        return out.flush();
    }
    let terminal = sys::isatty(1);
    let width = |get: fn(&Role) -> usize| roles.iter().map(get).max().unwrap_or(0);
    let name_width = width(|r| crate::text::columns_of(&r.name));
    let model_width = width(|r| crate::text::columns_of(r.get(Key::Model).unwrap_or("-")));
    for r in &roles {
        let model = r.get(Key::Model).unwrap_or("-");
        let line = if terminal {
            let (name, model) = (pad(&r.name, name_width), pad(model, model_width));
            let from = if r.shipped { "" } else { "  (yours)" };
            let vars: Vec<String> = r.variables().iter().map(|v| format!("{{{{{v}}}}}")).collect();
            let vars = if vars.is_empty() { String::new() } else { format!("  --var {}", vars.join(" ")) };
            // Wrapped at words, the description's further rows under it.
            let hang = " ".repeat(name_width + model_width + 4);
            let line = format!("{name}  {model}  {}{vars}{from}", r.description);
            crate::wrap::wrapped(&line, output::terminal_columns(1), &hang)
        } else {
            let vars = r.variables().join(",");
            format!("{}\t{model}\t{}\t{}\t{vars}", r.name, r.description, r.path.display())
        };
        out.line(&line)?;
    }
    if roles.is_empty() && terminal {
        out.line("No roles: a role is a file roles/NAME.md in the profile; see 'hermes roles --help'.")?;
    }
    out.flush()
}

fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(crate::text::columns_of(text))))
}

/// One role: where it is, its settings, its prompt.
fn show(role: &Role, json: bool) -> Result<()> {
    let mut out = Out::new();
    if json {
        out.data(&entry(role).serialize_json())?;
        out.write_own("\n")?;
        return out.flush();
    }
    let mut text = format!("role: {}\nfile: {}\n", role.name, role.path.display());
    for (key, value) in &role.settings {
        text.push_str(&format!("{key}: {value}\n"));
    }
    let variables = role.variables();
    if !variables.is_empty() {
        text.push_str(&format!("variables: {} (chat --var KEY=VALUE)\n", variables.join(", ")));
    }
    match &role.prompt {
        Some(prompt) => text.push_str(&format!("\n{prompt}\n")),
        None => text.push_str("(no system prompt: the configured one applies)\n"),
    }
    out.write(&text)?;
    out.flush()
}
