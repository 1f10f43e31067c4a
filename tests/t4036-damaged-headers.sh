#!/bin/sh
test_description='a session is its ID and title whatever else is damaged: a damaged header (a bad escape, a byte that is no UTF-8, a control character, the file cut inside it) is found by name, never forked by --create-if-missing, never written, and mended by sessions repair; valid JSON in any key order is a session like any other'
. "$(dirname "$0")/lib.sh"

# thread: a session "thread" of two messages, its file in $f, a copy of
# it in good.json.
thread() {
	hermes chat -c thread --create-if-missing --no-agent -Q -q "hello world" &&
	hermes chat -c thread --no-agent -Q -q second &&
	id=$(only_id) &&
	f=$HERMES_HOME/sessions/$id.json &&
	cp "$f" good.json
}

# damage KIND: damage the header of $f (title and ID untouched) as the
# issue did; a copy of the damaged file in damaged.json.
damage() {
	case $1 in
	escape) sed 's/"preview":"hello/"preview":"h\\qllo/' good.json ;;
	utf8) sed 's/"preview":"hello/"preview":"h\xffllo/' good.json ;;
	control) sed 's/"preview":"hello/"preview":"h\x01llo/' good.json ;;
	cut) head -c "$(($(grep -bo '"preview"' good.json | cut -d: -f1) + 14))" good.json ;;
	esac >damaged.json &&
	! cmp -s good.json damaged.json &&
	cp damaged.json "$f"
}

# field_of FILE KEY: header field KEY of the session file FILE.
field_of() {
	mkdir -p of/sessions &&
	cp "$1" of/sessions/of.json &&
	HERMES_HOME=of field of "$2"
}

for kind in escape utf8 control cut; do
	test_expect_success "a header damaged by $kind: found by name, written by nothing, never forked; repair mends it" '
		thread &&
		damage '$kind' &&
		test_expect_code 4 hermes chat -c thread --create-if-missing --no-agent -q third 2>err &&
		grep "^hermes: $f: not a valid session file (.*); nothing was written to it. To keep its readable messages: hermes sessions repair $id (it copies the file aside first, byte for byte)\$" err &&
		test_expect_code 4 hermes chat -c thread --no-agent -q third 2>err &&
		! grep "No session found" err &&
		test_expect_code 4 hermes chat -r "$id" --no-agent -q third &&
		test_expect_code 4 hermes sessions rename thread other &&
		test_expect_code 2 hermes chat --title thread --no-agent -q x 2>err &&
		grep "already used by session $id" err &&
		test "$(session_count)" = 1 &&
		cmp damaged.json "$f" &&
		hermes sessions list >out 2>err &&
		grep "skipped, though it keeps its title .thread.. To keep its readable messages: hermes sessions repair $id" err &&
		hermes sessions repair thread >out &&
		head -n 2 out >actual &&
		case '$kind' in
		cut) kept=0 messages=0 preview= ;;
		*) kept=2 messages=2 preview="hello world" ;;
		esac &&
		sed -n 2p out | grep "^  the header: " &&
		head -n 1 out | grep "^repaired session $id .thread.: kept $kept readable messages, left out 1 damaged part:\$" &&
		cmp damaged.json "$HERMES_HOME"/damaged/$id.json.* &&
		test "$(field "$id" title)" = thread &&
		test "$(field "$id" id)" = "$id" &&
		test "$(field "$id" message_count)" = $messages &&
		test "$(field "$id" preview)" = "$preview" &&
		test "$(field "$id" updated_at)" = "$(field_of good.json updated_at)" &&
		hermes chat -c thread --create-if-missing --no-agent -Q -q third &&
		test "$(session_count)" = 1
	'
done

test_expect_success 'a header cut before its title names nothing: refused, left untouched, not repaired' '
	thread &&
	head -c "$(grep -bo "\"title\"" good.json | cut -d: -f1)" good.json >"$f" &&
	cp "$f" cut.json &&
	test_expect_code 4 hermes chat -r "$id" --no-agent -q x 2>err &&
	grep "not a valid session file (.*); left untouched\$" err &&
	test_expect_code 4 hermes sessions repair "$id" 2>err &&
	grep "not a valid session file" err &&
	cmp cut.json "$f" &&
	! test -e "$HERMES_HOME/damaged"
'

# sorted HOW: the file $f rewritten with its keys sorted, by jq or Python.
sorted() {
	case $1 in
	jq) jq -S . "$f" ;;
	python) python3 -c "import json, sys; json.dump(json.load(open(sys.argv[1])), sys.stdout, sort_keys=True)" "$f" ;;
	esac >sorted.json &&
	! cmp -s "$f" sorted.json &&
	mv sorted.json "$f"
}

for how in jq python; do
	test_expect_success "keys sorted by $how: the same session, read and written like any other, in hermes's order again" '
		thread &&
		sorted '$how' &&
		hermes sessions list >out 2>err &&
		test_must_be_empty err &&
		cut -f2,4 out >actual &&
		printf "thread\t2\n" >expect &&
		test_cmp expect actual &&
		show_contents thread >actual &&
		printf "%s\n" "hello world" second >expect &&
		test_cmp expect actual &&
		hermes sessions repair thread >out &&
		grep "is not damaged; nothing to do" out &&
		hermes chat -c thread --create-if-missing --no-agent -Q -q third &&
		test "$(session_count)" = 1 &&
		show_contents thread >actual &&
		printf "%s\n" "hello world" second third >expect &&
		test_cmp expect actual &&
		head -c 25 "$f" >actual &&
		printf "{\"format\":1,\"id\":\"%s" "${id%_*}" | head -c 25 >expect &&
		test_cmp expect actual &&
		test "$(field "$id" title)" = thread &&
		test "$(field "$id" title_source)" = user &&
		test "$(field "$id" message_count)" = 3 &&
		! test -e "$HERMES_HOME/damaged"
	'
done

test_expect_success 'sorted keys and a damaged message: found by its title, and repair keeps title and activity time' '
	thread &&
	sorted jq &&
	sed "s/\"second\"/\"sec\\\\qnd\"/" "$f" >damaged.json &&
	! cmp -s "$f" damaged.json &&
	cp damaged.json "$f" &&
	test_expect_code 4 hermes chat -c thread --create-if-missing --no-agent -q x 2>err &&
	grep "sessions repair $id" err &&
	hermes sessions repair thread >out &&
	head -n 1 out | grep "kept 1 readable message, left out 1 damaged part:\$" &&
	test "$(field "$id" title)" = thread &&
	test "$(field "$id" title_source)" = user &&
	test "$(field "$id" updated_at)" = "$(field_of good.json updated_at)" &&
	hermes sessions prune --older-than 30 --yes &&
	test "$(session_count)" = 1
'

test_done
