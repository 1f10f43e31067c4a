#!/bin/sh
test_description='the directories hermes makes inside its home are refused when they are symbolic links or another user'"'"'s; sweeps remove only names hermes makes'
. "$(dirname "$0")/lib.sh"

# private_home [DIR]: DIR (default $HERMES_HOME) as a user's own home with
# a store in it: mode 0700, one session.
private_home() {
	HERMES_HOME=${1:-$HERMES_HOME} hermes chat --title first -q hi --no-agent -Q
}

# link_refused DIR: the one-line error for a store directory that is a link.
link_refused() {
	echo "hermes: $1 is a symbolic link; hermes follows no links inside its home: replace it with a directory (HERMES_HOME itself may be a link)"
}

test_expect_success 'the reproducer: a planted terminal-sessions link deletes nothing in its target' '
	mkdir -p V && echo key >V/id_rsa && touch -d "60 days ago" V/id_rsa &&
	mkdir -m 777 H &&
	ln -s "$PWD/V" H/terminal-sessions &&
	HERMES_HOME=$PWD/H TMUX_PANE=%1 test_expect_code 4 \
		hermes chat -c t --create-if-missing --no-agent -Q -q hi </dev/null 2>err &&
	test_line_count = 1 err &&
	echo id_rsa >expect &&
	ls V >actual &&
	test_cmp expect actual &&
	# and in a home of the right mode, the link itself is what is refused
	chmod 700 H &&
	HERMES_HOME=$PWD/H TMUX_PANE=%1 test_expect_code 4 \
		hermes chat -c t --create-if-missing --no-agent -Q -q hi </dev/null 2>err &&
	link_refused "$PWD/H/terminal-sessions" >expect &&
	test_cmp expect err &&
	ls V >actual &&
	echo id_rsa >expect &&
	test_cmp expect actual &&
	! test -d H/sessions
'

test_expect_success 'a sessions link: no session is written into its target, nothing there is pruned' '
	mkdir -m 700 "$HERMES_HOME" elsewhere &&
	ln -s "$TRASH/elsewhere" "$HERMES_HOME/sessions" &&
	echo mine >elsewhere/.notes.tmp &&
	echo mine >elsewhere/.20250101_000000_abcdef.json.0123456789ab.tmp &&
	touch -d "2 days ago" elsewhere/.notes.tmp elsewhere/.20250101_000000_abcdef.json.0123456789ab.tmp &&
	ls -a elsewhere >before &&
	test_expect_code 4 hermes chat -q hi --no-agent -Q 2>err &&
	link_refused "$HERMES_HOME/sessions" >expect &&
	test_cmp expect err &&
	test_expect_code 4 hermes sessions prune --older-than 1 --yes 2>err &&
	test_cmp expect err &&
	test_expect_code 4 hermes sessions import /dev/null 2>err &&
	test_cmp expect err &&
	ls -a elsewhere >after &&
	test_cmp before after
'

test_expect_success 'a store directory owned by another user is refused, naming owner, mode and the fix' '
	private_home &&
	chown 65534 "$HERMES_HOME/sessions" &&
	test_expect_code 4 hermes chat -c first -q again --no-agent -Q 2>err &&
	echo "hermes: $HERMES_HOME/sessions (owner nobody, mode 0700) belongs to another user; move it away and hermes makes its own" >expect &&
	test_cmp expect err &&
	chown 0 "$HERMES_HOME/sessions" &&
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	chown 65534 "$HERMES_HOME/terminal-sessions" &&
	test_expect_code 4 hermes chat -c first -q again --no-agent -Q 2>err &&
	grep "^hermes: $HERMES_HOME/terminal-sessions (owner nobody, mode 0" err
'

test_expect_success 'profiles and profiles/NAME: links and other users'"'"' directories are refused' '
	private_home &&
	mkdir -m 700 elsewhere "$HERMES_HOME/profiles" &&
	ln -s "$TRASH/elsewhere" "$HERMES_HOME/profiles/work" &&
	test_expect_code 4 hermes -p work chat -q hi --no-agent -Q 2>err &&
	link_refused "$HERMES_HOME/profiles/work" >expect &&
	test_cmp expect err &&
	rm "$HERMES_HOME/profiles/work" &&
	mkdir -m 700 "$HERMES_HOME/profiles/work" &&
	chown 65534 "$HERMES_HOME/profiles/work" &&
	test_expect_code 4 hermes -p work chat -q hi --no-agent -Q 2>err &&
	grep "^hermes: $HERMES_HOME/profiles/work (owner nobody, mode 0700) belongs to another user" err &&
	rm -r "$HERMES_HOME/profiles" &&
	ln -s "$TRASH/elsewhere" "$HERMES_HOME/profiles" &&
	test_expect_code 4 hermes -p work chat -q hi --no-agent -Q 2>err &&
	link_refused "$HERMES_HOME/profiles" >expect &&
	test_cmp expect err &&
	test -z "$(ls -A elsewhere)"
'

test_expect_success 'HERMES_HOME itself may be a link to a private directory' '
	mkdir -m 700 synced &&
	ln -s "$TRASH/synced" link-home &&
	HERMES_HOME=$TRASH/link-home hermes chat --title linked -q hi --no-agent -Q 2>err &&
	test_must_be_empty err &&
	HERMES_HOME=$TRASH/link-home hermes chat -c linked -q again --no-agent -Q &&
	test "$(ls synced/sessions | wc -l)" = 1 &&
	HERMES_HOME=$TRASH/link-home hermes sessions list >out 2>err &&
	test_must_be_empty err &&
	grep linked out
