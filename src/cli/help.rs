//! The text of `--help` for every command. Kept in one place so that it and
//! the man page can be checked against each other.

pub const MAIN: &str = "\
hermes - chat sessions as plain files; every terminal continues its own

Usage:
  hermes [-p PROFILE] [chat] [CHAT OPTIONS]
  hermes [-p PROFILE] sessions COMMAND [ARGS]
  hermes completion bash|zsh|fish
  hermes help [COMMAND]

Commands:
  chat         talk in a new or continued session (the default)
  sessions     list, show, export, import, rename, delete and prune sessions
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

pub const CHAT: &str = "\
Usage: hermes chat [-c [NAME] | -r ID | --pick] [--create-if-missing]
                   [-q TEXT|-] [-Q] [--title TITLE] [--agent CMD | --no-agent]
                   [--context N]

Which session:
  (none)                 a new session
  -c, --continue         this terminal's last session; else the newest one in
                         this workspace (git root, else directory); else the
                         newest of all
  -c, --continue NAME    the session whose ID is NAME, else whose title is NAME
      --create-if-missing
                         with -c NAME: create the session titled NAME if none
                         matches (parallel calls create exactly one)
  -r, --resume ID        the session with this ID, or the one a short ID names
                         (8 or more leading characters, or the last 6 hex
                         digits)
      --pick             choose the session on a full-screen list and continue
                         it here (see 'hermes sessions pick --help')
      --title TITLE      title for a new session (refused if another session
                         has it)

How:
  -q, --query TEXT       send TEXT, print the reply, exit (one-shot); with
                         stdin a pipe or file, one message: stdin, a blank
                         line, then TEXT
  -q -                   read the message from stdin (also when stdin is not
                         a terminal)
  -Q, --quiet            do not print 'session_id: ID' or hints to stderr
      --agent CMD        the command that writes replies (default:
                         $HERMES_AGENT, then 'agent' in config.toml)
      --no-agent         only save the message; no reply
      --context N        send at most N characters of the conversation (the
                         context budget; default: 'context' in config.toml,
                         else 300000; 'off' sends it all)
  -h, --help             show this help

Interactive commands: /help /title [NEW] /new [TITLE] /continue NAME
/retry /edit /save [FILE] /sessions /context [N] /compact [N] /id /quit. Ctrl-D quits; Ctrl-C stops a
running reply. On a terminal the prompt names the session and edits the line:
arrows, Home, End and Emacs keys; Up, Down and Ctrl-R for earlier messages;
Alt-Enter or Ctrl-J for a new line; Ctrl-X Ctrl-E for $VISUAL or $EDITOR
(with TERM=dumb, plain lines). See 'man hermes'.
On a terminal a reply's escape sequences are shown, not obeyed (colours pass,
unless NO_COLOR is set); what the agent leaves running once it exits is
killed.
";

pub const SESSIONS: &str = "\
Usage: hermes sessions COMMAND [ARGS]

Commands:
  list [TEXT] [--limit N] [--all] [--here] [--json]
                         sessions, newest activity first ('*' marks the one
                         'hermes chat -c' would continue here); with TEXT,
                         those whose title holds it
  search TEXT [--limit N] [--json]
                         sessions whose title or messages hold TEXT
  pick                   choose a session on a full-screen list; print its ID
  show NAME|ID [--json]  print a conversation
  current [--json] [--format TEMPLATE]
                         which session 'hermes chat -c' would continue, and why
  export [NAME|ID...] [--format json|jsonl|markdown] [-o FILE]
                         export some or all sessions
  import [--from FORMAT] [--dry-run] FILE
                         import sessions from hermes, the Python Hermes or llm
  rename NAME|ID TITLE   give a session a new title
  delete NAME|ID... [--yes]
                         delete sessions (asks first on a terminal)
  prune --older-than DAYS [--dry-run] [--yes]
                         delete sessions inactive for DAYS, stray temporary
                         files and stale breadcrumbs
  stats [NAME|ID] [--json]
                         counts, sizes, oldest and newest, stray temporaries;
                         with NAME, one session's size against the budget
  compact NAME|ID [--keep N] [--agent CMD] [--context N]
                         have the agent summarise a session's older messages
  merge [TITLE] [--dry-run] [--yes]
                         merge conflict copies left by sync tools or editors
                         into their sessions, or the sessions sharing TITLE
  merge-file BASE OURS THEIRS
                         merge two versions of a session file (a git merge
                         driver)

