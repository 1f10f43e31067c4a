#!/bin/sh
test_description='hermes sessions show (the conversation) and current (what -c would pick, and why)'
. "$(dirname "$0")/lib.sh"

# 1767261600 is 2026-01-01 10:00 UTC.
test_expect_success 'show: the conversation, each message under its role and time' '
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /srv \
		system "be brief" user "why does it\ntime out" assistant "the timeout is 0" &&
	hermes sessions show "redis debug" >out 2>err &&
	cat >expect <<-\EOF &&
	redis debug
	id: 20260101_090000_aaaaaa  messages: 3  last active: 2026-01-01 10:00

	[system] 2026-01-01 09:00
	be brief

	[user] 2026-01-01 09:01
	why does it
	time out

	[assistant] 2026-01-01 09:02
	the timeout is 0
	EOF
	test_cmp expect out &&
	test_must_be_empty err
'

test_expect_success 'show: by ID gives the same as by title' '
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /srv user hi &&
	hermes sessions show "redis debug" >by-title &&
	hermes sessions show 20260101_090000_aaaaaa >by-id &&
	test_cmp by-title by-id
'

test_expect_success 'show: an untitled, empty session' '
	mk_session 20260101_090000_aaaaaa "" "" 1767261600 /srv &&
	hermes sessions show 20260101_090000_aaaaaa >out &&
	cat >expect <<-\EOF &&
	(untitled)
	id: 20260101_090000_aaaaaa  messages: 0  last active: 2026-01-01 10:00
	EOF
	test_cmp expect out
'

test_expect_success 'show: a session made by chat, messages in the order sent' '
	hermes chat --title notes -q first --no-agent -Q &&
	hermes chat -c notes -q second --no-agent -Q &&
	hermes sessions show notes >out &&
	grep "^\[user\] " out >roles &&
	test_line_count = 2 roles &&
	grep -v "^\[" out | sed -n "3,\$p" | grep . >bodies &&
	printf "first\nsecond\n" >expect &&
	test_cmp expect bodies
'

test_expect_success 'show --json: the session file itself' '
	hermes chat --title notes -q "say \"hi\"" --no-agent -Q &&
	id=$(session_id_by_title notes) &&
	hermes sessions show notes --json >out &&
	test_cmp "$HERMES_HOME/sessions/$id.json" out &&
	json_get out "[m[\"content\"] for m in v[\"messages\"]]" >contents &&
	echo "say \"hi\"" >expect && test_cmp expect contents
'

test_expect_success 'show and list show stored escape sequences, never send them to the terminal' '
	esc=$(printf "\033") bel=$(printf "\007") cr=$(printf "\r") &&
	hermes chat --title escapes -q "hi ${esc}]0;pwned${bel} ${esc}[31mred${cr}over" --agent "printf \"${esc}[1mbold\"" -Q >/dev/null &&
	# A hand-edited title, escapes and a tab in it (as JSON escapes).
	mk_session 20250101_000000_00cccc "bad\\u001b[2Jtitle\\ttab\\u202eevil" user 1735689600 "$TRASH" user "x" &&
	hermes sessions show escapes >out &&
	! grep "$esc" out &&
	! grep "$cr" out &&
	grep -F "hi ^[]0;pwned^G ^[[31mred^Mover" out &&
	grep -F "^[[1mbold" out &&
	hermes sessions list >out &&
	! grep "$esc" out &&
	grep -F "bad^[[2Jtitle^Itab\\u{202e}evil" out &&
	test "$(awk -F "	" "{ print NF }" out | sort -u)" = 5 &&
	# The raw text stays in the file, and in --json.
	hermes sessions show escapes --json >out &&
	grep -F "\\u001b]0;pwned" out &&
	json_get out "v[\"messages\"][0][\"content\"]" >content &&
	printf "hi ${esc}]0;pwned${bel} ${esc}[31mred${cr}over\n" >expect && test_cmp expect content &&
	# Every other place a stored title is shown.
	hermes sessions prune --older-than 30 --dry-run >out &&
	grep -F "bad^[[2Jtitle^Itab\\u{202e}evil" out &&
	hermes sessions delete 20250101_000000_00cccc --yes 2>err &&
	grep -F "bad^[[2Jtitle^Itab\\u{202e}evil" err &&
	! grep "$esc" out err &&
	# A CRLF line end from an agent is a line end, not a ^M.
	hermes chat --title crlf -q hi --agent "printf \"one\\r\\ntwo\\r\\n\"" -Q >/dev/null &&
	hermes sessions show crlf >out &&
	grep -x one out &&
	! grep -F "^M" out
