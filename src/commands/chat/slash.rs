//! The slash commands of the interactive chat, one table (`COMMANDS`):
//! each command's name, other names, arguments, help, what its argument is
//! (read as a shell reads words, or taken as typed) and what it does.
//! `/help`, Tab, "did you mean", `chat --help`'s list and the man page's
//! check follow from it. The commands themselves are methods of `Chat` on
//! the interactive state (state.rs).

use std::ffi::OsStr;

use super::attach::{self, MAX_FILES};
use super::state::{Interactive, Next, message_text};
use super::{Chat, args, check_not_blank, compact, set_system, system_prompt};
use crate::args::{Kind, Man, man};
use crate::error::{Error, Result};
use crate::resolve::{self, Lookup};
use crate::settings::Origin;
use crate::store::context;
use crate::store::session;
use crate::store::titles;
use crate::terminal::compose;
use crate::words;
use crate::{output, view};

/// One slash command.
pub(crate) struct Slash {
    /// `title`, typed `/title`.
    pub(crate) name: &'static str,
    /// Its other names (`/q` is `/quit`).
    pub(crate) aliases: &'static [&'static str],
    /// Its arguments as help shows them: `[NEW]`, `NAME`.
    pub(crate) args: &'static str,
    /// What it does, in one line (wrapped on output).
    pub(crate) help: &'static str,
    /// Its entry in the man page (`help` is the entry's short form).
    #[cfg_attr(not(test), allow(dead_code, reason = "the man page is made by the tests"))]
    pub(crate) man: Man,
    /// What follows its name.
    pub(crate) takes: Takes,
    /// What it does, given the argument (decoded as `takes` says).
    run: fn(&Chat<'_>, &mut Interactive, &str) -> Result<Next>,
}

/// What follows a slash command's name.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Takes {
    /// Nothing.
    Nothing,
    /// Words read as a shell reads them (quotes group, a backslash
    /// escapes), joined by one blank: `/new "api design"` and `/new api
    /// design` are the same title, never with its quotes. Tab completes
    /// what `Kind` says.
    Words(Kind),
    /// Text taken as typed (a system prompt, a message).
    Text,
}

