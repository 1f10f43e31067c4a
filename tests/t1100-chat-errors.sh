#!/bin/sh
test_description='hermes chat: loud failures, with the exact text and exit status of the man page'
. "$(dirname "$0")/lib.sh"

test_expect_success '-c NAME matching nothing in an empty store: exit 1, the exact text, nothing created' '
	test_expect_code 1 hermes chat -c "redis debug" -q "hello" >out 2>err &&
	test_must_be_empty out &&
	not_found "redis debug" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 0
'

test_expect_success '-c NAME matching nothing among other sessions: exit 1, nothing written' '
	a=$(mk "redis") && b=$(mk "redis debug 2") && c=$(mk "debug") &&
	cat "$HERMES_HOME/sessions/"*.json >before.content &&
	test_expect_code 1 hermes chat -c "redis debug" -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	not_found "redis debug" "redis debug 2" >expect &&
	test_cmp expect err &&
	cat "$HERMES_HOME/sessions/"*.json >after.content &&
	test_cmp before.content after.content &&
	test "$(session_count)" = 3
'

test_expect_success '-c NAME matching nothing fails the same way with an agent configured' '
	mk other >/dev/null &&
	HERMES_AGENT="touch agent-ran" && export HERMES_AGENT &&
	test_expect_code 1 hermes chat -c missing -q "hello" >out 2>err &&
	test_must_be_empty out &&
	not_found missing >expect &&
	test_cmp expect err &&
	! test -e agent-ran &&
	test "$(session_count)" = 1
'

test_expect_success '-c NAME matching nothing, message on stdin: exit 1, nothing saved' '
	mk other >/dev/null &&
	echo "piped message" | test_expect_code 1 hermes chat -c missing --no-agent >out 2>err &&
	test_must_be_empty out &&
	not_found missing >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 1
'

test_expect_success '-c NAME differing only in case: the text gains a Did you mean line' '
	a=$(mk "Redis Debug") &&
	test_expect_code 1 hermes chat -c "redis debug" -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	No session found matching '"'"'redis debug'"'"'.
	Did you mean '"'"'Redis Debug'"'"'?
	Use '"'"'hermes sessions list'"'"' to see available sessions, or pass
	--create-if-missing to start a new session with that title.
	EOF
	test_cmp expect err &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(session_count)" = 1
'

test_expect_success '-c NAME --create-if-missing does not take a title that differs in case' '
	a=$(mk "Redis Debug") &&
	hermes chat -c "redis debug" --create-if-missing -q "hello" --no-agent -Q &&
	test "$(session_count)" = 2 &&
	b=$(session_id_by_title "redis debug") &&
	test -n "$b" && test "$b" != "$a" &&
	test "$(field "$a" message_count)" = 1
'

test_expect_success SCRIPT '-c NAME matching nothing on a terminal: exit 1 before any prompt' '
	mk other >/dev/null &&
	test_expect_code 1 run_in_pty "hermes chat -c \"redis debug\" >out 2>err" </dev/null >transcript &&
	test_must_be_empty out &&
	not_found "redis debug" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 1
'

test_expect_success SCRIPT 'bare -c with no sessions on a terminal: exit 1 before any prompt' '
	test_expect_code 1 run_in_pty "hermes chat -c >out 2>err" </dev/null >transcript &&
	test_must_be_empty out &&
	test_line_count = 1 err &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'bare -c with no sessions at all: exit 1, one line starting hermes:' '
	test_expect_code 1 hermes chat -c -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_line_count = 1 err &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'bare -c with no sessions and a breadcrumb-capable terminal: still exit 1' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	test_expect_code 1 hermes chat -c -q "hello" >out 2>err &&
	test_must_be_empty out &&
	test_line_count = 1 err &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'bare -c --create-if-missing: exit 2 with the documented message' '
	mk alpha >/dev/null &&
	test_expect_code 2 hermes chat -c --create-if-missing -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: --create-if-missing requires a session name: hermes chat -c NAME --create-if-missing" >expect &&
	head -n 1 err >actual &&
	test_cmp expect actual &&
	test_expect_code 2 hermes chat --create-if-missing -c -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	head -n 1 err >actual &&
	test_cmp expect actual &&
	test "$(field "$(session_id_by_title alpha)" message_count)" = 1 &&
	test "$(session_count)" = 1
