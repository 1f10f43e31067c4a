#!/bin/sh
test_description='README.md: its install command works, its facts match the program'
. "$(dirname "$0")/lib.sh"

README=$ROOT/README.md

test_expect_success 'the one install command of the README builds, installs and posts to "notes"' '
	grep "^make install PREFIX=\"\$HOME/.local\" && hermes chat " "$README" >command &&
	test_line_count = 1 command &&
	home=$TRASH.home &&
	mkdir "$home" &&
	(
		# CARGO=true: the binary under test is built; make installs it.
		cd "$ROOT" &&
		HOME=$home CARGO=true PATH="$home/.local/bin:$PATH" sh -e "$TRASH/command"
	) >out 2>err &&
	test -x "$home/.local/bin/hermes" &&
	test -f "$home/.local/share/man/man1/hermes.1" &&
	hermes sessions show notes >show &&
	grep "^hello$" show
'

test_expect_success 'the README lists the exit codes of --help' '
	hermes --help | sed -n "/^Exit status:/,/^$/p" | tr -s " \n" "  " |
		grep -o "[0-9][0-9]* [a-z]" | sed "s/ .*//" >expect &&
	test_line_count = 6 expect &&
	sed -n "s/^| \([0-9][0-9]*\) | .*/\1/p" "$README" >actual &&
	test_cmp expect actual
'

test_expect_success 'the README shows every config.toml key' '
	sed -n "s/^pub const KEYS: .*= \[\(.*\)\];/\1/p" "$ROOT/src/config.rs" |
		tr -d "\" " | tr , "\n" >keys &&
	test_line_count = 5 keys &&
	for key in $(cat keys); do
		grep -q "^$key = \"" "$README" || {
			echo "README lacks the config key $key" >&2
			return 1
		}
	done
'

test_expect_success 'the agents the README and the man page name are those in contrib/agents' '
	ls "$ROOT/contrib/agents" >expect &&
	test_line_count = 3 expect &&
	for doc in "$README" "$ROOT/man/hermes.1"; do
		sed "s/\\\\-/-/g" "$doc" |
			grep -o "share/hermes/agents/[a-z-]*" | sed "s|.*/||" | sort -u >named &&
		for agent in $(cat named); do
			test -x "$ROOT/contrib/agents/$agent" || {
				echo "$doc names a missing agent: $agent" >&2
				return 1
			}
		done || return 1
	done
'

test_expect_success 'the README says how to run the tests and the benchmark' '
	grep -q "^make check$" "$README" &&
	grep -q "^sh bench/run$" "$README" &&
	grep -q "^make static " "$README"
'

test_done
