//! `hermes chat`'s arguments: which session, what to send, which agent.

use crate::agent::Choice;
use crate::args::{Access, Arg, Kind, Run, Spec, Value, flag, option, text};
use crate::error::{Error, Result};
use crate::store::Store;

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Args {
    pub(crate) target: Target,
    pub(crate) create_if_missing: bool,
    pub(crate) query: Option<Query>,
    pub(crate) quiet: bool,
    pub(crate) title: Option<String>,
    pub(crate) agent: Choice,
    /// `-m MODEL`: the model of this chat, recorded in the session.
    pub(crate) model: Option<String>,
    /// `-s TEXT` or `--system-file FILE`: the session's system prompt.
    pub(crate) system: Option<System>,
    /// `--plain`: replies shown as the agent sent them, no Markdown drawn.
    pub(crate) plain: bool,
    /// `--context N`: this call's context budget (checked).
    pub(crate) context: Option<String>,
    /// `--timeout SECONDS`: how long a turn waits for the agent's next byte.
    pub(crate) timeout: Option<String>,
    /// `--json`: a one-shot turn's outcome as one JSON object.
    pub(crate) json: bool,
    /// `-x`: print the reply's code blocks only.
    pub(crate) code: bool,
    /// `--usage`: each reply's tokens on stderr.
    pub(crate) usage: bool,
    /// `--no-save`: a one-shot turn that keeps nothing.
    pub(crate) no_save: bool,
    /// `-e`: the reply's command, run if the user says so.
    pub(crate) execute: bool,
    /// `--role NAME`: the role the chat starts with.
    pub(crate) role: Option<String>,
    /// `-o KEY=VALUE`, each: model options, checked (see `OPTIONS`).
    pub(crate) options: Vec<(&'static str, String)>,
    /// `--var KEY=VALUE`, each: what fills `{{KEY}}` in the role's text.
    pub(crate) vars: Vec<(String, String)>,
    /// `--schema JSON|FILE`: the shape of JSON the reply must have.
    pub(crate) schema: Option<String>,
    /// `-f FILE`, each: files put into the message.
    pub(crate) files: Vec<std::ffi::OsString>,
    /// `TEXT...`: the words of a one-shot message, as `-q` would send them.
    words: Vec<String>,
    /// `-c [NAME]`, `-r ID`, `--pick` as given: `target` says what they mean.
    continued: Option<Option<String>>,
    resumed: Option<String>,
    picked: bool,
}

#[derive(Debug, PartialEq)]
pub(crate) enum System {
    Text(String),
    /// Read when the chat starts.
    File(std::ffi::OsString),
}

#[derive(Debug, Default, PartialEq)]
pub(crate) enum Target {
    #[default]
    New,
    /// Bare `-c`: this terminal's session.
    ContinueHere,
    /// `-c NAME`: by ID, then by title.
    ContinueNamed(String),
    /// `-r ID`: by ID, or a short ID.
    Resume(String),
    /// `--pick`: the one chosen on the picker.
    Pick,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Query {
    Text(String),
    Stdin,
}

pub(crate) const SPEC: Spec<Args> = Spec {
    path: "chat",
    alias: None,
    summary: "talk in a new or continued session (the default)",
    about: ABOUT,
    options: &[
        option("-c", "--continue", Value::optional("NAME", Kind::Session), "this terminal's last session; else the newest one in this workspace (git root, else directory); else the newest of all").under("Which session (with none of these, a new one):").also(&[("-c, --continue NAME", "the session whose ID is NAME, else whose title is NAME")]).group(1).takes(|a, v| {
                // NAME may become a title (--create-if-missing): text.
                a.continued = Some(v.value.map(|name| text(name, "-c NAME")).transpose()?);
                Ok(())
            }),
        flag("", "--create-if-missing", "with -c NAME: create the session titled NAME if none matches (parallel calls create exactly one); NAME is then only a full ID or an exact title: one that no title matches and that is shaped like an ID, an ID prefix (20261204) or a short ID is refused (exit 2), even if it abbreviates a session's ID (-r continues that one)").sets(|a| a.create_if_missing = true),
        option("-r", "--resume", Value::new("ID", Kind::SessionId), "the session with this ID, or the one a short ID names (8 or more leading characters, or the last 6 hex digits)").group(1).takes(|a, v| {
                a.resumed = Some(v.text());
                Ok(())
            }),
        flag("", "--pick", "choose the session on a full-screen list and continue it here (see 'hermes sessions pick --help')").group(1).sets(|a| a.picked = true),
        option("", "--title", Value::new("TITLE", Kind::Text), "title for a new session (refused if another session has it, or if it would be read as an ID)").takes(|a, v| {
                a.title = Some(v.utf8("--title")?);
                Ok(())
            }),
        option("-q", "--query", Value::new("TEXT|-", Kind::Text), "send TEXT, print the reply, exit (one-shot); with stdin a pipe or file, one message: stdin, a blank line, then TEXT").under("How:").also(&[("-q -", "read the message from stdin (also when stdin is not a terminal)")]).takes(|a, v| {
                let query = v.utf8("-q")?;
                a.query = Some(if query == "-" { Query::Stdin } else { Query::Text(query) });
                Ok(())
            }),
        option("-f", "--file", Value::new("FILE", Kind::File), "put the text file FILE into the message, fenced and named (after stdin, before TEXT), or send the image FILE with it (PNG, JPEG, GIF or WebP, at most 20 MiB; kept once in the store's images/); again for more, at most 32; any other file that is not text is refused").repeats().takes(|a, v| {
            a.files.push(v.os());
            Ok(())
        }),
        flag("-Q", "--quiet", "do not print 'session_id: ID' or hints to stderr").sets(|a| a.quiet = true),
        flag("", "--json", "one-shot only: print the turn as one JSON object instead of the reply (session_id, title, created, model, role, reply, code, interrupted, incomplete, usage, error, exit_status)").sets(|a| a.json = true),
        flag("-x", "--code", "one-shot only: print only the reply's fenced code, every block in order without its fences, not the reply (kept as ever); a reply with none is exit 3").sets(|a| a.code = true),
        flag("", "--no-save", "one-shot only: make the turn and print the reply, keep nothing: no session made or changed (with -c or -r, the session is the context and stays as it was), no breadcrumb (also: save = \"false\" in config.toml or a role)").sets(|a| a.no_save = true),
        flag("-e", "--execute", "one-shot only: the reply's one command (a fenced block, or a line; the shell role gives one) is shown and asked about on the terminal: run it with $SHELL -c, edit it, copy it, or not; hermes exits with its status, and the session notes what became of it; without a terminal nothing is run: the command is printed, exit 2").sets(|a| a.execute = true),
        flag("", "--usage", "after each reply, one line on stderr with its tokens (in, out) and the session's total, as the agent reported them (also: usage = \"true\" in config.toml)").sets(|a| a.usage = true),
        option("-m", "--model", Value::new("MODEL", Kind::Model), "the model to use, kept in the session: -c continues with the session's model unless -m says otherwise (default: 'model' in config.toml, then $HERMES_MODEL, then $OPENAI_MODEL for json)").takes(|a, v| {
                let model = crate::store::session::clean_model(&v.utf8("-m")?)
                    .map_err(|why| Error::usage(format!("-m: {why}")))?;
                a.model = Some(model);
                Ok(())
            }),
        option("-s", "--system", Value::new("TEXT", Kind::Text), "the session's system prompt (a new session's default: 'system' in config.toml)").group(2).takes(|a, v| {
                a.system = Some(System::Text(v.utf8("-s")?));
                Ok(())
            }),
        option("", "--system-file", Value::new("FILE", Kind::File), "the system prompt from FILE").group(2).takes(|a, v| {
            a.system = Some(System::File(v.os()));
            Ok(())
        }),
        option("", "--role", Value::new("NAME", Kind::Role), "start with the role NAME: its system prompt, and its model, context budget and agent where no option here says otherwise; a session it makes records it (see 'hermes roles')").takes(|a, v| {
            a.role = Some(v.text());
            Ok(())
        }),
        option("", "--agent", Value::new("CMD", Kind::Shell), "the command that writes replies (default: $HERMES_AGENT, then 'agent' in config.toml)").group(3).takes(|a, v| {
                let command = v.utf8("--agent")?;
                if command.trim().is_empty() {
                    return Err(Error::usage("--agent wants a command; --no-agent runs none"));
                }
                a.agent = Choice::Command(command);
                Ok(())
            }),
        flag("", "--no-agent", "only save the message; no reply").group(3).sets(|a| a.agent = Choice::Disabled),
        flag("", "--plain", "show replies as the agent sent them, not as Markdown drawn for the terminal (also: render = \"plain\" in config.toml, or TERM=dumb)").sets(|a| a.plain = true),
        option("", "--context", Value::new("N", Kind::Number), crate::store::context::BUDGET_HELP).takes(|a, v| {
            let budget = v.text();
            budget_arg(&budget)?;
            a.context = Some(budget);
            Ok(())
        }),
        option("", "--timeout", Value::new("SECONDS", Kind::Number), "give up on a reply when the agent has sent nothing for SECONDS (default 300, or 'timeout' in config.toml; 0: no limit): exit 3, what arrived kept and marked incomplete").takes(|a, v| {
            let seconds = v.text();
            crate::settings::parse_timeout(&seconds).map_err(Error::Usage)?;
            a.timeout = Some(seconds);
            Ok(())
        }),
        option("-o", "--option", Value::new("KEY=VALUE", Kind::Text), OPTION_HELP).repeats().takes(|a, v| {
            let (key, value) = model_option(&v.utf8("-o")?)?;
            if a.options.iter().any(|(k, _)| *k == key) {
                return Err(Error::usage(format!("-o {key} is given twice")));
            }
            a.options.push((key, value));
            Ok(())
        }),
        option("", "--var", Value::new("KEY=VALUE", Kind::Text), "fill {{KEY}} in the role's text with VALUE; again for more ('hermes roles' shows each role's variables)").repeats().takes(|a, v| {
            let pair = v.utf8("--var")?;
            let (key, value) = crate::agent::role::variable(&pair).map_err(|why| Error::usage(format!("--var: {why}")))?;
            a.vars.retain(|(k, _)| *k != key);
            a.vars.push((key, value));
            Ok(())
        }),
        option("", "--schema", Value::new("JSON|FILE", Kind::File), "ask for a reply of JSON of this shape (a JSON Schema, or a file holding one): sent as the request's response_format; a reply that is not such JSON is kept, and the chat exits 3").takes(|a, v| {
            a.schema = Some(crate::agent::schema::load(&v.os()).map_err(|why| Error::usage(format!("--schema: {why}")))?);
            Ok(())
        }),
    ],
    args: &[Arg::optional("TEXT", Kind::Text).many().takes(|a, v| {
        a.words.push(v.utf8("TEXT")?);
        Ok(())
    })],
    start: Args::default,
    finish: target,
    stray: None,
};

/// `hermes chat --help` after its usage line.
const ABOUT: &str = "\
{options}

TEXT...: words that are no option are a one-shot message, joined by spaces,
as -q \"TEXT...\" sends it; 'hermes TEXT...' too, unless its first word is a
near miss of a command. A bare -c takes the first word after it as NAME.

Interactive commands: {slash}; Tab completes them, and after them a title,
a file name, a model or a role. Ctrl-D quits; Ctrl-C stops a running reply. On a
terminal the prompt names the session and edits the line: arrows, Home, End
and Emacs keys; Up and Down for earlier messages, this session's first; Ctrl-R
for what was typed in any session; Alt-Enter or Ctrl-J for a new line; Ctrl-X
Ctrl-E for $VISUAL or $EDITOR (with TERM=dumb, line by line). See 'man
hermes'. On a terminal a reply's Markdown is drawn as it streams and its escape
sequences are shown, not obeyed (colours pass, but not a pair that hides text,
and none when NO_COLOR is set); the file keeps the reply as sent.
What the agent leaves running once it exits is killed.
";

impl Run<Store> for Args {
    fn run(self, store: &Store) -> Result<()> {
        super::run(store, self)
    }
    fn access(&self) -> Access {
        Access::RunsAgent
    }
}

/// The session the flags name, and the checks of the flags that go with it.
fn target(mut args: Args) -> Result<Args> {
    if !args.words.is_empty() {
        let words = args.words.join(" ");
        if args.query.is_some() {
            return Err(Error::usage(match args.continued.as_ref().and_then(|name| name.as_deref()) {
                Some(name) => format!(
                    "words '{words}' after -c '{name}' and -q: the words are a message, as -q is; quote a title with spaces: hermes chat -c \"{name} {words}\""
                ),
                None => {
                    format!("words '{words}' and -q: the words are a message, as -q is; give one of them")
                }
            }));
        }
        args.query = Some(Query::Text(words));
    }
    if args.no_save && args.agent == Choice::Disabled {
        return Err(Error::usage("--no-save and --no-agent: nothing would be sent, and nothing kept"));
    }
    if args.execute && (args.json || args.code || args.agent == Choice::Disabled) {
        return Err(Error::usage(
            "-e asks on the terminal about the reply's command: not with --json, -x or --no-agent",
        ));
    }
    if args.picked && (args.create_if_missing || args.title.is_some()) {
        return Err(Error::usage("--pick continues a session: not with --create-if-missing or --title"));
    }
    let target = match (args.picked, args.continued.clone(), args.resumed.clone()) {
        (true, _, _) => Target::Pick,
        (false, _, Some(id)) => Target::Resume(id),
        (false, Some(Some(name)), None) => Target::ContinueNamed(name),
        (false, Some(None), None) => Target::ContinueHere,
        (false, None, None) => Target::New,
    };
    if args.create_if_missing {
        match target {
            Target::ContinueNamed(_) => {}
            Target::ContinueHere => {
                return Err(Error::usage(
                    "--create-if-missing requires a session name: hermes chat -c NAME --create-if-missing",
                ));
            }
            _ => {
                return Err(Error::usage(
                    "--create-if-missing only works with -c NAME: hermes chat -c NAME --create-if-missing",
                ));
            }
        }
    }
    if args.title.is_some() && target != Target::New {
        return Err(Error::usage(
            "--title names a new session; to rename one use: hermes sessions rename NAME TITLE",
        ));
    }
    args.target = target;
    Ok(args)
}

/// `-o`'s help: its keys from the one table.
const OPTION_HELP: &str = "a model option sent with each request and kept in the session: temperature=0-2, top_p=0-1, max_tokens=N, seed=N, stop=TEXT; again for more (also in a role, and in config.toml)";

/// `-o KEY=VALUE`: a model option's key and its value, checked.
fn model_option(pair: &str) -> Result<(&'static str, String)> {
    let (key, value) = pair.split_once('=').ok_or_else(|| {
        Error::usage(format!(
            "-o wants KEY=VALUE, as -o temperature=0.2; not '{}'",
            crate::text::printable(pair, false)
        ))
    })?;
    let key = key.trim();
    let option = crate::store::session::OPTIONS.iter().find(|o| o.key == key);
    let Some(option) = option else {
        let known: Vec<&str> = crate::store::session::OPTIONS.iter().map(|o| o.key).collect();
        let near = crate::text::nearest(key, known.iter().copied());
        let hint = near.map(|n| format!("did you mean '{n}'? ")).unwrap_or_default();
        return Err(Error::usage(format!(
            "-o: '{}' is no model option; {hint}they are {}",
            crate::text::printable(key, false),
            known.join(", ")
        )));
    };
    crate::store::session::ModelOptions::default()
        .set(option.key, value)
        .map_err(|why| Error::usage(format!("-o: {why}")))?;
    Ok((option.key, value.trim().to_string()))
}

/// `--context N` and `/context N`: a budget, or a usage error.
pub(crate) fn budget_arg(text: &str) -> Result<u64> {
    crate::store::context::parse_budget(text).map_err(Error::Usage)
}
