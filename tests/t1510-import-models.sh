#!/bin/sh
test_description='sessions import keeps the model of Python Hermes sessions and llm conversations'
. "$(dirname "$0")/lib.sh"

AGENT_EXPORT="$TEST_DIR/fixtures/hermes-agent-0.22.2-export.jsonl"
LLM="$TEST_DIR/fixtures/llm-0.36-logs.json"
unset HERMES_MODEL

# "TITLE<TAB>MODEL" of every session, sorted ("None" for no model).
models() {
	hermes sessions list --all --json >"$TRASH/.list.json" &&
	json_get "$TRASH/.list.json" "sorted(s['title'] + '\t' + str(s.get('model')) for s in v)"
}

test_expect_success 'llm: each conversation keeps the model that answered it' '
	hermes sessions import --from llm "$LLM" >out &&
	models >actual &&
	cut -f2 actual | sort -u >models &&
	echo fake >expect &&
	test_cmp expect models &&
	test_line_count = 3 actual
'

test_expect_success 'llm: the model of the last exchange is the session'"'"'s' '
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for i, e in enumerate(d):
    if e[\"conversation_id\"] == d[0][\"conversation_id\"]:
        e[\"model\"] = \"old-model\" if i == 0 else \"new-model\"
json.dump(d, open(\"logs.json\", \"w\"))
" "$LLM" &&
	hermes sessions import --from llm logs.json >out &&
	models >actual &&
	grep "	new-model$" actual &&
	! grep "old-model" actual
'

test_expect_success 'the Python Hermes: a session keeps its model; one without stays without' '
	sed "1s/\"model\": null/\"model\": \"anthropic\/claude-sonnet-4\"/" "$AGENT_EXPORT" >export.jsonl &&
	! cmp -s "$AGENT_EXPORT" export.jsonl &&
	hermes sessions import --from hermes-agent export.jsonl >out &&
	models >actual &&
	cat >expect <<-\EOF &&
	pyconc	anthropic/claude-sonnet-4
	pynotes	None
	EOF
	test_cmp expect actual
'

test_expect_success 'the fixtures as they are import without a model' '
	hermes sessions import --from hermes-agent "$AGENT_EXPORT" >out &&
	models >actual &&
	cut -f2 actual | sort -u >models &&
	echo None >expect &&
	test_cmp expect models
'

test_expect_success 'an imported session is continued with its model; export and import again keep it' '
	sed "1s/\"model\": null/\"model\": \"anthropic\/claude-sonnet-4\"/" "$AGENT_EXPORT" >export.jsonl &&
	hermes sessions import --from hermes-agent export.jsonl >out &&
	hermes chat -c pyconc -q more --agent "echo model=\$HERMES_MODEL" -Q >out &&
	echo "model=anthropic/claude-sonnet-4" >expect &&
	test_cmp expect out &&
	hermes sessions export pyconc -f jsonl -o again.jsonl &&
	HERMES_HOME=$TRASH/other hermes sessions import --from hermes again.jsonl >out &&
	HERMES_HOME=$TRASH/other hermes sessions current --format "{model}\n" </dev/null >actual &&
	echo "anthropic/claude-sonnet-4" >expect &&
	test_cmp expect actual
'

test_done
