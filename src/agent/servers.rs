//! Named servers: `[servers.NAME]` in config.toml, each with its own
//! `base_url` and key, answering `-m NAME:MODEL`. A NAME that is no
//! configured server leaves the model as written (`llama3.2:latest`).

use super::{Agent, ApiKey, curl};
use crate::settings;
use crate::settings::file::Server;

impl Agent {
    /// This agent with one copy of itself for each named server, set to
    /// talk to it: its URL and its key, nothing of the default's.
    pub(super) fn with_servers(mut self, servers: &[Server]) -> Agent {
        self.servers = servers
            .iter()
            .filter_map(|server| {
                let url = server.get(settings::Key::BaseUrl)?.to_string();
                let key =
                    match (server.get(settings::Key::ApiKeyCommand), server.get(settings::Key::ApiKeyEnv)) {
                        (Some(command), _) => Some(ApiKey::Command(command.to_string())),
                        (None, Some(name)) => Some(ApiKey::Env(name.to_string())),
                        (None, None) => None,
                    };
                // The default model, when it names this server, as it names it.
                let model =
                    self.model.as_deref().and_then(|m| m.strip_prefix(&format!("{}:", server.name)[..]));
                let agent = Agent {
                    command: self.command.clone(),
                    input: self.input,
                    model: model.filter(|m| !m.is_empty()).map(str::to_string),
                    server: self.server.as_ref().map(|_| curl::url_of(&url)),
                    base_url: Some(url),
                    key,
                    usage_dir: self.usage_dir.clone(),
                    stall: self.stall,
                    schema: None,
                    servers: Vec::new(),
                };
                Some((server.name.clone(), agent))
            })
            .collect();
        self
    }

    /// This agent keeping a reply's tokens file in `dir` (see `UsageFile`).
    pub(crate) fn with_usage_dir(mut self, dir: &std::path::Path) -> Agent {
        self.usage_dir = Some(dir.to_path_buf());
        for (_, agent) in &mut self.servers {
            agent.usage_dir = Some(dir.to_path_buf());
        }
        self
    }

    /// The agent that answers `model`, and the model as that server calls
    /// it: the named server's for `NAME:MODEL`, else this one.
    pub(crate) fn route(&self, model: Option<&str>) -> (&Agent, Option<String>) {
        if let Some((name, rest)) = model.and_then(|m| m.split_once(':'))
            && !rest.is_empty()
            && let Some((_, agent)) = self.servers.iter().find(|(n, _)| n == name)
        {
            return (agent, Some(rest.to_string()));
        }
        (self, model.map(str::to_string))
    }

    /// The named servers' names, in config.toml's order.
    pub(crate) fn server_names(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|(name, _)| name.as_str())
    }

    /// The agent set to talk to the server called `name`.
    pub(crate) fn server(&self, name: &str) -> Option<&Agent> {
        self.servers.iter().find(|(n, _)| n == name).map(|(_, agent)| agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::AgentInput;

    #[test]
    fn a_model_names_its_server_only_when_one_is_configured() {
        let server = |name: &str, url: &str| Server {
            name: name.to_string(),
            line: 1,
            values: vec![
                (settings::Key::BaseUrl, url.to_string()),
                (settings::Key::ApiKeyEnv, "WORK_KEY".to_string()),
            ],
        };
        let agent = Agent {
            command: "/x/openai-compatible".into(),
            input: AgentInput::Json,
            model: Some("llama3.2".into()),
            base_url: None,
            key: None,
            server: Some("http://127.0.0.1:11434/v1/chat/completions".into()),
            usage_dir: None,
            stall: None,
            schema: None,
            servers: Vec::new(),
        }
        .with_servers(&[server("work", "https://llm.example/v1")]);
        let (work, model) = agent.route(Some("work:gpt-4o"));
        assert_eq!(model.as_deref(), Some("gpt-4o"));
        assert_eq!(work.server.as_deref(), Some("https://llm.example/v1/chat/completions"));
        assert_eq!(work.key, Some(ApiKey::Env("WORK_KEY".into())));
        let (same, model) = agent.route(Some("llama3.2:latest"));
        assert!(std::ptr::eq(same, &agent));
        assert_eq!(model.as_deref(), Some("llama3.2:latest"));
        assert_eq!(agent.route(Some("work:")).1.as_deref(), Some("work:"));
    }
}
