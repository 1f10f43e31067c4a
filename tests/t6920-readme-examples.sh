#!/bin/sh
test_description='the examples of README.md, each run as written (the quick start is t6910, the tmux status line t3820, the make targets t6200 and t6800)'
. "$(dirname "$0")/lib.sh"

README=$ROOT/README.md

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
test_lazy_prereq GIT 'command -v git'
test_lazy_prereq BASH 'command -v bash'
test_lazy_prereq ZSH 'command -v zsh'

start_fake_server 120

# block 'FIRST LINE': the lines of README's code block whose first line
# is exactly FIRST LINE (a regular expression), without its fences.
block() {
	awk -v first="$1" '
		/^```/ { if (inside) exit; fenced = 1; next }
		fenced && !inside { fenced = 0; if ($0 ~ first) inside = 1; else next }
		inside { print }
	' "$README"
}

# The README's examples talk to "the server": here the fake one, through
# the shipped agent, in a home of their own; they run in a git work tree
# with a change, for git diff.
setup() {
	hermes config set base_url "$BASE_URL" &&
	mkdir repo && (cd repo && git init -q && git config user.email t@t && git config user.name t &&
		echo one >f && git add f && git commit -qm one && echo two >f)
}

test_expect_success SERVER 'the opening example: a thread created once, continued here, and a name that is nothing' '
	block "^[$] hermes chat -c \"redis debug\" --create-if-missing" >ex &&
	test_line_count -gt 5 ex &&
	setup &&
	sed -n "s/^\\$ //p" ex | sed "s/  *#.*//" >commands &&
	test_line_count = 4 commands &&
	sed -n 1p commands >first && sh first >out 2>err &&
	grep "^session_id: " err &&
	sed -n 2p commands >continue && echo more | sh continue >out 2>err &&
	sed -n 3p commands >by-name && echo more | sh by-name >out 2>err &&
	test "$(hermes sessions list --all | cut -f4)" = 6 &&
	sed -n 4p commands >typo &&
	test_expect_code 1 sh typo >out 2>err &&
	sed -n "/^No session found matching/,\$p" ex >expect &&
	test_cmp expect err
'

test_expect_success SERVER,GIT 'the tour: one-shot posts, stdin, lists, a short ID, a model, a system prompt, rename, export and import' '
	block "^hermes chat -c \"api design\" -q \"and pagination[?]\"" >ex &&
	test_line_count -gt 10 ex &&
	setup &&
	hermes chat -c "api design" --create-if-missing -q first -Q &&
	short=$(hermes sessions list --all | cut -f5 | cut -c17-) &&
	# The short ID of the README stands for this session'"'"'s.
	sed "s/a1b2c3/$short/" ex >script &&
	(cd repo && sh -e ../script) >out 2>err &&
	test -s repo/api.md &&
	grep -F "$(cd repo && git diff | head -n 1)" repo/api.md &&
	hermes sessions list --all | cut -f2 >titles &&
	grep -x "api v2" titles &&
	grep "imported 0 sessions, skipped .* that already existed" err
'

# cron_home: hermes installed in ~/.local of a home of its own ($home),
# set up for the fake server'"'"'s model that needs a key, the key named by
# api_key_env as the quick start does.
cron_home() {
	home=$TRASH/cron-home &&
	mkdir -p "$home/.local/bin" &&
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" install PREFIX="$home/.local" >/dev/null &&
	emulated_install "$home/.local/bin" &&
	HERMES_HOME=$home/.hermes hermes config set base_url "$BASE_URL" &&
	HERMES_HOME=$home/.hermes hermes config set api_key_env OPENAI_API_KEY &&
	HERMES_HOME=$home/.hermes hermes config set model keyed
}

# as_cron CRONTAB: run each job of CRONTAB (its first line that is not a
# variable) as cron runs it: /bin/sh -c in $home, with only what cron
# sets (HOME, LOGNAME, SHELL, PATH) and the variables the crontab sets.
as_cron() {
	grep "^[A-Za-z_][A-Za-z0-9_]*=" "$1" >"$TRASH/vars"
	grep -v "^[A-Za-z_][A-Za-z0-9_]*=" "$1" | cut -d" " -f6- | sed "s/^ *//" >"$TRASH/job" &&
	test_line_count = 1 "$TRASH/job" &&
	(
		cd "$home" &&
		# shellcheck disable=SC2046
		env -i HOME="$home" LOGNAME="$(id -un)" SHELL=/bin/sh PATH=/usr/bin:/bin $(cat "$TRASH/vars") \
			/bin/sh -c "$(cat "$TRASH/job")" </dev/null
	)
}

test_expect_success SERVER 'the crontab as cron runs it (env -i): the key set in the crontab reaches hermes, the line posts to its thread' '
	block "^OPENAI_API_KEY=" >ex &&
	test_line_count = 2 ex &&
	grep "^OPENAI_API_KEY=sk-your-key\$" ex &&
	grep "^0 7 [*] [*] [*]  df -h | ~/.local/bin/hermes chat" ex &&
	cron_home &&
	sed "s/^OPENAI_API_KEY=sk-your-key\$/OPENAI_API_KEY=sk-test-key/" ex >crontab &&
	as_cron crontab >out 2>err &&
	grep "^Hello from the fake server\$" out &&
	test_must_be_empty err &&
	as_cron crontab >out 2>err &&
	test_must_be_empty err &&
	HERMES_HOME=$home/.hermes hermes sessions list --all | cut -f2,4 >list &&
	printf "disk report\\t4\\n" >expect &&
	test_cmp expect list &&
	grep -i "^authorization: Bearer sk-test-key" "$(last_request)"
'

test_expect_success SERVER 'without the crontab'"'"'s variable cron has no key: exit 3, saying so, as the README quotes it' '
	block "^OPENAI_API_KEY=" >ex &&
	cron_home &&
	grep -v "^OPENAI_API_KEY=" ex >crontab &&
	test_expect_code 3 as_cron crontab >out 2>err &&
	grep "^hermes: api_key_env names OPENAI_API_KEY, which is not set in the environment" err &&
	grep -F "(\`hermes: api_key_env
names OPENAI_API_KEY, which is not set in the environment\`, exit 3)" "$README"
'

test_expect_success SERVER 'or api_key_command, as the README sets it, fetches the key for cron: no key in the crontab' '
	block "^OPENAI_API_KEY=" >ex &&
	cron_home &&
	block "^hermes config set api_key_command" >setup.sh &&
	test_line_count = 1 setup.sh &&
	mkdir -p "$home/.config/hermes" &&
	echo sk-test-key >"$home/.config/hermes/key" &&
	chmod 600 "$home/.config/hermes/key" &&
	HOME=$home HERMES_HOME=$home/.hermes sh -e setup.sh &&
	grep -v "^OPENAI_API_KEY=" ex >crontab &&
	as_cron crontab >out 2>err &&
	test_must_be_empty err &&
	HERMES_HOME=$home/.hermes hermes sessions list --all | cut -f2,4 >list &&
	printf "disk report\\t2\\n" >expect &&
	test_cmp expect list &&
	grep -i "^authorization: Bearer sk-test-key" "$(last_request)"
'

test_expect_success SERVER,GIT 'scripts can trust $?: the deploys example' '
	block "^if ! hermes chat -c \"deploys\"" >ex &&
	setup &&
	hermes chat -c deploys --create-if-missing -q "the thread" -Q &&
	(cd repo && sh -e ../ex) 2>err &&
	test_must_be_empty err &&
	hermes config set base_url http://127.0.0.1:1/v1 &&
	(cd repo && sh ../ex) 2>err &&
	grep "^could not post to the deploys thread$" err
'

test_expect_success SERVER 'finding a session: search, list TEXT, short IDs (the picker is t3830)' '
	block "^hermes sessions search brpop" >ex &&
	setup &&
	hermes chat -c "redis debug" --create-if-missing -q "why does BRPOPLPUSH time out" -Q &&
	id=$(hermes sessions list --all | cut -f5) &&
	grep -v -e "--pick" -e "sessions pick" ex |
		sed -e "s/a1b2c3/$(echo "$id" | cut -c17-)/" -e "s/20261202_1430/$(echo "$id" | cut -c1-13)/" \
			-e "s/^hermes chat -r \\([^ ]*\\) *#.*/hermes chat -r \\1 -q again/" >script &&
	sh -e script >out 2>err &&
	grep "redis debug" out
'

test_expect_success BASH 'the bash prompt names the session' '
	block "^# bash$" >ex &&
	hermes chat -c "redis debug" --create-if-missing -q x --no-agent -Q &&
	grep "^PS1=" ex >ps1 &&
	bash -c ". ./ps1 && printf \"%s\" \"\${PS1@P}\"" >out &&
	printf "[redis debug] %s " "$(test "$(id -u)" = 0 && echo "#" || echo "\$")" >expect &&
	test_cmp expect out
'

test_expect_success ZSH 'the zsh prompt names the session, a % in a title kept' '
	block "^# bash$" >ex &&
	hermes chat -c "50% done" --create-if-missing -q x --no-agent -Q &&
	sed -n "/^precmd/,\$p" ex >zshrc &&
	cat >show.zsh <<-\EOF &&
	. ./zshrc
	precmd
	print -rn -- "${(%)${(e)PROMPT}}"
	EOF
	zsh -f show.zsh >out &&
	printf "[50%% done] %s " "$(test "$(id -u)" = 0 && echo "#" || echo "%")" >expect &&
	test_cmp expect out
'

test_expect_success 'the shipped agents, set up one line each' '
	block "^# any OpenAI-compatible server" >ex &&
	grep "^hermes " ex >script &&
	test_line_count -gt 3 script &&
	sh -e script &&
	cat >expect <<-\EOF &&
	agent = "llm"
	model = "gpt-4o-mini"
	EOF
	test_cmp expect "$HERMES_HOME/config.toml" &&
	hermes config list >list &&
	grep "^agent_input = \"transcript\" .*# default of llm$" list &&
	! grep "^base_url" list
'

test_expect_success 'config.toml as the README shows it reads, every key' '
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	block "^agent = \"openai-compatible\"" >"$HERMES_HOME/config.toml.new" &&
	mv "$HERMES_HOME/config.toml.new" "$HERMES_HOME/config.toml" &&
	chmod 600 "$HERMES_HOME/config.toml" &&
	hermes config list >list &&
	for key in $CONFIG_KEYS; do grep "^$key = .*# config.toml$" list || return 1; done
'

test_expect_success 'importing from llm and from the Python Hermes, as the README pipes them' '
	block "^# from Simon Willison" >ex &&
	mkdir -p bin path/to/its/venv/bin home/.local/bin &&
	printf "#!/bin/sh\ncat \"%s\"\n" "$TEST_DIR/fixtures/llm-0.36-logs.json" >bin/llm &&
	printf "#!/bin/sh\ncat \"%s\"\n" "$TEST_DIR/fixtures/hermes-agent-0.22.2-export.jsonl" >path/to/its/venv/bin/hermes &&
	chmod +x bin/llm path/to/its/venv/bin/hermes &&
	ln -s "$(command -v hermes)" home/.local/bin/hermes &&
	HOME=$TRASH/home PATH=$TRASH/bin:$PATH sh -e ex 2>err &&
	test "$(grep -c "^imported [1-9][0-9]* sessions" err)" = 2
'

test_done
