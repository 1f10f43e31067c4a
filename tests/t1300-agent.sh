#!/bin/sh
test_description='hermes chat and its agent: which command, what it reads, what it sees, what it may answer, how it fails'
. "$(dirname "$0")/lib.sh"

use_fake_agent

# config LINE...: write $HERMES_HOME/config.toml.
config() {
	mkdir -p "$HERMES_HOME" &&
	printf '%s\n' "$@" >"$HERMES_HOME/config.toml"
}

# A conversation of three messages so far: user, assistant, user.
converse() {
	hermes chat -c talk --create-if-missing -q first --agent "fake-agent text reply-one" -Q >/dev/null &&
	hermes chat -c talk -q second "$@"
}

# replies AGENT REPLY: hermes chat -q hi --agent AGENT prints REPLY on
# stdout and only its session_id line on stderr (into out and err); the
# store holds one session, whose ID is then in $id, and it holds hi and
# REPLY.
replies() {
	hermes chat -q hi --agent "$1" >out 2>err &&
	id=$(only_id) &&
	echo "$2" >expect && test_cmp expect out &&
	echo "session_id: $id" >expect && test_cmp expect err &&
	printf "user: hi\nassistant: %s\n" "$2" >expect &&
	messages "$id" >actual && test_cmp expect actual
}

# fails_keeping_message OPTION...: hermes chat -q "keep me" OPTION... (an
# agent that fails) exits 3, with its stdout in out and its stderr in err;
# the store holds one session, whose ID is then in $id, and it holds that
# message and no reply.
fails_keeping_message() {
	test_expect_code 3 hermes chat -q "keep me" "$@" >out 2>err &&
	id=$(only_id) &&
	echo "user: keep me" >expect &&
	messages "$id" >actual && test_cmp expect actual
}

# fails_keeping_partial PARTIAL OPTION...: a turn whose agent fails after
# writing PARTIAL: exit 3, the message kept, and what arrived kept as a
# reply marked incomplete, said once.
fails_keeping_partial() {
	partial=$1 && shift &&
	test_expect_code 3 hermes chat -q "keep me" "$@" >out 2>err &&
	id=$(only_id) &&
	printf "user: keep me\nassistant: %s\n" "$partial" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	grep "\"incomplete\":true" "$HERMES_HOME/sessions/$id.json" &&
	grep "that arrived .* kept, marked incomplete" err
}

test_expect_success 'agent from config.toml' '
	config "agent = \"fake-agent text from-config\"" &&
	hermes chat -q hi -Q >out &&
	echo from-config >expect && test_cmp expect out
'

test_expect_success 'HERMES_AGENT wins over config.toml' '
	config "agent = \"fake-agent text from-config\"" &&
	HERMES_AGENT="fake-agent text from-env" hermes chat -q hi -Q >out &&
	echo from-env >expect && test_cmp expect out
'

test_expect_success '--agent wins over HERMES_AGENT and config.toml' '
	config "agent = \"fake-agent text from-config\"" &&
	HERMES_AGENT="fake-agent text from-env" hermes chat -q hi -Q --agent "fake-agent text from-flag" >out &&
	echo from-flag >expect && test_cmp expect out
'

test_expect_success 'HERMES_AGENT alone, and --agent over it, without a config file' '
	HERMES_AGENT="fake-agent text from-env" &&
	export HERMES_AGENT &&
	hermes chat -q hi -Q >out &&
	echo from-env >expect && test_cmp expect out &&
	hermes chat -q hi2 -Q --agent "fake-agent text from-flag" >out &&
	echo from-flag >expect && test_cmp expect out
'

