#!/bin/sh
test_description='SIGKILL at random moments never leaves a torn session or loses a committed message'
. "$(dirname "$0")/lib.sh"

# How hard to try. make check keeps it short; for a long run by hand:
#   HERMES_CRASH_ROUNDS=5000 HERMES_CRASH_SECONDS=600 sh tests/t4010-crash-safety.sh
rounds=${HERMES_CRASH_ROUNDS:-300}
seconds=${HERMES_CRASH_SECONDS:-20}
# Under qemu-user a command takes several times as long, and the sh
# wrapper, qemu's start and its translating the code come before hermes's
# first write: the kills are spread ten times as wide, so that many still
# land midway through a write (36 of 292 left a temporary, measured on
# s390x), and the loops get four times as long to land enough of them.
slowdown=1
if test -n "${HERMES_TEST_EMULATED:-}"; then
	slowdown=10
	seconds=${HERMES_CRASH_SECONDS:-80}
fi

# The store the crash loop leaves behind, examined by the later tests.
CRASH_HOME=$TRASH_ROOT/crash-home

# kill_loop NAME KIND: $rounds times (or until $seconds are up), start one
# hermes command of KIND, SIGKILL it after a random 0-30 ms ($slowdown times
# that under qemu), and check that the session file still parses. Writes NAME.committed (messages whose
# command exited 0), NAME.killed (one line per kill that landed) and
# NAME.bad (anything that must not happen).
kill_loop() {
	awk -v seed="$$$1" -v n="$rounds" -v slowdown="$slowdown" \
		'BEGIN { srand(seed); for (i = 1; i <= n; i++) printf "%d %.3f\n", i, rand() * 0.030 * slowdown }' >"$1.delays"
	: >"$1.committed"
	: >"$1.killed"
	: >"$1.bad"
	end=$(($(date +%s) + seconds))
	while read -r r delay; do
		test "$(date +%s)" -lt $end || break
		msg="$1-$r"
		case $2 in
		append) hermes chat -r "$id" -q "$msg" --no-agent -Q 2>>"$1.err" & ;;
		create) hermes chat -q "$msg" --no-agent -Q 2>>"$1.err" & ;;
		rename) hermes sessions rename "$id" "$msg" 2>>"$1.err" & ;;
		esac
		pid=$!
		sleep "$delay"
		kill -9 $pid 2>/dev/null
		wait $pid
		rc=$?
		case $rc in
		0) echo "$msg" >>"$1.committed" ;;
		137) echo "$msg" >>"$1.killed" ;;
		*) echo "$msg: exit $rc" >>"$1.bad" ;;
		esac
		hermes sessions show "$id" --json >/dev/null 2>"$1.show.err" ||
			{ echo "after $msg: show failed" >>"$1.bad"; cat "$1.show.err" >>"$1.bad"; }
	done <"$1.delays"
}

test_expect_success 'SIGKILL hundreds of appends, creations and renames at random moments' '
	HERMES_HOME=$CRASH_HOME &&
	# A long session makes every rewrite slow enough to be caught midway.
	head -c 1048576 /dev/zero | tr "\0" "x" | hermes chat -q - --no-agent -Q &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	test -n "$id" &&
	echo "$id" >"$TRASH_ROOT/crash-id" &&
	{ kill_loop a1 append & } && p1=$! &&
	{ kill_loop a2 append & } && p2=$! &&
	{ kill_loop c1 create & } && p3=$! &&
	kill_loop r1 rename &&
	wait $p1 && wait $p2 && wait $p3 &&
	cat a1.bad a2.bad c1.bad r1.bad >bad &&
	test_must_be_empty bad &&
	cat a1.killed a2.killed c1.killed r1.killed >killed &&
	cat a1.committed a2.committed >committed &&
	kills=$(wc -l <killed | tr -d " ") &&
	strays=$(ls -a "$HERMES_HOME/sessions" | grep -c "\.tmp\$") &&
	figure "t4010: $kills SIGKILLs landed (appends $(cat a1.killed a2.killed | wc -l | tr -d " "), creations $(wc -l <c1.killed | tr -d " "), renames $(wc -l <r1.killed | tr -d " ")); $(wc -l <committed | tr -d " ") appends and $(wc -l <c1.committed | tr -d " ") creations committed; $strays stray temporaries left" &&
	# Enough kills to mean something even on a slow machine.
	test "$kills" -ge 100 &&
	cp committed c1.committed "$TRASH_ROOT/"
