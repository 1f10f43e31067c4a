#!/bin/sh
test_description='terminal identity and breadcrumbs in real pseudo-terminals (script(1))'
. "$(dirname "$0")/lib.sh"

# script(1) runs its command with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# key_of TTYFILE: the breadcrumb key of the tty named in TTYFILE (the output
# of tty(1)): /dev/pts/3 is tty-dev-pts-3.
key_of() {
	printf 'tty%s\n' "$(sed 's,/,-,g' "$1")"
}

# A session made with no terminal at all: it touches no breadcrumb, and being
# the newest it is what the fallback of bare -c picks.
no_terminal_chat() {
	hermes chat -q "$1" --no-agent -Q </dev/null >/dev/null 2>&1
}

test_expect_success SCRIPT 'a chat in a pty records a breadcrumb under its tty key' '
	run_in_pty "hermes chat -q first --no-agent -Q && tty >tty.out" >transcript &&
	grep "^/dev/" tty.out &&
	A=$(session_id_by_title first) &&
	echo "$(key_of tty.out).$MACHINE.json" >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual &&
	crumb=$HERMES_HOME/terminal-sessions/$(key_of tty.out).$MACHINE.json &&
	grep "\"session_id\":\"$A\"" "$crumb" &&
	grep "\"cwd\":\"$TRASH\"" "$crumb" &&
	grep "\"ts\":[0-9]" "$crumb" &&
	grep "\"leader\":\"[0-9][0-9]*@[0-9][0-9]*\"" "$crumb"
'

test_expect_success SCRIPT 'a second hermes in the same pty continues the first one'"'"'s session' '
	cat >steps.sh <<-\EOF &&
	hermes chat -q first --no-agent -Q &&
	hermes chat -q newer --no-agent -Q </dev/null >/dev/null 2>&1 &&
	hermes sessions current >current.out &&
	hermes chat -c -q "first again" --no-agent -Q
	EOF
	run_in_pty "sh steps.sh" >transcript &&
	A=$(session_id_by_title first) &&
	B=$(session_id_by_title newer) &&
	check_current current.out "$A" breadcrumb &&
	cat >expect <<-\EOF &&
	user: first
	user: first again
	EOF
	messages "$A" >actual &&
	test_cmp expect actual &&
	echo "user: newer" >expect &&
	messages "$B" >actual &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'a tty on stderr alone or stdout alone identifies the terminal' '
	cat >steps.sh <<-\EOF &&
	hermes chat -q first --no-agent </dev/null >/dev/null &&
	hermes chat -q newer --no-agent -Q </dev/null >/dev/null 2>&1 &&
	hermes chat -c -q "via stdout" --no-agent -Q </dev/null &&
	hermes chat -c -q "via stderr" --no-agent </dev/null >/dev/null
	EOF
	run_in_pty "sh steps.sh" >transcript &&
	A=$(session_id_by_title first) &&
	cat >expect <<-\EOF &&
	user: first
	user: via stdout
	user: via stderr
	EOF
	messages "$A" >actual &&
	test_cmp expect actual &&
	grep "session_id: $A" transcript
'

test_expect_success SCRIPT 'a tty wins over a pane variable' '
	run_in_pty "TMUX_PANE=%3 hermes chat -q first --no-agent -Q && tty >tty.out" >transcript &&
	echo "$(key_of tty.out).$MACHINE.json" >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'a later pty on a recycled tty name does not continue the old conversation' '
	run_in_pty "hermes chat -q first --no-agent -Q && tty >tty1.out" >transcript1 &&
	A=$(session_id_by_title first) &&
	no_terminal_chat newer &&
	B=$(session_id_by_title newer) &&
	old=$HERMES_HOME/terminal-sessions/$(key_of tty1.out).$MACHINE.json &&
	test -f "$old" &&
	cp "$old" old-crumb.json &&
	# Should the new pty not get the same /dev/pts/N, hand it the old breadcrumb
	# under its own name: what matters is the leader, not the name.
	cat >steps.sh <<-EOF &&
	key=tty\$(tty | sed "s,/,-,g") &&
	crumb="$HERMES_HOME/terminal-sessions/\$key.$MACHINE.json" &&
	{ test -f "\$crumb" || cp old-crumb.json "\$crumb"; } &&
	grep "\"session_id\":\"$A\"" "\$crumb" &&
	hermes sessions current >current.out &&
	hermes chat -c -q "second pty" --no-agent -Q &&
	tty >tty2.out
	EOF
	run_in_pty "sh steps.sh" >transcript2 &&
	check_current current.out "$B" workspace &&
	echo "user: first" >expect &&
	messages "$A" >actual &&
	test_cmp expect actual &&
	cat >expect <<-\EOF &&
	user: newer
	user: second pty
	EOF
	messages "$B" >actual &&
	test_cmp expect actual &&
	# The new terminal now has a breadcrumb of its own, with its own leader.
	new=$HERMES_HOME/terminal-sessions/$(key_of tty2.out).$MACHINE.json &&
	grep "\"session_id\":\"$B\"" "$new" &&
	leader() { sed "s/.*\"leader\":\"\([^\"]*\)\".*/\1/" "$1"; } &&
	test "$(leader old-crumb.json)" != "$(leader "$new")"
