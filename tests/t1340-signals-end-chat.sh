#!/bin/sh
test_description='interactive hermes chat: SIGTERM and SIGHUP end it (exit 130) during a reply, during /compact and at the prompt, after saving what was acknowledged; Ctrl-C only stops the reply'
. "$(dirname "$0")/lib.sh"

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# slow_agent: an agent that reads its input, records its pid in agent.pid,
# says "partial" and then waits for a minute; killed by hermes long before.
slow_agent() {
	agent slow "echo \$\$ >agent.pid.tmp; mv agent.pid.tmp agent.pid; echo partial; exec sleep 60"
}

# chat_in_pane ARGS PROMPT: hermes chat ARGS in a fresh pane, its pid in
# hermes.pid, its exit status in hermes.rc when it ends; waits for PROMPT.
chat_in_pane() {
	start_pane &&
	typed "sh -c 'echo \$\$ >hermes.pid; exec hermes chat $1'; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc" &&
	keys Enter &&
	wait_until ready "$2"
}

# stop_agent_group: kill what a failing test left of the agent.
stop_agent_group() {
	test -s agent.pid && kill -KILL -"$(cat agent.pid)" 2>/dev/null
	stop_tmux
}

# reply_started: a message, its reply begun by the slow agent.
reply_started() {
	slow_agent &&
	chat_in_pane "--agent ./slow" "new session>" &&
	trap stop_agent_group EXIT &&
	type_line "keep me" &&
	wait_until on_screen "^partial" &&
	test -s agent.pid
}

# reply_cut_by SIGNAL: a message, its reply cut short by SIGNAL to hermes.
reply_cut_by() {
	reply_started &&
	kill -"$1" "$(cat hermes.pid)"
}

for signal in TERM HUP; do
	test_expect_success TMUX "SIG$signal during a reply ends the chat (130): the message and the partial reply, marked interrupted, are kept" '
		reply_cut_by '$signal' &&
		hermes_exited 130 &&
		wait_until gone -"$(cat agent.pid)" &&
		S=$(only_id) &&
		printf "%s\n" "user: keep me" "assistant: partial" >expect &&
		messages "$S" >actual &&
		test_cmp expect actual &&
		hermes sessions show "$S" --json >show.json &&
		json_get show.json "v[\"messages\"][1].get(\"interrupted\")" >flag &&
		echo true >expect &&
		test_cmp expect flag
	'
done

test_expect_success TMUX 'Ctrl-C pressed during a reply stops the reply only: the chat goes on' '
	reply_started &&
	keys C-c &&
	wait_until on_screen "^\[reply interrupted" &&
	wait_until gone -"$(cat agent.pid)" &&
	! test -e hermes.rc &&
	keys C-d &&
	hermes_exited 0 &&
	printf "%s\n" "user: keep me" "assistant: partial" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'SIGTERM during /compact ends the chat (130); the session is left as it was' '
	mk_session 20260101_090000_aaaaaa "long thread" user 1767261600 /x \
		user "first question" assistant "first answer" user "second question" assistant "second answer" &&
	cp "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" before.json &&
	slow_agent &&
	chat_in_pane "-c \"long thread\" --agent ./slow" "long thread>" &&
	trap stop_agent_group EXIT &&
	type_line "/compact 1" &&
	wait_until test -s agent.pid &&
	kill -TERM "$(cat hermes.pid)" &&
	hermes_exited 130 &&
	wait_until gone -"$(cat agent.pid)" &&
	cmp before.json "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json"
'

test_expect_success TMUX 'SIGHUP at the prompt ends the chat (130), nothing saved' '
	chat_in_pane "--no-agent" "new session>" &&
	typed "unsent" &&
	kill -HUP "$(cat hermes.pid)" &&
	hermes_exited 130 &&
	test "$(session_count)" = 0
'

test_done
