#!/bin/sh
test_description='breadcrumb files: keys from pane variables, staleness, fallbacks, best effort'
. "$(dirname "$0")/lib.sh"

# Tests here have no tty; a pane variable makes the terminal. Its leader is
# this test run's session (getsid), the same for every hermes started here.

# in_pane PANE CMD...: run CMD as if in tmux pane PANE (%N), without a tty.
in_pane() {
	pane=$1
	shift
	env TMUX_PANE="$pane" "$@"
}

crumbs() {
	echo "$HERMES_HOME/terminal-sessions"
}

# crumb_field NAME FILE: a string field of a breadcrumb file (the shared
# field reads session files).
crumb_field() {
	sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$2"
}

# crumbs_with_titles: each breadcrumb file and the title of its session.
crumbs_with_titles() {
	for f in $(ls "$(crumbs)"); do
		id=$(crumb_field session_id "$(crumbs)/$f") &&
		echo "$f $(field "$id" title)" || return 1
	done
}

# write_crumb FILE SESSION_ID TS LEADER
write_crumb() {
	printf '{"session_id":"%s","cwd":"%s","ts":%s,"leader":"%s"}\n' "$2" "$TRASH" "$3" "$4" >"$1"
}

# mine_then_newer: pane %1 makes the session "mine" (its ID in $A), then a
# session "newer" is made with no terminal. Sets $crumb to pane %1's
# breadcrumb, and $leader to the terminal leader recorded in it.
mine_then_newer() {
	in_pane %1 hermes chat -q mine --no-agent -Q &&
	hermes chat -q newer --no-agent -Q &&
	A=$(session_id_by_title mine) &&
	crumb=$(crumbs)/tmux_pane--1.$MACHINE.json &&
	leader=$(crumb_field leader "$crumb")
}

# current_with_crumb_at TS: pane %1's breadcrumb, rewritten to point at $A
# with the time stamp TS; then hermes sessions current in pane %1, its
# output in current.out.
current_with_crumb_at() {
	write_crumb "$crumb" "$A" "$1" "$leader" &&
	in_pane %1 hermes sessions current >current.out
}

test_expect_success 'each pane variable gives a key, in the documented order' '
	all="ZELLIJ_PANE_ID=1 TMUX_PANE=%2 KITTY_WINDOW_ID=3 WEZTERM_PANE=4 TERM_SESSION_ID=w0t0p0:AB-5 WT_SESSION=6" &&
	env $all hermes chat -q m1 --no-agent -Q &&
	env $all ZELLIJ_PANE_ID= hermes chat -q m2 --no-agent -Q &&
	env $all ZELLIJ_PANE_ID= TMUX_PANE= hermes chat -q m3 --no-agent -Q &&
	env $all ZELLIJ_PANE_ID= TMUX_PANE= KITTY_WINDOW_ID= hermes chat -q m4 --no-agent -Q &&
	env WT_SESSION=6 TERM_SESSION_ID=w0t0p0:AB-5 hermes chat -q m5 --no-agent -Q &&
	env WT_SESSION=6 hermes chat -q m6 --no-agent -Q &&
	cat >expect <<-EOF &&
	kitty_window_id-3.$MACHINE.json m3
	term_session_id-w0t0p0-AB-5.$MACHINE.json m5
	tmux_pane--2.$MACHINE.json m2
	wezterm_pane-4.$MACHINE.json m4
	wt_session-6.$MACHINE.json m6
	zellij_pane_id-1.$MACHINE.json m1
	EOF
	crumbs_with_titles >actual &&
	test_cmp expect actual
'

test_expect_success 'pane variables are consulted in order: first set one wins' '
	env KITTY_WINDOW_ID=3 TMUX_PANE=%2 hermes chat -q one --no-agent -Q &&
	env WT_SESSION=6 WEZTERM_PANE=4 hermes chat -q two --no-agent -Q &&
	env TERM_SESSION_ID=5 WT_SESSION=6 hermes chat -q three --no-agent -Q &&
	env TMUX_PANE=%8 ZELLIJ_PANE_ID=1 WT_SESSION=6 hermes chat -q four --no-agent -Q &&
	env ZELLIJ_PANE_ID= KITTY_WINDOW_ID=7 hermes chat -q five --no-agent -Q &&
	cat >expect <<-EOF &&
	kitty_window_id-7.$MACHINE.json five
	term_session_id-5.$MACHINE.json three
	tmux_pane--2.$MACHINE.json one
	wezterm_pane-4.$MACHINE.json two
	zellij_pane_id-1.$MACHINE.json four
	EOF
	crumbs_with_titles >actual &&
	test_cmp expect actual
