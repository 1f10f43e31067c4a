#!/bin/sh
test_description='a reply on the interactive screen, in a tmux pane: shown whole (no final newline), not garbled by typing, a waiting sign, Markdown drawn, colours dropped under NO_COLOR'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

test_expect_success TMUX 'a reply without a final newline is shown whole, and saved as sent' '
	agent no-newline "printf \"line one\\nno newline at end\"" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/no-newline" &&
	wait_until on_screen "^new session> " &&
	typed "hi" && keys Enter &&
	wait_until on_screen "^hi>" &&
	the_screen actual &&
	cat >expect <<-\EOF &&
	New session. Type a message, /help for commands, Ctrl-D to quit.
	new session> hi
	line one
	no newline at end
	hi>
	EOF
	test_cmp expect actual &&
	S=$(session_id_by_title hi) &&
	echo "user: hi" >expect &&
	printf "%s\n" "assistant: line one\\nno newline at end" >>expect &&
	messages "$S" >actual &&
	test_cmp expect actual
'

test_expect_success TMUX 'keys typed while a reply streams wait for the next prompt, unseen' '
	agent slow "printf \"The answer \"; touch $TRASH/started; gate; printf \"is 42.\\n\"" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/slow" &&
	wait_until on_screen "^new session> " &&
	typed "question" && keys Enter &&
	wait_until test -e started &&
	wait_until on_screen "^The answer" &&
	typed "my next question" &&
	touch gate &&
	wait_until on_screen "^The answer is 42\.$" &&
	wait_until on_screen "^question> my next question$" &&
	! on_screen "my next questionis" &&
	! on_screen "The answer my next"
'

test_expect_success TMUX 'a waiting sign until the first byte, erased when the reply comes' '
	agent late "touch $TRASH/started; gate; echo at last" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/late" &&
	wait_until on_screen "^new session> " &&
	typed "hello" && keys Enter &&
	wait_until test -e started &&
	wait_until on_screen "^… [1-9]s$" &&
	touch gate &&
	wait_until on_screen "^at last$" &&
	! on_screen "…" &&
	S=$(session_id_by_title hello) &&
	printf "user: hello\nassistant: at last\n" >expect &&
	messages "$S" >actual &&
	test_cmp expect actual
'

# markdown_reply: a reply in Markdown, to reply.md.
markdown_reply() {
	cat >reply.md <<-\EOF
	# Setup

	Run **this** with `sh`:

	```sh
	echo *not bold*
	```

	- see [the docs](https://example.org/docs)
	> quoted
	EOF
}

test_expect_success TMUX 'a Markdown reply is drawn: code set apart with its language; the file keeps the Markdown' '
	markdown_reply &&
	agent md "cat $TRASH/reply.md" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/md" &&
	wait_until on_screen "^new session> " &&
	typed "how" && keys Enter &&
	wait_until on_screen "^how>" &&
	the_screen actual &&
	cat >expect <<-\EOF &&
	New session. Type a message, /help for commands, Ctrl-D to quit.
	new session> how
	Setup

	Run this with sh:

	── sh ──────────────────────────────────────────────────────
	echo *not bold*
	────────────────────────────────────────────────────────────

	• see the docs (https://example.org/docs)
	│ quoted
	how>
	EOF
	test_cmp expect actual &&
	S=$(session_id_by_title how) &&
	messages "$S" | tail -n +2 >actual &&
	{ printf "assistant: " && sed -e :a -e "N;\$!ba" -e "s/\n/\\\\n/g" reply.md; } >expect &&
	test_cmp expect actual
'

test_expect_success TMUX '--plain, render = "plain" and TERM=dumb show the Markdown as sent' '
	markdown_reply &&
	agent md "cat $TRASH/reply.md" &&
	start_pane &&
	start_hermes "chat --plain --agent $TRASH/md" &&
	wait_until on_screen "^new session> " &&
	typed "how" && keys Enter &&
	wait_until on_screen "^how>" &&
	on_screen "^\`\`\`sh$" &&
	on_screen "^Run \*\*this\*\* with \`sh\`:$" &&
	keys C-d && wait_until test -f hermes.rc &&
	echo "render = \"plain\"" >"$HERMES_HOME/config.toml" &&
	# The screen and its history cleared first: the prompt of the last
	# chat, still on it, must not be taken for the new one (typing into a
	# hermes not yet started).
	rm hermes.rc && tm send-keys -t "$PANE" -l "clear; tmux -S $SOCKET clear-history" && keys Enter &&
	wait_until eval "! on_screen \"^new session> \"" &&
	start_hermes "chat --agent $TRASH/md" &&
	wait_until on_screen "^new session> " &&
	typed "again" && keys Enter &&
	wait_until on_screen "^again>" &&
	on_screen "^\`\`\`sh$" &&
	keys C-d && wait_until test -f hermes.rc && rm hermes.rc &&
	rm "$HERMES_HOME/config.toml" &&
	tm send-keys -t "$PANE" -l "clear; tmux -S $SOCKET clear-history; TERM=dumb" && keys Enter &&
	wait_until eval "! on_screen \"^how> \"" &&
	start_hermes "chat -c how --agent $TRASH/md" &&
	wait_until on_screen "^how> " &&
	typed "again" && keys Enter &&
	wait_until screen_count "^how> " 2 &&
	on_screen "^\`\`\`sh$"
'

# reply_line_raw: the pane's line of the reply "green and ...", its attributes as
# escape sequences.
reply_line_raw() {
	tm capture-pane -p -e -t "$PANE" | grep "green.* and "
}

test_expect_success TMUX 'under NO_COLOR an agent'"'"'s colours are dropped, not shown as ^[[' '
	agent colour "printf \"\\033[1;32mgreen\\033[0m and **bold**\\n\"" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/colour" &&
	wait_until on_screen "^new session> " &&
	typed "c" && keys Enter &&
	wait_until on_screen "^green and bold$" &&
	reply_line_raw | grep "$(printf "\033")\[" &&
	keys C-d && wait_until test -f hermes.rc && rm hermes.rc &&
	# The screen cleared first: the prompt of the last chat, still on it, must
	# not be taken for the new one (typing into a hermes not yet started).
	tm send-keys -t "$PANE" -l "clear; tmux -S $SOCKET clear-history" && keys Enter &&
	wait_until eval "! on_screen \"^new session> \"" &&
	tm send-keys -t "$PANE" -l "NO_COLOR=1 hermes chat --agent $TRASH/colour" && keys Enter &&
	wait_until on_screen "^new session> " &&
	typed "x" && keys Enter &&
	wait_until on_screen "^green and bold$" &&
	! on_screen "\^\[" &&
	# No colour; bold is an attribute, drawn still (the agent'"'"'s bold,
	# part of its colour sequence, went with it).
	reply_line_raw >raw.line &&
	! grep "$(printf "\033")\[[0-9;]*3[0-7]m" raw.line &&
	! grep "$(printf "\033")\[[0-9;]*mgreen" raw.line &&
	grep "$(printf "\033")\[1mbold" raw.line
'

test_done
