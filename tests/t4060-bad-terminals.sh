#!/bin/sh
test_description='no terminal, closed or full standard streams, a new session, no /proc: clean fallbacks'
. "$(dirname "$0")/lib.sh"

# Root may make a private mount namespace and hide /proc in it.
test_lazy_prereq NO_PROC 'test "$(id -u)" = 0 && unshare -m sh -c "mount -t tmpfs none /proc && ! test -e /proc/self"'

test_expect_success SETSID 'all streams redirected, in a new session without a terminal' '
	setsid -w hermes chat -q first --agent "echo reply" </dev/null >out 2>err &&
	echo reply >expect &&
	test_cmp expect out &&
	grep "^session_id: " err &&
	id=$(sed -n "s/^session_id: //p" err) &&
	# No terminal: nothing recorded, bare -c falls back to the newest session.
	setsid -w hermes chat -c -q second --no-agent -Q </dev/null >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err &&
	! test -e "$HERMES_HOME/terminal-sessions" &&
	setsid -w hermes sessions current </dev/null >out 2>err &&
	grep "^$id" out &&
	setsid -w hermes sessions list </dev/null >out 2>err &&
	test_line_count = 1 out &&
	test_must_be_empty err &&
	test "$(session_count)" = 1
'

test_expect_success SETSID 'a pane variable without a terminal still keys a breadcrumb in a new session' '
	TMUX_PANE=%9 setsid -w hermes chat -q one --no-agent -Q </dev/null >/dev/null 2>&1 &&
	hermes chat -q other --no-agent -Q &&
	test -f "$HERMES_HOME/terminal-sessions/tmux_pane--9.$MACHINE.json" &&
	# A new setsid is a new terminal incarnation: the old breadcrumb is not it.
	TMUX_PANE=%9 setsid -w hermes sessions current >out 2>&1 </dev/null &&
	! grep breadcrumb out
'

test_expect_success 'stdin, stdout and stderr closed: no crash, no stray writes into store files' '
	hermes chat -q hi --agent "echo reply; echo oops >&2" <&- >&- 2>&- &&
	hermes chat -c -q more --agent "echo reply2" <&- >&- 2>&- &&
	hermes sessions list >&- 2>&- &&
	hermes sessions show hi >&- 2>&- &&
	test_expect_code 1 hermes chat -c nothing -q x --no-agent <&- >&- 2>&- &&
	test_expect_code 2 hermes chat <&- >&- 2>&- &&
	show_contents hi >contents &&
	printf "hi\nreply\nmore\nreply2\n" >expect &&
	test_cmp expect contents &&
	test "$(wc -c <"$HERMES_HOME/.lock")" = 0
'

test_expect_success 'stdin a directory, stdout full: clear errors, not crashes' '
	test_expect_code 2 hermes chat <. 2>err &&
	grep "^hermes: cannot read the message from stdin: Is a directory$" err &&
	hermes chat -q hi --no-agent -Q &&
	test_expect_code 4 hermes sessions list >/dev/full 2>err &&
	# The words of the error, not the errno behind them.
	grep "^hermes: writing to stdout: No space left on device$" err &&
	test_expect_code 4 hermes sessions show hi >/dev/full 2>err &&
	grep "^hermes: writing to stdout" err &&
	test_must_fail hermes chat -c -q x --agent "echo reply" -Q >/dev/full 2>err &&
	grep "^hermes: " err &&
	show_contents hi >contents &&
	grep -x x contents
'

test_expect_success 'no HOME and no HERMES_HOME: a clear error' '
	test_expect_code 4 env -i "$HERMES_BIN" sessions list 2>err &&
	grep "^hermes: neither HERMES_HOME nor HOME is set" err &&
	test_expect_code 4 env -i "$HERMES_BIN" chat -q hi --no-agent 2>err &&
	grep "^hermes: neither HERMES_HOME nor HOME is set" err
'

test_expect_success NO_PROC 'without /proc: chat, breadcrumbs, -c, list and current work' '
	cat >noproc.sh <<-EOF &&
	mount -t tmpfs none /proc || exit 99
	test -e /proc/self && exit 98
	set -e
	export HERMES_HOME="$HERMES_HOME"
	TMUX_PANE=%4 "$HERMES_BIN" chat -q first --agent "echo reply" -Q </dev/null >out1 2>err1
	"$HERMES_BIN" chat -q other --no-agent -Q
	TMUX_PANE=%4 "$HERMES_BIN" chat -c -q second --no-agent -Q 2>err2
	TMUX_PANE=%4 "$HERMES_BIN" sessions current >current 2>err3
	"$HERMES_BIN" sessions list >list 2>err4
	EOF
	unshare -m sh noproc.sh &&
	echo reply >expect &&
	test_cmp expect out1 &&
	cat err1 err2 err3 err4 >errs &&
	test_must_be_empty errs &&
	test_line_count = 2 list &&
	grep "breadcrumb" current &&
	# The breadcrumb was written, without the leader start time /proc gives.
	grep "\"leader\":\"[0-9]*\"" "$HERMES_HOME/terminal-sessions/tmux_pane--4.$MACHINE.json" &&
	show_contents first >contents &&
	grep -x second contents &&
	figure "t4060: without /proc (tmpfs over /proc in a private mount namespace): chat, breadcrumb (leader $(sed -n "s/.*\"leader\":\"\([^\"]*\)\".*/\1/p" "$HERMES_HOME/terminal-sessions/tmux_pane--4.$MACHINE.json"), no start time), -c, list, current: all exit 0, stderr empty"
'

test_expect_success NO_PROC,SCRIPT 'without /proc, in a real terminal: the tty is still found' '
	# Under qemu-user the shell must not exec the last hermes in its own
	# place: a hermes that is itself the session leader would read its
	# start time from the /proc/self/stat qemu makes up (even with /proc
	# unmounted), and no longer match the breadcrumb.
	tail= &&
	if test -n "${HERMES_TEST_EMULATED:-}"; then tail=" || exit 1"; fi &&
	cat >noproc.sh <<-EOF &&
	mount -t tmpfs none /proc || exit 99
	export HERMES_HOME="$HERMES_HOME"
	script -qec "\"$HERMES_BIN\" chat -q in-a-tty --no-agent -Q && \"$HERMES_BIN\" chat -c -q again --no-agent -Q && \"$HERMES_BIN\" sessions current$tail" /dev/null >transcript 2>&1
	EOF
	unshare -m sh noproc.sh &&
	ls "$HERMES_HOME/terminal-sessions" >crumbs &&
	grep "^tty-dev-" crumbs &&
	grep "breadcrumb" transcript &&
	show_contents in-a-tty >contents &&
	grep -x again contents &&
	figure "t4060: without /proc in a pty: terminal found as $(cat crumbs), -c continued it"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