'

test_expect_success 'keys are sanitized to a file name of at most 120 characters' '
	in_pane "../../x y/%z" hermes chat -q odd --no-agent -Q &&
	# A key is the value and the machine tag (. and 12 characters), 120
	# characters at most; a longer value is cut and ends in a hash of the
	# whole, so values that differ past the cut stay apart.
	in_pane "$(printf "%097d" 5)" hermes chat -q fits --no-agent -Q &&
	in_pane "$(printf "%0300d" 7)" hermes chat -q long --no-agent -Q &&
	in_pane "$(printf "%0300d" 8)" hermes chat -q longer --no-agent -Q &&
	ls "$(crumbs)" >actual &&
	test_line_count = 4 actual &&
	grep -x "tmux_pane-..-..-x-y--z.$MACHINE.json" actual &&
	grep -x "$(printf "tmux_pane-%097d" 5).$MACHINE.json" actual &&
	test "$(grep -cE "^tmux_pane-0{88}-[0-9a-f]{8}\.$MACHINE\.json\$" actual)" = 2 &&
	# Pane IDs in other scripts stay apart: a character becomes its code
	# point, and a hash of the value keeps "é" from "ue9".
	rm "$(crumbs)"/* &&
	for pane in "窗口1" "窗口2" "é" "ue9"; do
		in_pane "$pane" hermes chat -q "pane $pane" --no-agent -Q || return 1
	done &&
	ls "$(crumbs)" >actual &&
	test_line_count = 4 actual &&
	grep -E "^tmux_pane-u7a97u53e31-[0-9a-f]{8}\.$MACHINE\.json$" actual &&
	grep -E "^tmux_pane-ue9-[0-9a-f]{8}\.$MACHINE\.json$" actual &&
	grep -x "tmux_pane-ue9.$MACHINE.json" actual &&
	! test -e "$HERMES_HOME/x y" &&
	! test -e "$TRASH/x y"
'

test_expect_success 'the breadcrumb file holds session_id, cwd, ts and leader, mode 0600' '
	before=$(date +%s) &&
	in_pane %1 hermes chat -q hello --no-agent -Q &&
	after=$(date +%s) &&
	crumb=$(crumbs)/tmux_pane--1.$MACHINE.json &&
	test "$(crumb_field session_id "$crumb")" = "$(session_id_by_title hello)" &&
	test "$(crumb_field cwd "$crumb")" = "$TRASH" &&
	ts=$(sed -n "s/.*\"ts\":\([0-9]*\).*/\1/p" "$crumb") &&
	test "$ts" -ge "$before" &&
	test "$ts" -le "$after" &&
	crumb_field leader "$crumb" | grep -E "^[0-9]+(@[0-9]+)?$" &&
	test "$(file_mode "$crumb")" = 600 &&
	test "$(file_mode "$(crumbs)")" = 700
'

test_expect_success 'the breadcrumb beats the workspace and is marked in sessions list' '
	mkdir a b &&
	(cd a && in_pane %1 hermes chat -q "from a" --no-agent -Q) &&
	(cd b && hermes chat -q "from b" --no-agent -Q) &&
	A=$(session_id_by_title "from a") &&
	(cd b && in_pane %1 hermes sessions current >../current.out) &&
	check_current current.out "$A" breadcrumb &&
	(cd b && hermes sessions current >../current.out) &&
	check_current current.out "$(session_id_by_title "from b")" workspace &&
	(cd b && in_pane %1 hermes sessions list) >list.out &&
	grep "^\*" list.out >marked &&
	test_line_count = 1 marked &&
	grep "$A\$" marked &&
	(cd b && in_pane %1 hermes chat -c -q "again from b" --no-agent -Q) &&
	cat >expect <<-\EOF &&
	user: from a
	user: again from b
	EOF
	messages "$A" >actual &&
	test_cmp expect actual
'