'

test_expect_success '--create-if-missing without -c: exit 2, nothing created' '
	test_expect_code 2 hermes chat --create-if-missing -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: .*--create-if-missing" err &&
	test "$(session_count)" = 0
'

test_expect_success '--create-if-missing with -r: exit 2, nothing created' '
	test_expect_code 2 hermes chat -r 20260101_000000_abcdef --create-if-missing -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: .*--create-if-missing" err &&
	test "$(session_count)" = 0
'

test_expect_success '-c redis debug (unquoted): debug is the message to redis, as -q would send it' '
	mk "redis" >/dev/null &&
	hermes chat -c redis debug --no-agent >out 2>err &&
	test_must_be_empty out &&
	test "$(field "$(session_id_by_title redis)" message_count)" = 2 &&
	test "$(session_count)" = 1
'

test_expect_success '-c redis debug --create-if-missing (unquoted): exit 2, nothing created' '
	test_expect_code 2 hermes chat -c redis debug --create-if-missing -q x >out 2>err &&
	test_must_be_empty out &&
	grep "'"'"'debug'"'"'" err &&
	test "$(session_count)" = 0
'

test_expect_success 'hermes -c redis debug (no chat word) fails the same way' '
	test_expect_code 2 hermes -c redis debug -q x --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	grep "'"'"'debug'"'"'" err &&
	test "$(session_count)" = 0
'

test_expect_success '-r ../../etc/passwd is simply no session; nothing is created outside the store' '
	mkdir -p etc &&
	echo "root:x:0:0::/root:/bin/sh" >etc/passwd &&
	cp etc/passwd passwd.orig &&
	find . -type f ! -name out ! -name err ! -name "files.*" | sort >files.before &&
	test_expect_code 1 hermes chat -r ../../etc/passwd -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "etc/passwd" err &&
	test_expect_code 1 hermes chat -r ../../etc/passwd --no-agent </dev/null >out 2>err &&
	test_must_be_empty out &&
	test_expect_code 1 hermes chat -r /etc/passwd -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_cmp passwd.orig etc/passwd &&
	find . -type f ! -name out ! -name err ! -name "files.*" | sort >files.after &&
	test_cmp files.before files.after &&
	test "$(session_count)" = 0
'

test_expect_success '-c with a path-like name never reaches a path outside the store' '
	a=$(mk alpha) &&
	cp "$HERMES_HOME/sessions/$a.json" decoy.json &&
	test_expect_code 1 hermes chat -c ../../decoy -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	not_found ../../decoy >expect && test_cmp expect err &&
	test_expect_code 1 hermes chat -r "../../decoy" -q "hello" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_cmp "$HERMES_HOME/sessions/$a.json" decoy.json
'

test_expect_success '-c ../../etc/passwd --create-if-missing: the title never becomes a file name' '
	hermes chat -c ../../etc/passwd --create-if-missing -q "hello" --no-agent -Q &&
	test "$(session_count)" = 1 &&
	test "$(ls "$HERMES_HOME/sessions" | wc -l)" = 1 &&
	id=$(ls "$HERMES_HOME/sessions" | sed "s/\.json\$//") &&
	test "$(field "$id" title)" = "../../etc/passwd" &&
	! test -e etc &&
	! test -e "$HERMES_HOME/etc"
'

test_expect_success 'empty -q "": exit 2, nothing saved' '
	test_expect_code 2 hermes chat -q "" --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'blank -q (only whitespace): exit 2, nothing saved' '
	test_expect_code 2 hermes chat -q "  	 " --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'empty stdin: exit 2, nothing saved' '
	test_expect_code 2 hermes chat --no-agent </dev/null >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	printf "" | test_expect_code 2 hermes chat -q - --no-agent >out 2>err &&
	test_must_be_empty out &&
	printf "\n\n" | test_expect_code 2 hermes chat --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_expect_code 2 hermes chat --no-agent <&- >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	test "$(session_count)" = 0
'

test_expect_success 'empty message to an existing session: exit 2, the session is untouched' '
	a=$(mk alpha) &&
	cp "$HERMES_HOME/sessions/$a.json" before &&
	test_expect_code 2 hermes chat -c alpha -q "" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_expect_code 2 hermes chat -r "$a" --no-agent </dev/null >out 2>err &&
	test_must_be_empty out &&
	test_cmp before "$HERMES_HOME/sessions/$a.json"
