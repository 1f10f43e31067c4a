#!/bin/sh
test_description='what a request carries besides the conversation: -o model options, named servers, --schema, --var (issue 43)'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 150

# A turn through hermes's own request to the fake server.
ask() {
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible "$@"
}

# The body of the last request the fake server got.
last_body() {
	grep "^{" "$(last_request)" | tail -n 1
}

# A session titled opts, made with four options.
with_options() {
	ask -m gpt-test-mini -o temperature=0.2 -o max_tokens=64 -o seed=7 -o stop=END \
		--title opts -q "hi" >out 2>err
}

test_expect_success SERVER '-o options go in the request, checked, and are kept in the session' '
	with_options &&
	last_body >body &&
	grep "\"model\":\"gpt-test-mini\",\"temperature\":0.2,\"max_tokens\":64,\"seed\":7,\"stop\":\"END\",\"stream\":true" body &&
	id=$(session_id_by_title opts) &&
	head -n 1 "$HERMES_HOME/sessions/$id.json" >head &&
	grep "\"options\":{\"temperature\":0.2,\"max_tokens\":64,\"seed\":7,\"stop\":\"END\"}" head
'

test_expect_success SERVER '-c keeps the session options; a new -o changes only its key' '
	with_options &&
	ask -c opts -o temperature=1 -q "again" >out 2>err &&
	last_body >body &&
	grep "\"temperature\":1.0\\{0,1\\},\"max_tokens\":64,\"seed\":7,\"stop\":\"END\"" body &&
	hermes sessions show opts >shown &&
	grep "options: temperature=1.* max_tokens=64 seed=7 stop=\"END\"" shown
'

test_expect_success SERVER 'a bad option is refused before anything is sent or saved' '
	hermes chat --no-agent -Q -q "one" &&
	ls "$SERVER_DIR" >before &&
	test_expect_code 2 ask -m gpt-test-mini -o temperature=3 -q x 2>err &&
	grep "^hermes: -o: temperature must be a number from 0 to 2" err &&
	test_expect_code 2 ask -o temprature=1 -q x 2>err &&
	grep "did you mean .temperature.?" err &&
	test_expect_code 2 ask -o seed -q x 2>err &&
	grep "wants KEY=VALUE" err &&
	test_expect_code 2 ask -o seed=1 -o seed=2 -q x 2>err &&
	grep "seed is given twice" err &&
	test_expect_code 2 ask -o max_tokens=0 -q x 2>err &&
	ls "$SERVER_DIR" >after &&
	test_cmp before after &&
	test "$(session_count)" = 1
'

test_expect_success SERVER 'options in config.toml and in a role; config.toml refuses a bad one by its line' '
	hermes config set temperature 0.5 &&
	mkdir -p "$HERMES_HOME/roles" && chmod 700 "$HERMES_HOME/roles" &&
	printf "+++\ntop_p = \"0.9\"\n+++\nBe brief.\n" >"$HERMES_HOME/roles/brief.md" &&
	ask -m gpt-test-mini --role brief -q "role" >out 2>err &&
	last_body >body &&
	grep "\"temperature\":0.5,\"top_p\":0.9," body &&
	test_expect_code 2 hermes config set top_p 2 2>err &&
	grep "top_p must be a number from 0 to 1" err &&
	hermes config unset temperature
'

test_expect_success 'an agent that reads text gets the options in HERMES_OPTIONS' '
	cat >env-agent <<-\EOF &&
	#!/bin/sh
	cat >/dev/null
	printf "%s" "$HERMES_OPTIONS"
	EOF
	chmod +x env-agent &&
	hermes chat --agent ./env-agent -o stop="two words" -o seed=3 -Q -q x >out &&
	printf "seed=3\nstop=two words\n" >expect &&
	test_cmp expect out
'

test_expect_success SERVER '[servers.NAME]: -m NAME:MODEL goes to that server with its key; another colon is the model' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	cat >"$HERMES_HOME/config.toml" <<-EOF &&
	base_url = "http://127.0.0.1:9/v1"

	[servers.work]
	base_url = "$BASE_URL"
	api_key_env = "WORK_KEY"
	EOF
	WORK_KEY=sk-test-key hermes chat -m work:keyed --title routed -q "via work" >out 2>err &&
	echo "Hello from the fake server" >expect &&
	test_cmp expect out &&
	grep "^Authorization: Bearer sk-test-key" "$(last_request)" &&
	last_body >body &&
	grep "^{\"model\":\"keyed\"," body &&
	id=$(session_id_by_title routed) &&
	head -n 1 "$HERMES_HOME/sessions/$id.json" | grep "\"model\":\"work:keyed\"" &&
	WORK_KEY=sk-test-key hermes chat -c routed -q "kept" >out 2>err &&
	test_cmp expect out &&
	test_expect_code 3 hermes chat -m llama3.2:latest -q "default server" 2>err &&
	grep "cannot connect to http://127.0.0.1:9/v1/chat/completions" err