test_expect_success 'a chat on a named, resumed or created session moves the breadcrumb' '
	in_pane %1 hermes chat -q first --no-agent -Q &&
	hermes chat -q second --no-agent -Q &&
	hermes chat -q third --no-agent -Q &&
	in_pane %1 hermes chat -c second -q "to second" --no-agent -Q &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title second)" breadcrumb &&
	in_pane %1 hermes chat -r "$(session_id_by_title first)" -q "to first" --no-agent -Q &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title first)" breadcrumb &&
	in_pane %1 hermes chat -c fourth --create-if-missing -q "to fourth" --no-agent -Q &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title fourth)" breadcrumb &&
	in_pane %1 hermes chat -q fifth --no-agent -Q &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title fifth)" breadcrumb
'

test_expect_success 'a breadcrumb to a deleted session falls back to workspace, then latest' '
	mkdir a b &&
	(cd a && in_pane %1 hermes chat -q mine --no-agent -Q) &&
	(cd a && hermes chat -q "same workspace" --no-agent -Q) &&
	(cd b && hermes chat -q "other workspace" --no-agent -Q) &&
	A=$(session_id_by_title mine) &&
	W=$(session_id_by_title "same workspace") &&
	L=$(session_id_by_title "other workspace") &&
	(cd a && in_pane %1 hermes sessions current >../current.out) &&
	check_current current.out "$A" breadcrumb &&
	rm "$HERMES_HOME/sessions/$A.json" &&
	(cd a && in_pane %1 hermes sessions current >../current.out) &&
	check_current current.out "$W" workspace &&
	hermes sessions delete "$W" --yes >/dev/null &&
	(cd a && in_pane %1 hermes sessions current >../current.out) &&
	check_current current.out "$L" latest &&
	(cd a && in_pane %1 hermes chat -c -q "fell back" --no-agent -Q) &&
	cat >expect <<-\EOF &&
	user: other workspace
	user: fell back
	EOF
	messages "$L" >actual &&
	test_cmp expect actual &&
	test "$(crumb_field session_id "$(crumbs)/tmux_pane--1.$MACHINE.json")" = "$L" &&
	test "$(session_count)" = 1
'

test_expect_success 'a breadcrumb older than 30 days is ignored, a younger one is not' '
	mine_then_newer &&
	test -n "$leader" &&
	now=$(date +%s) &&
	current_with_crumb_at $((now - 29 * 86400)) &&
	check_current current.out "$A" breadcrumb &&
	current_with_crumb_at $((now - 31 * 86400)) &&
	check_current current.out "$(session_id_by_title newer)" workspace &&
	in_pane %1 hermes chat -c -q "not mine" --no-agent -Q &&
	echo "user: mine" >expect &&
	messages "$A" >actual &&
	test_cmp expect actual
'

# A container, a CI runner or `docker exec` without -t: the session leader
# is outside the PID namespace and getsid gives 0. unshare -pf makes one.
test_lazy_prereq PID_NAMESPACE 'test "$(id -u)" = 0 && unshare -pf --mount-proc sh -c "test \"\$(ps -o sid= -p \$\$)\" -eq 0"'
# setpriv may drop CAP_SYS_PTRACE from the bounding set.
test_lazy_prereq DROP_PTRACE 'setpriv --bounding-set -sys_ptrace true'

# two_namespaces UNSHARE_OPTION...: pane %7 chats in one new PID namespace,
# then in another. Within each, -c continues; the second must not continue
# the first, whose pane %7 was another terminal. $in_namespace, if set, is
# the command the namespace's first process runs the chats under.
two_namespaces() {
	cat >in-namespace.sh <<-EOF &&
	export HERMES_HOME="$HERMES_HOME" TMUX_PANE=%7
	"$HERMES_BIN" sessions current >"\$1.before"
	"$HERMES_BIN" chat -q "\$1" --no-agent -Q
	"$HERMES_BIN" chat -c -q "\$1 again" --no-agent -Q
	"$HERMES_BIN" sessions current >"\$1.after"
	EOF
	crumb=$(crumbs)/tmux_pane--7.$MACHINE.json &&
	unshare -pf "$@" ${in_namespace:-} sh in-namespace.sh first &&
	crumb_field leader "$crumb" >leader1 &&
	grep -E "^[0-9]+@[0-9]+\$" leader1 &&
	# Start times are in clock ticks: let a few pass.
	sleep 1 &&
	unshare -pf "$@" ${in_namespace:-} sh in-namespace.sh second &&
	crumb_field leader "$crumb" >leader2 &&
	! test_cmp leader1 leader2 &&
	for s in first second; do
		printf "user: %s\nuser: %s again\n" $s $s >expect &&
		messages "$(session_id_by_title $s)" >actual &&
		test_cmp expect actual &&
		check_current $s.after "$(session_id_by_title $s)" breadcrumb || return 1
	done &&
	check_current second.before "$(session_id_by_title first)" workspace
}