test_expect_success 'the agent of a profile is in that profile config.toml' '
	config "agent = \"fake-agent text main-profile\"" &&
	mkdir -p "$HERMES_HOME/profiles/work" &&
	echo "agent = \"fake-agent text work-profile\"" >"$HERMES_HOME/profiles/work/config.toml" &&
	hermes -p work chat -q hi -Q >out &&
	echo work-profile >expect && test_cmp expect out &&
	hermes chat -q hi -Q >out &&
	echo main-profile >expect && test_cmp expect out &&
	# Every spelling of the option names the same profile.
	for p in "-pwork" "--profile=work" "--profile work"; do
		hermes $p chat -q hi -Q >out &&
		echo work-profile >expect && test_cmp expect out || return 1
	done
'

test_expect_success 'the agent runs under /bin/sh -c' '
	hermes chat -q hi -Q --agent "cat >/dev/null; x=sh-ran; echo \"\$x\" | tr a-z A-Z" >out &&
	echo SH-RAN >expect && test_cmp expect out
'

test_expect_success 'agent stdin, json (default): an OpenAI chat-completions request body' '
	config "model = \"gpt-test\"" &&
	converse --agent "fake-agent save input.json" -Q >out &&
	echo saved >expect && test_cmp expect out &&
	tr -d " \n" <input.json >flat &&
	grep "^{" flat &&
	grep "\"model\":\"gpt-test\"" flat &&
	grep "\"messages\":\[{\"role\":\"user\",\"content\":\"first\"},{\"role\":\"assistant\",\"content\":\"reply-one\"},{\"role\":\"user\",\"content\":\"second\"}\]" flat
'

