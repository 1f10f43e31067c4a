#!/bin/sh
test_description='a lock held elsewhere for over 10 s is exit 4 naming the lock, never a hang'
. "$(dirname "$0")/lib.sh"

# hold_lock BYTE...: hold POSIX write locks on those bytes of
# $HERMES_HOME/.lock (as another hermes would) until the file "release"
# appears; "held" says they are taken. Gives up by itself after 60 s.
hold_lock() {
	python3 - "$HERMES_HOME/.lock" "$@" <<-\EOF
	import fcntl, os, sys, time
	fd = os.open(sys.argv[1], os.O_RDWR)
	for byte in sys.argv[2:]:
	    fcntl.lockf(fd, fcntl.LOCK_EX, 1, int(byte), 0)
	open("held", "w").close()
	deadline = time.time() + 60
	while not os.path.exists("release") and time.time() < deadline:
	    time.sleep(0.05)
	EOF
}

# The byte hermes locks for a session: 1 + fnv1a64(id) mod 2^20.
session_byte() {
	python3 -c '
import sys
h = 0xcbf29ce484222325
for b in sys.argv[1].encode():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print(1 + h % (1 << 20))' "$1"
}

test_expect_success PYTHON3 'held locks give exit 4 after 10 s naming the lock; the rest of the store goes on' '
	hermes chat -q one --no-agent -Q &&
	hermes chat -q two --no-agent -Q &&
	one=$(session_id_by_title one) &&
	two=$(session_id_by_title two) &&
	{ hold_lock 0 $(session_byte "$one") & } && holder=$! &&
	wait_for_file held 10 &&
	start=$(date +%s) &&
	# Both waits run at once, so the test costs 10 s, not 20.
	{ timeout 60 hermes chat -c x --create-if-missing -q hi --no-agent 2>err.create & } &&
	creating=$! &&
	{ timeout 60 hermes chat -r "$one" -q blocked --no-agent -Q 2>err.one & } &&
	appending=$! &&
	{ timeout 60 hermes chat -r "$one" -q blocked --no-agent --json >json.one 2>/dev/null & } &&
	answering=$! &&
	# Meanwhile what needs neither lock works, well before the 10 s are up.
	hermes chat -r "$two" -q free --no-agent -Q &&
	hermes sessions list >list 2>list.err &&
	test_must_be_empty list.err &&
	hermes sessions show "$one" >/dev/null &&
	kill -0 $creating && kill -0 $appending &&
	test_expect_code 4 wait $creating &&
	test_expect_code 4 wait $appending &&
	test_expect_code 4 wait $answering &&
	# --json: one object all the same, naming the session and the status.
	json_get json.one "[v[\"session_id\"], v[\"exit_status\"], v[\"error\"][:21]]" >actual &&
	printf "%s\n" "$one" 4 "timed out after 10s w" >expect &&
	test_cmp expect actual &&
	took=$(($(date +%s) - start)) &&
	touch release && wait $holder &&
	figure "t4020: store lock and session lock held elsewhere: both exit 4 after ${took}s; the other session, list and show stayed usable" &&
	cat >expect <<-EOF &&
	hermes: timed out after 10s waiting for the store lock ($HERMES_HOME/.lock); another hermes holds it
	EOF
	test_cmp expect err.create &&
	cat >expect <<-EOF &&
	hermes: timed out after 10s waiting for the lock of session $one ($HERMES_HOME/.lock); another hermes holds it
	EOF
	test_cmp expect err.one &&
	# They waited for the lock rather than giving up at once.
	test $took -ge 9 &&
	test "$(session_count)" = 2 &&
	show_contents "$one" >contents &&
	! grep blocked contents &&
	show_contents "$two" >contents &&
	grep -x free contents
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
