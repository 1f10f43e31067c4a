#!/bin/sh
test_description='corrupt, huge and newer-format session files: skipped with a warning, refused with exit 4, never touched'
. "$(dirname "$0")/lib.sh"

# Bad files all have well-formed ID names, so nothing filters them out by
# name: the content alone must be judged.
BAD_EMPTY=20260101_000000_000001
BAD_TRUNCATED=20260101_000000_000002
BAD_UTF8_HEADER=20260101_000000_000003
BAD_UTF8_BODY=20260101_000000_000004
BAD_SCHEMA=20260101_000000_000005
BAD_ARRAY=20260101_000000_000006
BAD_HUGE_ZEROS=20260101_000000_000007
BAD_HUGE_SESSION=20260101_000000_000008
BAD_INFINITE=20260101_000000_00000a
FUTURE=20260101_000000_000009

# Every file except the 300 MiB ones; those are compared separately.
SMALL_BAD="$BAD_EMPTY $BAD_TRUNCATED $BAD_UTF8_HEADER $BAD_UTF8_BODY $BAD_SCHEMA $BAD_ARRAY $BAD_INFINITE"
ALL_BAD="$SMALL_BAD $BAD_HUGE_ZEROS $BAD_HUGE_SESSION"

# plant_huge DIR: the two 300 MiB files, sparse: all zeros, and a header
# with a proper end.
plant_huge() {
	truncate -s 300M "$1/$BAD_HUGE_ZEROS.json" &&
	printf "{\"format\":1,\"id\":\"$BAD_HUGE_SESSION\",\"title\":\"huge\",\"messages\":[\\n" >"$1/$BAD_HUGE_SESSION.json" &&
	truncate -s 300M "$1/$BAD_HUGE_SESSION.json" &&
	printf "\\n]}\\n" >>"$1/$BAD_HUGE_SESSION.json"
}

