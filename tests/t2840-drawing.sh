#!/bin/sh
test_description='text drawn on a terminal, in tmux panes of 60 and 40 columns: a table and a Python block with colour and under NO_COLOR, replies wrapped at words as they stream (hanging indents, resizing), setext headings, a resumed conversation and sessions show drawn and wrapped, hermes'"'"'s own lines wrapped, pipes untouched'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# rows FIRST [-e]: the pane's rows (as drawn: a line the terminal wrapped
# is two rows) from the first that starts with FIRST up to the next
# prompt, blanks at their ends gone; with -e, with their attributes.
rows() {
	tm capture-pane -p ${2-} -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^$1/,/^\\\$/p" | sed "\$d"
}

ESC=$(printf "\033")

# The reply of the issue's close: a table and a Python code block.
cat >"$TRASH_ROOT/table.md" <<\EOF
Formats compared:

| Format | Reads back | Notes |
|:-------|:----------:|------:|
| json | yes | one array of sessions |
| jsonl | yes | one session per line, for streaming |
| **markdown** | no | for *people* to read |

```python
def load(path):  # one export
    with open(path) as f:
        return [json.loads(l) for l in f]
```
EOF

cat >"$TRASH_ROOT/table.expect" <<\EOF
Formats compared:

Format   │ Reads back │                               Notes
─────────┼────────────┼────────────────────────────────────
json     │    yes     │               one array of sessions
jsonl    │    yes     │ one session per line, for streaming
markdown │     no     │                  for people to read

── python ──────────────────────────────────────────────────
def load(path):  # one export
    with open(path) as f:
        return [json.loads(l) for l in f]
────────────────────────────────────────────────────────────
EOF

test_expect_success TMUX 'a table and a Python block at 60 columns: aligned, fitted, the code highlighted' '
	agent md "cat $TRASH_ROOT/table.md" &&
	pane_of 60 &&
	in_pane "hermes chat --agent $TRASH/md -q x -Q" &&
	rows "Formats" >actual &&
	test_cmp "$TRASH_ROOT/table.expect" actual &&
	rows "Formats" -e >drawn &&
	grep "^$ESC\[1mFormat" drawn &&
	grep "$ESC\[35m[^ ]*def$ESC" drawn &&
	grep "$ESC\[90m[^ ]*# one export" drawn &&
	grep "$ESC\[35m[^ ]*return$ESC" drawn
'

test_expect_success TMUX 'the same under NO_COLOR: the same layout, bold and italic kept, no colour' '
	agent md "cat $TRASH_ROOT/table.md" &&
	pane_of 60 &&
	in_pane "NO_COLOR=1 hermes chat --agent $TRASH/md -q x -Q" &&
	rows "Formats" >actual &&
	test_cmp "$TRASH_ROOT/table.expect" actual &&
	rows "Formats" -e >drawn &&
	grep "^$ESC\[1mFormat" drawn &&
	grep "$ESC\[1mmarkdown" drawn &&
	grep "$ESC\[3mpeople" drawn &&
	! grep "$ESC\[[0-9;]*\(3[0-7]\|9[0-7]\|38;\)" drawn
'

# A table of four columns, too wide for 40 columns once no word is cut.
cat >"$TRASH_ROOT/wide.md" <<\EOF
| Protocol | Throughput | Latency | Notes |
|---|---|---|---|
| HTTP/2 | high | low | ubiquitous, multiplexed streams over one connection |
| WebSocket | medium | lowest | full duplex, long-lived |
EOF

test_expect_success TMUX 'a table too wide for 40 columns is drawn as records, "header: value", no word cut' '
	agent md "cat $TRASH_ROOT/wide.md; echo; echo after" &&
	pane_of 40 &&
	in_pane "hermes chat --agent $TRASH/md -q x -Q" &&
	rows "Protocol" >actual &&
	cat >expect <<-\EOF &&
	Protocol: HTTP/2
	Throughput: high
	Latency: low
	Notes: ubiquitous, multiplexed streams
	  over one connection

	Protocol: WebSocket
	Throughput: medium
	Latency: lowest
	Notes: full duplex, long-lived

	after
	EOF
	test_cmp expect actual
