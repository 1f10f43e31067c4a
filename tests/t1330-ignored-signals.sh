#!/bin/sh
test_description='signals ignored when hermes starts stay ignored: nohup (SIGHUP) and background jobs of scripts (SIGINT)'
. "$(dirname "$0")/lib.sh"

# An agent that records its pid (its process group: hermes starts each in
# its own), then waits for the file "go" before it answers.
waiting_agent='cat >/dev/null; echo $$ >agent.pid.tmp; mv agent.pid.tmp agent.pid; while ! test -e go; do sleep 0.1; done; echo reply'

# stop_leftovers: kill what a failing test left running.
stop_leftovers() {
	test -s agent.pid && kill -KILL -"$(cat agent.pid)" 2>/dev/null
	test -n "${hermes_pid:-}" && kill -KILL "$hermes_pid" 2>/dev/null
	return 0
}

# signalled_turn SIGNAL: hermes (pid $hermes_pid, started by the caller with
# SIGNAL ignored) gets SIGNAL, and so does its agent's group, mid-turn;
# then the agent is let go. hermes must finish the turn: exit 0, the reply
# on stdout and in the session.
signalled_turn() {
	wait_for_file agent.pid 20 &&
	kill -"$1" "$hermes_pid" &&
	kill -"$1" -"$(cat agent.pid)" &&
	# Let hermes act on the signal, were it caught, before the agent answers.
	sleep 0.5 &&
	touch go &&
	wait "$hermes_pid"
	status=$?
	hermes_pid=
	test "$status" = 0 || { echo "hermes exited $status"; cat err; return 1; }
	echo reply >expect &&
	test_cmp expect out &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	hermes sessions show "$id" --json | grep "\"role\":\"assistant\",\"content\":\"reply\""
}

test_expect_success 'nohup hermes chat ... & survives a hangup, and so does its agent' '
	trap stop_leftovers EXIT &&
	{ nohup hermes chat -q hi --agent "$waiting_agent" -Q >out 2>err & } &&
	hermes_pid=$! &&
	signalled_turn HUP
'

test_expect_success 'SIGHUP ignored by the caller (trap "" HUP) stays ignored' '
	trap stop_leftovers EXIT &&
	{ (trap "" HUP && exec hermes chat -q hi --agent "$waiting_agent" -Q >out 2>err) & } &&
	hermes_pid=$! &&
	signalled_turn HUP
'

test_expect_success 'SIGINT ignored in a background job of a script stays ignored' '
	trap stop_leftovers EXIT &&
	{ (trap "" INT && exec hermes chat -q hi --agent "$waiting_agent" -Q >out 2>err) & } &&
	hermes_pid=$! &&
	signalled_turn INT
'

test_expect_success 'a signal not ignored at start still stops the turn (exit 130, the message kept)' '
	trap stop_leftovers EXIT &&
	{ (trap "" INT && exec hermes chat -q hi --agent "$waiting_agent" -Q >out 2>err) & } &&
	hermes_pid=$! &&
	wait_for_file agent.pid 20 &&
	kill -HUP "$hermes_pid" &&
	wait "$hermes_pid"
	status=$?
	hermes_pid=
	test "$status" = 130 &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	hermes sessions show "$id" --json | grep "\"content\":\"hi\""
'

test_done
