#!/bin/sh
test_description='text that is not UTF-8 where hermes would store or send it (-q, stdin, --title, -s, --system-file, -m, -c NAME, --agent, config set, rename) is refused with exit 2, naming where and the first bad byte, never saved with U+FFFD in its place'
. "$(dirname "$0")/lib.sh"

# refused PLACE OFFSET [BYTE]: err says PLACE is not UTF-8 text at OFFSET
# (BYTE, default e9), and nothing was saved.
refused() {
	printf "hermes: %s is not UTF-8 text (the byte 0x%s at offset %s); nothing was done: convert it first, from Latin-1 with iconv -f latin1 -t utf-8\n" \
		"$1" "${3:-e9}" "$2" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 0
}

test_expect_success 'a Latin-1 -q TEXT: exit 2, -q named, nothing saved' '
	test_expect_code 2 hermes chat -q "caf$(printf "\351")" --no-agent 2>err &&
	refused -q 3
'

test_expect_success 'a Latin-1 message on stdin (a pipe, -q -, or with -q TEXT): exit 2, stdin named' '
	printf "first line\ncaf\351 cr\350me\n" >latin1.txt &&
	test_expect_code 2 hermes chat --no-agent <latin1.txt 2>err &&
	refused stdin 14 &&
	test_expect_code 2 hermes chat -q - --no-agent <latin1.txt 2>err &&
	refused stdin 14 &&
	test_expect_code 2 hermes chat -q "why?" --no-agent <latin1.txt 2>err &&
	refused stdin 14
'

test_expect_success 'a Latin-1 --title, -s, -m, --agent or -c NAME: exit 2, the option named' '
	test_expect_code 2 hermes chat --title "r$(printf "\351")sum$(printf "\351")" -q x --no-agent 2>err &&
	refused --title 1 &&
	test_expect_code 2 hermes chat -s "na$(printf "\357")ve" -q x --no-agent 2>err &&
	refused -s 2 ef &&
	test_expect_code 2 hermes chat -m "mod$(printf "\350")le" -q x --no-agent 2>err &&
	refused -m 3 e8 &&
	test_expect_code 2 hermes chat --agent "echo $(printf "\351")" -q x 2>err &&
	refused --agent 5 &&
	test_expect_code 2 hermes chat -c "caf$(printf "\351")" --create-if-missing -q x --no-agent 2>err &&
	refused "-c NAME" 3
'

test_expect_success 'a Latin-1 --system-file: exit 2, the file named' '
	printf "be na\357ve\n" >system.txt &&
	test_expect_code 2 hermes chat --system-file system.txt -q x --no-agent 2>err &&
	refused "--system-file system.txt" 5 ef
'

test_expect_success 'a Latin-1 config set VALUE: exit 2, config.toml as it was' '
	hermes config set model first &&
	cp "$HERMES_HOME/config.toml" before.toml &&
	test_expect_code 2 hermes config set system "be na$(printf "\357")ve" 2>err &&
	refused "config set VALUE" 5 ef &&
	cmp before.toml "$HERMES_HOME/config.toml"
'

test_expect_success 'a Latin-1 new title for rename: exit 2, the session as it was' '
	S=$(mk first) &&
	cp "$HERMES_HOME/sessions/$S.json" before.json &&
	test_expect_code 2 hermes sessions rename first "r$(printf "\351")sum$(printf "\351")" 2>err &&
	echo "hermes: the new TITLE is not UTF-8 text (the byte 0xe9 at offset 1); nothing was done: convert it first, from Latin-1 with iconv -f latin1 -t utf-8" >expect &&
	test_cmp expect err &&
	cmp before.json "$HERMES_HOME/sessions/$S.json"
'

test_expect_success 'a name that is only looked up is not refused: a Latin-1 name matches no session (exit 1)' '
	mk "caf$(printf "\303\251")" >/dev/null &&
	test_expect_code 1 hermes sessions show "caf$(printf "\351")" 2>err &&
	grep "^hermes: no session matches" err
'

test_expect_success 'UTF-8 text is taken as it is, accents kept' '
	hermes chat -q "caf$(printf "\303\251") cr$(printf "\303\250")me" --title "r$(printf "\303\251")sum$(printf "\303\251")" --no-agent -Q &&
	show_contents "r$(printf "\303\251")sum$(printf "\303\251")" >actual &&
	echo "caf$(printf "\303\251") cr$(printf "\303\250")me" >expect &&
	test_cmp expect actual
'

test_done
