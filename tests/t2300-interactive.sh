#!/bin/sh
test_description='interactive hermes chat in a tmux pane, read as plain lines (TERM=dumb): typing, slash commands, Ctrl-D, Ctrl-C, resume'
. "$(dirname "$0")/lib.sh"

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# Each test runs its own tmux server (start_tmux, in lib-fixtures.sh); the
# server, and any slow agent a failing test left running (by the pid it
# recorded), are stopped when the test's subshell exits.
stop_slow_agents() {
	for f in sleep.pid agent.pid; do
		if test -s $f && test "$(ps -o comm= -p "$(cat $f)")" = sleep; then
			kill "$(cat $f)"
		fi
	done
}

# start_dumb_pane: start_tmux, and wait for its shell's prompt; sets $PANE.
# The shell has TERM=dumb: these tests drive the plain line reading that a
# terminal without the line editor gets (t2310 tests the editor).
# Not in $(...): the trap must belong to the test's shell.
start_dumb_pane() {
	start_tmux &&
	trap 'stop_tmux; stop_slow_agents' EXIT &&
	# Type nothing before the shell is ready: its prompt would land in the
	# middle of what hermes prints.
	wait_until on_screen '^\$' &&
	tm send-keys -t "$PANE" -l "TERM=dumb; export TERM" &&
	tm send-keys -t "$PANE" Enter &&
	wait_until screen_count '^\$' 2
}

# PROMPT: a line that starts with one of hermes's prompts (the session's
# title, cut, then "> ", as the line-by-line prompt names it too).
PROMPT='^[^>]{0,60}> '

# prompts: how many hermes prompts the pane has shown.
prompts() {
	screen | grep -c -E "$PROMPT"
}

# prompts_reach N: the pane has shown N prompts or more.
prompts_reach() {
	test "$(prompts)" -ge "$1"
}

# send_line TEXT: type TEXT into hermes and wait until it has dealt with it
# and prompts again, so that what it prints is not mixed with what is typed
# next.
send_line() {
	before=$(prompts) &&
	type_line "$1" &&
	wait_until prompts_reach $((before + 1))
}

# hermes_ready: wait for hermes's first prompt.
hermes_ready() {
	wait_until prompts_reach 1
}

test_expect_success TMUX 'a line typed in interactive mode is saved to a new session' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\. Type a message, /help for commands, Ctrl-D to quit\.$" &&
	send_line "hello from tmux" &&
	wait_until sessions_are 1 &&
	S=$(session_id_by_title "hello from tmux") &&
	echo "user: hello from tmux" >expect &&
	wait_until has_messages "$S" expect &&
	type_line /quit &&
	hermes_exited 0 &&
	test_cmp expect actual.messages
'

test_expect_success TMUX 'slash commands /id, /title, /help, /sessions, /save and /quit' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\." &&
	send_line /id &&
	wait_until on_screen -x "(new session: saved with its first message)" &&
	send_line "first words" &&
	wait_until sessions_are 1 &&
	S=$(session_id_by_title "first words") &&
	send_line /id &&
	wait_until on_screen -x "$S" &&
	send_line /title &&
	wait_until on_screen -x "first words" &&
	send_line "/title Renamed here" &&
	wait_until on_screen "^renamed [0-9_a-f]* to '"'"'Renamed here'"'"'$" &&
	test "$(field "$S" title)" = "Renamed here" &&
	test "$(field "$S" title_source)" = user &&
	send_line /help &&
	wait_until on_screen "^/quit  " &&
	for cmd in /help /title /new /save /sessions /id; do
		on_screen "^$cmd " || exit 1
	done &&
	hermes chat -q "made elsewhere" --no-agent -Q &&
	send_line /sessions &&
	wait_until on_screen "made elsewhere" &&
	screen | grep "^\* Renamed here  .*  1  $S\$" &&
	screen | grep "^  made elsewhere  " &&
	send_line "/save saved.md" &&
	wait_until on_screen -x "Saved to saved.md." &&
	grep "first words" saved.md &&
	grep "Renamed here" saved.md &&
	send_line /nonsense &&
	wait_until on_screen "Unknown command '"'"'/nonsense'"'"'" &&
	type_line /quit &&
	hermes_exited 0 &&
	echo "user: first words" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX '/new starts another session, which the pane then continues' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\." &&
	send_line "first thread" &&
	wait_until sessions_are 1 &&
	send_line /new &&
	wait_until on_screen "^New session\. It is saved with its first message\.$" &&
	send_line "second thread" &&
	wait_until sessions_are 2 &&
	send_line "/new Third title" &&
	wait_until screen_count "^New session\. It is saved" 2 &&
	send_line "third thread" &&
	wait_until sessions_are 3 &&
	type_line /quit &&
	hermes_exited 0 &&
	echo "user: first thread" >expect &&
	messages "$(session_id_by_title "first thread")" >actual &&
	test_cmp expect actual &&
	echo "user: second thread" >expect &&
	messages "$(session_id_by_title "second thread")" >actual &&
	test_cmp expect actual &&
	T=$(session_id_by_title "Third title") &&
	echo "user: third thread" >expect &&
	messages "$T" >actual &&
	test_cmp expect actual &&
	type_line "hermes sessions current >current.tmp; mv current.tmp current.out" &&
	wait_until test -f current.out &&
	grep "^$T	Third title	breadcrumb " current.out
