#!/bin/sh
test_description='hermes models: the server'"'"'s models through the agent ($HERMES_REQUEST=models), kept in the profile for /model Tab and -m completion'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL
AGENTS=$ROOT/contrib/agents
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
test_lazy_prereq BASH 'command -v bash'
start_fake_server 90

# served: how many requests the fake server has had.
served() {
	ls "$SERVER_DIR" | grep -c "^request\."
}

# use_server: config.toml points the shipped agent at the fake server.
use_server() {
	hermes config set base_url "$BASE_URL" >/dev/null
}

test_expect_success SERVER 'the shipped agent GETs /models; hermes prints them sorted, one a line, and keeps them' '
	use_server &&
	hermes models >out 2>err &&
	test_must_be_empty err &&
	cat >expect <<-\EOF &&
	gpt-test-large
	gpt-test-mini
	llama3.2
	EOF
	test_cmp expect out &&
	req=$(last_request) &&
	grep "^GET /v1/models$" "$req" &&
	! grep -i "^authorization:" "$req" &&
	sed -n 1p "$HERMES_HOME/models.cache" >actual &&
	echo "hermes-models 1" >cache-magic &&
	test_cmp cache-magic actual &&
	hermes models --json >out &&
	echo "[\"gpt-test-large\",\"gpt-test-mini\",\"llama3.2\"]" >expect &&
	test_cmp expect out
'

test_expect_success SERVER '--cached prints the kept list without asking the agent; another server has none' '
	use_server &&
	hermes models >/dev/null &&
	before=$(served) &&
	hermes models --cached >out &&
	test_line_count = 3 out &&
	test "$(served)" = "$before" &&
	hermes config set base_url http://127.0.0.1:1/v1 &&
	test_expect_code 1 hermes models --cached >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'

test_expect_success SERVER 'the key goes as the agent sends it; a refused key is exit 3 with the server'"'"'s words' '
	use_server &&
	hermes config set api_key_env MY_KEY >/dev/null &&
	MY_KEY=sk-good hermes models >out &&
	grep "^Authorization: Bearer sk-good" "$(last_request)" &&
	test_expect_code 3 env MY_KEY=bad hermes models >out 2>err &&
	test_must_be_empty out &&
	grep "^openai-compatible: .*/v1/models answered HTTP 401" err &&
	grep "^hermes: agent .* could not list the models: the server said: Incorrect API key provided$" err
'

test_expect_success 'no agent, or one that lists nothing: exit 3, saying what to do' '
	test_expect_code 3 hermes models 2>err &&
	grep "^hermes: no agent configured to ask: run .hermes config set base_url URL" err &&
	hermes config set agent "cat >/dev/null" >/dev/null &&
	test_expect_code 3 hermes models 2>err &&
	grep "could not list the models: it printed none; an agent lists them when \$HERMES_REQUEST is .models." err &&
	! test -e "$HERMES_HOME/models.cache"
'

test_expect_success 'an agent of its own lists them one a line; names no typed model could be are left out' '
	cat >lister <<-\EOF &&
	#!/bin/sh
	test "$HERMES_REQUEST" = models || exit 9
	printf "zeta\nalpha  (the default)\n\n"
	printf "bad\033]0;x\007\n"
	EOF
	chmod +x lister &&
	hermes config set agent "$TRASH/lister" >/dev/null &&
	hermes models >out &&
	printf "alpha\nzeta\n" >expect &&
	test_cmp expect out
'

# Stand-ins for the ollama and llm programs, printing their lists.
test_expect_success 'ollama and llm list what their tools have' '
	mkdir bin &&
	cat >bin/ollama <<-\EOF &&
	#!/bin/sh
	test "$1" = list || exit 9
	printf "NAME              ID    SIZE    MODIFIED\nllama3.2:latest   a80   2.0 GB  2 days ago\nqwen2.5:7b        845   4.7 GB  5 weeks ago\n"
	EOF
	cat >bin/llm <<-\EOF &&
	#!/bin/sh
	test "$1 $2" = "models list" || exit 9
	printf "OpenAI Chat: gpt-4o (aliases: 4o)\nOpenAI Chat: gpt-4o-mini (aliases: 4o-mini)\nDefault: gpt-4o-mini\n"
	EOF
	chmod +x bin/ollama bin/llm &&
	hermes config set agent ollama >/dev/null &&
	PATH=$PWD/bin:$PATH hermes models >out &&
	printf "llama3.2:latest\nqwen2.5:7b\n" >expect &&
	test_cmp expect out &&
	hermes config set agent llm >/dev/null &&
	PATH=$PWD/bin:$PATH hermes models >out &&
	printf "gpt-4o\ngpt-4o-mini\n" >expect &&
	test_cmp expect out
'

test_expect_success SERVER,BASH 'bash completes -m from the kept list' '
	use_server &&
	hermes models >/dev/null &&
	bash -c "
		eval \"\$(hermes completion bash)\"
		COMP_LINE=\"hermes chat -m gpt-test-\" COMP_POINT=24
		COMP_WORDS=(hermes chat -m gpt-test-) COMP_CWORD=3
		_hermes hermes gpt-test- -m
		printf \"%s\n\" \"\${COMPREPLY[@]}\"
	" >actual &&
	printf "gpt-test-large\ngpt-test-mini\n" >expect &&
	test_cmp expect actual
'

test_expect_success SERVER,TMUX '/model Tab: the server'"'"'s models, asked once and kept' '
	use_server &&
	start_pane &&
	start_hermes "chat" &&
	wait_until ready "new session>" &&
	before=$(served) &&
	typed "/model gpt" && keys Tab &&
	wait_until ready "new session> /model gpt-test-" &&
	keys Tab &&
	wait_until on_screen -x "gpt-test-large   gpt-test-mini" &&
	typed "m" && keys Tab &&
	wait_until ready "new session> /model gpt-test-mini" &&
	keys Enter &&
	wait_until on_screen "^model: gpt-test-mini from the next message on, in this session$" &&
	test "$(served)" = $((before + 1)) &&
	grep "^GET /v1/models$" "$(last_request)" &&
	keys C-d && hermes_exited 0 &&
	hermes models --cached >out &&
	test_line_count = 3 out
'

test_expect_success SERVER '-m a model the kept list lacks: exit 2 with the nearest, nothing saved; with no list, the server judges' '
	use_server &&
	test_expect_code 3 hermes chat -m missing -q "first" >out 2>err &&
	grep "answered HTTP 404" err &&
	test "$(session_count)" = 1 &&
	hermes models >/dev/null &&
	test_expect_code 2 hermes chat -m gpt-test-mnii -q "second" >out 2>err &&
	cat >expect <<-\EOF &&
	hermes: -m gpt-test-mnii: the server offers no such model (did you mean gpt-test-mini?); '"'"'hermes models'"'"' lists them, asking the server again
	Try '"'"'hermes chat --help'"'"' for more information.
	EOF
	test_cmp expect err &&
	test_must_be_empty out &&
	test "$(session_count)" = 1 &&
	hermes chat -m gpt-test-mini -q "third" -Q >out &&
	test "$(session_count)" = 2 &&
	hermes chat -m llama3.2:latest -q "fourth" -Q >out
'

test_done
