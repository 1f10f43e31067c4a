#!/bin/sh
test_description='hermes sessions prune removes only what is certainly unused'
. "$(dirname "$0")/lib.sh"

# mk_crumb KEY SESSION_ID: a breadcrumb file, written now.
mk_crumb () {
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	printf '{"session_id":"%s","cwd":"/x","ts":%s,"leader":""}\n' "$2" "$(date +%s)" \
		>"$HERMES_HOME/terminal-sessions/$1.$MACHINE.json"
}

# remaining DIR: the files left in DIR, one a line.
remaining () {
	ls -A "$1" | grep -v "^\.lock\$"
}

# hold_session_lock ID: what a hermes appending to session ID does first:
# hold that session's lock (one byte of $HERMES_HOME/.lock, as in
# src/store/lock.rs) and say so in "held". Once another process holds the store
# lock (byte 0: prune, about to remove sessions), say so in "pruning";
# let go when the file "release" appears. Gives up by itself after 60 s.
hold_session_lock () {
	python3 - "$HERMES_HOME/.lock" "$1" <<-\EOF
	import fcntl, os, sys, time
	h = 0xcbf29ce484222325
	for b in sys.argv[2].encode():
	    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
	fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
	fcntl.lockf(fd, fcntl.LOCK_EX, 1, 1 + h % (1 << 20), 0)
	open("held", "w").close()
	deadline = time.time() + 60
	while time.time() < deadline:
	    try:
	        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0, 0)
	        fcntl.lockf(fd, fcntl.LOCK_UN, 1, 0, 0)
	    except OSError:
	        break
	    time.sleep(0.02)
	open("pruning", "w").close()
	while not os.path.exists("release") and time.time() < deadline:
	    time.sleep(0.05)
	EOF
}

# 1577872800 is 2020-01-01 10:00 UTC.
OLD=20200101_090000_aaaaaa

test_expect_success PYTHON3 'a session written to while prune waits for its lock is kept' '
	S="$HERMES_HOME/sessions" &&
	mk_session $OLD "old" user 1577872800 /x user hi &&
	mk_crumb tmux_pane--1 $OLD &&
	{ hold_session_lock $OLD & } &&
	holder=$! &&
	wait_for_file held 10 &&
	{ hermes sessions prune --older-than 30 --yes >out 2>err & } &&
	pruning=$! &&
	# prune has seen an old session and holds the store lock; give it a
	# moment more to go as far as it can before the session lock.
	wait_for_file pruning 20 &&
	sleep 1 &&
	# The append, under the session lock, as hermes chat makes it.
	now=$(date +%s) &&
	mk_session $OLD "old" user "$now" /x user hi assistant "new answer" &&
	touch release &&
	wait $holder &&
	wait $pruning &&
	test_must_be_empty out &&
	echo "removed 0 sessions, 0 temporary files, 0 breadcrumbs" >expect &&
	test_cmp expect err &&
	test "$(field $OLD updated_at)" = "$now" &&
	messages $OLD >msgs &&
	printf "user: hi\nassistant: new answer\n" >expect &&
	test_cmp expect msgs &&
	remaining "$HERMES_HOME/terminal-sessions" >crumbs &&
	echo tmux_pane--1.$MACHINE.json >expect &&
	test_cmp expect crumbs
'

test_expect_success 'an old session written by a newer hermes is kept, and prune says so' '
	S="$HERMES_HOME/sessions" &&
	mk_session $OLD "from the future" user 1577872800 /x user hi &&
	sed "s/^{\"format\":1,/{\"format\":2,/" "$S/$OLD.json" >future &&
	mv future "$S/$OLD.json" &&
	cp "$S/$OLD.json" before &&
	mk_session 20200102_090000_bbbbbb "old" user 1577959200 /x user hi &&
	mk_crumb tmux_pane--1 $OLD &&
	hermes sessions prune --older-than 30 --dry-run >out 2>err &&
	echo "would remove session 20200102_090000_bbbbbb '"'old'"' (last active 2020-01-02 10:00)" >expect &&
	test_cmp expect out &&
	cat >expect <<-EOF &&
	hermes: $S/$OLD.json: written in format 2 by a newer hermes; left in place
	dry run: 1 session, 0 temporary files, 0 breadcrumbs would be removed
	EOF
	test_cmp expect err &&
	hermes sessions prune --older-than 30 --yes >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	hermes: $S/$OLD.json: written in format 2 by a newer hermes; left in place
	removed 1 session, 0 temporary files, 0 breadcrumbs
	EOF
	test_cmp expect err &&
	test_cmp before "$S/$OLD.json" &&
	remaining "$S" >files &&
	echo $OLD.json >expect &&
	test_cmp expect files &&
	remaining "$HERMES_HOME/terminal-sessions" >crumbs &&
	echo tmux_pane--1.$MACHINE.json >expect &&
	test_cmp expect crumbs &&
	# Asked for by name, it can still go.
	hermes sessions delete $OLD --yes 2>err &&
	test "$(session_count)" = 0
