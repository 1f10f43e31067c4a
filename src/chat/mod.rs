//! `hermes chat`: settle on a session, then talk in it, one-shot or
//! interactively. The user's message is saved before the agent runs and the
//! reply after it finishes, so nothing typed is ever lost.

pub mod agent;
pub mod args;
mod repl;

use std::io::{self, Read, Write};

use crate::chat::agent::Agent;
use crate::chat::args::{AgentChoice, Args, Query, Target};
use crate::config::{self, AgentInput};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup};
use crate::store::Store;
use crate::store::session::{self, Header, MAX_MESSAGE_BYTES, Message, TITLE_USER};
use crate::store::titles;
use crate::sys;
use crate::terminal::breadcrumb;
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
    let chat = Chat {
        store,
        terminal,
        agent: choose_agent(store, &args.agent)?,
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
        // message at a time.
        let conversation =
            self.store.open(&header.id)?.ok_or_else(|| Error::Vanished { id: header.id.clone() })?;
        let current = conversation.header().clone();
        let reply = if sys::isatty(1) {
            let mut shown =
                OnTerminal { out, filter: crate::text::TerminalFilter::new(crate::text::colors_allowed()) };
            let reply = agent.reply(&current, conversation, &mut shown);
            let rest = shown.filter.finish();
            let _ = shown.out.write_all(rest.as_bytes()).and_then(|()| shown.out.flush());
            reply?
        } else {
            agent.reply(&current, conversation, out)?
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
