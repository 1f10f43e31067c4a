//! `hermes chat`: settle on a session, then talk in it, one-shot or
//! interactively. The user's message is saved before the agent runs and the
//! reply after it finishes, so nothing typed is ever lost.

pub(crate) mod args;
mod attach;
mod copy;
mod execute;
mod oneshot;
mod repl;
mod role;
mod slash;
mod state;
mod turn;
mod unsaved;

use std::cell::{Cell, RefCell};
use std::io::{self, Read};

use crate::agent::{self, Agent, Choice as AgentChoice, compact};
use crate::args::utf8;
use crate::commands::chat::args::{Args, Query, System, Target};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup};
use crate::settings::{self, Key, Origin, Override, Settings};
use crate::store::session::{self, Header, MAX_MESSAGE_BYTES, Message, TITLE_USER};
use crate::store::titles;
use crate::store::{CatalogUpdate, Store};
use crate::sys;
use crate::terminal::breadcrumb;
use crate::terminal::{self, Terminal};
use crate::time;
use crate::{output, view};
use turn::ReplyOutcome;

/// Everything a chat needs besides the session.
struct Chat<'a> {
    store: &'a Store,
    terminal: Option<Terminal>,
    agent: Option<Agent>,
    quiet: bool,
    /// Say how to configure an agent when there is none.
    hint_missing_agent: bool,
    /// A new session's title that another session holds means "use that
    /// one" (`--create-if-missing`), not "refuse".
    join_titled: bool,
    /// `-c NAME --create-if-missing`: NAME, to look up again should the
    /// session it found be deleted before the message is saved.
    rejoin_name: Option<String>,
    /// The model chosen in this chat for its session (`-m`, then `/model`;
    /// none again after `/new` or `/continue`): recorded in the session
    /// with each message, over the session's own.
    model: RefCell<Option<String>>,
    /// config.toml's settings, with what the command line said of them
    /// (and the role: `--role`, then `/role`).
    settings: RefCell<Settings>,
    /// What the command line said of the settings, without a role: what
    /// `/role` resolves them from again.
    overrides: Vec<Override>,
    /// The role of this chat (`--role`, `/role`): the sessions it makes are
    /// started with it, and record it.
    role: RefCell<Option<String>>,
    /// The system prompt a new session starts with (`-s`, `--system-file`,
    /// else `system` in config.toml, or `/system` before the first message).
    system: RefCell<Option<String>>,
    /// How replies are drawn on a terminal.
    render: view::reply::Render,
    /// At the interactive prompt: hints are slash commands.
    in_chat: bool,
    /// The times of the messages this chat saved (or joined) since its
    /// prompt last looked for another terminal's.
    saved_here: std::cell::RefCell<Vec<state::Mark>>,
    /// The most characters a turn sends (`--context`, `/context`, config.toml).
    budget: Cell<u64>,
    /// `compact = "auto"`: compact before a turn that would leave messages out.
    auto_compact: bool,
    /// Sessions this chat said are over the budget (once each).
    noted: RefCell<Vec<String>>,
    /// `--json`: a one-shot turn prints one JSON object, not the reply.
    json: bool,
    /// `--json`: what the object says, filled in once the turn is over.
    json_turn: Option<&'a RefCell<oneshot::Turn>>,
    /// Whether this chat made a session (the last one it settled on).
    created: Cell<bool>,
    /// What a new session's automatic title comes from when its first
    /// message starts with files (`-f`, `/file`): the text typed with
    /// them, else the first file's name, not the line naming the file.
    title_hint: RefCell<Option<String>>,
    /// The images (`-f`, `/file`) the next user's message names, kept in
    /// the store just before it is saved.
    images: RefCell<Option<Vec<session::Image>>>,
    /// hermes's own request, started before the session was known (see
    /// `Agent::prestart`), for the one-shot turn to take.
    early_request: Cell<Option<agent::Prestarted>>,
    /// `--json`: the reply of the turn as saved, or as it would have been
    /// when saving it failed (it is then in the object only).
    reply_for_json: RefCell<Option<Message>>,
    /// `-x`: a one-shot turn prints the reply's code blocks, not the reply.
    code: bool,
    /// `--usage`, `usage = "true"`: each reply's tokens said on stderr.
    says_usage: bool,
    /// A one-shot turn keeps nothing (`--no-save`, `save = "false"`).
    no_save: bool,
    /// `-e`: the reply's command shown, and run if the user says so.
    execute: bool,
    /// The last turn failed after its reply began: what arrived is saved
    /// after the message (which more typing can then no longer join).
    kept_incomplete: Cell<bool>,
}

