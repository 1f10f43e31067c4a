#!/bin/sh
test_description='hermes sessions import --from hermes-agent and --from llm, with real exports of the Python Hermes 0.22.2 and llm 0.36'
. "$(dirname "$0")/lib.sh"

AGENT="$TEST_DIR/fixtures/hermes-agent-0.22.2-export.jsonl"
LLM="$TEST_DIR/fixtures/llm-0.36-logs.json"

# py EXPR FILE...: evaluate a Python expression with j the parsed JSON of
# the first FILE (and sys.argv the rest); prints its value.
py () {
	expr=$1
	shift
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($expr)" "$@"
}

test_expect_success 'hermes-agent: both sessions imported, IDs and titles kept, nothing left out' '
	hermes sessions import --from hermes-agent "$AGENT" >out 2>err &&
	test_must_be_empty out &&
	echo "imported 2 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	hermes sessions list >list &&
	cut -f2,4,5 list >actual &&
	printf "pyconc\t5\t20261202_160007_5f9c91\npynotes\t21\t20261202_154637_8a34c2\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'hermes-agent: times, title source and the system prompt as the first message' '
	hermes sessions import --from hermes-agent "$AGENT" 2>err &&
	hermes sessions show --json pyconc >pyconc.json &&
	py "j[\"title_source\"], j[\"created_at\"], j[\"updated_at\"]" pyconc.json >actual &&
	echo "user 1796227207.4692318 1796227227.1982086" >expect &&
	test_cmp expect actual &&
	py "[(m[\"role\"], m[\"content\"], m[\"ts\"]) for m in j[\"messages\"]]" pyconc.json >actual &&
	python3 -c "
