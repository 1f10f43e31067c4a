#!/bin/sh
test_description='memory flat in the size of a session and of the store: every verb reads a session of 100,000 messages (48 MB) a message at a time, in under 32 MiB; an import keeps nothing per session it writes (issue 44)'
. "$(dirname "$0")/lib.sh"

test_native_script "qemu-user's own memory (its translated code grows with the work done) is in every peak measured"

# GNU time(1) reports the peak resident set size of what it ran.
test_lazy_prereq GNU_TIME '/usr/bin/time -f %M -o /dev/null true'

ID=20250601_120000_b16b16
LIMIT=32768

# A store in $TRASH_ROOT/big holding session $ID: 100,000 messages as
# hermes writes them (its own form, one a line), questions and replies of
# a paragraph and a list item, every thousandth reply with its tokens
# (which hermes writes in another form). Made once, for every test.
big_store() {
	test -f "$TRASH_ROOT/big/sessions/$ID.json" && return 0
	(umask 077 && mkdir -p "$TRASH_ROOT/big/sessions") &&
	awk -v id="$ID" 'BEGIN {
		line = "the worker retries the queue after a socket timeout, and the cache holds the session tokens for a short while; check the proxy idle timeout, then the pool size, and keep the retries bounded so that a slow backend cannot hold every connection at once"
		n = 100000
		printf "{\"format\":1,\"id\":\"%s\",\"title\":\"long thread\",\"title_source\":\"user\",\"created_at\":1748779200.5,\"updated_at\":%d.25,\"cwd\":\"/srv/app\",\"message_count\":%d,\"preview\":\"question 0\",\"messages\":[", id, 1748779200 + 10 * (n - 1), n
		for (i = 0; i < n; i++) {
			ts = sprintf("%d.%s", 1748779200 + 10 * i, i % 2 ? "25" : "5")
			if (i % 2 == 0)
				m = sprintf("{\"role\":\"user\",\"content\":\"question %d: why does the worker time out on the queue when the cache is cold?\",\"ts\":%s}", i, ts)
			else if (i % 1000 == 1)
				m = sprintf("{\"role\":\"assistant\",\"content\":\"reply %d: %s\",\"ts\":%s,\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":120,\"total_tokens\":%d}}", i, line, ts, i, i + 120)
			else
				m = sprintf("{\"role\":\"assistant\",\"content\":\"reply %d: %s %s\\n\\n- %s\",\"ts\":%s}", i, line, line, line, ts)
			printf "%s\n%s", (i ? "," : ""), m
		}
		print "\n]}"
	}' >"$TRASH_ROOT/big/sessions/$ID.json.part" &&
	chmod 600 "$TRASH_ROOT/big/sessions/$ID.json.part" &&
	mv "$TRASH_ROOT/big/sessions/$ID.json.part" "$TRASH_ROOT/big/sessions/$ID.json"
}

# big_home: this test's store, a copy of the big one.
big_home() {
	big_store &&
	mkdir -p "$HERMES_HOME" && chmod 700 "$HERMES_HOME" &&
	cp -p -R "$TRASH_ROOT/big/sessions" "$HERMES_HOME/"
}

# same_messages FILE1 FILE2: two session files hold the same messages, byte
# for byte (an import makes the header's counts anew).
same_messages() {
	sed 1d "$1" >messages1 &&
	sed 1d "$2" >messages2 &&
	test "$(wc -l <messages1)" -gt 1 &&
	cmp messages1 messages2
}

# under KIB CMD...: CMD run (its output in out, its errors in err), its
# peak resident set a figure; fails when CMD fails or its peak was not
# under KIB KiB.
under() {
	under_limit=$1 &&
	shift &&
	/usr/bin/time -f %M -o rss "$@" >out 2>err &&
	under_kib=$(tail -n 1 rss) &&
	figure "t3230: $under_kib KiB: $*" &&
	test "$under_kib" -lt "$under_limit"
}

test_expect_success 'the session is in the form hermes writes: show --json gives the file itself' '
	big_home &&
	test "$(wc -c <"$HERMES_HOME/sessions/$ID.json")" -gt 45000000 &&
	hermes sessions show --json $ID >shown &&
	cmp shown "$HERMES_HOME/sessions/$ID.json" &&
	hermes sessions stats --json $ID >stats &&
	grep "\"messages\":100000," stats
'

test_expect_success GNU_TIME 'show into a pipe and show --json: a message at a time, under 32 MiB' '
	big_home &&
	under $LIMIT hermes sessions show $ID &&
	test "$(grep -c "^\[user\] " out)" = 50000 &&
	tail -n 3 out >last &&
	grep "^- the worker retries" last &&
	under $LIMIT hermes sessions show --json $ID &&
	cmp out "$HERMES_HOME/sessions/$ID.json"
'

test_expect_success GNU_TIME,SCRIPT 'show drawn on a terminal, and through a pager: under 32 MiB' '
	big_home &&
	PAGER=cat run_in_pty "/usr/bin/time -f %M -o tty.rss hermes sessions show $ID" >drawn &&
	grep "question 99998: why does" drawn >/dev/null &&
	HERMES_PAGER="cat >paged" run_in_pty "/usr/bin/time -f %M -o pager.rss hermes sessions show $ID" >/dev/null &&
	grep "question 99998: why does" paged >/dev/null &&
	figure "t3230: show on a terminal $(tail -n 1 tty.rss) KiB, through a pager $(tail -n 1 pager.rss) KiB" &&
	test "$(tail -n 1 tty.rss)" -lt $LIMIT &&
	test "$(tail -n 1 pager.rss)" -lt $LIMIT