'

test_expect_success SCRIPT 'a breadcrumb whose leader was changed is ignored' '
	cat >steps.sh <<-\EOF &&
	hermes chat -q first --no-agent -Q &&
	hermes chat -q newer --no-agent -Q </dev/null >/dev/null 2>&1 &&
	hermes sessions current >current1.out &&
	crumb=$HERMES_HOME/terminal-sessions/tty$(tty | sed "s,/,-,g").$MACHINE.json &&
	sed "s/\"leader\":\"[^\"]*\"/\"leader\":\"1@1\"/" "$crumb" >crumb.new &&
	cp crumb.new "$crumb" &&
	hermes sessions current >current2.out
	EOF
	run_in_pty "sh steps.sh" >transcript &&
	grep "\"leader\":\"1@1\"" crumb.new &&
	check_current current1.out "$(session_id_by_title first)" breadcrumb &&
	check_current current2.out "$(session_id_by_title newer)" workspace
'

test_expect_success SCRIPT 'setsid with no tty inside a pty records nothing and -c falls back' '
	cat >steps.sh <<-\EOF &&
	hermes chat -q first --no-agent -Q &&
	setsid -w hermes chat -q newer --no-agent -Q </dev/null >/dev/null 2>&1 &&
	setsid -w hermes sessions current </dev/null >current.out 2>current.err &&
	setsid -w hermes chat -c -q "no terminal" --no-agent -Q </dev/null >/dev/null 2>&1 &&
	tty >tty.out
	EOF
	run_in_pty "sh steps.sh" >transcript &&
	test_must_be_empty current.err &&
	B=$(session_id_by_title newer) &&
	check_current current.out "$B" workspace &&
	cat >expect <<-\EOF &&
	user: newer
	user: no terminal
	EOF
	messages "$B" >actual &&
	test_cmp expect actual &&
	# Only the pty left a breadcrumb, and it still names the first session.
	echo "$(key_of tty.out).$MACHINE.json" >expect &&
	ls "$HERMES_HOME/terminal-sessions" >actual &&
	test_cmp expect actual &&
	grep "\"session_id\":\"$(session_id_by_title first)\"" \
		"$HERMES_HOME/terminal-sessions/$(key_of tty.out).$MACHINE.json"
'

test_expect_success SETSID 'with no terminal at all nothing is recorded and -c picks workspace, then latest' '
	mkdir a b c &&
	(cd a && setsid -w hermes chat -q older --no-agent -Q </dev/null >/dev/null 2>&1) &&
	(cd b && setsid -w hermes chat -q newer --no-agent -Q </dev/null >/dev/null 2>&1) &&
	! test -e "$HERMES_HOME/terminal-sessions" &&
	A=$(session_id_by_title older) &&
	B=$(session_id_by_title newer) &&
	(cd a && setsid -w hermes sessions current </dev/null >../current.out 2>&1) &&
	check_current current.out "$A" workspace &&
	(cd c && setsid -w hermes sessions current </dev/null >../current.out 2>&1) &&
	check_current current.out "$B" latest &&
	(cd a && setsid -w hermes chat -c -q continued --no-agent -Q </dev/null >/dev/null 2>&1) &&
	cat >expect <<-\EOF &&
	user: older
	user: continued
	EOF
	messages "$A" >actual &&
	test_cmp expect actual &&
	! test -e "$HERMES_HOME/terminal-sessions"
'

test_done
