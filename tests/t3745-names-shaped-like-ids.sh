#!/bin/sh
test_description='names shaped like IDs: --create-if-missing takes NAME only as a full ID or a title, and a title shaped like an ID, an ID prefix or a session'"'"'s short ID is refused where it is given, freed where it is imported'
. "$(dirname "$0")/lib.sh"

# An apostrophe, for the messages quoting names (a test body cannot hold one).
Q="'"

# unrelated: one session, "unrelated work", made now (its ID begins with
# the day it was made, as every ID of that day does); $day and $id.
unrelated() {
	hermes chat -c "unrelated work" --create-if-missing -q "secret design" --no-agent -Q &&
	id=$(session_id_by_title "unrelated work") &&
	day=$(echo "$id" | cut -c1-8)
}

test_expect_success 'the issue: a date as NAME is refused (exit 2) and nothing is appended to the session of that day' '
	unrelated &&
	test_expect_code 2 hermes chat -c "$day" --create-if-missing -Q -q "daily report" --no-agent 2>err &&
	cat >expect <<-EOF &&
	hermes: ${Q}$day${Q} is not a title but the start of the ID of session $id (${Q}unrelated work${Q}); with --create-if-missing, NAME is a title: continue that session with ${Q}hermes chat -r $day${Q}, or give one that is not shaped like an ID (e.g. ${Q}report $day${Q})
	EOF
	test_cmp expect err &&
	messages "$id" >actual &&
	echo "user: secret design" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 1
'

test_expect_success 'with two sessions of that day it is refused the same way (exit 2), naming both' '
	mk_session 20261204_100000_aaaaaa "unrelated work" user 1796378400 / user x &&
	mk_session 20261204_110000_bbbbbb "other work" user 1796382000 / user y &&
	test_expect_code 2 hermes chat -c 20261204 --create-if-missing -Q -q "daily report" --no-agent 2>err &&
	cat >expect <<-EOF &&
	hermes: ${Q}20261204${Q} is the start of the ID of 2 sessions; with --create-if-missing, NAME is a title: give one that is not shaped like an ID (e.g. ${Q}report 20261204${Q}), or continue one with ${Q}hermes chat -r ID${Q}:
	  20261204_100000_aaaaaa  unrelated work
	  20261204_110000_bbbbbb  other work
	EOF
	test_cmp expect err &&
	test "$(session_count)" = 2
'

test_expect_success 'a NAME shaped like an ID prefix or a short ID that fits nothing is refused too, saying why' '
	unrelated &&
	for name in 20991231 20991231_1430 "$(printf "%06x" $(( 0x$(echo "$id" | cut -c17-22) ^ 1 )))"; do
		test_expect_code 2 hermes chat -c "$name" --create-if-missing -Q -q "daily report" --no-agent 2>err &&
		grep "^hermes: ${Q}$name${Q} has the shape of .*; with --create-if-missing, NAME is a title: give one that is not shaped like an ID (e.g. ${Q}report $name${Q}), or continue by ID with -r\$" err ||
			{ echo "not refused: $name"; return 1; }
	done &&
	test_expect_code 2 hermes chat -c 20991231 --create-if-missing -Q -q x --no-agent 2>err &&
	grep "has the shape of a session ID prefix;" err &&
	test "$(session_count)" = 1
'

test_expect_success 'a word and the date is a title: created once, then continued' '
	unrelated &&
	hermes chat -c "report $day" --create-if-missing -Q -q "first" --no-agent &&
	hermes chat -c "report $day" --create-if-missing -Q -q "second" --no-agent &&
	test "$(session_count)" = 2 &&
	show_contents "report $day" >actual &&
	printf "first\nsecond\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a full ID with --create-if-missing still continues its session' '
	unrelated &&
	hermes chat -c "$id" --create-if-missing -Q -q "by ID" --no-agent &&
	show_contents "$id" >actual &&
	printf "secret design\nby ID\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an exact title wins with --create-if-missing even when it has an ID'"'"'s shape (made by an older hermes)' '
	mk_session 20200101_000000_aaaaaa 20261204 user 1577837000 / user x &&
	mk_session 20261204_000000_bbbbbb other user 1577837100 / user y &&
	hermes chat -c 20261204 --create-if-missing -Q -q "to the titled one" --no-agent &&
	messages 20200101_000000_aaaaaa >actual &&
	printf "%s\n" "user: x" "user: to the titled one" >expect &&
	test_cmp expect actual &&
	messages 20261204_000000_bbbbbb >actual &&
	echo "user: y" >expect &&
	test_cmp expect actual
'