'

test_expect_success 'breadcrumbs go when older than 30 days or when their session file is gone, only then' '
	S="$HERMES_HOME/sessions" T="$HERMES_HOME/terminal-sessions" &&
	mk_session 20260101_090000_cccccc "recent" user "$(date +%s)" /x user hi &&
	echo "{\"format\":1," >"$S/$OLD.json" &&
	mk_crumb tmux_pane--1 $OLD &&
	mk_crumb tmux_pane--2 20200102_090000_dddddd &&
	echo "not a breadcrumb" >"$T/tmux_pane--3.$MACHINE.json" &&
	mk_crumb tmux_pane--4 20260101_090000_cccccc &&
	touch -t 202001010000 "$T/tmux_pane--4.$MACHINE.json" &&
	mk_crumb tmux_pane--5 ../../etc/passwd &&
	mk_crumb tmux_pane--6 20260101_090000_cccccc &&
	hermes sessions prune --older-than 30 --dry-run >out 2>err &&
	cat >expect <<-EOF &&
	would remove $T/tmux_pane--2.$MACHINE.json
	would remove $T/tmux_pane--4.$MACHINE.json
	would remove $T/tmux_pane--5.$MACHINE.json
	EOF
	test_cmp expect out &&
	hermes sessions prune --older-than 30 --yes >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: warning: $S/$OLD.json: not a valid session file (.*); left in place\$" err &&
	tail -n 1 err >last &&
	echo "removed 0 sessions, 0 temporary files, 3 breadcrumbs" >expect &&
	test_cmp expect last &&
	remaining "$T" >crumbs &&
	cat >expect <<-EOF &&
	tmux_pane--1.$MACHINE.json
	tmux_pane--3.$MACHINE.json
	tmux_pane--6.$MACHINE.json
	EOF
	test_cmp expect crumbs &&
	echo "{\"format\":1," >expect &&
	test_cmp expect "$S/$OLD.json"
'

test_expect_success 'prune --help says exactly what prune removes' '
	hermes sessions prune --help >out &&
	sed -n "3,9p" out >actual &&
	cat >expect <<-\EOF &&
	Delete sessions with no activity for DAYS days, temporary files of
	interrupted writes (of a session once no running hermes holds its lock,
	others once an hour old), breadcrumbs older than 30 days, and
	breadcrumbs pointing at a session file that does not exist (or that this
	prune removes), and images in images/ that no session names (once a
	minute old). Damaged session files, sessions written by a newer hermes
	and sessions written to while prune runs are left in place.
	EOF
	test_cmp expect actual &&
	# The man page says the same.
	sed -e "s/\\\\-/-/g" "$ROOT/man/hermes.1" | tr -s " \n" "  " >man &&
	grep -F "days, temporary files of interrupted writes (of a session once no running hermes holds its lock, others once an hour old), breadcrumbs older than 30 days, and breadcrumbs pointing at a session file that does not exist (or that this prune removes), and images in images/ that no session names (once a minute old). Damaged session files, sessions written by a newer hermes and sessions written to while prune runs are left in place." man
'

test_expect_success SCRIPT 'a breadcrumb refreshed while prune asks its question is kept' '
	TMUX_PANE=%5 hermes chat -q "pane five" --no-agent -Q &&
	crumb=$HERMES_HOME/terminal-sessions/tmux_pane--5.$MACHINE.json &&
	touch -d "40 days ago" "$crumb" &&
	# Answer y only once pane %5 has chatted again, after the question.
	{
		poll_until grep "y/N" raw >/dev/null &&
		TMUX_PANE=%5 hermes chat -c -q "again" --no-agent -Q &&
		echo y
	} | run_in_pty "hermes sessions prune --older-than 30" >raw &&
	grep "1 breadcrumb?" raw &&
	test -f "$crumb" &&
	TMUX_PANE=%5 hermes sessions current >current.out &&
	check_current current.out "$(session_id_by_title "pane five")" breadcrumb
'

test_done
