# fish completion for hermes
# Install it: hermes completion fish > ~/.config/fish/completions/hermes.fish

# What the command line is made of, from hermes's own table of commands
# (filled in by 'hermes completion fish'). A context is a command's words:
# '' (before any), chat, sessions, sessions/list, config/set, ...

# __hermes_verbs CONTEXT [all]: the verbs of a command that has them;
# with "all", their other names too ('ls' is list).
function __hermes_verbs
    switch "$argv[1]/$argv[2]"
        case sessions/
            printf '%s\n' list search pick show current export import rename repair delete prune stats compact merge merge-file
        case sessions/all
            printf '%s\n' list ls search pick show current export import rename repair delete rm prune stats compact merge merge-file
        case config/
            printf '%s\n' get set unset list path check
        case config/all
            printf '%s\n' get set unset list path check
    end
end

# __hermes_value CONTEXT OPTION: what the option's value is; nothing when
# it takes none, ?KIND when it may be left out.
function __hermes_value
    switch "$argv[1]/$argv[2]"
        case '/-p' '/--profile'
            echo 'profile'
        case 'chat/-c' 'chat/--continue'
            echo '?session'
        case 'chat/-r' 'chat/--resume'
            echo 'session-id'
        case 'chat/--title'
            echo 'text'
        case 'chat/-q' 'chat/--query'
            echo 'text'
        case 'chat/-f' 'chat/--file'
            echo 'file'
        case 'chat/-m' 'chat/--model'
            echo 'model'
        case 'chat/-s' 'chat/--system'
            echo 'text'
        case 'chat/--system-file'
            echo 'file'
        case 'chat/--role'
            echo 'role'
        case 'chat/--agent'
            echo 'shell'
        case 'chat/--context'
            echo 'number'
        case 'chat/--timeout'
            echo 'number'
        case 'chat/-o' 'chat/--option'
            echo 'text'
        case 'chat/--var'
            echo 'text'
        case 'chat/--schema'
            echo 'file'
        case 'sessions/list/-n' 'sessions/list/--limit' 'sessions/ls/-n' 'sessions/ls/--limit'
            echo 'number'
        case 'sessions/search/-n' 'sessions/search/--limit'
            echo 'number'
        case 'sessions/current/-f' 'sessions/current/--format'
            echo 'text'
        case 'sessions/export/-f' 'sessions/export/--format'
            echo 'words:json,jsonl,markdown'
        case 'sessions/export/-o' 'sessions/export/--output'
            echo 'file'
        case 'sessions/import/--from'
            echo 'words:hermes,hermes-agent,llm'
        case 'sessions/prune/--older-than'
            echo 'number'
        case 'sessions/compact/--keep'
            echo 'number'
        case 'sessions/compact/--agent'
            echo 'shell'
        case 'sessions/compact/--context'
            echo 'number'
        case 'config/check/--timeout'
            echo 'number'
        case 'models/--timeout'
            echo 'number'
    end
end

# __hermes_walk: the words before the cursor read as hermes reads them:
# the context, how many arguments it has been given (and the first), the
# kind of a value still to come, and of one that may come.
function __hermes_walk
    set -l words (commandline -opc)
    set -e words[1]
    set -l context ''
    set -l given
    set -l pending ''
    set -l optional ''
    for w in $words
        if test -n "$optional"; and not string match -q -- '-*' $w
            set optional ''
            continue
        end
        set optional ''
        if test -n "$pending"
            set pending ''
            continue
        end
        if string match -q -- '-*' $w
            set -l name (string split -m 1 = -- $w)[1]
            if test -z "$context"; and not contains -- $name -p --profile -h --help -V --version --no-pager -v --verbose
                set context chat
            end
            set -l kind (__hermes_value "$context" $name)
            if test (string sub -l 1 -- "$kind") = '?'
                set optional (string sub -s 2 -- $kind)
            else if test -n "$kind"; and not string match -q -- '*=*' $w
                set pending $kind
            end
            continue
        end
        if test -z "$context"
            if contains -- $w chat sessions config roles models completion help
                set context $w
            else
                set context chat
            end
        else if not set -q given[1]; and not string match -q -- '*/*' $context; and contains -- $w (__hermes_verbs $context all)
            set context $context/$w
        else
            set -a given $w
        end
    end
    printf '%s\n' "$context" (count $given) "$pending" "$optional" "$given[1]"
end

# __hermes_at CONTEXT...: the cursor is in one of these contexts, where no
# option's value is due.
function __hermes_at
    set -l walk (__hermes_walk)
    test -z "$walk[3]"; and contains -- "$walk[1]" $argv
