#!/bin/sh
test_description='token usage: asked of the server, decoded from its stream or an agent side channel, recorded with the reply, shown by show, stats and list --json; nothing breaks without it'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

# usage_agent: ./usage-agent, which replies in plain text and reports
# its tokens in $HERMES_USAGE_FILE as a server object does.
usage_agent() {
	cat >usage-agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	echo "reply"
	echo "{\"id\":\"x\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1,\"total_tokens\":10}}" >"$HERMES_USAGE_FILE"
	EOF
	chmod +x usage-agent
}

# usage_of ID EXPR: EXPR of session ID's file (v), as JSON.
usage_of() {
	hermes sessions show --json "$1" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "$2"
}

test_expect_success SERVER 'the shipped agent asks for usage and the reply records what the server counted' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -q "hello there" >out 2>err &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	grep -F "\"stream\":true,\"stream_options\":{\"include_usage\":true}," "$(last_request)" &&
	id=$(only_id) &&
	usage_of "$id" "[m.get(\"usage\") for m in v[\"messages\"]]" >actual &&
	cat >expect <<-\EOF &&
	null
	{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}
	EOF
	test_cmp expect actual &&
	usage_of "$id" "v[\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":11,\"completion_tokens\":3,\"total_tokens\":14}" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER 'a second reply adds to the session: show, stats and list --json tell it' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini -q "hello there" >out 2>err &&
	id=$(only_id) &&
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -c "$id" -q "more" -Q >out &&
	usage_of "$id" "v[\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":52,\"completion_tokens\":6,\"total_tokens\":58}" >expect &&
	test_cmp expect actual &&
	hermes sessions show "$id" >show &&
	grep "^tokens: 52 in, 6 out (the replies that reported them)$" show &&
	grep "^\[assistant\] .*  tokens: 11 in, 3 out$" show &&
	grep "^\[assistant\] .*  tokens: 41 in, 3 out$" show &&
	test $(grep -c "tokens:" show) = 3 &&
	hermes sessions stats >stats &&
	grep "^tokens:       52 in, 6 out (58 in all)$" stats &&
	hermes sessions stats --json | json_get - "v[\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":52,\"completion_tokens\":6,\"total_tokens\":58}" >expect &&
	test_cmp expect actual &&
	hermes sessions stats "$id" >one &&
	grep "^tokens:       52 in, 6 out (58 in all)$" one &&
	grep "^in context:   [0-9,]* characters (the system prompt, the latest summary and what follows)$" one &&
	hermes sessions stats "$id" --json | json_get - "v[\"usage\"][\"total_tokens\"]" >actual &&
	echo 58 >expect &&
	test_cmp expect actual &&
	hermes sessions list --json | json_get - "v[0][\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":52,\"completion_tokens\":6,\"total_tokens\":58}" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER 'a reply the server did not stream carries its usage in the object' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m nostream -q "abc" 2>err >out &&
	id=$(sed -n "s/^session_id: //p" err) &&
	usage_of "$id" "v[\"messages\"][1][\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":3,\"completion_tokens\":3,\"total_tokens\":6}" >expect &&
	test_cmp expect actual
'

test_expect_success 'an agent of plain text reports its tokens through $HERMES_USAGE_FILE; the file is gone after' '
	cat >usage-agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	echo "plain reply"
	test -n "$HERMES_USAGE_FILE" && test ! -e "$HERMES_USAGE_FILE" &&
	printf "{\"prompt_tokens\": 120, \"completion_tokens\": 7}\n" >"$HERMES_USAGE_FILE"
	EOF
	chmod +x usage-agent &&
	hermes chat --agent ./usage-agent -q "count me" 2>err >out &&
	echo "plain reply" >expect &&
	test_cmp expect out &&
	id=$(sed -n "s/^session_id: //p" err) &&
	usage_of "$id" "v[\"messages\"][1][\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":120,\"completion_tokens\":7,\"total_tokens\":127}" >expect &&
	test_cmp expect actual &&
	! ls -a "$HERMES_HOME" | grep "usage"
'

