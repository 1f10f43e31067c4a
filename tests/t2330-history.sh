#!/bin/sh
test_description='one history for every session, in tmux panes: Ctrl-R finds what was typed in another session, newest first, naming that session (40 and 100 columns); Up walks this session'"'"'s messages first; the history is private, bounded, safe when several terminals type at once, and no escape in it is ever obeyed'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# last_row: the last line of the pane that is not blank.
last_row() {
	tm capture-pane -p -t "$PANE" | grep -v '^$' | tail -n 1 | sed 's/ *$//'
}

# history_lines N: the store's history holds N lines.
history_lines() {
	test "$(wc -l <"$HERMES_HOME/history" | tr -d " ")" = "$1"
}

# history_within BYTES: the store's history is no larger.
history_within() {
	test "$(wc -c <"$HERMES_HOME/history" | tr -d " ")" -le "$1"
}

# hermes_panes N: N panes of the window run hermes.
hermes_panes() {
	test "$(tm list-panes -t test -F "#{pane_current_command}" | grep -c hermes)" = "$1"
}

# typed_line JSON-TEXT [TITLE] [TS]: a line of the history file, as hermes
# writes it (the text as JSON has it: \u001b for an escape).
typed_line() {
	printf '{"ts":%s,"session":"20260101_000000_aaaaaa","title":"%s","text":"%s"}\n' "${3:-1767225600.5}" "${2:-old}" "$1"
}

# Two sessions typed at a pane COLUMNS wide: "redis debug" (two
# messages), then "api design"; there, Ctrl-R and BRP.
search_across() {
	pane_of "$1" 30 &&
	start_hermes "chat --title \"redis debug\" --no-agent" &&
	wait_until ready "redis debug>" &&
	type_line "why does BRPOPLPUSH time out" &&
	type_line "and BRPOP alone?" &&
	wait_until history_lines 2 &&
	keys C-d &&
	wait_until test -f hermes.rc && rm hermes.rc &&
	start_hermes "chat --title \"api design\" --no-agent" &&
	wait_until ready "api design>" &&
	type_line "and pagination?" &&
	wait_until history_lines 3 &&
	keys C-r && typed "BRP"
}

test_expect_success TMUX 'Ctrl-R at 100 columns finds what another session typed, newest first, and names that session' '
	search_across 100 &&
	wait_until ready "(search: BRP, in '"'"'redis debug'"'"') and BRPOP alone?" &&
	keys C-r &&
	wait_until ready "(search: BRP, in '"'"'redis debug'"'"') why does BRPOPLPUSH time out" &&
	tm capture-pane -p -t "$PANE" | grep -v "^\$" | sed "s/ *\$//" | tail -n 2 >capture.100 &&
	# Enter takes it and sends it, here.
	keys Enter &&
	wait_until history_lines 4 &&
	tail -n 1 "$HERMES_HOME/history" >last &&
	grep "\"title\":\"api design\",\"text\":\"why does BRPOPLPUSH time out\"}\$" last &&
	keys C-d &&
	hermes_exited 0 &&
	test "$(file_mode "$HERMES_HOME/history")" = 600 &&
	cat capture.100
'

test_expect_success TMUX 'the same at 40 columns: the title cut to fit, the search whole' '
	search_across 40 &&
	wait_until ready "ne?" &&
	tm capture-pane -p -t "$PANE" | grep -v "^\$" | sed "s/ *\$//" | tail -n 3 >capture.40 &&
	cat >expect <<-\EOF &&
	api design> and pagination?
	(search: BRP, in '"'"'redis…'"'"') and BRPOP alo
	ne?
	EOF
	test_cmp expect capture.40 &&
	keys C-g C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'Up walks this session'"'"'s messages first, newest first, then what other sessions typed' '
	typed_line "typed elsewhere, long ago" >"$HERMES_HOME.history" &&
	hermes chat --title here -q "older here" --no-agent -Q &&
	hermes chat -c here -q "newer here" --no-agent -Q &&
	mkdir -p "$HERMES_HOME" && mv "$HERMES_HOME.history" "$HERMES_HOME/history" &&
	pane_of 100 30 &&
	start_hermes "chat -c here --no-agent" &&
	wait_until ready "here>" &&
	keys Up && wait_until ready "here> newer here" &&
	keys Up && wait_until ready "here> older here" &&
	keys Up && wait_until ready "here> typed elsewhere, long ago" &&
	keys Down Down Down && wait_until ready "here>" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'private whatever the umask: 0600 from its creation' '
	pane_of 100 30 &&
	type_line "umask 000" &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	type_line "hello" &&
	wait_until history_lines 1 &&
	keys C-d &&
	hermes_exited 0 &&
	test "$(file_mode "$HERMES_HOME/history")" = 600
'

