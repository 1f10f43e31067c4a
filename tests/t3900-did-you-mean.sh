#!/bin/sh
test_description='a name that matches nothing: the closest titles are listed (at most 5, newest first), never taken; exit 1 stays'
. "$(dirname "$0")/lib.sh"

# Sessions active a minute apart, oldest first.
titled_sessions() {
	t=1700000000
	for title in "redis cluster" "pycon talk" "redis debugging" "notes on rust" "redis debug"; do
		t=$((t + 60)) &&
		mk_session "20231114_22$(printf %04d $((t - 1700000000)))_a1b2c3" "$title" user "$t" /tmp user "about $title" || return 1
	done
}

test_expect_success 'chat -c redis: the three redis titles, newest first; exit 1, nothing written' '
	titled_sessions &&
	cat "$HERMES_HOME"/sessions/*.json >before &&
	test_expect_code 1 hermes chat -c redis -q x --no-agent >out 2>err &&
	test_must_be_empty out &&
	not_found redis "redis debug" "redis debugging" "redis cluster" >expect &&
	test_cmp expect err &&
	cat "$HERMES_HOME"/sessions/*.json >after &&
	test_cmp before after
'

test_expect_success 'a typo in a word: chat -c "redis debg"; a verb says the same in one line' '
	titled_sessions &&
	test_expect_code 1 hermes chat -c "redis debg" -q x --no-agent 2>err &&
	not_found "redis debg" "redis debug" "redis debugging" >expect &&
	test_cmp expect err &&
	test_expect_code 1 hermes sessions show "redis debg" 2>err &&
	verb_not_found "redis debg" "redis debug" "redis debugging" >expect &&
	test_cmp expect err &&
	test_expect_code 1 hermes sessions show nots 2>err &&
	verb_not_found nots "notes on rust" >expect &&
	test_cmp expect err
'

test_expect_success 'at most five titles' '
	for i in 1 2 3 4 5 6 7; do
		mk_session "2023111${i}_000000_a1b2c$i" "deploy step $i" user "170000000$i" /tmp user x || return 1
	done &&
	test_expect_code 1 hermes chat -c deploy -q x --no-agent 2>err &&
	not_found deploy "deploy step 7" "deploy step 6" "deploy step 5" "deploy step 4" "deploy step 3" >expect &&
	test_cmp expect err
'

test_expect_success 'a name that looks like part of an ID says the short ID rule' '
	titled_sessions &&
	test_expect_code 1 hermes chat -c 27c5 -q x --no-agent 2>err &&
	NAME_LOOKS_LIKE_ID=1 not_found 27c5 >expect &&
	test_cmp expect err &&
	test_expect_code 1 hermes chat -r 27c5 -q x --no-agent 2>err &&
	grep "a short ID is 8 or more leading characters of an ID, or its last 6 hex digits" err
'

test_done
