#!/bin/sh
test_description='hermes sessions export (json, jsonl, markdown, -o) and import'
. "$(dirname "$0")/lib.sh"

# 1767261600 is 2026-01-01 10:00 UTC. Created in the order b, a.
two_sessions () {
	mk_session 20260101_090000_aaaaaa "redis debug" user 1767261600 /srv \
		user "why?" assistant "because" &&
	mk_session 20251231_090000_bbbbbb "hello" auto 1767348000 /home user "hello"
}

# Sessions the way chat makes them: real, fractional times.
chat_sessions () {
	hermes chat -q "first question" --no-agent -Q &&
	hermes chat --title "with \"quotes\" and \\ and ünïcode" -q "line one
line two" --no-agent -Q &&
	hermes chat -c "a thread" --create-if-missing -q one --no-agent -Q &&
	hermes chat -c "a thread" -q two --agent "echo reply" -Q >/dev/null
}

SA='{"format":1,"id":"20260101_090000_aaaaaa","title":"redis debug","title_source":"user","created_at":1767258000.0,"updated_at":1767261600.0,"cwd":"/srv","message_count":2,"preview":"why?","messages":[{"role":"user","content":"why?","ts":1767258000.0},{"role":"assistant","content":"because","ts":1767258060.0}]}'
SB='{"format":1,"id":"20251231_090000_bbbbbb","title":"hello","title_source":"auto","created_at":1767344400.0,"updated_at":1767348000.0,"cwd":"/home","message_count":1,"preview":"hello","messages":[{"role":"user","content":"hello","ts":1767344400.0}]}'

test_expect_success 'export: a JSON array of every session, oldest ID first' '
	two_sessions &&
	hermes sessions export >out 2>err &&
	printf "[\n%s,\n%s\n]\n" "$SB" "$SA" >expect &&
	test_cmp expect out &&
	test_must_be_empty err
'

test_expect_success 'export --format jsonl: one session a line' '
	two_sessions &&
	hermes sessions export --format jsonl >out &&
	printf "%s\n%s\n" "$SB" "$SA" >expect &&
	test_cmp expect out
'

test_expect_success 'export --format markdown: readable, roles as headings' '
	two_sessions &&
	hermes sessions export --format markdown >out &&
	cat >expect <<-\EOF &&
	# hello

	- id: `20251231_090000_bbbbbb`
	- created: 2026-01-02 09:00:00
	- last active: 2026-01-02 10:00:00
	- messages: 1

	## user (2026-01-02 09:00:00)

	hello

	---

	# redis debug

	- id: `20260101_090000_aaaaaa`
	- created: 2026-01-01 09:00:00
	- last active: 2026-01-01 10:00:00
	- messages: 2

	## user (2026-01-01 09:00:00)

	why?

	## assistant (2026-01-01 09:01:00)

	because
	EOF
	test_cmp expect out &&
	hermes sessions export -f md >out2 &&
	test_cmp out out2
'

test_expect_success 'export NAME...: the named sessions in the order given, each once' '
	two_sessions &&
	hermes sessions export "redis debug" hello 20260101_090000_aaaaaa --format jsonl >out &&
	printf "%s\n%s\n" "$SA" "$SB" >expect &&
	test_cmp expect out
'

test_expect_success 'export of an empty store' '
	hermes sessions export >out &&
	echo "[]" >expect &&
	test_cmp expect out &&
	hermes sessions export --format jsonl >out &&
	test_must_be_empty out &&
	! test -e "$HERMES_HOME"
'

test_expect_success 'export: a name that matches nothing exports nothing, exit 1' '
	two_sessions &&
	test_expect_code 1 hermes sessions export hello nosuch >out 2>err &&
	test_must_be_empty out &&
	head -n 1 err >first &&
	verb_not_found nosuch >expect &&
	test_cmp expect first
'

test_expect_success 'export: an unknown format is a usage error' '
	test_expect_code 2 hermes sessions export --format yaml 2>err &&
	grep "^hermes: --format must be json, jsonl or markdown, not '"'yaml'"'" err
