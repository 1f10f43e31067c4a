#!/bin/sh
test_description='a REPL that speaks REPL, in a tmux pane: did-you-mean as slash commands, Tab completion, /retry any time, the two-terminal notice, /save!'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

test_expect_success TMUX '/continue nots and /retyr: did-you-mean in slash commands, no command-line flag' '
	mk "notes on rust" >/dev/null && mk "pyconc" >/dev/null &&
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "/continue nots" && keys Enter &&
	wait_until on_screen "^/sessions lists recent ones" &&
	cat >expect <<-\EOF &&
	No session found matching '"'nots'"'.
	Did you mean: /continue notes on rust
	/sessions lists recent ones; /new nots starts one with that title.
	EOF
	screen | grep -A2 "^No session found" >actual &&
	test_cmp expect actual &&
	! on_screen -e "--create-if-missing" &&
	typed "/retyr" && keys Enter &&
	wait_until on_screen -x "Unknown command '"'/retyr'"'; did you mean /retry? Type /help for the list." &&
	typed "/new pyconc" && keys Enter &&
	wait_until on_screen "choose another, or continue it with /continue pyconc$" &&
	! on_screen "hermes chat -c" &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX 'Tab completes slash commands and titles, listing them when several fit' '
	mk "redis debugging" >/dev/null && mk "redis cluster" >/dev/null && mk "pycon talk" >/dev/null &&
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "/conti" && keys Tab &&
	wait_until ready "new session> /continue" &&
	typed "py" && keys Tab &&
	wait_until ready "new session> /continue pycon talk" &&
	keys C-u && typed "/continue re" && keys Tab &&
	wait_until ready "new session> /continue redis" &&
	keys Tab &&
	wait_until on_screen -x "redis cluster   redis debugging" &&
	wait_until ready "new session> /continue redis" &&
	typed "d" && keys Tab &&
	wait_until ready "new session> /continue redis debugging" &&
	keys Enter &&
	wait_until ready "redis debugging>" &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX 'slash arguments are read as a shell reads words: quotes group, and no title keeps them' '
	mk "api design" >/dev/null &&
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "/new \"quoted title\"" && keys Enter &&
	wait_until ready "quoted title>" &&
	typed "first" && keys Enter &&
	wait_until ready "quoted title>" &&
	typed "/continue \"api design\"" && keys Enter &&
	wait_until ready "api design>" &&
	typed "/continue '"'"'quoted title'"'"'" && keys Enter &&
	wait_until ready "quoted title>" &&
	typed "/title it\\'"'"'s \"done\"" && keys Enter &&
	wait_until on_screen "^renamed .* to '"'"'it'"'"'s done'"'"'$" &&
	typed "/new \"open" && keys Enter &&
	wait_until on_screen "^hermes: /new \[TITLE\]: a quote (\") left open$" &&
	keys C-d && hermes_exited 0 &&
	hermes sessions list >list &&
	grep "	it.s done	" list &&
	! grep "\"" list
'

