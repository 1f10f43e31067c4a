# bash completion for hermes
# Load it with:  eval "$(hermes completion bash)"
# or install it: hermes completion bash > ~/.local/share/bash-completion/completions/hermes

# Split the command line up to the cursor into shell words ourselves, since
# COMP_WORDS is also split at ':' and '=' (titles may contain both).
# Sets _hermes_words (earlier words, unquoted), _hermes_cur (the word being
# completed, unquoted), _hermes_raw (the same, as typed) and _hermes_quote
# (the quote it opened and has not closed, if any).
_hermes_split_line() {
	local line=${COMP_LINE:0:COMP_POINT} word='' raw='' quote='' c i
	_hermes_words=()
	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		if [[ -n $quote ]]; then
			if [[ $c == "$quote" ]]; then quote=; else word+=$c; fi
			raw+=$c
		elif [[ $c == \\ ]]; then
			((i++))
			word+=${line:i:1}
			raw+=$c${line:i:1}
		elif [[ $c == [\"\'] ]]; then
			quote=$c
			raw+=$c
		elif [[ $c == [[:blank:]] ]]; then
			[[ -n $raw ]] && _hermes_words+=("$word")
			word='' raw=''
		elif [[ $c == [\;\|\&\(] ]]; then
			_hermes_words=()
			word='' raw=''
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
	# A literal ~/ as typed (the shell expands it only when it runs).
	# shellcheck disable=SC2088
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
	done < <(command "$hermes" "${profile[@]}" sessions list --completing "$_hermes_cur" 2>/dev/null)
}

# Add the roles whose name starts with $1, from 'hermes roles', whose
# piped output is NAME<TAB>MODEL<TAB>DESCRIPTION<TAB>FILE.
_hermes_add_roles() {
	local hermes=${_hermes_words[0]:-hermes} line
	local -a profile=()
	# shellcheck disable=SC2088
	[[ $hermes == '~/'* ]] && hermes=$HOME/${hermes:2}
	[[ -n $_hermes_profile ]] && profile=(-p "$_hermes_profile")
	while IFS= read -r line; do
		_hermes_add_words "${line%%$'\t'*}" "$1"
	done < <(command "$hermes" "${profile[@]}" roles 2>/dev/null)
}

# Add the models whose name starts with $1: the list 'hermes models' kept
# (the shell never has the agent asked).
_hermes_add_models() {
	local hermes=${_hermes_words[0]:-hermes} line
	local -a profile=()
	# shellcheck disable=SC2088
	[[ $hermes == '~/'* ]] && hermes=$HOME/${hermes:2}
	[[ -n $_hermes_profile ]] && profile=(-p "$_hermes_profile")
	while IFS= read -r line; do
		[[ $line == "$1"* ]] && COMPREPLY+=("$line")
	done < <(command "$hermes" "${profile[@]}" models --cached 2>/dev/null)
}

_hermes_add_words() {
	local w
	for w in $1; do
		[[ $w == "$2"* ]] && COMPREPLY+=("$w")
	done
}

# What the command line is made of, from hermes's own table of commands
# (filled in by 'hermes completion bash'). A context is a command's words:
# '' (before any), chat, sessions, sessions/list, config/set, ...

# _hermes_verbs CONTEXT: the verbs of a command that has them; with
# "all", their other names too ('ls' is list).
_hermes_verbs() {
	case $1/${2-} in
	sessions/) REPLY='list search pick show current export import rename repair delete prune stats compact merge merge-file' ;;
	sessions/all) REPLY='list ls search pick show current export import rename repair delete rm prune stats compact merge merge-file' ;;
	config/) REPLY='get set unset list path check' ;;
	config/all) REPLY='get set unset list path check' ;;
	*) REPLY= ;;
	esac
}

# hermes's own options, which come before a command.
_hermes_global='-p --profile -h --help -V --version --no-pager -v --verbose'

