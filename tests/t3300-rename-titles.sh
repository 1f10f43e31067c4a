#!/bin/sh
test_description='hermes sessions rename and the title rules (also for --title, -c NAME --create-if-missing, /title)'
. "$(dirname "$0")/lib.sh"

# The title of the session with this ID, from list --json.
title_of () {
	hermes sessions list --all --json |
		json_get - "[s['title'] for s in v if s['id'] == a[0]]" "$1"
}

# title_source of the session with this title.
source_of () {
	hermes sessions list --all --json |
		json_get - "[s['title_source'] for s in v if s['title'] == a[0]]" "$1"
}

# A session titled "redis debug"; its ID in $id.
redis_session () {
	hermes chat --title "redis debug" -q "why" --no-agent -Q &&
	id=$(session_id_by_title "redis debug") &&
	test -n "$id"
}

test_expect_success 'rename by title: a user title, said on stderr' '
	hermes chat -q "hello there" --no-agent -Q &&
	id=$(session_id_by_title "hello there") &&
	test "$(source_of "hello there")" = auto &&
	hermes sessions rename "hello there" "greetings" >out 2>err &&
	test_must_be_empty out &&
	echo "renamed $id to '"'greetings'"'" >expect &&
	test_cmp expect err &&
	test "$(title_of "$id")" = greetings &&
	test "$(source_of greetings)" = user
'

test_expect_success 'rename by ID' '
	redis_session &&
	hermes sessions rename "$id" "cache bug" 2>err &&
	test "$(title_of "$id")" = "cache bug"
'

