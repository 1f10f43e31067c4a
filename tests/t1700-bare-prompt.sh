#!/bin/sh
test_description='hermes TEXT... is a one-shot prompt, a near miss of a command still gets did-you-mean, and words after -c NAME or -r ID are the message'
. "$(dirname "$0")/lib.sh"

use_fake_agent

test_expect_success 'hermes WORDS: the words joined by spaces are the message of a one-shot turn' '
	HERMES_AGENT="fake-agent text pong" hermes what is  this >out 2>err &&
	echo pong >expect && test_cmp expect out &&
	id=$(only_id) &&
	printf "user: what is this\nassistant: pong\n" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'hermes "a quoted prompt" and hermes chat WORDS are the same' '
	rm -rf "$HERMES_HOME/sessions" &&
	HERMES_AGENT="fake-agent text pong" hermes "what is a tty" -Q >out &&
	HERMES_AGENT="fake-agent text pong" hermes chat explain -Q ttys >>out &&
	printf "pong\npong\n" >expect && test_cmp expect out &&
	hermes sessions list --json >list &&
	grep -F "\"title\":\"what is a tty\"" list &&
	grep -F "\"title\":\"explain ttys\"" list
'

test_expect_success 'stdin joins the words as it joins -q TEXT: stdin, a blank line, then the words' '
	rm -rf "$HERMES_HOME/sessions" &&
	echo "snippet" | HERMES_AGENT="fake-agent text ok" hermes explain this -Q >out &&
	id=$(only_id) &&
	printf "%s\n" "user: snippet\\n\\nexplain this" "assistant: ok" >expect &&
	messages "$id" >actual && test_cmp expect actual
'

test_expect_success 'a near miss of a command is did-you-mean, exit 2, nothing sent nor saved' '
	rm -rf "$HERMES_HOME/sessions" &&
	test_expect_code 2 env HERMES_AGENT="fake-agent save sent" hermes sesions >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: unknown command .sesions.; did you mean .sessions.?" err &&
	test_expect_code 2 env HERMES_AGENT="fake-agent save sent" hermes sesions list 2>err &&
	grep "did you mean .sessions.?" err &&
	test_expect_code 2 env HERMES_AGENT="fake-agent save sent" hermes modles --json 2>err &&
	grep "did you mean .models.?" err &&
	test ! -e sent &&
	test "$(session_count)" = 0
'

test_expect_success 'a near miss followed by other words is a message: what is near chat, rules near roles' '
	HERMES_AGENT="fake-agent text yes" hermes rules of thumb -Q >out &&
	HERMES_AGENT="fake-agent text yes" hermes wat now -Q >>out &&
	printf "yes\nyes\n" >expect && test_cmp expect out &&
	hermes sessions list --json >list &&
	grep -F "\"title\":\"rules of thumb\"" list &&
	grep -F "\"title\":\"wat now\"" list
'

test_expect_success 'words and -q together: one usage line, exit 2, nothing saved' '
	test_expect_code 2 hermes chat -q one two --no-agent >out 2>err &&
	test_must_be_empty out &&
	head -n 1 err >first &&
	echo "hermes: words '"'"'two'"'"' and -q: the words are a message, as -q is; give one of them" >expect &&
	test_cmp expect first &&
	test "$(session_count)" = 0
'

test_expect_success 'chat -c NAME WORDS: the words go to session NAME, as -q would send them' '
	HERMES_AGENT="fake-agent text first" hermes chat --title "redis debug" -q "start" -Q >/dev/null &&
	id=$(session_id_by_title "redis debug") &&
	HERMES_AGENT="fake-agent text second" hermes chat -c "redis debug" follow-up question -Q >out 2>err &&
	echo second >expect && test_cmp expect out &&
	test_must_be_empty err &&
	messages "$id" | tail -n 2 >actual &&
	printf "user: follow-up question\nassistant: second\n" >expect &&
	test_cmp expect actual &&
	HERMES_AGENT="fake-agent text third" hermes -r "$id" "and then?" -Q >out &&
	messages "$id" | tail -n 2 >actual &&
	printf "user: and then?\nassistant: third\n" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 1
'

test_expect_success 'a bare -c takes the first word as NAME; the words after are the message' '
	hermes chat --title "redis debug" -q "start" --no-agent -Q &&
	test_expect_code 1 env HERMES_AGENT="fake-agent text x" hermes chat -c redis debug 2>err &&
	grep "^No session found matching .redis.\." err &&
	HERMES_AGENT="fake-agent text fourth" hermes chat again please -c -Q >out &&
	echo fourth >expect && test_cmp expect out &&
	id=$(only_id) &&
	messages "$id" | tail -n 2 >actual &&
	printf "user: again please\nassistant: fourth\n" >expect &&
	test_cmp expect actual
'

test_done