'

test_expect_success 'show: no such session is the not-found text and exit 1' '
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /srv &&
	test_expect_code 1 hermes sessions show "redis" >out 2>err &&
	test_must_be_empty out &&
	verb_not_found redis "redis debug" >expect &&
	test_cmp expect err
'

test_expect_success 'show: a corrupt session file is exit 4, naming it, left untouched' '
	mkdir -p "$HERMES_HOME/sessions" &&
	f="$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" &&
	printf "{\"format\":1,\"id\":\"20260101_090000_aaaaaa\"," >"$f" &&
	cp "$f" before &&
	test_expect_code 4 hermes sessions show 20260101_090000_aaaaaa >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: $f: not a valid session file" err &&
	test_cmp before "$f"
'

test_expect_success 'show: needs exactly one name' '
	test_expect_code 2 hermes sessions show 2>err &&
	grep "^hermes: sessions show: missing NAME or ID" err &&
	test_expect_code 2 hermes sessions show redis debug 2>err &&
	grep "^hermes: sessions show: unexpected argument '"'debug'"'; quote names with spaces" err
'

test_expect_success 'current: with no sessions at all, exit 1 and say how to start' '
	test_expect_code 1 hermes sessions current >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: no session to continue; start one with '"'hermes chat'"'" >expect &&
	test_cmp expect err &&
	test_expect_code 1 hermes sessions current --json >out 2>err &&
	test_must_be_empty out &&
	test_cmp expect err
'

test_expect_success 'current: latest, when nothing is in this workspace' '
	mkdir ws &&
	mk_session 20260101_090000_aaaaaa older user 1767261600 /elsewhere &&
	mk_session 20260101_090000_bbbbbb newer user 1767348000 /elsewhere &&
	(cd ws && hermes sessions current) >out 2>err &&
	printf "20260101_090000_bbbbbb\tnewer\tlatest (the newest session)\n" >expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	(cd ws && hermes sessions current --json) >out &&
	cat >expect <<-\EOF &&
	{"id":"20260101_090000_bbbbbb","title":"newer","reason":"latest"}
	EOF
	test_cmp expect out &&
	json_valid out
'

test_expect_success 'current: workspace, the newest session under the git root' '
	mkdir -p ws/.git ws/sub &&
	mk_session 20260101_090000_aaaaaa "in ws" user 1767261600 "$TRASH/ws/sub" &&
	mk_session 20260101_090000_bbbbbb "newer elsewhere" user 1767348000 /elsewhere &&
	(cd ws && hermes sessions current) >out &&
	printf "20260101_090000_aaaaaa\tin ws\tworkspace (the newest session in this workspace)\n" >expect &&
	test_cmp expect out &&
	(cd ws/sub && hermes sessions current --json) >out &&
	cat >expect <<-\EOF &&
	{"id":"20260101_090000_aaaaaa","title":"in ws","reason":"workspace"}
	EOF
	test_cmp expect out &&
	json_valid out
'