'

test_expect_success TMUX 'the same table at 100 columns: aligned, every cell whole' '
	agent md "cat $TRASH_ROOT/wide.md" &&
	pane_of 100 &&
	in_pane "hermes chat --agent $TRASH/md -q x -Q" &&
	rows "Protocol" >actual &&
	cat >expect <<-\EOF &&
	Protocol  │ Throughput │ Latency │ Notes
	──────────┼────────────┼─────────┼────────────────────────────────────────────────────
	HTTP/2    │ high       │ low     │ ubiquitous, multiplexed streams over one connection
	WebSocket │ medium     │ lowest  │ full duplex, long-lived
	EOF
	test_cmp expect actual
'

test_expect_success TMUX 'a reply wraps at words as it streams, list items and quotes hanging under their text' '
	cat >reply.md <<-\EOF &&
	A paragraph of words that is longer than forty columns, drawn as it streams.

	- a list item long enough to wrap under its own text
	  - a nested item that wraps as well, one level deeper
	1. a numbered item that also wraps around
	> a quote that wraps keeps its bar on every line
	see https://example.org/a/long/path/that/cannot/fit/in/forty ok
	EOF
	agent md "cat $TRASH/reply.md" &&
	pane_of 40 &&
	in_pane "hermes chat --agent $TRASH/md -q x -Q" &&
	rows "A paragraph" >actual &&
	cat >expect <<-\EOF &&
	A paragraph of words that is longer than
	forty columns, drawn as it streams.

	• a list item long enough to wrap under
	  its own text
	  • a nested item that wraps as well,
	    one level deeper
	1. a numbered item that also wraps
	   around
	│ a quote that wraps keeps its bar on
	│ every line
	see
	https://example.org/a/long/path/that/can
	not/fit/in/forty ok
	EOF
	test_cmp expect actual
'

test_expect_success TMUX '--plain: the text as sent, wrapped at words all the same' '
	printf "%s\n" "A **plain** reply of words that is longer than forty columns." >reply.md &&
	agent md "cat $TRASH/reply.md" &&
	pane_of 40 &&
	in_pane "hermes chat --plain --agent $TRASH/md -q x -Q" &&
	rows "A \*\*plain" >actual &&
	printf "%s\n" "A **plain** reply of words that is" "longer than forty columns." >expect &&
	test_cmp expect actual
'

test_expect_success TMUX 'resized while a reply streams: what is still to be drawn fits the new width, what is drawn stays' '
	# It goes on once the terminal is 40 columns wide (tmux resizes a
	# pane a moment after resize-window).
	agent md "printf \"%s\\n\" \"First the words drawn while the window is sixty columns wide, wrapped at sixty.\"; touch $TRASH/started; gate; until stty size </dev/tty | grep -q \" 40\\\$\"; do sleep 0.05; done; printf \"%s\\n\" \"Then the words drawn once it is forty columns wide, wrapped at forty.\"" &&
	pane_of 60 &&
	type_line "hermes chat --agent $TRASH/md -q x -Q; echo done" &&
	wait_until test -e started &&
	wait_until on_screen "^First the words" &&
	tm resize-window -t test -x 40 -y 50 &&
	touch gate &&
	wait_until on_screen "^done" &&
	screen | sed -n "/^First the words/,/^done/p" | sed "\$d" >actual &&
	cat >expect <<-\EOF &&
	First the words drawn while the window is sixty columns
	wide, wrapped at sixty.
	Then the words drawn once it is forty
	columns wide, wrapped at forty.
	EOF
	test_cmp expect actual
'

