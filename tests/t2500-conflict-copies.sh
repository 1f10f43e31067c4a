#!/bin/sh
test_description='conflict copies of sync tools and editors: warned about, merged'
. "$(dirname "$0")/lib.sh"

# Two machines are two homes here: the store is copied, each side chats on,
# and the other side's file comes back the way a sync tool brings it, as a
# conflict copy beside the session.

S() {
	echo "$HERMES_HOME/sessions"
}

# two_sides: session "thread" with one exchange, copied to home B; then A
# and B each add a message. Sets $ID and $B (B's home).
two_sides() {
	hermes chat --title thread -q "first" --no-agent -Q &&
	ID=$(session_id_by_title thread) &&
	B=$TRASH/home-b &&
	cp -R "$HERMES_HOME" "$B" &&
	hermes chat -c thread -q "on a" --no-agent -Q &&
	HERMES_HOME=$B hermes chat -c thread -q "on b" --no-agent -Q
}

# as_copy NAME: B's version of the session, laid beside A's as NAME (ID
# stands for the session ID).
as_copy() {
	cp "$B/sessions/$ID.json" "$(S)/$(echo "$1" | sed "s/ID/$ID/")"
}

contents() {
	hermes sessions show "$1" --json | tr "{" "\n" | sed -n "s/.*\"content\":\"\([^\"]*\)\".*/\1/p"
}

copy_warning() {
	if test "$1" = 1; then
		echo "hermes: warning: 1 conflict copy of a session (from a sync tool or an editor) is not listed; merge it with 'hermes sessions merge'"
	else
		echo "hermes: warning: $1 conflict copies of sessions (from a sync tool or an editor) are not listed; merge them with 'hermes sessions merge'"
	fi
}

test_expect_success 'list and stats warn once, with a count, about every kind of copy' '
	two_sides &&
	hermes sessions list >out 2>err &&
	test_must_be_empty err &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	hermes sessions list >out 2>err &&
	copy_warning 1 >expect &&
	test_cmp expect err &&
	test_line_count = 1 out &&
	as_copy "ID (conflicted copy 2026-12-02).json" &&
	as_copy "ID (ana'"'"'s conflicted copy 2026-12-02 120000).json" &&
	as_copy "ID.json~" &&
	# Not copies: other files are none of hermes'"'"'s business.
	echo x >"$(S)/notes.txt" &&
	echo x >"$(S)/$ID.json.bak" &&
	hermes sessions list >out 2>err &&
	copy_warning 4 >expect &&
	test_cmp expect err &&
	hermes sessions stats >out 2>err &&
	test_cmp expect err &&
	grep "^sessions: *1\$" out &&
	hermes sessions list --json >out 2>err &&
	test_cmp expect err
'

test_expect_success 'merge --dry-run says what it would do and changes nothing' '
	two_sides &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	find "$HERMES_HOME" -type f | sort | xargs cksum >before &&
	hermes sessions merge --dry-run >out 2>err &&
	echo "would merge $ID.sync-conflict-20261202-120000-ABCDEFG.json into $ID '"'thread'"': 1 new message" >expect &&
	test_cmp expect out &&
	echo "dry run: 1 conflict copy would be merged" >expect &&
	test_cmp expect err &&
	find "$HERMES_HOME" -type f | sort | xargs cksum >after &&
	test_cmp before after
'

test_expect_success 'merge unites both sides in time order, each message once, and removes the copy' '
	two_sides &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	hermes sessions merge --yes >out 2>err &&
	echo "merged $ID.sync-conflict-20261202-120000-ABCDEFG.json into $ID '"'thread'"': 1 new message" >expect &&
	test_cmp expect out &&
	echo "merged 1 conflict copy" >expect &&
	test_cmp expect err &&
	printf "%s\n" first "on a" "on b" >expect &&
	contents thread >actual &&
	test_cmp expect actual &&
	test "$(field $ID message_count)" = 3 &&
	echo $ID.json >expect &&
	ls "$(S)" >actual &&
	test_cmp expect actual &&
	# The header is worked out again: the newest message is the last activity.
	last_ts=$(tr -d "\n" <"$(S)/$ID.json" | sed "s/.*\"ts\":\([0-9.]*\)}.*/\1/") &&
	test "$(field $ID updated_at)" = "$last_ts" &&
	hermes sessions list >out 2>err &&
	test_must_be_empty err &&
	# Nothing is left to merge, and merging again changes nothing.
	hermes sessions merge --yes >out 2>err &&
	echo "no conflict copies to merge" >expect &&
	test_cmp expect err
'

test_expect_success 'several copies of one session, and the same message on both sides, end up once' '
	two_sides &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	as_copy "ID (conflicted copy 2026-12-02).json" &&
	cp "$(S)/$ID.json" "$(S)/$ID.json~" &&
	hermes sessions merge --yes >out 2>err &&
	test_line_count = 3 out &&
	printf "%s\n" first "on a" "on b" >expect &&
	contents thread >actual &&
	test_cmp expect actual &&
	echo $ID.json >expect &&
	ls "$(S)" >actual &&
	test_cmp expect actual
'

test_expect_success 'a title a person gave wins over an automatic one, on either side' '
	hermes chat -q "an automatic title" --no-agent -Q &&
	ID=$(only_id) &&
	B=$TRASH/home-b &&
	cp -R "$HERMES_HOME" "$B" &&
	HERMES_HOME=$B hermes sessions rename "an automatic title" "named on b" &&
	as_copy "ID.json~" &&
	hermes sessions merge --yes >out 2>err &&
	test "$(field $ID title)" = "named on b" &&
	test "$(field $ID title_source)" = user
'