# plant_zoo: in this test's own store, two healthy sessions and a zoo of bad
# files; a copy of each small bad file and the future one in $TRASH/orig,
# and the huge ones' inode, size, mtime and ctime in $TRASH/orig/huge.stat
# (reading 600 MiB to compare them would take seconds in every test). The
# store lies beside the test's trash directory, not in it: the harness reads
# every file there for a panic's words.
plant_zoo() {
	HERMES_HOME=$TRASH_ROOT/store-${TRASH##*/} &&
	hermes chat -q healthy --no-agent -Q &&
	hermes chat -q "also healthy" --agent "echo reply" -Q >/dev/null &&
	s=$HERMES_HOME/sessions &&
	good=$(ls "$s" | head -1) &&
	: >"$s/$BAD_EMPTY.json" &&
	head -c 150 "$s/$good" >"$s/$BAD_TRUNCATED.json" &&
	printf "{\"format\":1,\"id\":\"$BAD_UTF8_HEADER\",\"title\":\"bad\\377\",\"messages\":[\\n]}\\n" >"$s/$BAD_UTF8_HEADER.json" &&
	printf "{\"format\":1,\"id\":\"$BAD_UTF8_BODY\",\"title\":\"body\",\"messages\":[\\n{\"role\":\"user\",\"content\":\"x\\377\",\"ts\":1}\\n]}\\n" >"$s/$BAD_UTF8_BODY.json" &&
	printf "{\"format\":1,\"id\":42,\"messages\":[\\n]}\\n" >"$s/$BAD_SCHEMA.json" &&
	printf "[{\"format\":1,\"id\":\"$BAD_ARRAY\",\"messages\":[]}]\\n" >"$s/$BAD_ARRAY.json" &&
	printf "{\"format\":1,\"id\":\"$BAD_INFINITE\",\"title\":\"inf\",\"created_at\":1e999,\"messages\":[\\n]}\\n" >"$s/$BAD_INFINITE.json" &&
	plant_huge "$s" &&
	# A newer format, with fields this hermes does not know.
	printf "{\"format\":2,\"id\":\"$FUTURE\",\"title\":\"future\",\"labels\":[\"a\"],\"created_at\":1,\"updated_at\":2,\"message_count\":1,\"messages\":[\\n{\"role\":\"user\",\"content\":\"from the future\",\"ts\":1,\"tokens\":3}\\n]}\\n" >"$s/$FUTURE.json" &&
	mkdir "$TRASH/orig" &&
	for id in $SMALL_BAD $FUTURE; do
		cp "$s/$id.json" "$TRASH/orig/" || return 1
	done &&
	huge_stat >"$TRASH/orig/huge.stat"
}

# huge_stat: what a write, a rename over or a chmod of a huge file changes.
huge_stat() {
	for id in $BAD_HUGE_ZEROS $BAD_HUGE_SESSION; do
		stat -c "%n %i %s %y %z" "$HERMES_HOME/sessions/$id.json" || return 1
	done
}

# unchanged: every small bad file and the future one byte-for-byte as
# planted; the huge ones not written, replaced or chmod-ed since.
unchanged() {
	for id in $SMALL_BAD $FUTURE; do
		cmp "$TRASH/orig/$id.json" "$HERMES_HOME/sessions/$id.json" || return 1
	done &&
	huge_stat >huge.stat &&
	test_cmp "$TRASH/orig/huge.stat" huge.stat
}

test_expect_success 'list shows the healthy and the future session, warns naming each bad file, exits 0' '
	plant_zoo &&
	hermes sessions list --all >out 2>err &&
	cut -f2 out | sort >titles &&
	# Damage confined to the messages (bad UTF-8 in a message) makes the
	# file as damaged as a broken header.
	printf "%s\n" "also healthy" future healthy >expect &&
	test_cmp expect titles &&
	warned=0 &&
	for id in $ALL_BAD; do
		grep "^hermes: warning: $HERMES_HOME/sessions/$id.json: not a valid session file (.*); skipped" err ||
			{ echo "no warning for $id"; return 1; }
		warned=$((warned + 1))
	done &&
	test_line_count = $warned err &&
	# Those whose ID and title read keep their title, and say how to mend
	# them: damage in a message, a time out of range in the header.
	grep "$BAD_UTF8_BODY.json: not a valid session file (message 1: .*); skipped, though it keeps its title .body.. To keep its readable messages: hermes sessions repair $BAD_UTF8_BODY " err &&
	grep "$BAD_INFINITE.json: not a valid session file (a time is out of range); skipped, though it keeps its title .inf.. To keep its readable messages: hermes sessions repair $BAD_INFINITE " err &&
	test "$(grep -c "sessions repair" err)" = 2 &&
	figure "t4030: list: 3 sessions listed, $warned bad files (2 whose ID and title read) each named in a warning, exit 0" &&
	unchanged
'

test_expect_success 'list --json stays valid JSON, warnings on stderr only' '
	plant_zoo &&
	hermes sessions list --all --json >out 2>err &&
	json_get out "sorted(s[\"title\"] for s in v)" >titles &&
	printf "%s\n" "also healthy" future healthy >expect &&
	test_cmp expect titles &&
	test -s err &&
	! grep warning out
'

test_expect_success 'a breadcrumb to a bad session: list still lists, marks nothing; -c and current exit 4' '
	plant_zoo &&
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	crumb=$HERMES_HOME/terminal-sessions/tmux_pane--9.$MACHINE.json &&
	TMUX_PANE=%9 hermes chat -c healthy -q "to make a breadcrumb" --no-agent -Q &&
	sed "s/\"session_id\":\"[^\"]*\"/\"session_id\":\"$BAD_TRUNCATED\"/" "$crumb" >crumb.tmp &&
	mv crumb.tmp "$crumb" &&
	TMUX_PANE=%9 hermes sessions list --all >out 2>err &&
	test_line_count = 3 out &&
	! grep "^\*" out &&
	grep "$BAD_TRUNCATED.json: not a valid session file" err &&
	TMUX_PANE=%9 hermes sessions list --all --json >out &&
	test "$(json_get out "[s[\"current\"] for s in v]" | sort -u)" = false &&
	test_expect_code 4 env TMUX_PANE=%9 hermes chat -c -q x --no-agent -Q &&
	test_expect_code 4 env TMUX_PANE=%9 hermes sessions current &&
	rm "$crumb" &&
	unchanged
'

test_expect_success 'every command that needs a bad session exits 4 and leaves it untouched' '
	plant_zoo &&
	runs=0 &&
	for id in $ALL_BAD; do
		test_expect_code 4 hermes sessions show "$id" 2>err &&
		case $id in
		$BAD_UTF8_BODY | $BAD_INFINITE) grep "^hermes: $HERMES_HOME/sessions/$id.json: not a valid session file (.*); nothing was written to it. To keep its readable messages: hermes sessions repair $id (it copies the file aside first, byte for byte)\$" err ;;
		*) grep "^hermes: $HERMES_HOME/sessions/$id.json: not a valid session file (.*); left untouched\$" err ;;
		esac &&
		test_expect_code 4 hermes sessions show "$id" --json &&
		test_expect_code 4 hermes chat -r "$id" -q x --no-agent -Q &&
		test_expect_code 4 hermes chat -c "$id" -q x --agent "echo reply" -Q &&
		test_expect_code 4 hermes sessions rename "$id" "new title" &&
		test_expect_code 4 hermes sessions export "$id" -o "$TRASH/export.json" &&
		runs=$((runs + 6)) || { echo "failed for $id"; return 1; }
	done &&
	# By title too, as its header is readable (only a message is
	# damaged): refused, never "not found", never a second "body".
	test_expect_code 4 hermes chat -c body -q x --no-agent -Q 2>err &&
	grep "^hermes: $HERMES_HOME/sessions/$BAD_UTF8_BODY.json: not a valid session file (message 1: .*); nothing was written to it. To keep its readable messages: hermes sessions repair $BAD_UTF8_BODY" err &&
	test_expect_code 4 hermes chat -c body --create-if-missing -q x --no-agent -Q &&
	test_expect_code 4 hermes sessions rename body "new title" &&
	# A name found nowhere names the damaged files before saying so.
	test_expect_code 1 hermes chat -c nowhere -q x --no-agent -Q 2>err &&
	grep "^hermes: warning: $HERMES_HOME/sessions/$BAD_EMPTY.json: not a valid session file (.*); skipped\$" err &&
	test "$(tail -n 3 err | head -n 1)" = "No session found matching '"'"'nowhere'"'"'." &&
	figure "t4030: $runs commands on 9 bad files: all exit 4 with the path named, every file unchanged" &&
	! test -e "$TRASH/export.json" &&
	unchanged &&
	test "$(session_count)" = 12
