#!/bin/sh
test_description='README.md: its install command works, its facts match the program'
. "$(dirname "$0")/lib.sh"

README=$ROOT/README.md

# The quick start: the lines from the install command to the end of its block.
quick_start() {
	sed -n '/^make install PREFIX="\$HOME\/.local"$/,/^```$/p' "$README" | sed '$d'
}

test_expect_success 'the quick start of the README is an install, three config set lines (the server, its key, the model) and a chat' '
	quick_start >block &&
	test_line_count = 5 block &&
	sed -n 2,4p block | grep -c "^hermes config set " >count &&
	echo 3 >expect &&
	test_cmp expect count &&
	sed -n 3p block | grep "^hermes config set api_key_env " &&
	sed -n 5p block | grep "^hermes chat "
'

# tests/t6910-readme-quickstart.sh runs it, in a fresh home, against a server.

test_expect_success 'the README lists the exit codes of --help' '
	hermes --help | sed -n "/^Exit status:/,/^$/p" | tr -s " \n" "  " |
		grep -o "[0-9][0-9]* [a-z]" | sed "s/ .*//" >expect &&
	test_line_count = 6 expect &&
	sed -n "s/^| \([0-9][0-9]*\) | .*/\1/p" "$README" >actual &&
	test_cmp expect actual
'

test_expect_success 'the README shows every config.toml key' '
	test -n "$CONFIG_KEYS" &&
	for key in $CONFIG_KEYS; do
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

test_expect_success 'the README names every slash command of chat --help' '
	hermes chat --help | sed -n "/^Interactive commands:/,/^\$/p" | grep -o "/[a-z!]*" | sort -u >commands &&
	test_line_count -gt 10 commands &&
	for command in $(cat commands); do
		grep -q -F "\`$command" "$README" || {
			echo "README lacks $command" >&2
			return 1
		}
	done
'

test_expect_success 'the shipped agents agree with the README on what they read' '
	! grep -n "agent_input = \"transcript\"" "$ROOT/contrib/agents/llm" "$ROOT/contrib/agents/ollama"
'

test_done
