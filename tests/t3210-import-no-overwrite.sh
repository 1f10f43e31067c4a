#!/bin/sh
test_description='hermes sessions import never replaces a file at a session'"'"'s name, and cleans up after itself'
. "$(dirname "$0")/lib.sh"

# strace(1) that can trace and inject faults (ptrace may be forbidden).
test_lazy_prereq STRACE_INJECT 'strace -f -o /dev/null -e inject=/^link:error=EPERM true'

SA='{"format":1,"id":"20260101_090000_aaaaaa","title":"redis debug","title_source":"user","created_at":1767258000.0,"updated_at":1767261600.0,"cwd":"/srv","message_count":2,"preview":"why?","messages":[{"role":"user","content":"why?","ts":1767258000.0},{"role":"assistant","content":"because","ts":1767258060.0}]}'
SB='{"format":1,"id":"20251231_090000_bbbbbb","title":"hello","title_source":"auto","created_at":1767344400.0,"updated_at":1767348000.0,"cwd":"/home","message_count":1,"preview":"hello","messages":[{"role":"user","content":"hello","ts":1767344400.0}]}'
SC='{"format":1,"id":"20260102_090000_cccccc","title":"third","title_source":"user","created_at":1767344400.0,"updated_at":1767348000.0,"cwd":"/home","message_count":1,"preview":"hi","messages":[{"role":"user","content":"hi","ts":1767344400.0}]}'
A=20260101_090000_aaaaaa

# temporaries: the temporary files in the sessions directory, one a line.
temporaries () {
	ls -A "$HERMES_HOME/sessions" | grep "\.tmp\$"
}

# staged: import has written a temporary file and not yet placed it.
staged () {
	temporaries >/dev/null
}

# raced_import INJECT SKIPPED: import in.jsonl under strace -e inject=INJECT
# (a delay before each file is placed), while session A'"'"'s file appears
# meanwhile; import must report SKIPPED sessions skipped and leave it be.
raced_import () {
	mkdir -p "$HERMES_HOME/sessions" &&
	{ strace -f -o /dev/null -e inject="$1" hermes sessions import in.jsonl 2>err & } &&
	importing=$! &&
	poll_until -t 20 staged &&
	echo precious >"$HERMES_HOME/sessions/$A.json" &&
	wait $importing &&
	echo "imported 0 sessions, skipped $2 that already existed" >expect &&
	test_cmp expect err &&
	echo precious >expect &&
	test_cmp expect "$HERMES_HOME/sessions/$A.json" &&
	test_must_fail temporaries
}

test_expect_success 'a damaged file at a session'"'"'s name is left in place, and import says so' '
	printf "%s\n%s\n" "$SB" "$SA" >in.jsonl &&
	mkdir -p "$HERMES_HOME/sessions" &&
	f="$HERMES_HOME/sessions/$A.json" &&
	# Cut short: the end of the messages array is missing.
	printf "%s\n" "$SA" | sed "s/]}\$//" >"$f" &&
	cp "$f" before &&
	hermes sessions import in.jsonl >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	hermes: warning: $f: not a valid session file (after message 2: truncated: does not end with '"']}'"'); left in place, so session $A was not imported
	imported 1 session, skipped 1 that already existed
	EOF
	test_cmp expect err &&
	test_cmp before "$f" &&
	test "$(session_count)" = 2 &&
	test_must_fail temporaries
'

test_expect_success 'a symlink at a session'"'"'s name is not replaced, nor what it points to' '
	printf "%s\n" "$SA" >in.jsonl &&
	mkdir -p "$HERMES_HOME/sessions" &&
	echo precious >outside &&
	ln -s "$TRASH/outside" "$HERMES_HOME/sessions/$A.json" &&
	hermes sessions import in.jsonl 2>err &&
	tail -n 1 err >last &&
	echo "imported 0 sessions, skipped 1 that already existed" >expect &&
	test_cmp expect last &&
	grep "^hermes: warning: .*/$A.json: not a valid session file (is a symbolic link)" err &&
	test -h "$HERMES_HOME/sessions/$A.json" &&
	echo precious >expect &&
	test_cmp expect outside &&
	test_must_fail temporaries
'

test_expect_success 'a directory at a session'"'"'s name: skipped, the rest imported, nothing left behind' '
	printf "%s\n%s\n%s\n" "$SA" "$SB" "$SC" >in.jsonl &&
	mkdir -p "$HERMES_HOME/sessions/$A.json" &&
	hermes sessions import in.jsonl 2>err &&
	tail -n 1 err >last &&
	echo "imported 2 sessions, skipped 1 that already existed" >expect &&
	test_cmp expect last &&
	test -d "$HERMES_HOME/sessions/$A.json" &&
	test_must_fail temporaries
'

test_expect_success STRACE_INJECT 'a session file that appears while import runs is not overwritten' '
	printf "%s\n" "$SA" >in.jsonl &&
	# Each placing of a file (link, or rename before) waits 2 s first: time
	# for another writer to create the same name after import looked.
	raced_import "/^(link|rename):delay_enter=2000000" 1
'

test_expect_success STRACE_INJECT 'without hard links (EPERM) import still works, and still overwrites nothing' '
	printf "%s\n%s\n" "$SA" "$SB" >in.jsonl &&
	strace -f -o trace -e inject="/^link:error=EPERM" \
		hermes sessions import in.jsonl 2>err &&
	echo "imported 2 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	# Both links were refused, and both files renamed into place instead.
	test "$(grep -c "^[0-9]* *link.*(INJECTED)\$" trace)" = 2 &&
	test "$(grep -c "^[0-9]* *rename.*= 0\$" trace)" = 2 &&
	hermes sessions export --format jsonl >out &&
	printf "%s\n%s\n" "$SB" "$SA" >expect &&
	test_cmp expect out &&
	test_must_fail temporaries &&
	rm "$HERMES_HOME/sessions/$A.json" &&
	raced_import "/^link:error=EPERM:delay_enter=2000000" 2
'

test_expect_success STRACE_INJECT 'a write that fails halfway through leaves no temporary files behind' '
	printf "%s\n%s\n%s\n" "$SA" "$SB" "$SC" >in.jsonl &&
	# The second file placed (link, or rename before) fails with EIO.
	test_expect_code 4 strace -f -o /dev/null -e inject="/^(link|rename):error=EIO:when=2" \
		hermes sessions import in.jsonl 2>err &&
	echo "hermes: $HERMES_HOME/sessions/20251231_090000_bbbbbb.json: Input/output error" >expect &&
	# The words after the path are the C library'"'"'s (strerror): musl, in
	# the static builds, says "I/O error" for what glibc words as above.
	sed "s/: I\/O error\$/: Input\/output error/" err >err.words &&
	test_cmp expect err.words &&
	ls "$HERMES_HOME/sessions" >files &&
	echo "$A.json" >expect &&
	test_cmp expect files &&
	test_must_fail temporaries
'

test_expect_success 'read errors name the input without "(os error N)"' '
	mkdir dir &&
	test_expect_code 4 hermes sessions import dir 2>err &&
	echo "hermes: dir: Is a directory" >expect &&
	test_cmp expect err &&
	test_expect_code 4 hermes sessions import - <dir 2>err &&
	echo "hermes: reading stdin: Is a directory" >expect &&
	test_cmp expect err
'

test_done