test_expect_success PID_NAMESPACE 'a leader outside the PID namespace: the outermost process in it stands in' '
	two_namespaces --mount-proc &&
	grep -E "^1@" leader1
'

test_expect_success PID_NAMESPACE 'the same with the host /proc seen from inside the namespace' '
	# Without --mount-proc, /proc numbers processes as the host does: the
	# walk must stop at the namespace, not climb to the host init.
	two_namespaces
'

test_expect_success PID_NAMESPACE,DROP_PTRACE,PYTHON3 'an ancestor whose namespace link is hidden (a non-dumpable runner, no CAP_SYS_PTRACE): the walk still finds the namespace top' '
	# A container runtime drops CAP_SYS_PTRACE; a runner that makes itself
	# non-dumpable then hides its /proc/PID/ns even from root. The first
	# process here is such a runner.
	cat >non-dumpable.py <<-\EOF &&
	import ctypes, subprocess, sys
	if ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE, off
	    sys.exit("prctl failed")
	sys.exit(subprocess.call(sys.argv[1:]))
	EOF
	in_namespace="python3 $TRASH/non-dumpable.py setpriv --bounding-set -sys_ptrace --inh-caps -sys_ptrace" &&
	# The first process hides its namespace indeed.
	unshare -pf --mount-proc $in_namespace sh -c "! readlink /proc/1/ns/pid" &&
	two_namespaces --mount-proc &&
	grep -E "^1@" leader1
'

test_expect_success PID_NAMESPACE,SETPRIV 'in the namespace as another user (sudo -u, su): the namespace top stands in all the same' '
	# The root parent hides its /proc/PID/ns from user nobody; the walk
	# needs none of it, and the first process of the namespace is the leader.
	# Everything user nobody needs is in one directory it owns, and the
	# way there is open whatever the umask and wherever the clone lives.
	chmod 755 "$TRASH_ROOT" "$TRASH" &&
	n=$TRASH/nobody-home &&
	mkdir "$n" &&
	cp "$HERMES_BIN" "$n/hermes" &&
	cat >"$n/first.sh" <<-EOF &&
	export HERMES_HOME="$n/h" TMUX_PANE=%8
	cd "$n"
	./hermes chat -q one --no-agent -Q
	EOF
	cat >"$n/other.sh" <<-EOF &&
	export HERMES_HOME="$n/h"
	cd "$n"
	./hermes chat -q newer --no-agent -Q
	EOF
	cat >"$n/second.sh" <<-EOF &&
	export HERMES_HOME="$n/h" TMUX_PANE=%8
	cd "$n"
	./hermes sessions current
	EOF
	chmod -R a+rX "$n" &&
	chown -R 65534:65534 "$n" &&
	as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups" &&
	# The leader is the first process of the namespace: pid 1 with a /proc
	# of its own, its host pid with the host /proc.
	HERMES_HOME=$n/h &&
	for mount_proc in --mount-proc ""; do
		rm -rf "$n/h" &&
		unshare -pf $mount_proc sh -c "read top rest </proc/self/stat && echo \$top >top &&
			$as_nobody sh $n/first.sh &&
			$as_nobody sh $n/other.sh && $as_nobody sh $n/second.sh" >current.out &&
		check_current current.out "$(session_id_by_title one)" breadcrumb &&
		grep -E "\"leader\":\"$(cat top)@[0-9]+\"" "$n/h/terminal-sessions/tmux_pane--8.$MACHINE.json" ||
		return 1
	done &&
	# The copy holds the words the suite looks for in files a panic left.
	rm "$n/hermes"
'

test_expect_success 'a breadcrumb stamped far in the future (a wrong clock) is not fresh forever' '
	mine_then_newer &&
	now=$(date +%s) &&
	current_with_crumb_at $((now + 86400)) &&
	check_current current.out "$A" breadcrumb &&
	current_with_crumb_at $((now + 400 * 86400)) &&
	check_current current.out "$(session_id_by_title newer)" workspace
'