'

test_expect_success TMUX '/new and /title refuse a title another session holds, and change nothing' '
	hermes chat -q "taken title" --no-agent -Q &&
	T=$(session_id_by_title "taken title") &&
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	send_line "first here" &&
	S=$(session_id_by_title "first here") &&
	send_line "/new taken title" &&
	on_screen "already used by session $T" &&
	send_line "still here" &&
	send_line "/new $(printf "%0101d" 0)" &&
	send_line "and still here" &&
	send_line /new &&
	send_line "/title taken title" &&
	test "$(screen | grep -c "already used by session $T")" = 2 &&
	send_line "a new one" &&
	type_line /quit &&
	hermes_exited 0 &&
	cat >expect <<-\EOF &&
	user: first here
	user: still here
	user: and still here
	EOF
	messages "$S" >actual &&
	test_cmp expect actual &&
	echo "user: taken title" >expect &&
	messages "$T" >actual &&
	test_cmp expect actual &&
	echo "user: a new one" >expect &&
	messages "$(session_id_by_title "a new one")" >actual &&
	test_cmp expect actual &&
	test "$(session_count)" = 3
'

test_expect_success TMUX 'Ctrl-D quits with status 0 and an untouched new session is not saved' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\." &&
	tm send-keys -t "$PANE" C-d &&
	hermes_exited 0 &&
	test "$(session_count)" = 0
'

test_expect_success TMUX 'Ctrl-D after a message quits and keeps it' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\." &&
	send_line "keep me" &&
	wait_until sessions_are 1 &&
	tm send-keys -t "$PANE" C-d &&
	hermes_exited 0 &&
	echo "user: keep me" >expect &&
	messages "$(session_id_by_title "keep me")" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'Ctrl-C at the prompt drops the line, not the program' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	on_screen "^New session\." &&
	tm send-keys -t "$PANE" -l "half typed" &&
	wait_until on_screen "half typed" &&
	tm send-keys -t "$PANE" C-c &&
	wait_until prompts_reach 2 &&
	send_line "real message" &&
	wait_until sessions_are 1 &&
	type_line /quit &&
	hermes_exited 0 &&
	echo "user: real message" >expect &&
	messages "$(session_id_by_title "real message")" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'bare -c resumes this pane'"'"'s session and shows title, ID, count and the last messages' '
	start_dumb_pane &&
	type_line "hermes chat -q \"msg 1\" --title \"long talk\" --no-agent -Q && for n in 2 3 4 5 6; do hermes chat -c -q \"msg \$n\" --no-agent -Q; done; echo \$? >setup.tmp; mv setup.tmp setup.rc" &&
	wait_until test -f setup.rc &&
	test "$(cat setup.rc)" = 0 &&
	S=$(session_id_by_title "long talk") &&
	hermes chat -q "newer, elsewhere" --no-agent -Q &&
	start_hermes "chat -c --no-agent" &&
	wait_until on_screen -x "Resuming '"'"'long talk'"'"' ($S), 6 messages: this terminal'"'"'s session\." &&
	on_screen -x "(2 earlier messages not shown: hermes sessions show $S)" &&
	wait_until on_screen -x "msg 6" &&
	on_screen -x "msg 5" &&
	! on_screen -x "msg 1" &&
	hermes_ready &&
	send_line "msg 7" &&
	cat >expect <<-\EOF &&
	user: msg 1
	user: msg 2
	user: msg 3
	user: msg 4
	user: msg 5
	user: msg 6
	user: msg 7
	EOF
	wait_until has_messages "$S" expect &&
	send_line /id &&
	wait_until on_screen -x "$S" &&
	type_line /quit &&
	hermes_exited 0
