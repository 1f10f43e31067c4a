#!/bin/sh
test_description='hermes sessions list: order, limit, --here, the mark, --json, the terminal table'
. "$(dirname "$0")/lib.sh"

# Three sessions whose activity order is not their ID (creation) order.
# 1767261600 is 2026-01-01 10:00 UTC; a day is 86400.
three_sessions () {
	mk_session 20251230_090000_aaaaaa "redis debug" user 1767434400 /srv/shop \
		user "why does BRPOPLPUSH time out" assistant "the timeout is 0" &&
	mk_session 20251231_090000_bbbbbb "deploy notes" user 1767261600 /srv/shop \
		user "ship it" &&
	mk_session 20260101_090000_cccccc "hello world" auto 1767348000 /srv/other \
		user "hello world" assistant "hi" user "bye"
}

test_expect_success 'an empty store lists nothing, says how to start, creates nothing' '
	hermes sessions list >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	No sessions. Start one with '"'hermes chat'"'.
	EOF
	test_cmp expect err &&
	! test -e "$HERMES_HOME"
'

test_expect_success 'piped: newest activity first, tab-separated, unpadded, * on the -c session' '
	three_sessions &&
	hermes sessions list >out 2>err &&
	printf "*\tredis debug\t2026-01-03 10:00\t2\t20251230_090000_aaaaaa\n" >expect &&
	printf "\thello world\t2026-01-02 10:00\t3\t20260101_090000_cccccc\n" >>expect &&
	printf "\tdeploy notes\t2026-01-01 10:00\t1\t20251231_090000_bbbbbb\n" >>expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	! grep "  " out &&
	! grep " $" out
'

test_expect_success 'ties in activity are ordered by ID, the same every time' '
	mk_session 20260101_090000_aaaaaa one user 1767261600 /x &&
	mk_session 20260101_090000_bbbbbb two user 1767261600 /x &&
	hermes sessions list >out &&
	cut -f2 out >titles &&
	printf "two\none\n" >expect &&
	test_cmp expect titles
'

test_expect_success '--limit cuts the list and says how to see more' '
	three_sessions &&
	hermes sessions list --limit 2 >out 2>err &&
	printf "*\tredis debug\t2026-01-03 10:00\t2\t20251230_090000_aaaaaa\n" >expect &&
	printf "\thello world\t2026-01-02 10:00\t3\t20260101_090000_cccccc\n" >>expect &&
	test_cmp expect out &&
	cat >expect.err <<-\EOF &&
	(2 of 3 sessions shown; use --limit N or --all to see more)
	EOF
	test_cmp expect.err err &&
	hermes sessions list -n 1 >out 2>err &&
	test_line_count = 1 out &&
	grep "^(1 of 3 sessions shown" err
'

test_expect_success 'a list that is not cut off says nothing more' '
	three_sessions &&
	hermes sessions list --limit 3 >out 2>err &&
	test_line_count = 3 out &&
	test_must_be_empty err
'

test_expect_success 'the default limit is 20; --all shows every session' '
	i=10 &&
	while test $i -lt 35; do
		mk_session 20260101_0900${i}_aaaaaa "s$i" user $((1767261600 + i)) /x || return 1
		i=$((i + 1))
	done &&
	hermes sessions list >out 2>err &&
	test_line_count = 20 out &&
	head -n 1 out | cut -f2 >first &&
	echo s34 >expect &&
	test_cmp expect first &&
	tail -n 1 out | cut -f2 >last &&
	echo s15 >expect &&
	test_cmp expect last &&
	echo "(20 of 25 sessions shown; use --limit N or --all to see more)" >expect.err &&
	test_cmp expect.err err &&
	hermes sessions list --all >out 2>err &&
	test_line_count = 25 out &&
	test_must_be_empty err &&
	hermes sessions list --all --limit 2 >out &&
	test_line_count = 25 out
'

test_expect_success '--limit wants a positive number' '
	test_expect_code 2 hermes sessions list --limit 0 2>err &&
	grep "^hermes: --limit wants a positive number, not '"'0'"'" err &&
	test_expect_code 2 hermes sessions list --limit many 2>err &&
	grep "^hermes: --limit wants a positive number, not '"'many'"'" err &&
	test_expect_code 2 hermes sessions list --limit 2>err
'

test_expect_success '--here: only sessions of this workspace (git root), by path component' '
	mkdir -p ws/.git ws/sub other &&
	mk_session 20260101_090000_aaaaaa "at root" user 1767261600 "$TRASH/ws" &&
	mk_session 20260101_090000_bbbbbb "deeper" user 1767348000 "$TRASH/ws/sub/deep" &&
	mk_session 20260101_090000_cccccc "elsewhere" user 1767434400 "$TRASH/other" &&
	mk_session 20260101_090000_dddddd "prefix twin" user 1767520800 "$TRASH/wsx" &&
	mk_session 20260101_090000_eeeeee "no cwd" user 1767607200 "" &&
	(cd ws/sub && hermes sessions list --here) >out 2>err &&
	printf "*\tdeeper\t2026-01-02 10:00\t0\t20260101_090000_bbbbbb\n" >expect &&
	printf "\tat root\t2026-01-01 10:00\t0\t20260101_090000_aaaaaa\n" >>expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	(cd ws/sub && hermes sessions list) >all &&
	test_line_count = 5 all
