#!/bin/sh
test_description='hermes config: set then chat, shipped agents by name, the key never shown, config check'
. "$(dirname "$0")/lib.sh"

# SERVER: the fake OpenAI-compatible server runs (python3; the agent needs curl).
test_lazy_prereq SERVER 'test -n "$BASE_URL"'

start_fake_server 120


# hermes installed under a prefix of its own (not /usr/local), with its
# agents: the hermes of every test below.
PREFIX=$TRASH_ROOT/some/prefix
make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" install PREFIX="$PREFIX" >/dev/null
emulated_install "$PREFIX/bin"
PATH=$PREFIX/bin:$PATH
export PATH

test_expect_success 'the hermes under test is the installed one' '
	test "$(command -v hermes)" = "$PREFIX/bin/hermes"
'

test_expect_success SERVER 'config set agent and base_url, then chat: the shipped agent answers' '
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model test-model &&
	hermes chat -q hi >out 2>err &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	grep "^{\"model\":\"test-model\",\"stream\":true," "$(last_request)" &&
	cat >expect <<-EOF &&
	agent = "openai-compatible"
	base_url = "$BASE_URL"
	model = "test-model"
	EOF
	test_cmp expect "$HERMES_HOME/config.toml" &&
	test "$(file_mode "$HERMES_HOME/config.toml")" = 600
'

test_expect_success 'config set keeps comments and order; a new key goes at the end' '
	mkdir -p "$HERMES_HOME" &&
	cat >"$HERMES_HOME/config.toml" <<-\EOF &&
	# my hermes
	model = "old"   # the usual one

	agent = "llm"
	EOF
	hermes config set model "new \"quoted\"" &&
	hermes config set system "Be brief." &&
	cat >expect <<-\EOF &&
	# my hermes
	model = "new \"quoted\""  # the usual one

	agent = "llm"
	system = "Be brief."
	EOF
	test_cmp expect "$HERMES_HOME/config.toml" &&
	echo "new \"quoted\"" >expect &&
	hermes config get model >actual &&
	test_cmp expect actual &&
	hermes config unset system &&
	test_expect_code 1 hermes config unset system &&
	test_expect_code 1 hermes config get system &&
	! grep system "$HERMES_HOME/config.toml"
'

test_expect_success 'config set writes through a config.toml that is a link' '
	mkdir -p "$HERMES_HOME" dotfiles &&
	echo "# kept" >dotfiles/hermes.toml &&
	chmod 600 dotfiles/hermes.toml &&
	ln -s "$PWD/dotfiles/hermes.toml" "$HERMES_HOME/config.toml" &&
	hermes config set model m &&
	test -h "$HERMES_HOME/config.toml" &&
	printf "# kept\nmodel = \"m\"\n" >expect &&
	test_cmp expect dotfiles/hermes.toml
'

test_expect_success 'config set refuses an unknown key, a bad value and a key as a value, without repeating it' '
	test_expect_code 2 hermes config set modle x 2>err &&
	grep "unknown config key .modle.; did you mean .model.?" err &&
	test_expect_code 2 hermes config set api_key sk-secret-1 2>err &&
	grep "keeps no key in config.toml" err &&
	test_expect_code 2 hermes config set api_key_env "sk-secret-1" 2>err &&
	test_expect_code 2 hermes config set base_url "sk-secret-1" 2>err &&
	test_expect_code 2 hermes config set agent_input yaml 2>err &&
	! grep -r sk-secret . &&
	! test -e "$HERMES_HOME/config.toml"
'

test_expect_success 'config list says where each value came from; config path' '
	hermes config set model from-file &&
	HERMES_AGENT=cat OPENAI_BASE_URL=http://example.invalid/v1 hermes config list >out &&
	cat >expect <<-\EOF &&
	agent = "cat"                           # environment: HERMES_AGENT
	agent_input = "json"                    # default
	model = "from-file"                     # config.toml
	base_url = "http://example.invalid/v1"  # environment: OPENAI_BASE_URL
	render = "markdown"                     # default
	session_id = "always"                   # default
	save = "true"                           # default
	usage = "false"                         # default
	context = "300000"                      # default
	timeout = "300"                         # default
	compact = "off"                         # default
	EOF
	test_cmp expect out &&
	echo "$HERMES_HOME/config.toml" >expect &&
	hermes config path >out &&
	test_cmp expect out &&
	echo "$HERMES_HOME/profiles/work/config.toml" >expect &&
	hermes -p work config path >out &&
	test_cmp expect out
'

