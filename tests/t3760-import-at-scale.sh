#!/bin/sh
test_description='sessions import: no conversation lost to an ID collision, idempotent, times checked, long names shortened'
. "$(dirname "$0")/lib.sh"

# Two llm conversations started in the same second whose IDs hash alike
# (conv12879 and conv61464 share the 6 hex digits 01ce8c).
colliding_log() {
	cat <<-\EOF
	[
	{"id":"r1","conversation_id":"conv12879","datetime_utc":"2026-12-02T15:40:07.000000+00:00","prompt":"first question","response":"first answer"},
	{"id":"r2","conversation_id":"conv61464","datetime_utc":"2026-12-02T15:40:07.500000+00:00","prompt":"second question","response":"second answer"}
	]
	EOF
}

test_expect_success 'conversations whose made-up IDs collide are both imported, under distinct IDs' '
	colliding_log >log.json &&
	hermes sessions import --from llm --dry-run log.json 2>err &&
	echo "would import 2 sessions, skip 0 that already exist" >expect &&
	test_cmp expect err &&
	hermes sessions import --from llm log.json 2>err &&
	echo "imported 2 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2 &&
	test -e "$HERMES_HOME/sessions/20261202_154007_01ce8c.json" &&
	hermes sessions show "first question" >/dev/null &&
	hermes sessions show "second question" >/dev/null
'

test_expect_success 'importing the same log again imports nothing new, from a file and from stdin' '
	colliding_log >log.json &&
	hermes sessions import --from llm log.json 2>err &&
	hermes sessions import --from llm log.json 2>err &&
	echo "imported 0 sessions, skipped 2 that already existed" >expect &&
	test_cmp expect err &&
	hermes sessions import --from llm - <log.json 2>err &&
	test_cmp expect err &&
	test "$(session_count)" = 2
'

test_expect_success 'a conversation continued since its import is still recognised' '
	colliding_log >log.json &&
	hermes sessions import --from llm log.json 2>err &&
	hermes chat -c "second question" -q "more" --no-agent -Q &&
	hermes chat -c "first question" -q "more" --no-agent -Q &&
	hermes sessions import --from llm log.json 2>err &&
	echo "imported 0 sessions, skipped 2 that already existed" >expect &&
	test_cmp expect err
'

test_expect_success 'many sessions of one title are numbered in turn' '
	{
		echo "[" &&
		for i in 1 2 3 4; do
			printf "{\"id\":\"r%s\",\"conversation_id\":\"c%s\",\"datetime_utc\":\"2026-12-02T15:40:0%s+00:00\",\"prompt\":\"same\",\"response\":\"a\"}" $i $i $i &&
			test $i = 4 || echo ","
		done &&
		echo "]"
	} >same.json &&
	hermes sessions import --from llm same.json 2>err &&
	hermes sessions list | cut -f2 | sort >actual &&
	printf "%s\n" same "same (2)" "same (3)" "same (4)" >expect &&
	test_cmp expect actual
'

hermes_line() { # ID CREATED TS
	printf "{\"format\":1,\"id\":\"%s\",\"title\":\"t %s\",\"title_source\":\"user\",\"created_at\":%s,\"updated_at\":%s,\"cwd\":\"/\",\"message_count\":1,\"preview\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"ts\":%s}]}\n" "$1" "$1" "$2" "$2" "$3"
}

test_expect_success 'times before 1970, after 9999 or not finite are refused, naming the line' '
	{
		hermes_line 20200101_000000_000001 1000.0 1000.0 &&
		hermes_line 20200101_000000_000002 1e300 1e300 &&
		hermes_line 20200101_000000_000003 -1e300 1000.0 &&
		hermes_line 20200101_000000_000004 1000.0 -5 &&
		hermes_line 20200101_000000_000005 1000.0 1000.0
	} >times.jsonl &&
	test_expect_code 2 hermes sessions import times.jsonl 2>err &&
	grep "line 2 is damaged (created_at 1e300 is not a time from 1970 to 9999); skipped" err &&
	grep "line 3 is damaged (created_at -1e300 is not a time from 1970 to 9999); skipped" err &&
	grep "line 4 is damaged (message 1 has the time -5, not a time from 1970 to 9999); skipped" err &&
	test "$(session_count)" = 2 &&
	hermes sessions list >out &&
	! grep "1969\|	-	" out
'

test_expect_success 'an input whose only line has a bad time says so, not that it is no JSON' '
	hermes_line 20200101_000000_000002 1e300 1e300 >one.jsonl &&
	test_expect_code 2 hermes sessions import one.jsonl 2>err &&
	grep "line 1 is damaged (created_at 1e300 is not a time from 1970 to 9999); skipped" err &&
	! grep "no line is JSON" err
'

test_expect_success 'an input whose only line is a session with a damaged message says so, not that it is no JSON' '
	printf "{\"format\":1,\"id\":\"20200101_000000_0000ab\",\"title\":\"odd\",\"messages\":[{\"role\":\"tool\",\"content\":\"x\",\"ts\":1}]}\n" >tool.jsonl &&
	test_expect_code 2 hermes sessions import tool.jsonl 2>err &&
	grep "^hermes: warning: line 1 is damaged (message 1: a message has the role \"tool\", not user, assistant or system); skipped$" err &&
	! grep "no line is JSON" err &&
	printf "{\"format\":1,\n" >broken.jsonl &&
	test_expect_code 2 hermes sessions import broken.jsonl 2>err &&
	grep "no line is JSON" err
'

test_expect_success 'llm times before 1970 are refused, naming the line' '
	cat >old.json <<-\EOF &&
	[
	{"id":"r1","conversation_id":"c1","datetime_utc":"1960-01-01T00:00:00+00:00","prompt":"old","response":"a"},
	{"id":"r2","conversation_id":"c2","datetime_utc":"2026-12-02T15:40:07+00:00","prompt":"new","response":"a","duration_ms":1e300}
	]
	EOF
	test_expect_code 2 hermes sessions import --from llm old.json 2>err &&
	grep "line 2 is damaged (datetime_utc 1960-01-01T00:00:00+00:00 is not a time from 1970 to 9999); skipped" err &&
	test "$(session_count)" = 1
'

test_expect_success 'a 5,000-character ID is shortened in the error' '
	long=$(printf "%05000d" 7) &&
	printf "{\"format\":1,\"id\":\"%s\",\"title\":\"t\",\"title_source\":\"user\",\"created_at\":1000.0,\"updated_at\":1000.0,\"cwd\":\"/\",\"message_count\":0,\"preview\":\"\",\"messages\":[]}\n" "$long" >long.jsonl &&
	test_expect_code 2 hermes sessions import long.jsonl 2>err ||
	test_expect_code 2 hermes sessions import long.jsonl 2>err ||
	test_expect_code 1 hermes sessions import long.jsonl 2>err;
	test $(wc -c <err) -lt 400 &&
	grep "(5000 characters)" err &&
	test_expect_code 1 hermes sessions show "$long" 2>err &&
	test $(wc -c <err) -lt 400 &&
	test_expect_code 1 hermes chat -r "$long" -q x --no-agent 2>err &&
	test $(wc -c <err) -lt 400
'

test_done
