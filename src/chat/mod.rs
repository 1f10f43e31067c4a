//! `hermes chat`: settle on a session, then talk in it, one-shot or
//! interactively. The user's message is saved before the agent runs and the
//! reply after it finishes, so nothing typed is ever lost.

pub mod agent;
pub mod args;
pub mod compact;

use std::cell::{Cell, RefCell};
use std::io::{self, Read, Write};

use crate::chat::agent::Agent;
use crate::chat::args::{AgentChoice, Args, Query, Target};
use crate::config::{self, AgentInput};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::store::context::{self, Plan};
use crate::store::session::{self, Header, MAX_MESSAGE_BYTES, Message, Session, TITLE_USER};
use crate::store::titles;
use crate::sys;
use crate::terminal::breadcrumb;
use crate::terminal::compose;
use crate::terminal::prompt::{self, LineReader};
use crate::terminal::resolve::{self, Lookup, Reason};
use crate::terminal::{self, Terminal};
use crate::time;
use crate::{output, view};

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
    /// The most characters a turn sends (`--context`, `/context`, config.toml).
    budget: Cell<u64>,
    /// `compact = "auto"`: compact before a turn that would leave messages out.
    auto_compact: bool,
    /// Sessions this chat said are over the budget (once each).
    noted: RefCell<Vec<String>>,
}

pub fn run(store: &Store, args: Args) -> Result<()> {
    let interactive = args.query.is_none() && sys::isatty(0);
    let terminal = terminal::identify();
    // Which session first: a wrong name fails before anything is read or written.
    let mut pending_title = match &args.title {
        Some(raw) => Some(titles::user_title(raw)?),
        None => None,
    };
    let mut chose_by = None;
    let target = match &args.target {
        Target::New => None,
        Target::ContinueHere => match resolve::resolve_continue(store, terminal.as_ref(), time::now())? {
            Some((header, reason)) => {
                chose_by = Some(reason);
                Some(header)
            }
            None => return Err(Error::NothingToContinue),
        },
        Target::Resume(id) => Some(resolve::find_by_id(store, id)?),
        Target::Pick => {
            let tty = view::pick::open_terminal().map_err(|view::pick::NoTerminal| {
                Error::usage(
                    "chat --pick needs a terminal; without one, continue a session with 'hermes chat -r ID' (IDs from 'hermes sessions list')",
                )
            })?;
            match view::pick::pick(store, tty)? {
                Some(id) => Some(resolve::find_by_id(store, &id)?),
                None => return Err(Error::Silent(crate::error::EXIT_NOT_FOUND)),
            }
        }
        Target::ContinueNamed(name) => match resolve::lookup(store, name)? {
            Lookup::Found(header) => Some(header),
            Lookup::Missing { .. } if args.create_if_missing => {
                pending_title = Some(titles::user_title(name)?);
                None
            }
            Lookup::Missing { did_you_mean } => {
                return Err(Error::NotFound { name: name.clone(), did_you_mean });
            }
        },
    };
    let agent = choose_agent(store, &args.agent)?;
    let config = if agent.is_some() { config::load(store)? } else { config::Config::default() };
    let chat = Chat {
        store,
        terminal,
        agent,
        budget: Cell::new(args.context.unwrap_or(config.budget())),
        auto_compact: config.compact == Some(config::Compact::Auto),
        noted: RefCell::new(Vec::new()),
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
        chat.interactive(target, chose_by, pending_title)
    } else {
        let text = read_message(args.query.as_ref())?;
        sys::catch_interrupts();
        chat.one_shot(target, pending_title, text)
    }
}

/// `--agent`, else `HERMES_AGENT`, else `agent` in config.toml.
fn choose_agent(store: &Store, choice: &AgentChoice) -> Result<Option<Agent>> {
    if *choice == AgentChoice::Disabled {
        return Ok(None);
    }
    let config = config::load(store)?;
    let command = match choice {
        AgentChoice::Command(c) => Some(c.clone()),
        _ => std::env::var("HERMES_AGENT").ok().filter(|c| !c.trim().is_empty()).or(config.agent),
    };
    Ok(command.map(|command| Agent {
        command,
        input: config.agent_input.unwrap_or(AgentInput::Json),
        // config.toml's model, else a HERMES_MODEL of our own environment:
        // either way the request body carries it, finished.
        model: config.model.or_else(|| std::env::var("HERMES_MODEL").ok().filter(|m| !m.is_empty())),
    }))
}

