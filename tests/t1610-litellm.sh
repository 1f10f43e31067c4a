#!/bin/sh
test_description='a real OpenAI-compatible server hermes did not write: LiteLLM proxy with mock responses'
. "$(dirname "$0")/lib.sh"

# LiteLLM's proxy (installed into a venv by .ci/run, or named by
# $HERMES_TEST_LITELLM), its models answering from mock_response: no
# network, no provider. A streamed turn, the usage, the model list, a 429
# and a 500 as the proxy makes them, a missing key, and a connection cut
# by the proxy dying mid-stream.
LITELLM=${HERMES_TEST_LITELLM:-/var/tmp/hermes-litellm/bin/litellm}
test_lazy_prereq LITELLM 'test -x "$LITELLM" && command -v python3 && command -v curl'
# PROXY: it started, and answers.
test_lazy_prereq PROXY 'test -n "$BASE"'
BASE=

KEY=sk-hermes-test-master
LONG_WORDS=8000

# The proxy's configuration: four models and a master key.
{
	echo "model_list:"
	for model in mock-gpt mock-429 mock-500 mock-long; do
		case $model in
		mock-gpt) answer="Hello from LiteLLM" ;;
		mock-429) answer=litellm.RateLimitError ;;
		mock-500) answer=litellm.InternalServerError ;;
		mock-long) answer=$(seq -f "word%g" 1 $LONG_WORDS | tr "\n" " ") ;;
		esac
		printf '  - model_name: %s\n    litellm_params:\n      model: openai/%s\n' "$model" "$model"
		printf '      api_key: sk-unused\n      mock_response: "%s"\n' "$answer"
	done
	printf 'litellm_settings:\n  telemetry: false\n  num_retries: 0\n'
	printf 'general_settings:\n  master_key: %s\n' "$KEY"
} >"$TRASH_ROOT/litellm.yaml"

start_proxy() {
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# It stops by itself after 600 s, should this script die first.
LITELLM_LOCAL_MODEL_COST_MAP=True NO_DOCS=True timeout 600 \
	"$LITELLM" --config "$TRASH_ROOT/litellm.yaml" --host 127.0.0.1 --port "$PORT" \
	>"$TRASH_ROOT/litellm.log" 2>&1 &
proxy=$!
trap 'kill "$proxy" 2>/dev/null; rm -rf "$TRASH_ROOT"' EXIT
up() {
	curl -s -o /dev/null "http://127.0.0.1:$PORT/health/liveliness"
}
if poll_until -t 120 up; then
	BASE=http://127.0.0.1:$PORT/v1
else
	tail -n 20 "$TRASH_ROOT/litellm.log" >&2
	echo "# the LiteLLM proxy did not start within 120 s: its tests skip" >&2
fi
}
if test_have_prereq LITELLM; then
	start_proxy
else
	echo "# no LiteLLM proxy at $LITELLM (.ci/run installs it into a venv, or set HERMES_TEST_LITELLM): its tests skip" >&2
fi

# hermes set up for the proxy, its key in the variable api_key_env names.
use_proxy() {
	hermes config set base_url "$BASE" &&
	hermes config set api_key_env LITELLM_MASTER_KEY
}
LITELLM_MASTER_KEY=$KEY
export LITELLM_MASTER_KEY

test_expect_success LITELLM,PROXY 'a streamed turn through the proxy: printed, saved with its usage' '
	use_proxy &&
	hermes chat -m mock-gpt --title real -q "hello there" >out 2>err &&
	echo "Hello from LiteLLM" >expect &&
	test_cmp expect out &&
	id=$(session_id_by_title real) &&
	printf "user: hello there\nassistant: Hello from LiteLLM\n" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	grep "\"completion_tokens\":[1-9]" "$HERMES_HOME/sessions/$id.json" &&
	test "$(field "$id" model)" = mock-gpt
'

test_expect_success LITELLM,PROXY 'hermes models lists what the proxy serves' '
	use_proxy &&
	hermes models >out &&
	grep -x "mock-gpt" out &&
	grep -x "mock-500" out
'

test_expect_success LITELLM,PROXY 'a 429 from the proxy: exit 3, one line with the status and the hint, nothing on stdout, no reply saved' '
	use_proxy &&
	test_expect_code 3 hermes chat -m mock-429 --title limited -q "keep me" >out 2>err &&
	test_must_be_empty out &&
	grep -v "^session_id: " err >said &&
	test_line_count = 1 said &&
	grep "^hermes: $BASE/chat/completions answered HTTP 429 (too many requests, or out of quota: wait, or check your plan): .*\[model mock-429, from -m\]$" said &&
	echo "user: keep me" >expect &&
	messages "$(session_id_by_title limited)" >actual && test_cmp expect actual
'

test_expect_success LITELLM,PROXY 'a 500 from the proxy: exit 3, said once, never saved as a reply' '
	use_proxy &&
	test_expect_code 3 hermes chat -m mock-500 --title failed -q "keep me too" >out 2>err &&
	test_must_be_empty out &&
	test "$(grep -c "HTTP 500" err)" = 1 &&
	grep "^hermes: .* answered HTTP 500 (the server failed: try again later): " err &&
	test "$(field "$(session_id_by_title failed)" message_count)" = 1
'

test_expect_success LITELLM,PROXY 'a wrong key: the proxy'"'"'s refusal is said in its own words, once' '
	use_proxy &&
	test_expect_code 3 env LITELLM_MASTER_KEY=sk-wrong hermes chat -m mock-gpt -q hi >out 2>err &&
	test_must_be_empty out &&
	grep -v "^session_id: " err >said &&
	test_line_count = 1 said &&
	grep "^hermes: $BASE/chat/completions answered HTTP 4[0-9][0-9][^:]*: [^[]*[a-z][^[]* \[model mock-gpt, from -m\]$" said
'

# Last: the proxy dies in the middle of a long stream.
test_expect_success LITELLM,PROXY 'the proxy killed mid-stream: what arrived is kept, marked incomplete; exit 3, one line' '
	use_proxy &&
	{ hermes chat -m mock-long --title cut -q "a long one" >out 2>err; echo $? >rc; } &
	poll_until -t 60 grep -q word30 out 2>/dev/null &&
	# The proxy itself, the child of timeout(1).
	pkill -KILL -P "$proxy" &&
	poll_until -t 60 test -s rc &&
	echo 3 >expect && test_cmp expect rc &&
	grep "^hermes: the connection to $BASE/chat/completions was cut before the reply ended" err &&
	test "$(grep -c "^hermes: " err)" = 1 &&
	id=$(session_id_by_title cut) &&
	grep "\"role\":\"assistant\",\"content\":\"word1 word2 .*\",\"ts\":[0-9.]*,\"incomplete\":true}" \
		"$HERMES_HOME/sessions/$id.json" &&
	hermes sessions show cut | grep "^\[assistant, incomplete\] "
'

test_done
