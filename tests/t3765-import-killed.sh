#!/bin/sh
test_description='sessions import killed midway (SIGKILL) leaves the temporaries of its batch; the next import, or prune, recognises and removes them, and every session is imported whole'
. "$(dirname "$0")/lib.sh"

# temporaries: how many temporary files sessions/ holds.
temporaries() {
	ls -A "$HERMES_HOME/sessions" | grep -c "\.tmp$"
}

# stopped_for_certain PID: wait (at most 10 s) until PID is seen stopped,
# or gone.
stopped_for_certain() {
	tries=0
	while test $tries -lt 1000; do
		state=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
		case $state in T*) return 0 ;; esac
		sleep 0.01
		tries=$((tries + 1))
	done
}

# killed_import FILE: sessions import FILE in the background, killed
# (SIGKILL) once its first temporaries are in sessions/ (looked for as
# fast as the shell can, not after any time); how many there were then is
# in $left. Tries again in a fresh store should the import end before any
# is seen; skips the test when it never catches one.
killed_import() {
	for attempt in 1 2 3; do
		rm -rf "$HERMES_HOME" &&
		mkdir -m 700 "$HERMES_HOME" "$HERMES_HOME/sessions" || return 1
		hermes sessions import "$1" >/dev/null 2>&1 &
		import_pid=$!
		while kill -0 $import_pid 2>/dev/null && test "$(temporaries)" = 0; do
			:
		done
		kill -STOP $import_pid 2>/dev/null
		# Stopped for certain before counting: on another CPU it may
		# still rename a temporary for a moment after the signal is sent.
		stopped_for_certain $import_pid
		left=$(temporaries)
		kill -KILL $import_pid 2>/dev/null
		wait $import_pid
		test "$left" -gt 0 && return 0
	done
	test_skip "the import never showed a temporary file before it ended"
}

test_expect_success 'SIGKILL mid-import, then import again: its temporaries removed, every session imported' '
	gen_sessions 6000 >all.jsonl &&
	killed_import all.jsonl &&
	test "$(temporaries)" = "$left" &&
	hermes sessions import all.jsonl >out 2>err &&
	grep "^removed $left temporary files\{0,1\} that an interrupted import or write left$" err &&
	test "$(temporaries)" = 0 &&
	test "$(session_count)" = 6000 &&
	hermes sessions list --all --json >list.json &&
	json_get list.json "len(v)" >count &&
	echo 6000 >expect &&
	test_cmp expect count
'

test_expect_success 'SIGKILL mid-import, then prune: the temporaries removed, what was imported kept' '
	gen_sessions 6000 >all.jsonl &&
	killed_import all.jsonl &&
	# (session_count fails when it counts none: the first batch was killed.)
	{ imported=$(session_count) || :; } &&
	hermes sessions prune --older-than 100000 --yes >out 2>err &&
	test "$(temporaries)" = 0 &&
	test "$(session_count)" = "$imported"
'

# hold_session_lock ID: hold session ID's lock (its byte of
# $HERMES_HOME/.lock, as src/store/lock.rs chooses it), as a hermes
# writing that session does; say so in "held"; let go when "release"
# appears (or after 60 s).
hold_session_lock() {
	python3 - "$HERMES_HOME/.lock" "$1" <<-\EOF
	import fcntl, os, sys, time
	h = 0xcbf29ce484222325
	for b in sys.argv[2].encode():
	    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
	fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
	fcntl.lockf(fd, fcntl.LOCK_EX, 1, 1 + h % (1 << 20), 0)
	open("held", "w").close()
	deadline = time.time() + 60
	while not os.path.exists("release") and time.time() < deadline:
	    time.sleep(0.05)
	EOF
}

test_expect_success PYTHON3 'an import leaves alone the temporary of a write in progress (its session locked)' '
	S=$(mk busy) &&
	temp=".$S.json.0123456789ab.tmp" &&
	echo partial >"$HERMES_HOME/sessions/$temp" || exit 1
	hold_session_lock "$S" &
	holder=$!
	wait_for_file held &&
	gen_sessions 3 >few.jsonl &&
	hermes sessions import few.jsonl 2>err &&
	touch release &&
	wait $holder &&
	test -f "$HERMES_HOME/sessions/$temp" &&
	! grep "^removed" err &&
	hermes sessions import few.jsonl 2>err &&
	grep "^removed 1 temporary file that an interrupted import or write left$" err &&
	! test -e "$HERMES_HOME/sessions/$temp"
'

test_done