'

test_expect_success '--here counts only this workspace in the cut-off note' '
	mkdir -p ws/.git &&
	mk_session 20260101_090000_aaaaaa a user 1767261600 "$TRASH/ws" &&
	mk_session 20260101_090000_bbbbbb b user 1767348000 "$TRASH/ws" &&
	mk_session 20260101_090000_cccccc c user 1767434400 /elsewhere &&
	(cd ws && hermes sessions list --here --limit 1) >out 2>err &&
	test_line_count = 1 out &&
	echo "(1 of 2 sessions shown; use --limit N or --all to see more)" >expect &&
	test_cmp expect err
'

test_expect_success '--here with no session in this workspace says so' '
	mkdir ws &&
	mk_session 20260101_090000_aaaaaa a user 1767261600 /elsewhere &&
	(cd ws && hermes sessions list --here) >out 2>err &&
	test_must_be_empty out &&
	echo "No sessions in this workspace. Start one with '"'hermes chat'"'." >expect &&
	test_cmp expect err
'

test_expect_success 'the mark follows this terminal breadcrumb, not the newest session' '
	three_sessions &&
	TMUX_PANE=%3 hermes chat -c "deploy notes" -q more --no-agent -Q &&
	mk_session 20260102_090000_dddddd newest user 1893456000 /x &&
	TMUX_PANE=%3 hermes sessions list >out &&
	grep "^\*" out >marked &&
	test_line_count = 1 marked &&
	cut -f2 marked >title &&
	echo "deploy notes" >expect &&
	test_cmp expect title &&
	TMUX_PANE=%4 hermes sessions list >out &&
	grep "^\*" out | cut -f2 >title &&
	echo newest >expect &&
	test_cmp expect title
'

test_expect_success 'the mark is on the session bare -c continues (workspace before latest)' '
	mkdir -p ws/.git &&
	mk_session 20260101_090000_aaaaaa "in ws" user 1767261600 "$TRASH/ws" &&
	mk_session 20260101_090000_bbbbbb "newest" user 1767434400 /elsewhere &&
	(cd ws && hermes sessions list) >out &&
	printf "\tnewest\t2026-01-03 10:00\t0\t20260101_090000_bbbbbb\n" >expect &&
	printf "*\tin ws\t2026-01-01 10:00\t0\t20260101_090000_aaaaaa\n" >>expect &&
	test_cmp expect out &&
	(cd ws && hermes chat -c -q next --no-agent -Q) &&
	hermes sessions show 20260101_090000_aaaaaa >shown &&
	grep "^next$" shown
'

test_expect_success '--json: an array of headers with the documented fields' '
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /srv/shop \
		user "why does BRPOPLPUSH time out" assistant "the timeout is 0" &&
	hermes sessions list --json >out 2>err &&
	cat >expect <<-\EOF &&
	[{"id":"20260101_090000_aaaaaa","title":"redis debug","title_source":"user","created_at":1767258000.0,"updated_at":1767261600.0,"message_count":2,"cwd":"/srv/shop","preview":"why does BRPOPLPUSH time out","current":true,"chars":44,"context_chars":44,"over_budget":false}]
	EOF
	test_cmp expect out &&
	json_valid out &&
	test_must_be_empty err
'

test_expect_success '--json keeps the order and honours --limit; an empty store is []' '
	hermes sessions list --json >out &&
	echo "[]" >expect &&
	test_cmp expect out &&
	json_get out "len(v)" >n &&
	echo 0 >expect && test_cmp expect n &&
	three_sessions &&
	hermes sessions list --json --limit 2 >out 2>err &&
	json_get out "[s[\"id\"] for s in v]" >ids &&
	printf "20251230_090000_aaaaaa\n20260101_090000_cccccc\n" >expect &&
	test_cmp expect ids &&
	hermes sessions list --json --all >out &&
	json_get out "[s[\"preview\"] for s in v]" >previews &&
	test_line_count = 3 previews
'

test_expect_success '--json escapes what a title may hold' '
	hermes chat --title "say \"hi\" \\ bye" -q x --no-agent -Q &&
	hermes sessions list --json >out &&
	grep "\"title\":\"say \\\\\"hi\\\\\" \\\\\\\\ bye\"" out &&
	json_get out "[s[\"title\"] for s in v]" >titles &&
	printf "%s\n" "say \"hi\" \\ bye" >expect &&
	test_cmp expect titles
'

