#!/bin/sh
test_description='a file with a good header and damaged messages is damaged: listed with a warning, never grown, rewritten or pruned, but found by its title and ID and mended by sessions repair; a newer-format file in another field order is still newer'
. "$(dirname "$0")/lib.sh"

# One file per kind of damage, each with a healthy header and a title of
# its own (so that it could be found by name), last active in 2020.
HEAD='"format":1,"title_source":"user","created_at":1577836800,"updated_at":1577836800,"cwd":"/","message_count":1'
GOOD='{"role":"user","content":"fine","ts":1577836800}'
VARIANTS='
1 [1,2,3]
2 [null]
3 [{"content":"no role","ts":1}]
4 [{"role":"user","content":"no ts"}]
5 [{"role":"user","content":"ts as text","ts":"1"}]
6 [{"role":"user","content":7,"ts":1}]
7 [{"role":"evil","content":"odd role","ts":1}]
8 [GOOD,{"role":"user","content":null,"ts":1}]
9 [GOOD,"text"]
'

test_expect_success 'set up a healthy session and nine damaged ones' '
	HERMES_HOME=$TRASH_ROOT/home &&
	hermes chat --title healthy -q hi --no-agent -Q &&
	mkdir -p "$TRASH_ROOT/orig" &&
	echo "$VARIANTS" | while read -r n messages; do
		test -n "$n" || continue
		id=20200101_000000_00000$n &&
		messages=$(echo "$messages" | sed "s/GOOD/$GOOD/") &&
		printf "{\"id\":\"%s\",\"title\":\"damaged %s\",%s,\"messages\":%s}\n" \
			"$id" "$n" "$HEAD" "$messages" >"$HERMES_HOME/sessions/$id.json" &&
		cp "$HERMES_HOME/sessions/$id.json" "$TRASH_ROOT/orig/" || return 1
	done &&
	test "$(session_count)" = 10
'

unchanged() {
	for f in "$TRASH_ROOT"/orig/*.json; do
		cmp "$f" "$HERMES_HOME/sessions/${f##*/}" || return 1
	done
}

test_expect_success 'list shows the healthy one and names each damaged file in a warning' '
	HERMES_HOME=$TRASH_ROOT/home &&
	hermes sessions list --all >out 2>err &&
	cut -f2 out >titles &&
	echo healthy >expect &&
	test_cmp expect titles &&
	for n in 1 2 3 4 5 6 7 8 9; do
		id=20200101_000000_00000$n &&
		grep "^hermes: warning: $HERMES_HOME/sessions/$id.json: not a valid session file (message [12]: .*); skipped, though it keeps its title .damaged $n.. To keep its readable messages: hermes sessions repair $id (it copies the file aside first, byte for byte)\$" err ||
			{ echo "no warning for variant $n"; return 1; }
	done &&
	test_line_count = 9 err &&
	grep "role \"evil\"" err &&
	unchanged
'

test_expect_success 'chat -r, rename, show and export refuse each damaged file with exit 4 naming it' '
	HERMES_HOME=$TRASH_ROOT/home &&
	for n in 1 2 3 4 5 6 7 8 9; do
		id=20200101_000000_00000$n &&
		file=$HERMES_HOME/sessions/$id.json &&
		test_expect_code 4 hermes chat -r $id -q more --agent "echo reply" 2>err &&
		grep -F "hermes: $file: not a valid session file" err &&
		test_expect_code 4 hermes sessions rename $id "new name $n" 2>err &&
		grep -F "$file: not a valid session file" err &&
		test_expect_code 4 hermes sessions show $id >/dev/null 2>err &&
		grep -F "$file: not a valid session file" err &&
		test_expect_code 4 hermes sessions export $id >/dev/null 2>err &&
		grep -F "$file: not a valid session file" err || return 1
	done &&
	unchanged
'

test_expect_success 'prune leaves every damaged file in place, with a warning' '
	HERMES_HOME=$TRASH_ROOT/home &&
	hermes sessions prune --older-than 1 --yes >out 2>err &&
	test "$(grep -c "not a valid session file" err)" = 9 &&
	unchanged &&
	test "$(session_count)" = 10
'

