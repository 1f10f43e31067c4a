#!/bin/sh
test_description='hermes chat: which session each form of -c / -r picks, and the breadcrumb it leaves'
. "$(dirname "$0")/lib.sh"

# crumb N: the session the breadcrumb of tmux pane %N points at.
crumb() {
	sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p' "$HERMES_HOME/terminal-sessions/tmux_pane--$1.$MACHINE.json"
}

# A workspace: a git work tree if git is here, else a bare .git directory
# (all hermes looks for).
make_repo() {
	mkdir -p "$1" &&
	if command -v git >/dev/null 2>&1; then
		git init -q "$1"
	else
		mkdir "$1/.git"
	fi
}

# took ID: stderr (err) names session ID as the one taken: its session_id
# line, and, where bare -c fell back from this terminal's session, the line
# that says which it took and why (t1600 checks its words).
took() {
	grep -v "^hermes: -c continues .* ($1), " err >rest &&
	echo "session_id: $1" >expect && test_cmp expect rest
}

test_expect_success 'no -c or -r: every chat starts a new session' '
	hermes chat -q one --no-agent -Q &&
	hermes chat -q two --no-agent -Q &&
	test "$(session_count)" = 2 &&
	a=$(session_id_by_title one) && b=$(session_id_by_title two) &&
	test -n "$a" && test -n "$b" && test "$a" != "$b" &&
	echo "user: one" >expect && messages "$a" >actual && test_cmp expect actual &&
	echo "user: two" >expect && messages "$b" >actual && test_cmp expect actual
'

test_expect_success 'no -c or -r: a new session even when this terminal has one' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk first) &&
	hermes chat -q second --no-agent 2>err &&
	test "$(session_count)" = 2 &&
	b=$(session_id_by_title second) &&
	test "$b" != "$a" &&
	took "$b" &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(crumb 1)" = "$b"
'

test_expect_success 'a new session records where it was started, with an auto title' '
	mkdir -p proj/sub && cd proj/sub &&
	hermes chat -q "why does BRPOPLPUSH time out" --no-agent -Q &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	test "$(field "$id" cwd)" = "$(pwd -P)" &&
	test "$(field "$id" title)" = "why does BRPOPLPUSH time out" &&
	test "$(field "$id" title_source)" = auto
'

test_expect_success 'bare -c continues the session of this terminal breadcrumb' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	b=$(export TMUX_PANE=%2 && mk beta) &&
	test "$(crumb 1)" = "$a" && test "$(crumb 2)" = "$b" &&
	hermes chat -c -q "more alpha" --no-agent >out 2>err &&
	test_must_be_empty out &&
	took "$a" &&
	cat >expect <<-\EOF &&
	user: about alpha
	user: more alpha
	EOF
	messages "$a" >actual && test_cmp expect actual &&
	test "$(field "$b" message_count)" = 1 &&
	test "$(session_count)" = 2
'

test_expect_success 'two panes each continue their own session' '
	a=$(export TMUX_PANE=%1 && mk alpha) &&
	b=$(export TMUX_PANE=%2 && mk beta) &&
	env TMUX_PANE=%1 hermes chat -c -q a2 --no-agent -Q &&
	env TMUX_PANE=%2 hermes chat -c -q b2 --no-agent -Q &&
	env TMUX_PANE=%1 hermes -c -q a3 --no-agent -Q &&
	printf "user: about alpha\nuser: a2\nuser: a3\n" >expect &&
	messages "$a" >actual && test_cmp expect actual &&
	printf "user: about beta\nuser: b2\n" >expect &&
	messages "$b" >actual && test_cmp expect actual &&
	test "$(crumb 1)" = "$a" && test "$(crumb 2)" = "$b"
'

test_expect_success 'bare -c: the breadcrumb wins over a newer session in this workspace' '
	make_repo ws && mkdir elsewhere &&
	a=$(cd elsewhere && export TMUX_PANE=%1 && mk from-elsewhere) &&
	b=$(cd ws && mk newer-in-ws) &&
	(cd ws && env TMUX_PANE=%1 hermes chat -c -q follow --no-agent 2>../err) &&
	took "$a" &&
	test "$(field "$a" message_count)" = 2 &&
	test "$(field "$b" message_count)" = 1
