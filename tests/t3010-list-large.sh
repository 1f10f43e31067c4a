#!/bin/sh
test_description='sessions list beyond one page (10,000 rows): same rows, same order, nothing lost'
. "$(dirname "$0")/lib.sh"

test_expect_success 'set up 10,050 sessions' '
	gen_sessions 10050 >s.jsonl &&
	hermes sessions import s.jsonl 2>err &&
	grep "imported 10050 sessions" err &&
	cp -R "$HERMES_HOME" "$TRASH_ROOT/large-home"
'

test_expect_success '--all lists every session, newest first, exactly once' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --all >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 10050 out &&
	cut -f2 out >titles &&
	awk "BEGIN { for (i = 10049; i >= 0; i--) print \"t\" i }" >expect &&
	test_cmp expect titles
'

test_expect_success '--all --json holds every session, in the same order' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --all --json >out &&
	json_get out "[s[\"title\"] for s in v]" >titles &&
	awk "BEGIN { for (i = 10049; i >= 0; i--) print \"t\" i }" >expect &&
	test_cmp expect titles &&
	tail -c 2 out | od -c | grep "]  *\\\\n"
'

test_expect_success '--limit past one page cuts, and says so' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --limit 10040 >out 2>err &&
	test_line_count = 10040 out &&
	echo "(10040 of 10050 sessions shown; use --limit N or --all to see more)" >expect &&
	test_cmp expect err &&
	head -1 out | cut -f2 >first &&
	echo t10049 >expect &&
	test_cmp expect first
'

# strace(1) that can trace (ptrace may be forbidden).
test_lazy_prereq STRACE 'strace -f -o /dev/null true'

# session_file I: the file of session tI.
session_file() {
	printf "%s/sessions/20260101_%06d_%06x.json" "$HERMES_HOME" $(($1 / 60)) "$1"
}

test_expect_success 'the header index: files changed behind it are read again, the rest are not' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	# Settled files (older than the racy window) are what the index keeps.
	find "$HERMES_HOME/sessions" -name "*.json" -exec touch -d "1 hour ago" {} + &&
	hermes sessions list --all >before &&
	test -s "$HERMES_HOME/index" &&
	# In place, the same size: the inode stays, the mtime moves.
	f=$(session_file 5000) &&
	sed "s/\"title\":\"t5000\"/\"title\":\"x5000\"/" "$f" >edited &&
	cat edited >"$f" &&
	# Renamed over it, with the old size and mtime: only the inode differs.
	f=$(session_file 9000) &&
	sed "s/\"title\":\"t9000\"/\"title\":\"y9000\"/" "$f" >replaced &&
	touch -r "$f" replaced &&
	mv replaced "$f" &&
	rm "$(session_file 10049)" &&
	if test_have_prereq STRACE; then
		strace -f -e trace=$(syscalls open) -o trace hermes sessions list --all >after &&
		sed -n "s|.*/sessions/\([^\"]*\)\".*|\1|p" trace | sort -u >opened &&
		printf "%s\n" 20260101_000083_001388.json 20260101_000150_002328.json >expect &&
		test_cmp expect opened
	else
		hermes sessions list --all >after
	fi &&
	cut -f2 before | sed -e "s/^t5000\$/x5000/" -e "s/^t9000\$/y9000/" -e "/^t10049\$/d" >expect &&
	cut -f2 after >actual &&
	test_cmp expect actual
'

test_expect_success ROOT,SETPRIV,PRLIMIT,STRACE 'a large scan where no thread can be started: the same list, from the index' '
	test_native "qemu-user aborts where it cannot start a thread, instead of failing the guest'"'"'s clone with EAGAIN" &&
	# The index spreads its stat calls over threads; a user at the limit
	# of processes (as root is never) cannot start one, and the calling
	# thread stats every file itself.
	chmod 755 "$TRASH_ROOT" "$TRASH" &&
	cp -R "$TRASH_ROOT/large-home" lonely-home &&
	HERMES_HOME=$TRASH/lonely-home &&
	rm -f "$HERMES_HOME/index" &&
	find "$HERMES_HOME/sessions" -name "*.json" -exec touch -d "1 hour ago" {} + &&
	mkdir traces &&
	chown -R $LONELY_UID:$LONELY_UID "$HERMES_HOME" traces &&
	as_lonely_user 8 "$(lonely_hermes)" sessions list --all >expect &&
	test -s "$HERMES_HOME/index" &&
	# strace and hermes are the two processes the user may run.
	as_lonely_user 2 strace -f -e trace=clone,clone3,$(syscalls open) -o traces/list \
		"$(lonely_hermes)" sessions list --all >actual &&
	test_cmp expect actual &&
	grep -E "clone3?\(.*= -1 EAGAIN" traces/list &&
	# The opens are traced (the index is read), and none is a session'"'"'s.
	grep -E "($(syscalls open | tr , "|"))\(.*/index\"" traces/list &&
	! grep "/sessions/.*\.json" traces/list
'

test_done