'

test_expect_success 'empty message with --create-if-missing: exit 2, the session is not created' '
	test_expect_code 2 hermes chat -c nightly --create-if-missing -q "" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_expect_code 2 hermes chat -c nightly --create-if-missing --no-agent </dev/null >out 2>err &&
	test_must_be_empty out &&
	test "$(session_count)" = 0
'

test_expect_success 'empty message with an agent: exit 2, the agent does not run' '
	test_expect_code 2 hermes chat -q "" --agent "touch agent-ran" >out 2>err &&
	test_must_be_empty out &&
	! test -e agent-ran &&
	test "$(session_count)" = 0
'

test_expect_success 'a message of only invisible characters is empty too: exit 2, nothing saved' '
	a=$(mk alpha) &&
	cp "$HERMES_HOME/sessions/$a.json" before &&
	# Zero-width space, right-to-left override, BOM, an escape, a bell.
	invisible=$(printf "\342\200\213\342\200\256\357\273\277 \033\007") &&
	test_expect_code 2 hermes chat -q "$invisible" --no-agent >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: the message holds only invisible characters; nothing to send" >expect &&
	head -n 1 err >actual &&
	test_cmp expect actual &&
	test_expect_code 2 hermes chat -c alpha -q "$invisible" --no-agent 2>err &&
	printf "%s\n" "$invisible" >msg &&
	test_expect_code 2 hermes chat -c nightly --create-if-missing --no-agent <msg 2>err &&
	test "$(session_count)" = 1 &&
	test_cmp before "$HERMES_HOME/sessions/$a.json"
'

test_expect_success '--agent with an empty command: exit 2 before anything is saved' '
	for agent in "" "   "; do
		test_expect_code 2 hermes chat -q hello --agent "$agent" >out 2>err &&
		test_must_be_empty out &&
		grep "^hermes: --agent wants a command; --no-agent runs none$" err || return 1
	done &&
	test "$(session_count)" = 0
'

test_expect_success '-q twice, --title twice, --agent with --no-agent: exit 2, nothing saved' '
	test_expect_code 2 hermes chat -q a -q b --no-agent 2>err &&
	grep "^hermes: -q/--query given twice$" err &&
	test_expect_code 2 hermes chat --title x --title y -q a --no-agent 2>err &&
	grep "^hermes: --title given twice$" err &&
	test_expect_code 2 hermes chat --agent "echo x" --no-agent -q a 2>err &&
	grep "^hermes: --agent and --no-agent: one of them, once$" err &&
	test_expect_code 2 hermes chat --no-agent --agent "echo x" -q a 2>err &&
	test_expect_code 2 hermes chat --agent "echo x" --agent "echo y" -q a 2>err &&
	test "$(session_count)" = 0
'

test_expect_success 'a message over 16 MiB on stdin: exit 2, a clear error, nothing saved' '
	dd if=/dev/zero bs=1048576 count=17 2>/dev/null | tr "\000" a >big &&
	test_expect_code 2 hermes chat -c big --create-if-missing --no-agent <big >out 2>err &&
	test_must_be_empty out &&
	test_line_count -le 2 err &&
	grep "^hermes: " err &&
	grep -E "MiB|large|big|size" err &&
	test "$(session_count)" = 0
'

test_expect_success 'hermes -c NAME acts as hermes chat -c NAME' '
	a=$(mk alpha) &&
	hermes -c alpha -q "via bare hermes" --no-agent >out 2>err &&
	test_must_be_empty out &&
	echo "session_id: $a" >expect && test_cmp expect err &&
	test "$(field "$a" message_count)" = 2 &&
	test_expect_code 1 hermes -c missing -q x --no-agent >out 2>err &&
	test_must_be_empty out &&
	not_found missing >expect && test_cmp expect err &&
	hermes -c nightly --create-if-missing -q x --no-agent -Q &&
	test "$(field "$(session_id_by_title nightly)" title_source)" = user &&
	test "$(session_count)" = 2
'

