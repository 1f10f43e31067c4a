#!/bin/sh
test_description='sessions list beyond one page (10,000 rows): same rows, same order, nothing lost'
. "$(dirname "$0")/lib.sh"

# gen N: N minimal sessions in export --format jsonl form, one a minute,
# so their activity order is the reverse of their ID order.
gen() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) {
			t = 1767225600 + i * 60
			printf "{\"format\":1,\"id\":\"20260101_%06d_%06x\",\"title\":\"t%d\",\"title_source\":\"user\",\"created_at\":%d,\"updated_at\":%d,\"cwd\":\"/x\",\"message_count\":1,\"preview\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"m\",\"ts\":%d}]}\n", i / 60, i, i, t, t, t
		}
	}'
}

test_expect_success 'set up 10,050 sessions' '
	gen 10050 >s.jsonl &&
	hermes sessions import s.jsonl 2>err &&
	grep "imported 10050 sessions" err &&
	cp -R "$HERMES_HOME" "$TRASH_ROOT/large-home"
'

test_expect_success '--all lists every session, newest first, exactly once' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --all >out 2>err &&
	test_must_be_empty err &&
	test_line_count = 10050 out &&
	cut -f2 out >titles &&
	awk "BEGIN { for (i = 10049; i >= 0; i--) print \"t\" i }" >expect &&
	test_cmp expect titles
'

test_expect_success '--all --json holds every session, in the same order' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --all --json >out &&
	tr "{" "\n" <out | sed -n "s/.*\"title\":\"\([^\"]*\)\".*/\1/p" >titles &&
	awk "BEGIN { for (i = 10049; i >= 0; i--) print \"t\" i }" >expect &&
	test_cmp expect titles &&
	tail -c 2 out | od -c | grep "]  *\\\\n"
'

test_expect_success '--limit past one page cuts, and says so' '
	HERMES_HOME="$TRASH_ROOT/large-home" &&
	hermes sessions list --limit 10040 >out 2>err &&
	test_line_count = 10040 out &&
	echo "(10040 of 10050 sessions shown; use --limit N or --all to see more)" >expect &&
	test_cmp expect err &&
	head -1 out | cut -f2 >first &&
	echo t10049 >expect &&
	test_cmp expect first
'

test_done