'

test_expect_success TMUX 'resuming by name points this pane'"'"'s breadcrumb at that session' '
	start_dumb_pane &&
	hermes chat -q "old talk" --no-agent -Q &&
	S=$(session_id_by_title "old talk") &&
	hermes chat -q "newest talk" --no-agent -Q &&
	start_hermes "chat -c '"'"'old talk'"'"' --no-agent" &&
	wait_until on_screen -x "Resuming '"'"'old talk'"'"' ($S), 1 message\." &&
	hermes_ready &&
	type_line /quit &&
	hermes_exited 0 &&
	type_line "hermes sessions current >current.tmp; mv current.tmp current.out" &&
	wait_until test -f current.out &&
	grep "^$S	old talk	breadcrumb " current.out
'

test_expect_success TMUX '--create-if-missing in a terminal creates the named session before any message' '
	start_dumb_pane &&
	start_hermes "chat -c '"'"'named thread'"'"' --create-if-missing --no-agent" &&
	wait_until sessions_are 1 &&
	S=$(session_id_by_title "named thread") &&
	wait_until on_screen -x "New session '"'"'named thread'"'"' ($S)." &&
	test "$(field "$S" title_source)" = user &&
	hermes_ready &&
	send_line "into the thread" &&
	echo "user: into the thread" >expect &&
	wait_until has_messages "$S" expect &&
	tm send-keys -t "$PANE" C-d &&
	hermes_exited 0 &&
	type_line "hermes sessions current >current.tmp; mv current.tmp current.out" &&
	wait_until test -f current.out &&
	grep "^$S	named thread	breadcrumb " current.out
'

test_expect_success TMUX 'the agent'"'"'s reply is shown and saved' '
	start_dumb_pane &&
	start_hermes "chat --agent '"'"'cat >/dev/null; echo \"hi, human\"'"'"'" &&
	hermes_ready &&
	on_screen "^New session\." &&
	send_line "hello agent" &&
	wait_until on_screen -x "hi, human" &&
	S=$(session_id_by_title "hello agent") &&
	cat >expect <<-\EOF &&
	user: hello agent
	assistant: hi, human
	EOF
	wait_until has_messages "$S" expect &&
	type_line /quit &&
	hermes_exited 0
'

test_expect_success TMUX 'Ctrl-C while a slow agent runs stops it and keeps the conversation' '
	cat >agent.sh <<-\EOF &&
	cat >/dev/null
	if test -e be-slow; then
		rm be-slow
		echo "partial reply"
		sleep 60 &
		echo $! >sleep.pid
		wait
		echo "never shown"
	else
		echo "quick reply"
	fi
	EOF
	: >be-slow &&
	start_dumb_pane &&
	start_hermes "chat --agent '"'"'sh agent.sh'"'"'" &&
	hermes_ready &&
	on_screen "^New session\." &&
	type_line "please wait" &&
	wait_until on_screen -x "partial reply" &&
	wait_until test -s sleep.pid &&
	tm send-keys -t "$PANE" C-c &&
	wait_until on_screen -F -x "[reply interrupted; the conversation is kept; /retry asks again]" &&
	wait_until gone "$(cat sleep.pid)" &&
	S=$(session_id_by_title "please wait") &&
	messages "$S" >actual &&
	echo "user: please wait" >expect &&
	head -n 1 actual >actual.first &&
	test_cmp expect actual.first &&
	! grep "never shown" actual &&
	send_line "are you there" &&
	wait_until on_screen -x "quick reply" &&
	cat >expect <<-\EOF &&
	user: are you there
	assistant: quick reply
	EOF
	wait_until eval "messages $S | tail -n 2 | cmp -s expect -" &&
	messages "$S" | head -n 1 >actual.first &&
	echo "user: please wait" >expect &&
	test_cmp expect actual.first &&
	! on_screen "never shown" &&
	type_line /quit &&
	hermes_exited 0
'

test_expect_success TMUX 'Ctrl-C before a slow agent said anything keeps the user message' '
	start_dumb_pane &&
	start_hermes "chat --agent '"'"'cat >/dev/null; echo \$\$ >agent.pid; exec sleep 60'"'"'" &&
	hermes_ready &&
	on_screen "^New session\." &&
	type_line "are you slow" &&
	wait_until test -s agent.pid &&
	tm send-keys -t "$PANE" C-c &&
	wait_until on_screen -F -x "[reply interrupted; the conversation is kept; /retry asks again]" &&
	gone "$(cat agent.pid)" &&
	echo "user: are you slow" >expect &&
	messages "$(session_id_by_title "are you slow")" >actual &&
	test_cmp expect actual &&
	send_line /id &&
	wait_until on_screen -x "$(session_id_by_title "are you slow")" &&
	type_line /quit &&
	hermes_exited 0