'

test_expect_success 'bare -c without a breadcrumb: newest session inside this git workspace' '
	make_repo ws && mkdir -p ws/sub ws/other/deep elsewhere &&
	a=$(cd ws && mk ws-old) &&
	b=$(cd ws/sub && mk ws-new) &&
	c=$(cd elsewhere && mk newest-overall) &&
	(cd ws/other/deep && hermes chat -c -q follow --no-agent >../../../out 2>../../../err) &&
	test_must_be_empty out &&
	took "$b" &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(field "$b" message_count)" = 2 &&
	test "$(field "$c" message_count)" = 1
'

test_expect_success 'bare -c without a breadcrumb, outside any git tree: the workspace is the directory' '
	mkdir -p plain/sub elsewhere &&
	a=$(cd plain/sub && mk inside-plain) &&
	b=$(cd elsewhere && mk newest-overall) &&
	(cd plain && hermes chat -c -q follow --no-agent 2>../err) &&
	took "$a" &&
	test "$(field "$a" message_count)" = 2 &&
	test "$(field "$b" message_count)" = 1
'

test_expect_success 'bare -c: a sibling directory sharing a name prefix is not inside the workspace' '
	make_repo ws && mkdir ws2 ws-old &&
	a=$(cd ws && mk in-ws) &&
	b=$(cd ws2 && mk in-ws2) &&
	c=$(cd ws-old && mk in-ws-old) &&
	(cd ws && hermes chat -c -q follow --no-agent 2>../err) &&
	took "$a"
'

test_expect_success 'bare -c with no session in this workspace: the newest of all' '
	make_repo ws && mkdir -p one two empty &&
	a=$(cd one && mk older) &&
	b=$(cd two && mk newest) &&
	(cd ws && hermes chat -c -q "from ws" --no-agent 2>../err) &&
	took "$b" &&
	(cd empty && hermes chat -c -q "from empty" --no-agent -Q) &&
	printf "user: about newest\nuser: from ws\nuser: from empty\n" >expect &&
	messages "$b" >actual && test_cmp expect actual &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(session_count)" = 2
'

test_expect_success 'bare -c: a breadcrumb to a deleted session falls back to the workspace' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk kept) &&
	b=$(mk doomed) &&
	test "$(crumb 1)" = "$b" &&
	rm "$HERMES_HOME/sessions/$b.json" &&
	hermes chat -c -q back --no-agent 2>err &&
	took "$a" &&
	test "$(session_count)" = 1 &&
	test "$(crumb 1)" = "$a"
'

test_expect_success SETSID 'bare -c: a breadcrumb left by an earlier terminal with the same name is ignored' '
	make_repo ws && mkdir elsewhere &&
	a=$(cd elsewhere && export TMUX_PANE=%1 && mk old-pane) &&
	b=$(cd ws && mk in-ws) &&
	test "$(crumb 1)" = "$a" &&
	(cd ws && env TMUX_PANE=%1 setsid hermes chat -c -q "new pane" --no-agent 2>../err) &&
	took "$b" &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(field "$b" message_count)" = 2 &&
	test "$(crumb 1)" = "$b"
'

test_expect_success '-c ID continues the session with that ID' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) && b=$(mk beta) &&
	test "$(crumb 1)" = "$b" &&
	hermes chat -c "$a" -q "by id" --no-agent >out 2>err &&
	test_must_be_empty out &&
	took "$a" &&
	printf "user: about alpha\nuser: by id\n" >expect &&
	messages "$a" >actual && test_cmp expect actual &&
	test "$(session_count)" = 2 &&
	test "$(crumb 1)" = "$a"
'

test_expect_success '-c TITLE continues the session with exactly that title' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk "redis debug") && b=$(mk "redis") && c=$(mk "redis debug 2") &&
	hermes chat -c "redis debug" -q "by title" --no-agent 2>err &&
	took "$a" &&
	hermes chat --continue redis -q "short title" --no-agent -Q &&
	test "$(field "$a" message_count)" = 2 &&
	test "$(field "$b" message_count)" = 2 &&
	test "$(field "$c" message_count)" = 1 &&
	test "$(session_count)" = 3 &&
	test "$(crumb 1)" = "$b"
