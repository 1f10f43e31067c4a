#!/bin/sh
test_description='the pager, in tmux: show and export on a terminal go through $HERMES_PAGER, $PAGER or less (given LESS=FRX), help only when longer than the screen; never into a pipe or a file, nor with --no-pager; quitting it early is exit 0; Ctrl-C is the pager'"'"'s'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# notes: a session "notes" with one message, "hello pager".
notes() {
	hermes chat --title notes --no-agent -q "hello pager" -Q
}

test_expect_success TMUX 'sessions show on a terminal goes through $PAGER, and only there' '
	notes &&
	pane_of 80 &&
	in_pane "PAGER=\"cat >paged\" hermes sessions show notes" &&
	echo 0 >expect && test_cmp expect rc &&
	grep "^hello pager\$" paged &&
	grep "^notes\$" paged &&
	! on_screen "^hello pager"
'

test_expect_success TMUX '$HERMES_PAGER before $PAGER; an empty pager or cat is none; --no-pager' '
	notes &&
	pane_of 80 &&
	in_pane "HERMES_PAGER=\"cat >first\" PAGER=\"cat >second\" hermes sessions show notes" &&
	grep "^hello pager\$" first &&
	! test -e second &&
	in_pane "PAGER= hermes sessions show notes" &&
	in_pane "HERMES_PAGER=cat PAGER=\"cat >third\" hermes sessions show notes" &&
	in_pane "PAGER=\"cat >fourth\" hermes --no-pager sessions show notes" &&
	! test -e third &&
	! test -e fourth &&
	screen_count "^hello pager\$" 3
'

test_expect_success TMUX 'hermes'"'"'s own options anywhere on the line: --no-pager after the verb, between the group and the verb; -p after it' '
	notes &&
	hermes -p work chat --title daily --no-agent -q "hello work" -Q &&
	pane_of 80 &&
	in_pane "PAGER=\"cat >first\" hermes sessions show notes --no-pager" &&
	echo 0 >expect && test_cmp expect rc &&
	in_pane "PAGER=\"cat >second\" hermes sessions --no-pager show notes" &&
	test_cmp expect rc &&
	in_pane "PAGER=\"cat >third\" hermes sessions show daily -p work --no-pager" &&
	test_cmp expect rc &&
	! test -e first &&
	! test -e second &&
	! test -e third &&
	screen_count "^hello pager\$" 2 &&
	on_screen "^hello work\$" &&
	in_pane "hermes sessions show daily --no-pager -p work -p other 2>err" &&
	echo 2 >expect && test_cmp expect rc &&
	grep "^hermes: -p/--profile given twice\$" err
'

test_expect_success TMUX 'never into a pipe or a file' '
	notes &&
	pane_of 80 &&
	in_pane "PAGER=\"cat >paged\" hermes sessions show notes | cat >piped" &&
	in_pane "PAGER=\"cat >paged\" hermes sessions show notes >file" &&
	in_pane "PAGER=\"cat >paged\" hermes sessions export notes -o exported.json" &&
	! test -e paged &&
	grep "^hello pager\$" piped &&
	test_cmp piped file &&
	grep "hello pager" exported.json
'

test_expect_success TMUX 'with no pager named, less, given LESS=FRX unless LESS is set' '
	notes &&
	mkdir bin &&
	printf "#!/bin/sh\necho \"LESS=\$LESS args=\$*\" >>less.log\ncat >>less.in\n" >bin/less &&
	chmod +x bin/less &&
	pane_of 80 &&
	in_pane "unset PAGER; PATH=$TRASH/bin:\$PATH hermes sessions show notes" &&
	in_pane "unset PAGER; LESS=S PATH=$TRASH/bin:\$PATH hermes sessions show notes" &&
	printf "LESS=FRX args=\nLESS=S args=\n" >expect &&
	test_cmp expect less.log &&
	test "$(grep -c "^hello pager\$" less.in)" = 2
'

test_expect_success TMUX 'export to the terminal is paged; help only when longer than the screen' '
	notes &&
	pane_of 80 20 &&
	in_pane "PAGER=\"cat >exported\" hermes sessions export notes" &&
	grep "\"content\":\"hello pager\"" exported &&
	in_pane "PAGER=\"cat >all\" hermes help --all" &&
	grep "^Usage: hermes sessions show" all &&
	in_pane "PAGER=\"cat >main\" hermes --help" &&
	grep "^Usage:" main &&
	in_pane "PAGER=\"cat >short\" hermes config path --help" &&
	! test -e short &&
	on_screen "^Usage: hermes config path"
'

test_expect_success TMUX 'what is paged went through the gate; no progress is drawn under the pager' '
	printf "%s\n" "#!/bin/sh" "cat >/dev/null" "printf \"x \\033]0;PWNED\\007 y\\n\"" >osc &&
	chmod +x osc &&
	hermes chat --title hostile --agent "$TRASH/osc" -q hi -Q &&
	gen_sessions 300 >many.jsonl &&
	hermes sessions import many.jsonl &&
	pane_of 80 &&
	tm pipe-pane -t "$PANE" "cat >$TRASH/pane.log" &&
	in_pane "PAGER=\"cat >shown\" hermes sessions show hostile" &&
	in_pane "PAGER=\"cat >exported\" hermes sessions export --format markdown" &&
	grep -F "x ^[]0;PWNED^G y" shown &&
	grep -F "x ^[]0;PWNED^G y" exported &&
	! grep "$(printf "\007")" shown exported &&
	test "$(grep -c "^# t[0-9]*\$" exported)" = 300 &&
	in_pane "hermes --no-pager sessions export --format markdown >/dev/null" &&
	# The one without a pager drew its progress; the one with did not.
	wait_until grep "exporting 100/301" pane.log &&
	test "$(grep -c "exporting 100/301" pane.log)" = 1
'

test_expect_success TMUX,PYTHON3 'quitting the pager before the end is not an error' '
	mkdir -p "$HERMES_HOME/sessions" &&
	thread 20261201_000001_abcdef 4000 &&
	pane_of 80 &&
	in_pane "PAGER=\"head -n 1 >first\" hermes sessions show long 2>err" &&
	echo 0 >expect && test_cmp expect rc &&
	echo long >expect && test_cmp expect first &&
	test_must_be_empty err
'

test_expect_success TMUX 'Ctrl-C while the pager runs is the pager'"'"'s: hermes waits for it, and ends well' '
	notes &&
	printf "#!/bin/sh\ntrap \"echo interrupted >>pager.log\" INT\ncat >paged\ntouch read-all\nwhile ! test -e gate; do sleep 0.05; done\n" >pager &&
	chmod +x pager &&
	pane_of 80 &&
	type_line "PAGER=./pager hermes sessions show notes; echo \$? >rc.tmp && mv rc.tmp rc" &&
	wait_until test -e read-all &&
	keys C-c &&
	wait_until grep interrupted pager.log &&
	touch gate &&
	wait_until test -f rc &&
	echo 0 >expect && test_cmp expect rc &&
	grep "^hello pager\$" paged
'

test_done
