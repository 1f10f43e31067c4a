#!/bin/sh
test_description='hermes sessions stats: counts, bytes, oldest and newest activity, breadcrumbs'
. "$(dirname "$0")/lib.sh"

# mk_counted_session ID UPDATED_AT MESSAGES: a session file titled sUPDATED_AT
# with that many user messages (m0, m1, ...), all at UPDATED_AT.
mk_counted_session () {
	mkdir -p "$HERMES_HOME/sessions" &&
	{
		printf '{"format":1,"id":"%s","title":"s%s","title_source":"user","created_at":%s,"updated_at":%s,"cwd":"/x","message_count":%s,"preview":"","messages":[' \
			"$1" "$2" "$2" "$2" "$3"
		ms_i=0 ms_sep=
		while test $ms_i -lt "$3"; do
			printf '%s\n{"role":"user","content":"m%s","ts":%s}' "$ms_sep" $ms_i "$2"
			ms_sep=, ms_i=$((ms_i + 1))
		done
		printf '\n]}\n'
	} >"$HERMES_HOME/sessions/$1.json"
}

test_expect_success 'an empty store' '
	hermes sessions stats >out 2>err &&
	cat >expect <<-\EOF &&
	sessions:     0
	messages:     0
	bytes:        0
	unreadable:   0
	oldest:       -
	newest:       -
	breadcrumbs:  0
	temporaries:  0 (0 bytes)
	budget:       300,000 characters
	over budget:  0
	tokens:       -
	EOF
	test_cmp expect out &&
	test_must_be_empty err &&
	hermes sessions stats --json >out &&
	cat >expect <<-\EOF &&
	{"sessions":0,"messages":0,"bytes":0,"unreadable":0,"oldest_activity":null,"newest_activity":null,"breadcrumbs":0,"temporaries":0,"temporary_bytes":0,"budget":300000,"over_budget":0,"usage":null}
	EOF
	test_cmp expect out &&
	json_valid out &&
	! test -e "$HERMES_HOME"
'

# 1767261600 is 2026-01-01 10:00 UTC, 1767434400 2026-01-03 10:00.
test_expect_success 'sessions, messages, bytes on disk, oldest and newest activity' '
	mk_counted_session 20260101_090000_aaaaaa 1767348000 3 &&
	mk_counted_session 20260101_090000_bbbbbb 1767261600 0 &&
	mk_counted_session 20260101_090000_cccccc 1767434400 2 &&
	bytes=$(cat "$HERMES_HOME"/sessions/*.json | wc -c | tr -d " ") &&
	hermes sessions stats >out &&
	cat >expect <<-EOF &&
	sessions:     3
	messages:     5
	bytes:        $bytes
	unreadable:   0
	oldest:       2026-01-01 10:00
	newest:       2026-01-03 10:00
	breadcrumbs:  0
	temporaries:  0 (0 bytes)
	budget:       300,000 characters
	over budget:  0
	tokens:       -
	EOF
	test_cmp expect out &&
	hermes sessions stats --json >out &&
	echo "{\"sessions\":3,\"messages\":5,\"bytes\":$bytes,\"unreadable\":0,\"oldest_activity\":1767261600.0,\"newest_activity\":1767434400.0,\"breadcrumbs\":0,\"temporaries\":0,\"temporary_bytes\":0,\"budget\":300000,\"over_budget\":0,\"usage\":null}" >expect &&
	test_cmp expect out &&
	json_valid out
'

# counts FILE: "SESSIONS MESSAGES" from stats --json output in FILE.
counts() {
	json_get "$1" "\"%d %d\" % (v[\"sessions\"], v[\"messages\"])"
}

test_expect_success 'counts follow chat, delete and import' '
	hermes chat -q one --no-agent -Q &&
	hermes chat -c one -q two --no-agent -Q &&
	hermes chat --title other -q three --no-agent -Q &&
	hermes sessions stats --json >out &&
	test "$(counts out)" = "2 3" &&
	hermes sessions export --format jsonl >all.jsonl &&
	hermes sessions delete other --yes 2>/dev/null &&
	hermes sessions stats --json >out &&
	test "$(counts out)" = "1 2" &&
	hermes sessions import all.jsonl 2>/dev/null &&
	hermes sessions stats --json >out &&
	test "$(counts out)" = "2 3"
'

test_expect_success 'breadcrumbs are counted' '
	hermes chat --title a -q x --no-agent -Q &&
	TMUX_PANE=%1 hermes chat -c a -q y --no-agent -Q &&
	TMUX_PANE=%2 hermes chat -c a -q z --no-agent -Q &&
	hermes sessions stats >out &&
	grep "^breadcrumbs:  2$" out &&
	hermes sessions stats --json >out &&
	test "$(json_get out "v[\"breadcrumbs\"]")" = 2 &&
	test "$(json_get out "v[\"temporaries\"]")" = 0
'

test_expect_success 'unreadable session files are counted apart, their bytes included' '
	mk_counted_session 20260101_090000_aaaaaa 1767261600 1 &&
	printf "{\"format\":1," >"$HERMES_HOME/sessions/20260101_090000_bbbbbb.json" &&
	bytes=$(cat "$HERMES_HOME"/sessions/*.json | wc -c | tr -d " ") &&
	hermes sessions stats >out 2>err &&
	sed -n "1,4p" out >head &&
	cat >expect <<-EOF &&
	sessions:     1
	messages:     1
	bytes:        $bytes
	unreadable:   1
	EOF
	test_cmp expect head
'

test_expect_success 'a message_count at the top of its range neither wraps nor crashes' '
	mk_session 20250101_000000_00bbbb huge user 1735689600 "$TRASH" user "hello" &&
	f=$HERMES_HOME/sessions/20250101_000000_00bbbb.json &&
	sed "s/\"message_count\":1/\"message_count\":18446744073709551615/" "$f" >tmp && mv tmp "$f" &&
	hermes chat -c huge -q more --no-agent -Q &&
	grep "\"message_count\":18446744073709551615," "$f" &&
	hermes chat -q other --no-agent -Q &&
	hermes sessions stats --json >out &&
	test "$(json_get out "v[\"messages\"]")" = 18446744073709551615
'

test_expect_success 'every count in thousands as the budget is: characters 37,523 beside 300,000' '
	awk "BEGIN { while (n++ < 37523) printf \"x\" }" >big &&
	hermes chat --title big -q - --no-agent -Q <big &&
	hermes sessions stats big >out &&
	grep "^characters:   37,523\$" out &&
	grep "^in context:   37,523 characters " out &&
	grep "^budget:       300,000 characters\$" out &&
	bytes=$(wc -c <"$HERMES_HOME/sessions/$(only_id).json" | tr -d " ") &&
	grep "^bytes:        $(printf "%s" "$bytes" | sed -e :a -e "s/\([0-9]\)\([0-9]\{3\}\)\(,\|\$\)/\1,\2\3/; ta")\$" out &&
	hermes sessions stats >all &&
	grep "^bytes:        [0-9][0-9],[0-9][0-9][0-9]\$" all &&
	hermes sessions stats big --json >json &&
	test "$(json_get json "v[\"chars\"]")" = 37523
'

test_expect_success 'stats takes one session name at most' '
	test_expect_code 2 hermes sessions stats all two 2>err &&
	grep "^hermes: sessions stats: unexpected argument '"'two'"'" err &&
	test_expect_code 1 hermes sessions stats nosuch 2>err &&
	test_expect_code 2 hermes sessions stats --yes 2>err
'

test_done
