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
	done < <(command "$hermes" "${profile[@]}" sessions list --all 2>/dev/null)
}

_hermes_add_words() {
	local w
	for w in $1; do
		[[ $w == "$2"* ]] && COMPREPLY+=("$w")
	done
}

_hermes() {
	local text=$2 cmd='' verb='' prev='' w i nargs=0 takes_value=''
	local -a _hermes_words
	local _hermes_cur _hermes_raw _hermes_quote _hermes_profile=
	local global='@GLOBAL@'
	local chat='@CHAT@'
	local verbs='@VERBS@'
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
		case $cmd/$verb/$w in
		@TAKES_VALUE@
		esac
	done
	case $cmd/$verb/$prev in
	/*/-p | /*/--profile)
		local home=${HERMES_HOME:-$HOME/.hermes} dir
		for dir in "$home"/profiles/*/; do
			[[ -d $dir ]] && dir=${dir%/} && _hermes_add_words "${dir##*/}" "$text"
		done
		return
		;;
	@VALUES@
	esac
	if [[ $text == -* ]]; then
		case $cmd/$verb in
		/) _hermes_add_words "$global $chat" "$text" ;;
		chat/) _hermes_add_words "$chat" "$text" ;;
		sessions/) _hermes_add_words '-h --help' "$text" ;;
		@OPTIONS@
		*) _hermes_add_words '-h --help' "$text" ;;
		esac
		return
	fi
	case $cmd/$verb in
	/) _hermes_add_words 'chat sessions completion help' "$text" ;;
	sessions/) _hermes_add_words "$verbs" "$text" ;;
	sessions/show | sessions/export | sessions/delete) _hermes_add_sessions title "$text" ;;
	sessions/rename | sessions/stats | sessions/compact | sessions/repair) ((nargs == 0)) && _hermes_add_sessions title "$text" ;;
	sessions/import) ((nargs == 0)) && compopt -o default 2>/dev/null ;;
	sessions/merge) ((nargs == 0)) && _hermes_add_sessions title "$text" ;;
	sessions/merge-file) ((nargs < 3)) && compopt -o default 2>/dev/null ;;
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
