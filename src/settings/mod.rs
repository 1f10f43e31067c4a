//! The settings: one table of every key config.toml may hold (its name,
//! its help, the words it takes, the kind of value it checks, and where
//! else its value may come from: an option of the command line, the session,
//! the environment, a default), and one resolver, `Settings::resolve`,
//! that both gives the value that applies and says where it came from.
//! Code names a key by its `Key`, never by its name: a name is read into a
//! `Key` only where a user wrote it (config.toml, a role's header, `config
//! get|set|unset`, `-o`). Chat, the agent, compaction and `hermes config
//! list|get|check` all ask it; adding a key is one variant of `Key` and one
//! entry of `TABLE`. `file` reads config.toml, `edit` rewrites one of its
//! lines.

pub(crate) mod edit;
pub(crate) mod file;

use crate::store::Store;
use crate::store::context;
use crate::store::session::{ModelOptions, OPTIONS};

pub(crate) use file::{File, foreign_config, load_file};

/// A key of config.toml, one for each entry of `TABLE`, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    Agent,
    AgentInput,
    Model,
    BaseUrl,
    ApiKeyEnv,
    ApiKeyCommand,
    System,
    Render,
    SessionId,
    Save,
    Usage,
    Context,
    Timeout,
    Compact,
    Temperature,
    TopP,
    MaxTokens,
    Seed,
    Stop,
}

// Each key is the entry at its place in the table, and every key has one.
const _: () = {
    assert!(TABLE.len() == Key::Stop as usize + 1);
    let mut at = 0;
    while at < TABLE.len() {
        assert!(TABLE[at].key as usize == at);
        at += 1;
    }
};

impl Key {
    /// Its entry in the table.
    pub(crate) fn setting(self) -> &'static Setting {
        &TABLE[self as usize]
    }

    /// As config.toml spells it.
    pub(crate) fn name(self) -> &'static str {
        self.setting().name
    }

    /// The key config.toml spells `name`, if there is one.
    pub(crate) fn parse(name: &str) -> Option<Key> {
        TABLE.iter().find(|s| s.name == name).map(|s| s.key)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One key of config.toml.
pub(crate) struct Setting {
    pub(crate) key: Key,
    /// Its name, in config.toml and on the command line (`config get`).
    pub(crate) name: &'static str,
    /// What it sets, in one line (`hermes config --help`, the man page).
    pub(crate) help: &'static str,
    /// The words it takes, when it takes only some (checked, completed).
    pub(crate) words: &'static [&'static str],
    /// What its values are, and so why one is refused.
    pub(crate) kind: Kind,
    /// Where its value comes from: the command line, the session, config.toml, the
    /// environment or a default, in the order that key asks.
    pub(crate) find: fn(&Sources, &Found) -> Option<(String, Origin)>,
}

/// What a key's values are, and so how one is checked (never quoting it
/// when refused: the file may be anything but a config), for config.toml's
/// lines and `config set` alike.
pub(crate) enum Kind {
    /// Any text: a command, a prompt.
    Text,
    /// One of its entry's `words` (`true` or `false` for a switch).
    Word,
    /// Text that its own rule checks: a URL, a number, a model's name.
    Rule(fn(&str) -> Result<(), String>),
    /// A model option (`OPTIONS`, `chat -o`), checked as a session's are.
    ModelOption,
}

impl Setting {
    /// Why `value` is refused, if it is.
    fn check(&self, value: &str) -> Result<(), String> {
        match self.kind {
            Kind::Text => Ok(()),
            Kind::Word => words_check(self.name, self.words, value),
            Kind::Rule(rule) => rule(value),
            Kind::ModelOption => ModelOptions::default().set(self.name, value),
        }
    }
}

/// What the command line (or a role) gives a key: its value, and which
/// option gave it.
pub(crate) type Override = (Key, String, Origin);

/// Where a setting's value came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Origin {
    /// An option of the command line, as given (`--plain`, `-o top_p`).
    CommandLine(String),
    /// A role's header, as the role was chosen (`--role commit`, `/role
    /// commit`).
    Role(String),
    /// The running chat's own choice: its model, by `-m` or `/model`.
    ThisChat,
    /// The session's own (its model).
    Session,
    /// config.toml.
    File,
    /// A variable of the environment.
    Env(&'static str),
    /// The default; with why, when it depends on another setting.
    Default(Option<String>),
}

