#!/bin/sh
test_description='a reader that closes stdout early (| head -1) is not an error'
. "$(dirname "$0")/lib.sh"

STORE=$TRASH_ROOT/store
LONG=20250101_000000_0f0f0f

# closed_pipe CMD...: run hermes CMD into `head -1`; hermes's own exit
# status goes to rc, its stderr to err, the line head kept to first.
closed_pipe() {
	{ hermes "$@" 2>err; echo $? >rc; } | head -1 >first
}

# make_store DIR: 3000 small sessions, and $LONG with 20000 messages,
# written directly (hermes would need a process and an fsync for each).
make_store() {
	mkdir -p "$1/sessions" &&
	awk -v dir="$1/sessions" -v long="$LONG" '
	function session(id, title, t, count) {
		return sprintf("{\"format\":1,\"id\":\"%s\",\"title\":\"%s\",\"title_source\":\"user\",\"created_at\":%d,\"updated_at\":%d,\"cwd\":\"/\",\"message_count\":%d,\"preview\":\"p\",\"messages\":[", id, title, t, t, count)
	}
	BEGIN {
		for (i = 1; i <= 3000; i++) {
			id = sprintf("20250101_000000_%06x", i)
			f = dir "/" id ".json"
			printf "%s\n{\"role\":\"user\",\"content\":\"m\",\"ts\":%d}\n]}\n", session(id, "session number " i " with a title long enough to fill a line", 1700000000 + i, 1), 1700000000 + i >f
			close(f)
		}
		f = dir "/" long ".json"
		printf "%s", session(long, "long", 2, 20000) >f
		for (i = 1; i <= 20000; i++)
			printf "%s\n{\"role\":\"user\",\"content\":\"message %d of a long conversation\",\"ts\":%d}", (i > 1 ? "," : ""), i, i >f
		printf "\n]}\n" >f
		close(f)
	}'
}

test_expect_success 'a store of 3000 sessions and one of 20000 messages' '
	make_store "$STORE" &&
	HERMES_HOME=$STORE hermes sessions show "$LONG" --json >long.json &&
	test "$(json_get long.json "len(v[\"messages\"])")" = 20000 &&
	test "$(HERMES_HOME=$STORE hermes sessions list --all | wc -l)" = 3001
'

test_expect_success 'list | head -1 exits 0 quietly, with and without --all and --json' '
	HERMES_HOME=$STORE &&
	closed_pipe sessions list &&
	test "$(cat rc)" = 0 &&
	test_line_count = 1 first &&
	# Twenty lines fit in the pipe before head closes it: only the usual note.
	echo "(20 of 3001 sessions shown; use --limit N or --all to see more)" >expect &&
	test_cmp expect err &&
	for args in "list --all" "list --all --json" "list --limit 2500" "stats"; do
		# shellcheck disable=SC2086
		closed_pipe sessions $args &&
		test "$(cat rc)" = 0 || { echo "exit $(cat rc): sessions $args"; return 1; }
		test_must_be_empty err || return 1
		test_line_count = 1 first || return 1
	done
'

test_expect_success 'show, show --json and export of a long session | head -1 exit 0 quietly' '
	HERMES_HOME=$STORE &&
	for args in "show $LONG" "show $LONG --json" "export $LONG" "export $LONG --format markdown" \
		"export --format jsonl" "export"; do
		# shellcheck disable=SC2086
		closed_pipe sessions $args &&
		test "$(cat rc)" = 0 || { echo "exit $(cat rc): sessions $args"; return 1; }
		test_must_be_empty err || return 1
		test_line_count = 1 first || return 1
	done &&
	figure "t4070: 11 commands (list/stats over 3001 sessions, show/export of a 20000-message session) into head -1: all exit 0, stderr empty"
'

test_expect_success 'a reply into a closed pipe: exit 0, and the whole reply is saved' '
	closed_pipe chat -q count --agent "seq 200000" -Q &&
	test "$(cat rc)" = 0 &&
	test_must_be_empty err &&
	echo 1 >expect &&
	test_cmp expect first &&
	show_contents count >contents &&
	{ echo count && seq 200000; } >expect &&
	test_cmp expect contents
'

test_expect_success 'even with SIGPIPE ignored by the parent' '
	HERMES_HOME=$STORE &&
	(trap "" PIPE && closed_pipe sessions list --all) &&
	test "$(cat rc)" = 0 &&
	test_must_be_empty err
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