test_expect_success 'usage in the side channel may be a server object with its usage inside' '
	usage_agent &&
	hermes chat --agent ./usage-agent -q "count me" 2>err >out &&
	id=$(sed -n "s/^session_id: //p" err) &&
	usage_of "$id" "v[\"messages\"][1][\"usage\"]" >actual &&
	echo "{\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}" >expect &&
	test_cmp expect actual
'

test_expect_success 'nothing breaks without usage: none recorded, none shown, stats says -' '
	cat >quiet-agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	echo "no counts"
	EOF
	chmod +x quiet-agent &&
	hermes chat --agent ./quiet-agent -q "hi" -Q >out &&
	id=$(only_id) &&
	! grep "\"usage\"" "$HERMES_HOME/sessions/$id.json" &&
	hermes sessions show "$id" >show &&
	! grep tokens show &&
	hermes sessions stats >stats &&
	grep "^tokens:       -$" stats &&
	hermes sessions stats --json | json_get - "v[\"usage\"]" >actual &&
	echo null >expect &&
	test_cmp expect actual &&
	hermes sessions list --json | json_get - "\"usage\" in v[0]" >actual &&
	echo false >expect &&
	test_cmp expect actual
'

test_expect_success 'a side channel of garbage, or a count of the wrong shape, loses the count, never the reply' '
	cat >bad-agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	echo "still here"
	echo "12 in, 3 out" >"$HERMES_USAGE_FILE"
	EOF
	chmod +x bad-agent &&
	hermes chat --agent ./bad-agent -q "x" 2>err >out &&
	echo "still here" >expect &&
	test_cmp expect out &&
	id=$(sed -n "s/^session_id: //p" err) &&
	! grep "\"usage\"" "$HERMES_HOME/sessions/$id.json" &&
	printf "data: {\"choices\":[{\"delta\":{\"content\":\"kept\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":\"many\"}}\n\ndata: [DONE]\n\n" >sse &&
	hermes chat --agent "cat >/dev/null; cat $PWD/sse" -q "y" 2>err >out &&
	echo kept >expect &&
	test_cmp expect out &&
	id=$(sed -n "s/^session_id: //p" err) &&
	! grep "\"usage\"" "$HERMES_HOME/sessions/$id.json"
'

test_expect_success 'usage is kept through an append, an export and an import' '
	usage_agent &&
	hermes chat --agent ./usage-agent -q "one" -Q >out &&
	id=$(only_id) &&
	hermes chat -c "$id" --no-agent -q "two" -Q &&
	usage_of "$id" "[v[\"usage\"], v[\"messages\"][1][\"usage\"]]" >actual &&
	cat >expect <<-\EOF &&
	{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}
	{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}
	EOF
	test_cmp expect actual &&
	hermes sessions export "$id" --format jsonl -o export.jsonl &&
	rm -rf "$HERMES_HOME" &&
	hermes sessions import export.jsonl 2>/dev/null &&
	usage_of "$id" "[v[\"usage\"], v[\"messages\"][1][\"usage\"]]" >actual &&
	test_cmp expect actual
'

test_expect_success 'llm'"'"'s logged tokens come along with an import, as the replies'"'"' usage' '
	python3 - "$TEST_DIR/fixtures/llm-0.36-logs.json" >logs.json <<-\EOF &&
	import json, sys
	logs = json.load(open(sys.argv[1]))
	for n, r in enumerate(logs):
	    if r["prompt"] in ("hello there", "second"):
	        r["input_tokens"], r["output_tokens"] = 10 + n, 2
	json.dump(logs, sys.stdout)
	EOF
	hermes sessions import --from llm logs.json 2>err &&
	id=$(session_id_by_title "hello there") &&
	usage_of "$id" "[m.get(\"usage\") for m in v[\"messages\"] if m[\"role\"] == \"assistant\"] + [v[\"usage\"]]" >actual &&
	cat >expect <<-\EOF &&
	{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}
	{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13}
	null
	{"prompt_tokens":21,"completion_tokens":4,"total_tokens":25}
	EOF
	test_cmp expect actual
'

test_done
