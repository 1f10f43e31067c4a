#!/bin/sh
test_description='one gate: what hermes did not write reaches a terminal shown, never obeyed, on every path; the terminal (tmux) keeps its title, clipboard, bell, screen, attributes and input'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# The hostile corpus, the same on every path: OSC 0 (the pane title), OSC 8
# (a link), OSC 52 (the clipboard), CSI 2J (clear the screen), CSI 6n and
# DCS DECRQSS (queries whose answers the terminal types into the shell),
# a C1 CSI, SGR 8 (hidden), a BEL flood, bidi overrides and isolates,
# bytes that are not UTF-8, and colour pairs that hide text (black on
# black, in 8 colours and in RGB, bright white on bright white, and black
# then a black background apart).
corpus() {
	printf 'A\033]0;PWNED\007B\033]8;;http://evil.example/\033\\LINK\033]8;;\033\\C\033]52;c;UFdORUQ=\007D\033[2JE\033[6nF\033P$qm\033\\G\302\2332JH\033[8mHIDDEN I\007\007\007\007\007J\342\200\256KL\342\201\246M\377\376N\033[30;40mO\033[38;2;0;0;0;48;2;0;0;0mP\033[97;107mQ\033[0;30mR\033[40mS'
}

# The corpus that text typed or piped in may hold: all of it but the bytes
# that are not UTF-8 (hermes refuses those there, see t4150).
text_corpus() {
	corpus | tr -d '\377\376'
}

# The corpus as a JSON string, for session files written by hand (a
# session file is JSON: no invalid UTF-8 there).
JSON_CORPUS='A\u001b]0;PWNED\u0007B\u001b]8;;http://evil.example/\u001b\\LINK\u001b]8;;\u001b\\C\u001b]52;c;UFdORUQ=\u0007D\u001b[2JE\u001b[6nF\u001bP$qm\u001b\\G\u009b2JH\u001b[8mHIDDEN I\u0007\u0007\u0007\u0007\u0007J\u202eKL\u2066MN\u001b[30;40mO\u001b[38;2;0;0;0;48;2;0;0;0mP\u001b[97;107mQ\u001b[0;30mR\u001b[40mS'

# What the gate shows of it (up to the bytes that are not UTF-8).
SHOWN='A^[]0;PWNED^GB^[]8;;http://evil.example/^[\LINK^[]8;;^[\C^[]52;c;UFdORUQ=^GD^[[2JE^[[6nF^[P$qm^[\G\u{9b}2JH^[[8mHIDDEN I^G^G^G^G^GJ\u{202e}KL\u{2066}M'

# hostile_session: session aaaaaa, its title, model and message the corpus.
hostile_session() {
	mk_session 20261203_000000_aaaaaa "evil $JSON_CORPUS" user 1796300000 / user "$JSON_CORPUS" &&
	f=$HERMES_HOME/sessions/20261203_000000_aaaaaa.json &&
	MODEL="m$JSON_CORPUS" awk '{
		i = index($0, "\"messages\"")
		if (i) $0 = substr($0, 1, i - 1) "\"model\":\"" ENVIRON["MODEL"] "\"," substr($0, i)
	} 1' "$f" >"$f.new" && mv "$f.new" "$f"
}

# make_agents: agents in $TRASH that reply the corpus (and then, a moment
# later, say it on stderr: a terminal shows the two streams as they come,
# and a reply's last word waits for its line's end to be wrapped), only
# say it on stderr and fail, send it as a server error, and
# end a reply with reverse video and red left on.
make_agents() {
	corpus >"$TRASH/message" &&
	printf '%s' "$JSON_CORPUS" >"$TRASH/json" &&
	printf '#!/bin/sh\ncat >/dev/null\ncat %s/message\necho\nsleep 0.3\ncat %s/message >&2\n' "$TRASH" "$TRASH" >"$TRASH/corpus-agent" &&
	printf '#!/bin/sh\ncat >/dev/null\ncat %s/message >&2\nexit 1\n' "$TRASH" >"$TRASH/said-agent" &&
	printf '#!/bin/sh\ncat >/dev/null\nprintf %s "$(cat %s/json)"\n' \
		"'{\"error\":{\"message\":\"%s\"}}\\n'" "$TRASH" >"$TRASH/error-agent" &&
	printf '#!/bin/sh\ncat >/dev/null\nprintf "the answer\\033[7;31m"\n' >"$TRASH/colour-agent" &&
	chmod +x "$TRASH/corpus-agent" "$TRASH/said-agent" "$TRASH/error-agent" "$TRASH/colour-agent"
}