'

test_expect_success TMUX 'a failing agent is reported and the chat goes on' '
	start_dumb_pane &&
	start_hermes "chat --agent '"'"'cat >/dev/null; exit 5'"'"'" &&
	hermes_ready &&
	on_screen "^New session\." &&
	send_line "will fail" &&
	wait_until on_screen "status 5" &&
	send_line /id &&
	S=$(session_id_by_title "will fail") &&
	wait_until on_screen -x "$S" &&
	echo "user: will fail" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual &&
	type_line /quit &&
	hermes_exited 0
'

test_expect_success TMUX 'closing the pane ends hermes and stops the agent; the message stays' '
	start_dumb_pane &&
	type_line "sh -c '"'"'echo \$\$ >hermes.pid; exec hermes chat --agent \"cat >/dev/null; echo \\\$\\\$ >agent.pid; exec sleep 60\"'"'"'" &&
	hermes_ready &&
	type_line "lost connection" &&
	wait_until test -s agent.pid &&
	kill -0 "$(cat hermes.pid)" &&
	tm kill-pane -t "$PANE" &&
	wait_until gone "$(cat hermes.pid)" &&
	wait_until gone "$(cat agent.pid)" &&
	echo "user: lost connection" >expect &&
	messages "$(session_id_by_title "lost connection")" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'errors inside the chat are said and the chat goes on: /save, /title, invisible lines' '
	start_dumb_pane &&
	start_hermes "chat --no-agent" &&
	hermes_ready &&
	send_line "kept going" &&
	S=$(session_id_by_title "kept going") &&
	send_line "/save $TRASH/no/such/dir/x.md" &&
	on_screen "^hermes: .*no/such/dir" &&
	# ~/ is the home directory, as in a shell.
	mkdir -p "$HOME" &&
	send_line "/save ~/from-home.md" &&
	grep "^kept going" "$HOME/from-home.md" &&
	# A usage error in the chat gets no hint about hermes --help.
	send_line "/title $(printf "\342\200\213")" &&
	on_screen "^hermes: a title cannot be empty" &&
	! on_screen "Try .hermes --help" &&
	# A line of only zero-width spaces and bidi marks is not sent.
	send_line "$(printf "\342\200\213\342\200\256")" &&
	on_screen "^hermes: the message holds only invisible characters; nothing to send$" &&
	send_line "still here" &&
	type_line /quit &&
	hermes_exited 0 &&
	printf "user: kept going\nuser: still here\n" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual &&
	test "$(session_count)" = 1
'

# strace(1) that can delay a system call (ptrace may be forbidden).
test_lazy_prereq STRACE_DELAY 'strace -o /dev/null -e inject=fdatasync:delay_enter=1 true'

test_expect_success TMUX,STRACE_DELAY 'a Ctrl-C after a reply (while it is saved) does not stop the next one' '
	start_dumb_pane &&
	# Every fdatasync takes 3 s: the reply is on screen while it is saved.
	type_line "strace -o /dev/null -e inject=fdatasync:delay_enter=3000000 hermes chat --agent \"cat >/dev/null; echo pong\"; echo \$? >hermes.rc" &&
	hermes_ready &&
	type_line first &&
	wait_until on_screen "^pong$" &&
	tm send-keys -t "$PANE" C-c &&
	# Not echoed (the reply is still being saved: echo is off), and spent.
	wait_until prompts_reach 2 &&
	send_line second &&
	wait_until screen_count "^pong$" 2 &&
	type_line /quit &&
	hermes_exited 0 &&
	! on_screen "reply interrupted" &&
	printf "user: first\nassistant: pong\nuser: second\nassistant: pong\n" >expect &&
	messages "$(session_id_by_title first)" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'Ctrl-C at the question of sessions delete stops at once: exit 130, nothing deleted' '
	hermes chat -q "keep me" --no-agent -Q &&
	start_dumb_pane &&
	start_hermes "sessions delete \"keep me\"" &&
	wait_until on_screen "\[y/N\]" &&
	tm send-keys -t "$PANE" C-c &&
	hermes_exited 130 &&
	on_screen "^hermes: interrupted$" &&
	session_id_by_title "keep me"
'

test_done
