#!/bin/sh
test_description='sessions pick and chat --pick: a full-screen picker, in real tmux panes'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

four_sessions() {
	mk_session 20261201_100000_aaaaaa "redis debug" user 1796100000 /tmp user "why does BRPOPLPUSH time out" &&
	mk_session 20261201_110000_bbbbbb "deploy 🚀" user 1796200000 /tmp user "ship it" &&
	mk_session 20261201_120000_cccccc "调试缓存问题的会话" user 1796300000 /tmp user "cache" &&
	mk_session 20261201_130000_dddddd "api design" user 1796400000 /tmp user "pagination"
}

# pane_at WIDTH HEIGHT: a tmux server with one pane of that size running
# a shell in $TRASH; sets $PANE.
pane_at() {
	SOCKET=$TRASH/pick.sock &&
	trap stop_tmux EXIT &&
	PANE=$(tm new-session -d -s pick -x "$1" -y "$2" -c "$TRASH" -P -F "#{pane_id}" "env PS1='$ ' sh") &&
	# Keys typed before the shell's first prompt would echo before it.
	poll_until screen_has '^\$$'
}

screen() {
	tm capture-pane -p -t "$PANE" | sed -e "s/ *$//"
}

screen_has() {
	screen | grep -q -e "$1"
}

# run_in_pane 'COMMAND': type COMMAND into the pane's shell; its status
# goes to pick.rc when it ends.
run_in_pane() {
	tm send-keys -t "$PANE" -l "$1; echo \$? >pick.tmp && mv pick.tmp pick.rc" &&
	tm send-keys -t "$PANE" Enter
}

test_expect_success TMUX 'newest first; arrows and Ctrl-N/P move; Enter prints the ID' '
	four_sessions &&
	pane_at 80 12 &&
	run_in_pane "echo before >/dev/null; hermes sessions pick >picked" &&
	poll_until screen_has "^> *4/4" &&
	screen >first &&
	sed -n 2,5p first >rows &&
	cat >expect <<-\EOF &&
	> api design          2026-12-04 16:00  dddddd
	  调试缓存问题的会话  2026-12-03 12:13  cccccc
	  deploy 🚀           2026-12-02 08:26  bbbbbb
	  redis debug         2026-12-01 04:40  aaaaaa
	EOF
	test_cmp expect rows &&
	tm send-keys -t "$PANE" Down Down C-n C-p Up &&
	poll_until screen_has "^> 调试" &&
	tm send-keys -t "$PANE" Enter &&
	wait_for_file pick.rc &&
	test "$(cat pick.rc)" = 0 &&
	echo 20261201_120000_cccccc >expect &&
	test_cmp expect picked
'

test_expect_success TMUX 'typing filters by title at once, by message text when typing pauses' '
	four_sessions &&
	pane_at 80 12 &&
	run_in_pane "hermes sessions pick >picked" &&
	poll_until screen_has "^> *4/4" &&
	tm send-keys -t "$PANE" -l "DEPLOY" &&
	poll_until screen_has "^> DEPLOY  0/4" &&
	tm send-keys -t "$PANE" BSpace BSpace BSpace BSpace BSpace BSpace &&
	tm send-keys -t "$PANE" -l "brpop" &&
	poll_until screen_has "^> brpop  1/4$" &&
	screen_has "^> redis debug" &&
	tm send-keys -t "$PANE" Enter &&
	wait_for_file pick.rc &&
	echo 20261201_100000_aaaaaa >expect &&
	test_cmp expect picked
'