'

test_expect_success '-c NAME finds what -c NAME --create-if-missing created, whatever its spacing' '
	hermes chat -c "  spaced   out " --create-if-missing -q one --no-agent -Q &&
	id=$(session_id_by_title "spaced out") && test -n "$id" &&
	hermes chat -c "  spaced   out " -q two --no-agent -Q &&
	hermes chat -c "spaced out" -q three --no-agent -Q &&
	hermes chat -c "  spaced   out " --create-if-missing -q four --no-agent -Q &&
	test "$(session_count)" = 1 &&
	test "$(field "$id" message_count)" = 4
'

test_expect_success '-c NAME: an ID match comes before a title match' '
	a=$(mk alpha) &&
	b=$(mk placeholder) &&
	# hermes refuses such a title now; an older hermes, or an edit, made it.
	sed -i "s/\"title\":\"placeholder\"/\"title\":\"$a\"/" "$HERMES_HOME/sessions/$b.json" &&
	test "$(field "$b" title)" = "$a" &&
	hermes chat -c "$a" -q which --no-agent 2>err &&
	took "$a" &&
	test "$(field "$a" message_count)" = 2 &&
	test "$(field "$b" message_count)" = 1
'

test_expect_success '-c NAME --create-if-missing creates the session titled NAME' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	other=$(mk other) &&
	hermes chat -c "redis debug" --create-if-missing -q "first note" --no-agent >out 2>err &&
	test_must_be_empty out &&
	test "$(session_count)" = 2 &&
	id=$(session_id_by_title "redis debug") && test -n "$id" &&
	took "$id" &&
	test "$(field "$id" title)" = "redis debug" &&
	test "$(field "$id" title_source)" = user &&
	test "$(field "$id" message_count)" = 1 &&
	echo "user: first note" >expect && messages "$id" >actual && test_cmp expect actual &&
	hermes sessions list --json >list &&
	json_get list "[(s[\"title\"], s[\"title_source\"]) for s in v if s[\"id\"] == a[0]]" "$id" >actual &&
	echo "[\"redis debug\",\"user\"]" >expect && test_cmp expect actual &&
	test "$(crumb 1)" = "$id"
'

test_expect_success '-c NAME --create-if-missing continues NAME when it exists' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	hermes chat -c nightly --create-if-missing -q "run 1" --no-agent -Q &&
	id=$(session_id_by_title nightly) &&
	other=$(mk other) &&
	test "$(crumb 1)" = "$other" &&
	hermes chat -c nightly --create-if-missing -q "run 2" --no-agent 2>err &&
	took "$id" &&
	hermes chat -c "$id" --create-if-missing -q "run 3" --no-agent -Q &&
	test "$(session_count)" = 2 &&
	printf "user: run 1\nuser: run 2\nuser: run 3\n" >expect &&
	messages "$id" >actual && test_cmp expect actual &&
	test "$(crumb 1)" = "$id"
'

test_expect_success '-c NAME --create-if-missing finds an automatic title too, and keeps it automatic' '
	hermes chat -q nightly --no-agent -Q &&
	id=$(session_id_by_title nightly) &&
	test "$(field "$id" title_source)" = auto &&
	hermes chat -c nightly --create-if-missing -q again --no-agent -Q &&
	test "$(session_count)" = 1 &&
	test "$(field "$id" message_count)" = 2 &&
	test "$(field "$id" title_source)" = auto
'

test_expect_success '-r ID resumes the session with exactly that ID' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) && b=$(mk beta) &&
	hermes chat -r "$a" -q resumed --no-agent >out 2>err &&
	test_must_be_empty out &&
	took "$a" &&
	hermes chat --resume "$a" -q again --no-agent -Q &&
	printf "user: about alpha\nuser: resumed\nuser: again\n" >expect &&
	messages "$a" >actual && test_cmp expect actual &&
	test "$(field "$b" message_count)" = 1 &&
	test "$(crumb 1)" = "$a"