test_expect_success TMUX '/retry any time: the old reply is kept marked replaced, and not sent again' '
	use_fake_agent &&
	cat >agent.sh <<-EOF &&
	#!/bin/sh
	n=\$(cat "$TRASH/n" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$TRASH/n"
	cat >"$TRASH/input.\$n"
	echo "answer \$n"
	EOF
	chmod +x agent.sh &&
	start_pane &&
	start_hermes "chat --agent $TRASH/agent.sh" &&
	wait_until ready "new session>" &&
	typed "question" && keys Enter &&
	wait_until on_screen -x "answer 1" &&
	wait_until ready "question>" &&
	typed "/retry" && keys Enter &&
	wait_until on_screen -x "answer 2" &&
	wait_until ready "question>" &&
	S=$(session_id_by_title question) &&
	printf "%s\n" "user: question" "assistant: answer 1" "assistant: answer 2" >expect &&
	messages "$S" >actual && test_cmp expect actual &&
	grep -F "\"content\":\"answer 1\",\"ts\":" "$HERMES_HOME/sessions/$S.json" | grep -F "\"replaced\":true}" &&
	! grep "answer 1" input.2 &&
	hermes sessions show "$S" >shown &&
	grep "^\[assistant, replaced\] " shown &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX 'two terminals on one session: the other one'"'"'s messages are said, shown, and in Up history' '
	S=$(mk shared) &&
	start_pane &&
	start_hermes "chat -c shared --no-agent" &&
	wait_until ready "shared>" &&
	hermes chat -c shared -q "from the other pane" --no-agent -Q &&
	hermes chat -c shared -q "and again" --no-agent -Q &&
	typed "mine" && keys Enter &&
	wait_until on_screen -x "2 new messages from another terminal:" &&
	wait_until ready "shared>" &&
	screen | grep -A4 "^2 new messages" | grep -v "^\[" >actual &&
	printf "%s\n" "2 new messages from another terminal:" "from the other pane" "and again" >expect &&
	sed "s/ *\$//" actual >actual.trimmed &&
	test_cmp expect actual.trimmed &&
	keys Up && wait_until ready "shared> mine" &&
	keys Up && wait_until ready "shared> and again" &&
	keys C-u C-d && hermes_exited 0
'

test_expect_success TMUX 'no news of its own changes: /system and /compact after a reply are not another terminal'"'"'s' '
	agent answer.sh "cat >/dev/null; echo the answer" &&
	start_pane &&
	start_hermes "chat --agent $TRASH/answer.sh" &&
	wait_until ready "new session>" &&
	typed "/new repro two" && keys Enter &&
	wait_until ready "repro two>" &&
	typed "first" && keys Enter &&
	wait_until on_screen -x "the answer" &&
	wait_until ready "repro two>" &&
	typed "/system be brief" && keys Enter &&
	wait_until on_screen "^System prompt set for this session" &&
	wait_until ready "repro two>" &&
	typed "second" && keys Enter &&
	wait_until screen_count "^the answer" 2 &&
	wait_until ready "repro two>" &&
	typed "/compact 1" && keys Enter &&
	wait_until on_screen "summary" &&
	wait_until ready "repro two>" &&
	typed "third" && keys Enter &&
	wait_until screen_count "^the answer" 3 &&
	wait_until ready "repro two>" &&
	! on_screen "from another terminal" &&
	hermes chat -c "repro two" -q "from elsewhere" --no-agent -Q &&
	typed "fourth" && keys Enter &&
	wait_until screen_count "^the answer" 4 &&
	screen | grep -n -e "^1 new message from another terminal:" -e "^from elsewhere" -e "^the answer" | tail -n 3 >order &&
	sed "s/^[0-9]*://" order >actual &&
	printf "%s\n" "1 new message from another terminal:" "from elsewhere" "the answer" >expect &&
	test_cmp expect actual &&
	keys C-d && hermes_exited 0
'

# A new session's system prompt (-s, a role's, config.toml's, /system
# before the first message) is written with that message: this chat's own.
test_expect_success TMUX 'no news of a new session'"'"'s own system prompt: -s, --role, /system after /new' '
	agent answer.sh "cat >/dev/null; echo the answer" &&
	mkdir -p "$HERMES_HOME/roles" &&
	printf "%s\n" "You review code." >"$HERMES_HOME/roles/review.md" &&
	start_pane &&
	start_hermes "chat -s \"be brief\" --agent $TRASH/answer.sh" &&
	wait_until ready "new session>" &&
	typed "hello" && keys Enter &&
	wait_until on_screen -x "the answer" &&
	wait_until ready "hello>" &&
	typed "again" && keys Enter &&
	wait_until screen_count "^the answer" 2 &&
	wait_until ready "hello>" &&
	typed "/new" && keys Enter &&
	wait_until ready "new session>" &&
	typed "/system be terse" && keys Enter &&
	wait_until on_screen -x "The new session will start with this system prompt." &&
	typed "next" && keys Enter &&
	wait_until screen_count "^the answer" 3 &&
	wait_until ready "next>" &&
	typed "more" && keys Enter &&
	wait_until screen_count "^the answer" 4 &&
	wait_until ready "next>" &&
	keys C-d && hermes_exited 0 && rm hermes.rc &&
	start_hermes "chat --role review --agent $TRASH/answer.sh" &&
	wait_until ready "new session>" &&
	typed "patch" && keys Enter &&
	wait_until screen_count "^the answer" 5 &&
	wait_until ready "patch>" &&
	typed "and more" && keys Enter &&
	wait_until screen_count "^the answer" 6 &&
	wait_until ready "patch>" &&
	! on_screen "from another terminal" &&
	printf "%s\n" "system: be brief" "user: hello" "assistant: the answer" "user: again" "assistant: the answer" >expect &&
	messages "$(session_id_by_title hello)" >actual && test_cmp expect actual &&
	messages "$(session_id_by_title next)" | head -n 1 >actual &&
	echo "system: be terse" >expect && test_cmp expect actual &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX 'a failed send is joined only by this chat: another terminal'"'"'s message in between is shown as news and never rewritten' '
	agent fail.sh "echo down >&2; exit 7" &&
	start_pane &&
	start_hermes "chat --title disks --agent $TRASH/fail.sh" &&
	wait_until ready "disks>" &&
	typed "message A" && keys Enter &&
	wait_until screen_count "^\[the message is kept; /retry sends it again, or type more to add to it\]" 1 &&
	wait_until ready "disks>" &&
	S=$(session_id_by_title disks) &&
	hermes chat -c disks -q "cron: disk 91% full" --no-agent -Q &&
	grep -o "\"content\":\"cron: disk 91% full\",\"ts\":[0-9.]*" "$HERMES_HOME/sessions/$S.json" >cron.before &&
	typed "message B" && keys Enter &&
	wait_until screen_count "^\[the message is kept; /retry sends it again, or type more to add to it\]" 2 &&
	wait_until ready "disks>" &&
	printf "%s\n" "user: message A" "user: cron: disk 91% full" "user: message B" >expect &&
	has_messages "$S" expect &&
	grep -o "\"content\":\"cron: disk 91% full\",\"ts\":[0-9.]*" "$HERMES_HOME/sessions/$S.json" >cron.after &&
	test_cmp cron.before cron.after &&
	# Said before the send: the news comes before the second failure.
	screen | grep -n -e "^1 new message from another terminal:" -e "^cron: disk 91% full" -e "^\[the message is kept" >order &&
	sed "s/:.*//" order >lines &&
	test_line_count = 4 lines &&
	sed -n "2p;3p" order | grep -c -e "new message from another" -e "^[0-9]*:cron: disk" >news &&
	echo 2 >expect.news && test_cmp expect.news news &&
	# Its own unanswered message, still the last: joined.
	typed "message C" && keys Enter &&
	wait_until screen_count "^\[the message is kept; /retry sends it again, or type more to add to it\]" 3 &&
	printf "%s\n" "user: message A" "user: cron: disk 91% full" "user: message B\\n\\nmessage C" >expect &&
	wait_until has_messages "$S" expect &&
	wait_until ready "disks>" &&
	keys C-d && hermes_exited 0
'

test_expect_success TMUX '/save refuses to replace a file; /save! replaces it' '
	echo precious >out.md &&
	start_pane &&
	start_hermes "chat --no-agent" &&
	wait_until ready "new session>" &&
	typed "hello" && keys Enter &&
	wait_until ready "hello>" &&
	typed "/save out.md" && keys Enter &&
	wait_until on_screen "out.md exists; nothing was written (/save! out.md replaces it)" &&
	echo precious >expect && test_cmp expect out.md &&
	typed "/save! out.md" && keys Enter &&
	wait_until on_screen -x "Saved to out.md." &&
	grep "^hello$" out.md &&
	keys C-d && hermes_exited 0
'

test_done