'

test_expect_success 'export -o FILE: the same bytes as stdout, mode 0600, no temporary left' '
	two_sessions &&
	mkdir dir &&
	hermes sessions export --format jsonl >expect &&
	(umask 000 && hermes sessions export --format jsonl -o dir/all.jsonl) >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err &&
	test_cmp expect dir/all.jsonl &&
	test "$(file_mode dir/all.jsonl)" = 600 &&
	ls -A dir >files &&
	echo all.jsonl >expect &&
	test_cmp expect files
'

test_expect_success 'export -o refuses an existing file; with --force replaces it whole (it is renamed into place)' '
	two_sessions &&
	seq 1 5000 >big &&
	ln big big.link &&
	test_expect_code 2 hermes sessions export hello --format jsonl -o big 2>err &&
	echo "hermes: ./big exists; nothing was written (add --force to replace it)" >expect &&
	test_cmp expect err &&
	test "$(wc -l <big)" -eq 5000 &&
	hermes sessions export hello --format jsonl -o big --force &&
	printf "%s\n" "$SB" >expect &&
	test_cmp expect big &&
	test "$(wc -l <big.link)" -eq 5000
'

test_expect_success 'export -o: a failed export leaves the old file alone' '
	two_sessions &&
	echo precious >keep &&
	test_expect_code 1 hermes sessions export nosuch -o keep 2>err &&
	echo precious >expect &&
	test_cmp expect keep
'

test_expect_success 'export -o: a named session that breaks halfway leaves the old file whole, no temporary' '
	two_sessions &&
	printf "{\"format\":1,\"id\":\"20260102_090000_cccccc\",\"title\":\"c\",\"messages\":[\n{\"role\":\"user\"\n]}\n" \
		>"$HERMES_HOME/sessions/20260102_090000_cccccc.json" &&
	mkdir dir &&
	echo precious >dir/all.json &&
	test_expect_code 4 hermes sessions export hello 20260102_090000_cccccc "redis debug" \
		-o dir/all.json --force 2>err &&
	grep "^hermes: .*/sessions/20260102_090000_cccccc.json: not a valid session file" err &&
	echo precious >expect &&
	test_cmp expect dir/all.json &&
	ls -A dir >files &&
	echo all.json >expect &&
	test_cmp expect files
'

test_expect_success 'export -o a directory, or into a missing one, says so' '
	two_sessions &&
	mkdir dir &&
	test_expect_code 2 hermes sessions export -o dir 2>err &&
	grep "^hermes: dir is a directory; give a file name" err &&
	test_expect_code 4 hermes sessions export -o nodir/x.json 2>err &&
	echo "hermes: cannot write nodir/x.json: no directory nodir" >expect &&
	test_cmp expect err &&
	! test -e nodir
'

test_expect_success 'import: sessions from jsonl, counted' '
	printf "%s\n%s\n" "$SB" "$SA" >in.jsonl &&
	hermes sessions import in.jsonl >out 2>err &&
	test_must_be_empty out &&
	echo "imported 2 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2 &&
	hermes sessions show "redis debug" >shown &&
	grep "^because$" shown
'

test_expect_success 'export, import into an empty HERMES_HOME, export: identical' '
	chat_sessions &&
	hermes sessions export --format jsonl -o one.jsonl &&
	hermes sessions export >one.json &&
	hermes sessions export --format markdown >one.md &&
	HERMES_HOME="$TRASH/other" hermes sessions import one.jsonl 2>err &&
	echo "imported 3 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	HERMES_HOME="$TRASH/other" hermes sessions export --format jsonl >two.jsonl &&
	HERMES_HOME="$TRASH/other" hermes sessions export >two.json &&
	HERMES_HOME="$TRASH/other" hermes sessions export --format markdown >two.md &&
	test_cmp one.jsonl two.jsonl &&
	test_cmp one.json two.json &&
	test_cmp one.md two.md &&
	hermes sessions list >list1 &&
	HERMES_HOME="$TRASH/other" hermes sessions list >list2 &&
	test_cmp list1 list2