test_expect_success 'a profile keeps its own config.toml' '
	hermes config set model home-model &&
	hermes -p work config set model work-model &&
	test "$(hermes config get model)" = home-model &&
	test "$(hermes -p work config get model)" = work-model
'

fake_program() {
	mkdir -p bin &&
	cat >"bin/$1" <<-\EOF &&
	#!/bin/sh
	echo "args: $*"
	sed "s/^/stdin: /"
	EOF
	chmod +x "bin/$1"
}

test_expect_success 'chat --agent ollama runs the shipped ollama agent, found by name, given the transcript' '
	fake_program ollama &&
	PATH=$PWD/bin:$PATH hermes chat --agent ollama -q "hi there" -Q >out &&
	cat >expect <<-\EOF &&
	args: run llama3.2
	stdin: user: hi there
	EOF
	test_cmp expect out
'

test_expect_success 'an agent name that is nothing says which agents exist: exit 3, no session' '
	test_expect_code 3 hermes chat --agent openai-compatibel -q hi 2>err &&
	grep "^hermes: agent .openai-compatibel. not found: .*openai-compatible" err &&
	grep "llm, ollama, openai-compatible" err &&
	! ls "$HERMES_HOME/sessions/"*.json 2>/dev/null
'

test_expect_success 'a program on PATH is run by name as before' '
	mkdir -p bin &&
	printf "#!/bin/sh\necho from-path\n" >bin/my-agent &&
	chmod +x bin/my-agent &&
	PATH=$PWD/bin:$PATH hermes chat --agent my-agent -q hi -Q >out &&
	echo from-path >expect &&
	test_cmp expect out
'

test_expect_success 'the installed hermes finds its agents by name under DESTDIR, through a link' '
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" install DESTDIR="$TRASH.pkg" PREFIX=/opt/h >/dev/null &&
	emulated_install "$TRASH.pkg/opt/h/bin" &&
	mkdir -p bin &&
	ln -s "$TRASH.pkg/opt/h/bin/hermes" bin/hermes &&
	fake_program llm &&
	PATH=$PWD/bin:$PATH bin/hermes chat --agent llm -q hi -Q >out 2>err &&
	grep "^args: prompt" out
'

# The key: in a file only the command reads; the turn takes 1.5 s (model
# "slow"), long enough to look at every command line meanwhile.
test_expect_success SERVER 'a key from api_key_command reaches the server, and no command line or file of hermes holds it' '
	key=sk-test-$$-secret &&
	echo "$key" >"$TRASH/key" &&
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model slow &&
	hermes config set api_key_command "cat \"$TRASH/key\"" &&
	{ hermes chat -q hi >out 2>err & } &&
	chat=$! &&
	: >leaked && : >curls &&
	i=0 &&
	while test $i -lt 40 && kill -0 $chat 2>/dev/null; do
		for f in /proc/[0-9]*/cmdline; do
			{ tr "\0" " " <"$f"; echo; } 2>/dev/null
		done >cmdlines
		grep -e "--data-binary @- $BASE_URL" cmdlines >>curls
		grep -e "$key" cmdlines >>leaked
		i=$((i + 1))
	done &&
	rm cmdlines &&
	wait $chat &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	test -s curls &&
	test_must_be_empty leaked &&
	grep "^Authorization: Bearer $key" "$(last_request)" &&
	! grep -r -- "$key" "$HERMES_HOME" &&
	! grep -- "$key" err
'

test_expect_success SERVER 'a key from api_key_env; a variable that is not set says so, without a key' '
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model m &&
	hermes config set api_key_env MY_KEY &&
	MY_KEY=sk-env-key hermes chat -q hi -Q >out &&
	grep "^Authorization: Bearer sk-env-key" "$(last_request)" &&
	test_expect_code 3 hermes chat -q hi -Q 2>err &&
	grep "api_key_env names MY_KEY, which is not set" err
'

test_expect_success 'api_key_command that fails: exit 3, its output never shown' '
	hermes config set agent cat &&
	echo sk-half-key >key &&
	hermes config set api_key_command "cat \"$TRASH/key\"; exit 5" &&
	test_expect_code 3 hermes chat -q hi -Q 2>err &&
	grep "api_key_command .* exited with status 5" err &&
	! grep "sk-half-key" err
'

test_expect_success 'the strict-modes check of config.toml covers api_key_command: it is never run from a writable file' '
	hermes config set api_key_command "touch \"$TRASH/ran\"; echo k" &&
	hermes config set agent cat &&
	chmod 666 "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -q hi 2>err &&
	grep "config.toml .* is writable by anyone" err &&
	test_expect_code 4 hermes config check 2>err &&
	! test -e "$TRASH/ran"
'

