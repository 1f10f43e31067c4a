#!/bin/sh
test_description='the prompt redraws without filling tmux'"'"'s scrollback: after Ctrl-L, keys and redraws leave #{history_size} as it was'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

history_size() {
	tm display -p -t "$PANE" '#{history_size}'
}

# last_line_is TEXT: the pane's last non-blank line is TEXT.
last_line_is() {
	test "$(tm capture-pane -p -t "$PANE" | grep -v '^$' | tail -n 1)" = "$1"
}

test_expect_success TMUX 'Ctrl-L, then keys and redraws: the scrollback stays as it was' '
	start_tmux &&
	tm resize-window -t "$PANE" -x 80 -y 24 &&
	wait_until on_screen "^\\$" &&
	tm send-keys -t "$PANE" -l "seq 60; hermes chat --no-agent" && tm send-keys -t "$PANE" Enter &&
	wait_until on_screen "^new session> " &&
	before=$(history_size) &&
	test "$before" -gt 0 &&
	tm send-keys -t "$PANE" C-l &&
	wait_until last_line_is "new session>" &&
	test "$(history_size)" = "$before" &&
	tm send-keys -t "$PANE" -l "abcdefgh" &&
	wait_until last_line_is "new session> abcdefgh" &&
	tm send-keys -t "$PANE" BSpace BSpace Left Right C-a C-e &&
	wait_until last_line_is "new session> abcdef" &&
	test "$(history_size)" = "$before" &&
	tm send-keys -t "$PANE" C-u &&
	wait_until last_line_is "new session>" &&
	test "$(history_size)" = "$before"
'

test_done