/// The slash commands, for `chat --help` and the man page's check.
pub(crate) fn slash_commands() -> &'static [slash::Slash] {
    slash::COMMANDS
}

pub(crate) fn run(store: &Store, args: Args) -> Result<()> {
    if !args.json {
        return run_chat(store, args, None);
    }
    // One object on stdout, whatever comes of the turn.
    let turn = RefCell::new(oneshot::Turn::default());
    let result = run_chat(store, args, Some(&turn));
    let printed = turn.into_inner().print(&result);
    result.and(printed)
}

fn run_chat(store: &Store, args: Args, json_turn: Option<&RefCell<oneshot::Turn>>) -> Result<()> {
    let interactive = args.query.is_none() && sys::isatty(0);
    if interactive {
        one_shot_only(&args)?;
    }
    // A system prompt from a file that cannot be read, or a role that is
    // nowhere, fails before anything.
    let explicit_system = match &args.system {
        Some(System::Text(text)) => Some(system_prompt(text.clone())?),
        Some(System::File(path)) => Some(read_system_file(path)?),
        None => None,
    };
    let role = chat_role(store, &args)?;
    let files = args
        .files
        .iter()
        .map(|path| attach::read(path, "-f").map_err(in_chat))
        .collect::<Result<Vec<_>>>()?;
    let terminal = terminal::identify();
    let overrides = command_line_overrides(&args);
    let (chosen, early_request) = settings_and_agent(store, &args, &overrides, role.as_ref(), interactive);
    // Which session first: a wrong name fails before anything is written,
    // and before what is wrong with the settings is said.
    let Settled { target, chose_by, pending_title } = settle(store, &args, terminal.as_ref())?;
    let (settings, agent) = chosen?;
    // A model the server does not offer, as far as hermes knows: before
    // anything is saved.
    if let (Some(agent), Some(model)) = (&agent, &args.model)
        && let Some(e) = agent::models::unknown(store, agent, model, "-m")
    {
        return Err(in_chat(e));
    }
    // `-s` or `--role` on a session that exists: its system prompt (and
    // role) now.
    let target = match target {
        Some(h) => Some(role::apply_to_session(store, h, explicit_system.as_deref(), role.as_ref())?),
        None => None,
    };
    let chat = Chat {
        store,
        terminal,
        model: RefCell::new(args.model.clone()),
        system: RefCell::new(explicit_system.or_else(|| settings.system().map(str::to_string))),
        agent,
        render: choose_render(settings.plain()),
        in_chat: interactive,
        saved_here: Default::default(),
        budget: Cell::new(settings.budget()),
        auto_compact: settings.auto_compact(),
        no_save: !settings.saves(),
        says_usage: settings.says_usage(),
        settings: RefCell::new(settings),
        overrides,
        role: RefCell::new(role.map(|r| r.name)),
        noted: RefCell::new(Vec::new()),
        json: args.json,
        code: args.code,
        execute: args.execute,
        json_turn,
        created: Cell::new(false),
        title_hint: RefCell::new(None),
        images: RefCell::new(None),
        early_request: Cell::new(early_request),
        reply_for_json: RefCell::new(None),
        kept_incomplete: Cell::new(false),
        quiet: args.quiet,
        hint_missing_agent: args.agent == AgentChoice::Configured && !args.quiet,
        join_titled: args.create_if_missing,
        rejoin_name: match &args.target {
            Target::ContinueNamed(name) if args.create_if_missing => Some(name.clone()),
            _ => None,
        },
    };
    if interactive {
        sys::catch_interrupts();
        chat.interactive(target, chose_by, pending_title, files)
    } else {
        let text = read_message(args.query.as_ref(), &files)?;
        chat.take_files(&files, typed_text(&args))?;
        if let (Some(h), Some(reason), false) = (&target, chose_by, args.quiet) {
            say_fallback(store, chat.terminal.as_ref(), h, reason);
        }
        sys::catch_interrupts();
        chat.one_shot(target, pending_title, text)
    }
}

