# fish completion for hermes
# Install it: hermes completion fish > ~/.config/fish/completions/hermes.fish

# The words before the cursor, without the program name and -p PROFILE.
function __hermes_args
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        if contains -- $words[1] -p --profile
            set -e words[1]
            set -q words[1]; and set -e words[1]
        else if string match -qr -- '^(--profile=|-p.)' $words[1]
            set -e words[1]
        else
            break
        end
    end
    string join \n -- $words
end

# The -p PROFILE given on the command line, as arguments for hermes.
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

# The command: chat, sessions, completion or help; chat when options come first.
function __hermes_command
    set -l args (__hermes_args)
    if contains -- "$args[1]" chat sessions completion help
        echo $args[1]
    else if string match -q -- '-*' "$args[1]"
        echo chat
    end
end

# __hermes_command_is COMMAND [N]: the command is COMMAND (and N words are given).
function __hermes_command_is
    set -l command (__hermes_command)
    test "$command" = $argv[1]; or return 1
    set -q argv[2]; or return 0
    test (count (__hermes_args)) -eq $argv[2]
end

function __hermes_no_command
    set -l command (__hermes_command)
    test -z "$command"
end

# __hermes_sessions_verb [VERB...]: a sessions verb is given (one of VERB...).
function __hermes_sessions_verb
    set -l args (__hermes_args)
    test "$args[1]" = sessions; and set -q args[2]; or return 1
    set -q argv[1]; or return 0
    contains -- $args[2] $argv
end

function __hermes_needs_verb
    set -l args (__hermes_args)
    test "$args[1]" = sessions; and not set -q args[2]
end

# __hermes_previous WORD...: the word before the cursor is one of WORD...
function __hermes_previous
    set -l words (commandline -opc)
    contains -- $words[-1] $argv
end

# Session titles, or IDs with "id", each with a description, from
# 'hermes sessions list --all': MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID.
function __hermes_sessions
    command hermes (__hermes_profile_args) sessions list --all 2>/dev/null | while read -l line
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

complete -c hermes -f

# Global options and commands.
complete -c hermes -n __hermes_no_command -s p -l profile -x -a '(__hermes_profiles)' -d 'use $HERMES_HOME/profiles/NAME'
complete -c hermes -s h -l help -d 'show help'
complete -c hermes -n __hermes_no_command -s V -l version -d 'show the version (-V -v: with build details)'
complete -c hermes -n __hermes_no_command -a chat -d 'talk in a new or continued session (the default)'
complete -c hermes -n __hermes_no_command -a sessions -d 'list, show, export, import, rename, delete and prune sessions'
complete -c hermes -n __hermes_no_command -a completion -d 'print a shell completion script'
complete -c hermes -n __hermes_no_command -a help -d 'show help for a command'

# hermes chat (also 'hermes -c ...').
set -l chat '__hermes_no_command; or __hermes_command_is chat'
complete -c hermes -n $chat -s c -l continue -d "continue this terminal's session, or the one named"
complete -c hermes -n '__hermes_command_is chat; and __hermes_previous -c --continue' -x -a '(__hermes_sessions title)'
complete -c hermes -n $chat -s r -l resume -x -a '(__hermes_sessions id)' -d 'the session with this ID, or a short ID'
complete -c hermes -n $chat -l pick -d 'choose the session on a full-screen list'
complete -c hermes -n $chat -l create-if-missing -d 'with -c NAME: create the session titled NAME if none matches'
complete -c hermes -n $chat -s q -l query -x -d 'send TEXT, print the reply, exit (- reads stdin)'
complete -c hermes -n $chat -s Q -l quiet -d "do not print 'session_id: ID' or hints to stderr"
complete -c hermes -n $chat -l title -x -d 'title for a new session'
complete -c hermes -n $chat -l agent -r -d 'the command that writes replies'
complete -c hermes -n $chat -l no-agent -d 'only save the message; no reply'
complete -c hermes -n $chat -l context -x -d 'send at most N characters of the conversation'

