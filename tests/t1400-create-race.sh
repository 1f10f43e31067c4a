#!/bin/sh
test_description='parallel hermes chat -c NAME --create-if-missing: exactly one session, no message lost'
. "$(dirname "$0")/lib.sh"

use_fake_agent

# race N NAME [OPTION...]: N parallel one-shot chats to -c NAME, messages
# "NAME I"; waits for all and fails if any failed (their stderr in err.NAME.I).
race() {
	race_n=$1 race_name=$2
	shift 2
	race_pids=
	race_i=1
	while test $race_i -le "$race_n"; do
		hermes chat -c "$race_name" -q "$race_name $race_i" "$@" \
			>"out.$race_name.$race_i" 2>"err.$race_name.$race_i" &
		race_pids="$race_pids $!"
		race_i=$((race_i + 1))
	done
	race_failed=0
	for race_pid in $race_pids; do
		wait "$race_pid" || race_failed=$((race_failed + 1))
	done
	if test $race_failed != 0; then
		echo "$race_failed of $race_n parallel chats failed:" >&2
		cat err.* >&2
		return 1
	fi
}

# count_messages ID ROLE CONTENT: how many messages of session ID have
# exactly that role and content.
count_messages() {
	tr -d '\n' <"$HERMES_HOME/sessions/$1.json" |
	awk -v want="$3\"" -v role="$2" '{
		n = split($0, m, /\{"role":"/)
		c = 0
		for (i = 2; i <= n; i++)
			if (index(m[i], role "\",\"content\":\"" want) == 1)
				c++
		print c
	}'
}

# holds_each ID N NAME: session ID holds the user messages "NAME 1".."NAME N",
# each exactly once.
holds_each() {
	holds_i=1
	while test $holds_i -le "$2"; do
		holds_c=$(count_messages "$1" user "$3 $holds_i")
		if test "$holds_c" != 1; then
			echo "'$3 $holds_i' is in $1 $holds_c times" >&2
			return 1
		fi
		holds_i=$((holds_i + 1))
	done
}

test_expect_success '20 parallel -c nightly --create-if-missing: one session, all 20 messages' '
	race 20 nightly --create-if-missing --no-agent -Q &&
	test "$(session_count)" = 1 &&
	id=$(session_id_by_title nightly) && test -n "$id" &&
	test "$(field "$id" title)" = nightly &&
	test "$(field "$id" title_source)" = user &&
	test "$(field "$id" message_count)" = 20 &&
	holds_each "$id" 20 nightly &&
	cat out.* err.* >all-output &&
	test_must_be_empty all-output &&
	ls -A "$HERMES_HOME/sessions" >files &&
	! grep -v "^$id\.json\$" files
'

test_expect_success '20 parallel -c nightly to an existing session: every message lands' '
	hermes chat -c nightly --create-if-missing -q "nightly 0" --no-agent -Q &&
	id=$(session_id_by_title nightly) &&
	race 20 nightly --no-agent -Q &&
	test "$(session_count)" = 1 &&
	test "$(field "$id" message_count)" = 21 &&
	holds_each "$id" 20 nightly
'

test_expect_success 'two names racing at once: one session each, nothing crosses over' '
	race 10 alpha --create-if-missing --no-agent -Q &
	alpha_pid=$! &&
	race 10 beta --create-if-missing --no-agent -Q &&
	wait $alpha_pid &&
	test "$(session_count)" = 2 &&
	a=$(session_id_by_title alpha) && b=$(session_id_by_title beta) &&
	test -n "$a" && test -n "$b" && test "$a" != "$b" &&
	test "$(field "$a" message_count)" = 10 &&
	test "$(field "$b" message_count)" = 10 &&
	holds_each "$a" 10 alpha &&
	holds_each "$b" 10 beta &&
	! grep "beta" "$HERMES_HOME/sessions/$a.json" &&
	! grep "alpha" "$HERMES_HOME/sessions/$b.json"
'

test_expect_success '10 parallel chats with an agent: one session, 10 questions and 10 replies' '
	TMUX_PANE=%4 && export TMUX_PANE &&
	race 10 nightly --create-if-missing --agent "fake-agent text done" &&
	test "$(session_count)" = 1 &&
	id=$(session_id_by_title nightly) &&
	test "$(field "$id" message_count)" = 20 &&
	holds_each "$id" 10 nightly &&
	test "$(count_messages "$id" assistant done)" = 10 &&
	for f in out.*; do echo done >expect && test_cmp expect "$f" || exit 1; done &&
	for f in err.*; do echo "session_id: $id" >expect && test_cmp expect "$f" || exit 1; done &&
	grep "\"session_id\":\"$id\"" "$HERMES_HOME/terminal-sessions/tmux_pane--4.$MACHINE.json"
'

test_expect_success 'no lock is held while the agent runs: another chat gets through meanwhile' '
	hermes chat -c nightly --create-if-missing -q "slow question" -Q \
		--agent "fake-agent gate ready gate slow answer" >slow.out 2>slow.err &
	slow=$! &&
	wait_for_file ready &&
	hermes chat -c nightly -q "meanwhile" --no-agent -Q &&
	hermes chat -c nightly --create-if-missing -q "and again" --no-agent -Q &&
	: >gate &&
	wait $slow &&
	echo "slow answer" >expect && test_cmp expect slow.out &&
	test_must_be_empty slow.err &&
	test "$(session_count)" = 1 &&
	id=$(session_id_by_title nightly) &&
	test "$(field "$id" message_count)" = 4 &&
	test "$(count_messages "$id" user "slow question")" = 1 &&
	test "$(count_messages "$id" user "meanwhile")" = 1 &&
	test "$(count_messages "$id" user "and again")" = 1 &&
	test "$(count_messages "$id" assistant "slow answer")" = 1
'

test_done