'

test_expect_success SERVER 'models lists each named server as NAME:MODEL; config check checks each; config list shows them' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	printf "[servers.work]\nbase_url = \"%s\"\napi_key_env = \"WORK_KEY\"\n" "$BASE_URL" >"$HERMES_HOME/config.toml" &&
	WORK_KEY=k hermes models >out 2>err &&
	test_must_be_empty err &&
	grep "^work:gpt-test-mini$" out &&
	grep "^work:llama3.2$" out &&
	hermes config set model work:gpt-test-mini &&
	WORK_KEY=k hermes config check >out 2>err &&
	grep "^server: $BASE_URL (\[servers.work\])" out &&
	grep "^ok: \[servers.work\] $BASE_URL lists 3 models" out &&
	hermes config list >out &&
	grep "^\[servers.work\]" out &&
	grep "^api_key_env = \"WORK_KEY\"" out
'

test_expect_success 'config.toml: a bad server table is named by its line; config set writes before the tables' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	printf "[servers.a b]\n" >"$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes config list 2>err &&
	grep "line 1: a server.s name is letters" err &&
	printf "[servers.w]\nmodel = \"m\"\n" >"$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes config list 2>err &&
	grep "line 2: \[servers.w\] holds only base_url, api_key_env, api_key_command" err &&
	printf "[servers.w]\napi_key_env = \"K\"\n" >"$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes config list 2>err &&
	grep "line 1: \[servers.w\] has no base_url" err &&
	printf "[servers.w]\nbase_url = \"http://w/v1\"\n" >"$HERMES_HOME/config.toml" &&
	hermes config set model w:m &&
	printf "model = \"w:m\"\n[servers.w]\nbase_url = \"http://w/v1\"\n" >expect &&
	test_cmp expect "$HERMES_HOME/config.toml" &&
	rm "$HERMES_HOME/config.toml"
'

# A schema: an object whose name is a string.
printf "{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{\"name\":{\"type\":\"string\"}}}" >"$TRASH_ROOT/schema.json"

test_expect_success SERVER '--schema: sent as response_format; a reply of that shape passes' '
	cp "$TRASH_ROOT/schema.json" . &&
	ask -m json --schema schema.json -Q -q "give json" >out &&
	grep "\"name\": \"hermes\"" out &&
	last_body >body &&
	grep "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"reply\",\"schema\":{\"type\":\"object\"" body
'

test_expect_success SERVER '--schema: a reply of another shape is kept, exit 3, the place named' '
	test_expect_code 3 ask -m json-bad --schema "$(cat "$TRASH_ROOT/schema.json")" --title misshapen -q "give json" >out 2>err &&
	grep "^hermes: the reply is not JSON of the --schema.s shape: \$.name is an integer, not string; it is kept" err &&
	id=$(session_id_by_title misshapen) &&
	messages "$id" >actual &&
	grep "^assistant: {.*name.*: 5, " actual
'

test_expect_success '--schema that is not JSON, or not there, is refused before anything' '
	test_expect_code 2 hermes chat --no-agent --schema "{\"type\":" -q x 2>err &&
	grep "^hermes: --schema: not JSON" err &&
	test_expect_code 2 hermes chat --no-agent --schema nowhere.json -q x 2>err &&
	grep "^hermes: --schema: cannot read nowhere.json" err &&
	test_expect_code 2 hermes chat --no-agent --schema "[1]" -q x 2>err
'

test_expect_success '--var fills a role; a missing or unknown variable is exit 2 naming it; roles shows them' '
	mkdir -p "$HERMES_HOME/roles" && chmod 700 "$HERMES_HOME" "$HERMES_HOME/roles" &&
	printf "Review this {{lang}} code for {{focus}}.\n" >"$HERMES_HOME/roles/review.md" &&
	hermes chat --no-agent --role review --var lang=rust --var focus=safety --title reviewed -Q -q "x" &&
	id=$(session_id_by_title reviewed) &&
	messages "$id" >actual &&
	grep "^system: Review this rust code for safety.$" actual &&
	test_expect_code 2 hermes chat --no-agent --role review --var lang=rust -q x 2>err &&
	grep "^hermes: the role .review. needs --var focus=VALUE" err &&
	test_expect_code 2 hermes chat --no-agent --role review --var lang=c --var focus=x --var tone=y -q x 2>err &&
	grep "has no variable .tone. (its variables: lang, focus)" err &&
	test_expect_code 2 hermes chat --no-agent --var lang=c -q x 2>err &&
	grep "give the role with --role NAME" err &&
	hermes roles review >out &&
	grep "^variables: lang, focus" out &&
	hermes roles | grep "^review	.*	lang,focus$"
'

test_done
