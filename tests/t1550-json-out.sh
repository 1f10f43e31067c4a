#!/bin/sh
test_description='chat -q TEXT --json: one JSON object for scripts (session, title, created, model, role, reply, usage, error), the exit statuses kept'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

# keys FILE: the keys of the JSON object in FILE, in order, on one line.
keys_of() {
	json_get "$1" "\" \".join(v.keys())"
}

test_expect_success SERVER 'a new session: one object on stdout, every key there, nothing on stderr' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -q "hello there" --json >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 1 out &&
	keys_of out >actual &&
	echo "session_id title created model role reply code interrupted incomplete usage error exit_status" >expect &&
	test_cmp expect actual &&
	id=$(only_id) &&
	json_get out "[v[\"session_id\"], v[\"title\"], v[\"created\"], v[\"model\"], v[\"role\"], v[\"reply\"], v[\"interrupted\"], v[\"usage\"], v[\"error\"]]" >actual &&
	cat >expect <<-EOF &&
	$id
	hello there
	true
	gpt-test-mini
	null
	Hello from the fake server
	false
	{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}
	null
	EOF
	test_cmp expect actual
'

test_expect_success SERVER 'continuing: created is false, the model the session keeps' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -q "hello there" -Q &&
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -c "hello there" -q "more" --json >out 2>err &&
	test_must_be_empty err &&
	json_get out "[v[\"created\"], v[\"model\"], v[\"reply\"]]" >actual &&
	printf "false\ngpt-test-mini\nHello from the fake server\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--create-if-missing: created the first time only' '
	hermes chat -c "daily" --create-if-missing --no-agent -q "one" --json >first &&
	hermes chat -c "daily" --create-if-missing --no-agent -q "two" --json >second &&
	json_get first "[v[\"title\"], v[\"created\"], v[\"reply\"]]" >actual &&
	printf "daily\ntrue\nnull\n" >expect &&
	test_cmp expect actual &&
	json_get second "v[\"created\"]" >actual &&
	echo false >expect &&
	test_cmp expect actual &&
	test "$(json_get first "v[\"session_id\"]")" = "$(json_get second "v[\"session_id\"]")"
'

test_expect_success 'a failing agent: exit 3, its error on stderr and in the object, the message kept' '
	test_expect_code 3 hermes chat --agent "cat >/dev/null; echo broken >&2; exit 5" -q "keep me" --json >out 2>err &&
	grep "^hermes: agent .* exited with status 5$" err &&
	test_line_count = 1 out &&
	json_get out "[v[\"reply\"], v[\"error\"], v[\"created\"]]" >actual &&
	cat >expect <<-\EOF &&
	null
	agent '"'cat >/dev/null; echo broken >&2; exit 5'"' exited with status 5
	true
	EOF
	test_cmp expect actual &&
	show_contents "$(json_get out "v[\"session_id\"]")" >actual &&
	echo "keep me" >expect &&
	test_cmp expect actual
'

test_expect_success 'an agent of plain text: the reply in the object, usage null; stdin is the message as ever' '
	echo "from stdin" | hermes chat --agent "cat >/dev/null; printf \"line one\nline two\n\"" --json >out 2>err &&
	test_must_be_empty err &&
	json_get out "[repr(v[\"reply\"]), v[\"usage\"], v[\"title\"]]" >actual &&
	cat >expect <<-\EOF &&
	'"'line one\\nline two'"'
	null
	from stdin
	EOF
	test_cmp expect actual
'

test_expect_success 'mistakes are usage errors with nothing on stdout: an empty message, an interactive chat' '
	test_expect_code 2 hermes chat --no-agent --json -q "" >out 2>err &&
	test_must_be_empty out &&
	grep "empty message" err &&
	pty_transcript "hermes chat --json --no-agent; echo rc=\$?" actual &&
	grep "^hermes: --json is for a one-shot chat" actual &&
	grep "^rc=2$" actual &&
	test "$(session_count)" = 0
'

test_done