/// A mistake of the command line found past its parsing (a file -f cannot
/// take, a role's variable): chat's help is where to look.
fn in_chat(e: Error) -> Error {
    match e {
        Error::Usage(text) => Error::UsageIn { text, command: "chat" },
        e => e,
    }
}

/// `--role NAME`, its `{{KEY}}` filled by `--var`.
fn chat_role(store: &Store, args: &Args) -> Result<Option<agent::role::Role>> {
    match args.role.as_deref().map(|name| agent::role::find(store, name)).transpose()? {
        Some(role) => Ok(Some(role.filled(&args.vars).map_err(in_chat)?)),
        None if !args.vars.is_empty() => {
            Err(in_chat(Error::usage("--var fills a role's {{KEY}}: give the role with --role NAME")))
        }
        None => Ok(None),
    }
}

/// The options an interactive chat refuses.
fn one_shot_only(args: &Args) -> Result<()> {
    if args.no_save {
        return Err(Error::usage(
            "--no-save is for a one-shot chat: -q TEXT, TEXT..., -q - or a message on stdin; the interactive \
                chat keeps its session",
        ));
    }
    if args.execute {
        return Err(Error::usage(
            "-e is for a one-shot chat: -q TEXT, TEXT..., -q - or a message on stdin; in a chat, /copy code \
                copies a command",
        ));
    }
    if args.code {
        return Err(Error::usage(
            "-x is for a one-shot chat: -q TEXT, TEXT..., -q - or a message on stdin; in a chat, /copy code \
                copies a code block",
        ));
    }
    if args.json {
        return Err(Error::usage(
            "--json is for a one-shot chat: -q TEXT, -q - or a message on stdin; the interactive chat prints \
                no JSON",
        ));
    }
    Ok(())
}

/// The settings and the agent of this chat (their faults said only once
/// the session is settled), and hermes's own request (curl) for a message
/// the command line holds, started now: the loader's work for it overlaps
/// the lookup and the save. It is given its request only once the message
/// is saved, and is killed unheard if no turn takes it.
fn settings_and_agent(
    store: &Store,
    args: &Args,
    overrides: &[Override],
    role: Option<&agent::role::Role>,
    interactive: bool,
) -> (Result<(Settings, Option<Agent>)>, Option<agent::Prestarted>) {
    let chosen = chat_settings(store, args, overrides, role).and_then(|settings| {
        let agent = agent::choose(&settings, &args.agent)?
            .map(|agent| agent::Agent { schema: args.schema.clone(), ..agent.with_usage_dir(store.home()) });
        Ok((settings, agent))
    });
    let early_request = match (&chosen, &args.query) {
        (Ok((_, Some(agent))), Some(Query::Text(_))) if !interactive => agent.prestart(),
        _ => None,
    };
    (chosen, early_request)
}

/// The text `-q TEXT` gave, if any.
fn typed_text(args: &Args) -> &str {
    match &args.query {
        Some(Query::Text(typed)) => typed.as_str(),
        _ => "",
    }
}

