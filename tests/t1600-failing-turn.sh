#!/bin/sh
test_description='a turn that fails: said once on stderr, what arrived kept, never a hang'
. "$(dirname "$0")/lib.sh"

# The fake server's misbehaving models (see t6400-fake-openai.py): hang,
# stall, cut, plain500, html502, midstream-error, huge-usage, odd-usage.
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 150

# A turn through hermes's own request to the fake server, by model.
ask() {
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible "$@"
}

# One line of hermes's on stderr (besides session_id), and nothing of the
# server's error on stdout.
said_once() {
	grep -v "^session_id: " err >said &&
	test_line_count = 1 said &&
	grep "^hermes: $1" said
}

test_expect_success SERVER 'a server that never answers: the turn ends at --timeout, exit 3, one line, the message kept' '
	test_expect_code 3 timeout 60 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m hang --timeout 2 \
		--title hung -q "report" >out 2>err &&
	test_must_be_empty out &&
	said_once "no answer from http://127.0.0.1:.*/v1/chat/completions for 2 s, the turn.s timeout" &&
	id=$(session_id_by_title hung) &&
	echo "user: report" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success SERVER 'timeout in config.toml is the stall limit; 0 is none; a bad one is refused' '
	hermes config set timeout 1 &&
	test_expect_code 3 timeout 60 env OPENAI_BASE_URL=$BASE_URL \
		hermes chat --agent openai-compatible -m hang -q "cron" -Q 2>err &&
	grep "for 1 s, the turn.s timeout" err &&
	hermes config set timeout 0 &&
	test_expect_code 2 hermes config set timeout soon 2>err &&
	grep "timeout must be a whole number of seconds" err &&
	test_expect_code 2 hermes chat --timeout -1 -q x 2>err &&
	hermes chat --help >help &&
	grep -- "--timeout SECONDS" help &&
	grep "default 300" help
'

# A curl that notes its arguments, then answers nothing.
test_expect_success 'the limit reaches curl'"'"'s connect phase' '
	mkdir -p noting &&
	printf "#!/bin/sh\necho \"\$@\" >curl.args\ncat >/dev/null\n" >noting/curl &&
	chmod +x noting/curl &&
	test_expect_code 3 env PATH="$PWD/noting:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		hermes chat --agent openai-compatible --timeout 7 -m m -q hi 2>err &&
	grep -- "--connect-timeout 7 " curl.args
'

test_expect_success SERVER 'a stream that stalls: what arrived is kept, marked incomplete, exit 3' '
	test_expect_code 3 timeout 60 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible \
		-m stall --timeout 2 --title stalled -q "long one" >out 2>err &&
	echo "Hello from the" >expect &&
	test_cmp expect out &&
	said_once ".* sent nothing more for 2 s, the turn.s timeout.*; the 14 characters that arrived are kept, marked incomplete" &&
	id=$(session_id_by_title stalled) &&
	printf "user: long one\nassistant: Hello from the\n" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	grep "\"content\":\"Hello from the\",\"ts\":[0-9.]*,\"incomplete\":true}" "$HERMES_HOME/sessions/$id.json"
'

test_expect_success SERVER 'a connection cut mid-stream: what arrived is kept and shown as incomplete; one line on stderr' '
	test_expect_code 3 ask -m cut --title cut -q "tell me" >out 2>err &&
	echo "Hello from the" >expect &&
	test_cmp expect out &&
	said_once "the connection to http://127.0.0.1:.* was cut before the reply ended (curl: (18) transfer closed" &&
	! grep "^curl:" err &&
	hermes sessions show cut >shown &&
	grep "^\[assistant, incomplete\] " shown &&
	hermes sessions show --json cut >shown.json &&
	json_get shown.json "v[\"messages\"][1][\"incomplete\"]" >actual &&
	echo true >expect &&
	test_cmp expect actual
'

test_expect_success SERVER 'an error event in the stream: said once, what came before kept as incomplete' '
	test_expect_code 3 ask -m midstream-error --title midway -q "go" >out 2>err &&
	said_once ".* sent an error: upstream overloaded; the 14 characters that arrived are kept, marked incomplete" &&
	test "$(field "$(session_id_by_title midway)" message_count)" = 2