import json
s = json.loads(open(\"$AGENT\").readline())
m = [(\"system\", s[\"system_prompt\"], s[\"started_at\"])]
m += [(x[\"role\"], x[\"content\"], x[\"timestamp\"]) for x in s[\"messages\"]]
print(m)" >expect &&
	test_cmp expect actual
'

test_expect_success 'llm: three conversations become three sessions, named by conversation_name (an automatic title)' '
	hermes sessions import --from llm "$LLM" >out 2>err &&
	test_must_be_empty out &&
	echo "imported 3 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	hermes sessions list --json >list.json &&
	py "sorted((s[\"title\"], s[\"title_source\"], s[\"message_count\"]) for s in j)" list.json >actual &&
	cat >expect <<-\EOF &&
	[('"'"'a new thread'"'"', '"'"'auto'"'"', 3), ('"'"'hello there'"'"', '"'"'auto'"'"', 6), ('"'"'redis BRPOPLPUSH "times out" 中文'"'"', '"'"'auto'"'"', 4)]
	EOF
	test_cmp expect actual
'

test_expect_success 'llm: IDs from the start time (UTC) and a hash of the conversation ID, the reply after its prompt' '
	hermes sessions import --from llm "$LLM" 2>err &&
	hermes sessions list --json >list.json &&
	py "sorted(s[\"id\"][:16] for s in j)" list.json >actual &&
	echo "['"'"'20261202_154007_'"'"', '"'"'20261202_160903_'"'"', '"'"'20261202_160907_'"'"']" >expect &&
	test_cmp expect actual &&
	hermes sessions show --json "hello there" >hello.json &&
	python3 -c "
import json, datetime
logs = [e for e in json.load(open(\"$LLM\")) if e[\"conversation_name\"] == \"hello there\"]
s = json.load(open(\"hello.json\"))
want = []
for e in logs:
    t = datetime.datetime.fromisoformat(e[\"datetime_utc\"]).timestamp()
    want += [(\"user\", e[\"prompt\"]), (\"assistant\", e[\"response\"])]
    assert abs(s[\"messages\"][len(want) - 2][\"ts\"] - t) < 1e-3
    assert s[\"messages\"][len(want) - 1][\"ts\"] >= s[\"messages\"][len(want) - 2][\"ts\"]
assert [(m[\"role\"], m[\"content\"]) for m in s[\"messages\"]] == want, s
assert s[\"created_at\"] == s[\"messages\"][0][\"ts\"]
"
'

test_expect_success 'llm: a system prompt becomes a system message first; newlines, quotes and CJK kept' '
	hermes sessions import --from llm "$LLM" 2>err &&
	hermes sessions show --json "a new thread" >new.json &&
	py "[(m[\"role\"], m[\"content\"]) for m in j[\"messages\"]]" new.json >actual &&
	echo "[('"'"'system'"'"', '"'"'be brief'"'"'), ('"'"'user'"'"', '"'"'a new thread'"'"'), ('"'"'assistant'"'"', '"'"'echo[1]: a new thread'"'"')]" >expect &&
	test_cmp expect actual &&
	hermes sessions show --json "redis BRPOPLPUSH \"times out\" 中文" >redis.json &&
	py "j[\"messages\"][2][\"content\"]" redis.json >actual &&
	printf "and with a\nnewline\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'round trip: export --format markdown reads as the original llm conversation' '
	hermes sessions import --from llm "$LLM" 2>err &&
	hermes sessions export --format markdown "redis BRPOPLPUSH \"times out\" 中文" >md &&
	sed -n "s/^## \([a-z]*\) (.*)$/\1/p" md >roles &&
	printf "user\nassistant\nuser\nassistant\n" >expect &&
	test_cmp expect roles &&
	python3 -c "
import json, sys
md = open(\"md\").read()
logs = [e for e in json.load(open(\"$LLM\")) if e[\"conversation_id\"] == \"01m8vr8fkjxvasvf3gscq49156\"]
at = 0
for e in logs:
    for text in (e[\"prompt\"], e[\"response\"]):
        found = md.find(\"\n\n\" + text + \"\n\", at)
        assert found >= 0, (text, md)
        at = found + len(text)
" &&
	head -1 md >title &&
	echo "# redis BRPOPLPUSH \"times out\" 中文" >expect &&
	test_cmp expect title
'

test_expect_success 'round trip: the Python Hermes sessions read back message for message' '
	hermes sessions import --from hermes-agent "$AGENT" 2>err &&
	hermes sessions export --format jsonl >all.jsonl &&
	python3 -c "
import json
ours = {s[\"id\"]: s for s in map(json.loads, open(\"all.jsonl\"))}
for line in open(\"$AGENT\"):
    theirs = json.loads(line)
    mine = ours[theirs[\"id\"]]
    assert mine[\"title\"] == theirs[\"title\"]
    got = [(m[\"role\"], m[\"content\"], m[\"ts\"]) for m in mine[\"messages\"][1:]]
    want = [(m[\"role\"], m[\"content\"], m[\"timestamp\"]) for m in theirs[\"messages\"]]
    assert got == want, (got, want)
"
'

test_expect_success 'importing the same file twice skips what is there (both sources, and from stdin)' '
	hermes sessions import --from llm "$LLM" 2>/dev/null &&
	hermes sessions import --from hermes-agent "$AGENT" 2>/dev/null &&
	hermes sessions import --from llm - <"$LLM" 2>err &&
	echo "imported 0 sessions, skipped 3 that already existed" >expect &&
	test_cmp expect err &&
	hermes sessions import --from hermes-agent "$AGENT" 2>err &&
	echo "imported 0 sessions, skipped 2 that already existed" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 5
'

test_expect_success '--dry-run reports and writes nothing, not even the home' '
	hermes sessions import --dry-run --from llm "$LLM" >out 2>err &&
	test_must_be_empty out &&
	echo "would import 3 sessions, skip 0 that already exist" >expect &&
	test_cmp expect err &&
	! test -e "$HERMES_HOME" &&
	hermes sessions import --from llm "$LLM" 2>/dev/null &&
	hermes sessions import --dry-run --from llm "$LLM" 2>err &&
	echo "would import 0 sessions, skip 3 that already exist" >expect &&
	test_cmp expect err
'

test_expect_success 'a wrong --from is an error naming the line and the right --from; nothing imported' '
	test_expect_code 2 hermes sessions import --from llm "$AGENT" 2>err &&
	echo "hermes: $AGENT:1: not llm'"'"'s logs (a JSON array was expected); it looks like a Python Hermes export: use --from hermes-agent; nothing was imported" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions import --from hermes-agent "$LLM" 2>err &&
	echo "hermes: $LLM:1: a JSON array, not the JSON Lines of a Python Hermes export; it looks like llm'"'"'s logs: use --from llm; nothing was imported" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions import "$LLM" 2>err &&
	echo "hermes: $LLM:1: a JSON array, not JSON Lines; it looks like llm'"'"'s logs: use --from llm; nothing was imported" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions import "$AGENT" 2>err &&
	grep "^hermes: $AGENT:1: not a hermes export (.*); it looks like a Python Hermes export: use --from hermes-agent; nothing was imported$" err &&
	! test -e "$HERMES_HOME/sessions" || test "$(session_count)" = 0
'

test_expect_success 'a wrong record later in the file still imports nothing (checked before writing)' '
	cp "$AGENT" mixed.jsonl &&
	echo "{\"id\":\"x\",\"title\":\"no messages\"}" >>mixed.jsonl &&
	test_expect_code 2 hermes sessions import --from hermes-agent mixed.jsonl 2>err &&
	echo "hermes: mixed.jsonl:3: not a Python Hermes export (no \"messages\" field); nothing was imported" >expect &&
	test_cmp expect err &&
	! test -e "$HERMES_HOME/sessions" || test "$(session_count)" = 0
'

test_expect_success 'a damaged line is named by number; the rest is imported; exit 2' '
	head -1 "$AGENT" >damaged.jsonl &&
	head -1 "$AGENT" | cut -c1-300 >>damaged.jsonl &&
	tail -1 "$AGENT" >>damaged.jsonl &&
	test_expect_code 2 hermes sessions import --from hermes-agent damaged.jsonl 2>err &&
	sed -n 1p err >first &&
	echo "imported 2 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect first &&
	grep "^hermes: warning: line 2 is damaged (.*); skipped$" err &&
	tail -1 err >last &&
	echo "hermes: damaged.jsonl: 1 damaged line skipped; the rest was imported" >expect &&
	test_cmp expect last &&
	test "$(session_count)" = 2
'

test_expect_success 'a truncated llm log names the line where it breaks and imports nothing' '
	head -c 3000 "$LLM" >cut.json &&
	test_expect_code 2 hermes sessions import --from llm cut.json 2>err &&
	grep "^hermes: cut.json:[0-9]*: .*; nothing was imported$" err &&
	! test -e "$HERMES_HOME/sessions" || test "$(session_count)" = 0
'

test_expect_success 'tool messages, tool calls and rewound messages are left out and counted' '
	cat >tools.jsonl <<-\EOF &&
	{"id":"20261202_120000_abcdef","title":"tools","title_source":"auto","started_at":1796205600.0,"system_prompt":null,"messages":[{"role":"user","content":"list files","timestamp":1796205601.0},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"pwd","arguments":"{}"}}],"timestamp":1796205602.0},{"role":"tool","content":"a b c","tool_call_id":"c1","timestamp":1796205603.0},{"role":"assistant","content":"three files","tool_calls":"[{\"id\":\"c3\"}]","timestamp":1796205604.0},{"role":"user","content":"undone","active":0,"timestamp":1796205605.0},{"role":"session_meta","content":"x","timestamp":1796205606.0}]}
	EOF
	hermes sessions import --from hermes-agent tools.jsonl 2>err &&
	cat >expect <<-\EOF &&
	imported 1 session, skipped 0 that already existed
	left out 7 items hermes sessions cannot hold: 1 '"'"'session_meta'"'"' messages, 1 '"'"'tool'"'"' messages, 1 assistant messages holding only tool calls, 1 rewound messages, 3 tool calls
	EOF
	test_cmp expect err &&
	hermes sessions show --json tools >tools.json &&
	py "[(m[\"role\"], m[\"content\"]) for m in j[\"messages\"]]" tools.json >actual &&
	echo "[('"'"'user'"'"', '"'"'list files'"'"'), ('"'"'assistant'"'"', '"'"'three files'"'"')]" >expect &&
	test_cmp expect actual
'

test_expect_success 'an ID not of hermes form gets one from its start time; llm tool calls and attachments are counted' '
	cat >odd.jsonl <<-\EOF &&
	{"id":"sess-42","title":null,"started_at":1796205600.5,"messages":[{"role":"user","content":"untitled at first","timestamp":1796205601.0}]}
	EOF
	hermes sessions import --from hermes-agent odd.jsonl 2>err &&
	hermes sessions list >list &&
	cut -f2,5 list >actual &&
	printf "untitled at first\t20261202_100000_%s\n" "$(cut -f5 list | cut -c17-)" >expect &&
	test_cmp expect actual &&
	cat >tools.json <<-\EOF &&
	[{"id":"a","conversation_id":"c","conversation_name":"t","datetime_utc":"2026-12-02T12:00:00Z","prompt":"p","response":"r","tool_calls":[{"name":"x"}],"tool_results":[{"output":"y"},{"output":"z"}],"attachments":[{"path":"/tmp/i.png"}]}]
	EOF
	hermes sessions import --from llm tools.json 2>err &&
	tail -1 err >actual &&
	echo "left out 4 items hermes sessions cannot hold: 1 attachments, 1 tool calls, 2 tool results" >expect &&
	test_cmp expect actual
'

test_expect_success 'llm: a token count that is no count is ignored with one warning; the log, and every other count, imported' '
	cat >tokens.json <<-\EOF &&
	[{"id":"a","conversation_id":"c","conversation_name":"t","datetime_utc":"2026-12-02T12:00:00Z","prompt":"p","response":"r","input_tokens":"12","output_tokens":3},
	 {"id":"b","conversation_id":"c","datetime_utc":"2026-12-02T12:01:00Z","prompt":"q","response":"s","input_tokens":5,"output_tokens":-1},
	 {"id":"c","conversation_id":"d","conversation_name":"u","datetime_utc":"2026-12-02T12:02:00Z","prompt":"p","response":"r","input_tokens":{"n":1},"output_tokens":2.5}]
	EOF
	hermes sessions import --from llm tokens.json 2>err &&
	cat >expect <<-\EOF &&
	imported 2 sessions, skipped 0 that already existed
	hermes: warning: line 1: input_tokens is not a number of tokens; ignored (so are 3 more), the rest imported
	EOF
	test_cmp expect err &&
	hermes sessions show --json t >t.json &&
	py "[m.get(\"usage\") for m in j[\"messages\"]]" t.json >actual &&
	echo "[None, {'"'"'prompt_tokens'"'"': 0, '"'"'completion_tokens'"'"': 3, '"'"'total_tokens'"'"': 3}, None, {'"'"'prompt_tokens'"'"': 5, '"'"'completion_tokens'"'"': 0, '"'"'total_tokens'"'"': 5}]" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 2
'

test_expect_success 'llm: 30 February and an offset of +99:00 are no dates: refused, naming the line' '
	for when in 2026-02-30T12:00:00Z 2027-02-29T12:00:00Z 2026-12-02T12:00:00+99:00 2026-12-02T12:00:00-05:75; do
		printf "[{\"id\":\"a\",\"conversation_id\":\"c\",\"datetime_utc\":\"2026-12-02T12:00:00Z\",\"prompt\":\"p\",\"response\":\"r\"},\n {\"id\":\"b\",\"conversation_id\":\"c\",\"datetime_utc\":\"%s\",\"prompt\":\"q\",\"response\":\"s\"}]\n" "$when" >dates.json &&
		test_expect_code 2 hermes sessions import --from llm dates.json 2>err &&
		echo "hermes: dates.json:2: not llm'"'"'s logs (datetime_utc $when is not a valid RFC 3339 date and time); nothing was imported" >expect &&
		test_cmp expect err || return 1
	done &&
	test "$(session_count)" = 0
'

test_expect_success 'reasoning texts and llm fragments are left out and counted; empty ones are not' '
	cat >reason.json <<-\EOF &&
	[{"id":"a","conversation_id":"c","conversation_name":"t","datetime_utc":"2026-12-02T12:00:00Z","prompt":"p","response":"r","reasoning":"first I think","prompt_fragments":[{"hash":"h1"},{"hash":"h2"}],"system_fragments":[{"hash":"h3"}]},
	 {"id":"b","conversation_id":"c","datetime_utc":"2026-12-02T12:01:00Z","prompt":"q","response":"s","reasoning":null,"prompt_fragments":[],"system_fragments":[]}]
	EOF
	hermes sessions import --from llm reason.json 2>err &&
	tail -1 err >actual &&
	echo "left out 4 items hermes sessions cannot hold: 2 prompt fragments, 1 reasoning texts, 1 system prompt fragments" >expect &&
	test_cmp expect actual &&
	cat >reason.jsonl <<-\EOF &&
	{"id":"20261202_130000_abcdef","title":"why","title_source":"user","started_at":1796210000.0,"messages":[{"role":"user","content":"why","timestamp":1796210001.0},{"role":"assistant","content":"because","reasoning":"let me see","reasoning_content":"let me see","timestamp":1796210002.0},{"role":"assistant","content":"and so","reasoning":null,"reasoning_content":"","timestamp":1796210003.0}]}
	EOF
	hermes sessions import --from hermes-agent reason.jsonl 2>err &&
	tail -1 err >actual &&
	echo "left out 1 item hermes sessions cannot hold: 1 reasoning texts" >expect &&
	test_cmp expect actual
'

test_expect_success 'an unknown --from is a usage error listing the sources' '
	test_expect_code 2 hermes sessions import --from chatgpt x.json 2>err &&
	echo "hermes: sessions import: unknown --from '"'"'chatgpt'"'"' (one of: hermes, hermes-agent, llm)" >expect &&
	head -1 err >actual &&
	test_cmp expect actual
'

test_expect_success 'a large llm log streams: memory stays far below the file size' '
	test -x /usr/bin/time || { echo "# /usr/bin/time missing: not measured"; exit 0; }
	python3 -c "
import json
with open(\"big.json\", \"w\") as f:
    f.write(\"[\n\")
    for i in range(20000):
        e = {\"id\": \"e%d\" % i, \"conversation_id\": \"conv%d\" % (i // 4), \"conversation_name\": \"c%d\" % (i // 4),
             \"datetime_utc\": \"2026-12-02T12:%02d:%02d+00:00\" % (i % 60, i % 60), \"prompt\": \"x\" * 2000, \"response\": \"y\" * 2000}
        f.write((\",\n\" if i else \"\") + json.dumps(e, indent=2))
    f.write(\"\n]\n\")
" &&
	test "$(wc -c <big.json)" -gt 80000000 &&
	/usr/bin/time -f %M -o rss hermes sessions import --from llm big.json 2>err &&
	grep "^imported 5000 sessions" err &&
	test "$(cat rss)" -lt 40000
'

# What an import keeps per session it writes (the index and catalog it
# leaves) is a few hundred bytes: measured as the peak RSS of an import of
# 20,000 short conversations over that of its --dry-run (which keeps none).
test_expect_success NATIVE 'many short conversations: what the import keeps per session is under 500 bytes' '
	test -x /usr/bin/time || { echo "# /usr/bin/time missing: not measured"; exit 0; }
	awk "BEGIN { printf \"[\"; for (i = 0; i < 20000; i++) printf \"%s{\\\"id\\\":\\\"e%d\\\",\\\"conversation_id\\\":\\\"conv%d\\\",\\\"conversation_name\\\":\\\"thread %d\\\",\\\"datetime_utc\\\":\\\"2026-01-01T10:00:00+00:00\\\",\\\"prompt\\\":\\\"q %d\\\",\\\"response\\\":\\\"a %d\\\"}\", (i ? \",\" : \"\"), i, i, i, i, i; printf \"]\" }" >short.json &&
	/usr/bin/time -f %M -o dry hermes sessions import --from llm --dry-run short.json 2>err &&
	grep "^would import 20000 sessions" err &&
	/usr/bin/time -f %M -o wet hermes sessions import --from llm short.json 2>err &&
	grep "^imported 20000 sessions" err &&
	test -s "$HERMES_HOME/index" &&
	kept=$(( ($(tail -n 1 wet) - $(tail -n 1 dry)) * 1024 / 20000 )) &&
	figure "t3220: an import keeps $kept bytes a session (20,000 short conversations)" &&
	test "$kept" -lt 500
'

test_expect_success 'a home shared with the Python Hermes: its files are left alone and unmentioned' '
	py_home="$HOME/.hermes" &&
	mkdir -p "$py_home/logs" "$py_home/skills/web" "$py_home/sessions" &&
	chmod 755 "$py_home" "$py_home/sessions" &&
	printf "model:\n  default: gpt\n" >"$py_home/config.yaml" &&
	printf "SQLite format 3\000" >"$py_home/state.db" &&
	echo "2026-12-02 agent started" >"$py_home/logs/agent.log" &&
	echo "# web skill" >"$py_home/skills/web/SKILL.md" &&
	(cd "$py_home" && ls -lR --full-time config.yaml state.db logs skills && cksum config.yaml state.db logs/agent.log skills/web/SKILL.md) >before &&
	unset HERMES_HOME &&
	hermes chat -q "first" --no-agent -Q 2>err1 &&
	hermes chat -c -q "second" --no-agent -Q 2>err2 &&
	hermes sessions list >/dev/null 2>err3 &&
	hermes sessions stats >/dev/null 2>err4 &&
	hermes sessions import --from hermes-agent "$AGENT" 2>/dev/null &&
	hermes sessions prune --older-than 0 --yes >/dev/null 2>err5 &&
	cat err1 err2 err3 err4 >errs &&
	test_must_be_empty errs &&
	! grep -E "config|state|logs|skills" err5 &&
	(cd "$py_home" && ls -lR --full-time config.yaml state.db logs skills && cksum config.yaml state.db logs/agent.log skills/web/SKILL.md) >after &&
	test_cmp before after
'

test_expect_success 'a config.yaml but no config.toml: the no-agent note says which file hermes reads' '
	mkdir -p "$HERMES_HOME" &&
	printf "model:\n  default: gpt\n" >"$HERMES_HOME/config.yaml" &&
	hermes chat -q hi 2>err &&
	cat >expect <<-EOF &&
	hermes: no agent configured; message saved. For replies: hermes config set base_url URL (an OpenAI-compatible server), or hermes config set agent CMD (see '"'"'man hermes'"'"')
	hermes: $HERMES_HOME/config.yaml is not read: it is another program'"'"'s (the Python Hermes keeps its settings there); hermes reads config.toml
	EOF
	grep -v "^session_id: " err >actual &&
	test_cmp expect actual &&
	echo "model = \"m\"" >"$HERMES_HOME/config.toml" &&
	hermes chat -q hi 2>err &&
	! grep config.yaml err
'

test_done