test_expect_success 'agent stdin, json: stream asked for; the model from HERMES_MODEL when config.toml names none' '
	HERMES_MODEL=env-model hermes chat -q hi -Q --agent "fake-agent save input.json" >out &&
	grep "^{\"model\":\"env-model\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":\[{\"role\":\"user\",\"content\":\"hi\"}\]}\$" input.json &&
	config "model = \"cfg-model\"" &&
	HERMES_MODEL=env-model hermes chat -q hi -Q --agent "fake-agent save input.json" >out &&
	grep "^{\"model\":\"cfg-model\",\"stream\":true," input.json &&
	rm "$HERMES_HOME/config.toml" &&
	hermes chat -q hi -Q --agent "fake-agent save input.json" >out &&
	grep "^{\"model\":\"\",\"stream\":true," input.json
'

test_expect_success PYTHON3 'agent stdin, json: parses as exactly that request' '
	config "model = \"gpt-test\"" &&
	converse --agent "fake-agent save input.json" -Q >out &&
	python3 -c "
import json, sys
body = json.load(open(\"input.json\"))
assert body[\"model\"] == \"gpt-test\", body
assert body[\"messages\"] == [
    {\"role\": \"user\", \"content\": \"first\"},
    {\"role\": \"assistant\", \"content\": \"reply-one\"},
    {\"role\": \"user\", \"content\": \"second\"},
], body
"
'

test_expect_success PYTHON3 'agent stdin, json: quotes, backslashes, newlines and non-ASCII survive' '
	printf "say \"hi\"\\\\path\nnext line \303\251\342\202\254\n" >msg &&
	hermes chat -q - -Q --agent "fake-agent save input.json" <msg >out &&
	python3 -c "
import json
body = json.load(open(\"input.json\"))
want = open(\"msg\", encoding=\"utf-8\").read().rstrip(\"\\n\")
assert body[\"messages\"] == [{\"role\": \"user\", \"content\": want}], (body, want)
"
'

test_expect_success 'agent_input = "json" in config.toml is the default form' '
	config "agent_input = \"json\"" &&
	converse --agent "fake-agent save input.json" -Q >out &&
	tr -d " \n" <input.json >flat &&
	grep "\"messages\":\[{\"role\":\"user\",\"content\":\"first\"}," flat
'

test_expect_success 'agent stdin, transcript: the conversation as plain text' '
	config "agent_input = \"transcript\"" &&
	converse --agent "fake-agent save input.txt" -Q >out &&
	echo saved >expect && test_cmp expect out &&
	! grep "^{" input.txt &&
	! grep "\"messages\"" input.txt &&
	first=$(grep -n "first" input.txt | head -n 1 | cut -d: -f1) &&
	reply=$(grep -n "reply-one" input.txt | head -n 1 | cut -d: -f1) &&
	second=$(grep -n "second" input.txt | head -n 1 | cut -d: -f1) &&
	test "$first" -lt "$reply" && test "$reply" -lt "$second" &&
	grep "user" input.txt &&
	grep "assistant" input.txt
'

test_expect_success 'agent stdin, text: the latest user message only' '
	config "agent_input = \"text\"" &&
	converse --agent "fake-agent save input.txt" -Q >out &&
	echo saved >expect && test_cmp expect out &&
	echo second >expect && test_cmp expect input.txt
'

test_expect_success 'a bad agent_input in config.toml is a clear error, nothing sent' '
	config "agent = \"touch agent-ran\"" "agent_input = \"yaml\"" &&
	test_must_fail hermes chat -q hi >out 2>err &&
	test_must_be_empty out &&
	! test -e agent-ran &&
	grep "^hermes: " err &&
	grep "agent_input" err
'

test_expect_success 'a mistake in config.toml is named by its line; comments, escapes and literal strings are fine' '
	config "# my agent" "" "model = \"m\"" "agent = touch agent-ran" &&
	test_expect_code 4 hermes chat -q hi >out 2>err &&
	echo "hermes: $HERMES_HOME/config.toml: line 4: the value of '"'agent'"' must be a quoted string on one line, as in agent = \"...\"" >expect &&
	test_cmp expect err &&
	config "agent = \"echo one\"" "agent = \"echo two\"" &&
	test_expect_code 4 hermes chat -q hi 2>err &&
	grep "config.toml: line 2: '"'agent'"' is set twice$" err &&
	config "model = \"m\"" "agent = \"echo \\q \\u+04a\"" &&
	test_expect_code 4 hermes chat -q hi 2>err &&
	grep "config.toml: line 2: the value of '"'agent'"': a bad escape in a string" err &&
	config "agent = \"echo \\u0000x\"" &&
	test_expect_code 4 hermes chat -q hi 2>err &&
	grep "config.toml: line 1: the value of '"'agent'"' holds a NUL character$" err &&
	config "[agent]" &&
	test_expect_code 4 hermes chat -q hi 2>err &&
	grep "config.toml: line 1: the only tables are \[servers.NAME\]; the other keys are agent, agent_input, model, base_url, api_key_env, api_key_command, system, render, session_id, save, usage, context, timeout, compact, temperature, top_p, max_tokens, seed, stop$" err &&
	config "agnet = \"x\"" "agent = '"'echo \"literal\"'"' # a comment" &&
	hermes chat -q hi -Q >out 2>err &&
	grep "config.toml: line 1: unknown key '"'agnet'"' ignored" err &&
	echo literal >expect && test_cmp expect out &&
	config "agent = \"printf \\\"%s\\\\n\\\" caf\\u00e9\"" &&
	hermes chat -q hi -Q >out &&
	echo "café" >expect && test_cmp expect out &&
	! test -e agent-ran
'

test_expect_success 'the agent sees HERMES_SESSION_ID, HERMES_SESSION_TITLE and HERMES_MODEL' '
	config "model = \"gpt-test\"" &&
	hermes chat -c "redis debug" --create-if-missing -q hi -Q --agent "fake-agent env env.txt" >out &&
	id=$(only_id) &&
	echo env >expect && test_cmp expect out &&
	cat >expect <<-EOF &&
	id=$id
	title=redis debug
	model=gpt-test
	EOF
	test_cmp expect env.txt
'

test_expect_success 'without model in config.toml, HERMES_MODEL is not set' '
	unset HERMES_MODEL &&
	hermes chat -q "hello there" -Q --agent "fake-agent env env.txt" >out &&
	id=$(only_id) &&
	cat >expect <<-EOF &&
	id=$id
	title=hello there
	model=unset
	EOF
	test_cmp expect env.txt
'

test_expect_success 'agent output, plain text: streamed to stdout and saved' '
	replies "fake-agent text hello there" "hello there"
'

test_expect_success 'agent output, plain text starting with a brace is still plain text' '
	hermes chat -q hi -Q --agent "cat >/dev/null; echo \"{not json} really\"" >out &&
	echo "{not json} really" >expect && test_cmp expect out &&
	printf "user: hi\nassistant: {not json} really\n" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'agent output, an OpenAI chat-completion object: its content is the reply' '
	replies "fake-agent json from-json" from-json
'

test_expect_success 'agent output, an OpenAI SSE stream: the deltas joined are the reply' '
	replies "fake-agent sse Hel lo, wor ld" "Hello,world" &&
	! grep "data:" out &&
	! grep "DONE" "$HERMES_HOME/sessions/$id.json"
'

test_expect_success 'agent output, an indented completion object with JSON escapes' '
	hermes chat -q hi -Q --agent "fake-agent json-pretty" >out &&
	printf "caf\303\251 \"q\"\nline2\n" >expect && test_cmp expect out &&
	{
		echo "user: hi" &&
		printf "assistant: caf\303\251 " &&
		printf "%s\n" "\\\"q\\\"\\nline2"
	} >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'agent output, an SSE stream with CRLF line ends' '
	hermes chat -q hi -Q --agent "fake-agent sse-crlf A B C" >out &&
	echo ABC >expect && test_cmp expect out &&
	printf "user: hi\nassistant: ABC\n" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'agent output forms work with -c on an existing conversation' '
	converse --agent "fake-agent sse sec ond" -Q >out &&
	id=$(only_id) &&
	echo "second" >expect && test_cmp expect out &&
	printf "user: first\nassistant: reply-one\nuser: second\nassistant: second\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'a failing agent (exit 7): exit 3, names the command and status, keeps the message' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	fails_keeping_partial "partial reply" --agent "fake-agent fail 7" &&
	grep "^hermes: .*fake-agent fail 7" err &&
	grep "status 7" err &&
	grep -x "session_id: $id" err &&
	test "$(field "$id" message_count)" = 2 &&
	grep "\"session_id\":\"$id\"" "$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json"
'

test_expect_success 'a failing agent on a continued session: exit 3, the new message kept, what arrived kept marked incomplete' '
	test_expect_code 3 converse --agent "fake-agent fail 7" -Q >out 2>err &&
	id=$(only_id) &&
	grep "fake-agent fail 7" err &&
	printf "user: first\nassistant: reply-one\nuser: second\nassistant: partial reply\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'an agent killed by a signal: exit 3, names the command and the signal' '
	fails_keeping_partial "partial reply" --agent "exec fake-agent kill KILL" &&
	grep "^hermes: .*exec fake-agent kill KILL" err &&
	grep "signal 9" err
'

test_expect_success 'an agent whose shell dies of a signal: exit 3, the message kept' '
	fails_keeping_partial part -Q --agent "cat >/dev/null; echo part; kill -TERM \$\$" &&
	grep "^hermes: " err &&
	grep "signal 15" err
'

test_expect_success 'an agent killed by SIGINT on its own: exit 3, not an interruption of hermes' '
	# SIGINT at its default for the agent: it inherits what hermes has.
	test_expect_code 3 $interruptible hermes chat -q "keep me" -Q --agent "exec fake-agent kill INT" >out 2>err &&
	id=$(only_id) &&
	printf "user: keep me\nassistant: partial reply\n" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	grep "^hermes: .*exec fake-agent kill INT" err &&
	grep "signal 2" err
'

test_expect_success 'hermes interrupted while the agent runs: exit 130, the agent stopped, the message kept' '
	hermes chat -q "keep me" -Q --agent "exec fake-agent slow agent.pid" >out 2>err &
	hermes_pid=$! &&
	poll_until test -s agent.pid &&
	agent_pid=$(cat agent.pid) &&
	kill -TERM $hermes_pid &&
	test_expect_code 130 wait $hermes_pid &&
	gone "$agent_pid" &&
	grep "^hermes: " err &&
	messages "$(only_id)" >actual &&
	head -n 1 actual >first &&
	echo "user: keep me" >expect && test_cmp expect first
'

test_expect_success 'an agent command that does not exist: exit 3, the message kept' '
	fails_keeping_message -Q --agent "no-such-agent-for-hermes-tests --with-arguments" &&
	grep "^hermes: .*no-such-agent-for-hermes-tests" err
'

test_expect_success 'an agent name that is no shipped agent nor on PATH: exit 3 before anything is saved' '
	test_expect_code 3 hermes chat -q "keep me" -Q --agent "no-such-agent-for-hermes-tests" 2>err &&
	grep "^hermes: agent .no-such-agent-for-hermes-tests. not found: not a shipped agent nor a command on PATH" err &&
	! ls "$HERMES_HOME/sessions/"*.json 2>/dev/null
'

test_expect_success 'an OpenAI error object from the agent: exit 3, its message shown, no reply saved' '
	fails_keeping_message -Q --agent "fake-agent api-error model not found" &&
	grep "^hermes: .*model not found" err
'

test_expect_success 'an agent that answers nothing: exit 3, said, no empty reply saved' '
	test_expect_code 3 hermes chat -q "hello" -Q --agent "cat >/dev/null" >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: agent '"'"'cat >/dev/null'"'"' wrote an empty reply; no reply was saved, the message is kept" >expect &&
	test_cmp expect err &&
	echo "user: hello" >expect &&
	messages "$(only_id)" >actual && test_cmp expect actual
'

test_expect_success 'an agent that ignores its stdin still works' '
	hermes chat -q "hello" -Q --agent "echo ignored-input" >out &&
	echo ignored-input >expect && test_cmp expect out
'

test_expect_success ROOT,SETPRIV,PRLIMIT 'no thread to feed the agent (a user at its process limit): exit 3, the message kept' '
	test_native "qemu-user aborts where it cannot start a thread, instead of failing the guest'"'"'s clone with EAGAIN" &&
	# hermes and the agent are the two processes the user may run; the
	# thread that would write the agent its input would be a third. The
	# agent forks nothing (shell builtins only).
	chmod 755 "$TRASH_ROOT" "$TRASH" &&
	mkdir lonely-home &&
	chown $LONELY_UID:$LONELY_UID lonely-home &&
	HERMES_HOME=$TRASH/lonely-home &&
	test_expect_code 3 as_lonely_user 2 "$(lonely_hermes)" chat -q "keep me" -Q \
		--agent "while read -r line; do :; done; echo never" >out 2>err &&
	! grep never out &&
	grep "^hermes: cannot start a thread to feed agent .*: Resource temporarily unavailable\$" err &&
	echo "user: keep me" >expect &&
	messages "$(only_id)" >actual &&
	test_cmp expect actual
'

test_expect_success 'an agent named by one word runs without a shell between; one with no #! line still runs' '
	test_native "the agent'"'"'s parent process is qemu, by name" &&
	printf "#!/bin/sh\ncat >/dev/null\ncat /proc/\$PPID/comm\n" >"$TRASH/parent" &&
	chmod +x "$TRASH/parent" &&
	hermes chat -c direct --create-if-missing -q hi --agent "$TRASH/parent" -Q >out &&
	echo hermes >expect &&
	test_cmp expect out &&
	printf "cat >/dev/null\necho no shebang\n" >"$TRASH/bare" &&
	chmod +x "$TRASH/bare" &&
	hermes chat -c direct -q again --agent "$TRASH/bare" -Q >out &&
	echo "no shebang" >expect &&
	test_cmp expect out &&
	test_expect_code 3 hermes chat -c direct -q more --agent "$TRASH/missing" -Q 2>err &&
	grep "not found" err
'

test_done
