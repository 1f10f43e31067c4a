#!/bin/sh
test_description='a file with a good header and damaged messages is damaged: listed with a warning, never grown, rewritten or pruned; a newer-format file in another field order is still newer'
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
		grep "^hermes: warning: $HERMES_HOME/sessions/20200101_000000_00000$n.json: not a valid session file (.*); skipped\$" err ||
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

test_expect_success 'import takes a role other than user, assistant or system for damage: that session is skipped' '
	HERMES_HOME=$TRASH_ROOT/import &&
	{
		printf "{\"id\":\"20200101_000000_0000aa\",\"title\":\"fine\",%s,\"messages\":[%s]}\n" "$HEAD" "$GOOD" &&
		printf "{\"id\":\"20200101_000000_0000ab\",\"title\":\"odd\",%s,\"messages\":[{\"role\":\"tool\",\"content\":\"x\",\"ts\":1}]}\n" "$HEAD"
	} >in.jsonl &&
	test_expect_code 4 hermes sessions import in.jsonl 2>err &&
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
