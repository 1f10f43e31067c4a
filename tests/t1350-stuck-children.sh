#!/bin/sh
test_description='children that would hang a chat for ever: an api_key_command that never ends (killed at its timeout, with its process group), an agent or key command stopped by the terminal (named, killed, exit 3)'
. "$(dirname "$0")/lib.sh"

# The commands here record their pid (their process group: hermes starts
# each in its own) in cmd.pid, then hang. Every bound on time below is far
# above what a working hermes needs and far below how long they would
# otherwise run.
write_pid='echo $$ >cmd.pid.tmp; mv cmd.pid.tmp cmd.pid'
slow_key="$write_pid; exec sleep 300"
# An agent that shows the key it was given.
echo_key='cat >/dev/null; echo "key: $OPENAI_API_KEY"'

# stop_leftovers: kill the process group a failing test left running.
stop_leftovers() {
	test -s cmd.pid && kill -KILL -"$(cat cmd.pid)" 2>/dev/null
	return 0
}

# bounded SECONDS CMD...: CMD, killed after SECONDS should it hang (so
# that a hermes that waits for ever fails the test rather than the suite).
bounded() {
	timeout -s KILL "$@"
}

test_expect_success 'config check: an api_key_command that does not end is killed at --timeout, and the error names it and the timeout' '
	trap stop_leftovers EXIT
	hermes config set agent "$echo_key" &&
	hermes config set api_key_command "$slow_key" &&
	test_expect_code 3 bounded 60 hermes config check --timeout 2 >out 2>err &&
	echo "hermes: api_key_command '\''$slow_key'\'' did not finish within its timeout of 2 s and was killed; no key, the agent was not run" >expect &&
	test_cmp expect err &&
	poll_until -t 10 gone -"$(cat cmd.pid)"
'

test_expect_success 'a chat: an api_key_command that does not end is killed after 30 s (exit 3), the message kept, the session never locked meanwhile' '
	trap stop_leftovers EXIT
	S=$(mk waiting) &&
	hermes config set agent "$echo_key" &&
	hermes config set api_key_command "$slow_key" || exit 1
	bounded 120 hermes chat -c waiting -q "keep me" -Q >out 2>err &
	hermes_pid=$! &&
	wait_for_file cmd.pid &&
	hermes chat -c waiting -q "from another terminal" --no-agent -Q &&
	test_expect_code 3 wait $hermes_pid &&
	echo "hermes: api_key_command '\''$slow_key'\'' did not finish within its timeout of 30 s and was killed; no key, the agent was not run" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	poll_until -t 10 gone -"$(cat cmd.pid)" &&
	printf "%s\n" "user: about waiting" "user: keep me" "user: from another terminal" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual
'

test_expect_success 'what an api_key_command left running once it printed the key is killed; the chat goes on' '
	trap stop_leftovers EXIT
	hermes config set agent "$echo_key" &&
	hermes config set api_key_command "echo k1; ($write_pid; exec sleep 300) &" &&
	bounded 60 hermes chat -q hi -Q >out &&
	echo "key: k1" >expect &&
	test_cmp expect out &&
	poll_until -t 10 gone -"$(cat cmd.pid)"
'

test_expect_success 'an agent stopped by a signal (SIGSTOP) is named and killed: exit 3, the message kept' '
	trap stop_leftovers EXIT
	agent="cat >/dev/null; $write_pid; kill -STOP \$\$; echo never" &&
	test_expect_code 3 bounded 60 hermes chat -q "keep me" -Q --agent "$agent" >out 2>err &&
	echo "hermes: agent '\''$agent'\'' was stopped by SIGSTOP, probably reading the terminal, which an agent cannot use; it was killed. An agent reads the conversation on its stdin only" >expect &&
	test_cmp expect err &&
	test_must_be_empty out &&
	poll_until -t 10 gone -"$(cat cmd.pid)" &&
	echo "user: keep me" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual
'

# in_pty COMMAND: COMMAND in a fresh pseudo-terminal, which it reads from
# the background; its output, without carriage returns, in out and its
# exit status in rc.
in_pty() {
	bounded 60 script -qec "$1; echo \$? >rc" /dev/null </dev/null >raw
	tr -d "\r" <raw >out
}

test_expect_success SCRIPT 'an agent that reads the terminal (SIGTTIN) is named and killed in a real terminal: exit 3, no sign left counting' '
	trap stop_leftovers EXIT
	cat >reads-tty <<-EOF &&
	#!/bin/sh
	cat >/dev/null
	$write_pid
	read answer </dev/tty
	echo "never \$answer"
	EOF
	chmod +x reads-tty &&
	in_pty "hermes chat -q \"keep me\" -Q --agent ./reads-tty" &&
	echo 3 >expect && test_cmp expect rc &&
	grep "^hermes: agent .\./reads-tty. was stopped by SIGTTIN, probably reading the terminal, which an agent cannot use; it was killed" out &&
	! grep never out &&
	poll_until -t 10 gone -"$(cat cmd.pid)" &&
	echo "user: keep me" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'an api_key_command that reads the terminal is named and killed: exit 3' '
	trap stop_leftovers EXIT
	hermes config set agent "$echo_key" &&
	hermes config set api_key_command "$write_pid; read key </dev/tty; echo \$key" &&
	in_pty "hermes chat -q \"keep me\" -Q" &&
	echo 3 >expect && test_cmp expect rc &&
	grep "^hermes: api_key_command .* was stopped by SIGTTIN, probably reading the terminal, which it cannot use; it was killed; no key, the agent was not run" out &&
	poll_until -t 10 gone -"$(cat cmd.pid)"
'

test_done