/// The one-shot message: `-q TEXT`, or all of stdin (`-q -`, or a pipe).
/// With `-q TEXT` and stdin a pipe or a file, both are kept in one
/// message: what came on stdin, a blank line, then TEXT (`cat log |
/// hermes chat -q "why does this fail?"`).
fn read_message(query: Option<&Query>) -> Result<String> {
    let text = match query {
        Some(Query::Text(t)) if stdin_is_piped() => {
            let piped = read_stdin()?;
            let piped = piped.trim_end_matches(['\n', '\r']);
            if piped.trim().is_empty() { t.clone() } else { format!("{piped}\n\n{t}") }
        }
        Some(Query::Text(t)) => t.clone(),
        Some(Query::Stdin) | None => read_stdin()?,
    };
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(Error::TooLarge(format!(
            "the message is larger than {} MiB; nothing was saved",
            MAX_MESSAGE_BYTES >> 20
        )));
    }
    let text = text.trim_end_matches(['\n', '\r']).to_string();
    check_not_blank(&text)?;
    Ok(text)
}

/// Whether stdin is a pipe or a regular file: something was given to read
/// (a terminal, /dev/null or a closed stdin is not).
fn stdin_is_piped() -> bool {
    matches!(sys::fstat_device(0), Some((mode, _)) if mode & libc::S_IFMT == libc::S_IFIFO || mode & libc::S_IFMT == libc::S_IFREG)
}