impl Origin {
    /// As `config list` says it.
    pub(crate) fn describe(&self) -> String {
        match self {
            Origin::CommandLine(given) | Origin::Role(given) => format!("the command line: {given}"),
            Origin::ThisChat => "the command line: this chat".to_string(),
            Origin::Session => "the session's".to_string(),
            Origin::File => "config.toml".to_string(),
            Origin::Env(name) => format!("environment: {name}"),
            Origin::Default(None) => "default".to_string(),
            Origin::Default(Some(why)) => format!("default{why}"),
        }
    }
}

/// Everything a value may come from besides the table itself.
#[derive(Default)]
pub(crate) struct Sources {
    /// What the command line and the role said.
    pub(crate) overrides: Vec<Override>,
    /// The session's own model, when a session is in hand.
    pub(crate) session_model: Option<String>,
    /// config.toml's values.
    pub(crate) file: File,
    /// Whether a bare agent name is an agent that comes with hermes (the
    /// agent room knows where they are), and what it reads when not JSON.
    pub(crate) shipped_input: Option<fn(&str) -> Option<AgentInput>>,
}

impl Sources {
    fn overridden(&self, key: Key) -> Option<(String, Origin)> {
        self.overrides.iter().find(|(k, _, _)| *k == key).map(|(_, v, origin)| (v.clone(), origin.clone()))
    }

    fn file(&self, key: Key) -> Option<(String, Origin)> {
        self.file.get(key).map(|v| (v.to_string(), Origin::File))
    }

    fn env(name: &'static str) -> Option<(String, Origin)> {
        std::env::var(name).ok().filter(|v| !v.trim().is_empty()).map(|v| (v, Origin::Env(name)))
    }
}

/// The values of the keys before this one in the table, as found.
pub(crate) struct Found<'a>(&'a [Option<(String, Origin)>]);

impl Found<'_> {
    fn get(&self, key: Key) -> Option<&str> {
        self.0.get(key as usize)?.as_ref().map(|(v, _)| v.as_str())
    }
}

/// How the conversation is handed to the agent on its stdin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum AgentInput {
    /// An OpenAI chat-completions request body.
    Json,
    /// The conversation as plain text, one `role: content` block each.
    Transcript,
    /// The latest user message only.
    Text,
}

impl std::str::FromStr for AgentInput {
    /// Why not, for the caller to place (a line of config.toml).
    type Err = String;

    fn from_str(name: &str) -> Result<AgentInput, String> {
        match name {
            "json" => Ok(AgentInput::Json),
            "transcript" => Ok(AgentInput::Transcript),
            "text" => Ok(AgentInput::Text),
            _ => Err(format!("agent_input must be \"json\", \"transcript\" or \"text\", not \"{name}\"")),
        }
    }
}

impl AgentInput {
    pub(crate) fn name(self) -> &'static str {
        match self {
            AgentInput::Json => "json",
            AgentInput::Transcript => "transcript",
            AgentInput::Text => "text",
        }
    }
}

/// The agent when config.toml sets `base_url` and no `agent`: the shipped
/// agent that talks to such a server.
pub(crate) const SERVER_AGENT: &str = "openai-compatible";

/// The shipped agents that talk to no OpenAI-compatible server.
const SERVERLESS: [&str; 2] = ["llm", "ollama"];

/// The server `SERVER_AGENT` asks when none is set (ollama's).
pub(crate) const DEFAULT_SERVER: &str = "http://127.0.0.1:11434/v1";

