#!/bin/sh
test_description='files in a message: chat -f FILE (again for more) and /file FILE, each fenced and named; what is not text refused; limits checked before anything is saved'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

# first_message: the content of the only session's first message.
first_message() {
	hermes sessions show --json "$(only_id)" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "v[\"messages\"][0][\"content\"]"
}

test_expect_success '-f twice with stdin and -q: stdin, each file fenced and named, then the text, which titles it' '
	mkdir -p src &&
	printf "fn main() {}\n" >src/main.rs &&
	printf "a fence: \`\`\` inside\n" >NOTES &&
	echo "error: it fails" | hermes chat --no-agent -f src/main.rs --file NOTES -q "why?" -Q &&
	first_message >actual &&
	cat >expect <<-\EOF &&
	error: it fails

	src/main.rs:
	```rs
	fn main() {}
	```

	NOTES:
	````
	a fence: ``` inside
	````

	why?
	EOF
	test_cmp expect actual &&
	hermes sessions list | cut -f2 >actual &&
	echo "why?" >expect &&
	test_cmp expect actual
'

test_expect_success '-f alone: the message is the file, its title the file'"'"'s name' '
	printf "one\ntwo\n" >list.txt &&
	hermes chat --no-agent -f list.txt -Q </dev/null &&
	first_message >actual &&
	printf "list.txt:\n\`\`\`txt\none\ntwo\n\`\`\`\n" >expect &&
	test_cmp expect actual &&
	hermes sessions list | cut -f2 >actual &&
	echo "list.txt" >expect &&
	test_cmp expect actual
'

test_expect_success 'what is not text is refused by what it looks like, exit 2, nothing saved' '
	printf "%%PDF-1.7\n\000" >doc.pdf &&
	printf "ab\000cd" >data.bin &&
	printf "caf\351\n" >latin1.txt &&
	printf "ok\n" >ok.txt &&
	test_expect_code 2 hermes chat --no-agent -f ok.txt -f doc.pdf -q "look" 2>err &&
	grep "^hermes: -f doc.pdf: not a text file (a PDF document); a message holds text files and PNG, JPEG, GIF or WebP images only, nothing was saved$" err &&
	test_expect_code 2 hermes chat --no-agent -f data.bin -q "look" 2>err &&
	grep "^hermes: -f data.bin: not a text file (binary: a NUL byte at offset 2)" err &&
	test_expect_code 2 hermes chat --no-agent -f latin1.txt -q "look" 2>err &&
	grep "^hermes: -f latin1.txt: not a text file (not UTF-8: byte 233 at offset 3)" err &&
	test_expect_code 2 hermes chat --no-agent -f . -q "look" 2>err &&
	grep "^hermes: -f .: a directory; give its files one by one$" err &&
	test "$(session_count)" = 0
'

test_expect_success 'a device is refused before anything is read from it, exit 2, nothing saved; a pipe on the command line is read' '
	test_expect_code 2 hermes chat --no-agent -f /dev/zero -q "look" 2>err &&
	grep "^hermes: -f /dev/zero: a character device, not a regular file; " err &&
	test "$(session_count)" = 0 &&
	# -f <(git diff): its terminal is not raw yet, Ctrl-C ends it as ever.
	mkfifo fifo &&
	{ printf "from a pipe\n" >fifo & } &&
	timeout 120 hermes chat --no-agent -f fifo -q "look" -Q &&
	grep "from a pipe" "$HERMES_HOME"/sessions/*.json
'

test_expect_success 'a file that is not there: exit 2 with the nearest name, nothing saved' '
	mkdir -p docs && echo x >docs/design.md &&
	test_expect_code 2 hermes chat --no-agent -f docs/desing.md -q "look" 2>err &&
	grep "^hermes: -f docs/desing.md: no such file (did you mean docs/design.md?)$" err &&
	test_expect_code 2 hermes chat --no-agent -f nothing-like-it -q "look" 2>err &&
	grep "^hermes: -f nothing-like-it: no such file$" err &&
	grep -x "Try '"'"'hermes chat --help'"'"' for more information." err &&
	test "$(session_count)" = 0
'

test_expect_success 'limits, before anything is saved: 32 files, and a message of 16 MiB with them' '
	i=0 && set -- &&
	while test $i -lt 33; do
		echo "$i" >f$i && set -- "$@" -f f$i && i=$((i + 1))
	done &&
	test_expect_code 2 hermes chat --no-agent "$@" -q "all" 2>err &&
	grep "^hermes: 33 files in one message; it takes at most 32$" err &&
	shift 2 &&
	hermes chat --no-agent "$@" -q "all" -Q &&
	test "$(session_count)" = 1 &&
	rm -rf "$HERMES_HOME" &&
	head -c 9000000 /dev/zero | tr "\000" a >big1 &&
	cp big1 big2 &&
	test_expect_code 2 hermes chat --no-agent -f big1 -f big2 -q "both" 2>err &&
	grep "^hermes: the message with its files is larger than 16 MiB; nothing was saved$" err &&
	head -c 17000000 /dev/zero | tr "\000" a >huge &&
	test_expect_code 2 hermes chat --no-agent -f huge -q "it" 2>err &&
	grep "^hermes: -f huge: larger than a message may be (16 MiB); nothing was saved$" err &&
	test "$(session_count)" = 0
'

test_expect_success 'the agent gets the files in the message it reads' '
	printf "x = 1\n" >a.py &&
	hermes chat --agent "cat >$TRASH/request.json; echo ok" -f a.py -q "explain" -Q >out &&
	json_get request.json "v[\"messages\"][-1][\"content\"]" >actual &&
	printf "a.py:\n\`\`\`py\nx = 1\n\`\`\`\n\nexplain\n" >expect &&
	test_cmp expect actual
'

test_expect_success TMUX '/file: Tab completes the name, the file goes with the next message, a bad one is refused and the chat goes on' '
	printf "SELECT 1;\n" >query.sql &&
	printf "\177ELF\002" >pic.bin &&
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	type_line "/file" &&
	wait_until on_screen "^No files attached: /file FILE puts one into the next message.$" &&
	typed "/file que" && keys Tab &&
	wait_until ready "new session> /file query.sql" &&
	keys Enter &&
	wait_until on_screen "^Attached to the next message: query.sql (10 characters).$" &&
	type_line "/file pic.bin" &&
	wait_until on_screen "/file pic.bin: not a text file (a program)" &&
	type_line "/file nosuch.sql" &&
	wait_until on_screen "/file nosuch.sql: no such file" &&
	type_line "is this fast" &&
	wait_until ready "is this fast>" &&
	type_line "/file" &&
	wait_until screen_count "^No files attached" 2 &&
	keys C-d && hermes_exited 0 &&
	first_message >actual &&
	printf "query.sql:\n\`\`\`sql\nSELECT 1;\n\`\`\`\n\nis this fast\n" >expect &&
	test_cmp expect actual
'

test_expect_success TMUX '-f in an interactive chat: the files wait for the first message, which says so' '
	printf "notes\n" >n.txt &&
	start_pane &&
	start_hermes "chat --no-agent -f n.txt" &&
	wait_until on_screen "^Attached to the next message: n.txt (6 characters).$" &&
	wait_until ready "new session>" &&
	type_line "summarise" &&
	wait_until ready "summarise>" &&
	keys C-d && hermes_exited 0 &&
	first_message >actual &&
	printf "n.txt:\n\`\`\`txt\nnotes\n\`\`\`\n\nsummarise\n" >expect &&
	test_cmp expect actual
'

test_expect_success TMUX '/file FIFO: refused at once, the chat goes on, Ctrl-C and Ctrl-D as ever; the terminal given back' '
	mkfifo fifo &&
	start_pane &&
	type_line "stty -g >before" &&
	wait_until test -s before &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	type_line "/file fifo" &&
	wait_until on_screen "/file fifo: a FIFO, not a regular file; a message takes files, which end; nothing was read" &&
	wait_until ready "new session>" &&
	typed "half a line" && keys C-c &&
	wait_until ready "new session>" &&
	keys C-d && hermes_exited 0 &&
	type_line "stty -g >after" &&
	wait_until test -s after &&
	test_cmp before after &&
	test "$(session_count)" = 0
'

test_done