test_expect_success 'each is found by its title: what would write to it exits 4 naming the file, the message and repair; its title stays taken' '
	HERMES_HOME=$TRASH_ROOT/home &&
	for n in 1 2 3 4 5 6 7 8 9; do
		id=20200101_000000_00000$n &&
		file=$HERMES_HOME/sessions/$id.json &&
		test_expect_code 4 hermes chat -c "damaged $n" -q more --no-agent -Q 2>err &&
		grep "^hermes: $file: not a valid session file (message [12]: .*); nothing was written to it. To keep its readable messages: hermes sessions repair $id (it copies the file aside first, byte for byte)\$" err &&
		test_expect_code 4 hermes chat -c "damaged $n" --create-if-missing -q more --no-agent -Q 2>err &&
		grep "sessions repair $id" err &&
		test_expect_code 4 hermes sessions rename "damaged $n" "new name $n" &&
		test_expect_code 2 hermes chat --title "damaged $n" -q x --no-agent -Q 2>err &&
		grep "already used by session $id" err &&
		test_expect_code 2 hermes sessions rename healthy "damaged $n" || { echo "variant $n"; return 1; }
	done &&
	test "$(session_count)" = 10 &&
	unchanged
'

# repaired N KEPT LOST: `sessions repair` of variant N said it kept KEPT
# messages and left out LOST parts, copied the original aside whole (mode
# 0600, in a 0700 directory), and the session now reads, title kept.
repaired() {
	id=20200101_000000_00000$1 &&
	hermes sessions repair "damaged $1" >out 2>err &&
	test_must_be_empty err &&
	head -n 1 out >actual &&
	echo "repaired session $id 'damaged $1': kept $2 readable message$(test "$2" = 1 || echo s), left out $3 damaged part$(test "$3" = 1 || echo s):" >expect &&
	test_cmp expect actual &&
	test "$(grep -c "^  message [0-9]*: " out)" = "$3" &&
	aside=$(sed -n "s/^the original file, damaged parts and all, is kept in //p" out) &&
	case $aside in "$HERMES_HOME/damaged/$id.json.2"*) ;; *) return 1 ;; esac &&
	cmp "$TRASH_ROOT/orig/$id.json" "$aside" &&
	test "$(file_mode "$aside")" = 600 &&
	test "$(file_mode "$HERMES_HOME/damaged")" = 700 &&
	hermes sessions show "damaged $1" --json >shown &&
	test "$(json_get shown "len(v[\"messages\"])")" = "$2" &&
	test "$(field "$id" message_count)" = "$2" &&
	test "$(field "$id" title)" = "damaged $1"
}

test_expect_success 'sessions repair keeps every readable message, after copying the file aside byte for byte' '
	cp -R "$TRASH_ROOT/home" "$TRASH/store" &&
	HERMES_HOME=$TRASH/store &&
	repaired 1 0 3 && repaired 2 0 1 && repaired 3 0 1 && repaired 4 0 1 &&
	repaired 5 0 1 && repaired 6 0 1 && repaired 7 0 1 && repaired 8 1 1 && repaired 9 1 1 &&
	show_contents "damaged 8" >actual && echo fine >expect && test_cmp expect actual &&
	hermes sessions list --all >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 10 out &&
	test "$(ls "$HERMES_HOME/damaged" | wc -l)" = 9 &&
	hermes chat -c "damaged 8" -q "now it takes messages" --no-agent -Q &&
	hermes sessions repair "damaged 8" >out &&
	echo "session 20200101_000000_000008 '"'"'damaged 8'"'"' is not damaged; nothing to do" >expect &&
	test_cmp expect out &&
	test "$(ls "$HERMES_HOME/damaged" | wc -l)" = 9
'

test_expect_success 'the issue: a damaged "redis debug" is never forked by --create-if-missing; repaired, it takes the post' '
	hermes chat -c "redis debug" --create-if-missing -q "first" --no-agent -Q &&
	hermes chat -c "redis debug" -q "second" --no-agent -Q &&
	hermes chat -c "redis debug" -q "third" --no-agent -Q &&
	id=$(session_id_by_title "redis debug") &&
	f=$HERMES_HOME/sessions/$id.json &&
	sed "s/\"content\":\"second\"/\"content\":\"sec\\\\xnd\"/" "$f" >damaged.json &&
	! cmp -s "$f" damaged.json &&
	cp damaged.json "$f" &&
	test_expect_code 4 hermes chat -c "redis debug" --create-if-missing -q "cron post" --no-agent 2>err &&
	grep "^hermes: $f: not a valid session file (message 2: .*); nothing was written to it. To keep its readable messages: hermes sessions repair $id" err &&
	test_expect_code 4 hermes chat -c "redis debug" -q "cron post" --no-agent 2>err &&
	! grep "No session found" err &&
	test "$(session_count)" = 1 &&
	cmp damaged.json "$f" &&
	hermes sessions list >out 2>err &&
	test_must_be_empty out &&
	grep "skipped, though it keeps its title" err &&
	tail -n 1 err >actual &&
	echo "No readable sessions: 1 damaged file (see above)." >expect &&
	test_cmp expect actual &&
	hermes sessions repair "redis debug" --dry-run >out &&
	cat >expect <<-EOF &&
	would keep 2 readable messages of session $id '"'"'redis debug'"'"', and leave out 1 damaged part:
	  message 2: bad message: bad escape at byte 30
	nothing was written; without --dry-run the file is first copied, whole, into $HERMES_HOME/damaged
	EOF
	test_cmp expect out &&
	cmp damaged.json "$f" &&
	! test -e "$HERMES_HOME/damaged" &&
	hermes sessions repair "$id" >out &&
	hermes chat -c "redis debug" --create-if-missing -q "cron post" --no-agent -Q &&
	show_contents "redis debug" >actual &&
	printf "%s\n" first third "cron post" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 1 &&
	cmp damaged.json "$HERMES_HOME"/damaged/$id.json.*