# start_gate: a tmux pane (set-clipboard on, so an OSC 52 would fill a
# buffer) with its shell ready; $TITLE0 is its title.
start_gate() {
	start_tmux &&
	tm set -s set-clipboard on &&
	wait_until on_screen '^\$' &&
	TITLE0=$(tm display -p -t "$PANE" '#{pane_title}') &&
	step=0
}

# on_pane 'COMMANDS': run COMMANDS (sh) in the pane on a cleared screen
# after a marker line, and wait until they are done.
on_pane() {
	step=$((step + 1)) &&
	printf 'printf "\\033[H\\033[2J"\necho "MARK %s"\n%s\necho "END %s"\n' "$step" "$1" "$step" >"step$step" &&
	type_line "sh step$step" &&
	wait_until on_screen -x "END $step"
}

E=$(printf '\033')

# untouched [LINE]: the terminal is as hermes found it: the same title, no
# clipboard buffer, no bell, the marker of the last step (or a line
# matching LINE) still on the screen (not cleared), nothing hidden (by SGR
# 8 or by the corpus's colour pairs), no
# query answered into the shell's input, no bidi override drawn raw.
untouched() {
	tm capture-pane -p -J -t "$PANE" >visible &&
	tm capture-pane -e -p -J -t "$PANE" >attributes &&
	if test "$(tm display -p -t "$PANE" '#{pane_title}')" != "$TITLE0"; then
		echo "the pane title became: $(tm display -p -t "$PANE" '#{pane_title}')" >&2
		return 1
	fi &&
	if test -n "$(tm list-buffers)"; then
		echo "the clipboard was written: $(tm list-buffers)" >&2
		return 1
	fi &&
	if test "$(tm display -p -t "$PANE" '#{window_bell_flag}')" != 0; then
		echo "the bell rang" >&2
		return 1
	fi &&
	if ! grep -q -x "${1:-MARK $step}" visible; then
		echo "the screen was cleared:" >&2
		cat -v visible >&2
		return 1
	fi &&
	if grep -q "$(printf '\033')\[8m" attributes; then
		echo "text was hidden:" >&2
		grep "$(printf '\033')\[8m" attributes | cat -v >&2
		return 1
	fi &&
	if grep -q -e "$E\[30m$E\[40mO" -e "$E\[38;2;0;0;0m$E\[48;2;0;0;0mP" -e "$E\[97m$E\[107mQ" -e "$E\[40mS" attributes; then
		echo "text was drawn in the colour of its background:" >&2
		grep "$E\[[0-9;]*m[OPQS]" attributes | cat -v >&2
		return 1
	fi &&
	if grep -q -e '\[[0-9]*;[0-9]*R' -e 'P[01]\$r' visible; then
		echo "the terminal answered a query into the input:" >&2
		cat -v visible >&2
		return 1
	fi &&
	if grep -q -e "$(printf '\342\200\256')" -e "$(printf '\342\201\246')" visible; then
		echo "a bidi override reached the screen" >&2
		return 1
	fi
}

# shown: the corpus was drawn, visibly and whole, on the pane (its rows
# joined: on a terminal text is wrapped at words, a blank made a line end).
shown() {
	screen | tr "\n" " " >all &&
	grep -F -q "$SHOWN" all
}

test_expect_success TMUX 'the line editor: a message recalled with Up and with Ctrl-R, a title in the prompt' '
	text_corpus | hermes chat -c logs --create-if-missing --no-agent -Q -q - &&
	hostile_session &&
	start_gate &&
	start_hermes "chat -c logs --no-agent" &&
	wait_until on_screen "^logs> *\$" &&
	keys Up &&
	wait_until on_screen -F "logs> A^[]0;PWNED^GB" &&
	untouched "Resuming .*" &&
	keys C-u C-r &&
	typed "LINK" &&
	wait_until on_screen -F "(search: LINK, in '"'"'logs'"'"') A^[]0;PWNED^GB" &&
	untouched "Resuming .*" &&
	keys C-g C-d &&
	hermes_exited 0 &&
	rm hermes.rc &&
	start_hermes "chat -r aaaaaa --no-agent" &&
	wait_until on_screen "^evil A^\[\]0;PWNED^GB.*> *\$" &&
	shown &&
	untouched "Resuming .*" &&
	keys C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'the line editor: what /edit brought back' '
	corpus >message &&
	printf "#!/bin/sh\ncat %s/message >\"\$1\"\n" "$TRASH" >editor &&
	chmod +x editor &&
	VISUAL=$TRASH/editor && export VISUAL &&
	start_gate &&
	start_hermes "chat --no-agent" &&
	wait_until on_screen "^new session> *\$" &&
	typed "/edit" && keys Enter &&
	wait_until on_screen -F "new session> A^[]0;PWNED^GB" &&
	untouched "New session.*" &&
	keys C-u C-d &&
	hermes_exited 0
