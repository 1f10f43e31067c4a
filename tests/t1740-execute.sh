#!/bin/sh
test_description='chat -e: the reply'"'"'s one command is shown and asked about on the terminal (a tmux pane); run, edited, copied or left; never run without a terminal (issue 43)'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 150

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# ask_in_pane ARGS: hermes chat -e ARGS in a pane, against the fake
# server's "command" model (its reply: a fenced "echo ran-it"); its exit
# status in rc when it ends; waits for the question.
ask_in_pane() {
	start_pane &&
	type_line "OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m command -e -Q $1; echo rc=\$? >rc.tmp; mv rc.tmp rc" &&
	wait_until on_screen "^Run it? \[r\]un, \[e\]dit, \[c\]opy, \[n\]o: "
}

# ended N: hermes has exited with status N.
ended() {
	wait_until test -s rc &&
	echo "rc=$1" >expect &&
	test_cmp expect rc
}

test_expect_success SERVER,TMUX 'r runs the command with $SHELL -c; hermes exits with its status; the session notes it' '
	ask_in_pane "-q \"say it\"" &&
	on_screen "^  echo ran-it$" &&
	type_line r &&
	ended 0 &&
	on_screen "^ran-it$" &&
	messages "$(only_id)" | tail -n 1 >actual &&
	echo "system: hermes -e: ran it: exit status 0: echo ran-it" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER,TMUX 'e edits the command in the line editor, then asks again; its exit status is hermes.s' '
	ask_in_pane "-q \"say it\"" &&
	type_line e &&
	wait_until on_screen "^command> echo ran-it" &&
	keys C-u &&
	type_line "echo edited; exit 7" &&
	wait_until screen_count "^Run it?" 2 &&
	type_line run &&
	ended 7 &&
	on_screen "^edited$" &&
	messages "$(only_id)" | tail -n 1 >actual &&
	echo "system: hermes -e: ran it: exit status 7: echo edited; exit 7" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER,TMUX 'Enter (or n) runs nothing: exit 0, noted as not run' '
	ask_in_pane "-q \"say it\"" &&
	keys Enter &&
	ended 0 &&
	! on_screen "^ran-it$" &&
	on_screen "^Not run.$" &&
	messages "$(only_id)" | tail -n 1 >actual &&
	echo "system: hermes -e: not run: echo ran-it" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER,TMUX 'c copies it through the terminal (OSC 52) instead of running it' '
	ask_in_pane "--no-save -q \"say it\"" &&
	tm set -g set-clipboard on &&
	type_line c &&
	ended 0 &&
	! on_screen "^ran-it$" &&
	on_screen "^Copied the command (11 characters) to the clipboard" &&
	tm show-buffer >actual &&
	printf "echo ran-it" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 0
'

test_expect_success SERVER 'without a terminal nothing is run: the command on stdout, exit 2, a note' '
	test_expect_code 2 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m command -e -Q -q "say it" </dev/null >out 2>err &&
	echo "echo ran-it" >expect &&
	test_cmp expect out &&
	grep "^hermes: -e: not run: there is no terminal to ask on" err
'

test_expect_success SERVER 'a reply that is no single command: exit 3, the reply kept' '
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m code -e -Q -q "two" </dev/null >out 2>err &&
	grep "^hermes: -e: the reply is not one command (one fenced block, or a line); it is kept: hermes sessions show" err
'

test_expect_success '-e with --json, -x or --no-agent, or in an interactive chat, is refused' '
	test_expect_code 2 hermes chat -e --json -q x 2>err &&
	grep "not with --json, -x or --no-agent" err &&
	test_expect_code 2 hermes chat -e --no-agent -q x 2>err &&
	test_expect_code 2 run_in_pty "hermes chat -e --agent true" >out 2>&1 &&
	test "$(session_count)" = 0
'

test_done
