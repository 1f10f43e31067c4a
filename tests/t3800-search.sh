#!/bin/sh
test_description='sessions search TEXT: smart case, what the user sees, exit codes, JSON; list TEXT'
. "$(dirname "$0")/lib.sh"

# Sessions whose files escape what they hold in several ways: hermes's
# own (\" \\ \n), and another writer's \uXXXX for everything non-ASCII.
escaped_sessions() {
	mk_session 20261201_100000_aaaaaa "redis debug" user 1795495200 /tmp \
		user 'why does \"BRPOPLPUSH\" time out?' \
		assistant 'check C:\\redis\\conf and\nthe next line' &&
	mk_session 20261201_110000_bbbbbb "缓存 notes" user 1795595200 /tmp \
		user '\u8c03\u8bd5 the cache' \
		assistant 'plain words' &&
	mk_session 20261201_120000_cccccc "api design" user 1795695200 /tmp \
		user 'pagination and 调试 here' \
		assistant 'Redis is not involved'
}

# ids_of FILE: the IDs (fifth column) of piped search or list output.
ids_of() {
	cut -f5 "$1"
}

test_expect_success 'a word found in messages: newest first, one line each to a pipe' '
	escaped_sessions &&
	hermes sessions search redis >out &&
	printf "%s\n" 20261201_120000_cccccc 20261201_100000_aaaaaa >expect &&
	ids_of out >actual &&
	test_cmp expect actual &&
	printf "\tapi design\t2026-11-26 12:13\t2\t20261201_120000_cccccc\tassistant: Redis is not involved\n" >expect &&
	head -1 out >actual &&
	test_cmp expect actual
'

test_expect_success 'smart case: lower case ignores case, a capital makes it exact' '
	escaped_sessions &&
	hermes sessions search brpoplpush >out &&
	ids_of out >actual &&
	echo 20261201_100000_aaaaaa >expect &&
	test_cmp expect actual &&
	hermes sessions search Redis >out &&
	ids_of out >actual &&
	echo 20261201_120000_cccccc >expect &&
	test_cmp expect actual &&
	test_expect_code 1 hermes sessions search BrpopLpush >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: no session holds '"'BrpopLpush'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'quotes, backslashes and newlines are found as typed' '
	escaped_sessions &&
	hermes sessions search "\"BRPOPLPUSH\" time" >out &&
	test "$(ids_of out)" = 20261201_100000_aaaaaa &&
	hermes sessions search "C:\\redis\\conf" >out &&
	test "$(ids_of out)" = 20261201_100000_aaaaaa &&
	hermes sessions search "and
the next" >out &&
	test "$(ids_of out)" = 20261201_100000_aaaaaa &&
	printf "\tredis debug\t2026-11-24 04:40\t2\t20261201_100000_aaaaaa\tassistant: check C:\\\\redis\\\\conf and the next line\n" >expect &&
	test_cmp expect out &&
	# The escapes themselves are not text: \n is no n, \" no backslash.
	test_expect_code 1 hermes sessions search "conf andnthe" &&
	test_expect_code 1 hermes sessions search "\\\"BRPOP"
'

test_expect_success 'CJK is found whether the file holds it as UTF-8 or as \u escapes' '
	escaped_sessions &&
	hermes sessions search 调试 >out &&
	printf "%s\n" 20261201_120000_cccccc 20261201_110000_bbbbbb >expect &&
	ids_of out >actual &&
	test_cmp expect actual &&
	hermes sessions search 缓存 >out &&
	test "$(ids_of out)" = 20261201_110000_bbbbbb &&
	cut -f6 out >actual &&
	echo "title: 缓存 notes" >expect &&
	test_cmp expect actual
'

test_expect_success 'JSON keys and other fields are not message text' '
	escaped_sessions &&
	test_expect_code 1 hermes sessions search content >out &&
	test_must_be_empty out &&
	test_expect_code 1 hermes sessions search /tmp &&
	test_expect_code 1 hermes sessions search assistant
'

test_expect_success PYTHON3 '--json: one object per session with its snippets, parsed by a JSON parser' '
	escaped_sessions &&
	hermes sessions search redis --json >out &&
	python3 -c "
import json, sys
hits = json.load(open(\"out\"))
assert [h[\"id\"] for h in hits] == [\"20261201_120000_cccccc\", \"20261201_100000_aaaaaa\"], hits
first, second = hits
assert first[\"title\"] == \"api design\" and first[\"match_count\"] == 1, first
m = first[\"matches\"][0]
assert m == {\"field\": \"message\", \"message\": 1, \"role\": \"assistant\", \"snippet\": \"Redis is not involved\", \"match\": \"Redis\"}, m
assert second[\"match_count\"] == 2, second
assert second[\"matches\"][0][\"field\"] == \"title\" and \"message\" not in second[\"matches\"][0]
assert second[\"matches\"][1][\"snippet\"] == \"check C:\\\\redis\\\\conf and the next line\", second
" &&
	test_expect_code 1 hermes sessions search nowhere --json >out &&
	echo "[]" >expect &&
	test_cmp expect out
'

test_expect_success '--limit keeps the newest, and says there are more' '
	escaped_sessions &&
	hermes sessions search e --limit 2 >out 2>err &&
	printf "%s\n" 20261201_120000_cccccc 20261201_110000_bbbbbb >expect &&
	ids_of out >actual &&
	test_cmp expect actual &&
	echo "(the newest 2 shown; use --limit N to see more)" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions search e --limit 0 &&
	test_expect_code 2 hermes sessions search 2>err &&
	grep "missing TEXT" err
'

test_expect_success 'a damaged file holding the word is named in a warning and skipped' '
	escaped_sessions &&
	printf "{\"format\":1,\"id\":\"20261201_130000_dddddd\",\"title\":\"redis cut\",\"messages\":[{\"role\":\"user\",\"content\":\"redis" \
		>"$HERMES_HOME/sessions/20261201_130000_dddddd.json" &&
	hermes sessions search redis >out 2>err &&
	test "$(ids_of out | wc -l)" = 2 &&
	grep "^hermes: warning: .*20261201_130000_dddddd.json: not a valid session file" err
'

test_expect_success 'on a terminal: a table, and the match highlighted unless NO_COLOR' '
	escaped_sessions &&
	pty_transcript "hermes sessions search brpop" out &&
	grep "redis debug .* 20261201_100000_aaaaaa" out &&
	grep "^    user: why does \"$(printf "\033")\[1;31mBRPOP$(printf "\033")\[0mLPUSH\" time out?" out &&
	pty_transcript "NO_COLOR=1 hermes sessions search brpop" out &&
	grep "^    user: why does \"BRPOPLPUSH\" time out?" out &&
	! grep "$(printf "\033")" out
'

test_expect_success 'list TEXT: only titles holding TEXT, smart case; none is exit 1' '
	escaped_sessions &&
	test_expect_code 1 hermes sessions list DE >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: no session title holds '"'DE'"'; '"'hermes sessions search'"' looks in the messages too" >expect &&
	test_cmp expect err &&
	hermes sessions list de >out &&
	printf "%s\n" 20261201_120000_cccccc 20261201_100000_aaaaaa >expect &&
	ids_of out >actual &&
	test_cmp expect actual &&
	hermes sessions list 缓存 --json >out &&
	grep -c "\"id\"" out >actual &&
	echo 1 >expect &&
	test_cmp expect actual &&
	test_expect_code 2 hermes sessions list a b 2>err &&
	grep "unexpected argument '"'b'"'" err
'

test_done
