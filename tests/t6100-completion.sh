#!/bin/sh
test_description='hermes completion: bash, zsh and fish scripts'
. "$(dirname "$0")/lib.sh"

# The shells themselves.
test_lazy_prereq BASH 'command -v bash'
test_lazy_prereq ZSH 'command -v zsh'
test_lazy_prereq FISH 'command -v fish'
test_lazy_prereq SHELLCHECK 'command -v shellcheck'

# bash_complete LINE [TEXT]: what the bash script offers with the cursor at
# the end of LINE, one a line, sorted. TEXT is the text readline replaces
# (the word after the last space, quote, ':' or '='); by default the last
# word of LINE. The script is loaded the way its help says: eval.
bash_complete() {
	bash -c '
		eval "$(hermes completion bash)" || exit 1
		complete -p hermes | grep -q -- "-F _hermes" || exit 1
		COMP_LINE=$1
		COMP_POINT=${#1}
		read -ra COMP_WORDS <<<"$1"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_hermes hermes "$2" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"
	' bash-complete "$1" "${2-${1##* }}" | sort
}

# expect_words WORD...: the file "expect", the words one a line, sorted.
expect_words() {
	printf "%s\n" "$@" | sort >expect
}

# The long options a --help text defines (in its usage lines and option
# list, not those it mentions in passing), and --help, one a line, sorted.
long_options() {
	{ "$@" && echo "  --help"; } |
		awk "/^Usage:/, /^\$/ { print; next } /^ +-/ { print }" |
		grep -o -- "--[a-z][a-z-]*" | sort -u
}

make_sessions() {
	for title in "redis debug" "redis notes" "api" "bug: colon here"; do
		hermes chat -c "$title" --create-if-missing -q x -Q --no-agent || return 1
	done
}

test_expect_success 'hermes completion SHELL prints a script; other shells are refused' '
	hermes completion bash >bash.out &&
	grep -q "^complete -F _hermes hermes$" bash.out &&
	hermes completion zsh >zsh.out &&
	grep -q "^#compdef hermes$" zsh.out &&
	hermes completion fish >fish.out &&
	grep -q "^complete -c hermes " fish.out &&
	test_expect_code 2 hermes completion tcsh >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: completion: unknown shell .tcsh. (bash, zsh, fish)$" err
'

test_expect_success 'the printed scripts fill in every verb and option from the templates in src/cli/completions' '
	for shell in bash zsh fish; do
		hermes completion $shell >actual &&
		! grep -n "@[A-Z_]*@" actual || return 1
	done &&
	hermes completion bash >actual &&
	grep -q "^complete -F _hermes hermes$" actual
'

test_expect_success SHELLCHECK 'shellcheck finds nothing in the printed bash script' '
	hermes completion bash >hermes.bash &&
	shellcheck -s bash hermes.bash
'

test_expect_success 'completion writes no files' '
	hermes completion bash >/dev/null &&
	! test -e "$HERMES_HOME"
'

test_expect_success BASH 'bash: commands' '
	bash_complete "hermes " >actual &&
	test_line_count = 7 actual &&
	expect_words $COMMANDS &&
	test_cmp expect actual &&
	bash_complete "hermes se" >actual &&
	expect_words sessions &&
	test_cmp expect actual &&
	bash_complete "hermes co" >actual &&
	expect_words completion config &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: config verbs, keys and the words a key takes' '
	bash_complete "hermes config " >actual &&
	expect_words $CONFIG_VERBS &&
	test_line_count -gt 5 expect &&
	test_cmp expect actual &&
	bash_complete "hermes -p work config set " >actual &&
	expect_words $CONFIG_KEYS &&
	test_line_count -gt 9 expect &&
	test_cmp expect actual &&
	bash_complete "hermes config get ag" >actual &&
	expect_words agent agent_input &&
	test_cmp expect actual &&
	bash_complete "hermes config set render " >actual &&
	expect_words markdown plain &&
	test_cmp expect actual &&
	bash_complete "hermes config set agent_input t" >actual &&
	expect_words transcript text &&
	test_cmp expect actual &&
	bash_complete "hermes config check --" >actual &&
	expect_words --timeout --help &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: sessions commands' '
	bash_complete "hermes sessions " >actual &&
	expect_words $VERBS &&
	test_cmp expect actual &&
	bash_complete "hermes -p work sessions de" >actual &&
	expect_words delete &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: the long options of chat and each sessions command are those of --help' '
	bash_complete "hermes chat --" >actual &&
	long_options hermes chat --help >expect &&
	test_cmp expect actual &&
	for verb in $VERBS; do
		bash_complete "hermes sessions $verb --" >actual &&
		long_options hermes sessions "$verb" --help >expect &&
		test_cmp expect actual || return 1
	done
'

test_expect_success BASH 'bash: options before a command are global and chat options' '
	bash_complete "hermes --" >actual &&
	{ long_options hermes --help && long_options hermes chat --help; } | sort -u >expect &&
	test_cmp expect actual &&
	bash_complete "hermes -c red --cr" >actual &&
	expect_words --create-if-missing &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: titles after -c, spaces escaped' '
	make_sessions &&
	bash_complete "hermes chat -c red" >actual &&
	expect_words "redis\\ debug" "redis\\ notes" &&
	test_cmp expect actual &&
	bash_complete "hermes -c " >actual &&
	expect_words "redis\\ debug" "redis\\ notes" api "bug:\\ colon\\ here" &&
	test_cmp expect actual &&
	bash_complete "hermes chat --continue redis\\ d" "redis\\ d" >actual &&
	expect_words "redis\\ debug" &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: a title with spaces inside an open quote' '
	make_sessions &&
	bash_complete "hermes chat -c \"redis d" "redis d" >actual &&
	expect_words "redis debug" &&
	test_cmp expect actual &&
	bash_complete "hermes chat -c '\''redis n" "redis n" >actual &&
	expect_words "redis notes" &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: a title with a colon, which readline splits the word at' '
	make_sessions &&
	bash_complete "hermes chat -c bug:" "" >actual &&
	expect_words "\\ colon\\ here" &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: titles after the sessions commands that take a name' '
	make_sessions &&
	expect_words "redis\\ debug" "redis\\ notes" &&
	for verb in show export delete rename; do
		bash_complete "hermes sessions $verb re" >actual &&
		test_cmp expect actual || return 1
	done &&
	bash_complete "hermes sessions delete api re" >actual &&
	test_cmp expect actual &&
	bash_complete "hermes sessions rename api re" >actual &&
	test_must_be_empty actual &&
	bash_complete "hermes sessions list re" >actual &&
	test_must_be_empty actual
'

test_expect_success BASH 'bash: IDs after -r' '
	make_sessions &&
	hermes sessions list --all | cut -f5 | sort >expect &&
	test_line_count = 4 expect &&
	bash_complete "hermes chat -r 2" >actual &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: profiles after -p, and that profile'\''s titles' '
	make_sessions &&
	hermes -p work chat -c "work thread" --create-if-missing -q x -Q --no-agent &&
	bash_complete "hermes -p " >actual &&
	expect_words work &&
	test_cmp expect actual &&
	bash_complete "hermes -p work chat -c " >actual &&
	expect_words "work\\ thread" &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: arguments of --format, completion and help' '
	bash_complete "hermes sessions export -f " >actual &&
	expect_words json jsonl markdown &&
	test_cmp expect actual &&
	bash_complete "hermes completion " >actual &&
	expect_words bash zsh fish &&
	test_cmp expect actual &&
	bash_complete "hermes help " >actual &&
	expect_words $COMMANDS &&
	test_cmp expect actual &&
	bash_complete "hermes help config " >actual &&
	expect_words $CONFIG_VERBS &&
	test_cmp expect actual &&
	bash_complete "hermes help sessions " >actual &&
	expect_words $VERBS &&
	test_cmp expect actual
'

test_lazy_prereq STRACE 'command -v strace && strace -f -o /dev/null true'

# A store of 600 sessions titled t0 to t599 (a catalog is kept from 500).
large_store() {
	gen_sessions 600 >many.jsonl &&
	hermes sessions import many.jsonl 2>/dev/null
}

test_expect_success STRACE 'what completion lists comes from the catalog: no session file is read' '
	large_store &&
	strace -f -o trace -e trace=$(syscalls open) hermes sessions list --completing T59 >out &&
	! grep "sessions/[0-9_a-f]*\.json\"" trace &&
	cut -f2 out | sort >actual &&
	expect_words t59 t590 t591 t592 t593 t594 t595 t596 t597 t598 t599 &&
	test_cmp expect actual &&
	hermes sessions list --completing 20260101_000009 | cut -f5 >actual &&
	test_line_count = 60 actual
'

test_expect_success BASH 'bash: titles of a large store, from the catalog' '
	large_store &&
	bash_complete "hermes chat -c t59" >actual &&
	expect_words t59 t590 t591 t592 t593 t594 t595 t596 t597 t598 t599 &&
	test_cmp expect actual
'

test_expect_success BASH 'bash: no titles and no error without a store' '
	bash_complete "hermes chat -c " >actual 2>err &&
	test_must_be_empty actual &&
	test_must_be_empty err &&
	! test -e "$HERMES_HOME/sessions"
'

test_expect_success ZSH 'zsh: the script parses and registers _hermes' '
	hermes completion zsh >_hermes &&
	zsh -n _hermes &&
	zsh -f -c "
		autoload -Uz compinit && compinit -u -d \"$TRASH/zcompdump\" &&
		source ./_hermes &&
		test \"\${_comps[hermes]}\" = _hermes &&
		(( \${+functions[_hermes_sessions]} ))
	"
'

# zsh_sessions ARGS...: what the zsh script'"'"'s _hermes_sessions ARGS offers,
# with the completion system'"'"'s own functions stubbed out.
zsh_sessions() {
	hermes completion zsh >_hermes &&
	zsh -f -c '
		compdef() { : }
		typeset -A opt_args
		_call_program() { shift; eval "$@" }
		_wanted() { local name=$argv[-1]; print -rl -- ${(P)name} }
		source ./_hermes
		_hermes_sessions "$@"
	' zsh-sessions "$@" | sort
}

test_expect_success ZSH 'zsh: titles with spaces, and IDs, from sessions list' '
	make_sessions &&
	zsh_sessions -J -default- title >actual &&
	expect_words "redis debug" "redis notes" api "bug: colon here" &&
	test_cmp expect actual &&
	zsh_sessions -J -default- id >actual &&
	hermes sessions list --all | cut -f5 | sort >expect &&
	test_line_count = 4 expect &&
	test_cmp expect actual
'

test_expect_success ZSH 'zsh: the word typed narrows what hermes lists (any case)' '
	make_sessions &&
	PREFIX=RED zsh_sessions -J -default- title >actual &&
	expect_words "redis debug" "redis notes" &&
	test_cmp expect actual
'

test_expect_success ZSH 'zsh: every long option of every --help is in the script' '
	hermes completion zsh >_hermes &&
	{
		long_options hermes --help &&
		long_options hermes chat --help &&
		for verb in $VERBS; do long_options hermes sessions "$verb" --help; done
	} | sort -u >options &&
	for option in $(cat options); do
		grep -q -e "$option" _hermes || {
			echo "missing from the zsh script: $option" >&2
			return 1
		}
	done
'

# fish_complete LINE: what fish offers, without descriptions, sorted.
fish_complete() {
	fish --no-config -c "hermes completion fish | source; complete -C'$1'" | cut -f1 | sort
}

test_expect_success FISH 'fish: commands, sessions commands and titles with spaces' '
	make_sessions &&
	fish_complete "hermes " >actual &&
	expect_words $COMMANDS &&
	test_cmp expect actual &&
	fish_complete "hermes co" >actual &&
	expect_words completion config &&
	test_cmp expect actual &&
	fish_complete "hermes sessions " >actual &&
	expect_words $VERBS &&
	test_cmp expect actual &&
	fish_complete "hermes chat -c red" >actual &&
	expect_words "redis debug" "redis notes" &&
	test_cmp expect actual &&
	fish_complete "hermes sessions show red" >actual &&
	test_cmp expect actual &&
	hermes -p work chat -c "work thread" --create-if-missing -q x -Q --no-agent &&
	fish_complete "hermes -p work chat -c " >actual &&
	expect_words "work thread" &&
	test_cmp expect actual
'

test_expect_success FISH 'fish: the long options of each sessions command are those of --help' '
	for verb in $VERBS; do
		fish_complete "hermes sessions $verb --" >actual &&
		long_options hermes sessions "$verb" --help >expect &&
		test_cmp expect actual || return 1
	done &&
	fish_complete "hermes chat --" >actual &&
	long_options hermes chat --help >expect &&
	test_cmp expect actual
'

test_expect_success FISH 'fish: config verbs, keys and the words a key takes' '
	fish_complete "hermes config " >actual &&
	expect_words $CONFIG_VERBS &&
	test_cmp expect actual &&
	fish_complete "hermes config set " >actual &&
	expect_words $CONFIG_KEYS &&
	test_cmp expect actual &&
	fish_complete "hermes config set compact " >actual &&
	expect_words auto off &&
	test_cmp expect actual &&
	fish_complete "hermes help sessions " >actual &&
	expect_words $VERBS &&
	test_cmp expect actual &&
	fish_complete "hermes completion " >actual &&
	expect_words bash zsh fish &&
	test_cmp expect actual
'

# zsh_tab LINE: type LINE in an interactive zsh in a tmux pane, press Tab,
# and leave what zsh listed under the prompt in "listed" (the words of the
# pane from the line typed on).
# zsh_listed: zsh has listed the choices, on the lines under its prompt.
zsh_listed() {
	test "$(screen | sed -n "/^zsh> /,\$ p" | grep -c -v "^ *$")" -ge 2
}

zsh_tab() {
	mkdir -p "$TRASH/zdot" &&
	hermes completion zsh >"$TRASH/zdot/_hermes" &&
	cat >"$TRASH/zdot/.zshrc" <<-EOF &&
	PS1="zsh> "
	autoload -Uz compinit && compinit -u -d "$TRASH/zcompdump"
	source "$TRASH/zdot/_hermes"
	EOF
	SOCKET=$TRASH/zsh.sock &&
	trap stop_tmux EXIT &&
	PANE=$(tm new-session -d -s test -x 200 -y 50 -c "$TRASH" -P -F "#{pane_id}" \
		"env ZDOTDIR=$TRASH/zdot PATH=$PATH HERMES_HOME=$HERMES_HOME zsh -d -i") &&
	wait_until on_screen "^zsh> " &&
	typed "$1" &&
	keys Tab &&
	wait_until zsh_listed &&
	screen | sed -n "/^zsh> /,\$ p" | tr -s " " "\n" | grep -v "^$" | sort -u >listed &&
	stop_tmux
}

test_expect_success ZSH,TMUX 'zsh: hermes co<Tab>, config <Tab>, config set <Tab> in a real zsh' '
	zsh_tab "hermes co" &&
	grep -x config listed &&
	grep -x completion listed &&
	zsh_tab "hermes config " &&
	for verb in $CONFIG_VERBS; do grep -x "$verb" listed || return 1; done &&
	zsh_tab "hermes config set " &&
	for key in $CONFIG_KEYS; do grep -x "$key" listed || return 1; done
'

test_done
