#!/bin/sh
test_description='a message over 16 MiB or a title over 100 characters is a usage error, and nothing is written; sessions of 16 MiB messages stay in bounded memory'
. "$(dirname "$0")/lib.sh"

MIB=1048576

# bytes N: N bytes of "a" on stdout.
bytes() {
	head -c "$1" /dev/zero | tr "\0" a
}

# repeat N STRING: STRING N times.
repeat() {
	awk -v n="$1" -v s="$2" "BEGIN { for (i = 0; i < n; i++) printf \"%s\", s }"
}

# The state of the store: every file with its checksum.
store_state() {
	find "$HERMES_HOME" -type f -exec cksum {} + | sort
}

test_expect_success 'a 17 MiB message on stdin: exit 2, clear error, no session, no store' '
	bytes $((17 * MIB)) >big &&
	test_expect_code 2 hermes chat -q - --no-agent <big 2>err &&
	echo "hermes: the message is larger than 16 MiB; nothing was saved" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes chat --no-agent <big 2>err &&
	test_cmp expect err &&
	! test -e "$HERMES_HOME"
'

test_expect_success 'a 17 MiB message to an existing session: exit 2, the session untouched' '
	hermes chat -q first --no-agent -Q &&
	id=$(session_id_by_title first) &&
	store_state >before &&
	bytes $((17 * MIB)) >big &&
	test_expect_code 2 hermes chat -r "$id" -q - --agent "echo reply" <big 2>err &&
	grep "larger than 16 MiB" err &&
	test_expect_code 2 hermes chat -c first -q - --no-agent <big &&
	test_expect_code 2 hermes chat -c "new title" --create-if-missing --no-agent <big &&
	store_state >after &&
	test_cmp before after &&
	test "$(session_count)" = 1
'

test_expect_success 'one byte over 16 MiB is refused, exactly 16 MiB is kept whole' '
	bytes $((16 * MIB + 1)) >over &&
	test_expect_code 2 hermes chat -q - --no-agent <over &&
	! test -e "$HERMES_HOME/sessions" &&
	bytes $((16 * MIB)) >limit &&
	hermes chat -q - --no-agent -Q <limit &&
	test "$(session_count)" = 1 &&
	id=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	show_contents "$id" >contents &&
	# 16 MiB of a, and the line end json_get adds
	n=$(wc -c <contents) &&
	test "$n" = $((16 * MIB + 1)) &&
	test "$(tr -d a <contents)" = "" &&
	figure "t4080: 17 MiB and 16 MiB+1 messages: exit 2, nothing written; exactly 16 MiB: saved whole ($((n - 1)) bytes)"
'

test_expect_success 'a title of 101 characters: exit 2, nothing written' '
	title101=$(repeat 101 x) &&
	test_expect_code 2 hermes chat --title "$title101" -q hi --no-agent 2>err &&
	echo "hermes: title is 101 characters long; the limit is 100" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes chat -c "$title101" --create-if-missing -q hi --no-agent 2>err &&
	test_cmp expect err &&
	! test -e "$HERMES_HOME"
'

test_expect_success 'rename to 101 characters: exit 2, the session untouched' '
	hermes chat -q first --no-agent -Q &&
	store_state >before &&
	test_expect_code 2 hermes sessions rename first "$(repeat 101 x)" 2>err &&
	grep "title is 101 characters long; the limit is 100" err &&
	# characters, not bytes: 101 two-byte characters are too many too
	test_expect_code 2 hermes sessions rename first "$(repeat 101 é)" 2>err &&
	grep "title is 101 characters long" err &&
	store_state >after &&
	test_cmp before after
'

test_expect_success 'exactly 100 characters is a fine title, also in multibyte characters' '
	hermes chat --title "$(repeat 100 x)" -q hi --no-agent -Q &&
	hermes chat --title "$(repeat 100 é)" -q hi --no-agent -Q &&
	hermes sessions list --all >out &&
	grep "	$(repeat 100 x)	" out &&
	grep "	$(repeat 100 é)	" out &&
	figure "t4080: 101-character titles (ASCII and two-byte) refused with exit 2 by --title, -c --create-if-missing and rename; 100 accepted"
'

# GNU time(1) reports the peak resident set size of what it ran.
test_lazy_prereq GNU_TIME '/usr/bin/time -f %M -o /dev/null true'

test_expect_success GNU_TIME 'a turn and an append on a session of 16 MiB messages each stay under 32 MiB' '
	{
		printf "{\"format\":1,\"id\":\"20250601_120000_aaaaaa\",\"title\":\"huge messages\",\"title_source\":\"user\",\"created_at\":1748779200,\"updated_at\":1748779300,\"cwd\":\"/tmp\",\"message_count\":4,\"preview\":\"x\",\"messages\":[" &&
		for i in 0 1 2 3; do
			test $i = 0 || printf ","
			printf "{\"role\":\"%s\",\"content\":\"" "$(test $((i % 2)) = 0 && echo user || echo assistant)" &&
			head -c 16777000 /dev/zero | tr "\0" x &&
			printf "\",\"ts\":%d}" $((1748779200 + i)) || return 1
		done &&
		printf "]}\n"
	} >huge.jsonl &&
	hermes sessions import huge.jsonl 2>err &&
	# Under qemu-user the peak is qemu'"'"'s too (its translated code, its
	# own heap: some 11 MiB on s390x); what hermes --version peaks at there
	# is added to the limit.
	limit=32768 &&
	if test -n "${HERMES_TEST_EMULATED:-}"; then
		/usr/bin/time -f %M -o rss hermes --version >/dev/null &&
		limit=$((limit + $(tail -n 1 rss)))
	fi &&
	/usr/bin/time -f %M -o rss hermes chat -r 20250601_120000_aaaaaa -q x --agent "cat >/dev/null; echo ok" -Q >out &&
	echo ok >expect && test_cmp expect out &&
	turn=$(tail -n 1 rss) &&
	/usr/bin/time -f %M -o rss hermes chat -r 20250601_120000_aaaaaa -q y --no-agent -Q &&
	append=$(tail -n 1 rss) &&
	figure "t4080: peak RSS with four 16 MiB messages: a turn $turn KiB, an append $append KiB (limit $limit KiB)" &&
	test "$turn" -lt $limit &&
	test "$append" -lt $limit
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
