//! The words of `--help` for every command: the usage lines and prose,
//! kept in one place so that they and the man page can be checked against
//! each other. `{options}` and `{verbs}` stand for the lines help.rs makes
//! from the option table in defs.rs.

pub(crate) const MAIN: &str = "\
hermes - chat sessions as plain files; every terminal continues its own

Usage:
  hermes [-p PROFILE] [chat] [CHAT OPTIONS]
  hermes [-p PROFILE] sessions COMMAND [ARGS]
  hermes [-p PROFILE] config get|set|unset|list|path|check [ARGS]
  hermes completion bash|zsh|fish
  hermes help [COMMAND]

Commands:
  chat         talk in a new or continued session (the default)
  sessions     {sessions}
  config       set up the agent, server, key and model in config.toml
  completion   print a shell completion script
  help         show help for a command

Options:
  -p, --profile NAME   use $HERMES_HOME/profiles/NAME
  -h, --help           show this help
  -V, --version        show the version (-V -v: with build details)

Common use:
  hermes chat -c                       continue this terminal's session
  hermes chat -c \"redis debug\"         continue the session with that title
  hermes chat -c NAME --create-if-missing -q TEXT
                                       post to a named thread, creating it once
  hermes sessions list                 find your way back to any session

Environment: HERMES_HOME (default ~/.hermes), HERMES_AGENT.
Exit status: 0 ok, 1 no such session, 2 usage, 3 agent failed, 4 store
failed, 130 interrupted. See hermes(1).
";

pub(crate) const CONFIG: &str = "\
Usage: hermes config get KEY
       hermes config set KEY VALUE
       hermes config unset KEY
       hermes config list
       hermes config path
       hermes config check [--timeout SECONDS]

