#!/bin/sh
test_description='the agents in contrib/agents, end to end'
. "$(dirname "$0")/lib.sh"

AGENTS=$ROOT/contrib/agents

# SERVER: the fake server below runs (it needs python3, the
# openai-compatible agent curl).
test_lazy_prereq SERVER 'test -n "${OPENAI_BASE_URL:-}"'
test_lazy_prereq DASH 'command -v dash'

# One fake OpenAI-compatible server for the whole script (it stops by
# itself after 60 s, should this script die without stopping it).
start_fake_server 60
if test -n "$BASE_URL"; then
	OPENAI_BASE_URL=$BASE_URL
	export OPENAI_BASE_URL
fi

# The two ways the shipped openai-compatible agent answers: by hermes itself
# (the agent named, by its path here: curl started directly), and by its
# script, run by a shell (the way a user runs it by hand). Each test of
# what it does runs both; "$way" is the --agent of each in turn.
WAYS="$AGENTS/openai-compatible|sh $AGENTS/openai-compatible"

# direct: whether "$way" is hermes's own request (curl started by hermes,
# which says what went wrong in one line of its own), not the script.
direct() {
	test "$way" = "$AGENTS/openai-compatible"
}

# each_way CMD...: CMD once with $way set to each of WAYS; a failure names it.
each_way() {
	old_ifs=$IFS IFS='|'
	for way in $WAYS; do
		IFS=$old_ifs
		"$@" || { echo "failed with --agent '$way'" >&2; return 1; }
	done
	IFS=$old_ifs
}

# The messages of the session named on the "session_id: ID" line in $1,
# one "role: content" a line, from show --json.
session_of() {
	hermes sessions show --json "$(sed -n 's/^session_id: //p' "$1")" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "[m['role'] + ': ' + m['content'] for m in v['messages']]"
}

streamed() {
	OPENAI_MODEL=test-model hermes chat --agent "$way" -q hi >out 2>err &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	grep "^session_id: " err &&
	session_of err >session &&
	printf "user: hi\nassistant: Hello from the fake server\n" >expect &&
	test_cmp expect session
}

test_expect_success SERVER 'openai-compatible: the streamed reply is printed and saved' '
	each_way streamed
'