test_expect_success SERVER 'openai-compatible: a non-streaming JSON answer still works' '
	OPENAI_BASE_URL=$BASE_URL HERMES_MODEL=nostream hermes chat --agent openai-compatible -q hi >out &&
	echo "Hello from the fake server (not streamed)" >expect &&
	test_cmp expect out
'

test_expect_success SERVER 'openai-compatible: 429 and 500 name the server and show its message' '
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL HERMES_MODEL=busy \
		hermes chat --agent openai-compatible -q hi 2>err &&
	grep "^hermes: $BASE_URL/chat/completions answered HTTP 429 (too many requests, or out of quota" err &&
	grep "Rate limit reached for requests" err &&
	test_expect_code 3 env OPENAI_BASE_URL=$BASE_URL HERMES_MODEL=broken \
		hermes chat --agent openai-compatible -q hi 2>err &&
	grep "^hermes: $BASE_URL/chat/completions answered HTTP 500 (the server failed" err &&
	grep "The server had an error while processing your request" err
'

test_expect_success 'openai-compatible: connection refused names the server' '
	hermes config set agent openai-compatible &&
	hermes config set base_url http://127.0.0.1:9/v1 &&
	test_expect_code 3 hermes chat -q hi 2>err &&
	grep "^hermes: cannot connect to http://127.0.0.1:9/v1/chat/completions: is the server running?" err
'

# A curl that writes its command line to curl-argv, then is curl.
argv_curl() {
	mkdir -p "$TRASH/spy" &&
	printf '#!/bin/sh\necho "$*" >>%s/curl-argv\nexec %s "$@"\n' "$TRASH" "$(command -v curl || echo false)" >"$TRASH/spy/curl" &&
	chmod +x "$TRASH/spy/curl"
}

test_expect_success 'a base_url with a user or password is refused where it is set, and never shown' '
	test_expect_code 2 hermes config set base_url http://user:pw-secret@127.0.0.1:9/v1 2>err &&
	grep "^hermes: base_url holds a user name or password (user:password@host)" err &&
	grep "api_key_env" err && grep "api_key_command" err &&
	! grep "pw-secret" err &&
	! test -e "$HERMES_HOME/config.toml" &&
	hermes config set base_url "http://127.0.0.1:9/v1?mail=a@b" &&
	hermes config get base_url >out &&
	echo "http://127.0.0.1:9/v1?mail=a@b" >expect &&
	test_cmp expect out
'

test_expect_success 'a config.toml that already has one: every command that would use it refuses it; unset mends it' '
	mkdir -m 700 -p "$HERMES_HOME" &&
	cat >"$HERMES_HOME/config.toml" <<-\EOF &&
	agent = "openai-compatible"
	base_url = "http://user:pw-secret@127.0.0.1:9/v1"
	EOF
	chmod 600 "$HERMES_HOME/config.toml" &&
	argv_curl &&
	for command in "config list" "config get base_url" "config check" "chat -q hi" "config set model m"; do
		test_expect_code 4 env PATH="$TRASH/spy:$PATH" hermes $command >out 2>err &&
		grep "config.toml: line 2: base_url holds a user name or password" err &&
		! grep "pw-secret" out err || return 1
	done &&
	! test -e curl-argv &&
	hermes config unset base_url &&
	echo "agent = \"openai-compatible\"" >expect &&
	test_cmp expect "$HERMES_HOME/config.toml"
'

test_expect_success 'OPENAI_BASE_URL with a password: refused by hermes and by the shipped agent, never on curl'"'"'s command line' '
	hermes config set agent openai-compatible &&
	argv_curl &&
	OPENAI_BASE_URL=http://user:pw-secret@127.0.0.1:9/v1 && export OPENAI_BASE_URL &&
	PATH=$TRASH/spy:$PATH &&
	test_expect_code 2 hermes chat -q hi 2>err &&
	grep "^hermes: \$OPENAI_BASE_URL: base_url holds a user name or password" err &&
	test_expect_code 2 hermes config list >out 2>err &&
	test_expect_code 2 hermes config check >out 2>err &&
	agent=$(dirname "$(command -v hermes)")/../share/hermes/agents/openai-compatible &&
	test_expect_code 2 "$agent" </dev/null >out 2>err &&
	grep "^openai-compatible: OPENAI_BASE_URL holds a user name or password" err &&
	! grep -r "pw-secret" err out "$HERMES_HOME" &&
	! test -e curl-argv
'