'ls' is list and 'rm' is delete. NAME is an ID, an exact title, or a short
ID: 8 or more leading characters of an ID, or its last 6 hex digits, when
only one session has them. Run 'hermes sessions COMMAND --help' for more.
";

pub const LIST: &str = "\
Usage: hermes sessions list [TEXT] [--limit N] [--all] [--here] [--json]

List sessions, newest activity first: title, last active, messages, ID.
'*' marks the session 'hermes chat -c' would continue in this terminal.
With TEXT, only sessions whose title holds it (case is ignored unless TEXT
has a capital letter). On a terminal the table fits its width; to a pipe
each line is MARK, TITLE, DATE, MESSAGES and ID, tab-separated.

  -n, --limit N   show at most N sessions (default 20)
      --all       show every session
      --here      only sessions started in this workspace (git root, else
                  the current directory)
      --json      a JSON array of session headers, for scripts
";

pub const SEARCH: &str = "\
Usage: hermes sessions search TEXT [--limit N] [--json]

Sessions whose title or messages hold TEXT, newest activity first, each
with the place it matched first. Case is ignored unless TEXT has a capital
letter. TEXT is matched as the messages read, whatever the file escapes
(quotes, backslashes, newlines, CJK). Exit 0 when some session matches,
1 when none does. Damaged session files are skipped with a warning.

  -n, --limit N   show at most N sessions (default 20)
      --json      a JSON array: per session its ID, title, times, the count
                  of matches and the first 10 snippets
";

pub const PICK: &str = "\
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

pub const SHOW: &str = "\
Usage: hermes sessions show NAME|ID [--json]

