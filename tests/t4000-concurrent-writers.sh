#!/bin/sh
test_description='concurrent writers never lose an update, and no lock is held while the agent runs'
. "$(dirname "$0")/lib.sh"

# writer W N ID: append messages wW-1 .. wW-N to session ID, one process each;
# a failed append is recorded in failures.
writer() {
	i=1
	while test $i -le "$2"; do
		hermes chat -c "$3" -q "w$1-$i" --no-agent -Q 2>>"writer$1.err" ||
			echo "w$1-$i exit $?" >>failures
		i=$((i + 1))
	done
}

# create_writer W N TITLE: like writer, with -c TITLE --create-if-missing.
create_writer() {
	i=1
	while test $i -le "$2"; do
		hermes chat -c "$3" --create-if-missing -q "w$1-$i" --no-agent -Q ||
			echo "w$1-$i exit $?" >>failures
		i=$((i + 1))
	done
}

# Contents of the messages of session $1 written by writers, in file order.
writer_messages() {
	show_contents "$1" >"$TRASH/contents" &&
	grep "^w[0-9]*-[0-9]*\$" "$TRASH/contents"
}

test_expect_success '8 writers x 50 appends, with renames and lists running: all 400 land, each in order' '
	hermes chat -q start --no-agent -Q &&
	id=$(session_id_by_title start) &&
	test -n "$id" &&
	: >failures &&
	pids= &&
	for w in 1 2 3 4 5 6 7 8; do
		{ writer $w 50 "$id" & } &&
		pids="$pids $!"
	done &&
	{ (
		n=0
		# Bounded, in case the writers never finish.
		until test -e writers-done || test $n -ge 2000; do
			n=$((n + 1))
			hermes sessions rename "$id" "title $n" 2>>rename.err ||
				echo "rename $n exit $?" >>failures
			echo "title $n" >last-title
		done
		echo $n >renames
	) & } &&
	renamer=$! &&
	{ (
		n=0
		until test -e writers-done || test $n -ge 2000; do
			n=$((n + 1))
			hermes sessions list >list.out 2>list.err ||
				echo "list $n exit $?" >>failures
			# A torn or half-written file would show up as a warning here.
			test -s list.err && cat list.err >>failures
			grep -q "$id" list.out || echo "list $n lost $id" >>failures
		done
		echo $n >lists
	) & } &&
	lister=$! &&
	for p in $pids; do wait $p; done &&
	touch writers-done &&
	wait $renamer && wait $lister &&
	test_must_be_empty failures &&
	writer_messages "$id" >all &&
	figure "t4000: 8 writers x 50 appends: $(wc -l <all | tr -d " ") of 400 present; $(cat renames) renames and $(cat lists) lists ran meanwhile; failures: $(wc -l <failures | tr -d " ")" &&
	test_line_count = 400 all &&
	sort all | uniq -d >dups &&
	test_must_be_empty dups &&
	for w in 1 2 3 4 5 6 7 8; do
		grep "^w$w-" all | sed "s/^w$w-//" >got.$w &&
		seq 1 50 >want &&
		test_cmp want got.$w || return 1
	done &&
	hermes sessions show "$id" --json >final.json &&
	json_get final.json "[v[\"message_count\"], len(v[\"messages\"]), v[\"title\"], v[\"title_source\"]]" >actual &&
	# The header change of the last rename survived every later append.
	printf "401\n401\n%s\nuser\n" "$(cat last-title)" >expect &&
	test_cmp expect actual &&
	test "$(session_count)" = 1
'

test_expect_success 'a slow agent in one process does not stall another writing the same session' '
	hermes chat -q start --no-agent -Q &&
	id=$(session_id_by_title start) &&
	# The agent waits until the test releases it, so "does not stall" needs
	# no clock: the second writer must finish while the agent still runs.
	agent="touch \"$TRASH/agent-started\"; n=0; while ! test -e \"$TRASH/release\" && test \$n -lt 600; do sleep 0.05; n=\$((n + 1)); done; echo done-reply" &&
	{ hermes chat -c "$id" -q slow-question --agent "$agent" -Q >slow.out 2>slow.err & } &&
	slow=$! &&
	wait_for_file agent-started 20 &&
	timeout 30 hermes chat -c "$id" -q fast-note --no-agent -Q 2>fast.err &&
	test_must_be_empty fast.err &&
	# The slow one is still waiting for its agent: nothing serialised them.
	kill -0 $slow &&
	show_contents "$id" >during &&
	printf "start\nslow-question\nfast-note\n" >expect && test_cmp expect during &&
	touch release &&
	wait $slow &&
	echo done-reply >expect &&
	test_cmp expect slow.out &&
	test_must_be_empty slow.err &&
	show_contents "$id" >final &&
	printf "start\nslow-question\nfast-note\ndone-reply\n" >expect &&
	test_cmp expect final
'

test_expect_success 'parallel --create-if-missing with appends: one session, every message' '
	: >failures &&
	pids= &&
	for w in 1 2 3 4 5 6; do
		{ create_writer $w 10 "cron thread" & } &&
		pids="$pids $!"
	done &&
	for p in $pids; do wait $p; done &&
	test_must_be_empty failures &&
	test "$(session_count)" = 1 &&
	writer_messages "cron thread" >all &&
	test_line_count = 60 all &&
	sort -u all >uniq &&
	test_line_count = 60 uniq
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
