#!/bin/sh
test_description='sessions merge: never two sessions of one title; a copy of a deleted session is not brought back unasked'
. "$(dirname "$0")/lib.sh"

S() { echo "$HERMES_HOME/sessions"; }

test_expect_success 'the issue: a backup of a deleted session is left, the title stays unique' '
	hermes chat -c A --create-if-missing -q a1 --no-agent -Q &&
	old=$(session_id_by_title A) &&
	cp "$(S)/$old.json" "$(S)/$old.json~" &&
	hermes sessions delete A --yes &&
	hermes chat -c A --create-if-missing -q "new A" --no-agent -Q &&
	hermes sessions merge --yes >out 2>err &&
	test_must_be_empty out &&
	grep "$old.json~: its session $old '"'A'"' is gone (deleted?); left as it is (1 message)" err &&
	grep "hermes sessions merge --restore" err &&
	test -e "$(S)/$old.json~" &&
	! test -e "$(S)/$old.json" &&
	test "$(session_count)" = 1 &&
	hermes chat -c A -q "cron post" --no-agent -Q
'

test_expect_success '--restore brings it back under a free title' '
	hermes chat -c A --create-if-missing -q a1 --no-agent -Q &&
	old=$(session_id_by_title A) &&
	cp "$(S)/$old.json" "$(S)/$old.json~" &&
	hermes sessions delete A --yes &&
	hermes chat -c A --create-if-missing -q "new A" --no-agent -Q &&
	new=$(session_id_by_title A) &&
	hermes sessions merge --restore --yes >out 2>err &&
	echo "restored session $old '"'A (2)'"' from $old.json~: 1 message" >expect &&
	test_cmp expect out &&
	grep "titled '"'A'"', which another session has" err &&
	test "$(field "$old" title)" = "A (2)" &&
	test "$(field "$new" title)" = A &&
	! test -e "$(S)/$old.json~" &&
	hermes chat -c A -q "cron post" --no-agent -Q
'

test_expect_success '--dry-run --restore changes nothing' '
	hermes chat -c B --create-if-missing -q b1 --no-agent -Q &&
	old=$(session_id_by_title B) &&
	cp "$(S)/$old.json" "$(S)/$old.json~" &&
	hermes sessions delete B --yes &&
	hermes sessions merge --restore --dry-run >out 2>err &&
	grep "would restore session $old" out &&
	test -e "$(S)/$old.json~" &&
	! test -e "$(S)/$old.json"
'

test_expect_success 'a copy bringing a bidi override or an ID-shaped title is cleaned (merge and merge-file)' '
	hermes chat -c C --create-if-missing -q c1 --no-agent -Q &&
	id=$(session_id_by_title C) &&
	sed "s/\"title\":\"C\"/\"title\":\"ev\\\\u202eil\"/" "$(S)/$id.json" >theirs &&
	grep "u202e" theirs &&
	cp "$(S)/$id.json" ours &&
	: >base &&
	hermes sessions merge-file base ours theirs 2>err || true &&
	! grep -i "u202e" ours &&
	sed "s/\"title_source\":\"user\"/\"title_source\":\"auto\"/" "$(S)/$id.json" >ours2 &&
	cp theirs "$(S)/$id.json~" &&
	cp ours2 "$(S)/$id.json" &&
	hermes sessions merge --yes >out 2>err &&
	! grep -i "u202e" "$(S)/$id.json" &&
	test "$(field "$id" title)" = evil
'

test_expect_success '--restore with a TITLE is a usage error' '
	test_expect_code 2 hermes sessions merge --restore X 2>err
'

test_done
