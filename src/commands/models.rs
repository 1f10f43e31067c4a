//! `hermes models`: the models the configured server offers, asked of the
//! agent (see `agent::models`), one a line, and kept for `/model` Tab and
//! the shell's completion of `-m`.

use std::time::Duration;

use nanoserde::SerJson;

use crate::agent::{self, Agent, models};
use crate::args::{Access, Kind, Man, Run, Spec, Value, option, switch};
use crate::error::{EXIT_NOT_FOUND, Error, Result};
use crate::output::Out;
use crate::store::Store;

pub(crate) struct Args {
    json: bool,
    cached: bool,
    timeout: u64,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "models",
    alias: None,
    summary: "the models the configured server offers, asked of the agent",
    about: "\
Ask the configured agent for the models its server offers and print them,
one a line, sorted. The agent is run with $HERMES_REQUEST set to 'models'
and nothing on its stdin; those that come with hermes ask the server
(openai-compatible: GET $OPENAI_BASE_URL/models) or their own tool. The
list is kept in the profile for an hour, for /model Tab in a chat and the
shell's completion of -m. A failure is exit 3, with what the agent said.

{options}
",
    man: Man::NONE,
    options: &[
        switch("", "--json", "the same as a JSON array")
            .man(
                r#"
the same as a JSON array
"#,
            )
            .sets(|a| a.json = true),
        switch(
            "",
            "--cached",
            "the list kept from the last time, without asking the agent (exit 1 when there is none)",
        )
        .man(
            r#"
the list kept from the last time, without asking the agent (exit 1 when
there is none)
"#,
        )
        .sets(|a| a.cached = true),
        option(
            "",
            "--timeout",
            Value::new("SECONDS", Kind::Number),
            "how long the agent may take (default 30)",
        )
        .man(
            r#"
how long the agent may take (default 30)
"#,
        )
        .takes(|a, v| {
            a.timeout = v.positive()? as u64;
            Ok(())
        }),
    ],
    args: &[],
    start: || Args { json: false, cached: false, timeout: 30 },
    finish: Ok,
    stray: None,
};

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        let settings = agent::resolve_settings(store, Vec::new())?;
        let no_agent = || {
            Error::Agent(
                "no agent configured to ask: run 'hermes config set base_url URL' (an OpenAI-compatible \
                    server), or 'hermes config set agent CMD'"
                    .into(),
            )
        };
        let agent: Agent = Agent::from_settings(&settings)?.ok_or_else(no_agent)?;
        let names = if self.cached {
            let (names, _) = models::cached(store, &agent).ok_or(Error::Silent(EXIT_NOT_FOUND))?;
            names
        } else {
            crate::sys::catch_interrupts();
            let limit = Duration::from_secs(self.timeout);
            // The default server's, then each named server's as NAME:MODEL.
            // With named servers and no base_url, the default server is
            // only the shipped agent's guess (a local ollama): not asked.
            let guessed = agent.server.is_some() && agent.base_url.is_none();
            let named = agent.server_names().next().is_some();
            let listed = if guessed && named { Ok(Vec::new()) } else { agent.list_models(limit, false) };
            let mut names = match listed {
                Ok(names) if guessed && named => names,
                Ok(names) => {
                    models::keep(store, &agent, &names);
                    names
                }
                Err(Error::Agent(why)) if named => {
                    crate::output::warn(&why);
                    Vec::new()
                }
                Err(e) => return Err(e),
            };
            for server in agent.server_names() {
                let listed =
                    agent.server(server).map(|a| a.list_models(limit, false)).unwrap_or(Ok(Vec::new()));
                let listed = listed.map_err(|e| match e {
                    Error::Agent(why) => Error::Agent(format!("[servers.{server}]: {why}")),
                    e => e,
                })?;
                names.extend(listed.into_iter().map(|name| format!("{server}:{name}")));
            }
            names
        };
        let mut out = Out::new();
        if self.json {
            out.data(&names.serialize_json())?;
            out.write_own("\n")?;
        } else {
            for name in &names {
                out.data(name)?;
                out.write_own("\n")?;
            }
        }
        out.flush()
    }
    fn access(&self) -> Access {
        Access::RunsAgent
    }
}