test_expect_success 'a corrupt session file is skipped with a warning naming it' '
	three_sessions &&
	printf "{\"format\":1,\"id\":\"20260101_090000_ffffff\",\"ti" \
		>"$HERMES_HOME/sessions/20260101_090000_ffffff.json" &&
	hermes sessions list >out 2>err &&
	test_line_count = 3 out &&
	! grep ffffff out &&
	grep "^hermes: warning: .*/sessions/20260101_090000_ffffff.json: not a valid session file" err &&
	test_line_count = 1 err
'

test_expect_success 'files that are not sessions are not listed' '
	three_sessions &&
	echo "{}" >"$HERMES_HOME/sessions/notes.txt" &&
	cp "$HERMES_HOME/sessions/20251230_090000_aaaaaa.json" \
		"$HERMES_HOME/sessions/.20251230_090000_aaaaaa.json.0123456789ab.tmp" &&
	hermes sessions list >out 2>err &&
	test_line_count = 3 out &&
	test_must_be_empty err
'

test_expect_success 'a reader that stops early (| head) is not an error' '
	long=$(printf "%090d" 0) &&
	i=100 &&
	while test $i -lt 700; do
		mk_session 20260101_090${i}_aaaaaa "$long $i" user $((1767261600 + i)) /x user "$long" ||
		return 1
		i=$((i + 1))
	done &&
	{ hermes sessions list --all --json 2>err; echo $? >rc; } | head -c 10 >/dev/null &&
	echo 0 >expect &&
	test_cmp expect rc &&
	test_must_be_empty err &&
	{ hermes sessions list --all 2>err; echo $? >rc; } | head -n 1 >first &&
	test_cmp expect rc &&
	test_must_be_empty err &&
	test_line_count = 1 first
'

test_expect_success 'unknown options and stray words are usage errors' '
	test_expect_code 2 hermes sessions list --yes 2>err &&
	grep "^hermes: " err &&
	test_expect_code 2 hermes sessions list some extra 2>err &&
	grep "^hermes: sessions list: unexpected argument '"'extra'"'" err
'

# wider_than N FILE: the lines of FILE (UTF-8) taking more than N terminal
# columns. Continuation bytes take no column; characters whose UTF-8 lead
# byte is \343-\351 (CJK, U+3000-U+9FFF) take two.
wider_than () {
	while IFS= read -r wt_line; do
		wt_narrow=$(printf "%s" "$wt_line" | tr -d "\200-\277" | wc -c) &&
		wt_wide=$(printf "%s" "$wt_line" | tr -cd "\343-\351" | wc -c) &&
		test $((wt_narrow + wt_wide)) -le "$1" || printf "%s\n" "$wt_line"
	done <"$2"
}

# On a terminal: an aligned table that fits the width, titles cut with ...
table_sessions () {
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /x user hi &&
	mk_session 20260101_090000_bbbbbb \
		"a rather long title about the deployment of the shop and its many parts" \
		user 1767348000 /x &&
	mk_session 20260101_090000_cccccc \
		"$(printf "\350\260\203\350\257\225%.0s" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20)" \
		user 1767434400 /x &&
	mk_session 20260101_090000_dddddd "" "" 1767520800 /x
}

test_expect_success SCRIPT 'on a terminal: a table that fits 80 columns' '
	table_sessions &&
	pty_transcript "stty cols 80; hermes sessions list" out </dev/null &&
	wide=$(printf "\350\260\203\350\257\225%.0s" 1 2 3 4 5 6)$(printf "\350\260\203") &&
	cat >expect <<-EOF &&
	  TITLE                         LAST ACTIVE        MSGS  ID
	* (untitled)                    2026-01-04 10:00      0  20260101_090000_dddddd
	  $wide…   2026-01-03 10:00      0  20260101_090000_cccccc
	  a rather long title about…    2026-01-02 10:00      0  20260101_090000_bbbbbb
	  redis debug                   2026-01-01 10:00      1  20260101_090000_aaaaaa
	EOF
	test_cmp expect out &&
	wider_than 80 out >too-wide &&
	test_must_be_empty too-wide
'

test_expect_success SCRIPT 'on a terminal: * marks the session this terminal last used' '
	table_sessions &&
	pty_transcript "stty cols 80; hermes chat -c \"redis debug\" -q more --no-agent -Q; hermes sessions list" out \
		</dev/null &&
	grep "^\*" out >marked &&
	test_line_count = 1 marked &&
	grep "^\* redis debug  .* 20260101_090000_aaaaaa$" marked
'

test_expect_success SCRIPT 'on a wider terminal, titles get the room, up to 60 columns' '
	table_sessions &&
	pty_transcript "stty cols 140; hermes sessions list" out </dev/null &&
	grep "^  a rather long title about the deployment of the shop and…  *2026-01-02 10:00" out &&
	pty_transcript "stty cols 200; hermes sessions list" out </dev/null &&
	grep "^  a rather long title about the deployment of the shop and…  *2026-01-02 10:00" out
'

test_done