/// Bare `-c` in a one-shot chat that took another session than this
/// terminal's: which, and why, on stderr (a script must not append to
/// another thread unawares).
fn say_fallback(store: &Store, terminal: Option<&Terminal>, header: &Header, reason: resolve::Reason) {
    let which = match reason {
        resolve::Reason::Breadcrumb => return,
        resolve::Reason::Workspace => "the most recent session in this workspace",
        resolve::Reason::Latest => "the most recent session of all",
    };
    let why = match terminal.and_then(|t| breadcrumb::read(store, t, time::now())) {
        Some(_) => "this terminal's session was deleted",
        None if terminal.is_some() => "this terminal has no session yet",
        None => "no terminal is known here",
    };
    output::notice(&format!(
        "-c continues '{}' ({}), {which}: {why}",
        crate::text::printable(&header.title, false),
        header.id
    ));
}

/// The session a chat starts in, as the command line names it.
struct Settled {
    /// None: a new session.
    target: Option<Header>,
    /// How bare `-c` chose it.
    chose_by: Option<resolve::Reason>,
    /// A new session's title (`--title`, `-c NAME --create-if-missing`).
    pending_title: Option<String>,
}

/// Which session `args` name: a wrong name fails before anything is read
/// or written.
fn settle(store: &Store, args: &Args, terminal: Option<&Terminal>) -> Result<Settled> {
    let mut pending_title = match &args.title {
        Some(raw) => Some(titles::user_title(store, raw)?),
        None => None,
    };
    let mut chose_by = None;
    let target = match &args.target {
        Target::New => None,
        Target::ContinueHere => match resolve::resolve_continue(store, terminal, time::now())? {
            Some((header, reason)) => {
                chose_by = Some(reason);
                Some(header)
            }
            None => return Err(Error::NothingToContinue),
        },
        Target::Resume(id) => Some(resolve::find_by_id(store, id)?),
        Target::Pick => Some(pick_session(store)?),
        Target::ContinueNamed(name) if args.create_if_missing => match resolve::lookup_title(store, name)? {
            Lookup::Found(header) => Some(*header),
            Lookup::Missing { .. } => {
                pending_title = Some(titles::user_title(store, name)?);
                None
            }
        },
        Target::ContinueNamed(name) => match resolve::lookup(store, name)? {
            Lookup::Found(header) => Some(*header),
            Lookup::Missing { did_you_mean } => {
                return Err(Error::NotFound { name: name.clone(), did_you_mean });
            }
        },
    };
    Ok(Settled { target, chose_by, pending_title })
}

/// What this chat's command line says of the settings (`--agent`,
/// `--plain`, `--context`).
fn command_line_overrides(args: &Args) -> Vec<Override> {
    let mut overrides: Vec<Override> = agent::choice_override(&args.agent).into_iter().collect();
    let option = |given: &str| Origin::CommandLine(given.to_string());
    if args.plain {
        overrides.push((Key::Render, settings::PLAIN.to_string(), option("--plain")));
    }
    if let Some(budget) = &args.context {
        overrides.push((Key::Context, budget.clone(), option("--context")));
    }
    if args.usage {
        overrides.push((Key::Usage, "true".to_string(), option("--usage")));
    }
    if args.no_save {
        overrides.push((Key::Save, "false".to_string(), option("--no-save")));
    }
    if let Some(seconds) = &args.timeout {
        overrides.push((Key::Timeout, seconds.clone(), option("--timeout")));
    }
    // Every model option is a key (settings' tests see to it).
    for (name, value) in &args.options {
        if let Some(key) = Key::parse(name) {
            overrides.push((key, value.clone(), option(&format!("-o {name}"))));
        }
    }
    overrides
}

/// config.toml's settings with what this chat's command line says of
/// them, and then its role's (`--role`): an option given wins over the
/// role's value.
fn chat_settings(
    store: &Store,
    args: &Args,
    given: &[Override],
    role: Option<&agent::role::Role>,
) -> Result<Settings> {
    let mut overrides = given.to_vec();
    if let Some(role) = role {
        overrides.extend(role.overrides(&format!("--role {}", role.name)));
    }
    match agent::resolve_settings(store, overrides.clone()) {
        Ok(settings) => Ok(settings),
        // Notes are kept even while config.toml is being mended.
        Err(_) if args.agent == AgentChoice::Disabled => {
            Ok(Settings::resolve(&settings::Sources { overrides, ..Default::default() }))
        }
        Err(e) => Err(e),
    }
}