'

test_expect_success TMUX 'a reply, drawn as Markdown and as plain text, and what the agent says on stderr; a server error' '
	make_agents &&
	start_gate &&
	on_pane "hermes chat --agent $TRASH/corpus-agent -q markdown" &&
	untouched && shown &&
	test "$(tr "\n" " " <visible | grep -o -F "$SHOWN" | wc -l)" = 2 &&
	# Each byte that is not UTF-8 is shown as itself, on stdout and stderr.
	tr "\n" " " <visible | grep -o -F "M\\xff\\xfeN" >bytes &&
	cat bytes && test_line_count = 2 bytes &&
	on_pane "hermes chat --plain --agent $TRASH/corpus-agent -q plain" &&
	untouched && shown &&
	test "$(tr "\n" " " <visible | grep -o -F "$SHOWN" | wc -l)" = 2 &&
	on_pane "hermes chat --agent $TRASH/error-agent -q error" &&
	untouched &&
	tr "\n" " " <visible | grep -F "sent an error: A^[]0;PWNED^GB"
'

test_expect_success TMUX 'views: show, list, search, current and its --format fields, the --json outputs' '
	hostile_session &&
	start_gate &&
	on_pane "hermes sessions show aaaaaa" &&
	untouched && shown &&
	on_pane "hermes sessions list" &&
	untouched &&
	on_pane "hermes sessions search LINK" &&
	untouched &&
	on_pane "hermes sessions current" &&
	untouched &&
	on_pane "hermes sessions current --format \"[{title}] [{title_tmux}] [{model}]\"; echo" &&
	untouched &&
	grep -F "[evil A^[]0;PWNED^GB" visible &&
	grep -F "[mA^[]0;PWNED^GB" visible &&
	on_pane "hermes sessions current --json; hermes sessions list --json; hermes sessions show aaaaaa --json" &&
	untouched
'

test_expect_success TMUX 'exports: to a terminal through the gate; to a pipe or a file byte for byte' '
	text_corpus | hermes chat --title ex --no-agent -Q -q - &&
	start_gate &&
	on_pane "hermes sessions export ex --format markdown" &&
	untouched && shown &&
	on_pane "hermes sessions export ex --format json; hermes sessions export ex --format jsonl" &&
	untouched &&
	on_pane "hermes sessions export ex --format markdown -o /dev/tty" &&
	untouched && shown &&
	hermes sessions export ex --format markdown >piped.md &&
	grep -F -q "$(printf "\033]52;c;UFdORUQ=\007")" piped.md &&
	hermes sessions export ex --format markdown -o file.md &&
	cmp piped.md file.md
'

test_expect_success TMUX 'diagnostics: config check quotes the agent, config get and list a value, errors a name' '
	make_agents &&
	hermes config set system "$(corpus | tr -d "\\377\\376")" &&
	start_gate &&
	on_pane "HERMES_AGENT=$TRASH/said-agent hermes config check" &&
	untouched && shown &&
	on_pane "hermes config get system; hermes config list" &&
	untouched &&
	on_pane "hermes chat -c \"\$(cat message)\" -q x --no-agent" &&
	untouched &&
	on_pane "hermes sessions export -o \"\$(cat message)/x.md\"" &&
	untouched
'

test_expect_success TMUX 'an agent that leaves its colours on: reset before the session ID, the prompt and the shell' '
	make_agents &&
	start_gate &&
	on_pane "hermes chat --agent $TRASH/colour-agent -q question" &&
	untouched &&
	grep "^session_id: " attributes &&
	grep "^END 1\$" attributes &&
	start_hermes "chat --agent $TRASH/colour-agent" &&
	wait_until on_screen "^new session> *\$" &&
	typed "hi" && keys Enter &&
	wait_until on_screen "^hi> *\$" &&
	untouched "END 1" &&
	grep "^hi> *\$" attributes &&
	keys C-d &&
	hermes_exited 0
'

test_done
