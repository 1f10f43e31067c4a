#!/bin/sh
test_description='/copy and /copy code: the last reply, or its last code block, to the clipboard through OSC 52, in a real tmux with set-clipboard on; said when it cannot work'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

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

# said TEXT: the pane has shown TEXT, its lines joined (hermes wraps at
# words: a line break stands for a blank).
said() {
	screen | tr "\n" " " | grep -F -q "$1"
}

# hostile_agent: ./agent, whose reply holds what would run commands when
# pasted (the end of a bracketed paste, a line, its start again), a bell,
# a C1 CSI, a bidi override and a colour.
hostile_agent() {
	cat >agent <<-EOF &&
	#!/bin/sh
	cat >/dev/null
	printf "Run \\033[31mthis\\033[0m:\\n\\n\\\`\\\`\\\`sh\\necho safe \\033[201~\\ntouch $TRASH/PASTEJACKED\\n\\033[200~#\\n\\\`\\\`\\\`\\n\\nthen \\007\\302\\2332J \\342\\200\\256gnp.exe\\n"
	EOF
	chmod +x agent
}

test_expect_success TMUX '/copy and /copy code: text, newlines and tabs, every other control character as the screen shows it; pasted into bash, nothing runs' '
	hostile_agent &&
	start_pane &&
	tm set -g set-clipboard on &&
	start_hermes "chat --agent ./agent" &&
	wait_until ready "new session>" &&
	type_line "what now" &&
	wait_until on_screen "gnp.exe" &&
	wait_until ready "what now>" &&
	type_line "/copy code" &&
	wait_until said "Copied the last code block ($(($(printf "%s" "$TRASH" | wc -c) + 45)) characters) to the clipboard, through the terminal (OSC 52); 2 control characters in it as the screen shows them (^[, \\u{202e}), not as themselves." &&
	tm show-buffer >actual &&
	printf "echo safe ^[[201~\ntouch %s/PASTEJACKED\n^[[200~#" "$TRASH" >expect &&
	test_cmp expect actual &&
	type_line "/copy" &&
	wait_until said "; 7 control characters in it as the screen shows them" &&
	tm show-buffer >actual &&
	printf "Run this:\n\n\`\`\`sh\necho safe ^[[201~\ntouch %s/PASTEJACKED\n^[[200~#\n\`\`\`\n\nthen ^G\\\\u{9b}2J \\\\u{202e}gnp.exe" "$TRASH" >expect &&
	test_cmp expect actual &&
	! grep -q "$(printf "[\033\007\302\342]")" actual &&
	type_line "/copy code" &&
	wait_until screen_count "^Copied the last code block" 2 &&
	keys C-d && hermes_exited 0 &&
	type_line "env PS1=\"bash\\$ \" bash --norc --noprofile" &&
	wait_until on_screen "^bash\\$ *\$" &&
	tm paste-buffer -p -t "$PANE" &&
	wait_until on_screen -F "^[[200~#" &&
	! test -e PASTEJACKED &&
	keys C-c &&
	type_line "exit"
'

# big_agent KIB: ./agent, whose reply is KIB KiB of "a".
big_agent() {
	printf "#!/bin/sh\ncat >/dev/null\nhead -c %s /dev/zero | tr \"\\\\\\\\000\" a\n" $(($1 * 1024)) >agent &&
	chmod +x agent
}

test_expect_success TMUX 'a reply larger than tmux takes in one sequence is refused with the limit, never said copied; one within it is copied whole' '
	big_agent 800 &&
	start_pane &&
	tm set -g set-clipboard on &&
	start_hermes "chat --agent ./agent --plain" &&
	wait_until ready "new session>" &&
	type_line "big" &&
	wait_until ready "big>" &&
	type_line "/copy" &&
	wait_until on_screen "^Nothing copied: the last reply is 819,200 bytes, more than the 786,426 tmux takes in one clipboard sequence (OSC 52).$" &&
	! on_screen "^Copied" &&
	test_must_fail tm show-buffer &&
	keys C-d && hermes_exited 0 && rm hermes.rc &&
	big_agent 700 &&
	start_hermes "chat --agent ./agent --plain" &&
	wait_until ready "new session>" &&
	type_line "smaller" &&
	wait_until ready "smaller>" &&
	type_line "/copy" &&
	wait_until on_screen "^Copied the last reply (716,800 characters)\|^Copied the last reply (716800 characters)" &&
	wait_until test "$(tm show-buffer 2>/dev/null | wc -c)" = 716800 &&
	keys C-d && hermes_exited 0
'

test_done