'

test_expect_success '-r TITLE is not found: -r takes IDs only' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	test_expect_code 1 hermes chat -r alpha -q lost --no-agent >out 2>err &&
	test_must_be_empty out &&
	grep "alpha" err &&
	test "$(field "$a" message_count)" = 1 &&
	test "$(session_count)" = 1
'

test_expect_success '-r with less than a short ID, or anything but an ID, is not found' '
	a=$(mk alpha) &&
	prefix=$(echo "$a" | cut -c1-7) &&
	test_expect_code 1 hermes chat -r "$prefix" -q lost --no-agent >out 2>err &&
	test_must_be_empty out &&
	test -s err &&
	test_expect_code 1 hermes chat -r "$a.json" -q lost --no-agent >out 2>err &&
	test_must_be_empty out &&
	test_expect_code 1 hermes chat -r " $a" -q lost --no-agent >out 2>err &&
	test_must_be_empty out &&
	test "$(field "$a" message_count)" = 1
'

test_expect_success 'a failed -c NAME leaves the breadcrumb where it was' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	cp "$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json" crumb.before &&
	test_expect_code 1 hermes chat -c nosuch -q x --no-agent 2>err &&
	test_expect_code 1 hermes chat -r 20200101_000000_abcdef -q x --no-agent 2>err &&
	test_cmp crumb.before "$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json"
'

test_expect_success 'the breadcrumb records the session, the directory and the time' '
	mkdir dir && cd dir &&
	TMUX_PANE=%7 && export TMUX_PANE &&
	hermes chat -q hi --no-agent 2>err &&
	id=$(sed -n "s/^session_id: //p" err) &&
	test "$(crumb 7)" = "$id" &&
	f="$HERMES_HOME/terminal-sessions/tmux_pane--7.$MACHINE.json" &&
	grep "\"cwd\":\"$(pwd -P)\"" "$f" &&
	grep "\"ts\":[0-9]" "$f" &&
	grep "\"leader\":" "$f"
'

test_expect_success 'bare -c: a garbled breadcrumb is ignored, then rewritten' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	printf "{\"session_id\":" >"$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json" &&
	hermes chat -c -q again --no-agent >out 2>err &&
	test_must_be_empty out &&
	took "$a" &&
	test "$(crumb 1)" = "$a"
'

test_expect_success 'bare -c: a breadcrumb naming something that is not an ID is ignored' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	cp "$HERMES_HOME/sessions/$a.json" "$HERMES_HOME/sessions/../evil.json" &&
	sed "s/\"session_id\":\"[^\"]*\"/\"session_id\":\"..\/evil\"/" \
		"$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json" >crumb.tmp &&
	mv crumb.tmp "$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json" &&
	grep "\"session_id\":\"../evil\"" "$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json" &&
	b=$(export TMUX_PANE=%2 && mk newer) &&
	hermes chat -c -q again --no-agent 2>err &&
	took "$b"
'

test_expect_success 'a breadcrumb that cannot be written does not fail the chat' '
	TMUX_PANE=%1 && export TMUX_PANE &&
	a=$(mk alpha) &&
	rm -r "$HERMES_HOME/terminal-sessions" &&
	echo "in the way" >"$HERMES_HOME/terminal-sessions" &&
	hermes chat -c alpha -q again --no-agent >out 2>err &&
	test_must_be_empty out &&
	took "$a" &&
	hermes chat -q new --no-agent -Q &&
	hermes chat -c -q "bare c" --no-agent -Q &&
	test "$(field "$a" message_count)" = 2 &&
	test "$(field "$(session_id_by_title new)" message_count)" = 2 &&
	echo "in the way" >expect && test_cmp expect "$HERMES_HOME/terminal-sessions"
'

test_expect_success 'without a terminal identity no breadcrumb is written' '
	hermes chat -q hi --no-agent -Q &&
	hermes chat -c -q again --no-agent -Q &&
	test "$(session_count)" = 1 &&
	{
		! test -e "$HERMES_HOME/terminal-sessions" ||
		test -z "$(ls "$HERMES_HOME/terminal-sessions")"
	}
'

test_done
