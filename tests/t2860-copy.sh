#!/bin/sh
test_description='/copy and /copy code: the last reply, or its last code block, to the clipboard through OSC 52, in a real tmux with set-clipboard on; said when it cannot work'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# ready PROMPT: the pane's last non-blank line is PROMPT (the editor waits).
ready() {
	test "$(tm capture-pane -p -t "$PANE" | grep -v '^$' | tail -n 1 | sed 's/ *$//')" = "$1"
}

# reply_agent: ./agent, whose reply holds two code blocks, one of them
# with a backtick fence inside a tilde one.
reply_agent() {
	cat >agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	printf "List them with:\n\n\`\`\`sh\nls -la\n\`\`\`\n\nor, for the hidden ones:\n\n~~~\nls -d .* # \`\`\` kept\n~~~\n"
	EOF
	chmod +x agent
}

test_expect_success TMUX '/copy: the whole reply reaches tmux'"'"'s buffer; /copy code: its last code block' '
	reply_agent &&
	start_pane &&
	tm set -g set-clipboard on &&
	start_hermes "chat --agent ./agent" &&
	wait_until ready "new session>" &&
	type_line "/copy" &&
	wait_until on_screen "^Nothing to copy: this session has no reply yet.$" &&
	type_line "how do I list files" &&
	wait_until on_screen "^or, for the hidden ones:" &&
	wait_until ready "how do I list files>" &&
	type_line "/copy" &&
	wait_until on_screen "^Copied the last reply (.* characters) to the clipboard, through the terminal (OSC 52).$" &&
	tm show-buffer >actual &&
	printf "List them with:\n\n\`\`\`sh\nls -la\n\`\`\`\n\nor, for the hidden ones:\n\n~~~\nls -d .* # \`\`\` kept\n~~~" >expect &&
	test_cmp expect actual &&
	typed "/copy c" && keys Tab &&
	wait_until ready "how do I list files> /copy code" &&
	keys Enter &&
	wait_until on_screen "^Copied the last code block (19 characters) to the clipboard" &&
	tm show-buffer >actual &&
	printf "ls -d .* # \`\`\` kept" >expect &&
	test_cmp expect actual &&
	type_line "/copy all" &&
	wait_until on_screen "/copy \[code\]: copy the last reply, or its last code block, not .all." &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX 'with tmux'"'"'s set-clipboard not on, /copy says how to let it through and sends nothing' '
	reply_agent &&
	start_pane &&
	tm set -g set-clipboard external &&
	start_hermes "chat --agent ./agent" &&
	wait_until ready "new session>" &&
	type_line "hi" &&
	wait_until ready "hi>" &&
	type_line "/copy" &&
	wait_until on_screen "^Nothing copied: tmux passes a program.s clipboard sequence (OSC 52) on only with .set -g set-clipboard on. (it is external).$" &&
	test_must_fail tm show-buffer &&
	keys C-d && hermes_exited 0
'

test_expect_success 'TERM=dumb or no terminal: nothing copied, said why' '
	reply_agent &&
	hermes chat --agent ./agent -q "hi" -Q >/dev/null &&
	id=$(only_id) &&
	pty_transcript "TERM=dumb hermes chat -c $id --agent ./agent" dumb <<-\EOF &&
	/copy
	EOF
	grep "Nothing copied: this terminal (TERM=dumb) takes no clipboard sequence (OSC 52).$" dumb &&
	! grep "]52;" raw &&
	pty_transcript "TERM=xterm hermes chat -c $id --agent ./agent | cat" piped <<-\EOF &&
	/copy
	EOF
	grep "Nothing copied: the output is not a terminal" piped
'

test_done
