#!/bin/sh
test_description='chat -c NAME --create-if-missing racing sessions delete NAME: the session is looked up again and made; every poster gets 0 and its message is kept'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq STRACE_DELAY 'strace -o /dev/null -e inject=fcntl:delay_enter=1 true'

# user_messages ID: the user messages of session ID, one a line.
user_messages() {
	hermes sessions show "$1" --json | tr "{" "\n" | sed -n "s/^\"role\":\"user\",\"content\":\"\([^\"]*\)\".*/\1/p"
}

test_expect_success STRACE_DELAY 'a session deleted between the lookup and the append: created again, the message kept, exit 0' '
	test_native "strace sees the wrapper shell'"'"'s and qemu'"'"'s own fcntl calls: the first one it delays is not hermes'"'"'s lock" &&
	hermes chat -c nightly --create-if-missing -q seed --no-agent -Q &&
	# Which fcntl call of its process takes the first lock? Count them in a
	# dry run: musl sets FD_CLOEXEC with one after each open, glibc does not.
	strace -f -qq -o dry -e trace=$(syscalls fcntl) \
		hermes chat -c nightly --create-if-missing -q dry --no-agent -Q &&
	n=$(awk "{ split(\$2, call, \"(\"); k = \$1 \" \" call[1]; n[k]++ } /F_SETLK/ { print n[k]; exit }" dry) &&
	test -n "$n" &&
	old=$(session_id_by_title nightly) &&
	# The poster has found the session and opened the lock file; its
	# first lock (the session'"'"'s, for the append) waits 5 s, while the
	# session is deleted.
	{ strace -f -qq -o trace -e trace=$(syscalls open fcntl) \
		-e inject=$(syscalls fcntl):delay_enter=5000000:when=$n \
		hermes chat -c nightly --create-if-missing -q kept --no-agent >out 2>err & } &&
	poster=$! &&
	poll_until -t 20 grep -q "/\.lock\"" trace &&
	hermes sessions delete nightly --yes 2>deleted &&
	grep "^deleted $old" deleted &&
	wait $poster &&
	grep "F_SETLK.* (DELAYED)\$" trace &&
	new=$(session_id_by_title nightly) &&
	test -n "$new" && test "$new" != "$old" &&
	echo "session_id: $new" >expect &&
	test_cmp expect err &&
	echo kept >expect &&
	user_messages "$new" >actual &&
	test_cmp expect actual &&
	test "$(session_count)" = 1
'

test_expect_success '6 posters racing a delete, 10 rounds: every poster exits 0, no message twice, one session at most' '
	round=1 &&
	while test $round -le 10; do
		hermes chat -c nightly --create-if-missing -q "seed $round" --no-agent -Q &&
		pids= &&
		i=1 &&
		while test $i -le 6; do
			hermes chat -c nightly --create-if-missing -q "post $round.$i" --no-agent -Q 2>"err.$round.$i" &
			pids="$pids $!"
			i=$((i + 1))
		done &&
		hermes sessions delete nightly --yes 2>/dev/null
		deleter=$?
		failed=0 &&
		for pid in $pids; do
			wait $pid || failed=$((failed + 1))
		done &&
		test $failed = 0 || { cat err.$round.*; return 1; }
		# The delete found the session (it existed) unless a poster had it
		# locked past the lock timeout, which 6 short appends never do.
		test $deleter = 0 &&
		# What was posted after the delete is in the one session left.
		n=$(hermes sessions list --json | grep -c "\"title\":\"nightly\"" || :) &&
		test "$n" -le 1 &&
		if test "$n" = 1; then
			id=$(session_id_by_title nightly) &&
			user_messages "$id" >posted &&
			test "$(sort posted | uniq -d | wc -l)" = 0 &&
			! grep -v "^\(seed\|post\) $round" posted &&
			hermes sessions delete nightly --yes 2>/dev/null
		fi &&
		round=$((round + 1)) || return 1
	done
'

test_done
