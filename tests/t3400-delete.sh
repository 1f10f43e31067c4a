#!/bin/sh
test_description='hermes sessions delete: --yes off a terminal, asking on one, breadcrumbs'
. "$(dirname "$0")/lib.sh"

# Sessions "alpha", "beta", "gamma"; their IDs in $a, $b, $c.
three_sessions () {
	hermes chat --title alpha -q one --no-agent -Q &&
	hermes chat --title beta -q two --no-agent -Q &&
	hermes chat --title gamma -q three --no-agent -Q &&
	a=$(session_id_by_title alpha) &&
	b=$(session_id_by_title beta) &&
	c=$(session_id_by_title gamma) &&
	test -n "$a" && test -n "$b" && test -n "$c"
}

test_expect_success 'without a terminal and without --yes: refused (exit 2), nothing deleted' '
	three_sessions &&
	test_expect_code 2 hermes sessions delete alpha >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: not deleting without confirmation: stdin is not a terminal; add --yes to hermes sessions delete" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 3 &&
	echo y | test_expect_code 2 hermes sessions delete alpha 2>err &&
	test_cmp expect err &&
	test "$(session_count)" = 3
'

test_expect_success '--yes deletes the session and says which' '
	three_sessions &&
	hermes sessions delete alpha --yes >out 2>err &&
	test_must_be_empty out &&
	echo "deleted $a '"'alpha'"'" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2 &&
	! test -e "$HERMES_HOME/sessions/$a.json" &&
	test_expect_code 1 hermes sessions show alpha 2>/dev/null
'

test_expect_success '-y, and a session by ID' '
	three_sessions &&
	hermes sessions delete -y "$b" 2>err &&
	echo "deleted $b '"'beta'"'" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2
'

test_expect_success 'several at once; the same session named twice is deleted once' '
	three_sessions &&
	hermes sessions delete alpha "$c" gamma --yes 2>err &&
	printf "deleted %s '"'alpha'"'\ndeleted %s '"'gamma'"'\n" "$a" "$c" >expect &&
	test_cmp expect err &&
	hermes sessions list >out &&
	cut -f2 out >titles &&
	echo beta >expect &&
	test_cmp expect titles
'

test_expect_success 'one name that matches nothing: nothing at all is deleted, exit 1' '
	three_sessions &&
	test_expect_code 1 hermes sessions delete alpha nosuch beta --yes 2>err &&
	verb_not_found nosuch >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 3
'

test_expect_success 'delete needs a name' '
	test_expect_code 2 hermes sessions delete --yes 2>err &&
	grep "^hermes: sessions delete: missing NAME or ID" err
'

test_expect_success 'breadcrumbs pointing at deleted sessions go; others stay' '
	three_sessions &&
	TMUX_PANE=%1 hermes chat -c alpha -q x --no-agent -Q &&
	TMUX_PANE=%2 hermes chat -c alpha -q x --no-agent -Q &&
	TMUX_PANE=%3 hermes chat -c beta -q x --no-agent -Q &&
	ls "$HERMES_HOME/terminal-sessions" >before &&
	printf "tmux_pane--1.$MACHINE.json\ntmux_pane--2.$MACHINE.json\ntmux_pane--3.$MACHINE.json\n" >expect &&
	test_cmp expect before &&
	hermes sessions delete alpha --yes 2>/dev/null &&
	ls "$HERMES_HOME/terminal-sessions" >after &&
	echo tmux_pane--3.$MACHINE.json >expect &&
	test_cmp expect after &&
	TMUX_PANE=%3 hermes sessions current --json >out &&
	test "$(json_get out "v[\"reason\"]")" = breadcrumb
'

test_expect_success 'after a delete, bare -c in that terminal does not bring it back' '
	three_sessions &&
	TMUX_PANE=%1 hermes chat -c alpha -q x --no-agent -Q &&
	hermes sessions delete alpha --yes 2>/dev/null &&
	TMUX_PANE=%1 hermes chat -c -q again --no-agent -Q &&
	test "$(session_count)" = 2 &&
	! test -e "$HERMES_HOME/sessions/$a.json"
'

test_expect_success 'deleting leaves other files in the store alone' '
	three_sessions &&
	echo keep >"$HERMES_HOME/sessions/notes.txt" &&
	hermes sessions delete alpha --yes 2>/dev/null &&
	test -e "$HERMES_HOME/sessions/notes.txt"
'

test_expect_success SCRIPT 'on a terminal it asks; anything but yes deletes nothing' '
	three_sessions &&
	printf "n\n" >no &&
	pty_transcript "hermes sessions delete alpha" transcript <no &&
	# The echo of the typed answer lands before or after the question,
	# as the terminal gets it before or after hermes asks.
	grep "Delete session '"'alpha'"' ($a, 1 message)? \[y/N\]" transcript &&
	grep -E "(^|\[y/N\] )nothing deleted$" transcript &&
	test "$(session_count)" = 3 &&
	printf "\n" >empty &&
	run_in_pty "hermes sessions delete alpha" <empty >raw &&
	test "$(session_count)" = 3
'

test_expect_success SCRIPT 'on a terminal, y deletes; several are each named before the question' '
	three_sessions &&
	printf "y\n" >yes &&
	pty_transcript "hermes sessions delete alpha" transcript <yes &&
	grep "deleted $a '"'alpha'"'" transcript &&
	test "$(session_count)" = 2 &&
	pty_transcript "hermes sessions delete beta gamma" transcript <yes &&
	# The answer typed is echoed before or after the question: the lines
	# up to it, the question itself up to [y/N].
	# The echoed y may land anywhere between what hermes wrote: dropped
	# at the end or the start of a line.
	sed -e "s/)y\$/)/" -e "s/^y//" transcript |
		sed -n "1,/Delete these 2 sessions? \[y\/N\]/p" |
		sed -n -e "s/.*\(Delete these 2 sessions? \[y\/N\]\).*/\1/p" -e "/^  /p" >actual &&
	cat >expect <<-EOF &&
	  '"'beta'"' ($b, 1 message)
	  '"'gamma'"' ($c, 1 message)
	Delete these 2 sessions? [y/N]
	EOF
	test_cmp expect actual &&
	test "$(session_count)" = 0
'

test_done