test_expect_success 'two different user titles: the session keeps its own and says so' '
	two_sides &&
	HERMES_HOME=$B hermes sessions rename thread "b thread" &&
	as_copy "ID.json~" &&
	hermes sessions merge --yes >out 2>err &&
	test "$(field $ID title)" = thread &&
	grep "^hermes: warning: $ID.json~: titled '"'b thread'"' there; the session keeps its title '"'thread'"'" err &&
	printf "%s\n" first "on a" "on b" >expect &&
	contents thread >actual &&
	test_cmp expect actual
'

test_expect_success 'a copy whose session is gone becomes the session with --restore' '
	two_sides &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	hermes sessions delete thread --yes &&
	hermes sessions merge --restore --yes >out 2>err &&
	echo "restored session $ID '"'thread'"' from $ID.sync-conflict-20261202-120000-ABCDEFG.json: 2 messages" >expect &&
	test_cmp expect out &&
	printf "%s\n" first "on b" >expect &&
	contents thread >actual &&
	test_cmp expect actual &&
	test "$(file_mode "$(S)/$ID.json")" = 600
'

test_expect_success 'a damaged copy is named and left alone; the others are merged (exit 4)' '
	two_sides &&
	as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
	head -c 150 "$B/sessions/$ID.json" >"$(S)/$ID.json~" &&
	cp "$(S)/$ID.json~" damaged.before &&
	test_expect_code 4 hermes sessions merge --yes >out 2>err &&
	grep "^hermes: warning: $(S)/$ID.json~: not a valid session file (.*); left untouched\$" err &&
	grep "^hermes: 1 conflict copy could not be merged (named above); fix or remove it\$" err &&
	test_cmp damaged.before "$(S)/$ID.json~" &&
	test_line_count = 1 out &&
	printf "%s\n" first "on a" "on b" >expect &&
	contents thread >actual &&
	test_cmp expect actual
'

test_expect_success 'a copy that names another session in its header is not merged into this one' '
	two_sides &&
	hermes chat -q other --no-agent -Q &&
	OTHER=$(session_id_by_title other) &&
	cp "$(S)/$OTHER.json" "$(S)/$ID.json~" &&
	test_expect_code 4 hermes sessions merge --yes >out 2>err &&
	grep "it says it is session .$OTHER., not the one its name says" err &&
	test -f "$(S)/$ID.json~" &&
	test "$(field $ID message_count)" = 2
'

test_expect_success 'off a terminal merge needs --yes, and does nothing without it' '
	two_sides &&
	as_copy "ID.json~" &&
	find "$HERMES_HOME" -type f | sort | xargs cksum >before &&
	test_expect_code 2 hermes sessions merge >out 2>err &&
	echo "hermes: not merging without confirmation: stdin is not a terminal; add --yes to hermes sessions merge" >expect &&
	test_cmp expect err &&
	find "$HERMES_HOME" -type f | sort | xargs cksum >after &&
	test_cmp before after
'

# start_racer: 20 appends to "thread" in the background; $racer is its PID.
start_racer() {
	(
		i=0
		while test $i -lt 20; do
			hermes chat -c thread -q "racing $i" --no-agent -Q || exit 1
			i=$((i + 1))
		done
	) &
	racer=$!
}

test_expect_success 'appends racing a merge lose nothing' '
	two_sides &&
	i=0 &&
	while test $i -lt 20; do
		cp "$B/sessions/$ID.json" "$(S)/$ID.sync-conflict-20261202-1200$(printf %02d $i)-ABCDEFG.json" &&
		i=$((i + 1)) || return 1
	done &&
	start_racer &&
	hermes sessions merge --yes >out 2>err &&
	wait $racer &&
	hermes sessions merge --yes >>out 2>>err &&
	contents thread >actual &&
	test_line_count = 23 actual &&
	grep -c "^racing " actual >count &&
	echo 20 >expect &&
	test_cmp expect count &&
	grep -x "on b" actual &&
	test "$(field $ID message_count)" = 23
'

# merge_killed_at SYSCALL N: merge, killed (SIGKILL) at its Nth SYSCALL.
merge_killed_at() {
	strace -f -o /dev/null -e trace="$1" -e inject="$1":signal=KILL:when="$2" \
		hermes sessions merge --yes >/dev/null 2>&1
	test $? = 137
}

test_lazy_prereq STRACE_INJECT 'strace -f -o /dev/null -e trace=getpid -e inject=getpid:retval=1 true'

# The points: the merged file's temporary written and synced (fsync #1) but
# not renamed; renamed (the directory not yet synced); the directory synced
# (fsync #2) but the copy not yet removed; the copy's unlink.
for point in "fsync,fdatasync 1" "$(syscalls rename) 1" "fsync,fdatasync 2" "$(syscalls unlink) 1"; do
	test_expect_success STRACE_INJECT "killed -9 at ${point% *} #${point#* } of a merge: nothing lost, merging again finishes" '
		two_sides &&
		as_copy "ID.sync-conflict-20261202-120000-ABCDEFG.json" &&
		merge_killed_at '"$point"' &&
		# The session is whole, before or after the merge; the copy is still
		# there unless the merged file was already safe.
		hermes sessions show thread >/dev/null &&
		contents thread >during &&
		{ test -f "$(S)/$ID.sync-conflict-20261202-120000-ABCDEFG.json" || grep -x "on b" during; } &&
		hermes sessions merge --yes >out 2>err &&
		printf "%s\n" first "on a" "on b" >expect &&
		contents thread >actual &&
		test_cmp expect actual &&
		echo $ID.json >expect &&
		ls "$(S)" | grep -v "^\\..*\\.tmp\$" >actual &&
		test_cmp expect actual
	'
done

test_done