/// Every key of config.toml, in the order `config list` shows them.
pub(crate) const TABLE: &[Setting] = &[
    Setting {
        key: Key::Agent,
        name: "agent",
        help: "the command that answers; a bare name is an agent that comes with hermes (openai-compatible, \
            ollama, llm), else a program on PATH",
        words: &[],
        kind: Kind::Text,
        // The environment wins over the file: HERMES_AGENT is the way to
        // try another without editing it.
        find: |s, _| {
            s.overridden(Key::Agent)
                .or_else(|| Sources::env("HERMES_AGENT"))
                .or_else(|| s.file(Key::Agent))
                .or_else(|| {
                    let why = ", as base_url is set".to_string();
                    let servers = ", as [servers.NAME] is set".to_string();
                    s.file(Key::BaseUrl)
                        .map(|_| (SERVER_AGENT.to_string(), Origin::Default(Some(why))))
                        .or_else(|| {
                            (!s.file.servers.is_empty())
                                .then(|| (SERVER_AGENT.to_string(), Origin::Default(Some(servers))))
                        })
                })
        },
    },
    Setting {
        key: Key::AgentInput,
        name: "agent_input",
        help: "what the agent reads: json (default), transcript, text",
        words: &["json", "transcript", "text"],
        kind: Kind::Word,
        find: |s, found| {
            s.file(Key::AgentInput)
                .or_else(|| {
                    let agent = found.get(Key::Agent)?.trim();
                    let input = (s.shipped_input?)(agent)?;
                    Some((input.name().to_string(), Origin::Default(Some(format!(" of {agent}")))))
                })
                .or_else(|| Some(("json".to_string(), Origin::Default(None))))
        },
    },
    Setting {
        key: Key::Model,
        name: "model",
        help: "the model, given in the request and as $HERMES_MODEL",
        words: &[],
        kind: Kind::Rule(|v| crate::store::session::clean_model(v).map(|_| ())),
        find: |s, found| {
            s.overridden(Key::Model)
                .or_else(|| s.session_model.clone().map(|m| (m, Origin::Session)))
                .or_else(|| s.file(Key::Model))
                .or_else(|| Sources::env("HERMES_MODEL"))
                // An agent that reads an OpenAI request gets the variable
                // OpenAI's own clients read.
                .or_else(|| {
                    let json = found.get(Key::AgentInput).is_none_or(|input| input == "json");
                    Sources::env("OPENAI_MODEL").filter(|_| json)
                })
        },
    },
    Setting {
        key: Key::BaseUrl,
        name: "base_url",
        help: "the server's API root, given as $OPENAI_BASE_URL",
        words: &[],
        kind: Kind::Rule(|v| {
            if !(v.starts_with("http://") || v.starts_with("https://")) {
                Err("base_url must start with http:// or https://".to_string())
            } else if has_credentials(v) {
                Err(CREDENTIALS_IN_URL.to_string())
            } else {
                Ok(())
            }
        }),
        find: |s, found| {
            // The environment's is another program's when the agent is a
            // shipped one that asks no such server (llm, ollama): neither
            // shown nor checked then. A script of the user's may read it.
            let agent = found.get(Key::Agent).map(str::trim);
            let serverless =
                agent.is_some_and(|a| a.rsplit('/').next().is_some_and(|a| SERVERLESS.contains(&a)));
            let env = || Sources::env("OPENAI_BASE_URL").filter(|_| !serverless);
            s.file(Key::BaseUrl).or_else(env).or_else(|| {
                // Only the agent that talks to such a server has a default.
                (agent == Some(SERVER_AGENT)).then(|| {
                    (DEFAULT_SERVER.to_string(), Origin::Default(Some(format!(" of {SERVER_AGENT}"))))
                })
            })
        },
    },
    Setting {
        key: Key::ApiKeyEnv,
        name: "api_key_env",
        help: "the environment variable that holds the key",
        words: &[],
        kind: Kind::Rule(|v| {
            let ok = !v.is_empty()
                && !v.starts_with(|c: char| c.is_ascii_digit())
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if ok {
                Ok(())
            } else {
                Err("api_key_env must name an environment variable (letters, digits and '_')".to_string())
            }
        }),
        find: |s, _| s.file(Key::ApiKeyEnv),
    },
    Setting {
        key: Key::ApiKeyCommand,
        name: "api_key_command",
        help: "a command that prints the key, run for every reply",
        words: &[],
        kind: Kind::Text,
        find: |s, _| s.file(Key::ApiKeyCommand),
    },
    Setting {
        key: Key::System,
        name: "system",
        help: "the system prompt of new sessions",
        words: &[],
        kind: Kind::Text,
        find: |s, _| s.overridden(Key::System).or_else(|| s.file(Key::System)),
    },
    Setting {
        key: Key::Render,
        name: "render",
        help: "how replies are shown on a terminal: markdown (drawn, the default) or plain (as sent)",
        words: &["markdown", PLAIN],
        kind: Kind::Word,
        find: |s, _| {
            s.overridden(Key::Render).or_else(|| s.file(Key::Render)).or_else(|| {
                let dumb = std::env::var("TERM").map_or(true, |term| term.is_empty() || term == "dumb");
                Some(if dumb {
                    (PLAIN.to_string(), Origin::Env("TERM"))
                } else {
                    ("markdown".to_string(), Origin::Default(None))
                })
            })
        },
    },
    Setting {
        key: Key::SessionId,
        name: "session_id",
        help: "when a one-shot chat prints 'session_id: ID' on stderr: always (the default), pipe (only when \
            stderr is not a terminal: a script reads it) or never; -Q never does",
        words: &SESSION_ID_WORDS,
        kind: Kind::Word,
        find: |s, _| s.file(Key::SessionId).or_else(|| Some(("always".to_string(), Origin::Default(None)))),
    },
    Setting {
        key: Key::Save,
        name: "save",
        help: "false: a one-shot turn is made and printed, and nothing of it is kept (chat --no-save); true \
            (default): kept",
        words: &BOOLEAN_WORDS,
        kind: Kind::Word,
        find: |s, _| {
            s.overridden(Key::Save)
                .or_else(|| s.file(Key::Save))
                .or_else(|| Some(("true".to_string(), Origin::Default(None))))
        },
    },
    Setting {
        key: Key::Usage,
        name: "usage",
        help: "true: after each reply, a line on stderr with its tokens (in, out) and the session's total \
            (chat --usage); false (default): none",
        words: &BOOLEAN_WORDS,
        kind: Kind::Word,
        find: |s, _| {
            s.overridden(Key::Usage)
                .or_else(|| s.file(Key::Usage))
                .or_else(|| Some(("false".to_string(), Origin::Default(None))))
        },
    },
    Setting {
        key: Key::Context,
        name: "context",
        help: "the context budget: the most characters of the conversation a turn sends (300000, 300k, or \
            off)",
        words: &[],
        kind: Kind::Rule(|v| {
            context::parse_budget(v).map(|_| ()).map_err(|_| {
                "context must be a number of characters, as \"300000\" or \"300k\", or \"off\"".to_string()
            })
        }),
        find: |s, _| {
            s.overridden(Key::Context)
                .or_else(|| s.file(Key::Context))
                .or_else(|| Some((context::DEFAULT_BUDGET.to_string(), Origin::Default(None))))
        },
    },
    Setting {
        key: Key::Timeout,
        name: "timeout",
        help: "how many seconds a turn waits for the agent's next byte before it gives up (what arrived is \
            kept, marked incomplete); 0: no limit",
        words: &[],
        kind: Kind::Rule(|v| parse_timeout(v).map(|_| ())),
        find: |s, _| {
            s.overridden(Key::Timeout)
                .or_else(|| s.file(Key::Timeout))
                .or_else(|| Some((DEFAULT_TIMEOUT_SECONDS.to_string(), Origin::Default(None))))
        },
    },
    Setting {
        key: Key::Compact,
        name: "compact",
        help: "auto: summarise the older messages before a turn that would leave some out; off (default): \
            only when asked",
        words: &["auto", "off"],
        kind: Kind::Word,
        find: |s, _| s.file(Key::Compact).or_else(|| Some(("off".to_string(), Origin::Default(None)))),
    },
    Setting {
        key: Key::Temperature,
        name: "temperature",
        help: option_help("temperature"),
        words: &[],
        kind: Kind::ModelOption,
        find: |s, _| s.overridden(Key::Temperature).or_else(|| s.file(Key::Temperature)),
    },
    Setting {
        key: Key::TopP,
        name: "top_p",
        help: option_help("top_p"),
        words: &[],
        kind: Kind::ModelOption,
        find: |s, _| s.overridden(Key::TopP).or_else(|| s.file(Key::TopP)),
    },
    Setting {
        key: Key::MaxTokens,
        name: "max_tokens",
        help: option_help("max_tokens"),
        words: &[],
        kind: Kind::ModelOption,
        find: |s, _| s.overridden(Key::MaxTokens).or_else(|| s.file(Key::MaxTokens)),
    },
    Setting {
        key: Key::Seed,
        name: "seed",
        help: option_help("seed"),
        words: &[],
        kind: Kind::ModelOption,
        find: |s, _| s.overridden(Key::Seed).or_else(|| s.file(Key::Seed)),
    },
    Setting {
        key: Key::Stop,
        name: "stop",
        help: option_help("stop"),
        words: &[],
        kind: Kind::ModelOption,
        find: |s, _| s.overridden(Key::Stop).or_else(|| s.file(Key::Stop)),
    },
];

