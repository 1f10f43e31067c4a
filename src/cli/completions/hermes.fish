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
@CHAT@

# hermes sessions VERB.
@VERB_SUMMARIES@
complete -c hermes -n '__hermes_sessions_verb show export delete; and not __hermes_previous -o --output -f --format' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb rename stats compact repair; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb import' -F
complete -c hermes -n '__hermes_sessions_verb merge; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb merge-file' -F
@OPTIONS@

# hermes completion SHELL, hermes help [sessions] COMMAND.
complete -c hermes -n '__hermes_command_is completion 1' -a 'bash zsh fish'
complete -c hermes -n '__hermes_command_is help 1' -a 'chat sessions completion'
complete -c hermes -n '__hermes_command_is help 2; and __hermes_previous sessions' -a '@VERBS@'
