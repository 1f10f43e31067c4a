//! Shell completion scripts for bash, zsh and fish: commands, options, and
//! session titles after `-c` and the `sessions` verbs that take a name.
//!
//! The scripts read titles from `hermes sessions list --all`, whose output
//! to a pipe is `MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID` per session
//! (titles never hold tabs or newlines). The option lists are written out
//! here; tests/t6100-completion.sh checks them against the `--help` texts.

use std::str::FromStr;

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl FromStr for Shell {
    type Err = Error;

    fn from_str(name: &str) -> Result<Shell, Error> {
        match name {
            "bash" => Ok(Shell::Bash),
            "zsh" => Ok(Shell::Zsh),
            "fish" => Ok(Shell::Fish),
            _ => Err(Error::usage(format!("completion: unknown shell '{name}' (bash, zsh, fish)"))),
        }
    }
}

pub fn script(shell: Shell) -> &'static str {
    match shell {
        Shell::Bash => BASH,
        Shell::Zsh => ZSH,
        Shell::Fish => FISH,
    }
}

const BASH: &str = r#"# bash completion for hermes
# Load it with:  eval "$(hermes completion bash)"
# or install it: hermes completion bash > ~/.local/share/bash-completion/completions/hermes

# Split the command line up to the cursor into shell words ourselves, since
# COMP_WORDS is also split at ':' and '=' (titles may contain both).
# Sets _hermes_words (earlier words, unquoted), _hermes_cur (the word being
# completed, unquoted), _hermes_raw (the same, as typed) and _hermes_quote
# (the quote it opened and has not closed, if any).
_hermes_split_line() {
	local line=${COMP_LINE:0:COMP_POINT} word= raw= quote= c i
	_hermes_words=()
	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		if [[ -n $quote ]]; then
			if [[ $c == "$quote" ]]; then quote=; else word+=$c; fi
			raw+=$c
		elif [[ $c == '\' ]]; then
			((i++))
			word+=${line:i:1}
			raw+=$c${line:i:1}
		elif [[ $c == [\"\'] ]]; then
			quote=$c
			raw+=$c
		elif [[ $c == [[:blank:]] ]]; then
			[[ -n $raw ]] && _hermes_words+=("$word")
			word= raw=
		elif [[ $c == [\;\|\&\(] ]]; then
			_hermes_words=()
			word= raw=
		else
			word+=$c
			raw+=$c
		fi
	done
	_hermes_cur=$word
	_hermes_raw=$raw
	_hermes_quote=$quote
}

# Add the sessions whose title (or, with "id", ID) starts with the word
# being completed, quoted for the command line. $2 is the text readline
# replaces: the word after its last ':' or '=', or after an open quote.
_hermes_add_sessions() {
	local what=$1 text=$2 hermes=${_hermes_words[0]:-hermes} line value quoted
	local -a profile=()
	[[ $hermes == '~/'* ]] && hermes=$HOME/${hermes:2}
	[[ -n $_hermes_profile ]] && profile=(-p "$_hermes_profile")
	while IFS= read -r line; do
		line=${line#*$'\t'}
		if [[ $what == id ]]; then value=${line##*$'\t'}; else value=${line%%$'\t'*}; fi
		[[ -n $value && $value == "$_hermes_cur"* ]] || continue
		if [[ -n $_hermes_quote ]]; then
			COMPREPLY+=("${value:${#_hermes_cur}-${#text}}")
		else
			printf -v quoted '%q' "$value"
			COMPREPLY+=("${quoted:${#_hermes_raw}-${#text}}")
		fi
	done < <(command "$hermes" "${profile[@]}" sessions list --all 2>/dev/null)
}

_hermes_add_words() {
	local w
	for w in $1; do
		[[ $w == "$2"* ]] && COMPREPLY+=("$w")
	done
}

_hermes() {
	local text=$2 cmd= verb= prev= w i nargs=0 takes_value=
	local -a _hermes_words
	local _hermes_cur _hermes_raw _hermes_quote _hermes_profile=
	local global='-p --profile -V --version'
	local chat='-c --continue -r --resume --create-if-missing -q --query -Q --quiet --title --agent --no-agent -h --help'
	local verbs='list show current export import rename delete prune stats'
	COMPREPLY=()
	_hermes_split_line
	# Where are we: which command, which sessions verb, how many arguments.
	for ((i = 1; i < ${#_hermes_words[@]}; i++)); do
		w=${_hermes_words[i]}
		prev=$w
		if [[ -n $takes_value ]]; then
			[[ $takes_value == profile ]] && _hermes_profile=$w
			takes_value=
			prev=value
			continue
		fi
		case $cmd/$w in
		/-p | /--profile) takes_value=profile ;;
		/chat | /sessions | /completion | /help) cmd=$w ;;
		/-*) cmd=chat ;;
		sessions/-*) ;;
		sessions/*) if [[ -z $verb ]]; then verb=$w; else ((nargs++)); fi ;;
		*/-*) ;;
		*) ((nargs++)) ;;
		esac
		case $cmd/$w in
		chat/-r | chat/--resume | chat/-q | chat/--query | chat/--title | chat/--agent) takes_value=1 ;;
		sessions/-n | sessions/--limit | sessions/-f | sessions/--format | sessions/-o | sessions/--output | sessions/--older-than | sessions/--from) takes_value=1 ;;
		esac
	done
	case $prev in
	-p | --profile)
		local home=${HERMES_HOME:-$HOME/.hermes} dir
		for dir in "$home"/profiles/*/; do
			[[ -d $dir ]] && dir=${dir%/} && _hermes_add_words "${dir##*/}" "$text"
		done
		return
		;;
	-c | --continue) [[ $cmd == chat && $text != -* ]] && { _hermes_add_sessions title "$text"; return; } ;;
	-r | --resume) [[ $cmd == chat ]] && { _hermes_add_sessions id "$text"; return; } ;;
	-q | --query | --title | -n | --limit | --older-than) [[ -n $cmd ]] && return ;;
	--agent | -o | --output)
		[[ -n $cmd ]] && compopt -o default 2>/dev/null
		return
		;;
	-f | --format) [[ $cmd == sessions ]] && { _hermes_add_words 'json jsonl markdown' "$text"; return; } ;;
	--from) [[ $cmd == sessions ]] && { _hermes_add_words 'hermes hermes-agent llm' "$text"; return; } ;;
	esac
	if [[ $text == -* ]]; then
		case $cmd/$verb in
		/) _hermes_add_words "$global $chat" "$text" ;;
		chat/) _hermes_add_words "$chat" "$text" ;;
		sessions/) _hermes_add_words '-h --help' "$text" ;;
		sessions/list) _hermes_add_words '-n --limit --all --here --json -h --help' "$text" ;;
		sessions/show | sessions/current | sessions/stats) _hermes_add_words '--json -h --help' "$text" ;;
		sessions/export) _hermes_add_words '-f --format -o --output -h --help' "$text" ;;
		sessions/import) _hermes_add_words '--from --dry-run -h --help' "$text" ;;
		sessions/delete) _hermes_add_words '-y --yes -h --help' "$text" ;;
		sessions/prune) _hermes_add_words '--older-than --dry-run -y --yes -h --help' "$text" ;;
		*) _hermes_add_words '-h --help' "$text" ;;
		esac
		return
	fi
	case $cmd/$verb in
	/) _hermes_add_words 'chat sessions completion help' "$text" ;;
	sessions/) _hermes_add_words "$verbs" "$text" ;;
	sessions/show | sessions/export | sessions/delete) _hermes_add_sessions title "$text" ;;
	sessions/rename) ((nargs == 0)) && _hermes_add_sessions title "$text" ;;
	sessions/import) ((nargs == 0)) && compopt -o default 2>/dev/null ;;
	completion/) ((nargs == 0)) && _hermes_add_words 'bash zsh fish' "$text" ;;
	help/)
		if ((nargs == 0)); then
			_hermes_add_words 'chat sessions completion' "$text"
		elif ((nargs == 1)) && [[ ${_hermes_words[${#_hermes_words[@]} - 1]} == sessions ]]; then
			_hermes_add_words "$verbs" "$text"
		fi
		;;
	esac
}

complete -F _hermes hermes
"#;

const ZSH: &str = r#"#compdef hermes
# zsh completion for hermes
# Install it: hermes completion zsh > "${fpath[1]}/_hermes"
# or load it: source <(hermes completion zsh)

# Session titles (or IDs, with "id") from 'hermes sessions list --all',
# whose piped output is MARK<TAB>TITLE<TAB>DATE<TAB>COUNT<TAB>ID. What to
# list is the last argument: _arguments puts compadd options before it.
_hermes_sessions() {
  local what=${argv[-1]} line expl
  local -a fields values descriptions profile
  local name=${_hermes_profile:-${opt_args[-p]:-$opt_args[--profile]}}
  [[ -n $name ]] && profile=(-p $name)
  for line in ${(f)"$(_call_program sessions command hermes ${(q)profile[@]} sessions list --all 2>/dev/null)"}; do
    fields=("${(@ps:\t:)line}")
    if [[ $what == id ]]; then
      values+=("$fields[5]")
      descriptions+=("$fields[5]  -- $fields[2]")
    else
      values+=("$fields[2]")
      descriptions+=("$fields[2]  -- $fields[3]")
    fi
  done
  _wanted sessions expl "session ${what/id/ID}" compadd -l -d descriptions -a values
}

_hermes_profiles() {
  local expl
  local -a profiles
  profiles=(${HERMES_HOME:-$HOME/.hermes}/profiles/*(N/:t))
  _wanted profiles expl profile compadd -a profiles
}

_hermes_chat_options=(
  '(-c --continue -r --resume)'{-c,--continue}"[continue this terminal's session, or the one named]::session title:_hermes_sessions title"
  '(-c --continue -r --resume --title)'{-r+,--resume=}'[the session with exactly this ID]:session ID:_hermes_sessions id'
  "--create-if-missing[with -c NAME: create the session titled NAME if none matches]"
  '(-q --query)'{-q+,--query=}'[send TEXT, print the reply, exit (- reads stdin)]:message text:'
  '(-Q --quiet)'{-Q,--quiet}"[do not print 'session_id: ID' or hints to stderr]"
  '--title=[title for a new session]:title:'
  '(--no-agent)--agent=[the command that writes replies]:agent command:_cmdstring'
  '(--agent)--no-agent[only save the message; no reply]'
)

_hermes() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  _arguments -C -s \
    '(-p --profile)'{-p+,--profile=}'[use $HERMES_HOME/profiles/NAME]:profile:_hermes_profiles' \
    '(- *)'{-h,--help}'[show help]' \
    '(- *)'{-V,--version}'[show the version (-V -v: with build details)]' \
    $_hermes_chat_options \
    '1: :->command' \
    '*:: :->args' && ret=0
  # -p PROFILE, for listing that profile's sessions further on.
  local _hermes_profile=${opt_args[-p]:-$opt_args[--profile]}
  case $state in
  command)
    local -a commands
    commands=(
      'chat:talk in a new or continued session (the default)'
      'sessions:list, show, export, import, rename, delete and prune sessions'
      'completion:print a shell completion script'
      'help:show help for a command'
    )
    _describe -t commands command commands && ret=0
    ;;
  args)
    curcontext=${curcontext%:*:*}:hermes-$words[1]:
    case $words[1] in
    chat)
      _arguments -s $_hermes_chat_options '(- *)'{-h,--help}'[show help]' && ret=0
      ;;
    sessions)
      _hermes_sessions_command && ret=0
      ;;
    completion)
      _arguments '1:shell:(bash zsh fish)' && ret=0
      ;;
    help)
      _arguments '1:command:(chat sessions completion)' '2:sessions command:(list show current export import rename delete prune stats)' && ret=0
      ;;
    esac
    ;;
  esac
  return ret
}

_hermes_sessions_command() {
  local curcontext=$curcontext state line
  local -a verbs help
  help=('(- *)'{-h,--help}'[show help]')
  if (( CURRENT == 2 )); then
    verbs=(
      'list:sessions, newest activity first'
      'show:print a conversation'
      "current:which session 'hermes chat -c' would continue, and why"
      'export:export some or all sessions'
      "import:import sessions from 'export --format jsonl'"
      'rename:give a session a new title'
      'delete:delete sessions'
      'prune:delete sessions inactive for DAYS'
      'stats:counts, sizes, oldest and newest'
    )
    _describe -t verbs 'sessions command' verbs
    return
  fi
  shift words
  (( CURRENT-- ))
  curcontext=${curcontext%:*}-$words[1]:
  case $words[1] in
  list)
    _arguments -s $help \
      '(-n --limit --all)'{-n+,--limit=}'[show at most N sessions]:number:' \
      '(-n --limit)--all[show every session]' \
      '--here[only sessions started in this workspace]' \
      '--json[a JSON array of session headers]'
    ;;
  show)
    _arguments -s $help '--json[the whole session file as JSON]' '1:session:_hermes_sessions title'
    ;;
  current | stats)
    _arguments -s $help '--json[as JSON]'
    ;;
  export)
    _arguments -s $help \
      '(-f --format)'{-f+,--format=}'[output format]:format:(json jsonl markdown)' \
      '(-o --output)'{-o+,--output=}'[write to FILE instead of stdout]:file:_files' \
      '*:session:_hermes_sessions title'
    ;;
  import)
    _arguments -s $help \
      '--from=[what wrote FILE]:format:(hermes hermes-agent llm)' \
      '--dry-run[report what would be imported; write nothing]' \
      '1:file:_files'
    ;;
  rename)
    _arguments -s $help '1:session:_hermes_sessions title' '2:new title:'
    ;;
  delete)
    _arguments -s $help '(-y --yes)'{-y,--yes}'[do not ask]' '*:session:_hermes_sessions title'
    ;;
  prune)
    _arguments -s $help \
      '--older-than=[delete sessions inactive for DAYS days]:days:' \
      '--dry-run[list what would be removed; remove nothing]' \
      '(-y --yes)'{-y,--yes}'[do not ask]'
    ;;
  esac
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _hermes "$@"
else
  compdef _hermes hermes
fi
"#;

const FISH: &str = r#"# fish completion for hermes
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
complete -c hermes -n $chat -s r -l resume -x -a '(__hermes_sessions id)' -d 'the session with exactly this ID'
complete -c hermes -n $chat -l create-if-missing -d 'with -c NAME: create the session titled NAME if none matches'
complete -c hermes -n $chat -s q -l query -x -d 'send TEXT, print the reply, exit (- reads stdin)'
complete -c hermes -n $chat -s Q -l quiet -d "do not print 'session_id: ID' or hints to stderr"
complete -c hermes -n $chat -l title -x -d 'title for a new session'
complete -c hermes -n $chat -l agent -r -d 'the command that writes replies'
complete -c hermes -n $chat -l no-agent -d 'only save the message; no reply'

# hermes sessions VERB.
complete -c hermes -n __hermes_needs_verb -a list -d 'sessions, newest activity first'
complete -c hermes -n __hermes_needs_verb -a show -d 'print a conversation'
complete -c hermes -n __hermes_needs_verb -a current -d "which session 'hermes chat -c' would continue, and why"
complete -c hermes -n __hermes_needs_verb -a export -d 'export some or all sessions'
complete -c hermes -n __hermes_needs_verb -a import -d "import sessions from 'export --format jsonl'"
complete -c hermes -n __hermes_needs_verb -a rename -d 'give a session a new title'
complete -c hermes -n __hermes_needs_verb -a delete -d 'delete sessions'
complete -c hermes -n __hermes_needs_verb -a prune -d 'delete sessions inactive for DAYS'
complete -c hermes -n __hermes_needs_verb -a stats -d 'counts, sizes, oldest and newest'
complete -c hermes -n '__hermes_sessions_verb show export delete; and not __hermes_previous -o --output -f --format' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb rename; and __hermes_command_is sessions 2' -a '(__hermes_sessions title)'
complete -c hermes -n '__hermes_sessions_verb import' -F
complete -c hermes -n '__hermes_sessions_verb import' -l from -x -a 'hermes hermes-agent llm' -d 'what wrote FILE'
complete -c hermes -n '__hermes_sessions_verb import' -l dry-run -d 'report what would be imported; write nothing'
complete -c hermes -n '__hermes_sessions_verb list' -s n -l limit -x -d 'show at most N sessions'
complete -c hermes -n '__hermes_sessions_verb list' -l all -d 'show every session'
complete -c hermes -n '__hermes_sessions_verb list' -l here -d 'only sessions started in this workspace'
complete -c hermes -n '__hermes_sessions_verb list show current stats' -l json -d 'output JSON, for scripts'
complete -c hermes -n '__hermes_sessions_verb export' -s f -l format -x -a 'json jsonl markdown' -d 'output format'
complete -c hermes -n '__hermes_sessions_verb export' -s o -l output -r -F -d 'write to FILE instead of stdout'
complete -c hermes -n '__hermes_sessions_verb delete prune' -s y -l yes -d 'do not ask'
complete -c hermes -n '__hermes_sessions_verb prune' -l older-than -x -d 'delete sessions inactive for DAYS days'
complete -c hermes -n '__hermes_sessions_verb prune' -l dry-run -d 'list what would be removed; remove nothing'

# hermes completion SHELL, hermes help [sessions] COMMAND.
complete -c hermes -n '__hermes_command_is completion 1' -a 'bash zsh fish'
complete -c hermes -n '__hermes_command_is help 1' -a 'chat sessions completion'
complete -c hermes -n '__hermes_command_is help 2; and __hermes_previous sessions' -a 'list show current export import rename delete prune stats'
"#;
