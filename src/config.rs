//! `config.toml`: the agent command, how it takes its input, and the model
//! name passed along to it.

use nanoserde::{Toml, TomlParser};

use crate::error::{Error, Result};
use crate::store::Store;

/// How the conversation is handed to the agent on its stdin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AgentInput {
    /// An OpenAI chat-completions request body.
    Json,
    /// The conversation as plain text, one `role: content` block each.
    Transcript,
    /// The latest user message only.
    Text,
}

impl AgentInput {
    pub fn parse(s: &str) -> Option<AgentInput> {
        match s {
            "json" => Some(AgentInput::Json),
            "transcript" => Some(AgentInput::Transcript),
            "text" => Some(AgentInput::Text),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Config {
    pub agent: Option<String>,
    pub agent_input: Option<AgentInput>,
    pub model: Option<String>,
}

pub const KEYS: [&str; 3] = ["agent", "agent_input", "model"];

/// Read the profile's config.toml; a missing file is an empty config.
pub fn load(store: &Store) -> Result<Config> {
    let path = store.config_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let bad = |why: String| Error::Store(format!("{}: {why}", path.display()));
    let table = TomlParser::parse(&text).map_err(|e| bad(e.to_string()))?;
    let mut config = Config::default();
    for (key, value) in table {
        let Toml::Str(value) = value else {
            return Err(bad(format!("'{key}' must be a quoted string")));
        };
        match key.as_str() {
            "agent" => config.agent = Some(value).filter(|v| !v.trim().is_empty()),
            "agent_input" => {
                config.agent_input = Some(AgentInput::parse(&value).ok_or_else(|| {
                    bad(format!("agent_input must be \"json\", \"transcript\" or \"text\", not \"{value}\""))
                })?)
            }
            "model" => config.model = Some(value).filter(|v| !v.is_empty()),
            other => {
                crate::note!(
                    "hermes: warning: {}: unknown key '{other}' ignored (known: {})",
                    path.display(),
                    KEYS.join(", ")
                )
            }
        }
    }
    Ok(config)
}