# _hermes_options CONTEXT: every spelling of its options ('': hermes's
# own and chat's, as hermes -c NAME is chat).
_hermes_options() {
	case $1 in
	'') REPLY='-p --profile -h --help -V --version --no-pager -c --continue --create-if-missing -r --resume --pick --title -q --query -f --file -Q --quiet --json -x --code --no-save -e --execute --usage -m --model -s --system --system-file --role --agent --no-agent --plain --context --timeout -o --option --var --schema' ;;
	'chat') REPLY='-c --continue --create-if-missing -r --resume --pick --title -q --query -f --file -Q --quiet --json -x --code --no-save -e --execute --usage -m --model -s --system --system-file --role --agent --no-agent --plain --context --timeout -o --option --var --schema -h --help' ;;
	'sessions') REPLY='-h --help' ;;
	'sessions/list' | 'sessions/ls') REPLY='-n --limit --all --here --json -h --help' ;;
	'sessions/search') REPLY='-n --limit --json -h --help' ;;
	'sessions/pick') REPLY='-h --help' ;;
	'sessions/show') REPLY='--json -h --help' ;;
	'sessions/current') REPLY='--json -f --format -h --help' ;;
	'sessions/export') REPLY='-f --format -o --output --force -h --help' ;;
	'sessions/import') REPLY='--from --dry-run -h --help' ;;
	'sessions/rename') REPLY='-h --help' ;;
	'sessions/repair') REPLY='--dry-run -h --help' ;;
	'sessions/delete' | 'sessions/rm') REPLY='-y --yes -h --help' ;;
	'sessions/prune') REPLY='--older-than --dry-run -y --yes -h --help' ;;
	'sessions/stats') REPLY='--json -h --help' ;;
	'sessions/compact') REPLY='--keep --agent --context -h --help' ;;
	'sessions/merge') REPLY='--dry-run --restore -y --yes -h --help' ;;
	'sessions/merge-file') REPLY='-h --help' ;;
	'config') REPLY='-h --help' ;;
	'config/get') REPLY='-h --help' ;;
	'config/set') REPLY='-h --help' ;;
	'config/unset') REPLY='-h --help' ;;
	'config/list') REPLY='-h --help' ;;
	'config/path') REPLY='-h --help' ;;
	'config/check') REPLY='--timeout -h --help' ;;
	'roles') REPLY='--json -h --help' ;;
	'models') REPLY='--json --cached --timeout -h --help' ;;
	'completion') REPLY='-h --help' ;;
	'help') REPLY='--all -h --help' ;;
	*) REPLY='-h --help' ;;
	esac
}

# _hermes_value CONTEXT OPTION: what the option's value is; '' when it
# takes none, ?KIND when it may be left out.
_hermes_value() {
	case $1/$2 in
	''/-p | ''/--profile) REPLY='profile' ;;
	'chat'/-c | 'chat'/--continue) REPLY='?session' ;;
	'chat'/-r | 'chat'/--resume) REPLY='session-id' ;;
	'chat'/--title) REPLY='text' ;;
	'chat'/-q | 'chat'/--query) REPLY='text' ;;
	'chat'/-f | 'chat'/--file) REPLY='file' ;;
	'chat'/-m | 'chat'/--model) REPLY='model' ;;
	'chat'/-s | 'chat'/--system) REPLY='text' ;;
	'chat'/--system-file) REPLY='file' ;;
	'chat'/--role) REPLY='role' ;;
	'chat'/--agent) REPLY='shell' ;;
	'chat'/--context) REPLY='number' ;;
	'chat'/--timeout) REPLY='number' ;;
	'chat'/-o | 'chat'/--option) REPLY='text' ;;
	'chat'/--var) REPLY='text' ;;
	'chat'/--schema) REPLY='file' ;;
	'sessions/list'/-n | 'sessions/list'/--limit | 'sessions/ls'/-n | 'sessions/ls'/--limit) REPLY='number' ;;
	'sessions/search'/-n | 'sessions/search'/--limit) REPLY='number' ;;
	'sessions/current'/-f | 'sessions/current'/--format) REPLY='text' ;;
	'sessions/export'/-f | 'sessions/export'/--format) REPLY='words:json,jsonl,markdown' ;;
	'sessions/export'/-o | 'sessions/export'/--output) REPLY='file' ;;
	'sessions/import'/--from) REPLY='words:hermes,hermes-agent,llm' ;;
	'sessions/prune'/--older-than) REPLY='number' ;;
	'sessions/compact'/--keep) REPLY='number' ;;
	'sessions/compact'/--agent) REPLY='shell' ;;
	'sessions/compact'/--context) REPLY='number' ;;
	'config/check'/--timeout) REPLY='number' ;;
	'models'/--timeout) REPLY='number' ;;
	*) REPLY= ;;
	esac
}

# _hermes_args CONTEXT: what each positional argument is, in order; a
# KIND... takes every word from there on.
_hermes_args() {
	case $1 in
	'chat') REPLY='text...' ;;
	'sessions/list' | 'sessions/ls') REPLY='text' ;;
	'sessions/search') REPLY='text' ;;
	'sessions/show') REPLY='session' ;;
	'sessions/export') REPLY='session...' ;;
	'sessions/import') REPLY='file' ;;
	'sessions/rename') REPLY='session text' ;;
	'sessions/repair') REPLY='session' ;;
	'sessions/delete' | 'sessions/rm') REPLY='session...' ;;
	'sessions/stats') REPLY='session' ;;
	'sessions/compact') REPLY='session' ;;
	'sessions/merge') REPLY='session' ;;
	'sessions/merge-file') REPLY='file file file' ;;
	'config/get') REPLY='setting' ;;
	'config/set') REPLY='setting setting-value' ;;
	'config/unset') REPLY='setting' ;;
	'roles') REPLY='role' ;;
	'completion') REPLY='words:bash,zsh,fish' ;;
	'help') REPLY='command...' ;;
	*) REPLY= ;;
	esac
}