'

test_expect_success GNU_TIME 'export in every format: under 32 MiB, and what it writes imports back as it was' '
	big_home &&
	under $LIMIT hermes sessions export $ID &&
	mv out export.json &&
	under $LIMIT hermes sessions export --format jsonl $ID &&
	mv out export.jsonl &&
	under $LIMIT hermes sessions export --format markdown $ID &&
	test "$(grep -c "^## user (" out)" = 50000 &&
	test "$(wc -l <export.jsonl)" = 1 &&
	mkdir -p again &&
	HERMES_HOME=$TRASH/again hermes sessions import export.json 2>err &&
	same_messages "$HERMES_HOME/sessions/$ID.json" again/sessions/$ID.json
'

test_expect_success GNU_TIME 'search reads every message: under 32 MiB' '
	big_home &&
	under $LIMIT hermes sessions search "question 99998:" &&
	grep "question 99998:" out
'

test_expect_success GNU_TIME 'import of the session from a jsonl and a json export: under 32 MiB, every message as it was' '
	big_home &&
	hermes sessions export --format jsonl $ID >in.jsonl &&
	hermes sessions export $ID >in.json &&
	for form in jsonl json; do
		rm -rf fresh &&
		HERMES_HOME=$TRASH/fresh under $LIMIT hermes sessions import in.$form &&
		grep "^imported 1 session" err &&
		same_messages "$HERMES_HOME/sessions/$ID.json" fresh/sessions/$ID.json || return 1
	done
'

test_expect_success GNU_TIME 'merge of a conflict copy one message ahead: under 32 MiB, the message added' '
	big_home &&
	copy="$HERMES_HOME/sessions/$ID.sync-conflict-20250601-120000-ABCDEFG.json" &&
	sed "\$d" "$HERMES_HOME/sessions/$ID.json" >"$copy" &&
	printf ",\n{\"role\":\"user\",\"content\":\"from the laptop\",\"ts\":1749779300.5}\n]}\n" >>"$copy" &&
	chmod 600 "$copy" &&
	under $LIMIT hermes sessions merge --dry-run &&
	under $LIMIT hermes sessions merge --yes &&
	grep "1 new message" out &&
	! test -e "$copy" &&
	tail -n 2 "$HERMES_HOME/sessions/$ID.json" | grep "from the laptop"
'

test_expect_success GNU_TIME 'repair of a damaged message, and --dry-run: under 32 MiB, every other message kept' '
	big_home &&
	sed "50001s/\"content\":\"reply/\"content\":\"\\\\q/" "$HERMES_HOME/sessions/$ID.json" >damaged &&
	chmod 600 damaged &&
	cp damaged damaged.orig &&
	mv damaged "$HERMES_HOME/sessions/$ID.json" &&
	under $LIMIT hermes sessions repair --dry-run $ID &&
	grep "^would keep 99999 readable messages" out &&
	grep "^  message 50000: " out &&
	under $LIMIT hermes sessions repair $ID &&
	grep "^repaired session $ID .long thread.: kept 99999" out &&
	cmp damaged.orig "$HERMES_HOME"/damaged/$ID.json.* &&
	hermes sessions stats --json $ID >stats &&
	grep "\"messages\":99999," stats
'

# These stayed flat before: held so.
test_expect_success GNU_TIME 'stats of the session, a turn sending all of it, its compaction: under 32 MiB' '
	big_home &&
	under $LIMIT hermes sessions stats $ID &&
	under $LIMIT hermes chat -r $ID -q "and now?" --context 100000000 --agent "wc -c; echo" -Q &&
	test "$(head -n 1 out)" -gt 45000000 &&
	under $LIMIT hermes sessions compact $ID --keep 10 --agent "cat >/dev/null; echo the summary" &&
	grep "^compacted: " err
'

test_expect_success GNU_TIME 'an import keeps no list of the sessions it writes: 20,000 with long directories in under 24 MiB' '
	awk "BEGIN {
		for (i = 0; i < 16; i++) pad = pad \"/deeply/nested/project/dir\"
		for (i = 0; i < 20000; i++) {
			t = 1767261600 + i * 7
			printf \"{\\\"format\\\":1,\\\"id\\\":\\\"20260101_%06d_%06x\\\",\\\"title\\\":\\\"a conversation about the queue, number %d of many\\\",\\\"title_source\\\":\\\"user\\\",\\\"created_at\\\":%d.0,\\\"updated_at\\\":%d.5,\\\"cwd\\\":\\\"/home/ana%s/%d\\\",\\\"message_count\\\":1,\\\"preview\\\":\\\"why %d\\\",\\\"messages\\\":[{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"why %d\\\",\\\"ts\\\":%d.5}]}\\n\", int(i / 60), i, i, t, t, pad, i, i, i, t
		}
	}" >wide.jsonl &&
	under 24576 hermes sessions import wide.jsonl &&
	grep "^imported 20000 sessions" err &&
	test -s "$HERMES_HOME/catalog-state" &&
	hermes sessions list --all >listed &&
	test_line_count = 20000 listed
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