test_expect_success 'OPENAI_BASE_URL with a password is another program'"'"'s when a shipped agent that asks no such server is chosen: neither shown nor refused' '
	OPENAI_BASE_URL=http://user:pw-secret@127.0.0.1:9/v1 && export OPENAI_BASE_URL &&
	for agent in llm ollama
	do
		hermes config set agent $agent &&
		hermes config list >out 2>err &&
		! grep "^base_url" out &&
		test_must_be_empty err &&
		test_expect_code 1 hermes config get base_url >out 2>err || return 1
	done &&
	hermes config unset agent &&
	test_expect_code 2 hermes chat --agent openai-compatible -q hi 2>err &&
	grep "^hermes: \$OPENAI_BASE_URL: base_url holds a user name or password" err &&
	! grep -r "pw-secret" err out "$HERMES_HOME"
'

test_expect_success SERVER 'config check: ok against a working server' '
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model test-model &&
	hermes config check >out 2>err &&
	grep "^agent:  openai-compatible = $PREFIX/share/hermes/agents/openai-compatible (config.toml)$" out &&
	grep "^server: $BASE_URL (config.toml)$" out &&
	grep "^model:  test-model (config.toml)$" out &&
	grep "^ok: the agent answered in [0-9][0-9]*\.[0-9] s: Hello from the fake server$" out &&
	! ls "$HERMES_HOME/sessions/"*.json 2>/dev/null
'

test_expect_success 'config check: a reply in a code fence is shown as its words on one line, cut at a word' '
	cat >fenced <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	printf "%s\n" "\`\`\`text" "Hello! I am here, ready to answer whatever you ask of me today." "\`\`\`"
	EOF
	chmod +x fenced &&
	hermes config set agent "$TRASH/fenced" &&
	hermes config check >out 2>err &&
	grep "^ok: the agent answered in [0-9][0-9]*\.[0-9] s: Hello! I am here, ready to answer whatever you ask of me…\$" out &&
	! grep "\`" out
'

test_expect_success 'config check: no agent, an agent not found' '
	test_expect_code 3 hermes config check 2>err &&
	grep "^hermes: config check: no agent configured: run .hermes config set agent openai-compatible." err &&
	hermes config set agent no-such-agent &&
	test_expect_code 3 hermes config check 2>err &&
	grep "^hermes: config check: agent .no-such-agent. not found" err
'

test_expect_success 'config check: a server that is down' '
	hermes config set agent openai-compatible &&
	hermes config set base_url http://127.0.0.1:9/v1 &&
	test_expect_code 3 hermes config check >out 2>err &&
	grep "^hermes: config check: cannot connect to http://127.0.0.1:9/v1: is the server running?" err
'

test_expect_success SERVER 'config check: HTTP 401 is the key' '
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model m &&
	hermes config set api_key_command "echo bad" &&
	test_expect_code 3 hermes config check >out 2>err &&
	grep "^key:    from api_key_command$" out &&
	grep "^hermes: config check: HTTP 401 from $BASE_URL: the key was refused; check api_key_env or api_key_command" err &&
	grep "Incorrect API key provided" err
'

test_expect_success SERVER 'config check: HTTP 404 is the URL or the model' '
	hermes config set agent openai-compatible &&
	hermes config set base_url "$BASE_URL" &&
	hermes config set model missing &&
	test_expect_code 3 hermes config check >out 2>err &&
	grep "^hermes: config check: HTTP 404 from $BASE_URL: the URL or the model is wrong; check base_url ($BASE_URL) and model (missing)" err &&
	hermes config set model m &&
	hermes config set base_url "${BASE_URL%/v1}/wrong/v1" &&
	test_expect_code 3 hermes config check >out 2>err &&
	grep "^hermes: config check: HTTP 404 from .*/wrong/v1: the URL or the model is wrong" err
'

test_expect_success 'config check: an agent that does not answer in time' '
	hermes config set agent "sleep 10" &&
	test_expect_code 3 hermes config check --timeout 1 >out 2>err &&
	grep "^hermes: config check: no answer within 1 s" err
'

test_expect_success SERVER 'hermes as built, not installed, finds the agents of its source tree by name' '
	case $HERMES_BIN in
	*/target/*) ;;
	*) test_skip "the binary under test is not one cargo built in a source tree" ;;
	esac &&
	HERMES_HOME=$TRASH/built-home &&
	export HERMES_HOME &&
	"$HERMES_BIN" config set base_url "$BASE_URL" &&
	"$HERMES_BIN" config check >out &&
	grep "^agent:  openai-compatible = .*/contrib/agents/openai-compatible (default, as base_url is set)$" out &&
	"$HERMES_BIN" chat -q "hello" -Q >out &&
	grep "^Hello from the fake server$" out
'

test_done