/// `chat --pick`: the session chosen on the picker; leaving it chooses
/// none, and says nothing.
fn pick_session(store: &Store) -> Result<Header> {
    let tty = view::pick::open_terminal().map_err(|view::pick::NoTerminal| {
        Error::usage(
            "chat --pick needs a terminal; without one, continue a session with 'hermes chat -r ID' (IDs \
                from 'hermes sessions list')",
        )
    })?;
    match view::pick::pick(store, tty)? {
        Some(id) => resolve::find_by_id(store, &id),
        None => Err(Error::Silent(crate::error::EXIT_NOT_FOUND)),
    }
}

/// Markdown drawn on a terminal, unless plain text is asked for (`--plain`,
/// `render = "plain"`, TERM=dumb); a pipe gets the bytes anyway.
fn choose_render(plain: bool) -> view::reply::Render {
    if plain { view::reply::Render::Plain } else { view::reply::Render::Markdown }
}

/// A system prompt as given: trimmed of trailing newlines, not blank, not
/// larger than a message.
pub(super) fn system_prompt(text: String) -> Result<String> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "the system prompt is larger than {} MiB",
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    let text = text.trim_end_matches(['\n', '\r']).to_string();
    if text.trim().is_empty() {
        return Err(Error::usage("an empty system prompt"));
    }
    Ok(text)
}

/// `--system-file FILE` (`-` for stdin).
fn read_system_file(path: &std::ffi::OsStr) -> Result<String> {
    if path == "-" {
        return system_prompt(read_stdin()?);
    }
    let shown = std::path::Path::new(path).display().to_string();
    let bytes =
        crate::fsio::read_limited(std::path::Path::new(path), MAX_MESSAGE_BYTES as u64 + 1).map_err(|e| {
            Error::usage(format!("--system-file: cannot read {shown}: {}", crate::error::describe_io(&e)))
        })?;
    system_prompt(utf8(bytes, &format!("--system-file {shown}"))?)
}

/// Make `text` the session's system prompt: its first message when that
/// is a system message, else a system message put first.
pub(super) fn set_system(store: &Store, id: &str, text: &str) -> Result<Header> {
    store.edit_messages(id, |messages| match messages.first_mut() {
        Some(first) if first.role == "system" => {
            let changed = first.content != text;
            first.content = text.to_string();
            changed
        }
        _ => {
            let ts = messages.first().map_or_else(time::now, |m| m.ts);
            messages.insert(0, Message::new("system", text.to_string(), ts));
            true
        }
    })
}

/// The one-shot message: `-q TEXT`, or all of stdin (`-q -`, or a pipe).
/// With `-q TEXT` and stdin a pipe or a file, both are kept in one
/// message: what came on stdin, a blank line, then TEXT (`cat log |
/// hermes chat -q "why does this fail?"`).
fn read_message(query: Option<&Query>, files: &[attach::Attached]) -> Result<String> {
    let (before, after) = match query {
        Some(Query::Text(t)) if stdin_is_piped() => (read_stdin()?, t.as_str()),
        Some(Query::Text(t)) => (String::new(), t.as_str()),
        Some(Query::Stdin) | None => (read_stdin()?, ""),
    };
    if before.len() > MAX_MESSAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "the message is larger than {} MiB; nothing was saved",
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    // With -f FILE: what came on stdin, the files, then TEXT.
    let text = attach::compose(&before, files, after)?;
    let text = text.trim_end_matches(['\n', '\r']).to_string();
    check_not_blank(&text)?;
    Ok(text)
}

/// Whether stdin is a pipe or a regular file: something was given to read
/// (a terminal, /dev/null or a closed stdin is not).
fn stdin_is_piped() -> bool {
    matches!(sys::fstat_device(0), Some((sys::FileKind::Fifo | sys::FileKind::Regular, _)))
}