/// Every slash command, in the order `/help` lists them.
pub(crate) const COMMANDS: &[Slash] = &[
    Slash {
        name: "help",
        aliases: &["?"],
        args: "",
        help: "this list",
        man: man(r#"
the list of commands
"#),
        takes: Takes::Nothing,
        run: |_, _, _| {
            output::say!("{}", help_text().trim_end());
            Ok(Next::Prompt)
        },
    },
    Slash {
        name: "title",
        aliases: &[],
        args: "[NEW]",
        help: "show or set the session's title",
        man: man(r#"
show or set the session's title
"#),
        takes: Takes::Words(Kind::Text),
        run: |chat, state, arg| chat.title(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "new",
        aliases: &[],
        args: "[TITLE]",
        help: "start a new session",
        man: man(r#"
start a new session
"#),
        takes: Takes::Words(Kind::Session),
        run: |chat, state, arg| chat.new_session(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "continue",
        aliases: &["c"],
        args: "NAME",
        help: "switch to another session (by title or ID)",
        man: man(r#"
switch to the session
.I NAME
(an ID or a title, as
.B \-c
.I NAME
takes it), and point this terminal's breadcrumb at it
"#),
        takes: Takes::Words(Kind::Session),
        run: |chat, state, arg| chat.continue_in(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "retry",
        aliases: &[],
        args: "",
        help: "ask again about the last message (a reply it had is kept in the file, marked replaced)",
        man: man(r#"
ask the agent again about the last message, whatever became of its
reply (none, a failure, Ctrl-C, or one not liked); a reply it had stays
in the file marked
.B \(dqreplaced\(dq: true
(see
.BR FILES ),
shown as
.B [assistant, replaced]
and never sent to an agent again
"#),
        takes: Takes::Nothing,
        run: |_, _, _| Ok(Next::Retry),
    },
    Slash {
        name: "edit",
        aliases: &[],
        args: "[TEXT]",
        help: "write the message in $VISUAL, else $EDITOR, else vi; it comes back to the prompt, to send \
            with Enter",
        man: man(r#"
write the message in
.BR $VISUAL ,
else
.BR $EDITOR ,
else
.BR vi ,
starting from
.IR TEXT ;
as with Ctrl-X Ctrl-E, what is saved comes back to the prompt, to be
read and sent with Enter (nothing is sent when the editor is quit
without saving; read line by line, it is sent unless it is unchanged)
"#),
        takes: Takes::Text,
        run: |chat, state, arg| chat.edit(state, arg),
    },
    Slash {
        name: "save",
        aliases: &[],
        args: "[FILE]",
        help: "save the conversation as Markdown (default hermes-ID.md); a FILE that is there is kept",
        man: man(r#"
save the conversation as Markdown (default
.BI hermes\- ID .md\fR);\fP
a
.I FILE
that is there is not replaced
"#),
        takes: Takes::Words(Kind::File),
        run: |chat, state, arg| chat.save(state, arg, false).map(|()| Next::Prompt),
    },
    Slash {
        name: "save!",
        aliases: &[],
        args: "FILE",
        help: "the same, replacing FILE",
        man: man(r#"
the same, replacing
.I FILE
"#),
        takes: Takes::Words(Kind::File),
        run: |chat, state, arg| chat.save(state, arg, true).map(|()| Next::Prompt),
    },
    Slash {
        name: "file",
        aliases: &[],
        args: "[FILE]",
        help: "put the text file FILE into the next message, fenced and named, or send the image FILE with \
            it (again for more); without FILE, say which files go with it",
        man: man(r#"
put the text file
.I FILE
into the next message, fenced and named as
.B \-f
puts it, or send the image
.I FILE
with it (again for more, at most 32); Tab completes the name; without
.IR FILE ,
say which files go with the next message.
A file that cannot be put in is refused as
.B \-f
refuses it, and the chat goes on
"#),
        takes: Takes::Words(Kind::File),
        run: |chat, state, arg| chat.file_command(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "copy",
        aliases: &[],
        args: "[code]",
        help: "put the last reply (or its last code block) on the clipboard, through the terminal (OSC 52: \
            over ssh, and in tmux with set-clipboard on)",
        man: man(r#"
put the last reply (one
.B /retry
replaced does not count), or with
.B code
its last fenced code block without its fences, on the clipboard, through
the terminal: hermes writes the OSC 52 sequence
.RB ( "ESC ] 52 ; c ;"
the text in base64, BEL), which xterm, kitty, WezTerm, iTerm2, foot,
Windows Terminal and others put on the system clipboard (some ask first,
or need it allowed), over ssh too.
Inside tmux it gets through only with
.BR "set \-g set\-clipboard on" :
tmux then keeps it as a buffer and passes it on to the terminal.
When it cannot work, nothing is sent and
.B /copy
says why: the output is not a terminal,
.B TERM
is
.B dumb
or
.BR linux ,
tmux's
.B set\-clipboard
is not
.B on
(it is
.B external
by default), or GNU screen, which does not pass it on.
What is copied is what the screen showed, as characters: text, newlines
and tabs; colours are left out, and every other control character (an
escape sequence, a bell, a C1 control, a bidi override) is copied as the
screen shows it,
.B ^[
or
.BR \eu{202e} ,
never as itself, and
.B /copy
says how many there were: a reply cannot hide a command in the clipboard
that runs when pasted.
A text larger than the terminal takes in one sequence is not copied, and
.B /copy
says the limit: inside tmux 786,426 bytes (tmux drops a sequence longer
than 1 MiB in base64 whole), elsewhere 1 MiB.
"#),
        takes: Takes::Words(Kind::Words(&["code"])),
        run: |chat, state, arg| chat.copy_command(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "sessions",
        aliases: &[],
        args: "",
        help: "recent sessions",
        man: man(r#"
recent sessions
"#),
        takes: Takes::Nothing,
        run: |chat, _, _| {
            view::list::print_recent(chat.store, chat.terminal.as_ref(), 10)?;
            Ok(Next::Prompt)
        },
    },
    Slash {
        name: "context",
        aliases: &[],
        args: "[N]",
        help: "show the context budget and the session's size, or set the budget for this chat",
        man: man(r#"
show the context budget and the session's size in characters, or set the
budget for this chat
"#),
        takes: Takes::Words(Kind::Number),
        run: |chat, state, arg| chat.context(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "compact",
        aliases: &[],
        args: "[N]",
        help: "summarise the older messages (keeping the last N)",
        man: man(r#"
have the agent summarise the older messages (keeping the last N); see
.B CONTEXT
"#),
        takes: Takes::Words(Kind::Number),
        run: |chat, state, arg| {
            chat.own_change(state, |state| chat.compact(state, arg)).map(|()| Next::Prompt)
        },
    },
    Slash {
        name: "id",
        aliases: &[],
        args: "",
        help: "the session's ID",
        man: man(r#"
the session's ID
"#),
        takes: Takes::Nothing,
        run: |_, state, _| {
            match &state.current {
                Some(h) => output::say!("{}", h.id),
                None => output::say!("(new session: saved with its first message)"),
            }
            Ok(Next::Prompt)
        },
    },
    Slash {
        name: "model",
        aliases: &[],
        args: "[NAME]",
        help: "show the model and why it applies, or use NAME in this session from the next message on",
        man: man(r#"
show the model, or use NAME from the next message on (kept in the
session)
"#),
        takes: Takes::Words(Kind::Model),
        run: |chat, state, arg| chat.model_command(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "role",
        aliases: &[],
        args: "[NAME]",
        help: "show the session's role and the roles there are, or start a new session with the role NAME \
            (see 'hermes roles')",
        man: man(r#"
show the session's role and the roles there are, or start a new session
with the role
.I NAME
(its prompt, model and budget; the role then stays this chat's, for
.B /new
too); Tab completes the names.
A role answered by another agent than the chat's is refused: start a
chat with it
.RB ( "hermes chat \-\-role " \fINAME\fR)
"#),
        takes: Takes::Words(Kind::Role),
        run: |chat, state, arg| chat.role_command(state, arg).map(|()| Next::Prompt),
    },
    Slash {
        name: "system",
        aliases: &[],
        args: "[TEXT]",
        help: "show the session's system prompt, or set it",
        man: man(r#"
show the session's system prompt, or set it
"#),
        takes: Takes::Text,
        run: |chat, state, arg| {
            chat.own_change(state, |state| chat.system_command(state, arg)).map(|()| Next::Prompt)
        },
    },
    Slash {
        name: "quit",
        aliases: &["exit", "q"],
        args: "",
        help: "leave (also Ctrl-D)",
        man: man(r#"
leave (also Ctrl-D).
"#),
        takes: Takes::Nothing,
        run: |_, _, _| Ok(Next::Quit),
    },
];

/// What `/help` says after the commands.
const KEYS_HELP: &str = "\
Ctrl-C while a reply is running stops it and keeps the conversation.
Keys: Left/Right, Home/End, Ctrl-A/E/B/F, Alt-B/F, Ctrl-W/U/K/Y, Ctrl-L;
Up/Down and Ctrl-R: earlier messages; Alt-Enter or Ctrl-J: a new line;
Ctrl-X Ctrl-E: edit the line in $VISUAL/$EDITOR; Ctrl-C clears the line;
Tab completes a slash command, and after it a title, a file, a model or a role.
";

/// The command `name` (without its slash) names.
/// How a slash command is typed, as its entry has it: `usage("/copy")` is
/// `/copy [code]`.
pub(super) fn usage(typed: &str) -> String {
    match command(typed.trim_start_matches('/')) {
        Some(slash) if !slash.args.is_empty() => format!("/{} {}", slash.name, slash.args),
        _ => typed.to_string(),
    }
}

fn command(name: &str) -> Option<&'static Slash> {
    COMMANDS.iter().find(|c| c.name == name || c.aliases.contains(&name))
}

/// `/help`: each command with its arguments and what it does, its lines
/// fitted to the terminal (at most 78 columns), each hanging under its text.
pub(crate) fn help_text() -> String {
    let width = output::terminal_columns(1).map_or(78, |w| w.min(78));
    let mut text = String::new();
    for c in COMMANDS {
        let name = format!("/{} {}", c.name, c.args).trim_end().to_string();
        text.push_str(&words::hanging(&format!("{name:19}"), c.help, width));
        text.push('\n');
    }
    text + KEYS_HELP
}

/// Carry out the slash command `line` (without its slash), and say what
/// comes next.
pub(super) fn run(chat: &Chat<'_>, state: &mut Interactive, line: &str) -> Result<Next> {
    let (name, rest) = match line.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (line, ""),
    };
    let Some(slash) = command(name) else {
        let names = COMMANDS.iter().map(|c| c.name);
        match crate::text::nearest(name, names) {
            Some(near) => {
                output::say!("Unknown command '/{name}'; did you mean /{near}? Type /help for the list.")
            }
            None => output::say!("Unknown command '/{name}'. Type /help for the list."),
        }
        return Ok(Next::Prompt);
    };
    let arg = match slash.takes {
        Takes::Nothing if !rest.is_empty() => {
            return Err(Error::usage(format!("/{} takes nothing after it", slash.name)));
        }
        Takes::Nothing | Takes::Text => rest.to_string(),
        Takes::Words(_) => words::split(rest)
            .map_err(|why| Error::usage(format!("/{} {}: {why}", slash.name, slash.args)))?
            .join(" "),
    };
    (slash.run)(chat, state, &arg)
}

/// What Tab makes of a line typed so far that starts with a slash: the
/// commands it starts, or after a command's name, what its argument may
/// be (titles, file names, models).
pub(super) fn complete(chat: &Chat<'_>, typed: &str) -> Vec<String> {
    let Some((word, partial)) = typed.split_once(' ') else {
        let names = COMMANDS.iter().map(|c| format!("/{} ", c.name));
        return names.filter(|c| c.starts_with(typed)).collect();
    };
    let Some(Takes::Words(kind)) = command(word.trim_start_matches('/')).map(|c| c.takes) else {
        return Vec::new();
    };
    let partial = partial.trim_start();
    let found = match kind {
        Kind::Session => titles_starting(chat, partial),
        Kind::File => file_names(partial),
        Kind::Model => match &chat.agent {
            Some(agent) => {
                let names = crate::agent::models::for_completion(chat.store, agent).into_iter();
                names.filter(|name| name.starts_with(partial)).collect()
            }
            None => Vec::new(),
        },
        Kind::Words(words) => {
            words.iter().filter(|w| w.starts_with(partial)).map(|w| w.to_string()).collect()
        }
        Kind::Role => {
            let names = crate::agent::role::names(chat.store).into_iter().map(|(name, _, _)| name);
            names.filter(|name| name.starts_with(partial)).collect()
        }
        _ => Vec::new(),
    };
    found.into_iter().map(|found| format!("{word} {found}")).collect()
}

/// The titles that start with `partial` (case ignored), newest first, each
/// as `run` reads it back: bare (its words are joined by a blank again),
/// quoted only when it holds a quote or a backslash.
fn titles_starting(chat: &Chat<'_>, partial: &str) -> Vec<String> {
    let partial = partial.trim_start_matches(['"', '\'']).to_lowercase();
    let mut titles: Vec<(f64, String)> = Vec::new();
    let _ = chat.store.scan(|entry| {
        if let Ok(h) = entry.header
            && !h.title.is_empty()
            && h.title.to_lowercase().starts_with(&partial)
            && !titles.iter().any(|(_, t)| *t == h.title)
        {
            titles.push((h.updated_at, h.title));
        }
    });
    crate::order::sort_by(&mut titles, |a, b| b.0.total_cmp(&a.0));
    let as_typed =
        |title: String| if title.contains(['\'', '"', '\\']) { words::quoted(&title) } else { title };
    titles.into_iter().map(|(_, title)| as_typed(title)).collect()
}

/// The files whose names start with `partial` (a path, maybe `~/`), each
/// as a shell word; a directory with its `/`.
fn file_names(partial: &str) -> Vec<String> {
    let typed = words::split(partial).ok().and_then(|w| w.into_iter().next()).unwrap_or_default();
    let path = home_relative(&typed);
    let (dir, start) = match path.rfind('/') {
        Some(at) => (&path[..=at], &path[at + 1..]),
        None => ("", path.as_str()),
    };
    let shown_dir = &typed[..typed.len() - start.len()];
    let Ok(entries) = std::fs::read_dir(if dir.is_empty() { "." } else { dir }) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let hidden = name.starts_with('.') && !start.starts_with('.');
            if hidden || !name.starts_with(start) {
                return None;
            }
            let slash = if entry.file_type().is_ok_and(|t| t.is_dir()) { "/" } else { "" };
            Some(words::quoted(&format!("{shown_dir}{name}{slash}")))
        })
        .collect();
    crate::order::sort(&mut names);
    names
}

impl Chat<'_> {
    /// `/edit [TEXT]`: the message written in an editor.
    fn edit(&self, state: &mut Interactive, rest: &str) -> Result<Next> {
        let text = state.lines.cooked(|| compose::in_editor(rest))?;
        let text = message_text(&text);
        if text.is_empty() || check_not_blank(&text).is_err() {
            output::say!("Nothing sent: the editor left the message empty.");
            return Ok(Next::Prompt);
        }
        // As Ctrl-X Ctrl-E: the text comes back to the prompt, to be
        // read and sent with Enter. Line-by-line reading cannot be given
        // text to edit: there it is sent, unless the editor left it as it was.
        if state.lines.is_editor() {
            state.lines.prefill(text);
            return Ok(Next::Prompt);
        }
        if text == message_text(rest) {
            output::say!("Nothing sent: the editor left the message as it was.");
            return Ok(Next::Prompt);
        }
        Ok(Next::Send(text))
    }

    /// `/new [TITLE]`: a new session, saved with its first message.
    pub(super) fn new_session(&self, state: &mut Interactive, rest: &str) -> Result<()> {
        // Check the title before leaving the current session: a refused
        // `/new TITLE` changes nothing.
        state.pending_title = if rest.is_empty() { None } else { Some(self.title_for_new_session(rest)?) };
        state.current = None;
        state.known = Default::default();
        state.history.set_here(Vec::new());
        state.unanswered = None;
        state.mine = None;
        self.leave_session();
        output::say!("New session. It is saved with its first message.");
        Ok(())
    }

    /// What this chat chose for the session it leaves (`/model`, `-m`,
    /// `/system` before the first message) stays with it: the next one
    /// has its own, or the configured default.
    fn leave_session(&self) {
        *self.model.borrow_mut() = None;
        *self.system.borrow_mut() = self.settings.borrow().system().map(str::to_string);
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
            crate::text::thousands(m.chars),
            crate::text::counted(m.messages as usize, "message"),
            crate::text::thousands(m.context_chars.min(budget)),
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
                Error::usage(format!("{}: N is a number of messages to keep, not '{n}'", usage("/compact")))
            })?),
        };
        let budget = self.budget.get();
        let Some(work) = compact::plan(self.store, h, budget, keep)? else {
            crate::output::say!("{}", compact::NOTHING);
            return Ok(());
        };
        crate::output::say!("Asking the agent for a summary of {}...", work.describe());
        match state.lines.cooked(|| compact::run(self.store, agent, h, budget, work)) {
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
            Lookup::Found(header) => *header,
            Lookup::Missing { did_you_mean } => {
                say_not_found_in_chat(rest, &did_you_mean);
                return Ok(());
            }
        };
        self.leave_session();
        self.point_breadcrumb(&header);
        let here;
        (here, state.known) = self.show_resume(&header, None)?;
        state.history.set_here(here);
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

    /// `/file FILE`: put FILE into the next message; `/file`: say which
    /// files go with it.
    fn file_command(&self, state: &mut Interactive, path: &str) -> Result<()> {
        if !path.is_empty() {
            if state.attached.len() >= MAX_FILES {
                return Err(Error::usage(format!(
                    "the next message has {MAX_FILES} files already, as many as it takes"
                )));
            }
            let path = home_relative(path);
            state.attached.push(attach::read(OsStr::new(&path), "/file")?);
        }
        self.say_attached(state);
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
                Some((model, Origin::ThisChat)) => format!("{model} (chosen in this chat for this session)"),
                Some((model, Origin::Role(role))) => format!("{model} (the role's: {role})"),
                Some((model, Origin::Session)) => format!("{model} (this session's)"),
                Some((model, origin)) => format!("{model} (the default: {})", origin.describe()),
                None if self.agent.is_none() => "none: no agent answers here".to_string(),
                None => "none set: the agent's default".to_string(),
            };
            crate::output::say!("model: {}", crate::text::printable(&said, false));
            return Ok(());
        }
        let model = session::clean_model(name).map_err(Error::usage)?;
        if let Some(agent) = &self.agent
            && let Some(e) = crate::agent::models::unknown(self.store, agent, &model, "/model")
        {
            return Err(e);
        }
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

/// `~/x` as a shell would read it (no shell reads what /save is given).
fn home_relative(file: &str) -> String {
    match (file.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) if !home.is_empty() => format!("{}/{rest}", home.trim_end_matches('/')),
        _ => file.to_string(),
    }
}