# hermes sessions VERB.
complete -c hermes -n __hermes_needs_verb -a list -d 'sessions, newest activity first'
complete -c hermes -n __hermes_needs_verb -a pick -d 'choose a session on a full-screen list; print its ID'
complete -c hermes -n __hermes_needs_verb -a search -d 'sessions whose title or messages hold TEXT'
complete -c hermes -n __hermes_needs_verb -a show -d 'print a conversation'
complete -c hermes -n __hermes_needs_verb -a current -d "which session 'hermes chat -c' would continue, and why"
complete -c hermes -n __hermes_needs_verb -a export -d 'export some or all sessions'
complete -c hermes -n __hermes_needs_verb -a import -d "import sessions from 'export --format jsonl'"
complete -c hermes -n __hermes_needs_verb -a rename -d 'give a session a new title'
complete -c hermes -n __hermes_needs_verb -a delete -d 'delete sessions'
complete -c hermes -n __hermes_needs_verb -a prune -d 'delete sessions inactive for DAYS'
complete -c hermes -n __hermes_needs_verb -a stats -d 'counts, sizes, oldest and newest'
complete -c hermes -n __hermes_needs_verb -a compact -d "have the agent summarise a session's older messages"
complete -c hermes -n __hermes_needs_verb -a merge -d 'merge conflict copies, or the sessions sharing a title'
complete -c hermes -n __hermes_needs_verb -a merge-file -d 'merge two versions of a session file (git merge driver)'
complete -c hermes -n '__hermes_sessions_verb show export delete; and not __hermes_previous -o --output -f --format' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb rename; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb import' -F
complete -c hermes -n '__hermes_sessions_verb merge; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb merge-file' -F
complete -c hermes -n '__hermes_sessions_verb import' -l from -x -a 'hermes hermes-agent llm' -d 'what wrote FILE'
complete -c hermes -n '__hermes_sessions_verb import' -l dry-run -d 'report what would be imported; write nothing'
complete -c hermes -n '__hermes_sessions_verb list search' -s n -l limit -x -d 'show at most N sessions'
complete -c hermes -n '__hermes_sessions_verb list' -l all -d 'show every session'
complete -c hermes -n '__hermes_sessions_verb list' -l here -d 'only sessions started in this workspace'
complete -c hermes -n '__hermes_sessions_verb list search show current stats' -l json -d 'output JSON, for scripts'
complete -c hermes -n '__hermes_sessions_verb current' -s f -l format -x -d 'print TEMPLATE with {title} {id} {short_id} {reason}'
complete -c hermes -n '__hermes_sessions_verb export' -s f -l format -x -a 'json jsonl markdown' -d 'output format'
complete -c hermes -n '__hermes_sessions_verb export' -s o -l output -r -F -d 'write to FILE instead of stdout'
complete -c hermes -n '__hermes_sessions_verb delete prune merge' -s y -l yes -d 'do not ask'
complete -c hermes -n '__hermes_sessions_verb prune' -l older-than -x -d 'delete sessions inactive for DAYS days'
complete -c hermes -n '__hermes_sessions_verb prune' -l dry-run -d 'list what would be removed; remove nothing'
complete -c hermes -n '__hermes_sessions_verb merge' -l dry-run -d 'say what would be merged; change nothing'
complete -c hermes -n '__hermes_sessions_verb stats compact; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb compact' -l keep -x -d 'keep the last N messages as they are'
complete -c hermes -n '__hermes_sessions_verb compact' -l agent -r -d 'the command that writes the summary'
complete -c hermes -n '__hermes_sessions_verb compact' -l context -x -d 'the context budget in characters'

# hermes completion SHELL, hermes help [sessions] COMMAND.
complete -c hermes -n '__hermes_command_is completion 1' -a 'bash zsh fish'
complete -c hermes -n '__hermes_command_is help 1' -a 'chat sessions completion'
complete -c hermes -n '__hermes_command_is help 2; and __hermes_previous sessions' -a 'list search pick show current export import rename delete prune stats compact merge merge-file'