'

test_expect_success 'every message whose command exited 0 is in the session' '
	HERMES_HOME=$CRASH_HOME &&
	id=$(cat "$TRASH_ROOT/crash-id") &&
	hermes sessions show "$id" --json >s.json &&
	json_get s.json "[m[\"content\"] for m in v[\"messages\"]]" >contents &&
	grep "^a[12]-[0-9]*\$" contents | sort >present &&
	sort "$TRASH_ROOT/committed" >committed &&
	comm -23 committed present >lost &&
	figure "t4010: messages lost: $(wc -l <lost | tr -d " ") of $(wc -l <committed | tr -d " ") committed appends" &&
	test_must_be_empty lost &&
	# No message twice, and the header counts what the file holds.
	sort present | uniq -d >dups &&
	test_must_be_empty dups &&
	json_get s.json "[v[\"message_count\"], len(v[\"messages\"])]" >counts &&
	test "$(sed -n 1p counts)" = "$(sed -n 2p counts)"
'

test_expect_success 'every committed new session exists, and every session file parses' '
	HERMES_HOME=$CRASH_HOME &&
	hermes sessions list --all --json >list.json 2>list.err &&
	test_must_be_empty list.err &&
	json_get list.json "[s[\"preview\"] for s in v]" >previews &&
	while read -r msg; do
		grep -qxF "$msg" previews || { echo "lost session $msg"; return 1; }
	done <"$TRASH_ROOT/c1.committed" &&
	files=0 &&
	for f in "$HERMES_HOME"/sessions/*.json; do
		id=$(basename "$f" .json) &&
		{ hermes sessions show "$id" --json >s.json && json_valid s.json; } ||
			{ echo "unreadable: $f"; return 1; }
		files=$((files + 1))
	done &&
	figure "t4010: $files session files checked, all parse" &&
	test "$files" = "$(session_count)"
'

test_expect_success PYTHON3 'every session file is valid JSON to an independent parser' '
	HERMES_HOME=$CRASH_HOME &&
	python3 - "$HERMES_HOME/sessions" <<-\EOF
	import json, os, sys
	d = sys.argv[1]
	for name in sorted(os.listdir(d)):
	    if name.endswith(".tmp"):
	        continue
	    with open(os.path.join(d, name), "rb") as f:
	        doc = json.loads(f.read().decode("utf-8"))
	    assert doc["format"] == 1, name
	    assert doc["message_count"] == len(doc["messages"]), name
	EOF
'

test_expect_success 'stray temporaries are ignored by list and pruned once an hour old' '
	HERMES_HOME=$CRASH_HOME &&
	s=$HERMES_HOME/sessions &&
	id=$(cat "$TRASH_ROOT/crash-id") &&
	# Whatever the kills left, plus one of each age for certain.
	cp "$s/$id.json" "$s/.$id.json.0123456789ab.tmp" &&
	head -c 100 "$s/$id.json" >"$s/.$id.json.ba9876543210.tmp" &&
	ls -a "$s" | grep "\.tmp\$" >all-temps &&
	for t in $(cat all-temps); do touch -d "2 hours ago" "$s/$t" || return 1; done &&
	: >"$s/.$id.json.fresh0000000.tmp" &&
	hermes sessions list --all >list.out 2>list.err &&
	test_must_be_empty list.err &&
	test "$(wc -l <list.out)" = "$(session_count)" &&
	! grep "\.tmp" list.out &&
	before=$(session_count) &&
	hermes sessions prune --older-than 36500 --yes 2>prune.err &&
	cat prune.err &&
	grep "$(wc -l <all-temps | tr -d " ") temporary files" prune.err &&
	ls -a "$s" | grep "\.tmp\$" >left &&
	echo ".$id.json.fresh0000000.tmp" >expect &&
	test_cmp expect left &&
	test "$(session_count)" = "$before"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