test_expect_success 'without --create-if-missing the rule is as before: a date prefix of one session continues it' '
	unrelated &&
	hermes chat -c "$day" -Q -q "by prefix" --no-agent &&
	show_contents "$id" >actual &&
	printf "secret design\nby prefix\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--title and rename refuse an ID prefix and another session'"'"'s short ID' '
	unrelated &&
	short=$(echo "$id" | cut -c17-22) &&
	test_expect_code 2 hermes chat --title "$day" -q x --no-agent -Q 2>err &&
	echo "hermes: ${Q}$day${Q} has the shape of a session ID prefix, so it cannot be a title (a name of that shape is read as an ID): choose one that is not shaped like an ID (e.g. ${Q}report $day${Q})" >expect &&
	test_cmp expect err &&
	hermes chat --title other -q x --no-agent -Q &&
	test_expect_code 2 hermes sessions rename other "$short" 2>err &&
	echo "hermes: ${Q}$short${Q} is the short ID of session $id (${Q}unrelated work${Q}), so it cannot be a title (a name of that shape is read as an ID): choose one that is not shaped like an ID (e.g. ${Q}report $short${Q})" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions rename other "${day}_12" &&
	test "$(session_id_by_title other)" != "" &&
	test "$(session_count)" = 2
'

test_expect_success SCRIPT '/title and /new refuse them too' '
	unrelated &&
	short=$(echo "$id" | cut -c17-22) &&
	{ printf "/title %s\n" "$short"; sleep 1; printf "/new %s\n" "$day"; sleep 1; printf "/quit\n"; } |
		run_in_pty "hermes chat -c \"unrelated work\" --no-agent" >transcript &&
	grep "is the short ID of session $id" transcript &&
	grep "has the shape of a session ID prefix, so it cannot be a title" transcript &&
	test "$(session_id_by_title "unrelated work")" = "$id" &&
	test "$(session_count)" = 1
'

test_expect_success 'import frees an ID-prefix title as a taken one, with a warning' '
	b="\"format\":1,\"title_source\":\"user\",\"created_at\":1000.0,\"updated_at\":1000.0,\"cwd\":\"/\",\"message_count\":1,\"preview\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"ts\":1000.0}]" &&
	printf "{\"id\":\"20200101_000000_cccccc\",\"title\":\"20261204\",%s}\n" "$b" >x.jsonl &&
	hermes sessions import x.jsonl 2>err &&
	grep "^hermes: warning: session 20200101_000000_cccccc: the title ${Q}20261204${Q} has the shape of a session ID prefix, which a title must not have; imported as ${Q}20261204 (2)${Q}\$" err &&
	test "$(field 20200101_000000_cccccc title)" = "20261204 (2)"
'

test_expect_success 'merge --restore frees a title that is another session'"'"'s short ID' '
	unrelated &&
	short=$(echo "$id" | cut -c17-22) &&
	mk_session 20200101_000000_dddddd "$short" user 1577837000 / user x &&
	mv "$HERMES_HOME/sessions/20200101_000000_dddddd.json" "$HERMES_HOME/sessions/20200101_000000_dddddd.json~" &&
	hermes sessions merge --restore --yes >out 2>err &&
	test "$(field 20200101_000000_dddddd title)" = "$short (2)"
'

# upper TEXT: TEXT with its letters a to f in capitals.
upper() {
	echo "$1" | tr a-f A-F
}

# unrelated_3beb24: as unrelated, with an ID ending in letters (3beb24).
unrelated_3beb24() {
	id=20261204_100000_3beb24 &&
	mk_session "$id" "unrelated work" user 1796378400 / user "secret design"
}

test_expect_success 'the ID shape in capitals: ABCDEF, a session'"'"'s short ID and a full ID are refused as NAME and as titles, exactly as in lower case' '
	unrelated_3beb24 &&
	SHORT=3BEB24 && FULL=20261204_100000_3BEB24 &&
	for name in abcdef ABCDEF 20991231_000000_ABCDEF; do
		test_expect_code 2 hermes chat -c "$name" --create-if-missing -Q -q z --no-agent 2>err &&
		grep "^hermes: ${Q}$name${Q} has the shape of " err || { echo "not refused: $name"; return 1; }
	done &&
	test_expect_code 2 hermes chat -c "$SHORT" --create-if-missing -Q -q z --no-agent 2>err &&
	grep "^hermes: ${Q}$SHORT${Q} is not a title but the short ID of session $id (${Q}unrelated work${Q})" err &&
	test_expect_code 2 hermes chat --title "$SHORT" -Q -q z --no-agent 2>err &&
	grep "^hermes: ${Q}$SHORT${Q} is the short ID of session $id (${Q}unrelated work${Q}), so it cannot be a title" err &&
	test_expect_code 2 hermes sessions rename "unrelated work" "$SHORT" &&
	test_expect_code 2 hermes chat --title "$FULL" -Q -q z --no-agent 2>err &&
	grep "has the shape of a session ID" err &&
	test "$(session_count)" = 1 &&
	messages "$id" >actual &&
	echo "user: secret design" >expect &&
	test_cmp expect actual
'

test_expect_success 'an ID in capitals is the ID as hermes writes it: -r, -c and show find the session' '
	unrelated_3beb24 &&
	FULL=$(upper "$id") && SHORT=3BEB24 &&
	hermes chat -r "$FULL" -Q -q two --no-agent &&
	hermes chat -c "$SHORT" -Q -q three --no-agent &&
	hermes chat -c "$FULL" --create-if-missing -Q -q four --no-agent &&
	hermes sessions show "$FULL" --json >/dev/null &&
	test "$(session_count)" = 1 &&
	show_contents "$id" >actual &&
	printf "%s\n" "secret design" two three four >expect &&
	test_cmp expect actual
'

test_done