test_expect_success 'writing a breadcrumb removes breadcrumb files older than 30 days' '
	mkdir -p "$(crumbs)" &&
	now=$(date +%s) &&
	write_crumb "$(crumbs)/tty-dev-pts-77.json" 20260101_000000_abcdef $((now - 40 * 86400)) 1@1 &&
	touch -d "@$((now - 40 * 86400))" "$(crumbs)/tty-dev-pts-77.json" &&
	write_crumb "$(crumbs)/tty-dev-pts-78.json" 20260101_000000_abcdef $((now - 10 * 86400)) 1@1 &&
	touch -d "@$((now - 10 * 86400))" "$(crumbs)/tty-dev-pts-78.json" &&
	hermes chat -q "no terminal" --no-agent -Q &&
	test -f "$(crumbs)/tty-dev-pts-77.json" &&
	in_pane %2 hermes chat -q pane --no-agent -Q &&
	ls "$(crumbs)" >actual &&
	cat >expect <<-EOF &&
	tmux_pane--2.$MACHINE.json
	tty-dev-pts-78.json
	EOF
	test_cmp expect actual
'

test_expect_success 'malformed breadcrumbs are ignored, then replaced' '
	mine_then_newer &&
	N=$(session_id_by_title newer) &&
	for bad in "" "{" "not json" "{\"session_id\":42}" "[\"$A\"]" \
		"{\"session_id\":\"../sessions/$A\",\"ts\":$(date +%s),\"leader\":\"$leader\"}" \
		"{\"session_id\":\"$A/../$A\",\"ts\":$(date +%s),\"leader\":\"$leader\"}"
	do
		printf "%s" "$bad" >"$crumb" &&
		in_pane %1 hermes sessions current >current.out 2>current.err &&
		check_current current.out "$N" workspace &&
		test_must_be_empty current.err || exit 1
	done &&
	in_pane %1 hermes chat -q third --no-agent -Q &&
	test "$(crumb_field session_id "$crumb")" = "$(session_id_by_title third)"
'

test_expect_success 'terminal-sessions being a file does not make a chat fail' '
	hermes chat -q first --no-agent -Q &&
	echo "not a directory" >"$(crumbs)" &&
	in_pane %1 hermes chat -q second --no-agent 2>err &&
	S=$(session_id_by_title second) &&
	echo "session_id: $S" >expect &&
	test_cmp expect err &&
	in_pane %1 hermes chat -c -q "second again" --no-agent -Q &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$S" workspace &&
	in_pane %1 hermes sessions list >list.out &&
	test_line_count = 2 list.out &&
	cat >expect <<-\EOF &&
	user: second
	user: second again
	EOF
	messages "$S" >actual &&
	test_cmp expect actual &&
	echo "not a directory" >expect &&
	test_cmp expect "$(crumbs)"
'

test_expect_success 'a directory where the breadcrumb file goes does not make a chat fail' '
	mkdir -p "$(crumbs)/tmux_pane--1.$MACHINE.json" &&
	in_pane %1 hermes chat -q first --no-agent -Q 2>err &&
	test_must_be_empty err &&
	in_pane %1 hermes chat -c -q "first again" --no-agent -Q &&
	cat >expect <<-\EOF &&
	user: first
	user: first again
	EOF
	messages "$(session_id_by_title first)" >actual &&
	test_cmp expect actual
'

test_expect_success NOT_ROOT 'an unreadable terminal-sessions directory does not make a chat fail' '
	in_pane %1 hermes chat -q first --no-agent -Q &&
	chmod 000 "$(crumbs)" &&
	in_pane %1 hermes chat -c -q "first again" --no-agent -Q 2>err &&
	in_pane %1 hermes chat -q second --no-agent -Q 2>>err &&
	in_pane %1 hermes sessions current >current.out 2>>err &&
	chmod 700 "$(crumbs)" &&
	test_must_be_empty err &&
	check_current current.out "$(session_id_by_title second)" workspace &&
	test "$(session_count)" = 2
'

test_expect_success ROOT 'a breadcrumb another user owns (planted in a shared home) is not trusted by this terminal' '
	mine_then_newer &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$A" breadcrumb &&
	chown 65534 "$crumb" &&
	in_pane %1 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title newer)" workspace &&
	in_pane %1 hermes chat -c -q again --no-agent -Q &&
	test "$(field "$(session_id_by_title newer)" message_count)" = 2 &&
	test "$(field "$A" message_count)" = 1
'

test_done
