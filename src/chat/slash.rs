//! The slash commands of the interactive chat: /help, /title, /new,
//! /continue, /save, /context, /compact, /model, /system and the rest,
//! each a method of `Chat` on the REPL's state.

use super::repl::{Interactive, Next, message_text};
use super::{Chat, args, check_not_blank, compact, set_system, system_prompt};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup};
use crate::settings::Origin;
use crate::store::context;
use crate::store::session;
use crate::store::titles;
use crate::terminal::compose;
use crate::{output, view};

impl Chat<'_> {
    /// Carry out a slash command, and say what comes next.
    pub(super) fn slash_command(&self, state: &mut Interactive, command: &str) -> Result<Next> {
        let (name, rest) = match command.split_once(char::is_whitespace) {
            Some((n, r)) => (n, r.trim()),
            None => (command, ""),
        };
        match name {
            "help" | "?" => crate::output::say!("{}", SLASH_HELP.trim_end()),
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "retry" => return Ok(Next::Retry),
            "edit" => {
                let text = state.lines.cooked(|| compose::in_editor(rest))?;
                let text = message_text(&text);
                if text.is_empty() || check_not_blank(&text).is_err() {
                    crate::output::say!("Nothing sent: the editor left the message empty.");
                    return Ok(Next::Prompt);
                }
                // As Ctrl-X Ctrl-E: the text comes back to the prompt, to be
                // read and sent with Enter. Plain lines cannot be given text
                // to edit: there it is sent, unless the editor left it as it was.
                if state.lines.is_editor() {
                    state.lines.prefill(text);
                    return Ok(Next::Prompt);
                }
                if text == message_text(rest) {
                    crate::output::say!("Nothing sent: the editor left the message as it was.");
                    return Ok(Next::Prompt);
                }
                return Ok(Next::Send(text));
            }
            "continue" | "c" => self.continue_in(state, rest)?,
            "id" => match &state.current {
                Some(h) => crate::output::say!("{}", h.id),
                None => crate::output::say!("(new session: saved with its first message)"),
            },
            "title" => self.title(state, rest)?,
            "new" => {
                // Check the title before leaving the current session: a
                // refused `/new TITLE` changes nothing.
                state.pending_title =
                    if rest.is_empty() { None } else { Some(self.title_for_new_session(rest)?) };
                state.current = None;
                state.seen = 0;
                state.history.clear();
                state.unanswered = None;
                state.mine = None;
                self.leave_session();
                crate::output::say!("New session. It is saved with its first message.");
            }
            "save" => self.save(state, rest, false)?,
            "save!" => self.save(state, rest, true)?,
            "sessions" => view::list::print_recent(self.store, self.terminal.as_ref(), 10)?,
            "model" => self.model_command(state, rest)?,
            "system" => self.system_command(state, rest)?,
            "context" => self.context(state, rest)?,
            "compact" => self.compact(state, rest)?,
            _ => match crate::text::nearest(name, SLASH_COMMANDS.iter().map(|c| c.trim_start_matches('/'))) {
                Some(near) => {
                    crate::output::say!(
                        "Unknown command '/{name}'; did you mean /{near}? Type /help for the list."
                    )
                }
                None => crate::output::say!("Unknown command '/{name}'. Type /help for the list."),
            },
        }
        Ok(Next::Prompt)
    }

    /// What this chat chose for the session it leaves (`/model`, `-m`,
    /// `/system` before the first message) stays with it: the next one
    /// has its own, or the configured default.
    fn leave_session(&self) {
        *self.model.borrow_mut() = None;
        *self.system.borrow_mut() = self.settings.system().map(str::to_string);
    }

    /// `/context [N]`: show the budget and this session's size; with N,
    /// set the budget for this chat.
    fn context(&self, state: &Interactive, rest: &str) -> Result<()> {
        if !rest.is_empty() {
            self.budget.set(args::budget_arg(rest)?);
            self.noted.borrow_mut().clear();
        }
        let budget = self.budget.get();
        let Some(h) = &state.current else {
            crate::output::say!("Context budget: {}.", context::describe(budget));
            return Ok(());
        };
        let m = self.store.measure(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
        crate::output::say!(
            "Context budget: {}. This session: {} characters in {}; a turn sends {} characters{}.",
            context::describe(budget),
            context::thousands(m.chars),
            crate::text::counted(m.messages as usize, "message"),
            context::thousands(m.context_chars.min(budget)),
            if m.over(budget) { " (over the budget: /compact summarises the older messages)" } else { "" }
        );
        Ok(())
    }

    /// `/compact [N]`: ask the agent for a summary of the older messages
    /// (all but the last N).
    fn compact(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        let Some(h) = &state.current else {
            crate::output::say!("Nothing to compact yet.");
            return Ok(());
        };
        let Some(agent) = &self.agent else {
            return Err(Error::usage("no agent to write the summary (see 'man hermes')"));
        };
        let keep = match rest {
            "" => None,
            n => Some(n.parse().map_err(|_| {
                Error::usage(format!("/compact [N]: N is a number of messages to keep, not '{n}'"))
            })?),
        };
        crate::output::say!("Asking the agent for a summary...");
        match state.lines.cooked(|| compact::compact(self.store, agent, h, self.budget.get(), keep)) {
            Ok(outcome) => crate::output::say!("{}", outcome.describe()),
            // Ctrl-C stops the summary, not the chat.
            Err(Error::Interrupted) => crate::output::say!(),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// `/continue NAME`: switch to another session.
    fn continue_in(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        if rest.is_empty() {
            return Err(Error::usage("name the session to continue: /continue NAME"));
        }
        let header = match resolve::lookup(self.store, rest)? {
            Lookup::Found(header) => header,
            Lookup::Missing { did_you_mean } => {
                say_not_found_in_chat(rest, &did_you_mean);
                return Ok(());
            }
        };
        self.leave_session();
        self.point_breadcrumb(&header);
        state.history = self.show_resume(&header, None)?;
        state.seen = self.store.header(&header.id)?.map_or(0, |h| h.message_count);
        self.saved_here.borrow_mut().clear();
        state.current = Some(header);
        state.pending_title = None;
        state.unanswered = None;
        state.mine = None;
        Ok(())
    }

    /// `/title [NEW]`: show the title, or set it (a new session's is
    /// checked now and given with its first message).
    fn title(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        match (&state.current, rest) {
            (Some(h), "") if h.title.is_empty() => crate::output::say!("(untitled)"),
            (Some(h), "") => crate::output::say!("{}", crate::text::printable(&h.title, false)),
            (None, "") => {
                crate::output::say!("{}", state.pending_title.as_deref().unwrap_or("(untitled)"))
            }
            (Some(h), new) => {
                let header = titles::rename(self.store, &h.id, new)?;
                crate::output::say!(
                    "renamed {} to '{}'",
                    header.id,
                    crate::text::printable(&header.title, false)
                );
                state.current = Some(header);
            }
            (None, new) => {
                state.pending_title = Some(self.title_for_new_session(new)?);
                crate::output::say!(
                    "The new session will be titled '{}'.",
                    state.pending_title.as_deref().unwrap_or("")
                );
            }
        }
        Ok(())
    }

    /// `/save [FILE]`: the conversation as Markdown; a FILE that is there
    /// is kept unless `replace` (`/save! FILE`).
    fn save(&self, state: &Interactive, rest: &str, replace: bool) -> Result<()> {
        let Some(h) = &state.current else {
            crate::output::say!("Nothing to save yet.");
            return Ok(());
        };
        let session = self.store.load(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
        let file = if rest.is_empty() { format!("hermes-{}.md", h.id) } else { home_relative(rest) };
        if !replace {
            let how = format!("/save! {} replaces it", if rest.is_empty() { &file } else { rest });
            output::refuse_existing(std::path::Path::new(&file), &how)?;
        }
        output::write_file(std::path::Path::new(&file), view::markdown(&[session]).as_bytes())?;
        crate::output::say!("Saved to {file}.");
        Ok(())
    }

    /// `/model`: say which model the next message uses and why; `/model
    /// NAME`: use NAME in this session (recorded in it now, or with a new
    /// session's first message).
    fn model_command(&self, state: &mut Interactive, name: &str) -> Result<()> {
        if name.is_empty() {
            let said = match self.model_for(state.current.as_ref()) {
                Some((model, Origin::Flag(_))) => format!("{model} (chosen in this chat for this session)"),
                Some((model, Origin::Session)) => format!("{model} (this session's)"),
                Some((model, origin)) => format!("{model} (the default: {})", origin.describe()),
                None if self.agent.is_none() => "none: no agent answers here".to_string(),
                None => "none set: the agent's default".to_string(),
            };
            crate::output::say!("model: {}", crate::text::printable(&said, false));
            return Ok(());
        }
        let model = session::clean_model(name).map_err(Error::usage)?;
        *self.model.borrow_mut() = Some(model.clone());
        if let Some(h) = &state.current {
            state.current = Some(self.store.update_header(&h.id, |h| h.model = Some(model.clone()))?);
        }
        crate::output::say!(
            "model: {} from the next message on, in this session",
            crate::text::printable(&model, false)
        );
        Ok(())
    }

    /// `/system`: show the session's system prompt; `/system TEXT`: set it
    /// (or, before a new session's first message, the one it starts with).
    fn system_command(&self, state: &mut Interactive, text: &str) -> Result<()> {
        if text.is_empty() {
            let prompt = match &state.current {
                Some(h) => {
                    let mut reader =
                        self.store.open(&h.id)?.ok_or_else(|| Error::Vanished { id: h.id.clone() })?;
                    let first = reader.next_message().map_err(|_| Error::Vanished { id: h.id.clone() })?;
                    first.filter(|m| m.role == "system").map(|m| m.content)
                }
                None => self.system.borrow().clone(),
            };
            match prompt {
                Some(p) => crate::output::say!("system: {}", crate::text::printable(&p, true)),
                None => crate::output::say!("(no system prompt)"),
            }
            return Ok(());
        }
        let text = system_prompt(text.to_string())?;
        match &state.current {
            Some(h) => {
                state.current = Some(set_system(self.store, &h.id, &text)?);
                crate::output::say!("System prompt set for this session.");
            }
            None => {
                *self.system.borrow_mut() = Some(text);
                crate::output::say!("The new session will start with this system prompt.");
            }
        }
        Ok(())
    }
}

/// The slash commands, for Tab and "did you mean".
pub(super) const SLASH_COMMANDS: &[&str] = &[
    "/help",
    "/title",
    "/new",
    "/continue",
    "/retry",
    "/edit",
    "/save",
    "/sessions",
    "/id",
    "/model",
    "/system",
    "/context",
    "/compact",
    "/quit",
];

/// `/continue NAME` that matches nothing: the closest titles, as the
/// commands that would continue them.
fn say_not_found_in_chat(name: &str, did_you_mean: &[String]) {
    let name = crate::text::printable(name, false);
    crate::output::note!("No session found matching '{name}'.");
    match did_you_mean {
        [] => {}
        [title] => crate::output::note!("Did you mean: /continue {}", crate::text::printable(title, false)),
        titles => {
            crate::output::note!("Did you mean one of these?");
            for title in titles {
                crate::output::note!("  /continue {}", crate::text::printable(title, false));
            }
        }
    }
    crate::output::note!("/sessions lists recent ones; /new {name} starts one with that title.");
}

const SLASH_HELP: &str = "\
/help              this list
/title [NEW]       show or set the session's title
/new [TITLE]       start a new session
/continue NAME     switch to another session (by title or ID)
/retry             ask again about the last message (a reply it had is kept
                   in the file, marked replaced)
/edit [TEXT]       write the message in $VISUAL, else $EDITOR, else vi; it
                   comes back to the prompt, to send with Enter
/save [FILE]       save the conversation as Markdown (default hermes-ID.md);
                   a FILE that is there is kept: /save! FILE replaces it
/sessions          recent sessions
/context [N]       show the context budget, or set it for this chat
/compact [N]       summarise the older messages (keeping the last N)
/id                the session's ID
/model [NAME]      show the model, or use NAME from the next message on
                   (kept in the session)
/system [TEXT]     show the session's system prompt, or set it
/quit              leave (also Ctrl-D)
Ctrl-C while a reply is running stops it and keeps the conversation.
Keys: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K/Y, Ctrl-L;
Up/Down and Ctrl-R: earlier messages; Alt-Enter or Ctrl-J: a new line;
Ctrl-X Ctrl-E: edit the line in $VISUAL/$EDITOR; Ctrl-C clears the line;
Tab completes a slash command, and a title after /continue or /new.
";

/// `~/x` as a shell would read it (no shell reads what /save is given).
fn home_relative(file: &str) -> String {
    match (file.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ => file.to_string(),
    }
}