asks_for_a_stream() {
	OPENAI_MODEL=test-model hermes chat --agent "$way" -q "say \"hi\"" -Q >out &&
	req=$(last_request) &&
	grep "^POST /v1/chat/completions$" "$req" &&
	grep "^Accept: text/event-stream" "$req" &&
	grep "^Content-Type: application/json" "$req" &&
	grep "^{\"model\":\"test-model\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":\[{\"role\":\"user\",\"content\":\"say \\\\\"hi\\\\\"\"}\]}$" "$req" &&
	! grep -i "^authorization:" "$req"
}

test_expect_success SERVER 'openai-compatible: asks for a stream and fills in the empty model' '
	each_way asks_for_a_stream
'

hermes_model() {
	HERMES_MODEL="org/model:7b" hermes chat --agent "$way" -q hi -Q >out &&
	grep "^{\"model\":\"org/model:7b\",\"stream\":true," "$(last_request)"
}

test_expect_success SERVER 'openai-compatible: HERMES_MODEL fills the model when OPENAI_MODEL is unset' '
	each_way hermes_model
'

test_expect_success SERVER 'openai-compatible: config.toml agent and model; the model there wins' '
	mkdir -p "$HERMES_HOME" &&
	cat >"$HERMES_HOME/config.toml" <<-EOF &&
	agent = "$AGENTS/openai-compatible"
	model = "cfg-model"
	EOF
	OPENAI_MODEL=env-model hermes chat -q hi -Q >out &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	grep "^{\"model\":\"cfg-model\",\"stream\":true," "$(last_request)"
'

# Stand-ins that say they ran: the agent's usual path runs curl alone.
tripwires() {
	mkdir -p trip &&
	for tool in sed mktemp rm cat tail; do
		printf "#!/bin/sh\necho %s >>\"%s/tripped\"\nexit 1\n" "$tool" "$PWD" >"trip/$tool" &&
		chmod +x "trip/$tool" || return 1
	done
}

test_expect_success SERVER 'openai-compatible: hermes finished the body; it is posted byte for byte, with curl alone' '
	tripwires &&
	rm -f tripped &&
	HERMES_MODEL=m PATH="$PWD/trip:$PATH" OPENAI_API_KEY=sk-x \
		hermes chat --agent "tee sent.json | $AGENTS/openai-compatible" -q "a \"b\"" >out &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	! test -e tripped &&
	sed -n "/^{/p" "$(last_request)" >received &&
	test_cmp sent.json received &&
	grep "^{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":" sent.json
'

bearer() {
	OPENAI_API_KEY=sk-test OPENAI_MODEL=m hermes chat --agent "$way" -q hi -Q >out &&
	grep "^Authorization: Bearer sk-test" "$(last_request)"
}

test_expect_success SERVER 'openai-compatible: OPENAI_API_KEY is sent as a bearer token' '
	each_way bearer
'

unauthorized() {
	test_expect_code 3 env OPENAI_API_KEY=bad OPENAI_MODEL=m \
		hermes chat --agent "$way" -q "keep me" >out 2>err &&
	test_must_be_empty out &&
	if direct; then
		grep "^hermes: http://.* answered HTTP 401 (check the key: api_key_env or api_key_command in config.toml, or OPENAI_API_KEY): Incorrect API key provided \[model m, the default: environment: OPENAI_MODEL\]$" err &&
		test "$(grep -c "HTTP 401" err)" = 1
	else
		grep "^openai-compatible: .* answered HTTP 401 (check the key: api_key_env or api_key_command in config.toml, or OPENAI_API_KEY)$" err &&
		grep "^hermes: agent .* sent an error: Incorrect API key provided" err
	fi &&
	session_of err >session &&
	echo "user: keep me" >expect &&
	test_cmp expect session
}

test_expect_success SERVER 'openai-compatible: HTTP 401 is exit 3 with a clear message; the message is kept' '
	each_way unauthorized
'

unknown_model() {
	test_expect_code 3 env OPENAI_MODEL=missing \
		hermes chat --agent "$way" -q hi >out 2>err &&
	grep "answered HTTP 404 (check base_url and the model name)" err &&
	grep "model .missing. not found" err
}

test_expect_success SERVER 'openai-compatible: an unknown model is exit 3 naming HTTP 404' '
	each_way unknown_model
'

no_server() {
	test_expect_code 3 env OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		hermes chat --agent "$way" -q hi >out 2>err &&
	if direct; then
		grep "^hermes: cannot connect to http://127.0.0.1:9/v1/chat/completions: is the server running? (base_url in config.toml, or OPENAI_BASE_URL)" err &&
		test_line_count = 2 err
	else
		grep "^openai-compatible: cannot connect to http://127.0.0.1:9/v1/chat/completions: is the server running? (base_url in config.toml, or OPENAI_BASE_URL)$" err &&
		grep "^hermes: agent .*openai-compatible. exited with status 7" err
	fi
}

test_expect_success SERVER 'openai-compatible: no server is exit 3 saying so' '
	each_way no_server
'

test_expect_success SERVER 'openai-compatible: a reply stopped at the 16 MiB a reply may hold says so, and not that curl failed' '
	test_expect_code 3 env OPENAI_MODEL=huge \
		hermes chat --agent "$AGENTS/openai-compatible" -q hi >out 2>err &&
	grep "^hermes: agent .*openai-compatible. wrote a reply larger than 16 MiB; stopped it, the reply was not saved$" err &&
	! grep "curl exit status" err &&
	test_line_count = 2 err &&
	grep "^session_id: " err
'

# A curl that says what a curl whose libraries cannot load says, and exits
# as it does.
unloadable_curl() {
	mkdir -p broken &&
	printf "#!/bin/sh\necho \"curl: error while loading shared libraries: libcurl.so.4\" >&2\nexit 127\n" >broken/curl &&
	chmod +x broken/curl
}

curl_cannot_start() {
	test_expect_code 3 env PATH="$PWD/broken:$PATH" OPENAI_MODEL=m \
		hermes chat --agent "$way" -q hi >out 2>err &&
	if direct; then
		grep "^hermes: curl could not start (exit status 127) (curl: error while loading shared libraries: libcurl.so.4)" err
	else
		grep "^curl: error while loading shared libraries: libcurl.so.4$" err &&
		grep "^openai-compatible: curl could not start (exit status 127)$" err
	fi &&
	! grep "not installed" err
}

# (The script without curl: t4160.)
test_expect_success SERVER 'openai-compatible: curl not there is "not installed"; one that cannot start says so in its own words' '
	test_expect_code 3 env PATH=/nonexistent OPENAI_MODEL=m \
		"$HERMES_BIN" chat --agent "/bin/sh $AGENTS/openai-compatible" -q hi >out 2>err &&
	grep "^openai-compatible: curl is not installed$" err &&
	grep "^hermes: agent .*openai-compatible. exited with status 127" err &&
	test_expect_code 3 env PATH=/nonexistent OPENAI_MODEL=m \
		"$HERMES_BIN" chat --agent "$AGENTS/openai-compatible" -q hi >out 2>err &&
	grep "^hermes: curl is not installed; the openai-compatible agent needs it" err &&
	unloadable_curl &&
	each_way curl_cannot_start
'

# A curl that says much on stderr (more than a pipe holds) before its
# answer, then fails as curl does.
talkative_curl() {
	mkdir -p talkative &&
	cat >talkative/curl <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	i=0
	while test $i -lt 3000; do
		echo "curl: a long complaint, line $i, of a curl that says much before it answers" >&2
		i=$((i + 1))
	done
	printf "HTTP/1.1 200 OK\r\n\r\n"
	printf "data: {\"choices\":[{\"delta\":{\"content\":\"spoke\"}}]}\n\n"
	exit 56
	EOF
	chmod +x talkative/curl
}

test_expect_success 'openai-compatible: a curl that writes more than a pipe holds on stderr is read on, and its last words said' '
	talkative_curl &&
	test_expect_code 3 env PATH="$PWD/talkative:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		timeout 60 hermes chat --agent "$AGENTS/openai-compatible" -q hi >out 2>err &&
	echo spoke >expect &&
	test_cmp expect out &&
	grep "^hermes: the connection to http://127.0.0.1:9/v1/chat/completions was cut before the reply ended (curl: a long complaint, line 2999, of a curl" err &&
	grep "the 5 characters that arrived are kept, marked incomplete" err
'

# A curl that answers a whole stream, [DONE] included, then lingers (as
# one does while a server is slow to close its connection), holding its
# stdout open; its pid in curl.pid.
lingering_curl() {
	mkdir -p lingering &&
	cat >lingering/curl <<-\EOF &&
	#!/bin/sh
	echo $$ >curl.pid
	cat >/dev/null
	printf "HTTP/1.1 200 OK\r\n\r\n"
	printf "data: {\"choices\":[{\"delta\":{\"content\":\"whole\"}}]}\n\ndata: [DONE]\n\n"
	exec sleep 120
	EOF
	chmod +x lingering/curl
}

test_expect_success 'openai-compatible: the stream'"'"'s [DONE] ends the turn: the reply is saved, a curl that lingers is stopped, not waited for' '
	lingering_curl &&
	env PATH="$PWD/lingering:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		timeout 60 hermes chat --agent "$AGENTS/openai-compatible" --title linger -q hi >out 2>err &&
	echo whole >expect &&
	test_cmp expect out &&
	printf "%s\n" "user: hi" "assistant: whole" >expect &&
	messages "$(session_id_by_title linger)" >actual &&
	test_cmp expect actual &&
	! kill -0 "$(cat curl.pid)" 2>/dev/null
'

# A curl that notes its pid, then what it read once its stdin ends: the
# request it would post.
noting_curl() {
	mkdir -p noting &&
	cat >noting/curl <<-\EOF &&
	#!/bin/sh
	echo $$ >curl.pid
	cat >request
	echo "read $(wc -c <request) bytes" >>curl.log
	EOF
	chmod +x noting/curl
}

# wait_gone PIDFILE: until the process it names (if any) has ended.
wait_gone() {
	test -f "$1" || return 0
	i=0
	while kill -0 "$(cat "$1")" 2>/dev/null && test $i -lt 100; do
		sleep 0.1
		i=$((i + 1))
	done
	! kill -0 "$(cat "$1")" 2>/dev/null
}

test_expect_success 'openai-compatible: curl, started while the session is looked up, is killed unheard when no turn takes it' '
	noting_curl &&
	rm -f curl.pid curl.log &&
	test_expect_code 1 env PATH="$PWD/noting:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		hermes chat --agent "$AGENTS/openai-compatible" -c "no such session" -q hi 2>err &&
	grep "No session found" err &&
	wait_gone curl.pid &&
	test_expect_code 2 env PATH="$PWD/noting:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		hermes chat --agent "$AGENTS/openai-compatible" --title 20261205 -q hi 2>err &&
	wait_gone curl.pid &&
	! test -e curl.log &&
	# The same curl, given its turn, reads the request.
	env PATH="$PWD/noting:$PATH" OPENAI_BASE_URL=http://127.0.0.1:9/v1 \
		hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out 2>err;
	wait_gone curl.pid &&
	grep "^read [1-9][0-9]* bytes$" curl.log &&
	grep "\"content\":\"hi\"" request
'

test_expect_success SERVER,DASH 'openai-compatible runs under dash' '
	OPENAI_MODEL=m hermes chat --agent "dash $AGENTS/openai-compatible" -q hi >out &&
	grep "^Hello from the fake server$" out
'

# Stand-ins for the ollama and llm programs: they show their arguments and
# what they read.
fake_program() {
	mkdir -p bin &&
	cat >"bin/$1" <<-\EOF &&
	#!/bin/sh
	echo "args: $*"
	sed "s/^/stdin: /"
	EOF
	chmod +x "bin/$1"
}

transcript_config() {
	mkdir -p "$HERMES_HOME" &&
	printf "agent_input = \"transcript\"\n%s\n" "${1:-}" >"$HERMES_HOME/config.toml"
}

test_expect_success 'ollama: runs the model on the transcript' '
	fake_program ollama &&
	transcript_config "model = \"mistral\"" &&
	PATH=$PWD/bin:$PATH hermes chat --agent "$AGENTS/ollama" -q "hi there" -Q >out &&
	cat >expect <<-\EOF &&
	args: run mistral
	stdin: user: hi there
	EOF
	test_cmp expect out
'

test_expect_success 'ollama: llama3.2 when no model is set' '
	fake_program ollama &&
	transcript_config &&
	PATH=$PWD/bin:$PATH hermes chat --agent "$AGENTS/ollama" -q hi -Q >out &&
	grep "^args: run llama3.2$" out
'

test_expect_success 'ollama: JSON input is refused with what to set' '
	fake_program ollama &&
	test_expect_code 3 env PATH="$PWD/bin:$PATH" hermes chat --agent "$AGENTS/ollama" -q hi -Q >out 2>err &&
	grep "set agent_input = \"transcript\" in config.toml" err
'

test_expect_success 'llm: the transcript goes to llm prompt, with -m when a model is set' '
	fake_program llm &&
	transcript_config "model = \"gpt-x\"" &&
	PATH=$PWD/bin:$PATH hermes chat --agent "$AGENTS/llm" -q first -Q >out &&
	cat >expect <<-\EOF &&
	args: prompt -m gpt-x
	stdin: user: first
	EOF
	test_cmp expect out &&
	transcript_config &&
	# The session keeps the model it was used with; a new one has none.
	PATH=$PWD/bin:$PATH hermes chat -c --agent "$AGENTS/llm" -q second -Q >out &&
	grep "^args: prompt -m gpt-x$" out &&
	grep "^stdin: user: second$" out &&
	grep "^stdin: assistant: args: prompt -m gpt-x$" out &&
	PATH=$PWD/bin:$PATH hermes chat --agent "$AGENTS/llm" -q third -Q >out &&
	grep "^args: prompt$" out
'

test_expect_success 'the agents are POSIX sh and executable' '
	for agent in openai-compatible ollama llm; do
		test -x "$AGENTS/$agent" &&
		head -n 1 "$AGENTS/$agent" >line &&
		echo "#!/bin/sh" >expect &&
		test_cmp expect line &&
		sh -n "$AGENTS/$agent" || return 1
	done
'

test_done
