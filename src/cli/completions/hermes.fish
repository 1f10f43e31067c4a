# fish completion for hermes
# Install it: hermes completion fish > ~/.config/fish/completions/hermes.fish

# What the command line is made of, from hermes's own table of commands
# (filled in by 'hermes completion fish'). A context is a command's words:
# '' (before any), chat, sessions, sessions/list, config/set, ...

# __hermes_verbs CONTEXT [all]: the verbs of a command that has them;
# with "all", their other names too ('ls' is list).
function __hermes_verbs
    switch "$argv[1]/$argv[2]"
@VERBS@
    end
end

# __hermes_value CONTEXT OPTION: what the option's value is; nothing when
# it takes none, ?KIND when it may be left out.
function __hermes_value
    switch "$argv[1]/$argv[2]"
@VALUES@
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
            if test -z "$context"; and not contains -- $name @GLOBAL@
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
            if contains -- $w @COMMANDS@
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
@SETTING_VALUES@
    end
end

complete -c hermes -f

@COMPLETIONS@
