#!/bin/sh
test_description='every tmux pane continues its own session'
. "$(dirname "$0")/lib.sh"

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# Each test runs its own tmux server on a private socket in its trash
# directory ($SOCKET, see start_tmux); every server a test started is killed
# when the test's subshell exits, pass or fail.
tm() {
	tmux -S "$SOCKET" -f /dev/null "$@"
}

# start_tmux [NAME]: start a server (socket NAME, default "tmux") with one
# pane running an interactive shell in $TRASH; sets $PANE to the pane's id
# (%N). Not in $(...): the trap must belong to the test's shell.
start_tmux() {
	SOCKET=$TRASH/${1:-tmux}.sock
	trap 'for SOCKET in "$TRASH"/*.sock; do tm kill-server >/dev/null 2>&1; done' EXIT
	trap 'exit 130' INT TERM HUP
	PANE=$(tm new-session -d -s test -x 120 -y 40 -c "$TRASH" -P -F '#{pane_id}' "env PS1='$ ' sh")
}

# new_pane: one more pane (in its own window) with a shell; prints its id.
new_pane() {
	tm new-window -d -t test -c "$TRASH" -P -F '#{pane_id}' "env PS1='$ ' sh"
}

# wait_for_file FILE: poll until FILE exists (at most 30 s).
wait_for_file() {
	tries=0
	while ! test -e "$1"; do
		tries=$((tries + 1))
		if test $tries -gt 300; then
			echo "timed out waiting for $1" >&2
			return 1
		fi
		sleep 0.1
	done
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

# messages_of ID: "role: content" of each message in the session file.
messages_of() {
	tr '{' '\n' <"$HERMES_HOME/sessions/$1.json" |
	sed -n 's/^"role":"\([a-z]*\)","content":"\([^"]*\)".*/\1: \2/p'
}

# check_current FILE ID REASON: FILE holds the output of `hermes sessions
# current`, which must name session ID for REASON.
check_current() {
	printf '%s %s\n' "$2" "$3" >expect.current &&
	awk -F '\t' '{ sub(/ \(.*/, "", $3); print $1, $3 }' "$1" >actual.current &&
	test_cmp expect.current actual.current
}

test_expect_success TMUX 'two tmux panes each continue their own session' '
	start_tmux &&
	A_pane=$PANE &&
	B_pane=$(new_pane) &&
	in_pane "$A_pane" a1 "hermes chat -q \"from A\" --no-agent -Q" &&
	in_pane "$B_pane" b1 "hermes chat -q \"from B\" --no-agent -Q" &&
	in_pane "$A_pane" a2 "hermes chat -c -q \"A again\" --no-agent -Q" &&
	in_pane "$B_pane" b2 "hermes chat -c -q \"B again\" --no-agent -Q" &&
	in_pane "$A_pane" a3 "hermes sessions current >A.current" &&
	in_pane "$B_pane" b3 "hermes sessions current >B.current" &&
	A=$(session_id_by_title "from A") &&
	B=$(session_id_by_title "from B") &&
	check_current A.current "$A" breadcrumb &&
	check_current B.current "$B" breadcrumb &&
	cat >expect <<-\EOF &&
	user: from A
	user: A again
	EOF
	messages_of "$A" >actual &&
	test_cmp expect actual &&
	cat >expect <<-\EOF &&
	user: from B
	user: B again
	EOF
	messages_of "$B" >actual &&
	test_cmp expect actual &&
	# One breadcrumb per pane, named after the pane'"'"'s tty.
	A_tty=$(tm display -p -t "$A_pane" "#{pane_tty}") &&
	B_tty=$(tm display -p -t "$B_pane" "#{pane_tty}") &&
	printf "tty%s.json\n" "$A_tty" "$B_tty" | sed "s,/,-,g" | sort >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'a pane whose commands have no tty uses TMUX_PANE as its key' '
	start_tmux &&
	A_pane=$PANE &&
	B_pane=$(new_pane) &&
	quiet="--no-agent -Q </dev/null >/dev/null 2>&1" &&
	in_pane "$A_pane" a1 "hermes chat -q \"from A\" $quiet" &&
	in_pane "$B_pane" b1 "hermes chat -q \"from B\" $quiet" &&
	in_pane "$A_pane" a2 "hermes chat -c -q \"A again\" $quiet" &&
	in_pane "$B_pane" b2 "hermes chat -c -q \"B again\" $quiet" &&
	in_pane "$A_pane" a3 "hermes sessions current </dev/null >A.current 2>&1" &&
	A=$(session_id_by_title "from A") &&
	B=$(session_id_by_title "from B") &&
	check_current A.current "$A" breadcrumb &&
	cat >expect <<-\EOF &&
	user: from A
	user: A again
	EOF
	messages_of "$A" >actual &&
	test_cmp expect actual &&
	cat >expect <<-\EOF &&
	user: from B
	user: B again
	EOF
	messages_of "$B" >actual &&
	test_cmp expect actual &&
	printf "tmux_pane--%s.json\n" "${A_pane#%}" "${B_pane#%}" | sort >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual &&
	grep "\"session_id\":\"$A\"" "$HERMES_HOME/terminal-sessions/tmux_pane--${A_pane#%}.json"
'

test_expect_success TMUX 'a pane of a restarted tmux server does not continue the old pane'"'"'s session' '
	start_tmux &&
	old_pane=$PANE &&
	in_pane "$old_pane" old "hermes chat -q \"old server\" --no-agent -Q </dev/null >/dev/null 2>&1" &&
	test -f "$HERMES_HOME/terminal-sessions/tmux_pane--${old_pane#%}.json" &&
	tm kill-server &&
	hermes chat -q newer --no-agent -Q &&
	# A new socket: a server that is still shutting down cannot answer.
	start_tmux restarted &&
	new_pane=$PANE &&
	# Pane ids restart with the server; should this one differ, give it the
	# old breadcrumb: the name is the same, the terminal is not.
	if test "$new_pane" != "$old_pane"; then
		cp "$HERMES_HOME/terminal-sessions/tmux_pane--${old_pane#%}.json" \
			"$HERMES_HOME/terminal-sessions/tmux_pane--${new_pane#%}.json"
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
