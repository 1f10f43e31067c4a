#!/bin/sh
test_description='short IDs: a unique prefix of 8+ characters, or the 6-hex suffix, names a session'
. "$(dirname "$0")/lib.sh"

# Three sessions: two share the suffix a1b2c3 and the day 20261202.
three_sessions() {
	mk_session 20261202_153500_a1b2c3 "redis debug" user 1796221815 /tmp user "about redis" &&
	mk_session 20261202_153501_a1b2c3 "other" user 1796221900 /tmp user "about other" &&
	mk_session 20261203_000000_ffffff "third" user 1796221700 /tmp user "about third"
}

test_expect_success 'a unique suffix names its session, for show and chat -r/-c' '
	three_sessions &&
	hermes sessions show ffffff >out &&
	head -1 out >actual &&
	echo third >expect &&
	test_cmp expect actual &&
	hermes chat -r ffffff -q "via -r" --no-agent -Q &&
	hermes chat -c ffffff -q "via -c" --no-agent -Q &&
	printf "%s\n" "user: about third" "user: via -r" "user: via -c" >expect &&
	messages 20261203_000000_ffffff >actual &&
	test_cmp expect actual
'

test_expect_success 'a unique prefix of 8 or more characters names its session' '
	three_sessions &&
	hermes sessions show 20261203 >out &&
	grep "^id: 20261203_000000_ffffff " out &&
	hermes sessions show 20261202_153500 >out &&
	grep "^id: 20261202_153500_a1b2c3 " out &&
	hermes sessions rename 20261202_153500 "renamed by prefix" 2>err &&
	test "$(field 20261202_153500_a1b2c3 title)" = "renamed by prefix" &&
	hermes sessions delete 20261203_00 --yes 2>err &&
	! test -e "$HERMES_HOME/sessions/20261203_000000_ffffff.json"
'

test_expect_success 'an ambiguous short ID exits 1 listing the candidates, newest first' '
	three_sessions &&
	cat >expect <<-\EOF &&
	hermes: '"'a1b2c3'"' fits 2 sessions; give more of the ID:
	  20261202_153501_a1b2c3  2026-12-02 14:31  other
	  20261202_153500_a1b2c3  2026-12-02 14:30  redis debug
	EOF
	for cmd in "sessions show" "sessions export" "chat -r" "chat -c"; do
		test_expect_code 1 hermes $cmd a1b2c3 </dev/null >out 2>err &&
		test_must_be_empty out &&
		test_cmp expect err || { echo "in: $cmd" >&2; return 1; }
	done &&
	sed "1s/a1b2c3/20261202/" expect >expect2 &&
	test_expect_code 1 hermes sessions delete 20261202 --yes 2>err &&
	test_cmp expect2 err &&
	test "$(session_count)" = 3
'

test_expect_success 'too short, or not of the shape of an ID: not a short ID' '
	three_sessions &&
	NAME_LOOKS_LIKE_ID=1 verb_not_found 2026120 >expect &&
	test_expect_code 1 hermes sessions show 2026120 2>err &&
	test_cmp expect err &&
	test_expect_code 1 hermes chat -c a1b2c -q x --no-agent 2>err &&
	NAME_LOOKS_LIKE_ID=1 not_found a1b2c >expect &&
	test_cmp expect err &&
	test_expect_code 1 hermes chat -r ../../etc/passwd -q x --no-agent 2>err &&
	grep "no session has the ID" err
'

test_expect_success 'a title that looks like another session'"'"'s suffix wins over nothing: both are named' '
	three_sessions &&
	# Refused where a title is given; one from an older hermes is named.
	test_expect_code 2 hermes chat --title ffffff -q "titled ffffff" --no-agent -Q 2>err &&
	grep "is the short ID of session 20261203_000000_ffffff" err &&
	mk_session 20261204_000000_0000f1 ffffff user 1796221950 /tmp user "titled ffffff" &&
	test_expect_code 1 hermes sessions show ffffff >out 2>err &&
	test_must_be_empty out &&
	grep "could mean 2 sessions" err &&
	grep "  ffffff  (has that title)" err &&
	grep "^  20261203_000000_ffffff  .*  third  (has an ID it abbreviates)" err
'

test_done
