# tests/lib-fixtures.sh: helpers shared by the scripts.
#
# lib.sh sources this file last, so every tests/t*.sh has these helpers.
# Each is defined here once; a helper only one script needs stays in that
# script. Like the test bodies that call them, they run in the test's trash
# directory with its own $HERMES_HOME, and leave their scratch files
# (expect, actual, raw, mk.err, ...) there.

# ---- Session files ----------------------------------------------------

# field ID KEY: header field KEY (a string or a number) of session ID.
field() {
	tr -d '\n' <"$HERMES_HOME/sessions/$1.json" | sed 's/"messages":.*//' |
	sed -n -e 's/.*"'"$2"'":"\([^"]*\)".*/\1/p' -e t -e 's/.*"'"$2"'":\([0-9.]*\).*/\1/p'
}

# messages ID: one "role: content" line per message of session ID
# (content as stored, JSON-escaped).
messages() {
	tr -d '\n' <"$HERMES_HOME/sessions/$1.json" |
	awk '{
		n = split($0, m, /\{"role":"/)
		for (i = 2; i <= n; i++) {
			role = m[i]; sub(/".*/, "", role)
			text = m[i]; sub(/^[^"]*","content":"/, "", text); sub(/","ts":.*/, "", text)
			print role ": " text
		}
	}'
}

# only_id: the ID of the only session in the store (fails unless there is
# exactly one).
only_id() {
	test "$(session_count)" = 1 &&
	ls "$HERMES_HOME/sessions" | sed -n 's/\.json$//p'
}

# mk TITLE: a new session titled TITLE holding one message ("about TITLE"),
# made by hermes chat; prints its ID.
mk() {
	hermes chat --title "$1" -q "about $1" --no-agent 2>mk.err &&
	sed -n 's/^session_id: //p' mk.err
}

# mk_session ID TITLE TITLE_SOURCE UPDATED_AT CWD [ROLE CONTENT]...
# A session file written directly, with fixed times: created an hour
# before UPDATED_AT, messages a minute apart from then. CONTENT is put into
# the JSON as is (write \n for a newline).
mk_session() {
	ms_id=$1 ms_title=$2 ms_src=$3 ms_updated=$4 ms_cwd=$5
	shift 5
	ms_created=$((ms_updated - 3600)) ms_count=$(($# / 2)) ms_preview=
	test $# -ge 2 && ms_preview=$2
	mkdir -p "$HERMES_HOME/sessions" &&
	{
		printf '{"format":1,"id":"%s","title":"%s","title_source":"%s","created_at":%s,"updated_at":%s,"cwd":"%s","message_count":%s,"preview":"%s","messages":[' \
			"$ms_id" "$ms_title" "$ms_src" "$ms_created" "$ms_updated" "$ms_cwd" "$ms_count" "$ms_preview"
		ms_ts=$ms_created ms_sep=
		while test $# -ge 2; do
			printf '%s\n{"role":"%s","content":"%s","ts":%s}' "$ms_sep" "$1" "$2" "$ms_ts"
			ms_sep=, ms_ts=$((ms_ts + 60))
			shift 2
		done
		printf '\n]}\n'
	} >"$HERMES_HOME/sessions/$ms_id.json"
}

# ---- What hermes says -------------------------------------------------

# not_found NAME [TITLE...]: the man page's text for -c NAME matching
# nothing, with the closest TITLEs (newest first) as "Did you mean".
# verb_not_found NAME [TITLE...]: what a sessions verb says of it.
# SHORT_ID_RULE: the line either adds for a NAME that looks like part of
# an ID (set NAME_LOOKS_LIKE_ID=1 for that).
SHORT_ID_RULE='A short ID is 8 or more leading characters of an ID, or its last 6 hex digits.'
verb_not_found() {
	printf "hermes: no session matches '%s'" "$1"
	vnf_name=$1 && shift
	if test $# -gt 0; then
		printf " (did you mean "
		while test $# -gt 0; do
			printf "'%s'" "$1" && shift
			case $# in 0) ;; 1) printf " or " ;; *) printf ", " ;; esac
		done
		printf "?)"
	fi
	test -z "${NAME_LOOKS_LIKE_ID-}" || printf "; a short ID is 8 or more leading characters of an ID, or its last 6 hex digits"
	printf "; find it with 'hermes sessions list', or look in the messages too: hermes sessions search %s\n" "$(quoted_for_shell "$vnf_name")"
}

# quoted_for_shell TEXT: TEXT as hermes quotes it in a command to copy.
quoted_for_shell() {
	case $1 in
	'' | *[!A-Za-z0-9._/-]*) printf "'%s'" "$(printf "%s" "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf "%s" "$1" ;;
	esac
}

not_found() {
	echo "No session found matching '$1'."
	shift
	case $# in
	0) ;;
	1) echo "Did you mean '$1'?" ;;
	*) echo "Did you mean one of these?" && printf '  %s\n' "$@" ;;
	esac
	test -z "${NAME_LOOKS_LIKE_ID-}" || echo "$SHORT_ID_RULE"
	cat <<-EOF
	Use 'hermes sessions list' to see available sessions, or pass
	--create-if-missing to start a new session with that title.
	EOF
}

# check_current FILE ID REASON: FILE holds the output of `hermes sessions
# current`, which must name session ID for REASON.
check_current() {
	printf '%s %s\n' "$2" "$3" >expect.current &&
	awk -F '\t' '{ sub(/ \(.*/, "", $3); print $1, $3 }' "$1" >actual.current &&
	test_cmp expect.current actual.current
}

# gen_sessions N [DIRS]: N minimal sessions tI in export --format jsonl
# form, one a minute from 2026-01-01 (activity order is the reverse of ID
# order), all started in /x, or with DIRS in /w0 .. /w(DIRS-1) in turn. The
# one generator of the large stores (t3010, t3020).
gen_sessions() {
	awk -v n="$1" -v dirs="${2:-0}" 'BEGIN {
		for (i = 0; i < n; i++) {
			t = 1767225600 + i * 60
			cwd = dirs ? "/w" (i % dirs) : "/x"
			printf "{\"format\":1,\"id\":\"20260101_%06d_%06x\",\"title\":\"t%d\",\"title_source\":\"user\",\"created_at\":%d,\"updated_at\":%d,\"cwd\":\"%s\",\"message_count\":1,\"preview\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"m\",\"ts\":%d}]}\n", i / 60, i, i, t, t, cwd, t
		}
	}'
}