test_expect_success TMUX 'a setext heading drawn live: the line shown is drawn again as a heading' '
	agent md "printf \"Title\\n\"; touch $TRASH/started; gate; printf \"=====\\nbody\\n\"" &&
	pane_of 60 &&
	type_line "hermes chat --agent $TRASH/md -q x -Q; echo done" &&
	wait_until test -e started &&
	wait_until on_screen "^Title" &&
	touch gate &&
	wait_until on_screen "^done" &&
	printf "Title\nbody\ndone\n" >expect &&
	screen | sed -n "/^Title/,/^done/p" >actual &&
	test_cmp expect actual &&
	tm capture-pane -p -e -t "$PANE" | grep "Title\$" >drawn &&
	grep "^$ESC\[1m$ESC\[4mTitle\|^$ESC\[1;4mTitle" drawn
'

# a_thread: session w, three turns of a question and the reply in reply.md.
a_thread() {
	cat >reply.md <<-\EOF &&
	The **answer** is a paragraph long enough to wrap at forty columns.
	- an item that wraps under its own text
	EOF
	agent md "cat $TRASH/reply.md" &&
	hermes chat --title w --agent "$TRASH/md" -q "first question, long enough to wrap around" -Q &&
	hermes chat -c w --agent "$TRASH/md" -q "second question, long enough to wrap around" -Q &&
	hermes chat -c w --agent "$TRASH/md" -q "third question, long enough to wrap around" -Q
}

# anonymous: IDs and times made fixed.
anonymous() {
	sed -e "s/[0-9]\{8\}_[0-9]\{6\}_[0-9a-f]\{6\}/ID/g" -e "s/20[0-9][0-9]-[0-9-]* [0-9:]*\$/TIME/"
}

test_expect_success TMUX 'resuming at 40 columns: hermes'"'"'s lines and the messages wrapped at words, replies drawn' '
	a_thread &&
	pane_of 40 &&
	type_line "hermes chat -c w --agent $TRASH/md" &&
	wait_until on_screen "^w> " &&
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^Resuming/,/^w>/p" | anonymous >actual &&
	keys C-d &&
	cat >expect <<-\EOF &&
	Resuming '"'"'w'"'"' (ID), 6
	messages.
	(2 earlier messages not shown: hermes
	sessions show ID)
	[user] TIME
	second question, long enough to wrap
	around
	[assistant] TIME
	The answer is a paragraph long enough to
	wrap at forty columns.
	• an item that wraps under its own text
	[user] TIME
	third question, long enough to wrap
	around
	[assistant] TIME
	The answer is a paragraph long enough to
	wrap at forty columns.
	• an item that wraps under its own text
	w>
	EOF
	test_cmp expect actual
'

# a_long_reply: a session "long" whose one reply has 30 steps, a table
# and a last line: 38 lines of Markdown, too long to show whole.
a_long_reply() {
	{
		echo "The reply starts here, with its first paragraph." &&
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do
			echo && echo "Step $i: do the thing number $i, then check it." || return 1
		done &&
		printf "\n| Step | Result |\n|---|---|\n| 30 | done |\n\n" &&
		echo "The end: restart the service and watch the log."
	} >long.md &&
	agent long "cat $TRASH/long.md" &&
	hermes chat --title long --agent "$TRASH/long" -q "how do I fix it" -Q >/dev/null
}

# resumed COLUMNS: resume "long" in a pane that wide; its lines from
# "Resuming" to the prompt, IDs and times made fixed, blank lines left out.
resumed() {
	pane_of "$1" &&
	type_line "hermes chat -c long --no-agent" &&
	wait_until on_screen "^long> " &&
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^Resuming/,/^long>/p" | grep -v "^\$" | anonymous >actual &&
	keys C-d
}

test_expect_success TMUX 'resuming a long last reply at 40 columns shows its end, from a block, with a note of what is above' '
	a_long_reply &&
	resumed 40 &&
	cat >expect <<-\EOF &&
	Resuming '"'"'long'"'"'
	(ID), 2 messages.
	[user] TIME
	how do I fix it
	[assistant] TIME
	(the first 48 lines of this reply not
	shown: hermes sessions show
	ID)
	Step 24: do the thing number 24, then
	check it.
	Step 25: do the thing number 25, then
	check it.
	Step 26: do the thing number 26, then
	check it.
	Step 27: do the thing number 27, then
	check it.
	Step 28: do the thing number 28, then
	check it.
	Step 29: do the thing number 29, then
	check it.
	Step 30: do the thing number 30, then
	check it.
	Step │ Result
	─────┼───────
	30   │ done
	The end: restart the service and watch
	the log.
	long>
	EOF
	test_cmp expect actual