Print a session's conversation. NAME is an ID, an exact title or a short
ID (see 'hermes sessions --help'). Control
characters in it are shown as ^[ and the like, not sent to the terminal.

      --json      the whole session file as JSON, raw text included
";

pub const CURRENT: &str = "\
Usage: hermes sessions current [--json] [--format TEMPLATE]

Print the session 'hermes chat -c' would continue here and why: breadcrumb
(this terminal used it last), workspace (newest in this git root or
directory), or latest (newest of all). Exit 1 when there is none.

      --json      {\"id\", \"title\", \"reason\"} as JSON
  -f, --format TEMPLATE
                  print TEMPLATE with {title}, {id}, {short_id} (the last 6
                  hex digits) and {reason} filled in, for a shell prompt or
                  a tmux status line; without a session, print nothing
";

pub const EXPORT: &str = "\
Usage: hermes sessions export [NAME|ID...] [--format json|jsonl|markdown] [-o FILE]

Export the named sessions, or all of them when none is named. A damaged
session is skipped with a warning, and the exit status is then 4.

  -f, --format FORMAT   json (an array, default), jsonl (one session a
                        line, for import) or markdown
  -o, --output FILE     write to FILE (atomically, mode 0600) instead of stdout;
                        a device or FIFO is written into, a symlink refused
";

pub const IMPORT: &str = "\
Usage: hermes sessions import [--from FORMAT] [--dry-run] FILE

Import sessions from FILE ('-' for stdin). Sessions whose ID already exists
are skipped, never overwritten, so importing a file twice adds nothing.

  --from FORMAT         what wrote FILE: hermes (default), hermes-agent or llm
  --dry-run             report what would be imported; write nothing

hermes is 'hermes sessions export --format jsonl'; hermes-agent is the Python
Hermes's own 'sessions export --format jsonl -'; llm is
'llm logs list --json -n 0'. The whole file is checked first: a file that is
not what --from says imports nothing. A line that is not JSON at all is
skipped and named, the rest is imported, and hermes exits 4. What hermes
cannot hold (tool calls and results, attachments) is left out and counted.
";

pub const RENAME: &str = "\
Usage: hermes sessions rename NAME|ID TITLE

Give a session a new title. Control and invisible characters are removed and
whitespace is collapsed; a title is at most 100 characters and unique.
";

pub const DELETE: &str = "\
Usage: hermes sessions delete NAME|ID... [--yes]

Delete sessions. On a terminal hermes asks first; otherwise --yes is needed.

  -y, --yes       do not ask
";

pub const PRUNE: &str = "\
Usage: hermes sessions prune --older-than DAYS [--dry-run] [--yes]

Delete sessions with no activity for DAYS days, temporary files of
interrupted writes (of a session once no running hermes holds its lock,
others once an hour old), breadcrumbs older than 30 days, and
breadcrumbs pointing at a session file that does not exist (or that this
prune removes). Damaged session files, sessions written by a newer hermes
and sessions written to while prune runs are left in place.

      --older-than DAYS   required
      --dry-run           list what would be removed; remove nothing
  -y, --yes               do not ask (needed when not on a terminal)
";

pub const STATS: &str = "\
Usage: hermes sessions stats [NAME|ID] [--json]

Print the number of sessions and messages, bytes on disk, the oldest and
newest activity, the number of terminal breadcrumbs, the temporary files
interrupted writes left (count and bytes; prune removes them), and how
many sessions a turn could not send whole under the context budget.

With NAME, one session: its messages, bytes, characters, summaries, the
characters a turn would send without a budget (the system prompt, the
latest summary and the messages after it), the budget, and whether that
is over it.

      --json      the same as a JSON object
";

pub const COMPACT: &str = "\
Usage: hermes sessions compact NAME|ID [--keep N] [--agent CMD] [--context N]

Ask the agent for a summary of the session's older messages and store it
in the session, after them, marked as a summary. From then on a turn sends
the system prompt, the latest summary and the messages after it. Nothing
is removed: the older messages stay in the file, shown and searchable.
Kept as they are: the newest messages that fit in half the context budget
(the other half is for the system prompt, the summary and the turns to
come), or with --keep the last N. If the agent fails, is interrupted or
writes nothing, the session is left as it was (exit 3, or 130).

      --keep N      keep the last N messages as they are
      --agent CMD   the command that writes the summary (default: as chat)
      --context N   the context budget in characters (default: 'context' in
                    config.toml, else 300000)
";

pub const MERGE: &str = "\
Usage: hermes sessions merge [TITLE] [--dry-run] [--yes]

Merge the conflict copies that sync tools and editors leave beside session
files (Syncthing's ID.sync-conflict-*.json, Dropbox's and Nextcloud's
'ID (conflicted copy ...).json', ID.json~) into their sessions: every
message of both, in time order, each once; a title given by a person is
kept over an automatic one. Each copy is removed once the merged session
is safely on disk. A copy whose session is gone becomes the session. A
damaged copy is named and left in place (exit 4).

With TITLE, merge the sessions that share that title (two machines started
the same thread before they synced) into the oldest of them, the same way;
the others are removed once it is safely on disk.

      --dry-run   say what would be merged; change nothing
  -y, --yes       do not ask (needed when not on a terminal)
";

pub const MERGE_FILE: &str = "\
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

pub const COMPLETION: &str = "\
Usage: hermes completion bash|zsh|fish

Print a completion script. For example:
  bash:  eval \"$(hermes completion bash)\"
  zsh:   hermes completion zsh > \"${fpath[1]}/_hermes\"
  fish:  hermes completion fish > ~/.config/fish/completions/hermes.fish
";

pub fn for_sessions_verb(verb: &str) -> Option<&'static str> {
    Some(match verb {
        "list" => LIST,
        "search" => SEARCH,
        "pick" => PICK,
        "show" => SHOW,
        "current" => CURRENT,
        "export" => EXPORT,
        "import" => IMPORT,
        "rename" => RENAME,
        "delete" => DELETE,
        "prune" => PRUNE,
        "stats" => STATS,
        "compact" => COMPACT,
        "merge" => MERGE,
        "merge-file" => MERGE_FILE,
        _ => return None,
    })
}
