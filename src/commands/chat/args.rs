//! `hermes chat`'s arguments: which session, what to send, which agent.

use crate::agent::Choice;
use crate::args::{Access, Arg, Kind, Man, Run, Spec, Value, man, option, switch, text};
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
    man: Man::NONE,
    options: &[
        option(
            "-c",
            "--continue",
            Value::optional("NAME", Kind::Session),
            "this terminal's last session; \
            else the newest one in this workspace (git root, else directory); else the newest of all",
        )
        .under("Which session (with none of these, a new one):")
        .also(&[(
            "-c, --continue NAME",
            "the \
                    session whose ID is NAME, else whose title is NAME",
            man(r#"
the session whose ID is
.IR NAME ,
else whose title is
.I NAME
(exactly).
Quote a title with spaces:
.BR "hermes chat \-c \(dqredis debug\(dq" .
When nothing matches, this is an error (exit 1); a title that matches
except for case is suggested.
"#),
        )])
        .group(1)
        .man(
            r#"
this terminal's last session; else the newest one in this workspace (git
root, else directory); else the newest of all.
This terminal's last session is the one its breadcrumb names, if that
still exists; the workspace is the git root of the current directory,
else the directory itself.
With no sessions at all this is an error, exit 1.
A one-shot turn
.RB ( \-q )
that continues another session than this terminal\(aqs says which, and
why, on standard error (unless
.BR \-Q ):
.RS
.EX
hermes: \-c continues \(aqother thread\(aq (20261207_091500_1a2b3c), the
most recent session in this workspace: this terminal\(aqs session was deleted
.EE
.RE
"#,
        )
        .takes(|a, v| {
            // NAME may become a title (--create-if-missing): text.
            a.continued = Some(v.value.map(|name| text(name, "-c NAME")).transpose()?);
            Ok(())
        }),
        switch(
            "",
            "--create-if-missing",
            "with -c NAME: create the session titled NAME if none matches \
            (parallel calls create exactly one); NAME is then only a full ID or an exact title: one that no \
                title matches and that is shaped like an ID, an ID prefix (20261204) or a short ID is \
                    refused (exit 2), even if it abbreviates a session's ID (-r continues that one)",
        )
        .man(
            r#"
with
.B \-c
.IR NAME :
create the session titled
.I NAME
if none matches (parallel calls create exactly one);
.I NAME
is then only a full ID or an exact title: one that no title matches and
that is shaped like an ID, an ID prefix (20261204) or a short ID is
refused (exit 2), even if it abbreviates a session's ID
.RB ( \-r
continues that one).
A date in a cron job never sends its message into a session of that day,
and the error says why.
Give a title that is not shaped like an ID
.RB ( "report 20261204" ).
A session deleted while the message is on its way (a monthly cron post
meeting a daily prune) is looked up again and, if gone, created: the
message is kept and the exit status is 0.
Without a name it is a usage error (exit 2).
"#,
        )
        .sets(|a| a.create_if_missing = true),
        option(
            "-r",
            "--resume",
            Value::new("ID", Kind::SessionId),
            "the session with this ID, or the one a \
            short ID names (8 or more leading characters, or the last 6 hex digits)",
        )
        .group(1)
        .man(
            r#"
the session with this ID, or the one a short ID names (8 or more
leading characters, or the last 6 hex digits).
See
.B hermes sessions
below.
"#,
        )
        .takes(|a, v| {
            a.resumed = Some(v.lossy());
            Ok(())
        }),
        switch(
            "",
            "--pick",
            "choose the session on a full-screen list and continue it here (see 'hermes \
            sessions pick --help')",
        )
        .group(1)
        .man(
            r#"
choose the session on a full-screen list and continue it here (see
\(aqhermes sessions pick \-\-help\(aq), breadcrumb and all: the
terminal's answer to a desktop's "resume in terminal".
Esc or Ctrl-C there leave with exit 1, sending nothing; without a
terminal it is a usage error.
"#,
        )
        .sets(|a| a.picked = true),
        option(
            "",
            "--title",
            Value::new("TITLE", Kind::Text),
            "title for a new session (refused if another \
            session has it, or if it would be read as an ID)",
        )
        .man(
            r#"
title for a new session (refused if another session has it, or if it
would be read as an ID).
See
.B rename
below.
"#,
        )
        .takes(|a, v| {
            a.title = Some(v.utf8("--title")?);
            Ok(())
        }),
        option(
            "-q",
            "--query",
            Value::new("TEXT|-", Kind::Text),
            "send TEXT, print the reply, exit \
            (one-shot); with stdin a pipe or file, one message: stdin, a blank line, then TEXT",
        )
        .under("How:")
        .also(&[(
            "-q -",
            "read the message from stdin (also when stdin is not a \
                    terminal)",
            man(r#"
read the message from stdin (also when stdin is not a terminal).
All of stdin is the message.
An empty message is a usage error (exit 2), and so is one that is not
UTF-8 text.
.IP
Whatever hermes stores or sends must be UTF-8: the message (from
.B \-q
or stdin),
.BR \-\-title ,
.BR \-s ,
.BR \-\-system\-file ,
.BR \-m ,
.BR \-\-agent ,
.B \-c
.I NAME
(which may become a title), the
.I VALUE
of
.B config set
and the
.I TITLE
of
.BR "sessions rename" .
Text that is not is refused (exit 2, nothing done), naming where it came
from and the offset of its first byte that is not; a Latin-1 file is
converted with
.BR "iconv \-f latin1 \-t utf\-8" .
A name that is only looked up (of
.BR "sessions show" ,
.BR \-r )
is not refused: one that is not UTF-8 matches no session.
.TP
\fITEXT\fR...
the words that are not options, joined by single spaces, are the message
of a one-shot turn, as
.B \-q
.RI \(dq TEXT ...\(dq
sends it (stdin joins it the same way); with
.B \-q
too, a usage error (exit 2).
A bare
.B \-c
takes the word after it as its
.IR NAME :
.B "hermes chat \-c \(dqredis debug\(dq \(dqand the keys?\(dq"
sends
.B "and the keys?"
to the session titled
.BR "redis debug" ,
and so do words after
.B \-r
.IR ID ;
to continue this terminal's session with words, give
.B \-c
last or use
.BR \-q .
"#),
        )])
        .man(
            r#"
send
.IR TEXT ,
print the reply, exit (one-shot); with stdin a pipe or file, one message:
stdin, a blank line, then TEXT.
The line
.BI session_id: " ID"
goes to standard error (unless
.B \-Q
or
.B session_id
in
.B config.toml
says otherwise; see FILES).
So
.B "cat snip.txt | hermes chat \-c \(dqapi v2\(dq \-q \(dqexplain this\(dq"
sends the file's text, a blank line, and
.BR "explain this" ,
as one message.
A new session is titled by
.I TEXT
(what you wrote), not by the first line of what came on stdin or of a
.B \-f
file:
.B "git diff | hermes chat \-q \(dqreview this change\(dq"
is titled
.BR "review this change" ;
.B \-\-title
wins over both.
A terminal,
.B /dev/null
or a closed stdin adds nothing.
"#,
        )
        .takes(|a, v| {
            let query = v.utf8("-q")?;
            a.query = Some(if query == "-" { Query::Stdin } else { Query::Text(query) });
            Ok(())
        }),
        option(
            "-f",
            "--file",
            Value::new("FILE", Kind::File),
            "put the text file FILE into the message, \
            fenced and named (after stdin, before TEXT), or send the image FILE with it (PNG, JPEG, GIF or \
                WebP, at most 20 MiB; kept once in the store's images/); again for more, at most 32; any \
                    other file that is not text is refused",
        )
        .repeats()
        .man(
            r#"
put the text file FILE into the message, fenced and named (after stdin,
before TEXT), or send the image FILE with it (PNG, JPEG, GIF or WebP, at
most 20 MiB; kept once in the store's images/); again for more, at most
32; any other file that is not text is refused.
Each file becomes its name as given, a colon, and its text in a Markdown
code block whose fence is longer than any run of backticks in it, with the
name's extension as its language:
.PP
.RS
.EX
$ git diff | hermes chat \-f src/db.rs \-q "does the diff break this?"
.EE
.RE
.IP
sends one message: the diff, a blank line,
.BR "src/db.rs:" ,
the file in a
.B \(ga\(ga\(gars
block, a blank line, then the question.
Without
.B \-q
and with stdin a terminal, the files go with the first message typed
(as
.B /file
puts them).
Every file is read whole before anything is saved: one that is not there
(the nearest name in its directory is suggested), a directory, what is
not a regular file (a socket, a device, and for
.B /file
a FIFO: what may never end is refused before anything is read from it,
so the chat never waits on it; a pipe given to
.B \-f
on the command line, as
.BR "\-f <(git diff)" ,
is read to its end, and Ctrl-C stops hermes meanwhile), or one
that is neither text nor an image (it holds a NUL byte or is not UTF-8; a
PDF, a program or an archive is named as such) is a usage error, exit 2,
and so are more than 32 files, a message that would be larger than 16 MiB
with them, an image larger than 20 MiB and an image cut short before its
header ends; nothing is saved.
.IP
An image (PNG, JPEG, GIF or WebP, told by its first bytes, whatever its
name) goes with the message as an image, not into its text:
.PP
.RS
.EX
$ hermes chat \-f photo.png \-q "what is this?"
.EE
.RE
.IP
keeps the image once in
.BI $HERMES_HOME/images/ SHA256 .png
(see
.BR FILES ),
and the message names it.
hermes's own request to the server (the shipped
.BR openai\-compatible ),
and any agent that reads
.BR json ,
get the message's content as OpenAI's content parts: its text, then each
image as a
.B data:
URL
.RB ( {\(dqtype\(dq:\(dqimage_url\(dq,\(dqimage_url\(dq:{\(dqurl\(dq:\(dqdata:image/png;base64,...\(dq}} ),
at every turn that sends the message; a message without images is sent
as a string, as ever.
An agent that reads a
.B transcript
or the
.B text
gets a line after the message's text for each image,
.BR "[image: photo.png, /home/ana/.hermes/images/" "SHA256" .png] ,
its file's full path (the shipped
.B ollama
agent passes it on, and
.B ollama run
reads an image it finds named so in the prompt for a model that takes
images). A message needs text with its images.
"#,
        )
        .takes(|a, v| {
            a.files.push(v.os());
            Ok(())
        }),
        switch("-Q", "--quiet", "do not print 'session_id: ID' or hints to stderr")
            .man(
                r#"
do not print
.RB \(aq session_id:
.IR ID \(aq
or hints to stderr.
"#,
            )
            .sets(|a| a.quiet = true),
        switch(
            "",
            "--json",
            "one-shot only: print the turn as one JSON object instead of the reply \
            (session_id, title, created, model, role, reply, code, interrupted, incomplete, usage, error, \
                exit_status)",
        )
        .man(
            r#"
one-shot only: print the turn as one JSON object instead of the reply
(session_id, title, created, model, role, reply, code, interrupted, incomplete,
usage, error, exit_status), on one line once the turn is over, whatever
its exit status, for a script or a cron job to read:
.PP
.RS
.EX
{"session_id":"20261202_143015_a1b2c3","title":"disk report",
 "created":false,"model":"gpt\-4o\-mini","role":null,
 "reply":"...","code":[],"interrupted":false,"incomplete":false,
 "usage":{"prompt_tokens":812,"completion_tokens":95,"total_tokens":907},
 "error":null,"exit_status":0}
.EE
.RE
.IP
Every key is always there.
.B created
says whether this turn made the session;
.B model
is the one the turn asked for (null: the agent's default);
.B code
holds the reply's fenced code blocks, in order, without their fences (as
.B \-x
prints them; null when
.B reply
is);
.B reply
is the reply as saved (null with no agent, or when none came), and when
saving it failed (a full disk, exit 4) the reply as it came, which is then
in the object alone (a warning says so);
.B incomplete
is true when the reply did not end (see below: it holds what arrived);
.B usage
the tokens the server counted (null when it did not say; see
.BR AGENTS );
.B error
is null unless the turn failed, and then the same text is said on
standard error, and
.B exit_status
is the failure's (3 for an agent that failed: the message is saved, and
the object names its session; 1 for a name that matches nothing, 4 for a
lock another hermes held too long: then
.B session_id
is null when no session was settled on).
The
.B session_id:
line is not printed.
A mistake in what was given (exit status 2: an empty message, a bad
option value, a title that is taken) prints no object: it is said on
standard error alone, as the command line's own usage errors are.
In an interactive chat
.B \-\-json
is a usage error.
"#,
        )
        .sets(|a| a.json = true),
        switch(
            "-x",
            "--code",
            "one-shot only: print only the reply's fenced code, every block in order \
            without its fences, not the reply (kept as ever); a reply with none is exit 3",
        )
        .man(
            r#"
one-shot only: print only the reply's fenced code, every block in order
without its fences, not the reply (kept as ever); a reply with none is
exit 3.
Each block is printed with a newline after it, nothing between them, byte
for byte as the reply has it (a block left open at the reply's end runs to
its end); a terminal on standard output shows no drawn reply, only the
code:
.B "hermes \-x \-\-no\-save a one-liner to count lines in *.rs | sh"
is a script's way to ask for a command.
A reply without a code block says so in one line on standard error and
exits 3; it is kept in the session (with
.BR \-\-no\-save ,
not).
With
.BR \-\-json ,
the object holds the blocks (its
.B code
array, there with or without
.BR \-x ).
In an interactive chat
.B \-x
is a usage error:
.B /copy code
copies a code block there.
"#,
        )
        .sets(|a| a.code = true),
        switch(
            "",
            "--no-save",
            "one-shot only: make the turn and print the reply, keep nothing: no session \
            made or changed (with -c or -r, the session is the context and stays as it was), no breadcrumb \
                (also: save = \"false\" in config.toml or a role)",
        )
        .man(
            r#"
one-shot only: make the turn and print the reply, keep nothing: no
session made or changed (with \-c or \-r, the session is the context and
stays as it was), no breadcrumb (also: save = "false" in config.toml or a
role).
The conversation the agent reads is built in memory: the session's file
(when one is continued) with the message after it; the store is only read,
so the file stays byte for byte as it was, and
.B sessions list
shows no new session.
A turn that fails (exit 3) leaves nothing either: no
.RB \(dq hi " (2)\(dq"
after a failed try.
The line
.BI session_id: " ID"
is not printed;
.B \-\-json
has
.B session_id
and
.B title
null for a new session,
.B created
false.
With
.B \-\-no\-agent
(nothing to send), or no agent configured, it is a usage error (exit 2),
and so in an interactive chat, which always keeps its session:
.B save
applies to one-shot turns.
"#,
        )
        .sets(|a| a.no_save = true),
        switch(
            "-e",
            "--execute",
            "one-shot only: the reply's one command (a fenced block, or a line; the \
            shell role gives one) is shown and asked about on the terminal: run it with $SHELL -c, edit it, \
                copy it, or not; hermes exits with its status, and the session notes what became of it; \
                    without a terminal nothing is run: the command is printed, exit 2",
        )
        .man(
            r#"
one-shot only: the reply's one command (a fenced block, or a line; the
shell role gives one) is shown and asked about on the terminal: run it
with $SHELL \-c, edit it, copy it, or not; hermes exits with its status,
and the session notes what became of it; without a terminal nothing is
run: the command is printed, exit 2.
The question is
.BR "Run it? [r]un, [e]dit, [c]opy, [n]o" :
.B r
runs it with
.B $SHELL \-c
(else
.BR /bin/sh )
on the terminal, and hermes exits with its exit status (128 + N when
signal N ended it);
.B e
brings it into the line editor, and asks again;
.B c
copies it to the clipboard (OSC 52, as
.BR /copy );
.BR n ,
Enter or Ctrl\-D run nothing (exit 0).
The session keeps a system message after the reply:
.BR "hermes \-e: ran it: exit status 0: COMMAND" ,
or
.BR "not run" ,
or
.BR "copied, not run" .
Nothing is ever run unless a person at the terminal (standard input and
standard error) says so: in a pipe or from cron the command is printed on
standard output and hermes exits 2.
A reply that is not one command (two blocks, several lines of prose) is
exit 3, the reply kept.
Not with
.BR \-\-json ,
.B \-x
or
.BR \-\-no\-agent .
"#,
        )
        .sets(|a| a.execute = true),
        switch(
            "",
            "--usage",
            "after each reply, one line on stderr with its tokens (in, out) and the \
            session's total, as the agent reported them (also: usage = \"true\" in config.toml)",
        )
        .man(
            r#"
after each reply, one line on stderr with its tokens (in, out) and the
session's total, as the agent reported them (also: usage = "true" in
config.toml), in a one-shot turn and in an interactive chat:
.RS
.EX
hermes: tokens: 1,234 in, 56 out; this session 9,876
.EE
.RE
.IP
An agent that reported none is said so on the line
.RB ( "tokens: none reported by the agent" );
with
.B \-\-no\-save
the session's total is not kept, and the line says
.BR "not kept (\-\-no\-save)" .
"#,
        )
        .sets(|a| a.usage = true),
        option(
            "-m",
            "--model",
            Value::new("MODEL", Kind::Model),
            "the model to use, kept in the session: -c \
            continues with the session's model unless -m says otherwise (default: 'model' in config.toml, \
                then $HERMES_MODEL, then $OPENAI_MODEL for json)",
        )
        .man(
            r#"
the model to use, kept in the session: \-c continues with the session's
model unless \-m says otherwise (default: \(aqmodel\(aq in config.toml, then
$HERMES_MODEL, then $OPENAI_MODEL for json).
A model's name is one line of at most 200 characters, none of them a
control character or an invisible one (a bidi override, a zero-width
space), as a title is; one that is not is a usage error (exit 2), here, in
.BR /model ,
.B config set model
and
.BR $HERMES_MODEL ,
and an error naming its line in
.BR config.toml .
A model that comes with an import or a merged copy is not refused but
cleaned (those characters taken out, cut to 200), with a warning.
The session records the model of each message it is sent with (see
.BR FILES );
the agent receives it in the
.B json
request's
.B model
and as
.BR $HERMES_MODEL .
"#,
        )
        .takes(|a, v| {
            let model = crate::store::session::clean_model(&v.utf8("-m")?)
                .map_err(|why| Error::usage(format!("-m: {why}")))?;
            a.model = Some(model);
            Ok(())
        }),
        option(
            "-s",
            "--system",
            Value::new("TEXT", Kind::Text),
            "the session's system prompt (a new \
            session's default: 'system' in config.toml)",
        )
        .group(2)
        .man(
            r#"
the session's system prompt (a new session's default: \(aqsystem\(aq in
config.toml).
It is the session's first message, in the role
.BR system ;
given with
.BR \-c ,
it replaces the prompt the session had.
"#,
        )
        .takes(|a, v| {
            a.system = Some(System::Text(v.utf8("-s")?));
            Ok(())
        }),
        option("", "--system-file", Value::new("FILE", Kind::File), "the system prompt from FILE")
            .group(2)
            .man(
                r#"
the system prompt from FILE
.RB ( \- :
stdin).
"#,
            )
            .takes(|a, v| {
                a.system = Some(System::File(v.os()));
                Ok(())
            }),
        option(
            "",
            "--role",
            Value::new("NAME", Kind::Role),
            "start with the role NAME: its system prompt, \
            and its model, context budget and agent where no option here says otherwise; a session it makes \
                records it (see 'hermes roles')",
        )
        .man(
            r#"
start with the role NAME: its system prompt, and its model, context budget
and agent where no option here says otherwise; a session it makes records
it (see 'hermes roles').
See
.B hermes roles
below for what a role is.
A new session starts with the role's prompt and records the role in its
header (see
.BR FILES );
given with
.B \-c
.IR NAME ,
the session takes the role's prompt as
.B \-s
would give it, and records the role.
The role's model is sent in its sessions (and recorded, as
.B \-m
would), unless
.B \-m
says otherwise;
.BR \-s ,
.BR \-\-context
and
.B \-\-agent
win over the role's prompt, budget and agent.
Its values reach the settings as the command line's, named
.BI "\-\-role " NAME
(what
.B /model
says of where the model came from).
A role that is nowhere is a usage error (exit 2) that names the nearest
role and lists them all; a role file that does not read (a mistake, named
by its line, or one another user can write) is exit 4; either way nothing
is saved.
"#,
        )
        .takes(|a, v| {
            a.role = Some(v.lossy());
            Ok(())
        }),
        option(
            "",
            "--agent",
            Value::new("CMD", Kind::Shell),
            "the command that writes replies (default: \
            $HERMES_AGENT, then 'agent' in config.toml)",
        )
        .group(3)
        .man(
            r#"
the command that writes replies (default:
.BR $HERMES_AGENT ,
then
.RB \(aq agent \(aq
in
.BR config.toml ).
See
.BR AGENTS .
"#,
        )
        .takes(|a, v| {
            let command = v.utf8("--agent")?;
            if command.trim().is_empty() {
                return Err(Error::usage("--agent wants a command; --no-agent runs none"));
            }
            a.agent = Choice::Command(command);
            Ok(())
        }),
        switch("", "--no-agent", "only save the message; no reply")
            .group(3)
            .man(
                r#"
only save the message; no reply.
"#,
            )
            .sets(|a| a.agent = Choice::Disabled),
        switch(
            "",
            "--plain",
            "show replies as the agent sent them, not as Markdown drawn for the terminal \
            (also: render = \"plain\" in config.toml, or TERM=dumb)",
        )
        .man(
            r#"
show replies as the agent sent them, not as Markdown drawn for the
terminal (also: render = "plain" in config.toml, or TERM=dumb).
"#,
        )
        .sets(|a| a.plain = true),
        option("", "--context", Value::new("N", Kind::Number), crate::store::context::BUDGET_HELP)
            .man(
                r#"
the context budget: a turn sends at most N characters of the conversation
(default: \(aqcontext\(aq in config.toml, else 300000; \(aqoff\(aq: no limit).
See
.BR CONTEXT .
"#,
            )
            .takes(|a, v| {
                let budget = v.lossy();
                budget_arg(&budget)?;
                a.context = Some(budget);
                Ok(())
            }),
        option(
            "",
            "--timeout",
            Value::new("SECONDS", Kind::Number),
            "give up on a reply when the agent has \
            sent nothing for SECONDS (default 300, or 'timeout' in config.toml; 0: no limit): exit 3, what \
                arrived kept and marked incomplete",
        )
        .man(
            r#"
give up on a reply when the agent has sent nothing for SECONDS (default
300, or \(aqtimeout\(aq in config.toml; 0: no limit): exit 3, what arrived
kept and marked incomplete.
The clock starts again with every byte, so a long reply that streams is
never cut; a server that accepts the connection and never answers, or
stops in the middle, is.
curl, for the shipped
.BR openai\-compatible ,
is given the same limit to connect.
"#,
        )
        .takes(|a, v| {
            let seconds = v.lossy();
            crate::settings::parse_timeout(&seconds).map_err(Error::Usage)?;
            a.timeout = Some(seconds);
            Ok(())
        }),
        option("-o", "--option", Value::new("KEY=VALUE", Kind::Text), OPTION_HELP)
            .repeats()
            .man(
                r#"
a model option sent with each request and kept in the session:
temperature=0\-2, top_p=0\-1, max_tokens=N, seed=N, stop=TEXT; again for
more (also in a role, and in config.toml).
max_tokens is from 1, seed a whole number, stop a line.
The same keys in a role's header and in
.B config.toml
give defaults; an option on the command line wins over the role's, the
role's over the session's, the session's over
.BR config.toml 's.
Each value is checked before anything is sent or saved: a key that is no
option (with the nearest one), a value out of range, or a key given twice
is exit 2, naming the key.
The shipped
.B openai\-compatible
puts them in the request body
.RB ( "\(dqtemperature\(dq:0.2" );
an agent that reads JSON finds them there; every agent gets them as
.B $HERMES_OPTIONS
(KEY=VALUE a line); the shipped
.B llm
passes them as its
.BI \-o " KEY VALUE" ;
.B ollama run
takes none (it says so; the
.B openai\-compatible
agent sends them to ollama's OpenAI API).
.B sessions show
names them on its header line.
"#,
            )
            .takes(|a, v| {
                let (key, value) = model_option(&v.utf8("-o")?)?;
                if a.options.iter().any(|(k, _)| *k == key) {
                    return Err(Error::usage(format!("-o {key} is given twice")));
                }
                a.options.push((key, value));
                Ok(())
            }),
        option(
            "",
            "--var",
            Value::new("KEY=VALUE", Kind::Text),
            "fill {{KEY}} in the role's text with \
            VALUE; again for more ('hermes roles' shows each role's variables)",
        )
        .repeats()
        .man(
            r#"
fill {{KEY}} in the role's text with VALUE; again for more ('hermes
roles' shows each role's variables).
A role whose variable is not given, a variable the role does not have,
and
.B \-\-var
without
.B \-\-role
are exit 2, naming it;
.B hermes roles
shows each role's variables.
"#,
        )
        .takes(|a, v| {
            let pair = v.utf8("--var")?;
            let (key, value) =
                crate::agent::role::variable(&pair).map_err(|why| Error::usage(format!("--var: {why}")))?;
            a.vars.retain(|(k, _)| *k != key);
            a.vars.push((key, value));
            Ok(())
        }),
        option(
            "",
            "--schema",
            Value::new("JSON|FILE", Kind::File),
            "ask for a reply of JSON of this shape \
            (a JSON Schema, or a file holding one): sent as the request's response_format; a reply that is \
                not such JSON is kept, and the chat exits 3",
        )
        .man(
            r#"
ask for a reply of JSON of this shape (a JSON Schema, or a file holding
one): sent as the request's response_format; a reply that is not such
JSON is kept, and the chat exits 3.
The schema is given as text (starting with
.BR { )
or in a file.
It is sent as the request's
.B response_format
(OpenAI's
.BR json_schema ),
to other agents as
.B $HERMES_SCHEMA
(the shipped
.B llm
passes it as its
.BR \-\-schema ,
.B ollama
asks for JSON), and the reply is checked: it must be JSON (or one fenced
block of it), of the schema's
.BR type ,
with its
.B required
keys, its
.B properties
and
.B items
of their types, and values its
.B enum
allows (nested; the rest of the schema is the server's to honour).
A reply that is not is kept, the place named
.RB ( "$.items[2].name is a number, not string" ),
and the chat exits 3.
A schema that is not a JSON object is exit 2, nothing sent.
"#,
        )
        .takes(|a, v| {
            a.schema = Some(
                crate::agent::schema::load(&v.os())
                    .map_err(|why| Error::usage(format!("--schema: {why}")))?,
            );
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
                    "words '{words}' after -c '{name}' and -q: the words are a message, as -q is; quote a \
                        title with spaces: hermes chat -c \"{name} {words}\""
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
const OPTION_HELP: &str = "a model option sent with each request and kept in the session: temperature=0-2, \
    top_p=0-1, max_tokens=N, seed=N, stop=TEXT; again for more (also in a role, and in config.toml)";

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
