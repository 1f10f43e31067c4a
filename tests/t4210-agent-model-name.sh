#!/bin/sh
test_description='openai-compatible fills in OPENAI_MODEL as a JSON string, with sed for the body only, and escapes a name that needs it'
. "$(dirname "$0")/lib.sh"

AGENTS=$ROOT/contrib/agents
SERVER_DIR=$TRASH_ROOT/server
mkdir -p "$SERVER_DIR"
server_pid=
unset OPENAI_BASE_URL OPENAI_API_KEY OPENAI_MODEL HERMES_MODEL
test_lazy_prereq SERVER 'test -n "$server_pid"'
if command -v python3 >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	python3 "$TEST_DIR/t6400-fake-openai.py" "$SERVER_DIR" 60 &
	server_pid=$!
	poll_until -t 10 test -s "$SERVER_DIR/port"
	OPENAI_BASE_URL=http://127.0.0.1:$(cat "$SERVER_DIR/port" 2>/dev/null)/v1
	export OPENAI_BASE_URL
fi
trap 'test -n "$server_pid" && kill "$server_pid" 2>/dev/null; rm -rf "$TRASH_ROOT"' EXIT

# The body the server received last.
last_body() {
	sed -n "/^{/p" "$(ls -t "$SERVER_DIR"/request.* | head -n 1)"
}

# sed that notes each run in ./seds, then does its work.
counting_sed() {
	mkdir -p counting &&
	printf "#!/bin/sh\necho run >>\"%s/seds\"\nexec %s \"\$@\"\n" "$PWD" "$(command -v sed)" >counting/sed &&
	chmod +x counting/sed
}

test_expect_success SERVER 'a plain model name: one sed, for the body' '
	counting_sed &&
	OPENAI_MODEL=gpt-4o-mini PATH="$PWD/counting:$PATH" \
		hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	test_line_count = 1 seds &&
	last_body | grep "^{\"model\":\"gpt-4o-mini\",\"stream\":true,"
'

test_expect_success SERVER 'a name with quotes, backslashes, & and | is escaped for JSON and for sed' '
	OPENAI_MODEL="a\"b\\\\c&d|e" hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	last_body | grep -F "{\"model\":\"a\\\"b\\\\\\\\c&d|e\",\"stream\":true,"
'

test_expect_success SERVER 'a UTF-8 name passes as it is' '
	OPENAI_MODEL="modèle-é" hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	last_body | grep "^{\"model\":\"modèle-é\",\"stream\":true,"
'

test_done
