#!/bin/sh
test_description='hermes sessions prune: old sessions, stray temporary files, stale breadcrumbs'
. "$(dirname "$0")/lib.sh"

# mk_session_at ID TITLE TIME: a session file holding one message, "hi";
# it was created, and last active, at TIME (unlike the sessions of the
# shared mk_session, created an hour before their last activity).
mk_session_at () {
	mkdir -p "$HERMES_HOME/sessions" &&
	printf '{"format":1,"id":"%s","title":"%s","title_source":"user","created_at":%s,"updated_at":%s,"cwd":"/x","message_count":1,"preview":"hi","messages":[\n{"role":"user","content":"hi","ts":%s}\n]}\n' \
		"$1" "$2" "$3" "$3" "$3" >"$HERMES_HOME/sessions/$1.json"
}

# mk_crumb KEY SESSION_ID: a breadcrumb file, written now.
mk_crumb () {
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	printf '{"session_id":"%s","cwd":"/x","ts":%s,"leader":""}\n' "$2" "$(date +%s)" \
		>"$HERMES_HOME/terminal-sessions/$1.$MACHINE.json"
}

# A store with something of every kind, old and new. 1577872800 is
# 2020-01-01 10:00 UTC; "old" files get a 2020 modification time.
# Sets $S and $T to the sessions and breadcrumb directories.
mixed_store () {
	S="$HERMES_HOME/sessions" T="$HERMES_HOME/terminal-sessions" &&
	now=$(date +%s) &&
	mk_session_at 20200101_090000_aaaaaa "old one" 1577872800 &&
	mk_session_at 20200102_090000_bbbbbb "old two" 1577959200 &&
	mk_session_at 20260101_090000_cccccc "recent" "$now" &&
	: >"$S/.20260101_090000_cccccc.json.0123456789ab.tmp" &&
	touch -t 202001010000 "$S/.20260101_090000_cccccc.json.0123456789ab.tmp" &&
	: >"$S/.20260101_090000_cccccc.json.ba9876543210.tmp" &&
	: >"$HERMES_HOME/.index.ba9876543210.tmp" &&
	: >"$S/notes.tmp" &&
	touch -t 202001010000 "$S/notes.tmp" &&
	mk_crumb tmux_pane--1 20260101_090000_cccccc &&
	mk_crumb tmux_pane--2 20200101_090000_aaaaaa &&
	mk_crumb tmux_pane--3 20251231_090000_dddddd &&
	mk_crumb tmux_pane--4 20260101_090000_cccccc &&
	touch -t 202001010000 "$T/tmux_pane--4.$MACHINE.json" &&
	find "$HERMES_HOME" -type f | sort >before
}

test_expect_success '--older-than is required, and must be a number of days' '
	test_expect_code 2 hermes sessions prune --yes 2>err &&
	cat >expect <<-\EOF &&
	hermes: sessions prune: --older-than DAYS is required; see '"'"'hermes sessions prune --help'"'"'
	EOF
	test_cmp expect err &&
	test_expect_code 2 hermes sessions prune --older-than soon --yes 2>err &&
	grep "^hermes: --older-than wants a number of days, not '"'soon'"'" err &&
	test_expect_code 2 hermes sessions prune --older-than -3 --yes 2>err &&
	test_expect_code 2 hermes sessions prune --older-than 2>err
'

test_expect_success '--dry-run lists what would go and removes nothing' '
	mixed_store &&
	hermes sessions prune --older-than 30 --dry-run >out 2>err &&
	cat >expect <<-EOF &&
	would remove session 20200101_090000_aaaaaa '"'old one'"' (last active 2020-01-01 10:00)
	would remove session 20200102_090000_bbbbbb '"'old two'"' (last active 2020-01-02 10:00)
	would remove $S/.20260101_090000_cccccc.json.0123456789ab.tmp
	would remove $S/.20260101_090000_cccccc.json.ba9876543210.tmp
	would remove $HERMES_HOME/terminal-sessions/tmux_pane--2.$MACHINE.json
	would remove $HERMES_HOME/terminal-sessions/tmux_pane--3.$MACHINE.json
	would remove $HERMES_HOME/terminal-sessions/tmux_pane--4.$MACHINE.json
	EOF
	test_cmp expect out &&
	echo "dry run: 2 sessions, 2 temporary files, 3 breadcrumbs would be removed" >expect &&
	test_cmp expect err &&
	find "$HERMES_HOME" -type f | sort >after &&
	test_cmp before after