/// A model option's help, from its entry in `OPTIONS`.
const fn option_help(key: &str) -> &'static str {
    let mut at = 0;
    while at < OPTIONS.len() {
        let (a, b) = (OPTIONS[at].key.as_bytes(), key.as_bytes());
        let mut same = a.len() == b.len();
        let mut i = 0;
        while same && i < a.len() {
            same = a[i] == b[i];
            i += 1;
        }
        if same {
            return OPTIONS[at].help;
        }
        at += 1;
    }
    panic!("no such model option")
}

/// How long a turn waits for the agent's next byte by default (`timeout`):
/// long enough for a local model to load and read a long conversation
/// before its first word, short enough that a cron job never piles up.
pub(crate) const DEFAULT_TIMEOUT_SECONDS: u64 = 300;

/// `timeout` (and `chat --timeout`): whole seconds, 0 for no limit.
pub(crate) fn parse_timeout(text: &str) -> Result<Option<std::time::Duration>, String> {
    let seconds: u64 = text.trim().parse().ok().filter(|s| *s <= 1_000_000).ok_or_else(|| {
        "timeout must be a whole number of seconds (at most 1000000), or 0 for no limit".to_string()
    })?;
    Ok((seconds > 0).then(|| std::time::Duration::from_secs(seconds)))
}

