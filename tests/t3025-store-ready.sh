#!/bin/sh
test_description='after an import the store is ready (catalog and index written by it); list --json and the ! mark take sizes from the index, not every file'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq STRACE 'command -v strace && strace -f -o /dev/null true'
test_lazy_prereq SCRIPT 'command -v script'

# sessions N: N sessions in export --format jsonl form, each of 12 messages
# of 500 characters (some 6 KB), one a minute from 2026-01-01, titled tI.
sessions() {
	awk -v n="$1" 'BEGIN {
		text = sprintf("%0500d", 7)
		for (i = 0; i < n; i++) {
			t = 1767225600 + i * 60
			msgs = ""
			for (j = 0; j < 12; j++)
				msgs = msgs (j ? "," : "") sprintf("{\"role\":\"%s\",\"content\":\"%s\",\"ts\":%d.1234567}", (j % 2 ? "assistant" : "user"), text, t + j)
			printf "{\"format\":1,\"id\":\"20260101_%06d_%06x\",\"title\":\"t%d\",\"title_source\":\"user\",\"created_at\":%d,\"updated_at\":%d,\"cwd\":\"/w\",\"message_count\":12,\"preview\":\"m\",\"messages\":[%s]}\n", i / 60, i, i, t, t + 11, msgs
		}
	}'
}

# opened TRACE: how many session files the traced process opened.
opened() {
	grep -c "sessions/[0-9_a-f]*\.json\"" "$1"
}

# read_bytes TRACE: how many bytes it read from session files.
read_bytes() {
	awk '
	{ sub(/^[0-9]+ +/, "") }
	/^open(at)?\(/ && /sessions\/[0-9_a-f]*\.json"/ { mine[$NF] = 1; next }
	/^(read|pread64)\(/ { fd = $0; sub(/^[a-z0-9]+\(/, "", fd); sub(/,.*/, "", fd); if (fd in mine) total += $NF }
	/^close\(/ { fd = $0; sub(/^close\(/, "", fd); sub(/\).*/, "", fd); delete mine[fd] }
	END { print total + 0 }' "$1"
}

# as_if_new CMD...: what CMD prints with no catalog and no index (every
# file read): the truth the caches must agree with.
as_if_new() {
	mkdir -p fresh &&
	cp -R "$HERMES_HOME/sessions" fresh/ &&
	chmod 700 fresh &&
	HERMES_HOME=$PWD/fresh "$@"
}

test_expect_success STRACE 'an import leaves a catalog and an index: the first list reads the sessions it shows, no other' '
	sessions 600 >in.jsonl &&
	hermes sessions import in.jsonl 2>err &&
	grep "imported 600 sessions" err &&
	test -s "$HERMES_HOME/catalog-state" &&
	test -s "$HERMES_HOME/index" &&
	strace -f -o trace -e trace=$(syscalls open) hermes sessions list >out &&
	test "$(opened trace)" -le 25 &&
	as_if_new hermes sessions list >expect &&
	test_cmp expect out &&
	# The catalog was believed: the listing wrote no new one.
	cp "$HERMES_HOME/catalog-state" state.before &&
	hermes sessions list >/dev/null &&
	test_cmp state.before "$HERMES_HOME/catalog-state"
'

test_expect_success STRACE 'and list --all after an import reads no session file' '
	sessions 600 >in.jsonl &&
	hermes sessions import in.jsonl 2>err &&
	strace -f -o trace -e trace=$(syscalls open),read,pread64,close hermes sessions list --all >out &&
	test "$(read_bytes trace)" = 0 &&
	as_if_new hermes sessions list --all >expect &&
	test_cmp expect out
'

test_expect_success STRACE 'list --json gives sizes from the index: it reads headers, not every message' '
	sessions 600 >in.jsonl &&
	hermes sessions import in.jsonl 2>err &&
	strace -f -o trace -e trace=$(syscalls open),read,pread64,close hermes sessions list --json >out &&
	# 20 rows: a header (4 KiB) and a file end each at most.
	test "$(read_bytes trace)" -le $((20 * 4112)) &&
	json_get out "[s[\"chars\"] for s in v][:2]" >sizes &&
	printf "6000\n6000\n" >expect && test_cmp expect sizes &&
	as_if_new hermes sessions list --json >expect &&
	test_cmp expect out &&
	strace -f -o trace -e trace=$(syscalls open),read,pread64,close hermes sessions list --all --json >out &&
	test "$(read_bytes trace)" = 0 &&
	as_if_new hermes sessions list --all --json >expect &&
	test_cmp expect out
'

test_expect_success STRACE,SCRIPT 'the ! mark on a terminal takes sizes from the index' '
	sessions 600 >in.jsonl &&
	hermes sessions import in.jsonl 2>err &&
	printf "context = \"1000\"\n" >"$HERMES_HOME/config.toml" &&
	run_in_pty "strace -f -o trace -e trace=$(syscalls open),read,pread64,close hermes sessions list" >screen &&
	test "$(read_bytes trace)" -le $((20 * 4112)) &&
	grep "!12 " screen &&
	grep "marks sessions over the context budget" screen
'

test_done
