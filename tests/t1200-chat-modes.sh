#!/bin/sh
test_description='hermes chat one-shot modes: -q TEXT, -q -, piped stdin; stdout, stderr and what is saved'
. "$(dirname "$0")/lib.sh"

use_fake_agent

# took ID: stderr (err) names session ID as the one taken: its session_id
# line, and, where bare -c fell back from this terminal's session, the line
# that says which it took and why (t1600 checks its words).
took() {
	grep -v "^hermes: -c continues .* ($1), " err >rest &&
	echo "session_id: $1" >expect && test_cmp expect rest
}

test_expect_success '-q TEXT: the reply on stdout, session_id: ID on stderr' '
	hermes chat -q "ping" --agent "fake-agent text pong" >out 2>err &&
	id=$(only_id) &&
	echo pong >expect && test_cmp expect out &&
	took "$id" &&
	printf "user: ping\nassistant: pong\n" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	test "$(field "$id" message_count)" = 2
'

test_expect_success '--query TEXT is -q TEXT' '
	hermes chat --query "ping" --agent "fake-agent text pong" >out 2>err &&
	id=$(only_id) &&
	echo pong >expect && test_cmp expect out &&
	took "$id"
'

test_expect_success '-Q: the reply on stdout, nothing on stderr' '
	hermes chat -q "ping" -Q --agent "fake-agent text pong" >out 2>err &&
	echo pong >expect && test_cmp expect out &&
	test_must_be_empty err &&
	hermes chat -c ping --quiet -q again --agent "fake-agent text pong" >out 2>err &&
	test_cmp expect out &&
	test_must_be_empty err &&
	test "$(field "$(only_id)" message_count)" = 4
'

test_expect_success '-q - : the message is all of stdin' '
	printf "line one\nline two\n\nline four\n" |
	hermes chat -q - --agent "fake-agent text got it" >out 2>err &&
	id=$(only_id) &&
	echo "got it" >expect && test_cmp expect out &&
	took "$id" &&
	printf "%s\n" "user: line one\\nline two\\n\\nline four" "assistant: got it" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'stdin not a terminal and no -q: all of stdin is the message' '
	printf "first line\nsecond line\n" |
	hermes chat --agent "fake-agent text ok" >out 2>err &&
	id=$(only_id) &&
	echo ok >expect && test_cmp expect out &&
	took "$id" &&
	printf "%s\n" "user: first line\\nsecond line" "assistant: ok" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'piped stdin continues a session with -c NAME and -c' '
	hermes chat -c notes --create-if-missing -q "note 1" --no-agent -Q &&
	id=$(only_id) &&
	echo "note 2" | hermes chat -c notes --no-agent -Q &&
	echo "note 3" | hermes chat -c -q - --no-agent 2>err &&
	took "$id" &&
	printf "user: note 1\nuser: note 2\nuser: note 3\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'piped stdin and -q TEXT: one message, what was piped first, a blank line, then TEXT' '
	printf "line one\n\n  line two\n\n" | hermes chat -q "explain this" --no-agent -Q &&
	id=$(only_id) &&
	printf "%s\n" "user: line one\\n\\n  line two\\n\\nexplain this" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	# A file on stdin counts as piped too.
	printf "from a file\n" >snip.txt &&
	hermes chat -c -q "and this" --no-agent -Q <snip.txt &&
	printf "%s\n" "user: from a file\\n\\nand this" >expect &&
	messages "$id" | tail -n 1 >actual && test_cmp expect actual
'

test_expect_success 'the title is what the user wrote: -q TEXT before what came on stdin or in -f; --title before both' '
	printf "diff --git a/app.py b/app.py\n+x\n" >diff &&
	hermes chat -q "review this change" --no-agent -Q <diff &&
	hermes chat -q "and this file" -f diff --no-agent -Q </dev/null &&
	hermes chat -q "piped and filed" -f diff --no-agent -Q <diff &&
	hermes chat -q - --no-agent -Q <diff &&
	hermes chat --title "mine" -q "not the title" --no-agent -Q <diff &&
	hermes chat -f diff --no-agent -Q </dev/null &&
	hermes sessions list --all | cut -f2 | sort >actual &&
	sort >expect <<-\EOF &&
	review this change
	and this file
	piped and filed
	diff --git a/app.py b/app.py
	mine
	diff
	EOF
	test_cmp expect actual &&
	hermes sessions list --all --json >list.json &&
	json_get list.json "[s[\"title_source\"] for s in v if s[\"title\"] == \"mine\"]" >source &&
	echo user >expect && test_cmp expect source
'

test_expect_success 'session_id in config.toml: always (the default) and pipe say the line into a pipe, never does not' '
	hermes chat -q one --no-agent 2>err &&
	grep "^session_id: " err &&
	hermes config set session_id pipe &&
	hermes chat -q two --no-agent 2>err &&
	grep "^session_id: " err &&
	hermes config set session_id never &&
	hermes chat -q three --no-agent 2>err &&
	test_must_be_empty err &&
	test_expect_code 2 hermes config set session_id sometimes 2>err &&
	grep "session_id must be \"always\", \"pipe\" or \"never\"" err &&
	hermes config get session_id >value &&
	echo never >expect && test_cmp expect value
'