/// The `render` that shows replies as sent (`chat --plain`, TERM=dumb).
pub(crate) const PLAIN: &str = "plain";

/// What `session_id` takes.
const SESSION_ID_WORDS: [&str; 3] = ["always", "pipe", "never"];

/// What a key that is on or off takes.
const BOOLEAN_WORDS: [&str; 2] = ["true", "false"];

/// Why a server's URL with a user name or password in it is refused:
/// hermes would show it (`config list`, errors) and hand it to the agent,
/// which puts the URL on curl's command line, where every user of the
/// machine can read it.
const CREDENTIALS_IN_URL: &str = "base_url holds a user name or password (user:password@host), which would \
    be shown by 'hermes config list' and in errors, and be on curl's command line for every user to see; \
        give the server's URL without it, and the key with api_key_env (the environment variable that holds \
            it) or api_key_command (a command that prints it)";

/// Whether a URL names a user (or a user and password) before its host.
pub(crate) fn has_credentials(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme.split(['/', '?', '#']).next().is_some_and(|authority| authority.contains('@'))
}

fn words_check(key: &str, words: &[&str], value: &str) -> Result<(), String> {
    if words.contains(&value) {
        return Ok(());
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    let (last, rest) = quoted.split_last().unwrap_or_else(|| unreachable!());
    Err(format!("{key} must be {} or {last}", rest.join(", ")))
}

/// The keys' names, in the table's order.
pub(crate) fn keys() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|s| s.name)
}

/// Check a value for `key` as config.toml's reader would, without naming
/// the value: why not, else nothing.
pub(crate) fn check_value(key: Key, value: &str) -> Result<(), String> {
    if value.contains('\0') {
        return Err(format!("the value of '{key}' holds a NUL character"));
    }
    key.setting().check(value)
}

/// Every setting's value as it applies, and where it came from.
pub(crate) struct Settings {
    values: Vec<Option<(String, Origin)>>,
    /// config.toml's named servers (`[servers.NAME]`).
    servers: Vec<file::Server>,
}

impl Settings {
    /// Resolve every key from `sources`, in the table's order.
    pub(crate) fn resolve(sources: &Sources) -> Settings {
        let mut values: Vec<Option<(String, Origin)>> = Vec::with_capacity(TABLE.len());
        for setting in TABLE {
            let found = (setting.find)(sources, &Found(&values));
            values.push(found);
        }
        Settings { values, servers: sources.file.servers.clone() }
    }

    /// config.toml's named servers, in its order.
    pub(crate) fn servers(&self) -> &[file::Server] {
        &self.servers
    }

    /// The settings of config.toml alone (no option, no session), as a
    /// command without either sees them.
    pub(crate) fn of_file(store: &Store) -> crate::error::Result<Settings> {
        Ok(Settings::resolve(&Sources { file: load_file(store)?, ..Sources::default() }))
    }

    /// Values the environment gave (`$HERMES_MODEL`, `$OPENAI_BASE_URL`,
    /// ...) checked as config.toml's are: refused, naming the variable.
    pub(crate) fn check_environment(&self) -> crate::error::Result<()> {
        for (setting, found) in TABLE.iter().zip(&self.values) {
            if let Some((value, Origin::Env(name))) = found
                && let Err(why) = setting.check(value)
            {
                return Err(crate::error::Error::Refused(format!("${name}: {why}")));
            }
        }
        Ok(())
    }

    /// The value of `key` that applies, and where it came from.
    pub(crate) fn get(&self, key: Key) -> Option<(&str, &Origin)> {
        self.values[key as usize].as_ref().map(|(v, o)| (v.as_str(), o))
    }

    /// The value of `key`.
    pub(crate) fn value(&self, key: Key) -> Option<&str> {
        self.get(key).map(|(v, _)| v)
    }