fn read_stdin() -> Result<String> {
    let mut buf = Vec::new();
    io::stdin().lock().take(MAX_MESSAGE_BYTES as u64 + 1).read_to_end(&mut buf).map_err(|e| {
        Error::Usage(format!("cannot read the message from stdin: {}", crate::error::describe_io(&e)))
    })?;
    Ok(String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
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
    fn one_shot(&self, target: Option<Header>, title: Option<String>, text: String) -> Result<()> {
        let message = Message::new("user", text, time::now());
        let header = self.save_user_message(target.as_ref(), title.as_deref(), message)?;
        self.point_breadcrumb(&header);
        let result = self.reply(&header, &mut io::stdout().lock());
        if !self.quiet {
            crate::note!("session_id: {}", header.id);
        }
        match result? {
            ReplyOutcome::Interrupted => Err(Error::Interrupted),
            _ => Ok(()),
        }
    }

    /// Save the user's message: appended to the target session, or as the
    /// first message of a new one (titled, for `--create-if-missing`).
    fn save_user_message(
        &self,
        target: Option<&Header>,
        title: Option<&str>,
        message: Message,
    ) -> Result<Header> {
        match target {
            Some(h) => match self.store.append(&h.id, std::slice::from_ref(&message), |_| {}) {
                // Deleted since the lookup (a daily prune meeting a cron
                // post): "send to this named thread, make it if needed" is
                // asked again, under the store lock, so the message is kept.
                Err(_) if self.rejoin_name.is_some() && matches!(self.store.header(&h.id), Ok(None)) => {
                    let name = self.rejoin_name.as_deref().unwrap_or_default();
                    self.create_session(Some(&titles::user_title(name)?), &[message])
                }
                saved => saved,
            },
            None => self.create_session(title, &[message]),
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
                return Err(title_taken(title, &existing.id));
            }
            // Joined only when it is the one session of that title: with
            // two, appending to either would be a guess (and a third is
            // never made).
            let existing = match resolve::lookup(store, title)? {
                Lookup::Found(one) => one,
                Lookup::Missing { .. } => existing,
            };
            // Still under the store lock, which a delete takes too: the
            // session cannot vanish between finding it and appending.
            let saved = store.append(&existing.id, messages, |_| {});
            drop(guard);
            return saved;
        }
        let created = time::now();
        let mut header = Header::new(store.new_id(created), resolve::cwd_string(), created);
        if let Some(title) = title {
            header.title = title.to_string();
            header.title_source = TITLE_USER.to_string();
        }
        for m in messages {
            header.note_message(m);
        }
        if !header.has_user_title() && !header.title.is_empty() {
            header.title = titles::unique_auto_title(store, &header.title)?;
        }
        store.create(&header, messages)?;
        Ok(header)
    }

    fn point_breadcrumb(&self, header: &Header) {
        if let Some(t) = &self.terminal {
            breadcrumb::write(self.store, t, &header.id, &resolve::cwd_string(), time::now());
        }
    }

    /// Run the agent on the session and save its reply.
    fn reply(&self, header: &Header, out: &mut dyn Write) -> Result<ReplyOutcome> {
        let Some(agent) = &self.agent else {
            if self.hint_missing_agent {
                output::notice(
                    "no agent configured; message saved. Set HERMES_AGENT or 'agent' in config.toml (see 'man hermes')",
                );
                if let Some(other) = config::foreign_config(self.store) {
                    output::notice(&format!(
                        "{} is not read: it is another program's (the Python Hermes keeps its settings there); hermes reads config.toml",
                        other.display()
                    ));
                }
            }
            return Ok(ReplyOutcome::NoAgent);
        };
        // The conversation goes to the agent straight from the file, a
        // message at a time, as much of it as the budget takes.
        let budget = self.budget.get();
        let vanished = || Error::Vanished { id: header.id.clone() };
        let (mut conversation, mut plan) = self.store.open_planned(&header.id, budget)?.ok_or_else(vanished)?;
        if plan.leaves_out() && self.auto_compact {
            drop(conversation);
            match compact::compact(self.store, agent, header, budget, None) {
                Ok(outcome) => {
                    if sys::isatty(2) {
                        output::notice(&outcome.describe());
                    }
                }
                Err(Error::Interrupted) => return Ok(ReplyOutcome::Interrupted),
                Err(e) => output::warn(&format!(
                    "automatic compaction failed: {}; this turn sends what fits in the budget",
                    e.to_string().trim_end().trim_start_matches("hermes: ")
                )),
            }
            (conversation, plan) = self.store.open_planned(&header.id, budget)?.ok_or_else(vanished)?;
        }
        self.say_left_out(header, &plan);
        let current = conversation.header().clone();
        let reply = if sys::isatty(1) {
            let mut shown =
                OnTerminal { out, filter: crate::text::TerminalFilter::new(crate::text::colors_allowed()) };
            let reply = agent.reply(&current, conversation, plan, &mut shown);
            let rest = shown.filter.finish();
            let _ = shown.out.write_all(rest.as_bytes()).and_then(|()| shown.out.flush());
            reply?
        } else {
            agent.reply(&current, conversation, plan, out)?
        };
        if !reply.text.is_empty() {
            let message = Message {
                interrupted: reply.interrupted.then_some(true),
                ..Message::new("assistant", reply.text, time::now())
            };
            match self.store.append(&header.id, &[message], |_| {}) {
                Ok(_) => {}
                // Shown, but the session has no room for it.
                Err(Error::TooLarge(_)) => {
                    return Err(Error::ReplyNotSaved {
                        id: header.id.clone(),
                        max_bytes: crate::store::MAX_SESSION_BYTES,
                    });
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = reply.output_error {
            return Err(Error::ReplyNotShown { id: header.id.clone(), source: e });
        }
        Ok(if reply.interrupted { ReplyOutcome::Interrupted } else { ReplyOutcome::Replied })
    }

    /// Say what a turn leaves out: a message larger than the budget on
    /// its own, always; older messages beyond the budget, on a terminal,
    /// once per session (the breadcrumb remembers it across one-shot runs).
    fn say_left_out(&self, header: &Header, plan: &Plan) {
        if plan.newest_over {
            output::warn(&format!(
                "the message is larger than the context budget ({}) on its own; it is sent whole, and the agent may refuse it",
                context::describe(plan.budget)
            ));
        }
        if !plan.leaves_out() || !sys::isatty(2) || self.noted.borrow().contains(&header.id) {
            return;
        }
        self.noted.borrow_mut().push(header.id.clone());
        if self.terminal.as_ref().is_some_and(|t| !breadcrumb::note_once(self.store, t, &header.id)) {
            return;
        }
        output::notice(&format!(
            "this session is larger than the context budget ({}): {} older messages ({} characters) are not sent. /compact or 'hermes sessions compact {}' summarises them; see CONTEXT in 'man hermes'",
            context::describe(plan.budget),
            plan.left_out,
            context::thousands(plan.left_out_chars),
            header.id
        ));
    }

    fn interactive(
        &self,
        target: Option<Header>,
        chose_by: Option<Reason>,
        title: Option<String>,
    ) -> Result<()> {
        let mut state = Interactive {
            current: target,
            pending_title: title,
            history: Vec::new(),
            unanswered: false,
            lines: LineReader::for_chat(),
        };
        match &state.current {
            Some(h) => {
                self.point_breadcrumb(h);
                state.history = self.show_resume(h, chose_by)?;
            }
            None if state.pending_title.is_some() => {
                // --create-if-missing in a terminal: the named session exists
                // from now on, even before the first message.
                let header = self.create_session(state.pending_title.as_deref(), &[])?;
                self.point_breadcrumb(&header);
                crate::say!("New session '{}' ({}).", header.title, header.id);
                state.current = Some(header);
            }
            None => crate::say!("New session. Type a message, /help for commands, Ctrl-D to quit."),
        }
        loop {
            // A Ctrl-C that came after the last reply (while it was saved)
            // is spent; a SIGTERM or SIGHUP (the terminal closed) still ends.
            if sys::take_signal().is_some_and(|signal| signal != sys::SIGINT) {
                return Err(Error::Interrupted);
            }
            let prompt = prompt_for(&state);
            let line = match state.lines.read(&prompt, &state.history) {
                Err(e @ Error::TooLarge(_)) => {
                    go_on_after(e)?;
                    continue;
                }
                Err(e) => return Err(e),
                Ok(prompt::Line::Text(l)) => l,
                Ok(prompt::Line::Cancelled) => {
                    crate::say!();
                    continue;
                }
                Ok(prompt::Line::End) => {
                    crate::say!();
                    return Ok(());
                }
            };
            let text = message_text(&line);
            if text.is_empty() {
                continue;
            }
            if let Err(e) = check_not_blank(&text) {
                note_in_chat(&e);
                continue;
            }
            let next = match text.strip_prefix('/') {
                // A slash command is one line; a longer text that starts
                // with a slash (a pasted path, say) is a message.
                Some(command) if !command.contains('\n') => match self.slash_command(&mut state, command) {
                    Ok(next) => next,
                    // A refused title, a file /save cannot write, a lock
                    // another hermes holds: say so and go on.
                    Err(e) => {
                        go_on_after(e)?;
                        continue;
                    }
                },
                _ => Next::Send(text),
            };
            let result = match next {
                Next::Prompt => Ok(()),
                Next::Quit => return Ok(()),
                Next::Send(text) => self.send(&mut state, text),
                Next::Retry => self.retry(&mut state),
            };
            if let Err(e) = result {
                go_on_after(e)?;
            }
        }
    }

    /// Save what was typed and ask the agent. After a failed send, the
    /// next message joins the unanswered one (the same text typed again is
    /// not repeated), so failures do not pile up as separate messages.
    fn send(&self, state: &mut Interactive, text: String) -> Result<()> {
        let joined = match &state.current {
            Some(h) if state.unanswered => self.join_unanswered(h, &text)?,
            _ => None,
        };
        let header = match joined {
            Some(header) => header,
            None => {
                let message = Message::new("user", text.clone(), time::now());
                match self.save_user_message(state.current.as_ref(), state.pending_title.as_deref(), message)
                {
                    Ok(header) => header,
                    // The prompt stays: the message can be sent again, or
                    // taken to a /new session.
                    Err(e) => {
                        go_on_after(e)?;
                        crate::note!("[the message was not saved]");
                        return Ok(());
                    }
                }
            }
        };
        if state.current.is_none() {
            self.point_breadcrumb(&header);
        }
        if state.history.last() != Some(&text) {
            state.history.push(text);
        }
        state.pending_title = None;
        state.current = Some(header.clone());
        self.answer(state, &header)
    }

    /// The unanswered last message with `text` joined to it; None if the
    /// last message is not an unanswered one of the user's after all.
    fn join_unanswered(&self, header: &Header, text: &str) -> Result<Option<Header>> {
        let mut joined = false;
        let header = self.store.edit_messages(&header.id, |messages| match messages.last_mut() {
            Some(last) if last.role == "user" => {
                joined = true;
                if last.content == text {
                    return false;
                }
                last.content = format!("{}\n\n{text}", last.content);
                last.ts = time::now();
                true
            }
            _ => false,
        })?;
        Ok(joined.then_some(header))
    }

    /// Run the agent on the session as it stands and say how it went.
    fn answer(&self, state: &mut Interactive, header: &Header) -> Result<()> {
        state.unanswered = false;
        match state.lines.cooked(|| self.reply(header, &mut io::stdout().lock())) {
            Ok(ReplyOutcome::Interrupted) => {
                crate::note!("\n[reply interrupted; the conversation is kept; /retry asks again]");
                Ok(())
            }
            Ok(_) => Ok(()),
            // A failing agent, a reply that could not be saved or shown:
            // the chat goes on (the message itself is saved).
            Err(e) => {
                state.unanswered = matches!(e, Error::Agent(_));
                if state.unanswered {
                    note_in_chat(&e);
                    crate::note!("[the message is kept; /retry sends it again, or type more to add to it]");
                    Ok(())
                } else {
                    Err(e)
                }
            }
        }
    }

    /// `/retry`: ask the agent again about the last user message, when it
    /// has no reply or its reply was interrupted (that reply is dropped).
    fn retry(&self, state: &mut Interactive) -> Result<()> {
        let Some(h) = &state.current else {
            crate::say!("Nothing to retry yet.");
            return Ok(());
        };
        let mut retried = false;
        let header = self.store.edit_messages(&h.id, |messages| {
            let interrupted = messages.last().is_some_and(Message::is_interrupted);
            let question = messages.len().checked_sub(if interrupted { 2 } else { 1 });
            retried = question.is_some_and(|at| messages[at].role == "user");
            if retried && interrupted {
                messages.pop();
            }
            retried && interrupted
        })?;
        state.current = Some(header.clone());
        if !retried {
            crate::say!("Nothing to retry: the last message has its reply. Type a new one.");
            return Ok(());
        }
        self.answer(state, &header)
    }

    /// Show which session this is and how it was chosen, then its last
    /// few messages (from a question, not from the middle of an exchange).
    /// Returns its user messages, oldest first: the prompt's history.
    fn show_resume(&self, header: &Header, chose_by: Option<Reason>) -> Result<Vec<String>> {
        let session =
            self.store.load(&header.id)?.unwrap_or(Session { header: header.clone(), messages: vec![] });
        let h = &session.header;
        let why = match chose_by {
            Some(Reason::Breadcrumb) => ": this terminal's session",
            Some(Reason::Workspace) => ": the most recent in this workspace (none yet in this terminal)",
            Some(Reason::Latest) => ": the most recent of all (none in this terminal or workspace)",
            None => "",
        };
        crate::say!(
            "Resuming '{}' ({}), {}{why}.",
            crate::text::printable(&h.title, false),
            h.id,
            crate::text::counted(h.message_count as usize, "message")
        );
        let mut skip = session.messages.len().saturating_sub(RESUME_SHOWN);
        if skip > 0 && session.messages[skip].role != "user" && session.messages[skip - 1].role == "user" {
            skip -= 1;
        }
        if skip > 0 {
            crate::say!(
                "({} not shown: hermes sessions show {})",
                crate::text::counted(skip, "earlier message"),
                h.id
            );
        }
        for m in &session.messages[skip..] {
            crate::say!("{}", view::render_message(m, 400));
        }
        Ok(user_messages(&session))
    }

    /// The title for a session `/new` or `/title` is about to start. One held
    /// by another session is refused here, as `/title` refuses it for an
    /// existing session: otherwise the first message would silently join
    /// that session instead of starting a new one.
    fn title_for_new_session(&self, raw: &str) -> Result<String> {
        let title = titles::user_title(raw)?;
        if let Some(other) = titles::holder(self.store, &title, None)? {
            return Err(title_taken(&title, &other.id));
        }
        Ok(title)
    }

    /// Carry out a slash command, and say what comes next.
    fn slash_command(&self, state: &mut Interactive, command: &str) -> Result<Next> {
        let (name, rest) = match command.split_once(char::is_whitespace) {
            Some((n, r)) => (n, r.trim()),
            None => (command, ""),
        };
        match name {
            "help" | "?" => crate::say!("{}", SLASH_HELP.trim_end()),
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "retry" => return Ok(Next::Retry),
            "edit" => {
                let text = state.lines.cooked(|| compose::in_editor(rest))?;
                let text = message_text(&text);
                if text.is_empty() || check_not_blank(&text).is_err() {
                    crate::say!("Nothing sent: the editor left the message empty.");
                    return Ok(Next::Prompt);
                }
                return Ok(Next::Send(text));
            }
            "continue" | "c" => {
                if rest.is_empty() {
                    return Err(Error::usage("name the session to continue: /continue NAME"));
                }
                let header = match resolve::lookup(self.store, rest)? {
                    Lookup::Found(header) => header,
                    Lookup::Missing { did_you_mean } => {
                        return Err(Error::NotFound { name: rest.to_string(), did_you_mean });
                    }
                };
                self.point_breadcrumb(&header);
                state.history = self.show_resume(&header, None)?;
                state.current = Some(header);
                state.pending_title = None;
                state.unanswered = false;
            }
            "id" => match &state.current {
                Some(h) => crate::say!("{}", h.id),
                None => crate::say!("(new session: saved with its first message)"),
            },
            "title" => match (&state.current, rest) {
                (Some(h), "") if h.title.is_empty() => crate::say!("(untitled)"),
                (Some(h), "") => crate::say!("{}", crate::text::printable(&h.title, false)),
                (None, "") => {
                    crate::say!("{}", state.pending_title.as_deref().unwrap_or("(untitled)"))
                }
                (Some(h), new) => {
                    let header = titles::rename(self.store, &h.id, new)?;
                    crate::say!(
                        "renamed {} to '{}'",
                        header.id,
                        crate::text::printable(&header.title, false)
                    );
                    state.current = Some(header);
                }
                (None, new) => {
                    state.pending_title = Some(self.title_for_new_session(new)?);
                    crate::say!(
                        "The new session will be titled '{}'.",
                        state.pending_title.as_deref().unwrap_or("")
                    );
                }
            },
            "new" => {
                // Check the title before leaving the current session: a
                // refused `/new TITLE` changes nothing.
                state.pending_title =
                    if rest.is_empty() { None } else { Some(self.title_for_new_session(rest)?) };
                state.current = None;
                state.history.clear();
                state.unanswered = false;
                crate::say!("New session. It is saved with its first message.");
            }
            "save" => {
                let Some(h) = &state.current else {
                    crate::say!("Nothing to save yet.");
                    return Ok(Next::Prompt);
                };
                let session = self.store.load(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
                let file = if rest.is_empty() { format!("hermes-{}.md", h.id) } else { home_relative(rest) };
                output::write_file(std::path::Path::new(&file), view::markdown(&[session]).as_bytes())?;
                crate::say!("Saved to {file}.");
            }
            "sessions" => view::list::print_recent(self.store, self.terminal.as_ref(), 10)?,
            "context" => {
                if !rest.is_empty() {
                    self.budget.set(compact::budget_arg(rest)?);
                    self.noted.borrow_mut().clear();
                }
                let budget = self.budget.get();
                match &state.current {
                    Some(h) => {
                        let m = self.store.measure(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
                        crate::say!(
                            "Context budget: {}. This session: {} characters in {}; a turn sends {} characters{}.",
                            context::describe(budget),
                            context::thousands(m.chars),
                            crate::text::counted(m.messages as usize, "message"),
                            context::thousands(m.context_chars.min(budget)),
                            if m.over(budget) { " (over the budget: /compact summarises the older messages)" } else { "" }
                        );
                    }
                    None => crate::say!("Context budget: {}.", context::describe(budget)),
                }
            }
            "compact" => {
                let Some(h) = &state.current else {
                    crate::say!("Nothing to compact yet.");
                    return Ok(Next::Prompt);
                };
                let Some(agent) = &self.agent else {
                    return Err(Error::usage("no agent to write the summary (see 'man hermes')"));
                };
                let keep = match rest {
                    "" => None,
                    n => Some(n.parse().map_err(|_| Error::usage(format!("/compact [N]: N is a number of messages to keep, not '{n}'")))?),
                };
                crate::say!("Asking the agent for a summary...");
                match state.lines.cooked(|| compact::compact(self.store, agent, h, self.budget.get(), keep)) {
                    Ok(outcome) => crate::say!("{}", outcome.describe()),
                    // Ctrl-C stops the summary, not the chat.
                    Err(Error::Interrupted) => crate::say!(),
                    Err(e) => return Err(e),
                }
            }
            _ => crate::say!("Unknown command '/{name}'. Type /help for the list."),
        }
        Ok(Next::Prompt)
    }
}

fn title_taken(title: &str, holder: &str) -> Error {
    Error::Refused(format!(
        "the title '{title}' is already used by session {holder}; choose another, or continue it with 'hermes chat -c \"{title}\"'"
    ))
}

/// Agent output on its way to a terminal: filtered, so that what a model
/// writes cannot set the title, the clipboard or clear the screen.
struct OnTerminal<'a> {
    out: &'a mut dyn Write,
    filter: crate::text::TerminalFilter,
}

impl Write for OnTerminal<'_> {
    fn write(&mut self, piece: &[u8]) -> io::Result<usize> {
        let shown = self.filter.push(piece);
        self.out.write_all(shown.as_bytes())?;
        Ok(piece.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

enum ReplyOutcome {
    NoAgent,
    Replied,
    Interrupted,
}

struct Interactive {
    current: Option<Header>,
    pending_title: Option<String>,
    /// The session's user messages, oldest first: Up, Down and Ctrl-R.
    history: Vec<String>,
    /// The last send failed (the agent did): its message has no reply.
    unanswered: bool,
    lines: LineReader,
}

/// What a typed line leads to.
enum Next {
    Prompt,
    Quit,
    Send(String),
    Retry,
}

/// Messages shown when a session is resumed.
const RESUME_SHOWN: usize = 4;

const SLASH_HELP: &str = "\
/help              this list
/title [NEW]       show or set the session's title
/new [TITLE]       start a new session
/continue NAME     switch to another session (by title or ID)
/retry             ask again about the last message, if it has no reply
                   or its reply was interrupted
/edit [TEXT]       write the message in $VISUAL, else $EDITOR, else vi
/save [FILE]       save the conversation as Markdown (default hermes-ID.md)
/sessions          recent sessions
/context [N]       show the context budget, or set it for this chat
/compact [N]       summarise the older messages (keeping the last N)
/id                the session's ID
/quit              leave (also Ctrl-D)
Ctrl-C while a reply is running stops it and keeps the conversation.
Keys: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K/Y, Ctrl-L;
Up/Down and Ctrl-R: earlier messages; Alt-Enter or Ctrl-J: a new line;
Ctrl-X Ctrl-E: edit the line in $VISUAL/$EDITOR; Ctrl-C clears the line.
";

/// The prompt names the session: its title cut to a third of the screen.
fn prompt_for(state: &Interactive) -> String {
    let title = match (&state.current, &state.pending_title) {
        (Some(h), _) => h.title.as_str(),
        (None, Some(title)) => title.as_str(),
        (None, None) => return "new session> ".to_string(),
    };
    if title.is_empty() {
        return "> ".to_string();
    }
    let (_, width) = terminal::raw::window_size(1);
    let title = crate::text::printable(title, false);
    format!("{}> ", crate::text::fit_columns(&title, (width / 3).max(8)))
}

/// What a typed text sends: a line without its surrounding blanks; a
/// multi-line text (a paste) keeps its indentation, without blank lines
/// around it.
fn message_text(typed: &str) -> String {
    if !typed.contains('\n') {
        return typed.trim().to_string();
    }
    let lines: Vec<&str> = typed.trim_end().lines().skip_while(|l| l.trim().is_empty()).collect();
    lines.join("\n")
}

fn user_messages(session: &Session) -> Vec<String> {
    session.messages.iter().filter(|m| m.role == "user").map(|m| m.content.clone()).collect()
}

/// `~/x` as a shell would read it (no shell reads what /save is given).
fn home_relative(file: &str) -> String {
    match (file.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ => file.to_string(),
    }
}

/// An error inside the interactive loop: Ctrl-C's kin and a closed stdout
/// end the chat; any other is said, and the chat goes on.
fn go_on_after(e: Error) -> Result<()> {
    match e {
        Error::Interrupted | Error::BrokenPipe => Err(e),
        e => {
            note_in_chat(&e);
            Ok(())
        }
    }
}

/// An error inside the interactive loop, without the hint about --help
/// that a command line gets.
fn note_in_chat(e: &Error) {
    match e {
        Error::Usage(text) => output::notice(text),
        e => output::report(e),
    }
}