end

# __hermes_arg N CONTEXT...: the cursor is at argument N (from 0) of one of
# these contexts; N+ is N or any after it.
function __hermes_arg
    set -l walk (__hermes_walk)
    test -z "$walk[3]"; and test -z "$walk[4]"; or return 1
    contains -- "$walk[1]" $argv[2..-1]; or return 1
    if string match -q -- '*+' $argv[1]
        test $walk[2] -ge (string trim -r -c + -- $argv[1])
    else
        test $walk[2] -eq $argv[1]
    end
end

# __hermes_optional KIND: the word at the cursor may be the value of an
# option that goes without one (-c NAME), of this kind.
function __hermes_optional
    set -l walk (__hermes_walk)
    test "$walk[4]" = $argv[1]
end

# __hermes_first: the first argument given (hermes help COMMAND VERB).
function __hermes_first
    set -l walk (__hermes_walk)
    echo $walk[5]
end

# -p PROFILE as given, as arguments for hermes.
function __hermes_profile_args
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        if contains -- $words[1] -p --profile
            set -q words[2]; and printf '%s\n' -p $words[2]
            return
        else if string match -qr -- '^(--profile=|-p.)' $words[1]
            printf '%s\n' $words[1]
            return
        else if not string match -q -- '-*' $words[1]
            return
        end
        set -e words[1]
    end
end

# The models 'hermes models' kept (the shell never has the agent asked).
function __hermes_models
    command hermes (__hermes_profile_args) models --cached 2>/dev/null
end

# Role names, each with its description, from 'hermes roles':
# NAME<TAB>MODEL<TAB>DESCRIPTION<TAB>FILE.
function __hermes_roles
    command hermes (__hermes_profile_args) roles 2>/dev/null | while read -l line
        set -l fields (string split \t -- $line)
        printf '%s\t%s\n' $fields[1] $fields[3]
    end
end

# Session titles, or IDs with "id", each with a description, from
# 'hermes sessions list --completing WORD' (those whose title or ID starts
# with the word typed, any case; from the catalog):
# MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID.
function __hermes_sessions
    set -l word (commandline -ct | string unescape)
    command hermes (__hermes_profile_args) sessions list --completing "$word" 2>/dev/null | while read -l line
        set -l fields (string split \t -- $line)
        if test "$argv[1]" = id
            printf '%s\t%s\n' $fields[5] $fields[2]
        else
            printf '%s\t%s\n' $fields[2] $fields[3]
        end
    end
end