'

test_expect_success 'import from stdin with -' '
	printf "%s\n" "$SA" | hermes sessions import - 2>err &&
	echo "imported 1 session, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 1
'

test_expect_success 'import: existing IDs are skipped and counted, never overwritten' '
	two_sessions &&
	hermes sessions export --format jsonl >all.jsonl &&
	hermes sessions rename "redis debug" "kept title" 2>/dev/null &&
	cp "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" before &&
	mk_session 20260101_090000_cccccc third user 1767434400 /srv &&
	hermes sessions export third --format jsonl >>all.jsonl &&
	rm "$HERMES_HOME/sessions/20260101_090000_cccccc.json" &&
	hermes sessions import all.jsonl 2>err &&
	echo "imported 1 session, skipped 2 that already existed" >expect &&
	test_cmp expect err &&
	test_cmp before "$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" &&
	hermes sessions import all.jsonl 2>err &&
	echo "imported 0 sessions, skipped 3 that already existed" >expect &&
	test_cmp expect err
'

test_expect_success 'import: a title another session holds gets a suffix' '
	printf "%s\n" "$SA" >in.jsonl &&
	hermes chat --title "redis debug" -q mine --no-agent -Q &&
	hermes sessions import in.jsonl 2>err &&
	echo "imported 1 session, skipped 0 that already existed, renamed 1 whose title was taken" >expect &&
	test_cmp expect err &&
	hermes sessions list --json >list &&
	json_get list "[s[\"title\"] for s in v if s[\"id\"] == \"20260101_090000_aaaaaa\"]" >title &&
	echo "redis debug (2)" >expect && test_cmp expect title
'

test_expect_success 'import: a damaged (truncated) line is named and skipped, the rest imported, exit 2' '
	printf "%s\n%s\n" "$SB" "{\"format\":1,\"id\":" >bad.jsonl &&
	printf "%s\n" "$SA" >>bad.jsonl &&
	test_expect_code 2 hermes sessions import bad.jsonl >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	imported 2 sessions, skipped 0 that already existed
	hermes: warning: line 2 is damaged (expected a value at byte 17); skipped
	hermes: bad.jsonl: 1 damaged line skipped; the rest was imported
	EOF
	test_cmp expect err &&
	test "$(session_count)" = 2
'

test_expect_success 'import: a line that is JSON but not a session imports nothing (exit 2)' '
	printf "%s\n%s\n" "$SB" "{\"format\":1,\"id\":1}" >bad.jsonl &&
	printf "%s\n" "$SA" >>bad.jsonl &&
	test_expect_code 2 hermes sessions import bad.jsonl >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: bad.jsonl:2: not a hermes export (.*); nothing was imported$" err &&
	test_line_count = 1 err &&
	test "$(session_count)" = 0
'

test_expect_success 'import: blank lines are fine and still counted as lines' '
	printf "\n%s\n\n{oops}\n" "$SA" >bad.jsonl &&
	test_expect_code 2 hermes sessions import bad.jsonl 2>err &&
	grep "^hermes: warning: line 4 is damaged" err &&
	test "$(session_count)" = 1 &&
	rm -r "$HERMES_HOME" &&
	printf "\n%s\n\n" "$SA" >ok.jsonl &&
	hermes sessions import ok.jsonl &&
	test "$(session_count)" = 1
'

test_expect_success 'import: an ID that is not an ID (a path) is refused by line, nothing written' '
	printf "%s\n" "$SA" >bad.jsonl &&
	echo "{\"format\":1,\"id\":\"../../escape\",\"messages\":[]}" >>bad.jsonl &&
	test_expect_code 2 hermes sessions import bad.jsonl 2>err &&
	echo "hermes: bad.jsonl:2: invalid session id '"'../../escape'"'; nothing was imported" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 0 &&
	! test -e "$HERMES_HOME/../escape.json" &&
	! test -e escape.json