fn read_stdin() -> Result<String> {
    let mut buf = Vec::new();
    io::stdin().lock().take(MAX_MESSAGE_BYTES as u64 + 1).read_to_end(&mut buf).map_err(|e| {
        Error::Usage(format!("cannot read the message from stdin: {}", crate::error::describe_io(&e)))
    })?;
    utf8(buf, "stdin")
}

/// A message must show something: blank or only invisible characters
/// (zero-width spaces, bidi marks, escapes) is no message.
fn check_not_blank(text: &str) -> Result<()> {
    if text.trim().is_empty() {
        Err(Error::usage("empty message; nothing to send"))
    } else if !session::has_visible(text) {
        Err(Error::usage("the message holds only invisible characters; nothing to send"))
    } else {
        Ok(())
    }
}

impl Chat<'_> {
    /// Save the user's message: appended to the target session, or as the
    /// first message of a new one (titled, for `--create-if-missing`).
    /// Appended, `renamed` runs once it is in the file, and the catalog's
    /// bookkeeping is left to the caller (see `Store::append_then`).
    fn save_user_message(
        &self,
        target: Option<&Header>,
        title: Option<&str>,
        message: Message,
        renamed: impl FnOnce(),
    ) -> Result<(Header, Option<CatalogUpdate<'_>>)> {
        let message = Message { images: self.images.borrow_mut().take(), ..message };
        match target {
            Some(h) => match self.store.append_then(
                &h.id,
                std::slice::from_ref(&message),
                |h| self.note_model_unanswered(h),
                renamed,
            ) {
                Ok((header, later)) => Ok((header, Some(later))),
                // Deleted since the lookup (a daily prune meeting a cron
                // post): "send to this named thread, make it if needed" is
                // asked again, under the store lock, so the message is kept.
                Err(_) if self.rejoin_name.is_some() && matches!(self.store.header(&h.id), Ok(None)) => {
                    let name = self.rejoin_name.as_deref().unwrap_or_default();
                    Ok((self.create_session(Some(&titles::user_title(self.store, name)?), &[message])?, None))
                }
                Err(e) => Err(e),
            },
            None => Ok((self.create_session(title, &[message])?, None)),
        }
    }

    /// Create a session under the store lock. With a title that some session
    /// took meanwhile (parallel `--create-if-missing`), use that one instead:
    /// exactly one session per name, whoever wins the race.
    fn create_session(&self, title: Option<&str>, messages: &[Message]) -> Result<Header> {
        let store = self.store;
        let guard = store.lock_store()?;
        if let Some(title) = title
            && let Some(existing) = titles::holder(store, title, None)?
        {
            if !self.join_titled {
                return Err(title_taken(title, &existing.id, self.in_chat));
            }
            // Joined only when it is the one session of that title: with
            // two, appending to either would be a guess (and a third is
            // never made).
            let existing = match resolve::lookup_title(store, title)? {
                Lookup::Found(one) => *one,
                Lookup::Missing { .. } => existing,
            };
            // Still under the store lock, which a delete takes too: the
            // session cannot vanish between finding it and appending.
            let saved = store.append(&existing.id, messages, |h| self.note_model_unanswered(h));
            drop(guard);
            return saved;
        }
        let (mut header, all) = self.session_to_be(title, messages);
        if !header.has_user_title() && !header.title.is_empty() {
            header.title = titles::unique_auto_title(store, &header.title)?;
        }
        store.create(&header, &all)?;
        // The system prompt is this chat's own: never news from elsewhere.
        if let Some(system) = all.first().filter(|m| m.role == "system") {
            self.saved_here.borrow_mut().push(state::Mark::of(system));
        }
        self.created.set(true);
        Ok(header)
    }

    /// A new session's header and messages, as `create_session` would
    /// write them (its automatic title not yet made unique).
    fn session_to_be(&self, title: Option<&str>, messages: &[Message]) -> (Header, Vec<Message>) {
        let created = time::now();
        let mut header = Header::new(self.store.new_id(created), resolve::cwd_string(), created);
        if let Some(title) = title {
            header.title = title.to_string();
            header.title_source = TITLE_USER.to_string();
        }
        header.role = self.role.borrow().clone();
        if title.is_none()
            && let Some(hint) = self.title_hint.borrow().as_deref().and_then(session::clean_title)
        {
            header.title = hint;
            header.title_source = crate::store::session::TITLE_AUTO.to_string();
        }
        for m in messages {
            header.note_message(m);
        }
        self.note_model_unanswered(&mut header);
        // The system prompt goes first, noted last: the first user message
        // still titles the session.
        // Dated no later than the message it comes before (made before
        // the session was), so that the file's times run in order.
        let first = messages.first().map_or(created, |m| m.ts.min(created));
        let system = self.system.borrow().clone().map(|text| Message::new("system", text, first));
        if let Some(system) = &system {
            header.note_message(system);
        }
        let all: Vec<Message> = system.into_iter().chain(messages.iter().cloned()).collect();
        (header, all)
    }

    /// Whether the session's file is no larger than the budget in bytes:
    /// then every message is sent (a character is at least one byte of
    /// its JSON string), and a turn never compacts.
    fn fits_whole(&self, id: &str) -> bool {
        let size = self.store.session_path(id).and_then(|path| std::fs::metadata(path).ok());
        size.is_some_and(|m| m.len() <= self.budget.get())
    }

    /// Record the model a message with no reply yet goes with: with no
    /// agent, the one chosen (a thread of notes); with one, none yet: a
    /// model is the session's only once a reply came with it (see
    /// `save_reply`), so that a model that failed does not stay.
    fn note_model_unanswered(&self, header: &mut Header) {
        if self.agent.is_none() {
            self.note_model(header);
        }
    }

    /// Record the model the next reply uses in the session's header (see
    /// `model_for`).
    fn note_model(&self, header: &mut Header) {
        if let Some((model, _)) = self.model_for(Some(header)) {
            header.model = Some(model);
        }
        let options = self.settings.borrow().model_options(header.options.as_ref());
        header.options = Some(options).filter(|o| !o.is_empty());
    }

    /// The model the next reply in `header`'s session uses, and why: the
    /// one chosen in this chat, else the session's own, else config.toml's
    /// or the environment's (with an agent only: a thread of notes records
    /// none).
    fn model_for(&self, header: Option<&Header>) -> Option<(String, Origin)> {
        let chosen = self.model.borrow().clone().map(|m| (m, Origin::ThisChat));
        let settings = self.settings.borrow();
        let default = self.agent.as_ref().and(settings.get(Key::Model));
        let default = default.map(|(m, origin)| (m.to_string(), origin.clone()));
        // The role's model (the settings' only override of it) is chosen for
        // a new session and one of the chat's role, over its own.
        let of_role = header.is_none_or(|h| h.role.is_some() && h.role == *self.role.borrow());
        let role = default.clone().filter(|(_, origin)| of_role && matches!(origin, Origin::Role(_)));
        chosen.or(role).or_else(|| header?.model.clone().map(|m| (m, Origin::Session))).or(default)
    }

    fn point_breadcrumb(&self, header: &Header) {
        if let Some(t) = &self.terminal {
            breadcrumb::write(self.store, t, &header.id, &resolve::cwd_string(), time::now());
            // Said over the budget before the breadcrumb pointed here (a
            // one-shot turn points it once the agent is at work): remember
            // it was said, so the next turn does not say it again.
            if self.noted.borrow().contains(&header.id) {
                breadcrumb::note_once(self.store, t, &header.id);
            }
        }
    }
}

/// A title another session holds; `in_chat`: said at the interactive
/// prompt, where the way on is a slash command, not a command line.
fn title_taken(title: &str, holder: &str, in_chat: bool) -> Error {
    if in_chat {
        return Error::Refused(format!(
            "the title '{title}' is already used by session {holder}; choose another, or continue it with \
                /continue {title}"
        ));
    }
    Error::Refused(format!(
        "the title '{title}' is already used by session {holder}; choose another, or continue it with \
            'hermes chat -c \"{title}\"'"
    ))
}
