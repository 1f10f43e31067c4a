#!/bin/sh
test_description='the line editor of the interactive prompt, in a tmux pane: keys, wide characters, paste, history, an external editor, resize, Ctrl-Z'
. "$(dirname "$0")/lib.sh"

# tmux runs pane commands with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

# cursor_at X: the pane's cursor is in column X (0-based).
cursor_at() {
	test "$(tm display -p -t "$PANE" '#{cursor_x}')" = "$1"
}

# TMPFS: root may mount a small tmpfs: a disk that can be filled.
test_lazy_prereq TMPFS 'test "$(id -u)" = 0 && d=$(mktemp -d) &&
	mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"'

# no_escapes: no session file holds an escape character or a C0 control
# other than newline and tab (as JSON writes them: \u001b and the like).
no_escapes() {
	! grep -l '\\u00[01]' "$HERMES_HOME"/sessions/*.json
}

test_expect_success TMUX 'cursor keys, Home/End and Emacs keys edit the line; nothing of them is stored' '
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "hello wrld" &&
	keys Left Left Left o &&
	keys Home && typed "[" && keys End && typed "]" &&
	keys C-a C-f && typed "<" && keys C-e C-b && typed ">" &&
	wait_until on_screen -F -x "new session> [<hello world>]" &&
	keys Enter &&
	wait_until sessions_are 1 &&
	S=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	# Alt-B/F move by words; Ctrl-W cuts a word, Ctrl-Y puts it back;
	# Ctrl-U and Ctrl-K cut to the start and the end.
	wait_until ready "[<hello world>]>" &&
	typed "one two three" &&
	keys M-b M-b && typed "2 " && keys M-f && typed "+" &&
	keys End C-w && typed "tres " && keys C-y &&
	wait_until on_screen -F -x "[<hello world>]> one 2 two+ tres three" &&
	keys Enter &&
	typed "drop all this" && keys C-u && typed "kept" &&
	typed " tail" && keys M-b C-k &&
	# "kept ": Delete at the end does nothing; then "kep|t " loses t and p.
	keys Delete Delete Left Left Delete BSpace &&
	keys Enter &&
	# Ctrl-L clears the screen and draws the prompt again.
	typed "after clear" && keys C-l && typed "!" && keys Enter &&
	cat >expect <<-\EOF &&
	user: [<hello world>]
	user: one 2 two+ tres three
	user: ke
	user: after clear!
	EOF
	wait_until has_messages "$S" expect &&
	wait_until ready "[<hello world>]>" &&
	keys C-d &&
	hermes_exited 0 &&
	no_escapes
'

test_expect_success TMUX 'Chinese and emoji: two columns each, edited by character' '
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "调试中文" &&
	# "new session> " is 13 columns; four wide characters take 8 more.
	wait_until cursor_at 21 &&
	keys Left Left &&
	wait_until cursor_at 17 &&
	keys BSpace && typed "好😀" &&
	wait_until cursor_at 19 &&
	keys End &&
	wait_until cursor_at 23 &&
	wait_until on_screen -x "new session> 调好😀中文" &&
	keys Enter &&
	wait_until sessions_are 1 &&
	echo "user: 调好😀中文" >expect &&
	wait_until has_messages "$(session_id_by_title "调好😀中文")" expect &&
	wait_until ready "调好😀中文>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'a long line wraps, edits at its start, and survives a resize' '
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	long=$(printf "%s" "word-" "word-" "word-" "word-" "word-" "word-" "word-" "word-" "word-" "word-" &&
		printf "%s" "宽字" "宽字" "宽字" "宽字" "宽字" "宽字" "宽字" "宽字" "宽字" "宽字") &&
	long="$long$long$long$long" &&
	typed "$long" &&
	wait_until on_screen "宽字宽字$" &&
	tm resize-window -t "$PANE" -x 40 -y 30 &&
	keys Home && typed "START " &&
	keys End && typed " END" &&
	tm resize-window -t "$PANE" -x 150 -y 50 &&
	keys C-a C-f && typed "|" &&
	keys Enter &&
	wait_until sessions_are 1 &&
	S=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	echo "user: S|TART $long END" >expect &&
	wait_until has_messages "$S" expect &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'a bracketed paste is one message, with its lines and indentation' '
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "explain: " &&
	paste "def f(x):
    if x:
        return 1
	return 2
" &&
	wait_until on_screen -x "        return 1" &&
	# Alt-Enter and Ctrl-J start a new line too; Enter sends it all.
	keys M-Enter && typed "and" && keys C-j && typed "more" &&
	keys Enter &&
	wait_until sessions_are 1 &&
	S=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	wait_until grep -F "\"content\":\"explain: def f(x):\\n    if x:\\n        return 1\\n\\treturn 2\\n\\nand\\nmore\"" "$HERMES_HOME/sessions/$S.json" &&
	messages "$S" >actual &&
	test_line_count = 1 actual &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'Up and Down step through this session'"'"'s messages; Ctrl-R finds one' '
	hermes chat -q "other session" --no-agent -Q &&
	hermes chat -q "first question" --title history --no-agent -Q &&
	hermes chat -c history -q "second question" --no-agent -Q &&
	hermes chat -c history -q "third one" --no-agent -Q &&
	S=$(session_id_by_title history) &&
	start_pane &&
	start_hermes "chat -c history --no-agent" &&
	wait_until ready "history>" &&
	typed "draft" &&
	keys Up &&
	wait_until ready "history> third one" &&
	keys Up Up &&
	wait_until ready "history> first question" &&
	keys Up &&
	wait_until ready "history> first question" &&
	keys Down Down Down &&
	wait_until ready "history> draft" &&
	keys C-u C-r && typed "sec" &&
	wait_until ready "(search: sec, in '"'"'history'"'"') second question" &&
	keys Enter &&
	keys C-r && typed "nothing like it" &&
	wait_until ready "(no match: nothing like it) second question" &&
	keys C-g &&
	wait_until ready "history>" &&
	keys Up && typed " again" && keys Enter &&
	cat >expect <<-\EOF &&
	user: first question
	user: second question
	user: third one
	user: second question
	user: second question again
	EOF
	wait_until has_messages "$S" expect &&
	wait_until ready "history>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'Ctrl-C clears the line; Ctrl-D on a line deletes, on an empty one quits' '
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "half typed" && keys C-c &&
	wait_until ready "new session>" &&
	typed "abc" && keys Home C-d && keys Enter &&
	wait_until sessions_are 1 &&
	echo "user: bc" >expect &&
	wait_until has_messages "$(session_id_by_title bc)" expect &&
	wait_until ready "bc>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX '/edit and Ctrl-X Ctrl-E compose in $VISUAL' '
	cat >compose.sh <<-\EOF &&
	#!/bin/sh
	# A scripted editor: a message of two lines, or the text given plus " (edited)".
	if test -s "$1"; then
		printf "%s (edited)\n" "$(cat "$1")" >"$1.new" && mv "$1.new" "$1"
	else
		printf "written in\nthe editor\n" >"$1"
	fi
	echo "$1" >>edited-files
	EOF
	chmod +x compose.sh &&
	start_pane &&
	typed "VISUAL=\"\$PWD/compose.sh\" EDITOR=false hermes chat --no-agent; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc" &&
	keys Enter &&
	wait_until ready "new session>" &&
	typed "/edit" && keys Enter &&
	# As Ctrl-X Ctrl-E: the text comes back to the prompt; Enter sends it.
	wait_until ready "the editor" &&
	sessions_are 0 &&
	keys Enter &&
	wait_until sessions_are 1 &&
	S=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	wait_until ready "written in>" &&
	typed "draft line" && keys C-x C-e &&
	wait_until ready "written in> draft line (edited)" &&
	# The line as it stood before the editor is not left on the screen.
	! on_screen -x "written in> draft line" &&
	keys Enter &&
	printf "%s\n" "user: written in\\nthe editor" "user: draft line (edited)" >expect &&
	wait_until has_messages "$S" expect &&
	# The file the editor was given is gone.
	test_line_count = 2 edited-files &&
	! test -e "$(head -n 1 edited-files)" &&
	keys C-d &&
	hermes_exited 0
' 

test_expect_success TMUX 'Ctrl-Z stops hermes with the terminal given back; fg draws the prompt again' '
	start_pane &&
	typed "hermes chat --no-agent" && keys Enter &&
	wait_until ready "new session>" &&
	typed "before" &&
	keys C-z &&
	wait_until on_screen "Stopped" &&
	# The shell has a sane terminal: what is typed is echoed.
	typed "echo shell-sees-this" && keys Enter &&
	wait_until on_screen -x "shell-sees-this" &&
	typed "fg; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc" && keys Enter &&
	wait_until ready "new session> before" &&
	typed " after" && keys Enter &&
	wait_until sessions_are 1 &&
	echo "user: before after" >expect &&
	wait_until has_messages "$(session_id_by_title "before after")" expect &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'TERM=dumb keeps plain line reading, and no escape sequence is stored' '
	start_pane &&
	tm send-keys -t "$PANE" -l "TERM=dumb hermes chat --no-agent; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc" &&
	keys Enter &&
	wait_until ready "new session>" &&
	typed "plain" && keys Left Up && typed " text" && keys Enter &&
	wait_until sessions_are 1 &&
	S=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	echo "user: plain text" >expect &&
	wait_until has_messages "$S" expect &&
	keys C-d &&
	hermes_exited 0 &&
	no_escapes
'

test_expect_success TMUX 'the prompt names the session, shortened to fit; /continue NAME switches, breadcrumb too' '
	hermes chat -q "why is redis slow" --title "redis debug" --no-agent -Q </dev/null &&
	R=$(session_id_by_title "redis debug") &&
	long="a title long enough to be shortened in the prompt of a pane of one hundred and fifty columns" &&
	hermes chat -q "long one" --title "$long" --no-agent -Q </dev/null &&
	start_pane &&
	start_hermes "chat -c \"$long\" --no-agent" &&
	# A third of the 150 columns: 50, the last of them an ellipsis.
	wait_until ready "a title long enough to be shortened in the…>" &&
	typed "/continue redis debug" && keys Enter &&
	wait_until on_screen -x "Resuming '"'"'redis debug'"'"' ($R), 1 message." &&
	wait_until ready "redis debug>" &&
	typed "/continue no such thing" && keys Enter &&
	wait_until on_screen "no such thing" &&
	wait_until ready "redis debug>" &&
	typed "still redis" && keys Enter &&
	printf "%s\n" "user: why is redis slow" "user: still redis" >expect &&
	wait_until has_messages "$R" expect &&
	keys C-d &&
	hermes_exited 0 &&
	typed "hermes sessions current >current.tmp; mv current.tmp current.out" && keys Enter &&
	wait_until test -f current.out &&
	grep "^$R	redis debug	breadcrumb " current.out
'

test_expect_success TMUX 'the resume line says which rule chose the session' '
	mkdir here &&
	(cd / && hermes chat -q "far away" --no-agent -Q </dev/null) &&
	start_pane &&
	start_hermes "chat -c --no-agent" &&
	wait_until on_screen "^Resuming '"'"'far away'"'"' (.*), 1 message: the most recent of all (none in this terminal or workspace)\.$" &&
	wait_until ready "far away>" &&
	keys C-d &&
	hermes_exited 0 &&
	rm hermes.rc &&
	# A new pane, in a workspace that has a session of its own.
	tm kill-server &&
	(cd here && hermes chat -q "near by" --no-agent -Q </dev/null) &&
	# On a socket of its own: a server started on the old one while that
	# one is still shutting down dies with it ("server exited
	# unexpectedly"), about one time in three.
	start_pane second &&
	typed "cd here" && keys Enter &&
	start_hermes "chat -c --no-agent" &&
	wait_until on_screen "^Resuming '"'"'near by'"'"' (.*), 1 message: the most recent in this workspace (none yet in this terminal)\.$" &&
	wait_until ready "near by>" &&
	keys C-d &&
	wait_until test -f here/hermes.rc
'

test_expect_success TMUX 'Ctrl-C cuts a reply, which is saved marked interrupted; /retry asks again' '
	cat >agent.sh <<-\EOF &&
	cat >/dev/null
	if test -e be-slow; then
		rm be-slow
		echo "partial reply"
		sleep 60 &
		echo $! >sleep.pid
		wait
	else
		echo "whole reply"
	fi
	EOF
	: >be-slow &&
	start_pane &&
	start_hermes "chat --agent '"'"'sh agent.sh'"'"'" &&
	wait_until ready "new session>" &&
	typed "tell me" && keys Enter &&
	wait_until on_screen -x "partial reply" &&
	wait_until test -s sleep.pid &&
	keys C-c &&
	wait_until on_screen -F -x "[reply interrupted; the conversation is kept; /retry asks again]" &&
	S=$(session_id_by_title "tell me") &&
	wait_until grep -F "\"content\":\"partial reply\",\"ts\":" "$HERMES_HOME/sessions/$S.json" &&
	grep -F "\"interrupted\":true}" "$HERMES_HOME/sessions/$S.json" &&
	hermes sessions show "$S" >shown &&
	grep "^\[assistant, interrupted\] " shown &&
	wait_until ready "tell me>" &&
	typed "/retry" && keys Enter &&
	wait_until on_screen -x "whole reply" &&
	printf "%s\n" "user: tell me" "assistant: partial reply" "assistant: whole reply" >expect &&
	wait_until has_messages "$S" expect &&
	# The cut reply is kept, marked replaced too; the agent was not sent it.
	grep -F "\"interrupted\":true,\"replaced\":true}" "$HERMES_HOME/sessions/$S.json" &&
	wait_until ready "tell me>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'failed sends do not pile up: the next message joins the unanswered one; /retry sends it' '
	cat >agent.sh <<-\EOF &&
	cat >/dev/null
	if test -e down; then
		echo "connection refused" >&2
		exit 7
	fi
	echo "answered"
	EOF
	: >down &&
	start_pane &&
	start_hermes "chat --agent '"'"'sh agent.sh'"'"'" &&
	wait_until ready "new session>" &&
	typed "first try" && keys Enter &&
	wait_until on_screen -F "[the message is kept; /retry sends it again, or type more to add to it]" &&
	S=$(session_id_by_title "first try") &&
	wait_until ready "first try>" &&
	typed "first try" && keys Enter &&
	wait_until screen_count "^\[the message is kept" 2 &&
	wait_until ready "first try>" &&
	typed "and some more" && keys Enter &&
	wait_until screen_count "^\[the message is kept" 3 &&
	printf "%s\n" "user: first try\\n\\nand some more" >expect &&
	wait_until has_messages "$S" expect &&
	rm down &&
	wait_until ready "first try>" &&
	typed "/retry" && keys Enter &&
	wait_until on_screen -x "answered" &&
	printf "%s\n" "user: first try\\n\\nand some more" "assistant: answered" >expect &&
	wait_until has_messages "$S" expect &&
	# The prompt back first: a key pressed while the reply ends is not
	# the prompt input.
	wait_until ready "first try>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'a SIGTERM at the prompt ends hermes (130) with the terminal given back' '
	start_pane &&
	typed "sh -c '"'"'echo \$\$ >hermes.pid; exec hermes chat --no-agent'"'"'; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc" &&
	keys Enter &&
	wait_until ready "new session>" &&
	typed "unsent" &&
	kill -TERM "$(cat hermes.pid)" &&
	hermes_exited 130 &&
	typed "stty -a >stty.tmp && mv stty.tmp stty.out" && keys Enter &&
	wait_until test -f stty.out &&
	grep -w echo stty.out && grep -w icanon stty.out && grep -w isig stty.out &&
	! grep -F "[?2004h" stty.out &&
	test "$(session_count)" = 0
'

test_expect_success SCRIPT 'a terminal that does not answer gets plain lines, and loses nothing typed meanwhile' '
	# script(1) gives hermes a pty that nobody answers for.
	{ printf "typed at once\n"; sleep 2; printf "later \033[Aline\n"; sleep 1; } |
		TERM=xterm script -qec "hermes chat --no-agent" /dev/null >transcript &&
	S=$(session_id_by_title "typed at once") &&
	printf "%s\n" "user: typed at once" "user: later line" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual &&
	no_escapes
'

# stop_all: the pane's server, then the small disk, detached at once even
# while a process that has not died yet still has a file open there.
stop_all() {
	stop_tmux
	umount -l "$TRASH/disk" 2>/dev/null
}

test_expect_success TMUX,TMPFS 'a message that could not be saved (a full disk) stays at the prompt and in history; Enter sends it again' '
	mkdir disk &&
	mount -t tmpfs -o size=256k tmpfs disk &&
	trap stop_all EXIT &&
	HERMES_HOME=$TRASH/disk/home &&
	hermes chat --title full -q first --no-agent -Q &&
	S=$(session_id_by_title full) &&
	start_pane &&
	trap stop_all EXIT &&
	start_hermes "chat -c full --no-agent" &&
	wait_until ready "full>" &&
	{ dd if=/dev/zero of=disk/filler bs=4096 2>/dev/null || :; } &&
	typed "typed on a full disk" && keys Enter &&
	wait_until on_screen -F "[the message was not saved; it is back at the prompt: Enter sends it again]" &&
	on_screen "No space left on device" &&
	wait_until ready "full> typed on a full disk" &&
	echo "user: first" >expect &&
	has_messages "$S" expect &&
	keys C-u && wait_until ready "full>" &&
	keys Up && wait_until ready "full> typed on a full disk" &&
	rm disk/filler &&
	keys Enter &&
	printf "%s\n" "user: first" "user: typed on a full disk" >expect &&
	wait_until has_messages "$S" expect &&
	wait_until ready "full>" &&
	keys C-d && hermes_exited 0
'

test_done
