#!/bin/sh
test_description='an interrupted import, rename, delete or prune removes its own temporaries; stats reports strays; prune removes those no live writer holds'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq STRACE_DELAY 'strace -o /dev/null -e inject=fdatasync:delay_enter=1 true'

# temporaries: how many temporary files the store holds.
temporaries() {
	find "$HERMES_HOME" -name ".*.tmp" | wc -l | tr -d " "
}

# temporaries_reach N: the store holds at least N temporary files (for
# poll_until, which runs it again each time).
temporaries_reach() {
	test "$(temporaries)" -ge "$1"
}

# busy_temporary ID: the temporary of session ID is there.
busy_temporary() {
	test -n "$(find "$HERMES_HOME/sessions" -name ".$1.json.*.tmp")"
}

# sessions_jsonl N: N sessions in export --format jsonl, 2 messages each.
sessions_jsonl() {
	awk -v n="$1" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "{\"format\":1,\"id\":\"20250101_000000_%06x\",\"title\":\"imported %d\",\"title_source\":\"user\",\"created_at\":1735689600.0,\"updated_at\":1735689600.0,\"cwd\":\"/x\",\"message_count\":2,\"preview\":\"q\",\"messages\":[{\"role\":\"user\",\"content\":\"question %d\",\"ts\":1735689600.0},{\"role\":\"assistant\",\"content\":\"an answer long enough to take a little while to write, %d\",\"ts\":1735689601.0}]}\n", i, i, i, i
	}'
}

# traced_child PID: the pid of the process strace (pid PID) runs.
traced_child() {
	ps -o pid= --ppid "$1" | tr -d " " | head -1
}

test_expect_success 'Ctrl-C (SIGINT) during a large import: exit 130, no temporary left' '
	sessions_jsonl 20000 >big.jsonl &&
	hermes chat -q hi --no-agent -Q &&
	{ $interruptible hermes sessions import big.jsonl >out 2>err & } &&
	importer=$! &&
	poll_until -t 60 temporaries_reach 1 &&
	kill -INT $importer &&
	test_expect_code 130 wait $importer &&
	test "$(temporaries)" = 0 &&
	grep "^hermes: interrupted$" err &&
	# what was committed before the signal is whole and listed
	hermes sessions list --all >/dev/null 2>warnings &&
	test_must_be_empty warnings
'

test_expect_success STRACE_DELAY 'SIGTERM while an import makes its staged files durable: none of them is left' '
	sessions_jsonl 500 >some.jsonl &&
	hermes chat -q hi --no-agent -Q &&
	{ strace -f -qq -o /dev/null -e trace=syncfs,sync -e inject=syncfs,sync:delay_enter=3000000 \
		hermes sessions import some.jsonl >out 2>err & } &&
	tracer=$! &&
	poll_until -t 30 temporaries_reach 500 &&
	kill -TERM "$(traced_child $tracer)" &&
	wait $tracer
	test $? = 130 &&
	test "$(temporaries)" = 0 &&
	test "$(session_count)" = 1
'

test_expect_success STRACE_DELAY 'SIGTERM while a rename rewrites a large session: the temporary goes, the session is as it was' '
	head -c 15000000 /dev/zero | tr "\\000" a | hermes chat --title large -q - --no-agent -Q &&
	id=$(session_id_by_title large) &&
	cp "$HERMES_HOME/sessions/$id.json" before &&
	{ strace -f -qq -o /dev/null -e trace=fdatasync,fsync -e inject=fdatasync,fsync:delay_enter=3000000 \
		hermes sessions rename large renamed >out 2>err & } &&
	tracer=$! &&
	poll_until -t 30 temporaries_reach 1 &&
	kill -TERM "$(traced_child $tracer)" &&
	wait $tracer
	test $? = 130 &&
	test "$(temporaries)" = 0 &&
	cmp before "$HERMES_HOME/sessions/$id.json"
'

test_expect_success 'stats reports stray temporaries: count and bytes, young ones too' '
	hermes chat -q hi --no-agent -Q &&
	id=$(only_id) &&
	printf 12345 >"$HERMES_HOME/sessions/.$id.json.0123456789ab.tmp" &&
	printf 1234567890 >"$HERMES_HOME/.index.0123456789ab.tmp" &&
	printf x >"$HERMES_HOME/sessions/.notes.tmp" &&
	hermes sessions stats >out &&
	grep "^temporaries:  2 (15 bytes)$" out &&
	hermes sessions stats --json >out &&
	grep "\"temporaries\":2,\"temporary_bytes\":15,\"budget\":300000,\"over_budget\":0,\"usage\":null}$" out
'

test_expect_success STRACE_DELAY 'prune removes a young temporary no writer holds, and keeps the one a live writer is writing' '
	hermes chat --title busy -q hi --no-agent -Q &&
	hermes chat --title idle -q hi --no-agent -Q &&
	busy=$(session_id_by_title busy) &&
	idle=$(session_id_by_title idle) &&
	# left by a writer that was killed a moment ago
	echo partial >"$HERMES_HOME/sessions/.$idle.json.0123456789ab.tmp" &&
	hermes sessions prune --older-than 1000 --dry-run >dry 2>err &&
	grep "would remove .*/\.$idle\.json\.0123456789ab\.tmp$" dry &&
	# a live writer: its temporary waits at fdatasync, under its lock
	{ strace -f -qq -o /dev/null -e trace=fdatasync,fsync -e inject=fdatasync,fsync:delay_enter=4000000 \
		hermes chat -c busy -q more --no-agent -Q & } &&
	writer=$! &&
	poll_until -t 30 busy_temporary "$busy" &&
	hermes sessions prune --older-than 1000 --yes 2>err &&
	echo "removed 0 sessions, 1 temporary file, 0 breadcrumbs" >expect &&
	test_cmp expect err &&
	wait $writer &&
	test "$(temporaries)" = 0 &&
	hermes sessions show busy --json | grep "\"content\":\"more\""
'

test_done
