#!/bin/sh
test_description='compaction: sessions compact and /compact store a marked summary; a turn then sends system, summary, recent; a failing summariser changes nothing'
. "$(dirname "$0")/lib.sh"

ID=20260101_000000_abcdef

# setup: the agent, and the thread "long" of 400 messages after its
# system prompt.
setup() {
	make_rec &&
	mkdir -p "$HERMES_HOME/sessions" &&
	thread $ID 400
}

test_expect_success PYTHON3 'sessions compact, then a turn sends the system prompt, the summary, the recent messages' '
	setup &&
	hermes sessions compact long --agent "$REC" --context 10000 2>err &&
	grep "^compacted: a summary of .* now stands for the 350 messages before it; the agent read 350 messages (35,000 characters), in 4 pieces that each fit the budget$" err &&
	# Every message it stands for was read, in requests that each fit the
	# budget, each after the summary so far.
	for f in "$TRASH"/inputs/*; do
		json_get "$f" "v[\"messages\"][-1][\"content\"]" | grep "^Summarise the conversation above" &&
		test "$(sent "$f")" -le 10000 || return 1
	done &&
	ls "$TRASH/inputs" | wc -l >requests && echo 4 >expect && test_cmp expect requests &&
	cat "$TRASH"/inputs/* | grep -o "message [0-9]*" | sort -u | wc -l >read && echo 350 >expect && test_cmp expect read &&
	f=$(last_input) &&
	json_get "$f" "v[\"messages\"][0][\"content\"]" | grep "^Summary of the earlier conversation:" &&
	S=$HERMES_HOME/sessions/$ID.json &&
	json_get "$S" "[i for i, m in enumerate(v[\"messages\"]) if m.get(\"summary\")]" >at &&
	test_line_count = 1 at &&
	json_get "$S" "v[\"messages\"][$(cat at)]" >actual &&
	json_get actual "[v[\"role\"], v[\"content\"], v[\"summary\"]]" >fields &&
	printf "system\nSUMMARY 4: the thread so far\ntrue\n" >expect && test_cmp expect fields &&
	test "$(json_get "$S" "len(v[\"messages\"])")" = 402 &&
	hermes chat -c long -q "after the summary" --agent "$REC" --context 10000 -Q >out 2>err &&
	test_must_be_empty err &&
	f=$(last_input) &&
	json_get "$f" "[m[\"role\"] for m in v[\"messages\"][:3]]" >actual &&
	printf "system\nsystem\nsystem\n" >expect && test_cmp expect actual &&
	json_get "$f" "v[\"messages\"][0][\"content\"]" >actual &&
	echo "SYSTEM PROMPT" >expect && test_cmp expect actual &&
	json_get "$f" "v[\"messages\"][1][\"content\"]" >actual &&
	echo "[hermes: the next message summarises the $(cat at) earlier messages of this conversation.]" >expect &&
	test_cmp expect actual &&
	json_get "$f" "v[\"messages\"][2][\"content\"]" >actual &&
	echo "SUMMARY 4: the thread so far" >expect && test_cmp expect actual &&
	# Then every message after the summary, in order.
	json_get "$f" "[m[\"content\"] for m in v[\"messages\"][3:]]" >sent_after &&
	json_get "$S" "[m[\"content\"] for m in v[\"messages\"][$(cat at) + 1:-1]]" >after &&
	test_cmp after sent_after &&
	test "$(sent "$f")" -le 10000
'

test_expect_success PYTHON3 'show and export mark the summary where it stands; the older messages stay, searchable' '
	setup &&
	hermes sessions compact long --agent "$REC" --keep 4 2>err &&
	hermes sessions show long >out &&
	grep -n "^\[summary of messages 1-397\] " out >line &&
	n=$(cut -d: -f1 line) &&
	sed -n "$((n - 3)),$((n + 4))p" out >around &&
	sed -e "s/[0-9-]* [0-9][0-9]:[0-9][0-9]$/TIME/" -e "s/xx*$/x.../" around >actual &&
	cat >expect <<-\EOF &&
	[assistant] TIME
	message 395 x...

	[summary of messages 1-397] TIME
	SUMMARY 1: the thread so far

	[user] TIME
	message 396 x...
	EOF
	test_cmp expect actual &&
	hermes sessions export long --format markdown >md &&
	grep "^## summary of messages 1-397 (" md &&
	hermes sessions search "message 17 " --json >found &&
	test "$(json_get found "[s[\"id\"] for s in v]")" = $ID
'

test_expect_success PYTHON3 'the summary has the time of the last message it covers: merging a copy keeps it in place' '
	setup &&
	S=$HERMES_HOME/sessions/$ID.json &&
	cp "$S" before-compaction &&
	hermes sessions compact long --agent "$REC" --keep 4 2>err &&
	# After message 396 of the file ("message 395", at time 397).
	json_get "$S" "[(i, m[\"ts\"]) for i, m in enumerate(v[\"messages\"]) if m.get(\"summary\")]" >actual &&
	echo "[397,397.0]" >expect &&
	test_cmp expect actual &&
	# The other machine did not see the compaction, and added a message.
	python3 - before-compaction "$HERMES_HOME/sessions/$ID.sync-conflict-20261202-120000-ABCDEFG.json" <<-\EOF &&
	import json, sys
	v = json.load(open(sys.argv[1]))
	v["messages"].append({"role": "user", "content": "from the other machine", "ts": 500.0})
	v["message_count"] += 1
	json.dump(v, open(sys.argv[2], "w"))
	EOF
	hermes sessions merge --yes 2>err &&
	json_get "$S" "[m[\"content\"].rstrip(\"x\").strip() for m in v[\"messages\"][395:]]" >actual &&
	cat >expect <<-\EOF &&
	message 394
	message 395
	SUMMARY 1: the thread so far
	message 396
	message 397
	message 398
	message 399
	from the other machine
	EOF
	test_cmp expect actual
'

# unchanged_after CODE AGENT: sessions compact with AGENT exits CODE and
# leaves the session file byte for byte as it was.
unchanged_after() {
	cp "$HERMES_HOME/sessions/$ID.json" before &&
	test_expect_code "$1" hermes sessions compact long --keep 4 --agent "$2" 2>err &&
	cmp before "$HERMES_HOME/sessions/$ID.json"
}

test_expect_success PYTHON3 'a failing summariser leaves the file byte for byte as it was, and says why' '
	setup &&
	use_fake_agent &&
	unchanged_after 3 "fake-agent fail 1" &&
	grep "exited with status 1; no summary was made; the session is unchanged" err &&
	unchanged_after 3 "printf \"  \\n\"" &&
	grep "wrote an empty summary; no summary was made; the session is unchanged" err &&
	unchanged_after 3 "fake-agent api-error overloaded" &&
	grep "overloaded; no summary was made" err &&
	unchanged_after 3 "fake-agent kill KILL" &&
	unchanged_after 2 "" &&
	test_expect_code 1 hermes sessions compact nosuch --agent "$REC"
'

test_expect_success PYTHON3,SCRIPT '/compact in the chat, then a turn sends system, summary, recent' '
	setup &&
	printf "/compact 6\nwhat now\n" >typed &&
	# script(1) types what it reads on its stdin into the terminal.
	TERM=dumb script -qec "hermes chat -c long --agent $REC --context 8000" /dev/null <typed >pty &&
	grep "compacted: a summary of" pty &&
	f=$(last_input) &&
	json_get "$f" "[m[\"content\"][:12] for m in v[\"messages\"]]" >actual &&
	cat >expect <<-\EOF &&
	SYSTEM PROMP
	[hermes: the
	SUMMARY 6: t
	message 394 
	message 395 
	message 396 
	message 397 
	message 398 
	message 399 
	what now
	EOF
	test_cmp expect actual
'

test_expect_success PYTHON3,SCRIPT '/compact with nothing to compact says so at once, asking the agent nothing' '
	make_rec &&
	hermes chat -c small --create-if-missing -q "one" --no-agent -Q &&
	printf "/compact\n" >typed &&
	TERM=dumb script -qec "hermes chat -c small --agent $REC" /dev/null <typed >pty &&
	grep "nothing to compact" pty &&
	! grep "Asking the agent" pty &&
	test -z "$(ls "$TRASH/inputs" 2>/dev/null)"
'

test_done
