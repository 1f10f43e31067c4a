#!/bin/sh
test_description='chat --usage (and usage = "true" in config.toml): after each reply, one line on stderr with its tokens and the session'"'"'s total'
. "$(dirname "$0")/lib.sh"

use_fake_agent
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

# ask ARGS...: the shipped agent on the fake server.
ask() {
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible "$@"
}

test_expect_success SERVER '--usage: the reply tokens, in and out, and the session total' '
	ask -m gpt-test-mini --usage -Q --title u1 hello there >out 2>err &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	echo "hermes: tokens: 11 in, 3 out; this session 14" >expect && test_cmp expect err &&
	ask -c u1 --usage -Q more >out 2>err &&
	echo "hermes: tokens: 41 in, 3 out; this session 58" >expect && test_cmp expect err
'

test_expect_success SERVER 'usage = "true" in config.toml says it too; with --no-save the total is not kept' '
	ask -m gpt-test-mini -Q --title u1 hello there >/dev/null &&
	hermes config set usage true &&
	ask -c u1 -Q --no-save more >out 2>err &&
	echo "hermes: tokens: 41 in, 3 out; not kept (--no-save)" >expect && test_cmp expect err &&
	hermes config set usage false &&
	ask -c u1 -Q more 2>err &&
	test_must_be_empty err
'

test_expect_success 'an agent that reports no usage: said so on the line' '
	hermes chat --agent "fake-agent text hi" --usage -Q -q hi >out 2>err &&
	echo "hermes: tokens: none reported by the agent; this session none reported" >expect &&
	test_cmp expect err
'

test_expect_success SERVER 'the interactive chat says it after each reply' '
	ask -m gpt-test-mini -Q --title u2 -q hi >/dev/null &&
	id=$(only_id) &&
	{ echo more && sleep 3; } |
	pty_transcript "OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -r $id --usage" screen &&
	grep -F "hermes: tokens: 32 in, 3 out; this session 40" screen
'

test_expect_success 'bad input: usage = "maybe" is refused, exit 2' '
	test_expect_code 2 hermes config set usage maybe 2>err &&
	head -n 1 err >first &&
	echo "hermes: usage must be \"true\" or \"false\"" >expect &&
	test_cmp expect first &&
	test ! -e "$HERMES_HOME/config.toml"
'

test_done
