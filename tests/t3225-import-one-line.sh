#!/bin/sh
test_description='sessions import reads an llm log written as ONE line (a JSON array without newlines, as jq -c and json.dump write it) a piece at a time: a 60 MB one-line log imports under a 32 MB address-space limit, and a JSON Lines source refuses it by its first byte'
. "$(dirname "$0")/lib.sh"

# An apostrophe, for the expected texts (a test body holds none).
SQ="'"

# one_line_log N: an llm log of N exchanges (three to a conversation, each
# some 7 KB) as one JSON array on ONE line, without a newline at the end.
one_line_log() {
	awk -v n="$1" 'BEGIN {
		pad = sprintf("%600s", ""); gsub(/ /, "lorem ", pad)
		printf "["
		for (i = 0; i < n; i++) {
			c = int(i / 3)
			printf "%s{\"id\":\"ex%06d\",\"conversation_id\":\"conv%06d\",\"conversation_name\":\"thread %d\",", (i ? "," : ""), i, c, c
			printf "\"datetime_utc\":\"2026-01-01T%02d:%02d:%02d.000000+00:00\",\"model\":\"m\",", int(i / 3600) % 24, int(i / 60) % 60, i % 60
			printf "\"prompt\":\"question %d %s\",\"response\":\"answer %d %s\",\"tool_calls\":[],\"attachments\":[]}", i, pad, i, pad
		}
		printf "]"
	}'
}

# limited KB CMD...: CMD with its address space limited to KB kilobytes.
limited() {
	(
		kb=$1 &&
		shift &&
		ulimit -v "$kb" &&
		exec "$@"
	)
}

test_expect_success 'a 60 MB llm log on one line imports within 32 MB of address space' '
	test_native "qemu-user takes the address space of the machine it emulates for itself" &&
	one_line_log 8300 >log.json &&
	test "$(wc -c <log.json)" -gt 60000000 &&
	test "$(wc -l <log.json)" = 0 &&
	limited 32000 hermes sessions import --from llm log.json >out 2>err &&
	echo "imported 2767 sessions, skipped 0 that already existed" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2767 &&
	show_contents "thread 0" >contents &&
	test_line_count = 6 contents
'

test_expect_success 'another source given a one-line llm log refuses it at its first entry, within the same bound' '
	test_native "qemu-user takes the address space of the machine it emulates for itself" &&
	one_line_log 8300 >log.json &&
	test_expect_code 2 limited 32000 hermes sessions import log.json 2>err &&
	echo "hermes: log.json:1: not a hermes export (no \"messages\" field); it looks like llm${SQ}s logs: use --from llm; nothing was imported" >expect &&
	test_cmp expect err &&
	test_expect_code 2 limited 32000 hermes sessions import --from hermes-agent log.json 2>err &&
	grep "^hermes: log.json:1: a JSON array, not the JSON Lines of a Python Hermes export; it looks like llm${SQ}s logs: use --from llm" err &&
	test "$(session_count)" = 0
'

test_expect_success 'a one-line input that is not an array is still named by what it looks like' '
	printf "{\"format\":1,\"id\":\"x\",\"messages\":[]}" >one.jsonl &&
	test_expect_code 2 hermes sessions import --from llm one.jsonl 2>err &&
	grep "^hermes: one.jsonl:1: not llm${SQ}s logs (a JSON array was expected); it looks like" err
'

test_done