# _hermes_setting_values KEY: the values a setting takes, when they are words.
_hermes_setting_values() {
	case $1 in
	agent_input) REPLY='json transcript text' ;;
	render) REPLY='markdown plain' ;;
	session_id) REPLY='always pipe never' ;;
	save) REPLY='true false' ;;
	usage) REPLY='true false' ;;
	compact) REPLY='auto off' ;;
	*) REPLY= ;;
	esac
}

# _hermes_complete_kind KIND TEXT: offer what a KIND of value can be.
_hermes_complete_kind() {
	local kind=$1 text=$2
	case $kind in
	session) _hermes_add_sessions title "$text" ;;
	session-id) _hermes_add_sessions id "$text" ;;
	file | shell) compopt -o default 2>/dev/null ;;
	profile)
		local home=${HERMES_HOME:-$HOME/.hermes} dir
		for dir in "$home"/profiles/*/; do
			[[ -d $dir ]] && dir=${dir%/} && _hermes_add_words "${dir##*/}" "$text"
		done
		;;
	role) _hermes_add_roles "$text" ;;
	model) _hermes_add_models "$text" ;;
	setting) _hermes_add_words 'agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop' "$text" ;;
	setting-value)
		_hermes_setting_values "${_hermes_words[${#_hermes_words[@]} - 1]}"
		_hermes_add_words "$REPLY" "$text"
		;;
	command)
		if ((${#_hermes_given[@]} == 0)); then
			_hermes_add_words 'chat sessions config roles models completion help' "$text"
		else
			_hermes_verbs "${_hermes_given[0]}"
			_hermes_add_words "$REPLY" "$text"
		fi
		;;
	words:*)
		kind=${kind#words:}
		_hermes_add_words "${kind//,/ }" "$text"
		;;
	esac
}

_hermes() {
	local text=$2 context='' pending='' optional='' w i kind REPLY commands='chat sessions config roles models completion help'
	local -a _hermes_words _hermes_given=() kinds
	local _hermes_cur _hermes_raw _hermes_quote _hermes_profile=
	COMPREPLY=()
	_hermes_split_line
	# Where are we: which command and verb, which arguments are given.
	for ((i = 1; i < ${#_hermes_words[@]}; i++)); do
		w=${_hermes_words[i]}
		if [[ -n $optional && $w != -* ]]; then
			# The value of an option that may go without one (-c NAME).
			optional=
			continue
		fi
		optional=
		if [[ -n $pending ]]; then
			[[ -z $context && $pending == profile ]] && _hermes_profile=$w
			pending=
			continue
		fi
		if [[ $w == -* ]]; then
			if [[ -z $context ]]; then
				# Not one of hermes's own: a chat option (hermes -c NAME).
				[[ " $_hermes_global " == *" ${w%%=*} "* ]] || context=chat
				[[ $w == --profile=* ]] && _hermes_profile=${w#*=}
			fi
			_hermes_value "$context" "${w%%=*}"
			case $REPLY in
			'') ;;
			\?*) optional=${REPLY#\?} ;;
			*) [[ $w != *=* ]] && pending=$REPLY ;;
			esac
			continue
		fi
		_hermes_verbs "$context" all
		if [[ -z $context ]]; then
			case " $commands " in
			*" $w "*) context=$w ;;
			*) context=chat ;;
			esac
		elif [[ -n $REPLY && ${#_hermes_given[@]} -eq 0 && $context != */* && " $REPLY " == *" $w "* ]]; then
			context=$context/$w
		else
			_hermes_given+=("$w")
		fi
	done
	if [[ -n $pending ]]; then
		_hermes_complete_kind "$pending" "$text"
		return
	fi
	if [[ $text == -* ]]; then
		_hermes_options "$context"
		_hermes_add_words "$REPLY" "$text"
		return
	fi
	if [[ -n $optional ]]; then
		_hermes_complete_kind "$optional" "$text"
		return
	fi
	if [[ -z $context ]]; then
		_hermes_add_words "$commands" "$text"
		return
	fi
	_hermes_verbs "$context"
	if [[ -n $REPLY && $context != */* ]]; then
		_hermes_add_words "$REPLY" "$text"
		return
	fi
	_hermes_args "$context"
	read -ra kinds <<<"$REPLY"
	((${#kinds[@]} == 0)) && return
	kind=${kinds[${#_hermes_given[@]}]:-}
	[[ -z $kind && ${kinds[${#kinds[@]} - 1]} == *... ]] && kind=${kinds[${#kinds[@]} - 1]}
	[[ -n $kind ]] && _hermes_complete_kind "${kind%...}" "$text"
}

complete -F _hermes hermes