    /// Every key with its value, if any, and its origin, in the table's order.
    pub(crate) fn all(&self) -> impl Iterator<Item = (Key, Option<&(String, Origin)>)> {
        TABLE.iter().zip(&self.values).map(|(s, v)| (s.key, v.as_ref()))
    }

    pub(crate) fn agent(&self) -> Option<&str> {
        self.value(Key::Agent).filter(|a| !a.trim().is_empty())
    }

    pub(crate) fn agent_input(&self) -> AgentInput {
        self.value(Key::AgentInput).and_then(|v| v.parse().ok()).unwrap_or(AgentInput::Json)
    }

    pub(crate) fn model(&self) -> Option<&str> {
        self.value(Key::Model)
    }

    pub(crate) fn system(&self) -> Option<&str> {
        self.value(Key::System)
    }

    /// Replies drawn as Markdown on a terminal (not `render = "plain"`).
    pub(crate) fn plain(&self) -> bool {
        self.value(Key::Render) == Some(PLAIN)
    }

    /// Whether a one-shot chat says `session_id: ID` on a stderr that
    /// is a terminal (`on_terminal`) or not (`session_id`).
    pub(crate) fn says_session_id(&self, on_terminal: bool) -> bool {
        match self.value(Key::SessionId) {
            Some("never") => false,
            Some("pipe") => !on_terminal,
            _ => true,
        }
    }

    /// Whether a one-shot turn is kept (`save`, `--no-save`).
    pub(crate) fn saves(&self) -> bool {
        self.value(Key::Save) != Some("false")
    }

    /// Whether each reply is followed by its tokens (`usage`, `--usage`).
    pub(crate) fn says_usage(&self) -> bool {
        self.value(Key::Usage) == Some("true")
    }

    /// The context budget, in characters.
    pub(crate) fn budget(&self) -> u64 {
        self.value(Key::Context)
            .and_then(|v| context::parse_budget(v).ok())
            .unwrap_or(context::DEFAULT_BUDGET)
    }

    /// How long a turn waits for the agent's next byte (`timeout`); None:
    /// for ever.
    pub(crate) fn stall_limit(&self) -> Option<std::time::Duration> {
        self.value(Key::Timeout)
            .and_then(|v| parse_timeout(v).ok())
            .unwrap_or(Some(std::time::Duration::from_secs(DEFAULT_TIMEOUT_SECONDS)))
    }

    /// The model options that apply: each one given on the command line
    /// (or by the role), else the session's (`kept`), else config.toml's.
    pub(crate) fn model_options(&self, kept: Option<&ModelOptions>) -> ModelOptions {
        let mut options = kept.cloned().unwrap_or_default();
        let held: Vec<&str> = options.pairs().iter().map(|(key, _)| *key).collect();
        for setting in TABLE.iter().filter(|s| matches!(s.kind, Kind::ModelOption)) {
            match self.get(setting.key) {
                Some((value, Origin::CommandLine(_) | Origin::Role(_))) => {
                    let _ = options.set(setting.name, value);
                }
                Some((value, _)) if !held.contains(&setting.name) => {
                    let _ = options.set(setting.name, value);
                }
                _ => {}
            }
        }
        options
    }

    /// `compact = "auto"`.
    pub(crate) fn auto_compact(&self) -> bool {
        self.value(Key::Compact) == Some("auto")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_read_back_from_its_name() {
        for setting in TABLE {
            assert_eq!(Key::parse(setting.name), Some(setting.key));
            assert_eq!(setting.key.to_string(), setting.name);
        }
        assert_eq!(Key::parse("modle"), None);
        assert_eq!(Key::parse("Model"), None);
    }

    #[test]
    fn a_key_takes_words_exactly_when_its_kind_says_so() {
        for setting in TABLE {
            assert_eq!(matches!(setting.kind, Kind::Word), !setting.words.is_empty(), "{}", setting.name);
        }
        assert_eq!(check_value(Key::Save, "yes"), Err("save must be \"true\" or \"false\"".to_string()));
        assert_eq!(check_value(Key::Save, "false"), Ok(()));
    }

    #[test]
    fn every_model_option_is_a_key_of_its_kind() {
        let of_kind: Vec<&str> =
            TABLE.iter().filter(|s| matches!(s.kind, Kind::ModelOption)).map(|s| s.name).collect();
        let options: Vec<&str> = OPTIONS.iter().map(|o| o.key).collect();
        assert_eq!(of_kind, options);
    }
}