'

test_expect_success 'import: a newer format is refused by line' '
	echo "{\"format\":2,\"id\":\"20260101_090000_aaaaaa\",\"messages\":[]}" >new.jsonl &&
	test_expect_code 2 hermes sessions import new.jsonl 2>err &&
	echo "hermes: new.jsonl:1: session format 2 is newer than this hermes understands; nothing was imported" >expect &&
	test_cmp expect err
'

test_expect_success 'export and import round-trip: import reads the default json (an array) as it reads jsonl' '
	two_sessions &&
	hermes sessions export >all.json &&
	hermes sessions export --format jsonl >all.jsonl &&
	for form in all.json all.jsonl; do
		HERMES_HOME=$TRASH/home.$form hermes sessions import $form 2>err &&
		grep "imported 2 sessions" err &&
		HERMES_HOME=$TRASH/home.$form hermes sessions export --format jsonl >back.$form &&
		test_cmp all.jsonl back.$form || return 1
	done &&
	# The array on one line (jq -c), or with its items spread over lines.
	tr -d "\n" <all.json >one-line.json &&
	HERMES_HOME=$TRASH/home.one hermes sessions import one-line.json 2>err &&
	grep "imported 2 sessions" err &&
	sed "s/,\"/,\n \"/g" all.json >spread.json &&
	HERMES_HOME=$TRASH/home.spread hermes sessions import spread.json 2>err &&
	grep "imported 2 sessions" err &&
	# What is not an array of sessions: exit 2, nothing imported.
	printf "[1, 2]\n" >numbers.json &&
	test_expect_code 2 hermes sessions import numbers.json 2>err &&
	grep "^hermes: numbers.json:1: not a hermes export" err
'

test_expect_success 'import: a missing file is exit 4 naming it' '
	test_expect_code 4 hermes sessions import nothere.jsonl 2>err &&
	echo "hermes: nothere.jsonl: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success 'import: titles follow the title rules (no escapes, no bidi overrides, at most 100)' '
	esc=$(printf "\\\\u001b") &&
	rlo=$(printf "\\\\u202e") &&
	zw=$(printf "\\\\u200b") &&
	long=$(printf "%0150d" 0) &&
	printf "{\"format\":1,\"id\":\"20260101_090000_aaaaaa\",\"title\":\"red${esc}[31m  alert${rlo}txt${zw}\",\"messages\":[]}\n" >in.jsonl &&
	printf "{\"format\":1,\"id\":\"20260101_090000_bbbbbb\",\"title\":\"$long\",\"messages\":[]}\n" >>in.jsonl &&
	printf "{\"format\":1,\"id\":\"20260101_090000_cccccc\",\"title\":\"${zw} \\\\t\",\"messages\":[]}\n" >>in.jsonl &&
	hermes sessions import in.jsonl &&
	hermes sessions list --json >list &&
	json_get list "[s[\"title\"] for s in v]" | sort >titles &&
	printf "\n%099d…\nred[31m alerttxt\n" 0 >expect &&
	test_cmp expect titles
'

test_expect_success 'import: needs exactly one FILE' '
	test_expect_code 2 hermes sessions import 2>err &&
	grep "^hermes: sessions import: missing FILE" err &&
	test_expect_code 2 hermes sessions import a b 2>err &&
	grep "^hermes: sessions import: unexpected argument '"'b'"'" err
'

test_expect_success 'import takes no --format: its help names export --format, not its own option' '
	hermes sessions export --format jsonl >all.jsonl &&
	test_expect_code 2 hermes sessions import --format json all.jsonl 2>err &&
	grep "^hermes: invalid option '"'--format'"'" err &&
	test_expect_code 2 hermes sessions import -f markdown all.jsonl 2>err &&
	grep "^hermes: invalid option '"'-f'"'" err
'

test_expect_success 'export -o with an empty file name is a usage error, not an I/O one' '
	test_expect_code 2 hermes sessions export -o "" >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: -o/--output wants a file name$" err
'

test_done