'

test_expect_success 'the breadcrumb sweep removes only old KEY.json files, never through a link' '
	private_home &&
	mkdir -p "$HERMES_HOME/terminal-sessions" outside &&
	crumbs=$HERMES_HOME/terminal-sessions &&
	echo precious >outside/old.json &&
	echo "{\"session_id\":\"x\"}" >"$crumbs/tmux_pane--9.json" &&
	echo notes >"$crumbs/notes.txt" &&
	echo hidden >"$crumbs/.hidden.json" &&
	ln -s "$TRASH/outside/old.json" "$crumbs/linked.json" &&
	touch -d "60 days ago" outside/old.json "$crumbs/tmux_pane--9.json" "$crumbs/notes.txt" "$crumbs/.hidden.json" &&
	touch -h -d "60 days ago" "$crumbs/linked.json" &&
	TMUX_PANE=%1 hermes chat -c first -q again --no-agent -Q &&
	ls -a "$crumbs" >actual &&
	printf "%s\n" . .. .hidden.json linked.json notes.txt "tmux_pane--1.$MACHINE.json" >expect &&
	test_cmp expect actual &&
	echo precious >expect &&
	test_cmp expect outside/old.json
'

test_expect_success 'prune removes only temporaries of the names hermes gives them' '
	private_home &&
	s=$HERMES_HOME/sessions &&
	echo x >"$s/.notes.tmp" &&
	echo x >"$s/.20250101_000000_abcdef.json.0123456789ab.tmp" &&
	echo x >"$s/.20250101_000000_abcdef.json.0123456789AB.tmp" &&
	echo x >"$HERMES_HOME/.index.0123456789ab.tmp" &&
	touch -d "2 days ago" "$s"/.*.tmp "$HERMES_HOME/.index.0123456789ab.tmp" &&
	hermes sessions prune --older-than 1000 --yes 2>err &&
	grep "removed 0 sessions, 2 temporary files, 0 breadcrumbs" err &&
	ls -a "$s" | grep "\.tmp\$" >actual &&
	printf "%s\n" .20250101_000000_abcdef.json.0123456789AB.tmp .notes.tmp >expect &&
	test_cmp expect actual
'

test_expect_success 'a read-only command in a home with a linked store directory warns once and goes on' '
	mkdir -m 700 "$HERMES_HOME" &&
	mkdir -m 700 real &&
	HERMES_HOME=$TRASH/real hermes chat --title kept -q hi --no-agent -Q &&
	ln -s "$TRASH/real/sessions" "$HERMES_HOME/sessions" &&
	hermes sessions list >out 2>err &&
	grep kept out &&
	echo "hermes: warning: $HERMES_HOME/sessions is a symbolic link; hermes follows no links inside its home: replace it with a directory (HERMES_HOME itself may be a link)" >expect &&
	test_cmp expect err &&
	hermes sessions stats >/dev/null 2>err &&
	test_cmp expect err
'

# damaged_home: a private home with one damaged session ($ID, its file
# $F, a copy in damaged.orig).
damaged_home() {
	private_home &&
	ID=$(only_id) &&
	F=$HERMES_HOME/sessions/$ID.json &&
	printf "{\"format\":1,\"id\":\"%s\",\"title\":\"first\",\"messages\":[\n{\"role\":\"user\",\"content\":\"a\\\\q\",\"ts\":1}\n]}\n" "$ID" >"$F" &&
	cp "$F" damaged.orig
}

test_expect_success 'damaged/ is hermes'"'"'s own: a link, or a directory of another user or writable by others, is refused and nothing is written' '
	damaged_home &&
	mkdir -m 700 elsewhere &&
	ln -s "$TRASH/elsewhere" "$HERMES_HOME/damaged" &&
	test_expect_code 4 hermes sessions repair "$ID" 2>err &&
	link_refused "$HERMES_HOME/damaged" >expect &&
	test_cmp expect err &&
	rm "$HERMES_HOME/damaged" &&
	mkdir -m 777 "$HERMES_HOME/damaged" &&
	test_expect_code 4 hermes sessions repair "$ID" 2>err &&
	echo "hermes: $HERMES_HOME/damaged (owner $(id -un), mode 0777) is writable by anyone; run '"'"'chmod 700 $HERMES_HOME/damaged'"'"'" >expect &&
	test_cmp expect err &&
	chmod 700 "$HERMES_HOME/damaged" &&
	chown 65534 "$HERMES_HOME/damaged" &&
	test_expect_code 4 hermes sessions repair "$ID" 2>err &&
	echo "hermes: $HERMES_HOME/damaged (owner nobody, mode 0700) belongs to another user; move it away and hermes makes its own" >expect &&
	test_cmp expect err &&
	test -z "$(ls -A elsewhere)" &&
	test -z "$(ls -A "$HERMES_HOME/damaged")" &&
	cmp damaged.orig "$F" &&
	rmdir "$HERMES_HOME/damaged" &&
	umask 000 &&
	hermes sessions repair "$ID" >out &&
	test "$(file_mode "$HERMES_HOME/damaged")" = 700 &&
	cmp damaged.orig "$HERMES_HOME/damaged/$ID".json.*
'

test_done
