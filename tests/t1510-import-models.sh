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

test_expect_success 'a model of an import or a merged copy that could not be typed is cleaned, and said' '
	cat >hostile.py <<-\EOF &&
	import json, sys
	models = ["m\u001b]0;PWN\u0007x", "a\nb" + "m" * 1008, "\u202e\u0007"]
	for n, model in enumerate(models, 1):
	    print(json.dumps({"format": 1, "id": "20261201_00000%d_abcdef" % n, "title": "t%d" % n,
	        "title_source": "user", "created_at": 1.0, "updated_at": 2.0, "cwd": "/", "message_count": 1,
	        "preview": "hi", "model": model, "messages": [{"role": "user", "content": "hi", "ts": 2.0}]}))
	EOF
	python3 hostile.py >hostile.jsonl &&
	hermes sessions import hostile.jsonl 2>err &&
	grep "^hermes: warning: session 20261201_000001_abcdef: its model.s name held control or invisible characters" err &&
	grep -c "^hermes: warning: session 2026120" err >count &&
	echo 3 >expect && test_cmp expect count &&
	models >actual &&
	cat >expect <<-EOF &&
	t1	m]0;PWNx
	t2	a b$(printf "%0197d" 0 | tr 0 m)
	t3	None
	EOF
	test_cmp expect actual &&
	S=20261201_000001_abcdef &&
	cat >copy.py <<-\EOF &&
	import json, sys
	s = json.load(open(sys.argv[1]))
	s["model"] = "m\u001b[8mx"
	s["messages"].append({"role": "user", "content": "more", "ts": 3.0})
	s["updated_at"] = 3.0
	json.dump(s, open(sys.argv[1] + "~", "w"))
	EOF
	python3 copy.py "$HERMES_HOME/sessions/$S.json" &&
	hermes sessions merge --yes 2>err &&
	grep "^hermes: warning: session $S: its model.s name held" err &&
	test "$(field $S model)" = "m[8mx"
'

test_expect_success 'merging a conflict copy keeps the model (of the version active last)' '
	hermes chat --title m -m gpt-old -q hi --no-agent -Q &&
	S=$(session_id_by_title m) &&
	cp "$HERMES_HOME/sessions/$S.json" "$HERMES_HOME/sessions/$S.json~" &&
	hermes chat -c m -m gpt-new -q more --no-agent -Q &&
	hermes sessions merge --yes 2>err &&
	test "$(field $S model)" = gpt-new
'

test_done