test_expect_success TMUX 'the filter matches as fzf does: the characters in order, the best match first' '
	four_sessions &&
	mk_session 20261201_140000_eeeeee "read the docs" user 1796500000 /tmp user "manual" &&
	pane_at 80 12 &&
	run_in_pane "hermes sessions pick >picked" &&
	poll_until screen_has "^> *5/5" &&
	tm send-keys -t "$PANE" -l "rd" &&
	poll_until screen_has "^> rd  2/5" &&
	screen | sed -n 2,3p | cut -c3-15 | sed "s/ *$//" >rows &&
	printf "%s\n" "redis debug" "read the docs" >expect &&
	test_cmp expect rows &&
	tm send-keys -t "$PANE" -l "s" &&
	poll_until screen_has "^> rds  2/5" &&
	tm send-keys -t "$PANE" -l "x" &&
	poll_until screen_has "^> rdsx  0/5" &&
	tm send-keys -t "$PANE" BSpace BSpace BSpace BSpace &&
	tm send-keys -t "$PANE" -l "dbg" &&
	poll_until screen_has "^> dbg  1/5$" &&
	tm send-keys -t "$PANE" Enter &&
	wait_for_file pick.rc &&
	echo 20261201_100000_aaaaaa >expect &&
	test_cmp expect picked
'

test_expect_success TMUX 'Esc and Ctrl-C leave printing nothing, exit 1; the screen is given back' '
	four_sessions &&
	pane_at 80 12 &&
	tm send-keys -t "$PANE" "echo marker-before" Enter &&
	run_in_pane "hermes sessions pick >picked 2>err" &&
	poll_until screen_has "^> *4/4" &&
	tm send-keys -t "$PANE" Escape &&
	wait_for_file pick.rc &&
	test "$(cat pick.rc)" = 1 &&
	test_must_be_empty picked &&
	test_must_be_empty err &&
	poll_until screen_has "^marker-before" &&
	! screen_has "api design" &&
	rm pick.rc &&
	run_in_pane "hermes sessions pick >picked 2>err" &&
	poll_until screen_has "^> *4/4" &&
	tm send-keys -t "$PANE" C-c &&
	wait_for_file pick.rc &&
	test "$(cat pick.rc)" = 1 &&
	test_must_be_empty picked &&
	test_must_be_empty err
'

test_expect_success TMUX 'a small terminal, and a resize while picking: no row wraps' '
	four_sessions &&
	pane_at 30 4 &&
	run_in_pane "hermes sessions pick >picked" &&
	poll_until screen_has "^> *4/4" &&
	screen >small &&
	test_line_count = 4 small &&
	sed -n 2p small >row &&
	echo "> api design          dddddd" >expect &&
	test_cmp expect row &&
	tm resize-window -t pick -x 70 -y 10 &&
	poll_until screen_has "^  redis debug .*2026-12-01 04:40  aaaaaa$" &&
	tm send-keys -t "$PANE" Enter &&
	wait_for_file pick.rc &&
	echo 20261201_130000_dddddd >expect &&
	test_cmp expect picked
'

test_expect_success TMUX 'chat --pick continues the chosen session here, breadcrumb and all' '
	four_sessions &&
	pane_at 80 12 &&
	run_in_pane "hermes chat --pick -q picked-reply --no-agent -Q && hermes sessions current >current" &&
	poll_until screen_has "^> *4/4" &&
	tm send-keys -t "$PANE" Down Enter &&
	wait_for_file pick.rc &&
	test "$(cat pick.rc)" = 0 &&
	printf "%s\n" "user: cache" "user: picked-reply" >expect &&
	messages 20261201_120000_cccccc >actual &&
	test_cmp expect actual &&
	check_current current 20261201_120000_cccccc breadcrumb
'

test_expect_success SETSID 'without a terminal: a usage error that says what to use instead' '
	four_sessions &&
	test_expect_code 2 setsid -w hermes sessions pick >out 2>err </dev/null &&
	test_must_be_empty out &&
	grep "^hermes: sessions pick needs a terminal; without one, find a session with '"'hermes sessions search TEXT'"' or '"'hermes sessions list'"'" err &&
	test_expect_code 2 setsid -w hermes chat --pick -q x >out 2>err </dev/null &&
	grep "^hermes: chat --pick needs a terminal; without one, continue a session with '"'hermes chat -r ID'"'" err &&
	test "$(session_count)" = 4
'

test_done
