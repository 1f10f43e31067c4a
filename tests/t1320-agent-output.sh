#!/bin/sh
test_description='what an agent leaves and writes: leftover children never hang a turn, escape sequences never reach a terminal, malformed SSE events are skipped, a reply past the session limit is shown but not saved'
. "$(dirname "$0")/lib.sh"

use_fake_agent

# script(1) runs its command with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# A turn must end although the agent leaves a child holding its stdout
# open for ever. `timeout` only keeps a hermes that hangs from hanging the
# suite: 60 s is far beyond any turn.
test_expect_success 'an agent that leaves a child holding its stdout: the turn completes, the child is killed' '
	cat >agent.sh <<-\EOF &&
	cat >/dev/null
	sh -c "echo \$\$ >leftover.pid; exec sleep 1000" &
	while ! test -s leftover.pid; do sleep 0.1; done
	echo reply
	EOF
	timeout 60 hermes chat -q hi --agent "sh agent.sh" >out 2>err &&
	echo reply >expect &&
	test_cmp expect out &&
	printf "user: hi\nassistant: reply\n" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual &&
	poll_until gone "$(cat leftover.pid)"
'

test_expect_success 'a subshell sleeping in the background does not hold the turn either' '
	rm -rf "$HERMES_HOME" &&
	timeout 60 hermes chat -q hi --agent "cat >/dev/null; (sleep 1000 &); echo second" >out &&
	echo second >expect &&
	test_cmp expect out &&
	! ps -A -o args= | grep "^sleep 1000\$"
'

# Escapes: OSC 52 (clipboard), OSC 2 (window title), ED (clear screen), an
# SGR colour, a BEL.
printf '\033]52;c;aGk=\007\033]2;owned\007\033[2J\033[31mred\033[0m\n' >"$TRASH_ROOT/escapes.raw"
agent_escapes="cat >/dev/null; cat $TRASH_ROOT/escapes.raw"

test_expect_success SCRIPT 'on a terminal the reply is filtered like show: controls shown, colours kept' '
	rm -rf "$HERMES_HOME" &&
	run_in_pty "hermes chat -q hi -Q --agent \"$agent_escapes\"" >transcript &&
	grep -F "^[]52;c;aGk=^G^[]2;owned^G^[[2J$(printf "\033[31m")red$(printf "\033[0m")" transcript &&
	! grep -F "$(printf "\033]")" transcript &&
	! grep -F "$(printf "\033[2J")" transcript
'

test_expect_success SCRIPT 'under NO_COLOR the colours are dropped, the other sequences shown' '
	rm -rf "$HERMES_HOME" &&
	run_in_pty "NO_COLOR=1 hermes chat -q hi -Q --agent \"$agent_escapes\"" >transcript &&
	grep -F "^[]52;c;aGk=^G^[]2;owned^G^[[2Jred" transcript &&
	! grep -F "^[[31m" transcript &&
	! grep -F "$(printf "\033")" transcript
'

test_expect_success 'off a terminal the bytes are the agent'"'"'s, unchanged, and saved so' '
	rm -rf "$HERMES_HOME" &&
	hermes chat -q hi --agent "$agent_escapes" >out 2>err &&
	cmp "$TRASH_ROOT/escapes.raw" out
'

test_expect_success 'SSE: a malformed data event is skipped with a warning; events after [DONE] are not used' '
	rm -rf "$HERMES_HOME" &&
	cat >stream.sse <<-\EOF &&
	data: {"choices":[{"delta":{"content":"Hel"}}]}

	data: {not json

	data: {"choices":[{"delta":{"content":"lo"}}]}

	data: [DONE]

	data: {"choices":[{"delta":{"content":" after"}}]}

	EOF
	hermes chat -q hi --agent "cat >/dev/null; cat stream.sse" >out 2>err &&
	echo Hello >expect &&
	test_cmp expect out &&
	id=$(only_id) &&
	cat >expect <<-EOF &&
	hermes: warning: agent '"'"'cat >/dev/null; cat stream.sse'"'"' sent 1 event that was not JSON; skipped
	session_id: $id
	EOF
	test_cmp expect err &&
	printf "user: hi\nassistant: Hello\n" >expect &&
	messages "$id" >actual &&
	test_cmp expect actual
'

# msg N: a stored user message of N bytes of content, after a newline.
msg() {
	printf '\n{"role":"user","content":"' &&
	head -c "$1" /dev/zero | tr "\\0" a &&
	printf '","ts":1}'
}

# A session 1,000 bytes short of the 256 MiB limit (16 MB messages, as
# hermes keeps them under 16 MiB each): the question fits, a 2,000-byte
# reply does not.
test_expect_success 'a reply that would push the session past its limit: shown, not saved, exit 4' '
	id=20200101_000000_0000b1 &&
	mkdir -p "$HERMES_HOME/sessions" &&
	file=$HERMES_HOME/sessions/$id.json &&
	{
		printf "{\"format\":1,\"id\":\"$id\",\"title\":\"full\",\"created_at\":1,\"updated_at\":1,\"message_count\":17,\"messages\":[" &&
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
			msg 16000000 && printf , || return 1
		done
	} >"$file" &&
	size=$(wc -c <"$file") &&
	msg $((268435456 - 1000 - size - 36 - 4)) >>"$file" &&
	printf "\n]}\n" >>"$file" &&
	test "$(wc -c <"$file")" = $((268435456 - 1000)) &&
	reply=$(head -c 2000 /dev/zero | tr "\\0" b) &&
	test_expect_code 4 hermes chat -r $id -q question --agent "fake-agent text $reply" >out 2>err &&
	echo "$reply" >expect &&
	test_cmp expect out &&
	cat >expect <<-EOF &&
	session_id: $id
	hermes: the reply would grow session $id past 256 MiB, so it was not saved; start a new session
	EOF
	test_cmp expect err &&
	tail -c 60 "$file" | grep "\"content\":\"question\"" &&
	rm -f "$file"
'

test_done