'

test_expect_success TMUX 'the same at 100 columns' '
	a_long_reply &&
	resumed 100 &&
	cat >expect <<-\EOF &&
	Resuming '"'"'long'"'"' (ID), 2 messages.
	[user] TIME
	how do I fix it
	[assistant] TIME
	(the first 48 lines of this reply not shown: hermes sessions show ID)
	Step 24: do the thing number 24, then check it.
	Step 25: do the thing number 25, then check it.
	Step 26: do the thing number 26, then check it.
	Step 27: do the thing number 27, then check it.
	Step 28: do the thing number 28, then check it.
	Step 29: do the thing number 29, then check it.
	Step 30: do the thing number 30, then check it.
	Step │ Result
	─────┼───────
	30   │ done
	The end: restart the service and watch the log.
	long>
	EOF
	test_cmp expect actual
'

test_expect_success TMUX '/help at 40 columns: each command'"'"'s words hang under its text' '
	pane_of 40 &&
	type_line "hermes chat --no-agent" &&
	wait_until on_screen "^new session> " &&
	type_line "/help" &&
	wait_until screen_count "^new session> " 2 &&
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^\/help  /,/^\/new/p" >actual &&
	keys C-d &&
	cat >expect <<-\EOF &&
	/help              this list
	/title [NEW]       show or set the
	                   session'"'"'s title
	/new [TITLE]       start a new session
	EOF
	test_cmp expect actual
'

test_expect_success TMUX 'sessions show at 40 columns is wrapped and drawn; into a pipe it is as stored' '
	a_thread &&
	pane_of 40 &&
	in_pane "hermes sessions show w" &&
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^\\[user\\]/,/^\\\$/p" | sed "\$d" | anonymous | head -n 7 >actual &&
	cat >expect <<-\EOF &&
	[user] TIME
	first question, long enough to wrap
	around

	[assistant] TIME
	The answer is a paragraph long enough to
	wrap at forty columns.
	EOF
	test_cmp expect actual &&
	in_pane "hermes sessions show w | cat >piped" &&
	grep "^The \*\*answer\*\* is a paragraph long enough to wrap at forty columns\.\$" piped &&
	hermes sessions show w >file &&
	test_cmp file piped
'

test_expect_success TMUX 'an error on a terminal is wrapped at words too; into a file it is one line' '
	pane_of 40 &&
	in_pane "hermes sessions show no-such-session-anywhere-at-all" &&
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^hermes: /,/^\\\$/p" | sed "\$d" >actual &&
	test_must_fail hermes sessions show no-such-session-anywhere-at-all 2>err &&
	test_line_count = 1 err &&
	awk "length > 40 { bad = 1 } END { exit bad }" actual &&
	test "$(tr "\n" " " <actual | sed "s/ *\$//")" = "$(cat err)"
'

test_expect_success TMUX 'at 100 columns a turn'"'"'s errors are wrapped at words by hermes, never by the terminal inside a word' '
	hermes config set base_url http://127.0.0.1:9/v1 &&
	pane_of 100 &&
	in_pane "hermes chat --agent openai-compatible -q hello" &&
	echo 3 >expect && test_cmp expect rc &&
	# -J joins the rows the terminal wrapped: none is.
	tm capture-pane -p -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^hermes: cannot connect/,/^\\$/p" >rows &&
	tm capture-pane -p -J -S - -t "$PANE" | sed "s/ *\$//" | sed -n "/^hermes: cannot connect/,/^\\$/p" >lines &&
	test_line_count -gt 2 rows &&
	test_cmp rows lines &&
	awk "length > 100 { bad = 1 } END { exit bad }" lines &&
	grep "^hermes: cannot connect to http://127.0.0.1:9/v1/chat/completions: is the server" lines
'

test_done
