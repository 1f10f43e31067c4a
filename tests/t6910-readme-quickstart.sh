#!/bin/sh
test_description='the quick start of README.md, run as written in a fresh home'
. "$(dirname "$0")/lib.sh"

README=$ROOT/README.md

test_lazy_prereq SERVER 'test -n "$BASE_URL"'

start_fake_server 60

quick_start() {
	sed -n '/^make install PREFIX="\$HOME\/.local"$/,/^```$/p' "$README" | sed '$d'
}

# The block as written, but for the server's address: the fake server's
# port stands in for ollama's. HOME is empty, HERMES_HOME unset (so the
# store is ~/.hermes), PREFIX is the README's ~/.local, not /usr/local.
test_expect_success SERVER 'the quick start installs, sets up, and the first chat is answered' '
	quick_start >block &&
	test_line_count = 4 block &&
	grep -q "http://127.0.0.1:11434/v1" block &&
	sed "s|http://127.0.0.1:11434/v1|$BASE_URL|" block >script &&
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
		export HOME="$home" PATH="$home/.local/bin:$PATH" &&
		CARGO=true MAKEFLAGS="BIN=$HERMES_BIN" sh -ex "$TRASH/install" &&
		emulated_install "$home/.local/bin" &&
		sh -ex "$TRASH/use"
	) >out 2>err &&
	cat out err &&
	test "$(sed -n "/^hermes chat/=" block)" = 4 &&
	test -x "$home/.local/bin/hermes" &&
	if test -z "${HERMES_TEST_EMULATED:-}"; then
		cmp "$HERMES_BIN" "$home/.local/bin/hermes"
	fi &&
	test -x "$home/.local/share/hermes/agents/openai-compatible" &&
	grep "^Hello from the fake server$" out &&
	grep "^session_id: " err &&
	cat >expect <<-EOF &&
	base_url = "$BASE_URL"
	model = "llama3.2"
	EOF
	test_cmp expect "$home/.hermes/config.toml" &&
	HERMES_HOME=$home/.hermes hermes sessions show notes >show &&
	grep "^hello$" show &&
	grep "^Hello from the fake server$" show &&
	grep "\"model\":\"llama3.2\"" "$SERVER_DIR/request.1"
'

test_done