test_expect_success TMUX 'bounded: past 1 MiB it is written anew with its newest lines; Ctrl-R sees the newest 1,000' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	pad=$(awk "BEGIN { while (n++ < 1000) printf \"x\" }") &&
	i=0 && while test $i -lt 1100; do
		typed_line "filler $i $pad" old $((1767225600 + i)).0 || return 1
		i=$((i + 1))
	done >"$HERMES_HOME/history" &&
	test "$(wc -c <"$HERMES_HOME/history")" -gt 1048576 &&
	pane_of 100 30 &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	type_line "the newest" &&
	wait_until history_within 524288 &&
	tail -n 1 "$HERMES_HOME/history" | grep "\"text\":\"the newest\"}\$" &&
	test "$(wc -l <"$HERMES_HOME/history")" -gt 400 &&
	tail -n 2 "$HERMES_HOME/history" | head -n 1 | grep "\"text\":\"filler 1099 x" &&
	keys C-d &&
	hermes_exited 0 &&
	# 1,500 short lines are under 1 MiB: kept, but Ctrl-R reads the newest 1,000.
	i=0 && while test $i -lt 1500; do
		typed_line "short $i." old $((1767225600 + i)).0 || return 1
		i=$((i + 1))
	done >"$HERMES_HOME/history" &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	keys C-r && typed "short 500." &&
	wait_until ready "(search: short 500., in '"'"'old'"'"') short 500." &&
	keys C-g C-u C-r && typed "short 499." &&
	wait_until on_screen -F "(no match: short 499.)" &&
	keys C-g C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'no escape in the history is obeyed: its text and its title are drawn through the gate' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	typed_line "pwn \\u001b]2;owned\\u0007 \\u001b[31mred\\u001b[0m" "t\\u001b[5mx" >"$HERMES_HOME/history" &&
	pane_of 100 30 &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	keys C-r && typed "pwn" &&
	wait_until on_screen -F "(search: pwn, in '"'"'t^[[5mx'"'"') pwn ^[]2;owned^G ^[[31mred^[[0m" &&
	test "$(tm display -p -t "$PANE" "#{pane_title}")" != owned &&
	tm capture-pane -p -e -t "$PANE" | grep -F "owned" >drawn &&
	! grep "$(printf "\\033")\\[31m" drawn &&
	! grep "$(printf "\\033")\\[5m" drawn &&
	keys C-g C-d &&
	hermes_exited 0
'

# pad_history: fill the history with lines of the shape hermes writes to
# 64 bytes under 1 MiB, so that the first of the next messages added
# passes it and writes it anew while the others are being added.
pad_history() {
	python3 - "$HERMES_HOME/history" <<-\EOF
	import json, os, sys
	path = sys.argv[1]
	def line(text):
	    return json.dumps({"ts": 1767225600.5, "session": "20260101_000000_aaaaaa",
	                       "title": "old", "text": text}, separators=(",", ":")) + "\n"
	size = os.path.getsize(path)
	with open(path, "a") as f:
	    while size < (1 << 20) - 64:
	        room = (1 << 20) - 64 - size
	        text = "pad " + "p" * (900 if room >= 2000 else room - len(line("pad ")))
	        size += len(line(text))
	        f.write(line(text))
	assert size == (1 << 20) - 64, size
	EOF
}

# round_in_history R: the history holds round R once from each of 4 panes.
round_in_history() {
	test "$(grep -c "\"text\":\"round $1 of typing\"}\$" "$HERMES_HOME/history")" = 4
}

test_expect_success TMUX,PYTHON3 'four terminals typing at once, each time across the bound: no line lost, none torn' '
	test_native "four emulated hermes starting at once outlast the waits of a pane test" &&
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	: >"$HERMES_HOME/history" && chmod 600 "$HERMES_HOME/history" &&
	pane_of 150 50 &&
	tm split-window -t "$PANE" -c "$TRASH" "env PS1=\"$ \" sh" &&
	tm split-window -t "$PANE" -c "$TRASH" "env PS1=\"$ \" sh" &&
	tm split-window -t "$PANE" -c "$TRASH" "env PS1=\"$ \" sh" &&
	tm select-layout -t test tiled &&
	tm set-window-option -t test synchronize-panes on &&
	type_line "hermes chat --no-agent" &&
	wait_until hermes_panes 4 &&
	wait_until ready "new session>" &&
	r=1 && while test $r -le 8; do
		pad_history &&
		# One Enter, four hermes adding their line at the same moment, one
		# of them past 1 MiB.
		type_line "round $r of typing" &&
		wait_until round_in_history $r || return 1
		# Written anew: the newest half MiB, and what came after.
		history_within 600000 || return 1
		r=$((r + 1))
	done &&
	python3 -c "
import json, sys
for n, line in enumerate(open(sys.argv[1], encoding=\"utf-8\"), 1):
    json.loads(line)
" "$HERMES_HOME/history" &&
	keys C-d &&
	wait_until hermes_panes 0
'

test_done