test_expect_success 'control characters are removed (an escape sequence cannot color the list)' '
	redis_session &&
	hermes sessions rename "$id" "$(printf "red\033[31m alert\007\010!")" 2>err &&
	echo "red[31m alert!" >expect &&
	title_of "$id" >actual &&
	test_cmp expect actual &&
	echo "renamed $id to '"'red[31m alert!'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'invisible characters are removed: zero-width space, bidi override, BOM, soft hyphen' '
	redis_session &&
	hermes sessions rename "$id" "$(printf "a\342\200\256b\342\200\213c\357\273\277d\302\255e\342\200\217f")" &&
	echo abcdef >expect &&
	title_of "$id" >actual &&
	test_cmp expect actual &&
	hermes sessions list >list &&
	! grep "$(printf "\342\200\256")" list
'

test_expect_success 'whitespace is collapsed and trimmed' '
	redis_session &&
	hermes sessions rename "$id" "$(printf "  two \t  words\n and\r\nmore  ")" &&
	echo "two words and more" >expect &&
	title_of "$id" >actual &&
	test_cmp expect actual
'

test_expect_success 'a title is never empty (nor only invisible characters)' '
	redis_session &&
	# U+200B U+202E, then U+1D173 (a musical format control), U+2800
	# (braille blank), U+FFF9 (interlinear annotation), U+E0001 (language tag).
	for t in "" "   " "$(printf "\342\200\213\342\200\256 \t\033")" \
		"$(printf "\360\235\205\263\342\240\200\357\277\271\363\240\200\201")"; do
		test_expect_code 2 hermes sessions rename "$id" "$t" 2>err &&
		grep "^hermes: a title cannot be empty (or only invisible characters)$" err ||
		return 1
	done &&
	test "$(title_of "$id")" = "redis debug"
'

test_expect_success '100 characters is the limit (characters, not bytes)' '
	redis_session &&
	t100=$(printf "%0100d" 0) &&
	hermes sessions rename "$id" "$t100" &&
	test "$(title_of "$id")" = "$t100" &&
	u100=$(printf "\303\251%.0s" $(seq 1 100)) &&
	hermes sessions rename "$id" "$u100" &&
	test "$(title_of "$id")" = "$u100"
'

test_expect_success 'a longer title is an error, and nothing changes' '
	redis_session &&
	test_expect_code 2 hermes sessions rename "$id" "$(printf "%0101d" 0)" 2>err &&
	echo "hermes: title is 101 characters long; the limit is 100" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes sessions rename "$id" "$(printf "%0500d" 0)" 2>err &&
	echo "hermes: title is 500 characters long; the limit is 100" >expect &&
	test_cmp expect err &&
	test "$(title_of "$id")" = "redis debug"
'

test_expect_success 'the limit counts what is left after cleaning' '
	redis_session &&
	padded="$(printf "%0100d" 0)$(printf "\342\200\213%.0s" 1 2 3 4 5)   " &&
	hermes sessions rename "$id" "$padded" &&
	test "$(title_of "$id")" = "$(printf "%0100d" 0)"
'

test_expect_success 'a title another session holds is refused, naming its ID' '
	redis_session &&
	hermes chat --title other -q x --no-agent -Q &&
	test_expect_code 2 hermes sessions rename other "redis debug" 2>err &&
	echo "hermes: the title '"'redis debug'"' is already used by session $id; choose another" >expect &&
	test_cmp expect err &&
	test "$(session_id_by_title other)" != ""
'

test_expect_success 'uniqueness is checked on the cleaned title' '
	redis_session &&
	hermes chat --title other -q x --no-agent -Q &&
	test_expect_code 2 hermes sessions rename other "$(printf " redis\342\200\213  debug ")" 2>err &&
	grep "already used by session $id" err
'

test_expect_success 'a session may be renamed to its own title; case differs is another title' '
	redis_session &&
	hermes sessions rename "$id" "redis debug" &&
	hermes chat --title other -q x --no-agent -Q &&
	hermes sessions rename other "Redis Debug" &&
	test "$(session_id_by_title "Redis Debug")" != "$id"
'

test_expect_success 'rename needs a name and a title; an unquoted title is caught' '
	redis_session &&
	test_expect_code 2 hermes sessions rename "$id" 2>err &&
	grep "^hermes: sessions rename: missing TITLE; see" err &&
	test_expect_code 2 hermes sessions rename "$id" new title 2>err &&
	grep "^hermes: sessions rename: unexpected argument '"'title'"'; quote names with spaces" err &&
	test "$(title_of "$id")" = "redis debug"
'

test_expect_success 'a title shaped like a session ID is refused everywhere (it would be looked up as that ID)' '
	redis_session &&
	hermes chat --title other -q x --no-agent -Q &&
	other=$(session_id_by_title other) &&
	test_expect_code 2 hermes sessions rename "redis debug" "$other" 2>err &&
	echo "hermes: '"'"'$other'"'"' has the shape of a session ID, so it cannot be a title (a name of that shape is read as an ID): choose one that is not shaped like an ID (e.g. '"'"'report $other'"'"')" >expect &&
	test_cmp expect err &&
	test "$(title_of "$id")" = "redis debug" &&
	hermes chat -c "redis debug" -q still --no-agent -Q &&
	test_expect_code 2 hermes sessions rename "redis debug" 20991231_235959_abcdef &&
	test_expect_code 2 hermes chat --title 20991231_235959_abcdef -q x --no-agent -Q &&
	test_expect_code 2 hermes chat -c 20991231_235959_abcdef --create-if-missing -q x --no-agent -Q &&
	test "$(session_count)" = 2 &&
	# shaped like one only after cleaning: still refused
	test_expect_code 2 hermes sessions rename "redis debug" " 20991231_235959_abcdef$(printf "\342\200\213")" &&
	# the shape in capitals is the shape (IDs are compared in lower case)
	test_expect_code 2 hermes sessions rename "redis debug" 20991231_235959_ABCDEF &&
	# not the shape (a letter past f): an ordinary title
	hermes sessions rename "redis debug" 20991231_235959_abcdeg &&
	# a prefix of an ID (a date, a date and a time) is refused too
	test_expect_code 2 hermes sessions rename 20991231_235959_abcdeg 20991231_235959_abcde 2>err &&
	grep "has the shape of a session ID prefix" err &&
	test_expect_code 2 hermes sessions rename 20991231_235959_abcdeg 20991231 &&
	test "$(title_of "$id")" = 20991231_235959_abcdeg
'

test_expect_success 'chat --title follows the same rules' '
	hermes chat --title "$(printf " a\342\200\256b\033[1m  c ")" -q x --no-agent -Q &&
	test "$(source_of "ab[1m c")" = user &&
	test_expect_code 2 hermes chat --title "$(printf "%0101d" 0)" -q x --no-agent -Q 2>err &&
	echo "hermes: title is 101 characters long; the limit is 100" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes chat --title "$(printf "\342\200\213")" -q x --no-agent -Q &&
	test "$(session_count)" = 1
'

test_expect_success 'chat -c NAME --create-if-missing cleans NAME the same way' '
	hermes chat -c "$(printf "night\342\200\213ly  job")" --create-if-missing -q x --no-agent -Q &&
	test "$(source_of "nightly job")" = user &&
	hermes chat -c "nightly job" -q y --no-agent -Q &&
	test "$(session_count)" = 1 &&
	test_expect_code 2 hermes chat -c "$(printf "%0101d" 0)" --create-if-missing -q x --no-agent -Q &&
	test "$(session_count)" = 1
'

test_expect_success 'an automatic title comes from the first user message, cleaned' '
	hermes chat -q "$(printf "  why\342\200\256 does\tit\n\nsecond line")" --no-agent -Q &&
	test "$(source_of "why does it")" = auto
'

test_expect_success 'an automatic title never replaces a user title' '
	hermes chat --title "my title" -q "first message" --no-agent -Q &&
	hermes chat -c "my title" -q "second message" --no-agent -Q &&
	test "$(source_of "my title")" = user &&
	hermes chat -c "thread" --create-if-missing -q "the opening words" --no-agent -Q &&
	test "$(source_of "thread")" = user &&
	hermes chat -q "auto words" --no-agent -Q &&
	hermes sessions rename "auto words" renamed &&
	hermes chat -c renamed -q "more words" --no-agent -Q &&
	test "$(source_of renamed)" = user &&
	hermes sessions list --json >list &&
	json_get list "[s[\"title\"] for s in v]" | sort >titles &&
	printf "my title\nrenamed\nthread\n" >expect &&
	test_cmp expect titles
'

test_expect_success 'a later message never gives an untitled session a title another holds' '
	redis_session &&
	# An untitled session with messages, as an import may bring.
	mk_session 20250101_000000_00aaaa "" "" 1735689600 "$TRASH" user "hello" &&
	hermes chat -r 20250101_000000_00aaaa -q "redis debug" --no-agent -Q &&
	hermes sessions list --all --json >list &&
	json_get list "len([s for s in v if s[\"title\"] == \"redis debug\"])" >count &&
	echo 1 >expect &&
	test_cmp expect count &&
	hermes chat -c "redis debug" -q "to the titled one" --no-agent -Q &&
	messages "$id" >actual &&
	printf "user: why\nuser: to the titled one\n" >expect &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'a session created empty on a terminal keeps its name after the first message' '
	printf "the opening words\n/quit\n" >input &&
	run_in_pty "hermes chat -c named --create-if-missing --no-agent" <input >transcript &&
	grep "New session '"'named'"'" transcript &&
	test "$(source_of named)" = user &&
	hermes sessions show named >shown &&
	grep "^the opening words" shown
'

test_expect_success SCRIPT '/title in chat: the same cleaning, limit and uniqueness' '
	redis_session &&
	hermes chat --title mine -q x --no-agent -Q &&
	mine=$(session_id_by_title mine) &&
	{
		printf "/title %s\n" "redis debug" &&
		printf "/title %0101d\n" 0 &&
		printf "/title %s\n" "$(printf "new\342\200\256  t\033[1mx")" &&
		printf "/title\n/quit\n"
	} >input &&
	pty_transcript "hermes chat -c mine --no-agent" transcript <input &&
	grep "hermes: the title '"'redis debug'"' is already used by session $id; choose another" transcript &&
	grep "hermes: title is 101 characters long; the limit is 100" transcript &&
	# A key'"'"'s escape sequence typed at the terminal never gets that far
	# (ESC [1m is gone whole); the bidi override and spaces are cleaned.
	grep "renamed [0-9_a-f]* to '"'new tx'"'" transcript &&
	test "$(title_of "$mine")" = "new tx" &&
	test "$(source_of "new tx")" = user
'

test_expect_success 'rename of a newer-format session is refused, the file untouched' '
	mkdir -p "$HERMES_HOME/sessions" &&
	f="$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" &&
	echo "{\"format\":2,\"id\":\"20260101_090000_aaaaaa\",\"title\":\"future\",\"messages\":[]}" >"$f" &&
	cp "$f" before &&
	test_expect_code 4 hermes sessions rename future past 2>err &&
	grep "^hermes: $f: written in format 2 by a newer hermes" err &&
	test_cmp before "$f"
'

test_done