'

test_expect_success SERVER 'an error body that is not JSON: stderr only, once, never stdout, never saved' '
	test_expect_code 3 ask -m plain500 --title plain -q "keep me" >out 2>err &&
	test_must_be_empty out &&
	said_once "http://127.0.0.1:.* answered HTTP 500 (the server failed: try again later): Internal Server Error \[model plain500, from -m\]$" &&
	echo "user: keep me" >expect &&
	messages "$(session_id_by_title plain)" >actual && test_cmp expect actual &&
	test_expect_code 3 ask -m html502 -q "again" >out 2>err &&
	test_must_be_empty out &&
	said_once ".* answered HTTP 502 (the server failed: try again later): 502 Bad Gateway \[model html502, from -m\]$"
'

# An agent that writes part of a line, then says why it failed on stderr.
test_expect_success SCRIPT 'an agent'"'"'s stderr starts on a line of its own on a terminal' '
	agent failing "printf \"partial words\"; sleep 0.5; echo \"failing: the server went away\" >&2; exit 5" &&
	pty_transcript "hermes chat --agent ./failing -q hello; echo rc=\$?" screen.txt &&
	grep "^partial words$" screen.txt &&
	grep "^failing: the server went away$" screen.txt &&
	grep "^rc=3$" screen.txt &&
	grep "^hermes: agent ..*failing. exited with status 5; the 13 characters that arrived are kept" screen.txt
'

test_expect_success SERVER 'a model that failed is not kept; the next turn uses the default and the error named it' '
	test_expect_code 3 ask -m plain500 --title "api design" -q x 2>err &&
	grep "\[model plain500, from -m\]" err &&
	id=$(session_id_by_title "api design") &&
	test -z "$(field "$id" model)" &&
	OPENAI_MODEL=gpt-test-mini ask -c "api design" -q "retry now" -Q >out &&
	grep "\"model\": *\"gpt-test-mini\"" "$(last_request)" &&
	test "$(field "$id" model)" = gpt-test-mini
'

test_expect_success SERVER 'a model missing from the kept list is asked of the server again before it is refused' '
	hermes config set base_url "$BASE_URL" &&
	hermes models >/dev/null &&
	cache=$HERMES_HOME/models.cache &&
	grep llama3.2 "$cache" &&
	sed "s/llama3.2/gone-model/" "$cache" >cache.tmp && cat cache.tmp >"$cache" &&
	! grep llama3.2 "$cache" &&
	hermes chat -m llama3.2 -q hi -Q >out &&
	grep "Hello from the fake server" out &&
	grep llama3.2 "$cache" &&
	test_expect_code 2 hermes chat -m gpt-test-mimi -q hi 2>err &&
	grep "the server offers no such model (did you mean gpt-test-mini" err
'

test_expect_success SERVER '--json: one object for every exit status but 2, with error and exit_status' '
	test_expect_code 1 hermes chat -c nosuch --json -q x >out 2>err &&
	json_get out "[v[\"session_id\"], v[\"exit_status\"], v[\"error\"][:16]]" >actual &&
	printf "null\n1\nNo session found\n" >expect &&
	test_cmp expect actual &&
	grep "No session found" err &&
	test_expect_code 3 ask -m cut --json -q "tell me" >out 2>err &&
	json_get out "[v[\"reply\"], v[\"incomplete\"], v[\"exit_status\"]]" >actual &&
	printf "Hello from the\ntrue\n3\n" >expect &&
	test_cmp expect actual &&
	test_expect_code 2 hermes chat --no-agent --json -q "" >out 2>err &&
	test_must_be_empty out
'

test_expect_success SERVER '--json: a reply that cannot be saved (a full disk) is still in the object, and said' '
	test_native "ulimit -f counts what qemu writes too" &&
	ask --title full -q first -Q >/dev/null &&
	id=$(session_id_by_title full) &&
	size=$(wc -c <"$HERMES_HOME/sessions/$id.json") &&
	blocks=$(( (size + 300) / 512 + 1 )) &&
	test_expect_code 4 sh -c "ulimit -f $blocks; exec env OPENAI_BASE_URL=$BASE_URL \"$HERMES_BIN\" chat --agent openai-compatible -c full --json -q \"$(printf "%0300d" 0)\"" >out 2>err &&
	json_get out "[v[\"reply\"], v[\"exit_status\"]]" >actual &&
	printf "Hello from the fake server\n4\n" >expect &&
	test_cmp expect actual &&
	grep "the reply could not be saved; it is in the JSON object only" err