The settings in config.toml ($HERMES_HOME/config.toml, or the profile's):
  agent            the command that answers; a bare name is an agent that
                   comes with hermes (openai-compatible, ollama, llm), else
                   a program on PATH
  agent_input      what the agent reads: json (default), transcript, text
  model            the model, given in the request and as $HERMES_MODEL
  base_url         the server's API root, given as $OPENAI_BASE_URL
  api_key_env      the environment variable that holds the key
  api_key_command  a command that prints the key, run for every reply
  system           the system prompt of new sessions

The key reaches the agent as $OPENAI_API_KEY: never in config.toml, on a
command line or in a message.

Commands:
  get KEY          print the value hermes uses (exit 1 when there is none)
  set KEY VALUE    write it to config.toml (comments and order kept; never
                   past 64 KiB: then nothing is written, exit 2)
  unset KEY        remove it from config.toml (exit 1 when it was not set);
                   set and unset hold a lock, and mend a config.toml made
                   too large by hand
  list             every value, and where it came from (config.toml, the
                   environment, a default)
  path             print where config.toml is
  check            send one tiny request through the agent and say what is
                   wrong: no agent, not found, cannot connect, HTTP 401 (the
                   key), HTTP 404 (the URL or the model)
      --timeout SECONDS
                   how long check waits (default 30)
  -h, --help       show this help

Example:
  hermes config set agent openai-compatible
  hermes config set base_url https://api.openai.com/v1
  hermes config set api_key_command 'pass show openai'
  hermes config set model gpt-4o-mini
  hermes config check
";

pub(crate) const CHAT: &str = "\
Usage: hermes chat [-c [NAME] | -r ID | --pick] [--create-if-missing]
                   [-q TEXT|-] [-Q] [--title TITLE] [-m MODEL]
                   [-s TEXT | --system-file FILE] [--agent CMD | --no-agent]
                   [--plain] [--context N]

{options}

Interactive commands: /help /title [NEW] /new [TITLE] /continue NAME /retry
/edit /save [FILE] /save! FILE /sessions /context [N] /compact [N] /id
/model [NAME] /system [TEXT] /quit; Tab completes them, and titles after
/continue and /new. Ctrl-D quits; Ctrl-C stops a running reply. On a
terminal the prompt names the session and edits the line: arrows, Home, End
and Emacs keys; Up, Down and Ctrl-R for earlier messages; Alt-Enter or Ctrl-J
for a new line; Ctrl-X Ctrl-E for $VISUAL or $EDITOR (with TERM=dumb, plain
lines). See 'man hermes'. On a terminal a reply's Markdown is drawn as it
streams and its escape sequences are shown, not obeyed (colours pass, unless
NO_COLOR is set: then they are dropped); the file keeps the reply as sent.
What the agent leaves running once it exits is killed.
";

pub(crate) const SESSIONS: &str = "\
Usage: hermes sessions COMMAND [ARGS]

Commands:
{verbs}

'ls' is list and 'rm' is delete. NAME is an ID, an exact title, or a short
ID: 8 or more leading characters of an ID, or its last 6 hex digits, when
only one session has them. Run 'hermes sessions COMMAND --help' for more.
";

pub(crate) const LIST: &str = "\
Usage: hermes sessions list [TEXT] [--limit N] [--all] [--here] [--json]

List sessions, newest activity first: title, last active, messages, ID.
'*' marks the session 'hermes chat -c' would continue in this terminal.
With TEXT, only sessions whose title holds it (case is ignored unless TEXT
has a capital letter). On a terminal the table fits its width; to a pipe
each line is MARK, TITLE, DATE, MESSAGES and ID, tab-separated.

{options}
";

pub(crate) const SEARCH: &str = "\
Usage: hermes sessions search TEXT [--limit N] [--json]

Sessions whose title or messages hold TEXT, newest activity first, each
with the place it matched first. Case is ignored unless TEXT has a capital
letter. TEXT is matched as the messages read, whatever the file escapes
(quotes, backslashes, newlines, CJK). Exit 0 when some session matches,
1 when none does. Damaged session files are skipped with a warning.

{options}
";

pub(crate) const PICK: &str = "\
Usage: hermes sessions pick

Choose a session on a full-screen list of all of them, newest first, and
print its ID: hermes chat -r \"$(hermes sessions pick)\". Typing filters
the list by title at once, and by message text (as 'sessions search' finds
it) when typing pauses.

Keys: Up/Down or Ctrl-P/Ctrl-N move, PageUp/PageDown, Home/End; Backspace,
Ctrl-W and Ctrl-U edit the filter; Enter prints the chosen ID; Esc or
Ctrl-C leave printing nothing (exit 1). It draws on the terminal
(/dev/tty) and gives the screen back as it was; without a terminal it is a
usage error. 'hermes chat --pick' picks and continues the session here.
";

pub(crate) const SHOW: &str = "\
Usage: hermes sessions show NAME|ID [--json]

Print a session's conversation. NAME is an ID, an exact title or a short
ID (see 'hermes sessions --help'). Control
characters in it are shown as ^[ and the like, not sent to the terminal.

{options}
";

pub(crate) const CURRENT: &str = "\
Usage: hermes sessions current [--json] [--format TEMPLATE]

Print the session 'hermes chat -c' would continue here and why: breadcrumb
(this terminal used it last), workspace (newest in this git root or
directory), or latest (newest of all). Exit 1 when there is none.

{options}
";

pub(crate) const EXPORT: &str = "\
Usage: hermes sessions export [NAME|ID...] [--format json|jsonl|markdown]
                              [-o FILE [--force]]

Export the named sessions, or all of them when none is named. A damaged
session is skipped with a warning, and the exit status is then 4.

{options}
";

pub(crate) const IMPORT: &str = "\
Usage: hermes sessions import [--from FORMAT] [--dry-run] FILE

Import sessions from FILE ('-' for stdin). Sessions whose ID already exists
are skipped, never overwritten, so importing a file twice adds nothing.

{options}

hermes is 'hermes sessions export --format jsonl'; hermes-agent is the Python
Hermes's own 'sessions export --format jsonl -'; llm is
'llm logs list --json -n 0'. The whole file is checked first: a file that is
not what --from says imports nothing. A line that is not JSON at all is
skipped and named, the rest is imported, and hermes exits 4. What hermes
cannot hold (tool calls and results, attachments) is left out and counted.
";

pub(crate) const RENAME: &str = "\
Usage: hermes sessions rename NAME|ID TITLE

Give a session a new title. Control and invisible characters are removed and
whitespace is collapsed; a title is at most 100 characters and unique, and
is neither shaped like an ID or an ID prefix (20261204) nor the short ID of
a session (names are read as IDs first).
";

pub(crate) const REPAIR: &str = "\
Usage: hermes sessions repair NAME|ID [--dry-run]

Mend a session whose header reads but one of whose messages does not (every
command that would write to it refuses it, exit 4, and names this one). The
file is first copied, whole and byte for byte, into damaged/ beside
sessions/ (ID.json.YYYYMMDD_HHMMSS, mode 0600), never deleted; then the
session is written back with every readable message, and what was kept and
left out is said. A session that is not damaged is left as it is.

{options}
";

pub(crate) const DELETE: &str = "\
Usage: hermes sessions delete NAME|ID... [--yes]

Delete sessions. On a terminal hermes asks first; otherwise --yes is needed.

{options}
";

pub(crate) const PRUNE: &str = "\
Usage: hermes sessions prune --older-than DAYS [--dry-run] [--yes]

Delete sessions with no activity for DAYS days, temporary files of
interrupted writes (of a session once no running hermes holds its lock,
others once an hour old), breadcrumbs older than 30 days, and
breadcrumbs pointing at a session file that does not exist (or that this
prune removes). Damaged session files, sessions written by a newer hermes
and sessions written to while prune runs are left in place.

{options}
";

pub(crate) const STATS: &str = "\
Usage: hermes sessions stats [NAME|ID] [--json]

Print the number of sessions and messages, bytes on disk, the oldest and
newest activity, the number of terminal breadcrumbs, the temporary files
interrupted writes left (count and bytes; prune removes them), and how
many sessions a turn could not send whole under the context budget.

With NAME, one session: its messages, bytes, characters, summaries, the
characters a turn would send without a budget (the system prompt, the
latest summary and the messages after it), the budget, and whether that
is over it.

{options}
";

pub(crate) const COMPACT: &str = "\
Usage: hermes sessions compact NAME|ID [--keep N] [--agent CMD] [--context N]

Ask the agent for a summary of the session's older messages and store it
in the session, after them, marked as a summary. From then on a turn sends
the system prompt, the latest summary and the messages after it. Nothing
is removed: the older messages stay in the file, shown and searchable.
Kept as they are: the newest messages that fit in half the context budget
(the other half is for the system prompt, the summary and the turns to
come), or with --keep the last N. If the agent fails, is interrupted or
writes nothing, the session is left as it was (exit 3, or 130).

{options}
";

pub(crate) const MERGE: &str = "\
Usage: hermes sessions merge [TITLE] [--dry-run] [--restore] [--yes]

Merge the conflict copies that sync tools and editors leave beside session
files (Syncthing's ID.sync-conflict-*.json, Dropbox's and Nextcloud's
'ID (conflicted copy ...).json', ID.json~) into their sessions: every
message of both, in time order, each once; a title given by a person is
kept over an automatic one. Each copy is removed once the merged session
is safely on disk. A copy whose session is gone (deleted) is named and
left as it is; --restore brings it back as a session. A damaged copy is
named and left in place (exit 4). A merge never gives two sessions one
title.

With TITLE, merge the sessions that share that title (two machines started
the same thread before they synced) into the oldest of them, the same way;
the others are removed once it is safely on disk.

{options}
";

pub(crate) const MERGE_FILE: &str = "\
Usage: hermes sessions merge-file BASE OURS THEIRS

Merge two versions of one session file, as a git merge driver (%O %A %B):
the messages of both, in time order, each once, written into OURS (exit 0).
When both sides gave the session different titles, OURS keeps ours, the
messages are still merged, and the exit status is 1 so git asks you. Set
up, in a home kept in git:
  echo 'sessions/*.json merge=hermes' >> .gitattributes
  git config merge.hermes.name 'hermes sessions'
  git config merge.hermes.driver 'hermes sessions merge-file %O %A %B'
";

pub(crate) const COMPLETION: &str = "\
Usage: hermes completion bash|zsh|fish

Print a completion script. For example:
  bash:  eval \"$(hermes completion bash)\"
  zsh:   hermes completion zsh > \"${fpath[1]}/_hermes\"
  fish:  hermes completion fish > ~/.config/fish/completions/hermes.fish
";
