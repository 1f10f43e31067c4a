#!/bin/sh
test_description='hermes chat and an agent that will not stop: a signal at any moment, an agent deaf to SIGTERM, a runaway reply'
. "$(dirname "$0")/lib.sh"

# The agents here record their pid (their process group: hermes starts each
# in its own) in agent.pid, then misbehave. Every bound on time below is far
# above what a working hermes needs and far below how long the agent would
# otherwise run.

# write_pid: shell text for an agent that has read its stdin and records
# its pid.
write_pid='cat >/dev/null; echo $$ >agent.pid.tmp; mv agent.pid.tmp agent.pid'

# a_bytes N: shell text writing N bytes "a" and no line end. (tr -c makes
# every byte that is not an "a" one; no backslash in the text, so that
# test_expect_code can echo it.)
a_bytes() {
	echo "head -c $1 /dev/zero | tr -c a a"
}
twenty_mb=$(a_bytes 20000000)

# The agents of the tests that run hermes in the background are set here,
# not in the test: "A && B &" would put all of A in the background too.
busy_agent="$write_pid; $(a_bytes 300000); sleep 60; echo never"
deaf_agent="trap '' TERM; $write_pid; echo partial; sleep 60; echo never"
deaf_silent_agent="trap '' TERM; $write_pid; sleep 60; echo never"
# The agent itself stops on SIGTERM; what it left in its group does not,
# and holds neither its stdout nor its stdin.
deaf_child_agent="$write_pid; (trap '' TERM; exec sleep 60) </dev/null >/dev/null 2>&1 & echo partial; exec sleep 60"
deaf_runaway_agent="trap '' TERM; $write_pid; $twenty_mb; sleep 60; echo never"

# stop_leftovers: kill the process group a failing test left running.
stop_leftovers() {
	if test -s agent.pid; then
		kill -KILL -"$(cat agent.pid)" 2>/dev/null
	fi
	return 0
}

# group_gone PGID: no process of that group is left.
group_gone() {
	gone -"$1"
}

# watchdog SECONDS PID: SIGKILL to PID after SECONDS, so that a hermes that
# hangs exits 137 instead of holding up the suite; $watchdog is the
# watcher, to be killed once PID is done.
watchdog() {
	(sleep "$1" && kill -KILL "$2") 2>/dev/null &
	watchdog=$!
}

# The number of write(2) on this machine, for /proc/PID/syscall.
case $(uname -m) in
x86_64) write_syscall=1 ;;
aarch64 | riscv64 | loongarch64) write_syscall=64 ;;
i?86 | arm*) write_syscall=4 ;;
*) write_syscall= ;;
esac