'

test_expect_success 'a session cut short in its last message is found by ID and repaired; a file whose header does not read is refused' '
	hermes chat -q one --no-agent -Q &&
	id=$(only_id) &&
	hermes chat -r "$id" -q two --no-agent -Q &&
	f=$HERMES_HOME/sessions/$id.json &&
	head -c $(($(wc -c <"$f") - 10)) "$f" >cut.json &&
	cp cut.json "$f" &&
	test_expect_code 4 hermes chat -r "$id" -q three --no-agent -Q 2>err &&
	grep "not a valid session file (message 2: truncated: .*); nothing was written to it.* sessions repair $id" err &&
	hermes sessions repair "$id" >out &&
	head -n 1 out | grep "kept 1 readable message, left out 1 damaged part:\$" &&
	show_contents "$id" >actual && echo one >expect && test_cmp expect actual &&
	echo "{\"format\":1,\"id\":\"20200101_000000_0000ee\",\"title\":" >"$HERMES_HOME/sessions/20200101_000000_0000ee.json" &&
	test_expect_code 4 hermes sessions repair 20200101_000000_0000ee 2>err &&
	grep "not a valid session file" err &&
	test "$(ls "$HERMES_HOME/damaged" | wc -l)" = 1
'

test_expect_success 'import takes a role other than user, assistant or system for damage: that session is skipped' '
	HERMES_HOME=$TRASH_ROOT/import &&
	{
		printf "{\"id\":\"20200101_000000_0000aa\",\"title\":\"fine\",%s,\"messages\":[%s]}\n" "$HEAD" "$GOOD" &&
		printf "{\"id\":\"20200101_000000_0000ab\",\"title\":\"odd\",%s,\"messages\":[{\"role\":\"tool\",\"content\":\"x\",\"ts\":1}]}\n" "$HEAD"
	} >in.jsonl &&
	test_expect_code 2 hermes sessions import in.jsonl 2>err &&
	grep "^hermes: warning: line 2 is damaged (message 1: a message has the role \"tool\", not user, assistant or system); skipped\$" err &&
	test "$(session_count)" = 1 &&
	test -f "$HERMES_HOME/sessions/20200101_000000_0000aa.json"
'

FUTURE=20200101_000000_0000f2
test_expect_success 'a newer-format file with a field after messages: listed, found by title, never modified' '
	HERMES_HOME=$TRASH_ROOT/newer &&
	mkdir -p "$HERMES_HOME/sessions" &&
	printf "{\"format\":2,\"id\":\"$FUTURE\",\"title\":\"tomorrow\",\"created_at\":1,\"updated_at\":2,\"message_count\":1,\"messages\":[\n{\"role\":\"user\",\"content\":\"hi\",\"ts\":1}\n],\"labels\":[\"a\"]}\n" >"$HERMES_HOME/sessions/$FUTURE.json" &&
	cp "$HERMES_HOME/sessions/$FUTURE.json" orig.json &&
	hermes sessions list --all >out 2>err &&
	test_must_be_empty err &&
	cut -f2 out >titles &&
	echo tomorrow >expect &&
	test_cmp expect titles &&
	test_expect_code 4 hermes chat -c tomorrow -q more --no-agent 2>err &&
	grep -F "hermes: $HERMES_HOME/sessions/$FUTURE.json: written in format 2 by a newer hermes" err &&
	test_expect_code 4 hermes sessions rename tomorrow later 2>err &&
	grep -F "written in format 2 by a newer hermes" err &&
	cmp orig.json "$HERMES_HOME/sessions/$FUTURE.json"
'

test_done