'

test_expect_success 'without a terminal and without --yes: refused (exit 2), nothing removed' '
	mixed_store &&
	test_expect_code 2 hermes sessions prune --older-than 30 >out 2>err &&
	test_must_be_empty out &&
	echo "hermes: not deleting without confirmation: stdin is not a terminal; add --yes to hermes sessions prune" >expect &&
	test_cmp expect err &&
	find "$HERMES_HOME" -type f | sort >after &&
	test_cmp before after
'

test_expect_success '--yes removes old sessions, old temporaries, stale and orphaned breadcrumbs' '
	mixed_store &&
	hermes sessions prune --older-than 30 --yes >out 2>err &&
	test_must_be_empty out &&
	echo "removed 2 sessions, 2 temporary files, 3 breadcrumbs" >expect &&
	test_cmp expect err &&
	find "$HERMES_HOME" -type f ! -name .lock | sort >after &&
	cat >expect <<-EOF &&
	$HERMES_HOME/.index.ba9876543210.tmp
	$S/20260101_090000_cccccc.json
	$S/notes.tmp
	$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json
	EOF
	test_cmp expect after
'

test_expect_success 'a second prune finds nothing to do' '
	mixed_store &&
	hermes sessions prune --older-than 30 --yes 2>/dev/null &&
	hermes sessions prune --older-than 30 --yes >out 2>err &&
	test_must_be_empty out &&
	echo "nothing to prune" >expect &&
	test_cmp expect err
'

test_expect_success 'the age is a parameter: a longer one keeps more' '
	now=$(date +%s) &&
	mk_session_at 20260101_090000_aaaaaa "ten days" $((now - 10 * 86400)) &&
	mk_session_at 20260101_090000_bbbbbb "forty days" $((now - 40 * 86400)) &&
	hermes sessions prune --older-than 60 --yes 2>err &&
	echo "nothing to prune" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 2 &&
	hermes sessions prune --older-than 30 --yes 2>err &&
	echo "removed 1 session, 0 temporary files, 0 breadcrumbs" >expect &&
	test_cmp expect err &&
	hermes sessions list >out &&
	cut -f2 out >titles &&
	echo "ten days" >expect &&
	test_cmp expect titles &&
	hermes sessions prune --older-than 0.5 --yes 2>/dev/null &&
	test "$(session_count)" = 0
'

test_expect_success 'an empty store has nothing to prune' '
	hermes sessions prune --older-than 1 --yes 2>err &&
	echo "nothing to prune" >expect &&
	test_cmp expect err &&
	hermes sessions prune --older-than 1 --dry-run >out 2>err &&
	test_must_be_empty out &&
	echo "dry run: 0 sessions, 0 temporary files, 0 breadcrumbs would be removed" >expect &&
	test_cmp expect err
'

test_expect_success 'a corrupt session file is left in place with a warning' '
	mkdir -p "$HERMES_HOME/sessions" &&
	f="$HERMES_HOME/sessions/20200101_090000_aaaaaa.json" &&
	echo "{\"format\":1," >"$f" &&
	touch -t 202001010000 "$f" &&
	hermes sessions prune --older-than 1 --yes 2>err &&
	grep "^hermes: warning: $f: not a valid session file (.*); left in place$" err &&
	test -e "$f"
'

test_expect_success SCRIPT 'on a terminal it asks first; no keeps everything' '
	mixed_store &&
	printf "n\n" >no &&
	pty_transcript "hermes sessions prune --older-than 30" transcript <no &&
	# The echo of the typed answer may come before or after the question.
	grep "Remove 2 sessions inactive for 30 days, 2 temporary files and 3 breadcrumbs? \[y/N\]" transcript &&
	grep -E "(^|\[y/N\] )nothing removed$" transcript &&
	find "$HERMES_HOME" -type f | sort >after &&
	test_cmp before after
'

test_done