function __hermes_profiles
    set -l home $HERMES_HOME
    test -n "$home"; or set home $HOME/.hermes
    for dir in $home/profiles/*/
        basename $dir
    end
end

# The values of the setting named just before (config set KEY VALUE).
function __hermes_setting_values
    set -l words (commandline -opc)
    switch "$words[-1]"
        case agent_input
            printf '%s\n' json transcript text
        case render
            printf '%s\n' markdown plain
        case session_id
            printf '%s\n' always pipe never
        case save
            printf '%s\n' true false
        case usage
            printf '%s\n' true false
        case compact
            printf '%s\n' auto off
    end
end

complete -c hermes -f

complete -c hermes -n '__hermes_at ""' -a chat -d 'talk in a new or continued session (the default)'
complete -c hermes -n '__hermes_at ""' -a sessions -d 'your sessions: list, search, pick, show, current, export, import, rename, repair, delete, prune, stats, compact, merge and merge-file'
complete -c hermes -n '__hermes_at ""' -a config -d 'the agent, server, key and model in config.toml: get, set, unset, list, path and check'
complete -c hermes -n '__hermes_at ""' -a roles -d 'the roles chat --role takes: a system prompt with its model, budget and agent'
complete -c hermes -n '__hermes_at ""' -a models -d 'the models the configured server offers, asked of the agent'
complete -c hermes -n '__hermes_at ""' -a completion -d 'print a shell completion script'
complete -c hermes -n '__hermes_at ""' -a help -d 'show help for a command'
complete -c hermes -n '__hermes_at ""' -s p -l profile -x -a '(__hermes_profiles)' -d 'use $HERMES_HOME/profiles/NAME'
complete -c hermes -n '__hermes_at ""' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at ""' -s V -l version -d 'show the version (-V -v: with build details)'
complete -c hermes -n '__hermes_at ""' -l no-pager -d 'never page long output (show, export, help) on a terminal'
complete -c hermes -n '__hermes_at "" chat' -s c -l continue -d 'this terminal'\''s last session; else the newest one in this workspace (git root, else directory); else the newest of all'
complete -c hermes -n '__hermes_optional session' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at "" chat' -l create-if-missing -d 'with -c NAME: create the session titled NAME if none matches (parallel calls create exactly one); NAME is then only a full ID or an exact title: one that no title matches and that is shaped like an ID, an ID prefix (20261204) or a short ID is refused (exit 2), even if it abbreviates a session'\''s ID (-r continues that one)'
complete -c hermes -n '__hermes_at "" chat' -s r -l resume -x -a '(__hermes_sessions id)' -d 'the session with this ID, or the one a short ID names (8 or more leading characters, or the last 6 hex digits)'
complete -c hermes -n '__hermes_at "" chat' -l pick -d 'choose the session on a full-screen list and continue it here (see '\''hermes sessions pick --help'\'')'
complete -c hermes -n '__hermes_at "" chat' -l title -x -d 'title for a new session (refused if another session has it, or if it would be read as an ID)'
complete -c hermes -n '__hermes_at "" chat' -s q -l query -x -d 'send TEXT, print the reply, exit (one-shot); with stdin a pipe or file, one message: stdin, a blank line, then TEXT'
complete -c hermes -n '__hermes_at "" chat' -s f -l file -r -F -d 'put the text file FILE into the message, fenced and named (after stdin, before TEXT), or send the image FILE with it (PNG, JPEG, GIF or WebP, at most 20 MiB; kept once in the store'\''s images/); again for more, at most 32; any other file that is not text is refused'
complete -c hermes -n '__hermes_at "" chat' -s Q -l quiet -d 'do not print '\''session_id: ID'\'' or hints to stderr'
complete -c hermes -n '__hermes_at "" chat' -l json -d 'one-shot only: print the turn as one JSON object instead of the reply (session_id, title, created, model, role, reply, code, interrupted, incomplete, usage, error, exit_status)'
complete -c hermes -n '__hermes_at "" chat' -s x -l code -d 'one-shot only: print only the reply'\''s fenced code, every block in order without its fences, not the reply (kept as ever); a reply with none is exit 3'
complete -c hermes -n '__hermes_at "" chat' -l no-save -d 'one-shot only: make the turn and print the reply, keep nothing: no session made or changed (with -c or -r, the session is the context and stays as it was), no breadcrumb (also: save = "false" in config.toml or a role)'
complete -c hermes -n '__hermes_at "" chat' -s e -l execute -d 'one-shot only: the reply'\''s one command (a fenced block, or a line; the shell role gives one) is shown and asked about on the terminal: run it with $SHELL -c, edit it, copy it, or not; hermes exits with its status, and the session notes what became of it; without a terminal nothing is run: the command is printed, exit 2'
complete -c hermes -n '__hermes_at "" chat' -l usage -d 'after each reply, one line on stderr with its tokens (in, out) and the session'\''s total, as the agent reported them (also: usage = "true" in config.toml)'
complete -c hermes -n '__hermes_at "" chat' -s m -l model -x -a '(__hermes_models)' -d 'the model to use, kept in the session: -c continues with the session'\''s model unless -m says otherwise (default: '\''model'\'' in config.toml, then $HERMES_MODEL, then $OPENAI_MODEL for json)'
complete -c hermes -n '__hermes_at "" chat' -s s -l system -x -d 'the session'\''s system prompt (a new session'\''s default: '\''system'\'' in config.toml)'
complete -c hermes -n '__hermes_at "" chat' -l system-file -r -F -d 'the system prompt from FILE'
complete -c hermes -n '__hermes_at "" chat' -l role -x -a '(__hermes_roles)' -d 'start with the role NAME: its system prompt, and its model, context budget and agent where no option here says otherwise; a session it makes records it (see '\''hermes roles'\'')'
complete -c hermes -n '__hermes_at "" chat' -l agent -r -F -d 'the command that writes replies (default: $HERMES_AGENT, then '\''agent'\'' in config.toml)'
complete -c hermes -n '__hermes_at "" chat' -l no-agent -d 'only save the message; no reply'
complete -c hermes -n '__hermes_at "" chat' -l plain -d 'show replies as the agent sent them, not as Markdown drawn for the terminal (also: render = "plain" in config.toml, or TERM=dumb)'
complete -c hermes -n '__hermes_at "" chat' -l context -x -d 'the context budget: a turn sends at most N characters of the conversation (default: '\''context'\'' in config.toml, else 300000; '\''off'\'': no limit)'
complete -c hermes -n '__hermes_at "" chat' -l timeout -x -d 'give up on a reply when the agent has sent nothing for SECONDS (default 300, or '\''timeout'\'' in config.toml; 0: no limit): exit 3, what arrived kept and marked incomplete'
complete -c hermes -n '__hermes_at "" chat' -s o -l option -x -d 'a model option sent with each request and kept in the session: temperature=0-2, top_p=0-1, max_tokens=N, seed=N, stop=TEXT; again for more (also in a role, and in config.toml)'
complete -c hermes -n '__hermes_at "" chat' -l var -x -d 'fill {{KEY}} in the role'\''s text with VALUE; again for more ('\''hermes roles'\'' shows each role'\''s variables)'
complete -c hermes -n '__hermes_at "" chat' -l schema -r -F -d 'ask for a reply of JSON of this shape (a JSON Schema, or a file holding one): sent as the request'\''s response_format; a reply that is not such JSON is kept, and the chat exits 3'
complete -c hermes -n '__hermes_at "" chat' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/list sessions/ls' -s n -l limit -x -d 'show at most N sessions (default 20)'
complete -c hermes -n '__hermes_at sessions/list sessions/ls' -l all -d 'show every session'
complete -c hermes -n '__hermes_at sessions/list sessions/ls' -l here -d 'only sessions started in this workspace (git root, else the current directory)'
complete -c hermes -n '__hermes_at sessions/list sessions/ls' -l json -d 'a JSON array of session headers, for scripts'
complete -c hermes -n '__hermes_at sessions/list sessions/ls' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/search' -s n -l limit -x -d 'show at most N sessions (default 20)'
complete -c hermes -n '__hermes_at sessions/search' -l json -d 'a JSON array: per session its ID, title, times, the count of matches and the first 10 snippets'
complete -c hermes -n '__hermes_at sessions/search' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/pick' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/show' -l json -d 'the whole session file as JSON, raw text included'
complete -c hermes -n '__hermes_at sessions/show' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/show' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/current' -l json -d '{"id", "title", "reason"} as JSON'
complete -c hermes -n '__hermes_at sessions/current' -s f -l format -x -d 'print TEMPLATE with {title}, {title_tmux} (the title with each # doubled, for tmux'\''s status line), {id}, {short_id} (the last 6 hex digits), {model} and {reason} filled in, for a shell prompt or a tmux status line; without a session, print nothing'
complete -c hermes -n '__hermes_at sessions/current' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/export' -s f -l format -x -a 'json jsonl markdown' -d 'json (an array, default), jsonl (one session a line, for import) or markdown'
complete -c hermes -n '__hermes_at sessions/export' -s o -l output -r -F -d 'write to FILE (atomically, mode 0600) instead of stdout; a device or FIFO is written into, a symlink refused; a FILE that is there is not replaced'
complete -c hermes -n '__hermes_at sessions/export' -l force -d 'replace the -o FILE if it is there'
complete -c hermes -n '__hermes_at sessions/export' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0+ sessions/export' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/import' -l from -x -a 'hermes hermes-agent llm' -d 'what wrote FILE (default: hermes)'
complete -c hermes -n '__hermes_at sessions/import' -l dry-run -d 'report what would be imported; write nothing'
complete -c hermes -n '__hermes_at sessions/import' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/import' -F
complete -c hermes -n '__hermes_at sessions/rename' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/rename' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/repair' -l dry-run -d 'say what would be kept and left out; write nothing'
complete -c hermes -n '__hermes_at sessions/repair' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/repair' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/delete sessions/rm' -s y -l yes -d 'do not ask (needed when not on a terminal)'
complete -c hermes -n '__hermes_at sessions/delete sessions/rm' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0+ sessions/delete sessions/rm' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/prune' -l older-than -x -d 'remove what has been inactive longer than DAYS days'
complete -c hermes -n '__hermes_at sessions/prune' -l dry-run -d 'list what would be removed; remove nothing'
complete -c hermes -n '__hermes_at sessions/prune' -s y -l yes -d 'do not ask (needed when not on a terminal)'
complete -c hermes -n '__hermes_at sessions/prune' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at sessions/stats' -l json -d 'the same as a JSON object'
complete -c hermes -n '__hermes_at sessions/stats' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/stats' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/compact' -l keep -x -d 'keep the last N messages as they are'
complete -c hermes -n '__hermes_at sessions/compact' -l agent -r -F -d 'the command that writes the summary (default: as chat)'
complete -c hermes -n '__hermes_at sessions/compact' -l context -x -d 'the context budget: a turn sends at most N characters of the conversation (default: '\''context'\'' in config.toml, else 300000; '\''off'\'': no limit)'
complete -c hermes -n '__hermes_at sessions/compact' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/compact' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/merge' -l dry-run -d 'say what would be merged; change nothing'
complete -c hermes -n '__hermes_at sessions/merge' -l restore -d 'bring back the session of a copy whose session is gone, under a free title (its own, else its own with (2), (3)...)'
complete -c hermes -n '__hermes_at sessions/merge' -s y -l yes -d 'do not ask (needed when not on a terminal)'
complete -c hermes -n '__hermes_at sessions/merge' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/merge' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_at sessions/merge-file' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 sessions/merge-file' -F
complete -c hermes -n '__hermes_arg 1 sessions/merge-file' -F
complete -c hermes -n '__hermes_arg 2 sessions/merge-file' -F
complete -c hermes -n '__hermes_at config' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at config/get' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 config/get' -a 'agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop'
complete -c hermes -n '__hermes_at config/set' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 config/set' -a 'agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop'
complete -c hermes -n '__hermes_arg 1 config/set' -a '(__hermes_setting_values)'
complete -c hermes -n '__hermes_at config/unset' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 config/unset' -a 'agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop'
complete -c hermes -n '__hermes_at config/list' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at config/path' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at config/check' -l timeout -x -d 'how long check waits (default 30)'
complete -c hermes -n '__hermes_at config/check' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at roles' -l json -d 'the same as JSON'
complete -c hermes -n '__hermes_at roles' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 roles' -a '(__hermes_roles)'
complete -c hermes -n '__hermes_at models' -l json -d 'the same as a JSON array'
complete -c hermes -n '__hermes_at models' -l cached -d 'the list kept from the last time, without asking the agent (exit 1 when there is none)'
complete -c hermes -n '__hermes_at models' -l timeout -x -d 'how long the agent may take (default 30)'
complete -c hermes -n '__hermes_at models' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_at completion' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 completion' -a 'bash zsh fish'
complete -c hermes -n '__hermes_at help' -l all -d 'the help of every command and verb'
complete -c hermes -n '__hermes_at help' -s h -l help -d 'show this help'
complete -c hermes -n '__hermes_arg 0 help' -a 'chat sessions config roles models completion help'
complete -c hermes -n '__hermes_arg 1 help' -a '(__hermes_verbs (__hermes_first))'
complete -c hermes -n '__hermes_at sessions' -a list -d 'sessions, newest activity first (with TEXT, those whose title holds it)'
complete -c hermes -n '__hermes_at sessions' -a search -d 'sessions whose title or messages hold TEXT'
complete -c hermes -n '__hermes_at sessions' -a pick -d 'choose a session on a full-screen list; print its ID'
complete -c hermes -n '__hermes_at sessions' -a show -d 'print a conversation'
complete -c hermes -n '__hermes_at sessions' -a current -d 'which session '\''hermes chat -c'\'' would continue, and why'
complete -c hermes -n '__hermes_at sessions' -a export -d 'export some or all sessions'
complete -c hermes -n '__hermes_at sessions' -a import -d 'import sessions from hermes, the Python Hermes or llm'
complete -c hermes -n '__hermes_at sessions' -a rename -d 'give a session a new title'
complete -c hermes -n '__hermes_at sessions' -a repair -d 'mend a damaged session: keep every readable message, the file copied aside first'
complete -c hermes -n '__hermes_at sessions' -a delete -d 'delete sessions (asks first on a terminal)'
complete -c hermes -n '__hermes_at sessions' -a prune -d 'delete sessions inactive for DAYS, stray temporary files and stale breadcrumbs'
complete -c hermes -n '__hermes_at sessions' -a stats -d 'counts and sizes of the store (with NAME, of one session)'
complete -c hermes -n '__hermes_at sessions' -a compact -d 'have the agent summarise a session'\''s older messages'
complete -c hermes -n '__hermes_at sessions' -a merge -d 'merge sync tools'\'' conflict copies, or the sessions sharing TITLE'
complete -c hermes -n '__hermes_at sessions' -a merge-file -d 'merge two versions of a session file (a git merge driver)'
complete -c hermes -n '__hermes_at config' -a get -d 'print the value hermes uses'
complete -c hermes -n '__hermes_at config' -a set -d 'write a value to config.toml'
complete -c hermes -n '__hermes_at config' -a unset -d 'remove a value from config.toml'
complete -c hermes -n '__hermes_at config' -a list -d 'every value, and where it came from'
complete -c hermes -n '__hermes_at config' -a path -d 'print where config.toml is'
complete -c hermes -n '__hermes_at config' -a check -d 'send one tiny request through the agent; say what is wrong'
