#!/bin/sh
test_description='every tmux pane continues its own session'
. "$(dirname "$0")/lib.sh"

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# Each test runs its own tmux server: start_tmux, tm and stop_tmux are in
# lib-fixtures.sh.

# new_pane: one more pane (in its own window) with a shell; prints its id.
new_pane() {
	tm new-window -d -t test -c "$TRASH" -P -F '#{pane_id}' "env PS1='$ ' sh"
}

# in_pane PANE TAG 'COMMAND': type COMMAND into the shell of PANE, wait for
# it to finish; succeeds if it exited 0.
in_pane() {
	tm send-keys -t "$1" -l "$3; echo \$? >$2.tmp && mv $2.tmp $2.rc" &&
	tm send-keys -t "$1" Enter &&
	wait_for_file "$2.rc" &&
	if test "$(cat "$2.rc")" != 0; then
		echo "'$3' in pane $1 exited $(cat "$2.rc")" >&2
		return 1
	fi
}

# chat_in_two_panes ['REDIRECTIONS']: start_tmux with two panes, $A_pane and
# $B_pane. In each, a new session ("from A", "from B"), then bare -c
# continuing it ("A again", "B again"): hermes chat ... --no-agent -Q
# REDIRECTIONS.
chat_in_two_panes() {
	start_tmux &&
	A_pane=$PANE &&
	B_pane=$(new_pane) &&
	in_pane "$A_pane" a1 "hermes chat -q \"from A\" --no-agent -Q${1:+ $1}" &&
	in_pane "$B_pane" b1 "hermes chat -q \"from B\" --no-agent -Q${1:+ $1}" &&
	in_pane "$A_pane" a2 "hermes chat -c -q \"A again\" --no-agent -Q${1:+ $1}" &&
	in_pane "$B_pane" b2 "hermes chat -c -q \"B again\" --no-agent -Q${1:+ $1}"
}

# each_continued_its_own: sets $A and $B to the sessions "from A" and "from
# B", and checks that each holds exactly the two messages of its pane.
each_continued_its_own() {
	A=$(session_id_by_title "from A") &&
	B=$(session_id_by_title "from B") &&
	printf '%s\n' "user: from A" "user: A again" >expect &&
	messages "$A" >actual &&
	test_cmp expect actual &&
	printf '%s\n' "user: from B" "user: B again" >expect &&
	messages "$B" >actual &&
	test_cmp expect actual
}

test_expect_success TMUX 'two tmux panes each continue their own session' '
	chat_in_two_panes &&
	in_pane "$A_pane" a3 "hermes sessions current >A.current" &&
	in_pane "$B_pane" b3 "hermes sessions current >B.current" &&
	each_continued_its_own &&
	check_current A.current "$A" breadcrumb &&
	check_current B.current "$B" breadcrumb &&
	# One breadcrumb per pane, named after the pane'"'"'s tty.
	A_tty=$(tm display -p -t "$A_pane" "#{pane_tty}") &&
	B_tty=$(tm display -p -t "$B_pane" "#{pane_tty}") &&
	printf "tty%s.$MACHINE.json\n" "$A_tty" "$B_tty" | sed "s,/,-,g" | sort >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'a pane whose commands have no tty uses TMUX_PANE as its key' '
	chat_in_two_panes "</dev/null >/dev/null 2>&1" &&
	in_pane "$A_pane" a3 "hermes sessions current </dev/null >A.current 2>&1" &&
	each_continued_its_own &&
	check_current A.current "$A" breadcrumb &&
	printf "tmux_pane--%s.$MACHINE.json\n" "${A_pane#%}" "${B_pane#%}" | sort >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual &&
	grep "\"session_id\":\"$A\"" "$HERMES_HOME/terminal-sessions/tmux_pane--${A_pane#%}.$MACHINE.json"
'

test_expect_success TMUX 'a pane of a restarted tmux server does not continue the old pane'"'"'s session' '
	start_tmux &&
	old_pane=$PANE &&
	in_pane "$old_pane" old "hermes chat -q \"old server\" --no-agent -Q </dev/null >/dev/null 2>&1" &&
	test -f "$HERMES_HOME/terminal-sessions/tmux_pane--${old_pane#%}.$MACHINE.json" &&
	tm kill-server &&
	hermes chat -q newer --no-agent -Q &&
	# A new socket: a server that is still shutting down cannot answer.
	start_tmux restarted &&
	new_pane=$PANE &&
	# Pane ids restart with the server; should this one differ, give it the
	# old breadcrumb: the name is the same, the terminal is not.
	if test "$new_pane" != "$old_pane"; then
		cp "$HERMES_HOME/terminal-sessions/tmux_pane--${old_pane#%}.$MACHINE.json" \
			"$HERMES_HOME/terminal-sessions/tmux_pane--${new_pane#%}.$MACHINE.json"
	fi &&
	in_pane "$new_pane" new "hermes sessions current </dev/null >new.current 2>&1" &&
	check_current new.current "$(session_id_by_title newer)" workspace
'

test_expect_success TMUX 'a command run by tmux itself in a new window is a terminal of its own' '
	start_tmux &&
	first=$PANE &&
	in_pane "$first" one "hermes chat -q first --no-agent -Q" &&
	hermes chat -q newer --no-agent -Q &&
	tm new-window -d -t test -c "$TRASH" \
		"hermes sessions current >window.current 2>&1; mv window.current window.done" &&
	wait_for_file window.done &&
	check_current window.done "$(session_id_by_title newer)" workspace
'

test_done
