#!/bin/sh
test_description='chat -x/--code prints only the reply'"'"'s fenced code, every block in order; none is exit 3, the reply kept; --json has the blocks'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

# ask ARGS...: the shipped agent on the fake server.
ask() {
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible "$@"
}

test_expect_success SERVER '-x: every code block, in order, without fences; the whole reply kept' '
	ask -m code -x -q "list files" >out 2>err &&
	printf "ls -l\necho done\necho again\n" >expect &&
	test_cmp expect out &&
	id=$(only_id) &&
	messages "$id" | tail -n 1 >actual &&
	grep -F "assistant: Try:" actual &&
	grep -F "~~~" actual &&
	echo "session_id: $id" >expect && test_cmp expect err
'

test_expect_success SERVER '--code with --no-save: the code printed, nothing kept' '
	ask -m code --code --no-save list files >out &&
	printf "ls -l\necho done\necho again\n" >expect &&
	test_cmp expect out &&
	test "$(session_count)" = 0
'

test_expect_success SERVER 'a reply without code: exit 3, one line, nothing on stdout, the reply kept' '
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -x -Q -q hello >out 2>err &&
	test_must_be_empty out &&
	id=$(only_id) &&
	echo "hermes: -x: the reply has no fenced code block; it is kept: hermes sessions show $id" >expect &&
	test_cmp expect err &&
	messages "$id" | tail -n 1 >actual &&
	echo "assistant: Hello from the fake server" >expect &&
	test_cmp expect actual &&
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -x --no-save -q hello 2>err &&
	echo "hermes: -x: the reply has no fenced code block (--no-save: it is not kept)" >expect &&
	test_cmp expect err
'

test_expect_success SERVER '--json has the blocks in a code array, -x or not' '
	ask -m code --json -q "list files" >out &&
	grep -F "\"code\":[\"ls -l\",\"echo done\\necho again\"]," out &&
	ask -m gpt-test-mini --json -q hello >out &&
	grep -F "\"code\":[]," out &&
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini --json -x -q hello >out &&
	grep -F "\"exit_status\":3" out
'

test_expect_success SERVER 'a terminal on stdout: the reply is not drawn, only the code printed' '
	run_in_pty "OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m code -x -Q -q files" >raw &&
	tr -d "\r" <raw >out &&
	printf "ls -l\necho done\necho again\n" >expect &&
	test_cmp expect out
'

test_expect_success 'the interactive chat refuses -x: one line, exit 2' '
	run_in_pty "hermes chat -x --no-agent </dev/tty; echo status=\$?" >raw 2>&1 &&
	tr -d "\r" <raw >out &&
	grep "^hermes: -x is for a one-shot chat" out &&
	grep "^status=2" out &&
	test "$(session_count)" = 0
'

test_done
