#!/bin/sh
test_description='chat --no-save (and save = "false" in config.toml or a role): the turn is made and printed, nothing is written to the store'
. "$(dirname "$0")/lib.sh"

use_fake_agent
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

# store_state: every file of the store, with its checksum (the header
# index and catalog included), for a before and after.
store_state() {
	(cd "$HERMES_HOME" && find . -type f ! -name "*.lock" ! -name .lock | sort | xargs -r cksum)
}

test_expect_success 'a new one-shot with --no-save: the reply printed, no session, no breadcrumb' '
	hermes chat --no-save -q ping --agent "fake-agent text pong" >out 2>err &&
	echo pong >expect && test_cmp expect out &&
	test_must_be_empty err &&
	test "$(session_count)" = 0 &&
	if test -d "$HERMES_HOME"; then store_state >files; else : >files; fi &&
	test_must_be_empty files
'

test_expect_success SERVER 'with -c NAME the session is the context and stays byte for byte as it was' '
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m gpt-test-mini --title notes -q start -Q >/dev/null &&
	hermes sessions list >/dev/null &&
	store_state >before &&
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -c notes --no-save more words >out 2>err &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	test_must_be_empty err &&
	grep -F "\"content\":\"start\"" "$(last_request)" &&
	grep -F "\"content\":\"Hello from the fake server\"" "$(last_request)" &&
	grep -F "\"content\":\"more words\"" "$(last_request)" &&
	store_state >after &&
	test_cmp before after
'

test_expect_success SERVER 'a failed one-shot with --no-save leaves nothing, exit 3' '
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m broken --no-save -q hi >out 2>err &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0 &&
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m broken --no-save -q hi 2>err &&
	test "$(session_count)" = 0
'

test_expect_success '--json with --no-save: the reply in the object, no session named' '
	hermes chat --no-save --json -q ping --agent "fake-agent text pong" >out &&
	grep -F "\"session_id\":null,\"title\":null,\"created\":false" out &&
	grep -F "\"reply\":\"pong\"," out &&
	test "$(session_count)" = 0
'

test_expect_success 'save = "false" in config.toml keeps nothing; --no-save is not needed' '
	hermes config set save false &&
	hermes chat -q ping --agent "fake-agent text pong" >out &&
	echo pong >expect && test_cmp expect out &&
	test "$(session_count)" = 0 &&
	hermes config set save true &&
	hermes chat -q ping --agent "fake-agent text pong" -Q >out &&
	test "$(session_count)" = 1
'

test_expect_success 'a role with save = "false" keeps nothing' '
	mkdir -p "$HERMES_HOME/roles" &&
	printf "+++\nsave = \"false\"\n+++\nBe brief.\n" >"$HERMES_HOME/roles/scratch.md" &&
	hermes chat --role scratch -q ping --agent "fake-agent text pong" >out &&
	echo pong >expect && test_cmp expect out &&
	test "$(session_count)" = 0
'

test_expect_success 'bad input: one usage line, exit 2, nothing sent nor saved' '
	test_expect_code 2 hermes chat --no-save --no-agent -q x >out 2>err &&
	test_must_be_empty out &&
	head -n 1 err >first &&
	echo "hermes: --no-save and --no-agent: nothing would be sent, and nothing kept" >expect &&
	test_cmp expect first &&
	test_expect_code 2 hermes config set save maybe 2>err &&
	grep "save" err &&
	test "$(session_count)" = 0
'

test_done