# Every verb of hermes sessions, as 'hermes sessions --help' lists them
# (made from src/cli/defs.rs, the one list of verbs).
VERBS=$(HERMES_HOME=/nonexistent "$HERMES_BIN" sessions --help | sed -n "s/^  \([a-z][a-z-]*\) .*/\1/p" | tr "\n" " ")
# hermes's commands, as 'hermes --help' lists them.
COMMANDS=$(HERMES_HOME=/nonexistent "$HERMES_BIN" --help | sed -n "/^Commands:/,/^\$/ s/^  \([a-z][a-z-]*\) .*/\1/p" | tr "\n" " ")
# The verbs of hermes config, and the keys of config.toml, as 'hermes
# config --help' lists them.
CONFIG_VERBS=$(HERMES_HOME=/nonexistent "$HERMES_BIN" config --help | sed -n "/^Commands:/,/^\$/ s/^  \([a-z][a-z-]*\).*/\1/p" | tr "\n" " ")
CONFIG_KEYS=$(HERMES_HOME=/nonexistent "$HERMES_BIN" config --help | sed -n "/^The settings/,/^\$/ s/^  \([a-z_]*\) .*/\1/p" | tr "\n" " ")

# ---- Agents -----------------------------------------------------------

# use_fake_agent: put tests/agents on PATH, for "--agent 'fake-agent ...'":
# tests/agents/fake-agent answers as a model would.
use_fake_agent() {
	PATH="$TEST_DIR/agents:$PATH"
}

# ---- Waiting ----------------------------------------------------------

# poll_until [-t SECONDS] CMD...: run CMD every tenth of a second until it
# succeeds; after SECONDS (default 30) give up, saying what it waited for.
poll_until() {
	poll_limit=30
	if test "$1" = -t; then
		poll_limit=$2
		shift 2
	fi
	poll_tries=0
	until "$@"; do
		poll_tries=$((poll_tries + 1))
		if test $poll_tries -gt $((poll_limit * 10)); then
			echo "timed out after ${poll_limit}s waiting for: $*" >&2
			return 1
		fi
		sleep 0.1 2>/dev/null || sleep 1
	done
}