test_expect_success 'current: breadcrumb, the session this terminal used last' '
	mk_session 20260101_090000_aaaaaa "pane three" user 1767261600 /elsewhere &&
	mk_session 20260101_090000_bbbbbb "newer" user 1767348000 "$TRASH" &&
	TMUX_PANE=%3 hermes chat -c "pane three" -q more --no-agent -Q &&
	mk_session 20260101_090000_cccccc "newest" user 1893456000 "$TRASH" &&
	TMUX_PANE=%3 hermes sessions current >out &&
	printf "20260101_090000_aaaaaa\tpane three\tbreadcrumb (this terminal used it last)\n" >expect &&
	test_cmp expect out &&
	TMUX_PANE=%3 hermes sessions current --json >out &&
	cat >expect <<-\EOF &&
	{"id":"20260101_090000_aaaaaa","title":"pane three","reason":"breadcrumb"}
	EOF
	test_cmp expect out &&
	json_valid out &&
	TMUX_PANE=%4 hermes sessions current >out &&
	printf "20260101_090000_cccccc\tnewest\tworkspace (the newest session in this workspace)\n" >expect &&
	test_cmp expect out
'

test_expect_success 'current: a breadcrumb to a deleted session is as good as none' '
	mk_session 20260101_090000_aaaaaa gone user 1767261600 /elsewhere &&
	mk_session 20260101_090000_bbbbbb stays user 1767348000 /elsewhere &&
	TMUX_PANE=%3 hermes chat -c gone -q x --no-agent -Q &&
	rm "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" &&
	TMUX_PANE=%3 hermes sessions current --json >out &&
	cat >expect <<-\EOF &&
	{"id":"20260101_090000_bbbbbb","title":"stays","reason":"latest"}
	EOF
	test_cmp expect out &&
	json_valid out
'

test_expect_success 'current names the session bare -c then continues' '
	mkdir -p ws/.git &&
	mk_session 20260101_090000_aaaaaa "in ws" user 1767261600 "$TRASH/ws" &&
	mk_session 20260101_090000_bbbbbb "elsewhere" user 1767348000 /elsewhere &&
	(cd ws && hermes sessions current --json) >out &&
	test "$(json_get out "v[\"id\"]")" = 20260101_090000_aaaaaa &&
	(cd ws && hermes chat -c -q "went here" --no-agent) 2>err &&
	printf "%s\n" "hermes: -c continues '"'"'in ws'"'"' (20260101_090000_aaaaaa), the most recent session in this workspace: no terminal is known here" \
		"session_id: 20260101_090000_aaaaaa" >expect &&
	test_cmp expect err
'

test_expect_success 'current: takes no name' '
	test_expect_code 2 hermes sessions current foo 2>err &&
	grep "^hermes: sessions current: unexpected argument '"'foo'"'" err
'

# A session whose reply is about 15 MB of Markdown (paragraphs, lists,
# headings), made by an agent that says it.
big_reply_session() {
	python3 -c "
import random
random.seed(1)
w = [\"alpha\", \"**bold**\", \"*it*\", \"\\\`code\\\`\", \"[link](http://x.y)\", \"zeta\"]
out, n = [], 0
while n < 15000000:
    p = \" \".join(random.choice(w) for _ in range(60))
    p = (\"- \" + p) if random.random() < 0.1 else p
    out.append(p)
    n += len(p) + 2
open(\"reply.md\", \"w\").write(\"\\n\\n\".join(out))
" &&
	printf "#!/bin/sh\ncat >/dev/null\ncat %s/reply.md\n" "$TRASH" >big-agent &&
	chmod +x big-agent &&
	hermes chat --agent "$TRASH/big-agent" --title big -q hi -Q >/dev/null
}

test_expect_success SCRIPT,NATIVE 'show of a 15 MB reply drawn on a terminal or into a pipe a piece at a time: in under 4 times its size, 2.7 into a pipe' '
	test -x /usr/bin/time || { echo "# /usr/bin/time missing: not measured"; exit 0; }
	big_reply_session &&
	PAGER=cat run_in_pty "/usr/bin/time -f %M -o tty.rss hermes sessions show big" >drawn &&
	grep -F "$(printf "\033")[1mbold" drawn >/dev/null &&
	/usr/bin/time -f %M -o pipe.rss hermes sessions show big >shown &&
	grep -F "$(head -c 100 reply.md)" shown >/dev/null &&
	echo "peak KiB: terminal $(cat tty.rss), pipe $(cat pipe.rss)" &&
	test "$(cat tty.rss)" -lt 60000 &&
	test "$(cat pipe.rss)" -lt 40000
'

test_done
