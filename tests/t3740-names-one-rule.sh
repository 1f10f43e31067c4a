#!/bin/sh
test_description='one rule for names: a name that could mean two sessions (a title and a short ID, a title and an ID prefix) is ambiguous everywhere'
. "$(dirname "$0")/lib.sh"

# Two sessions: one whose ID ends in dddddd, one titled "dddddd".
shadowed() {
	mk_session 20200101_000000_dddddd t4 user 1577837000 / user x &&
	mk_session 20200101_000000_eeeee4 dddddd user 1577837100 / user y
}

test_expect_success 'a title equal to another session'"'"'s 6-hex suffix is ambiguous for every verb; nothing is done' '
	shadowed &&
	cat >expect <<-\EOF &&
	hermes: '"'dddddd'"' could mean 2 sessions: it is a title and also a short ID; nothing was done. Name one by its full ID:
	  20200101_000000_eeeee4  2020-01-01 00:05  dddddd  (has that title)
	  20200101_000000_dddddd  2020-01-01 00:03  t4  (has an ID it abbreviates)
	EOF
	for cmd in "sessions delete --yes" "sessions show" "sessions export" "sessions rename" "chat -c"; do
		case $cmd in
		*rename) set -- x ;;
		chat*) set -- -q hi --no-agent ;;
		*) set -- ;;
		esac &&
		test_expect_code 1 hermes $cmd dddddd "$@" </dev/null >out 2>err &&
		test_must_be_empty out &&
		test_cmp expect err || { echo "in: $cmd" >&2; return 1; }
	done &&
	test "$(session_count)" = 2 &&
	test "$(field 20200101_000000_eeeee4 title)" = dddddd &&
	messages 20200101_000000_dddddd >actual &&
	echo "user: x" >expect &&
	test_cmp expect actual
'

test_expect_success 'import frees a title that is another session'"'"'s short ID, with a warning, in either order' '
	b="\"format\":1,\"title_source\":\"user\",\"created_at\":1000.0,\"updated_at\":1000.0,\"cwd\":\"/\",\"message_count\":1,\"preview\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"ts\":1000.0}]" &&
	printf "{\"id\":\"20200101_000000_dddddd\",\"title\":\"t4\",%s}\n{\"id\":\"20200101_000000_eeeee4\",\"title\":\"dddddd\",%s}\n" "$b" "$b" >x.jsonl &&
	hermes sessions import x.jsonl 2>err &&
	cat >expect <<-\EOF &&
	hermes: warning: session 20200101_000000_eeeee4: the title '"'dddddd'"' has the shape of a short session ID (6 hex digits), which a title must not have; imported as '"'dddddd (2)'"'
	imported 2 sessions, skipped 0 that already existed
	EOF
	test_cmp expect err &&
	test "$(field 20200101_000000_eeeee4 title)" = "dddddd (2)" &&
	hermes sessions show dddddd >out &&
	head -1 out >actual && echo t4 >expect && test_cmp expect actual &&
	sed "1!G;h;\$!d" x.jsonl >reversed.jsonl &&
	HERMES_HOME=$TRASH/reversed hermes sessions import reversed.jsonl 2>err &&
	grep "imported as '"'dddddd (2)'"'" err
'

test_expect_success 'each session stays reachable by its full ID' '
	shadowed &&
	hermes sessions show 20200101_000000_dddddd >out &&
	head -1 out >actual && echo t4 >expect && test_cmp expect actual &&
	hermes sessions show 20200101_000000_eeeee4 >out &&
	head -1 out >actual && echo dddddd >expect && test_cmp expect actual &&
	hermes chat -r dddddd -q "by -r" --no-agent -Q &&
	messages 20200101_000000_dddddd >actual &&
	printf "%s\n" "user: x" "user: by -r" >expect &&
	test_cmp expect actual
'

test_expect_success 'a title equal to an 8+ character ID prefix of another session is ambiguous too' '
	mk_session 20261203_120000_abcdef one user 1796300000 / user x &&
	mk_session 20261203_130000_abcde0 20261203_1 user 1796300100 / user y &&
	test_expect_code 1 hermes sessions show 20261203_1 >out 2>err &&
	grep "could mean 2 sessions" err &&
	grep "20261203_120000_abcdef  .*  one  (has an ID it abbreviates)" err &&
	grep "20261203_130000_abcde0  .*  20261203_1  (has that title)" err
'

test_expect_success 'a title that is its own session'"'"'s short ID is no ambiguity' '
	mk_session 20200101_000000_dddddd dddddd user 1577837000 / user x &&
	hermes sessions show dddddd >out &&
	head -1 out >actual && echo dddddd >expect && test_cmp expect actual
'

test_expect_success '/continue follows the same rule' '
	shadowed &&
	{ printf "/continue dddddd\n"; sleep 1; printf "/quit\n"; } |
	run_in_pty "hermes chat --no-agent" >transcript &&
	grep "could mean 2 sessions" transcript &&
	test "$(session_count)" = 2
'

test_expect_success 'a short-ID-shaped title is allowed (hex words are words) and reachable when unique' '
	hermes chat --title decade -q "about decade" --no-agent -Q &&
	hermes sessions show decade >out &&
	head -1 out >actual && echo decade >expect && test_cmp expect actual
'

test_expect_success 'a title shaped like a full ID is refused everywhere a title enters' '
	mk_session 20200101_000000_aaaaaa a user 1577837000 / user x &&
	test_expect_code 2 hermes sessions rename a 20261203_101010_abcdef 2>err &&
	grep "shape of a session ID" err &&
	test_expect_code 2 hermes chat --title 20261203_101010_abcdef -q x --no-agent 2>err &&
	grep "shape of a session ID" err &&
	test_expect_code 2 hermes chat -c 20261203_101010_abcdef --create-if-missing -q x --no-agent 2>err &&
	grep "shape of a session ID" err &&
	b="\"format\":1,\"title_source\":\"user\",\"created_at\":1000.0,\"updated_at\":1000.0,\"cwd\":\"/\",\"message_count\":1,\"preview\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"ts\":1000.0}]" &&
	printf "{\"id\":\"20200101_000000_bbbbbb\",\"title\":\"20261203_101010_abcdef\",%s}\n" "$b" >x.jsonl &&
	hermes sessions import x.jsonl 2>err &&
	test "$(field 20200101_000000_bbbbbb title)" != 20261203_101010_abcdef &&
	test "$(session_count)" = 2
'

test_done