# wait_for_file FILE [SECONDS]: wait (at most SECONDS, default 30) until
# FILE exists; a marker file another process creates when it gets there.
wait_for_file() {
	poll_until -t "${2:-30}" test -e "$1"
}

# ---- Terminals --------------------------------------------------------

# pty_transcript 'COMMANDS' FILE: run_in_pty COMMANDS, with the stdin given;
# the terminal transcript goes to raw, and without its carriage returns to
# FILE.
pty_transcript() {
	run_in_pty "$1" >raw &&
	tr -d '\r' <raw >"$2"
}

# Each test that needs tmux runs its own server on a private socket in its
# trash directory ($SOCKET, see start_tmux); every server a test started is
# killed when the test's subshell exits, pass or fail. tmux runs pane
# commands with $SHELL: scripts using it set SHELL=/bin/sh.

# tm ARGS...: tmux, on the test's server at $SOCKET.
tm() {
	tmux -S "$SOCKET" -f /dev/null "$@"
}

# stop_tmux: kill every tmux server this test started.
stop_tmux() {
	for SOCKET in "$TRASH"/*.sock; do
		tm kill-server >/dev/null 2>&1
	done
}

# start_tmux [NAME]: start a server (socket $TRASH/NAME.sock, default
# "tmux") with one 150x50 pane running an interactive shell in $TRASH,
# prompt "$ "; sets $PANE to the pane's id (%N), and stop_tmux to run when
# the test ends. Not in $(...): the trap must belong to the test's shell.
start_tmux() {
	SOCKET=$TRASH/${1:-tmux}.sock
	trap stop_tmux EXIT
	trap 'exit 130' INT TERM HUP
	PANE=$(tm new-session -d -s test -x 150 -y 50 -c "$TRASH" -P -F '#{pane_id}' "env PS1='$ ' sh")
}

# ---- Driving a tmux pane -----------------------------------------------
# After start_tmux (or a script's start_pane), on the pane $PANE.

# keys KEY...: press tmux keys (C-a, M-b, Left, Enter...) in the pane.
keys() {
	tm send-keys -t "$PANE" "$@"
}

# typed TEXT: type TEXT literally.
typed() {
	tm send-keys -t "$PANE" -l "$1"
}

# type_line TEXT: type TEXT into the pane and press Enter.
type_line() {
	typed "$1" &&
	keys Enter
}

# paste TEXT: paste TEXT into the pane as a terminal does, bracketed.
paste() {
	printf '%s' "$1" >paste.buf &&
	tm load-buffer -b p paste.buf &&
	tm paste-buffer -p -b p -t "$PANE"
}

# start_hermes 'ARGS': run `hermes ARGS` in the pane's shell (ARGS as shell
# words); its exit status lands in hermes.rc when it ends.
start_hermes() {
	type_line "hermes $1; echo \$? >hermes.tmp && mv hermes.tmp hermes.rc"
}

# screen: everything the pane has shown, wrapped lines joined.
screen() {
	tm capture-pane -p -J -S - -t "$PANE"
}

# on_screen GREP-ARGS: the pane has shown a matching line.
on_screen() {
	screen | grep "$@" >/dev/null
}

# screen_count PATTERN N: the pane shows at least N lines matching PATTERN.
screen_count() {
	test "$(screen | grep -c -- "$1")" -ge "$2"
}

# wait_until CMD...: poll_until CMD succeeds (at most 30 s); if it never
# does, show the last lines of the pane too.
wait_until() {
	poll_until "$@" || {
		screen | grep -v "^$" | tail -n 30 >&2
		return 1
	}
}

# hermes_exited STATUS: wait for hermes to end, and check its exit status.
hermes_exited() {
	wait_until test -f hermes.rc &&
	echo "$1" >expect.rc &&
	test_cmp expect.rc hermes.rc
}

# sessions_are N: the store holds N sessions.
sessions_are() {
	test "$(session_count)" = "$1"
}

# has_messages ID FILE: session ID holds exactly the messages in FILE.
has_messages() {
	test -f "$HERMES_HOME/sessions/$1.json" &&
	messages "$1" >actual.messages &&
	cmp -s "$2" actual.messages
}

# ---- Reporting --------------------------------------------------------

# figure TEXT: a measured figure, printed with the results: a script that
# records figures prints "$TRASH_ROOT/figures" before test_done.
figure() {
	echo "# $*" >>"$TRASH_ROOT/figures"
}

# gone PID: PID has exited. gone -PGID: no process of group PGID is left.
# A zombie counts as gone: in a container whose first process does not
# reap orphans, a killed agent stays one. Without a working ps, only what
# kill -0 no longer finds is gone.
gone() {
	kill -0 "$1" 2>/dev/null || return 0
	case $1 in
	-*) ps -A -o pgid= -o stat= | awk -v g="${1#-}" '
		$1 == g { seen = 1; if ($2 !~ /^Z/) live = 1 }
		END { exit !(seen && !live) }' ;;
	*) ps -o stat= -p "$1" | grep -q "^Z" ;;
	esac
}

# A user ID no process runs as, for tests that need a user of their own:
# the kernel counts a user's processes over the whole machine, in every
# container, so user nobody may already have some.
LONELY_UID=$((2000000000 + $$))

# lonely_hermes: the path of a copy of hermes that user $LONELY_UID can
# run wherever the build lives (a clone made under umask 077 is closed to
# other users). It lies outside any test's trash directory, where the
# words a panic leaves would be found in it.
# Under qemu-user $HERMES_BIN is a script that runs the binary where it was
# built: the binary is copied too, and the copied script runs that copy.
lonely_hermes() {
	if ! test -x "$TRASH_ROOT/lonely-bin/hermes"; then
		mkdir -p "$TRASH_ROOT/lonely-bin" &&
		if test -n "${HERMES_TEST_EMULATED:-}"; then
			emulated_install "$TRASH_ROOT/lonely-bin" &&
			chmod 755 "$TRASH_ROOT/lonely-bin/hermes.$HERMES_TEST_EMULATED"
		else
			cp "$HERMES_BIN" "$TRASH_ROOT/lonely-bin/hermes"
		fi &&
		chmod 755 "$TRASH_ROOT" "$TRASH_ROOT/lonely-bin" "$TRASH_ROOT/lonely-bin/hermes"
	fi &&
	echo "$TRASH_ROOT/lonely-bin/hermes"
}

# as_lonely_user N CMD...: CMD as user $LONELY_UID, who may run N
# processes and threads in all.
as_lonely_user() {
	limit=$1 &&
	shift &&
	prlimit --nproc="$limit:$limit" setpriv --reuid=$LONELY_UID --regid=$LONELY_UID --clear-groups "$@"
}

# ---- Context budget and compaction (t5000, t5010, t5020) ----------------

# make_rec: an agent, $REC, that keeps each input it reads as inputs/N
# (N = 1, 2, ...) in the test's directory and replies "reply N", or
# "SUMMARY N: the thread so far" when asked for a summary.
make_rec() {
	mkdir -p "$TRASH/inputs" &&
	cat >"$TRASH/rec" <<-EOF &&
	#!/bin/sh
	n=\$(( \$(ls "$TRASH/inputs" | wc -l) + 1 ))
	cat >"$TRASH/inputs/\$n"
	if grep -q "Summarise the conversation above" "$TRASH/inputs/\$n"; then
		echo "SUMMARY \$n: the thread so far"
	else
		echo "reply \$n"
	fi
	EOF
	chmod +x "$TRASH/rec" &&
	REC=$TRASH/rec
}

# last_input: the newest input the agent read.
last_input() {
	echo "$TRASH/inputs/$(ls "$TRASH/inputs" | sort -n | tail -n 1)"
}

# sent FILE: the characters of the messages' contents in JSON input FILE.
sent() {
	json_get "$1" "sum(len(m['content']) for m in v['messages'])"
}

# thread ID N: a session ID with a system prompt and N messages, user and
# assistant in turn, each "message I" padded to 100 characters.
thread() {
	python3 - "$HERMES_HOME/sessions/$1.json" "$1" "$2" <<-'EOF'
	import json, sys
	path, id, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
	ms = [{"role": "system", "content": "SYSTEM PROMPT", "ts": 1.0}]
	for i in range(n):
	    ms.append({"role": "user" if i % 2 == 0 else "assistant",
	               "content": ("message %d " % i).ljust(100, "x"), "ts": 2.0 + i})
	head = {"format": 1, "id": id, "title": "long", "title_source": "user",
	        "created_at": 1.0, "updated_at": 2.0 + n, "cwd": "/", "message_count": len(ms), "preview": ""}
	with open(path, "w") as f:
	    f.write(json.dumps(head)[:-1] + ',"messages":[\n' + ",\n".join(json.dumps(m) for m in ms) + "\n]}\n")
	EOF
}

# ---- A hermes chat in a tmux pane (t2800, t2820) --------------------------

# start_pane [NAME]: start_tmux [NAME] (a 150x50 pane), and wait for its
# shell's prompt. Not in $(...): the trap must belong to the test's shell.
start_pane() {
	start_tmux "$@" &&
	wait_until on_screen '^\$'
}

# ready PROMPT: the last line of the pane, blanks at its end left out, is
# PROMPT (the editor waits there).
ready() {
	test "$(tm capture-pane -p -t "$PANE" | grep -v '^$' | tail -n 1 | sed 's/ *$//')" = "$1"
}

# the_screen FILE: the pane's lines from hermes's first output on, blank
# lines at the end left out.
the_screen() {
	screen | sed -n '/^New session/,$p' | sed 's/ *$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$1"
}

# ---- A hermes command in a tmux pane (t2840, t2850) ----------------------

# pane_of COLS [ROWS]: a tmux pane COLS columns wide and ROWS (50) high, its
# shell in $TRASH at its prompt.
pane_of() {
	start_tmux &&
	tm resize-window -t test -x "$1" -y "${2:-50}" &&
	wait_until on_screen "^\\$"
}

# in_pane 'WORDS': type WORDS in the pane's shell, and wait for them to end;
# their exit status lands in rc.
in_pane() {
	rm -f rc &&
	type_line "$1; echo \$? >rc.tmp && mv rc.tmp rc" &&
	wait_until test -f rc
}

# agent NAME BODY: a script agent in the trash directory that reads its
# input, then runs BODY (sh); "gate" waits until the file gate exists.
agent() {
	{
		echo "#!/bin/sh" &&
		echo "cat >/dev/null" &&
		echo "gate() { while ! test -e '$TRASH/gate'; do sleep 0.05; done; }" &&
		echo "$2"
	} >"$1" &&
	chmod +x "$1"
}

# start_fake_server SECONDS: the fake OpenAI-compatible server
# (t6400-fake-openai.py) for this script, which stops by itself after
# SECONDS should the script die without stopping it. Its requests are kept
# in $SERVER_DIR; BASE_URL is its API root, empty where python3 or curl is
# missing (the scripts' SERVER prerequisite then skips). The server, key
# and model variables of the tester's environment are unset.
start_fake_server() {
	SERVER_DIR=$TRASH_ROOT/server
	mkdir -p "$SERVER_DIR"
	server_pid=
	BASE_URL=
	unset OPENAI_BASE_URL OPENAI_API_KEY OPENAI_MODEL HERMES_MODEL
	if command -v python3 >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
		python3 "$TEST_DIR/t6400-fake-openai.py" "$SERVER_DIR" "$1" &
		server_pid=$!
		poll_until -t 10 test -s "$SERVER_DIR/port"
		BASE_URL=http://127.0.0.1:$(cat "$SERVER_DIR/port" 2>/dev/null)/v1
	fi
	trap 'test -n "$server_pid" && kill "$server_pid" 2>/dev/null; rm -rf "$TRASH_ROOT"' EXIT
}

# last_request: the file of the request the fake server received last
# (request line, headers, body).
last_request() {
	ls "$SERVER_DIR" | sed -n 's/^request\.//p' | sort -n | tail -n 1 |
		sed "s|^|$SERVER_DIR/request.|"
}
