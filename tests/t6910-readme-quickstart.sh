#!/bin/sh
test_description='the quick start of README.md, run as written in a fresh home'
. "$(dirname "$0")/lib.sh"

README=$ROOT/README.md

test_lazy_prereq SERVER 'test -n "$BASE_URL"'

start_fake_server 60

quick_start() {
	sed -n '/^make install PREFIX="\$HOME\/.local"$/,/^```$/p' "$README" | sed '$d'
}

# The block as written, but for the server: the fake one stands in for
# OpenAI's, its model "keyed" a model that needs the key (a request
# without it is refused with 401). HOME is empty, HERMES_HOME unset (so
# the store is ~/.hermes), PREFIX is the README's ~/.local, not
# /usr/local; the key is in the environment, as the README says to put it.
test_expect_success SERVER 'the quick start installs, sets up a server that needs a key, and the first chat is answered' '
	quick_start >block &&
	test_line_count = 5 block &&
	grep -q "^hermes config set base_url https://api.openai.com/v1\$" block &&
	grep -q "^hermes config set api_key_env OPENAI_API_KEY\$" block &&
	grep -q "^hermes config set model gpt-4o-mini\$" block &&
	sed -e "s|https://api.openai.com/v1|$BASE_URL|" -e "s|gpt-4o-mini|keyed|" block >script &&
	sed -n 1p script >install &&
	sed 1d script >use &&
	home=$TRASH.home &&
	mkdir "$home" &&
	(
		# CARGO=true: the binary under test is built; make installs it
		# (BIN in MAKEFLAGS: make takes it as given on its command line,
		# where the environment would not override the Makefile). Under
		# qemu that is a script running the emulated binary where it was
		# built, so the installed one is made to run an installed copy,
		# which finds the installed agents beside it.
		cd "$ROOT" &&
		unset HERMES_HOME MAKEFLAGS MAKELEVEL &&
		export HOME="$home" PATH="$home/.local/bin:$PATH" OPENAI_API_KEY=sk-test-key &&
		CARGO=true MAKEFLAGS="BIN=$HERMES_BIN" sh -ex "$TRASH/install" &&
		emulated_install "$home/.local/bin" &&
		sh -ex "$TRASH/use"
	) >out 2>err &&
	cat out err &&
	test "$(sed -n "/^hermes chat/=" block)" = 5 &&
	test -x "$home/.local/bin/hermes" &&
	if test -z "${HERMES_TEST_EMULATED:-}"; then
		cmp "$HERMES_BIN" "$home/.local/bin/hermes"
	fi &&
	test -x "$home/.local/share/hermes/agents/openai-compatible" &&
	grep "^Hello from the fake server$" out &&
	grep "^session_id: " err &&
	cat >expect <<-EOF &&
	base_url = "$BASE_URL"
	api_key_env = "OPENAI_API_KEY"
	model = "keyed"
	EOF
	test_cmp expect "$home/.hermes/config.toml" &&
	HERMES_HOME=$home/.hermes hermes sessions show notes >show &&
	grep "^hello$" show &&
	grep "^Hello from the fake server$" show &&
	grep "\"model\":\"keyed\"" "$(last_request)" &&
	grep -i "^authorization: Bearer sk-test-key" "$(last_request)" &&
	# Without the key the same chat fails, saying which variable is not set.
	(
		unset HERMES_HOME OPENAI_API_KEY &&
		export HOME="$home" &&
		test_expect_code 3 "$home/.local/bin/hermes" chat -c notes -q again
	) 2>err.nokey &&
	grep "^hermes: api_key_env names OPENAI_API_KEY, which is not set in the environment" err.nokey
'

test_done