# writing_blocked PID: a thread of PID sleeps in write(2) to its stdout (a
# pipe, full): /proc/PID/wchan says pipe_write, or, where the kernel hides
# that as "0", /proc/PID/task/*/syscall shows write with fd 1. Where /proc
# tells neither, it is never seen.
writing_blocked() {
	case $(cat "/proc/$1/wchan" 2>/dev/null) in
	*pipe_write*) return 0 ;;
	esac
	test -n "$write_syscall" || return 1
	for task in /proc/"$1"/task/*; do
		read -r nr fd rest <"$task/syscall" 2>/dev/null &&
		test "$nr" = "$write_syscall" && test "$fd" = 0x1 &&
		grep -q "^State:.S" "$task/status" && return 0
	done
	return 1
}

# interrupted_reply AGENT: hermes chat -q "keep me" with AGENT, in the
# background; once the agent has written something, SIGINT to hermes. It
# must exit 130, and leave no process of the agent's group (which init may
# take a moment to reap).
interrupted_reply() {
	$interruptible hermes chat -q "keep me" -Q --agent "$1" >out 2>err &
	hermes_pid=$!
	watchdog 20 $hermes_pid &&
	wait_for_file agent.pid &&
	poll_until test -s out &&
	kill -INT $hermes_pid &&
	test_expect_code 130 wait $hermes_pid &&
	kill $watchdog &&
	poll_until -t 10 group_gone "$(cat agent.pid)"
}

# only_message TEXT: the store holds one session, holding only the user's
# TEXT; its ID is then in $id.
only_message() {
	id=$(only_id) &&
	echo "user: $1" >expect &&
	messages "$id" >actual && test_cmp expect actual
}

# too_large AGENT: the error for an agent AGENT whose reply passed 16 MiB.
too_large() {
	printf "hermes: agent '%s' wrote a reply larger than 16 MiB; stopped it, the reply was not saved\n" "$1"
}

# refused_past_limit AGENT: a chat whose AGENT replies past 16 MiB exits 3
# with that error, shows nothing, and keeps only the question.
refused_past_limit() {
	test_expect_code 3 hermes chat -q "keep me" -Q --agent "$1" >out 2>err &&
	too_large "$1" >expect && test_cmp expect err &&
	test_must_be_empty out &&
	only_message "keep me"
}

test_expect_success 'SIGINT while hermes is busy writing the reply still stops the agent' '
	trap stop_leftovers EXIT
	mkfifo shown.fifo || exit 1
	# The reader takes nothing until the gate opens: hermes fills the pipe
	# and waits in write(2), away from the agent, when the signal comes.
	(exec 3<shown.fifo && wait_for_file gate && cat <&3 >shown) &
	reader=$!
	$interruptible hermes chat -q "keep me" -Q --agent "$busy_agent" >shown.fifo 2>err &
	hermes_pid=$! &&
	watchdog 20 $hermes_pid &&
	wait_for_file agent.pid &&
	if ! poll_until -t 10 writing_blocked $hermes_pid; then
		kill -KILL $hermes_pid $watchdog
		: >gate
		wait $reader
		test_skip "hermes was never seen blocked writing to the full pipe: /proc shows neither wchan nor the system call"
	fi &&
	kill -INT $hermes_pid &&
	: >gate &&
	test_expect_code 130 wait $hermes_pid &&
	kill $watchdog &&
	wait $reader &&
	poll_until -t 10 group_gone "$(cat agent.pid)" &&
	! grep never shown &&
	echo "hermes: interrupted" >expect && test_cmp expect err &&
	messages "$(only_id)" >actual &&
	head -n 1 actual >first &&
	echo "user: keep me" >expect && test_cmp expect first
'

test_expect_success 'SIGINT to hermes, an agent that ignores SIGTERM: SIGKILL after a grace period, exit 130, the conversation kept' '
	trap stop_leftovers EXIT
	interrupted_reply "$deaf_agent" &&
	echo partial >expect && test_cmp expect out &&
	echo "hermes: interrupted" >expect && test_cmp expect err &&
	printf "user: keep me\nassistant: partial\n" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'SIGINT: a process the agent left in its group, deaf to SIGTERM, is killed too' '
	trap stop_leftovers EXIT
	# The agent exits on SIGTERM at once; what it left is killed then.
	interrupted_reply "$deaf_child_agent" &&
	printf "user: keep me\nassistant: partial\n" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'SIGTERM to hermes before the agent said anything, the agent deaf to it: exit 130, the message kept' '
	trap stop_leftovers EXIT
	hermes chat -q "keep me" --agent "$deaf_silent_agent" >out 2>err &
	hermes_pid=$! &&
	watchdog 20 $hermes_pid &&
	wait_for_file agent.pid &&
	kill -TERM $hermes_pid &&
	test_expect_code 130 wait $hermes_pid &&
	kill $watchdog &&
	poll_until -t 10 group_gone "$(cat agent.pid)" &&
	test_must_be_empty out &&
	only_message "keep me" &&
	printf "session_id: %s\nhermes: interrupted\n" "$id" >expect && test_cmp expect err
'

test_expect_success 'a reply past 16 MiB: exit 3, the agent stopped, nothing saved for it' '
	agent="cat >/dev/null; $twenty_mb" &&
	test_expect_code 3 hermes chat -q "keep me" --agent "$agent" >out 2>err &&
	only_message "keep me" &&
	{ echo "session_id: $id" && too_large "$agent"; } >expect &&
	test_cmp expect err &&
	test "$(wc -c <out)" -le 16777216 &&
	test "$(field "$id" message_count)" = 1
'

test_expect_success 'a reply past 16 MiB from an agent that ignores SIGTERM: it is killed, exit 3' '
	trap stop_leftovers EXIT
	hermes chat -q "keep me" -Q --agent "$deaf_runaway_agent" >out 2>err &
	hermes_pid=$! &&
	watchdog 20 $hermes_pid &&
	test_expect_code 3 wait $hermes_pid &&
	kill $watchdog &&
	poll_until -t 10 group_gone "$(cat agent.pid)" &&
	too_large "$deaf_runaway_agent" >expect && test_cmp expect err &&
	only_message "keep me"
'

test_expect_success 'an SSE line without end past the limit: exit 3, nothing saved for it' '
	refused_past_limit "cat >/dev/null; printf \"data: \"; $twenty_mb"
'

test_expect_success 'a completion object past the limit: exit 3, nothing saved for it' '
	agent="cat >/dev/null; printf \"{\\\"choices\\\":[{\\\"message\\\":{\\\"content\\\":\\\"\"; $twenty_mb; printf \"\\\"}}]}\"" &&
	refused_past_limit "$agent"
'

test_expect_success 'a reply of exactly 16 MiB is shown and saved' '
	hermes chat -q "keep me" -Q --agent "cat >/dev/null; $(a_bytes 16777216)" >out 2>err &&
	test_must_be_empty err &&
	test "$(wc -c <out)" = 16777216 &&
	id=$(only_id) &&
	test "$(field "$id" message_count)" = 2 &&
	messages "$id" | sed -n 2p | wc -c >size &&
	echo $((16777216 + 12)) >expect && test_cmp expect size
'

# GNU time(1) reports the peak resident set size of what it ran.
test_lazy_prereq GNU_TIME '/usr/bin/time -f %M -o /dev/null true'

test_expect_success GNU_TIME 'a runaway agent cannot run hermes out of memory' '
	for lead in "" "data: " "{"; do
		agent="cat >/dev/null; printf \"$lead\"; $(a_bytes 48000000)" &&
		test_expect_code 3 /usr/bin/time -f %M -o rss hermes chat -q "keep me" -Q --agent "$agent" >/dev/null 2>err &&
		too_large "$agent" >expect && test_cmp expect err &&
		figure "t1310: peak RSS with 48 MB from the agent (lead \"$lead\"): $(tail -n 1 rss) KiB" &&
		test "$(tail -n 1 rss)" -lt 65536 || return 1
	done
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
