#!/bin/sh
test_description='the context budget: what one turn sends of a long thread, whole messages, the system prompt first, the newest message always, said once'
. "$(dirname "$0")/lib.sh"

ID=20260101_000000_abcdef

# setup: the agent, and the thread "long" of 5,000 messages after its
# system prompt.
setup() {
	make_rec &&
	mkdir -p "$HERMES_HOME/sessions" &&
	thread $ID 5000
}

test_expect_success PYTHON3 'a thread of 5,000 messages sends at most the budget, the system prompt first, the newest whole' '
	setup &&
	hermes chat -c long -q "the newest question" --agent "$REC" --context 20000 -Q >out 2>err &&
	f=$(last_input) &&
	test "$(sent "$f")" -le 20000 &&
	test "$(sent "$f")" -ge 19000 &&
	json_get "$f" "v[\"messages\"][0]" >actual &&
	echo "{\"role\":\"system\",\"content\":\"SYSTEM PROMPT\"}" >expect &&
	test_cmp expect actual &&
	json_get "$f" "v[\"messages\"][1][\"content\"]" >note &&
	grep "^\[hermes: [0-9]* messages ([0-9]* characters) are left out to keep within the context budget of 20000 characters\.\]$" note &&
	json_get "$f" "v[\"messages\"][-1][\"content\"]" >actual &&
	echo "the newest question" >expect && test_cmp expect actual &&
	# The newest messages, whole and in order, none skipped.
	json_get "$f" "[m[\"content\"].split()[1] for m in v[\"messages\"][2:-1]]" >numbers &&
	test "$(tail -n 1 numbers)" = 4999 &&
	awk "NR > 1 && \$1 != prev + 1 { exit 1 } { prev = \$1 }" numbers &&
	json_get "$f" "all(len(m[\"content\"]) == 100 for m in v[\"messages\"][2:-1])" >actual &&
	echo true >expect && test_cmp expect actual &&
	# The file keeps every message.
	test "$(json_get "$HERMES_HOME/sessions/$ID.json" "len(v[\"messages\"])")" = 5003 &&
	test_must_be_empty err
'

test_expect_success PYTHON3 'config.toml sets the budget; off sends everything' '
	setup &&
	printf "context = \"5k\"\n" >"$HERMES_HOME/config.toml" &&
	hermes chat -c long -q "again" --agent "$REC" -Q >out &&
	test "$(sent "$(last_input)")" -le 5000 &&
	printf "context = \"off\"\n" >"$HERMES_HOME/config.toml" &&
	hermes chat -c long -q "all of it" --agent "$REC" -Q >out &&
	test "$(json_get "$(last_input)" "len(v[\"messages\"])")" = 5004 &&
	printf "context = \"lots\"\n" >"$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -c long -q x --agent "$REC" -Q 2>err &&
	grep "line 1: context must be a number of characters" err &&
	rm "$HERMES_HOME/config.toml" &&
	test_expect_code 2 hermes chat -c long -q x --context 10 --agent "$REC" 2>err &&
	grep "under 1000 characters" err
'

test_expect_success PYTHON3 'the transcript form says what is left out in a line' '
	setup &&
	printf "agent_input = \"transcript\"\ncontext = \"3000\"\n" >"$HERMES_HOME/config.toml" &&
	hermes chat -c long -q "in transcript" --agent "$REC" -Q >out &&
	f=$(last_input) &&
	head -n 1 "$f" >actual &&
	echo "system: SYSTEM PROMPT" >expect && test_cmp expect actual &&
	sed -n 3p "$f" | grep "^system: \[hermes: [0-9]* messages .* are left out to keep within the context budget of 3000 characters\.\]$" &&
	test "$(wc -m <"$f")" -le 3500 &&
	tail -n 2 "$f" | head -n 1 >actual &&
	echo "user: in transcript" >expect && test_cmp expect actual &&
	rm "$HERMES_HOME/config.toml"
'

test_expect_success PYTHON3 'the newest message alone over the budget is sent whole, with a warning' '
	setup &&
	python3 -c "print(\"y\" * 5000)" >big &&
	hermes chat -c long -q - --agent "$REC" --context 2000 -Q <big >out 2>err &&
	f=$(last_input) &&
	json_get "$f" "[m[\"role\"] for m in v[\"messages\"]]" >actual &&
	printf "system\nsystem\nuser\n" >expect && test_cmp expect actual &&
	test "$(json_get "$f" "len(v[\"messages\"][-1][\"content\"])")" = 5000 &&
	grep "hermes: warning: the message is larger than the context budget (2,000 characters) on its own; it is sent whole" err
'

test_expect_success PYTHON3,SCRIPT 'on a terminal, what is left out is said once per session, not every turn' '
	setup &&
	run_in_pty "hermes chat -c long -q one --agent $REC --context 4000 >/dev/null" >pty1 &&
	run_in_pty "hermes chat -c long -q two --agent $REC --context 4000 >/dev/null" >pty2 &&
	grep "this session is larger than the context budget (4,000 characters): [0-9]* older messages" pty1 &&
	! grep "larger than the context budget" pty2 &&
	# Not on a terminal: nothing.
	hermes chat -c long -q three --agent "$REC" --context 4000 -Q >out 2>err &&
	test_must_be_empty err
'

test_expect_success PYTHON3 'stats NAME and list --json give the size in characters and whether it is over the budget' '
	setup &&
	printf "context = \"50000\"\n" >"$HERMES_HOME/config.toml" &&
	hermes sessions stats long --json >out &&
	json_get out "[v[\"budget\"], v[\"over_budget\"], v[\"summaries\"], v[\"chars\"] > 500000]" >actual &&
	printf "50000\ntrue\n0\ntrue\n" >expect && test_cmp expect actual &&
	hermes sessions list --json >out &&
	json_get out "[(s[\"over_budget\"], s[\"chars\"] == s[\"context_chars\"]) for s in v if s[\"id\"] == a[0]]" $ID >actual &&
	echo "[true,true]" >expect && test_cmp expect actual &&
	hermes sessions stats --json >out &&
	test "$(json_get out "v[\"over_budget\"]")" = 1 &&
	hermes chat -q short --no-agent -Q &&
	hermes sessions list --json >out &&
	json_get out "[s[\"over_budget\"] for s in v if s[\"title\"] == \"short\"]" >actual &&
	echo false >expect && test_cmp expect actual
'

test_done
