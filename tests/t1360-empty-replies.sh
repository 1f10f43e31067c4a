#!/bin/sh
test_description='a reply that shows nothing (empty, blanks, invisible characters, an SSE stream without text) is a failed turn: exit 3 in one-shot use, said in the interactive chat, never saved; the same rule as sessions compact and config check'
. "$(dirname "$0")/lib.sh"

# SHELL for the tmux pane: POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# empty_reply AGENT: hermes chat -q with AGENT exits 3, saying so, and the
# session holds the message alone.
empty_reply() {
	test_expect_code 3 hermes chat -q "hello" --agent "$1" >out 2>err &&
	S=$(only_id) &&
	printf "session_id: %s\nhermes: agent '%s' wrote an empty reply; no reply was saved, the message is kept\n" "$S" "$1" >expect &&
	test_cmp expect err &&
	echo "user: hello" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual
}

test_expect_success 'an agent that writes nothing: exit 3, said, the message kept alone' '
	empty_reply "cat >/dev/null" &&
	test_must_be_empty out
'

test_expect_success 'blanks only (spaces, tabs, newlines): exit 3' '
	empty_reply "cat >/dev/null; printf \"  \\n\\t\\n\\n\""
'

test_expect_success 'invisible characters only (a zero-width space): exit 3' '
	empty_reply "cat >/dev/null; printf \"\\342\\200\\213\\n\""
'

test_expect_success 'an OpenAI stream that carries no text: exit 3' '
	cat >sse <<-\EOF &&
	data: {"choices":[{"delta":{"role":"assistant"}}]}

	data: {"choices":[{"delta":{"content":" "}}]}

	data: [DONE]
	EOF
	empty_reply "cat >/dev/null; cat \"$TRASH/sse\""
'

test_expect_success 'a reply with text is saved as ever' '
	hermes chat -q "hello" -Q --agent "cat >/dev/null; echo \"  hi\"" >out &&
	printf "%s\n" "user: hello" "assistant:   hi" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual
'

test_expect_success 'sessions compact calls an empty summary the same: exit 3, the session unchanged' '
	mk_session 20260101_090000_aaaaaa "long" user 1767261600 /x \
		user "q1" assistant "a1" user "q2" assistant "a2" &&
	cp "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" before &&
	test_expect_code 3 hermes sessions compact long --keep 1 --agent "cat >/dev/null; printf \"\\342\\200\\213\\n\"" 2>err &&
	grep "wrote an empty summary; no summary was made; the session is unchanged" err &&
	cmp before "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json"
'

test_expect_success TMUX 'in the interactive chat an empty reply is said, nothing is saved for it, and the chat goes on' '
	start_tmux &&
	wait_until on_screen "^\\$" &&
	agent blank "printf \"  \\n\"" &&
	type_line "hermes chat --agent ./blank; echo \\$? >hermes.tmp && mv hermes.tmp hermes.rc" &&
	wait_until on_screen "^new session> *$" &&
	type_line "hello" &&
	wait_until on_screen "wrote an empty reply; no reply was saved, the message is kept" &&
	wait_until on_screen "^\\[the message is kept; /retry sends it again" &&
	echo "user: hello" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual &&
	keys C-d &&
	hermes_exited 0
'

test_done
