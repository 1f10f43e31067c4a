#!/bin/sh
test_description='escape sequences shown nowhere; a full disk, a read-only home and few descriptors lose nothing and leave no temporary'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq MOUNT '
	test "$(id -u)" = 0 && d=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d" && umount "$d"; rc=$?; rmdir "$d"; exit $rc
'

# A session whose title and message hold OSC 52 (clipboard), OSC 8, CSI 2J,
# a C1 CSI and a bidi override, as a hand-edited or synced file may.
hostile() {
	mk_session 20261203_000000_aaaaaa 'evil\u001b]52;c;aGk=\u0007 \u001b]8;;http://e\u001b\\ \u009b2J \u202erev' user 1796300000 / \
		user 'hi \u001b]52;c;aGk=\u0007 \u001b[2J \u009b31m \u001b]8;;http://e\u001b\\link'
}

no_escapes() { # FILE: no ESC, BEL or C1 CSI byte in it, but hermes's own
	# SGR colours and the line editor's bracketed paste and cursor query
	sed -e "s/$(printf '\033')\[[0-9;]*m//g" -e "s/$(printf '\033')\[?2004[hl]//g" \
		-e "s/$(printf '\033')\[6n//g" "$1" >stripped &&
	! grep -q "$(printf '\033')" stripped &&
	! grep -q "$(printf '\007')" stripped &&
	! grep -q "$(printf '\302\233')" stripped
}

test_expect_success 'the tty list, the piped list, search snippets and the resume line show them, never obey them' '
	hostile &&
	run_in_pty "hermes sessions list" >tty-list && no_escapes tty-list &&
	grep -F "evil^[]52" tty-list &&
	hermes sessions list --all >piped-list && no_escapes piped-list &&
	run_in_pty "hermes sessions search hi" >tty-search && no_escapes tty-search &&
	hermes sessions search hi >piped-search && no_escapes piped-search &&
	run_in_pty "hermes sessions show aaaaaa" >tty-show && no_escapes tty-show &&
	{ sleep 1; printf "/quit\n"; } | run_in_pty "hermes chat -r aaaaaa --no-agent" >tty-resume &&
	no_escapes tty-resume &&
	grep "Resuming" tty-resume
'

test_expect_success 'what completion reads (sessions list --all) holds no escape either, and no bidi override' '
	hostile &&
	hermes sessions list --all | cut -f2 >titles &&
	no_escapes titles &&
	! grep -q "$(printf "\342\200\256")" titles
'

test_expect_success MOUNT 'a full disk: a clear error (exit 4), the session whole, no temporary left' '
	mkdir fd && mount -t tmpfs -o size=1m tmpfs fd &&
	HERMES_HOME=$PWD/fd/h && export HERMES_HOME &&
	{
		hermes chat --title small -q hi --no-agent -Q &&
		awk "BEGIN { for (i = 0; i < 9000; i++) printf \"%s\", \"0123456789012345678901234567890123456789012345678901234567890123\" }" >q.txt &&
		hermes chat -c small -q - --no-agent -Q <q.txt &&
		test_expect_code 4 hermes chat -c small -q - --no-agent -Q <q.txt 2>err &&
		grep "No space left on device" err &&
		test_expect_code 4 hermes sessions rename small small2 2>err &&
		grep "No space left on device" err &&
		ls "$HERMES_HOME/sessions" >files &&
		test_line_count = 1 files &&
		test "$(hermes sessions show small | sed -n "s/.*messages: \([0-9]*\).*/\1/p")" = 2
	}; rc=$?; umount fd; test $rc = 0
'

test_expect_success MOUNT 'a read-only home: a clear error (exit 4), nothing changed' '
	hermes chat --title r -q hi --no-agent -Q &&
	before=$(cat "$HERMES_HOME"/sessions/*.json) &&
	mount --bind "$HERMES_HOME" "$HERMES_HOME" && mount -o remount,ro,bind "$HERMES_HOME" &&
	{
		test_expect_code 4 hermes chat -c r -q x --no-agent -Q 2>err &&
		grep "Read-only file system" err &&
		test_expect_code 4 hermes sessions rename r r2 2>err &&
		grep "Read-only file system" err
	}; rc=$?; umount "$HERMES_HOME"; test $rc = 0 &&
	test "$(cat "$HERMES_HOME"/sessions/*.json)" = "$before"
'

few_fds() { # COMMAND...: run with at most eight open descriptors
	(ulimit -n 8 && exec "$@") </dev/null >/dev/null 2>&1
}

test_expect_success 'eight descriptors: append, rename, merge and import still work' '
	test_native "the sh wrapper that starts qemu cannot even open its own script with eight descriptors, and qemu holds some of its own" &&
	hermes chat --title u -q hi --no-agent -Q &&
	id=$(session_id_by_title u) &&
	hermes sessions export u --format jsonl >u.jsonl &&
	cp "$HERMES_HOME/sessions/$id.json" "$HERMES_HOME/sessions/$id.json~" &&
	few_fds hermes chat -c u -q more --no-agent -Q &&
	few_fds hermes sessions rename u u2 &&
	few_fds hermes sessions merge --yes &&
	few_fds hermes sessions import u.jsonl &&
	test "$(field "$id" title)" = u2 &&
	! test -e "$HERMES_HOME/sessions/$id.json~" &&
	ls "$HERMES_HOME/sessions" >files && test_line_count = 1 files
'

test_done