test_expect_success 'hermes -q TEXT acts as hermes chat -q TEXT' '
	hermes -q "hello there" --no-agent >out 2>err &&
	test_must_be_empty out &&
	id=$(session_id_by_title "hello there") && test -n "$id" &&
	echo "session_id: $id" >expect && test_cmp expect err &&
	test "$(session_count)" = 1 &&
	TMUX_PANE=%1 && export TMUX_PANE &&
	hermes -c -q "more" --no-agent -Q &&
	test "$(field "$id" message_count)" = 2 &&
	test_expect_code 2 hermes -c --create-if-missing -q x >out 2>err &&
	test_must_be_empty out
'

test_expect_success '-c and -r together: exit 2' '
	a=$(mk alpha) &&
	test_expect_code 2 hermes chat -c alpha -r "$a" -q x --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: " err &&
	test "$(field "$a" message_count)" = 1
'

test_expect_success '--title that another session holds is refused (exit 2); nothing joins that session' '
	id=$(mk "redis debug") &&
	test_expect_code 2 hermes chat --title "redis debug" -q "intruder" --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: the title .redis debug. is already used by session $id" err &&
	test "$(session_count)" = 1 &&
	! grep intruder "$HERMES_HOME/sessions/$id.json" &&
	test "$(field "$id" message_count)" = 1
'

test_expect_success '-r with an unknown ID: exit 1, a one-line message without the --create-if-missing hint' '
	mk "kept" >/dev/null &&
	test_expect_code 1 hermes chat -r 20990101_000000_abcdef -q hi >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: no session has the ID '"'"'20990101_000000_abcdef'"'"' (a short ID is 8 or more leading characters of an ID, or its last 6 hex digits); see '"'"'hermes sessions list'"'"' for IDs" >expect &&
	test_cmp expect err
'

test_expect_success 'a name with terminal escapes is echoed escaped, not obeyed' '
	esc=$(printf "\033[2Jx") &&
	test_expect_code 1 hermes chat -c "$esc" -q hi >out 2>err &&
	head -1 err >first &&
	echo "No session found matching '"'"'^[[2Jx'"'"'." >expect &&
	test_cmp expect first
'

test_expect_success 'usage errors show escape sequences from arguments escaped, not obeyed' '
	esc=$(printf "\033[31m") &&
	test_expect_code 2 hermes sessions rename a b "$esc" >out 2>err &&
	test_must_be_empty out &&
	! grep -q "$(printf "\033")" err &&
	grep -F "unexpected argument '"'^[[31m'"'" err &&
	test_expect_code 2 hermes sessions rename "$(printf "a\033]2;pwned\007")" 2>err &&
	! grep -q "$(printf "\033")" err &&
	test_expect_code 2 hermes "$(printf "%s\033[2J" --bad)" 2>err &&
	! grep -q "$(printf "\033")" err &&
	grep -F "^[[2J" err &&
	test_expect_code 2 hermes sessions list --limit "$(printf "9\033[2J")" 2>err &&
	! grep -q "$(printf "\033")" err &&
	grep -F "^[[2J" err
'

test_expect_success 'a title given with a bidi override is kept without it; an empty message is refused, nothing saved' '
	test_expect_code 2 hermes chat --no-agent --title "$(printf "\342\200\256")x" -q "" 2>err &&
	grep "^hermes: empty message; nothing to send" err &&
	! test -d "$HERMES_HOME/sessions" &&
	hermes chat --no-agent --title "$(printf "\342\200\256")x" -q "hi" -Q &&
	hermes sessions list --json >list &&
	json_get list "v[0][\"title\"]" >title &&
	echo x >expect &&
	test_cmp expect title
'

test_expect_success '-r with a title: not an ID, and the command that would continue it' '
	hermes chat -c notes --create-if-missing -q x --no-agent -Q &&
	test_expect_code 1 hermes chat -r notes -q y --no-agent 2>err &&
	grep "^hermes: no session has the ID .notes." err &&
	grep "continue it with hermes chat -c notes$" err &&
	test_expect_code 1 hermes chat -r nosuch -q y --no-agent 2>err &&
	! grep "continue it with" err
'

test_expect_success 'with no agent, the note says how to have replies: a server (config set base_url) or an agent' '
	(unset HERMES_AGENT && hermes chat -q "hello" 2>err) &&
	grep "hermes config set base_url URL" err &&
	grep "hermes config set agent CMD" err
'

test_done