'

test_expect_success 'export of everything holds the rest, names each bad file, and says it is incomplete' '
	plant_zoo &&
	test_expect_code 4 hermes sessions export --format jsonl >all.jsonl 2>err &&
	test_line_count = 3 all.jsonl &&
	for id in $ALL_BAD; do
		grep "^hermes: warning: $HERMES_HOME/sessions/$id.json: not a valid session file (.*); not exported\$" err ||
			{ echo "not named: $id"; return 1; }
	done &&
	grep "^hermes: 9 damaged sessions could not be exported" err &&
	test_expect_code 4 hermes sessions export --format json -o all.json 2>err &&
	grep -c "^{\"format\"" all.json >n &&
	echo 3 >expect &&
	test_cmp expect n &&
	unchanged
'

test_expect_success 'stats and prune skip bad files and keep them' '
	plant_zoo &&
	hermes sessions stats >/dev/null 2>&1 &&
	hermes sessions prune --older-than 36500 --yes 2>err &&
	grep "$BAD_SCHEMA.json" err &&
	unchanged &&
	test "$(session_count)" = 12
'

test_expect_success 'a newer-format session is shown but never rewritten' '
	plant_zoo &&
	hermes sessions show future >out &&
	grep "from the future" out &&
	test_expect_code 4 hermes chat -r "$FUTURE" -q more --no-agent -Q 2>err &&
	cat >expect <<-EOF &&
	hermes: $HERMES_HOME/sessions/$FUTURE.json: written in format 2 by a newer hermes; this one understands format 1 and will not modify it
	EOF
	test_cmp expect err &&
	test_expect_code 4 hermes chat -c future -q more --agent "echo reply" -Q &&
	test_expect_code 4 hermes sessions rename future renamed &&
	unchanged
'

test_expect_success 'the healthy sessions still work beside them' '
	plant_zoo &&
	hermes chat -c healthy -q again --no-agent -Q &&
	show_contents healthy >contents &&
	printf "healthy\nagain\n" >expect &&
	test_cmp expect contents &&
	unchanged
'

test_expect_success 'a copy under another ID is invalid: commands on it never touch the original' '
	hermes chat -q original --no-agent -Q &&
	orig=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	copy=20200101_000000_c0ffee &&
	cp "$HERMES_HOME/sessions/$orig.json" "$HERMES_HOME/sessions/$copy.json" &&
	cp "$HERMES_HOME/sessions/$orig.json" orig.before &&
	cp "$HERMES_HOME/sessions/$copy.json" copy.before &&
	test_expect_code 4 hermes chat -r "$copy" -q "meant for the copy" --no-agent -Q 2>err &&
	grep "$copy.json: not a valid session file (it says it is session .$orig." err &&
	test_expect_code 4 hermes sessions rename "$copy" "new title" &&
	test_expect_code 4 hermes sessions delete "$copy" --yes &&
	test_expect_code 4 hermes sessions show "$copy" &&
	hermes sessions list >out 2>err &&
	test_line_count = 1 out &&
	grep "$copy.json: not a valid session file" err &&
	test_cmp orig.before "$HERMES_HOME/sessions/$orig.json" &&
	test_cmp copy.before "$HERMES_HOME/sessions/$copy.json"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