'

# The kill loop: hermes killed at each of its first ten milliseconds, 100
# times, its early curl started before the request is ready; the server
# must see no request hermes did not finish (empty, or cut).
test_expect_success SERVER 'hermes killed as it starts: its early curl never posts an empty or cut request' '
	before=$(ls "$SERVER_DIR" | grep -c "^request\.") &&
	i=0 &&
	while test $i -lt 100; do
		OPENAI_BASE_URL=$BASE_URL "$HERMES_BIN" chat --agent openai-compatible -m gpt-test-mini \
			-q "kill me $i" >/dev/null 2>&1 &
		pid=$! &&
		sleep "0.00$((i % 10))" &&
		if test $((i % 4)) = 3; then kill -TERM $pid 2>/dev/null; else kill -KILL $pid 2>/dev/null; fi
		wait $pid 2>/dev/null
		i=$((i + 1))
	done &&
	sleep 1 &&
	ls "$SERVER_DIR" | sed -n "s/^request\.//p" | sort -n | awk -v b="$before" "\$1 > b" >seen &&
	for n in $(cat seen); do
		python3 -c "
import json, sys
raw = open(sys.argv[1], \"rb\").read()
size = int(raw.split(b\"Content-Length: \", 1)[1].split(b\"\\n\", 1)[0])
body = raw[-size - 1:-1] if size else b\"\"
assert json.loads(body)[\"messages\"][-1][\"content\"].startswith(\"kill me\"), body
" "$SERVER_DIR/request.$n" || return 1
	done &&
	figure "kill loop: $(wc -l <seen | tr -d " ") whole requests seen, none empty or cut"
'

test_expect_success SERVER 'token counts as the server sent them; an odd one warned once, never "not JSON"' '
	ask -m huge-usage --title huge -q x -Q >out 2>err &&
	test_must_be_empty err &&
	grep "\"usage\":{\"prompt_tokens\":9223372036854775807,\"completion_tokens\":18446744073709551615,\"total_tokens\":7}" \
		"$HERMES_HOME/sessions/$(session_id_by_title huge).json" &&
	ask -m odd-usage --title odd -q x -Q >out 2>err &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	test_line_count = 1 err &&
	grep "^hermes: warning: .* sent a token count that is not a whole number" err &&
	! grep "not JSON" err
'

test_expect_success 'a bare -c that falls back says which session it took, and why, also with -q (not with -Q)' '
	hermes chat --no-agent --title "other thread" -q "cron: disk 91% full" -Q &&
	TMUX_PANE=%7 hermes chat --no-agent --title mine -q one -Q &&
	rm "$HERMES_HOME/sessions/$(session_id_by_title mine).json" &&
	TMUX_PANE=%7 hermes chat --no-agent -c -q two 2>err &&
	grep "^hermes: -c continues .other thread. (.*), the most recent session in this workspace: this terminal.s session was deleted$" err &&
	TMUX_PANE=%8 hermes chat --no-agent -c -q three 2>err &&
	grep "this terminal has no session yet$" err &&
	TMUX_PANE=%8 hermes chat --no-agent -c -q four -Q 2>err &&
	test_must_be_empty err
'

test_expect_success SCRIPT 'a pager that is not there: said, and the output shown without it; one that fails: exit 4' '
	hermes chat --no-agent --title paged -q "text to page" -Q &&
	pty_transcript "PAGER=no-such-pager hermes sessions show paged; echo rc=\$?" screen.txt &&
	grep "^hermes: warning: the pager .no-such-pager. is not installed" screen.txt &&
	grep "^text to page$" screen.txt &&
	grep "^rc=0$" screen.txt &&
	pty_transcript "PAGER=\"cat >/dev/null; exit 7\" hermes sessions show paged; echo rc=\$?" screen.txt &&
	grep "^hermes: the pager .* exited with status 7" screen.txt &&
	grep "^rc=4$" screen.txt
'

test_done