test_expect_success SCRIPT 'session_id on a terminal: said by always (the default), not by pipe or never; -Q never says it' '
	run_in_pty "hermes chat -q one --no-agent" >out </dev/null &&
	grep "session_id: " out &&
	hermes config set session_id pipe &&
	run_in_pty "hermes chat -q two --no-agent" >out </dev/null &&
	! grep "session_id" out &&
	run_in_pty "hermes chat -q three --no-agent 2>err.pipe | cat" >out </dev/null &&
	grep "^session_id: " err.pipe &&
	hermes config set session_id always &&
	run_in_pty "hermes chat -q four --no-agent -Q" >out </dev/null &&
	! grep "session_id" out &&
	test "$(session_count)" = 4
'

test_expect_success '-q TEXT with nothing piped (blank, /dev/null) is TEXT alone' '
	printf "\n  \n" | hermes chat -q "only this" --no-agent -Q &&
	hermes chat -c -q "and this" --no-agent -Q </dev/null &&
	id=$(only_id) &&
	printf "user: only this\nuser: and this\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'the agent reads the message given on stdin' '
	mkdir -p "$HERMES_HOME" &&
	echo "agent_input = \"text\"" >"$HERMES_HOME/config.toml" &&
	printf "a piped question\n" | hermes chat --agent "fake-agent save input" -Q >out &&
	echo saved >expect && test_cmp expect out &&
	echo "a piped question" >expect && test_cmp expect input
'

test_expect_success 'no agent: the message is saved, stdout empty, a one-line hint, exit 0' '
	hermes chat -q "just a note" >out 2>err &&
	id=$(only_id) &&
	test_must_be_empty out &&
	test_line_count = 2 err &&
	grep -v "^session_id: " err >hint &&
	test_line_count = 1 hint &&
	grep "^hermes: " hint &&
	grep -E "config set base_url|config set agent" hint &&
	grep -x "session_id: $id" err &&
	echo "user: just a note" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'no agent, message on stdin: the same hint, exit 0' '
	echo "piped note" | hermes chat >out 2>err &&
	id=$(only_id) &&
	test_must_be_empty out &&
	grep -v "^session_id: " err >hint &&
	test_line_count = 1 hint &&
	grep "^hermes: " hint &&
	echo "user: piped note" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'no agent with -Q: nothing on stdout or stderr, the message saved' '
	hermes chat -q "quiet note" -Q >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err &&
	echo "user: quiet note" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success '--no-agent: no hint, only the session_id line' '
	hermes chat -q "a note" --no-agent >out 2>err &&
	id=$(only_id) &&
	test_must_be_empty out &&
	took "$id"
'

test_expect_success '--no-agent wins over HERMES_AGENT and config.toml' '
	mkdir -p "$HERMES_HOME" &&
	echo "agent = \"touch config-agent-ran\"" >"$HERMES_HOME/config.toml" &&
	HERMES_AGENT="touch env-agent-ran" && export HERMES_AGENT &&
	hermes chat -q "a note" --no-agent >out 2>err &&
	id=$(only_id) &&
	test_must_be_empty out &&
	took "$id" &&
	! test -e env-agent-ran && ! test -e config-agent-ran &&
	echo "user: a note" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'the user message is on disk before the agent runs' '
	hermes chat -q "saved first" -Q \
		--agent "cat >/dev/null; cat \"\$HERMES_HOME/sessions/\$HERMES_SESSION_ID.json\" >during.json; echo done" >out &&
	id=$(only_id) &&
	echo done >expect && test_cmp expect out &&
	grep "\"message_count\":1" during.json &&
	grep "\"content\":\"saved first\"" during.json &&
	! grep "\"role\":\"assistant\"" during.json &&
	printf "user: saved first\nassistant: done\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'a multi-line reply is printed and saved whole' '
	hermes chat -q "list" -Q --agent "cat >/dev/null; printf \"one\\ntwo\\n\\nthree\\n\"" >out &&
	printf "one\ntwo\n\nthree\n" >expect && test_cmp expect out &&
	printf "%s\n" "user: list" "assistant: one\\ntwo\\n\\nthree" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'one-shot in a new session: the preview is the first message' '
	hermes chat -q "why does BRPOPLPUSH time out" -Q --agent "fake-agent text because" >out &&
	id=$(only_id) &&
	test "$(field "$id" preview)" = "why does BRPOPLPUSH time out" &&
	test "$(field "$id" title)" = "why does BRPOPLPUSH time out"
'

test_expect_success 'a closed stdout is not an error: exit 0, the reply saved' '
	{ hermes chat -q ping -Q --agent "fake-agent text pong" 2>err; echo $? >status; } | true &&
	echo 0 >expect && test_cmp expect status &&
	test_must_be_empty err &&
	printf "user: ping\nassistant: pong\n" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'closed stdout or stderr descriptors: exit 0, the reply saved' '
	hermes chat -q ping --agent "fake-agent text pong" >&- 2>err &&
	id=$(only_id) &&
	took "$id" &&
	hermes chat -c "$id" -q again --agent "fake-agent text pong" 2>&- >out &&
	echo pong >expect && test_cmp expect out &&
	printf "user: ping\nassistant: pong\nuser: again\nassistant: pong\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success SCRIPT '-q TEXT on a terminal is still one-shot' '
	run_in_pty "hermes chat -q ping --agent \"fake-agent text pong\"" >out </dev/null &&
	id=$(only_id) &&
	grep pong out &&
	grep "session_id: $id" out &&
	printf "user: ping\nassistant: pong\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'a full stdout loses no reply: it is saved, and the exit is 4 (not an agent failure)' '
	test -w /dev/full &&
	test_expect_code 4 hermes chat -q hi --agent "echo the reply" -Q >/dev/full 2>err &&
	grep "^hermes: could not show the reply (No space left on device); it is saved" err &&
	hermes sessions show hi >shown &&
	grep "^the reply$" shown
'

test_done
