#!/bin/sh
test_description='the catalog of a large store: a title lookup, a short listing and a search for a common word read a few files, and every answer is the one a full scan gives, whatever happened to the store or the catalog'
. "$(dirname "$0")/lib.sh"

# session_file I: the file of session tI as generated.
session_file() {
	printf "%s/sessions/20260101_%06d_%06x.json" "$HERMES_HOME" $(($1 / 60)) "$1"
}

STORE=$TRASH_ROOT/store

# agree ARGS...: `hermes ARGS` says the same (stdout, stderr, exit
# status) with the catalog as it is now, and with no catalog at all (a
# full scan). The catalog is put back afterwards, so that later steps go
# on from the same (possibly stale) one.
agree() {
	{ hermes "$@" >with.out 2>with.err; echo "exit $?" >>with.out; }
	mkdir -p aside && rm -f aside/catalog aside/catalog-state &&
	for f in catalog catalog-state; do
		if test -e "$HERMES_HOME/$f"; then mv "$HERMES_HOME/$f" aside/ || return 1; fi
	done &&
	{ hermes "$@" >without.out 2>without.err; echo "exit $?" >>without.out; } &&
	rm -f "$HERMES_HOME/catalog" "$HERMES_HOME/catalog-state" &&
	for f in catalog catalog-state; do
		if test -e "aside/$f"; then mv "aside/$f" "$HERMES_HOME/" || return 1; fi
	done &&
	test_cmp without.out with.out &&
	test_cmp without.err with.err
}

# all_agree: the answers that read the catalog agree with a full scan:
# short listings, the current session, and lookups of a few titles.
all_agree() {
	agree sessions list &&
	agree sessions list --json &&
	agree sessions list --limit 3 &&
	agree sessions current &&
	agree sessions search m --limit 4 &&
	agree sessions search --json step &&
	for t in t0 t1 t299 t598 t599 t600 new-1 new-2 dup renamed-5 nothing; do
		agree sessions show "$t" || return 1
	done
}

test_expect_success 'set up 600 sessions; a listing writes the catalog' '
	gen_sessions 600 3 >s.jsonl &&
	hermes sessions import s.jsonl 2>err &&
	grep "imported 600 sessions" err &&
	hermes sessions list >out &&
	test -s "$HERMES_HOME/catalog" &&
	test -s "$HERMES_HOME/catalog-state" &&
	cp -R "$HERMES_HOME" "$STORE"
'

# use_store: a copy of the store to change. A copy is another directory
# (another inode): its catalog is not believed until a full pass, here.
use_store() {
	cp -R "$STORE" store && HERMES_HOME=$PWD/store &&
	hermes sessions list >/dev/null
}

# strace(1) that can trace (ptrace may be forbidden).
test_lazy_prereq STRACE 'strace -f -o /dev/null true'

# opened TRACE: the session files a trace shows opened or looked at.
opened() {
	grep -E "($(syscalls open stat | tr , "|"))\(.*/?2026[0-9]{4}_[0-9]{6}_[0-9a-f]{6}\.json" "$1" |
		sed -n "s/.*\(2026[0-9]\{4\}_[0-9]\{6\}_[0-9a-f]\{6\}\.json\).*/\1/p" | sort -u
}

test_expect_success STRACE 'a title lookup reads the one session the title names' '
	use_store &&
	strace -f -o trace hermes chat -c t300 -q more --no-agent -Q &&
	opened trace >files &&
	printf "%s\n" 20260101_000005_00012c.json >expect &&
	test_cmp expect files &&
	hermes sessions show t300 >out &&
	grep "^more\$" out
'

test_expect_success STRACE 'a search for a word of every session reads the newest few files' '
	use_store &&
	hermes chat -c t10 -q more --no-agent -Q &&
	strace -f -o trace hermes sessions search m --limit 3 >out &&
	opened trace >files &&
	test "$(wc -l <files)" -le 32 &&
	cut -f2 out >titles &&
	printf "%s\n" t10 t599 t598 >expect &&
	test_cmp expect titles
'

# script(1), for a terminal the picker can draw on.
test_lazy_prereq SCRIPT 'script -qc true /dev/null </dev/null'

test_expect_success STRACE,SCRIPT 'the picker takes its rows from the catalog: the one session file it reads is the one appended to since' '
	use_store &&
	hermes chat -c t10 -q more --no-agent -Q &&
	{ printf "\007" | script -qc "strace -f -o $PWD/trace hermes sessions pick" /dev/null >screen 2>&1 || :; } &&
	grep "catalog\"" trace &&
	grep "t10 " screen &&
	opened trace >files &&
	echo 20260101_000000_00000a.json >expect &&
	test_cmp expect files
'

test_expect_success SCRIPT 'keys typed while the picker reads the catalog apply to every session; Ctrl-G leaves' '
	use_store && mkfifo keys || return 1
	# A query typed at once, Enter once the picker surely reads keys raw
	# (typed ahead in cooked mode, Enter would arrive as Ctrl-J): t0 is
	# the oldest session, the last the catalog names.
	{ printf t0; sleep 1; printf "\r"; exec sleep 30; } >keys &
	writer=$! &&
	{ script -qc "hermes sessions pick >picked" /dev/null <keys >/dev/null 2>&1 || :; } &&
	kill $writer &&
	echo 20260101_000000_000000 >expect &&
	test_cmp expect picked &&
	{ printf "\007" | script -qc "hermes sessions pick >picked; echo \$? >rc" /dev/null >/dev/null 2>&1 || :; } &&
	test_must_be_empty picked &&
	echo 1 >expect &&
	test_cmp expect rc
'

test_expect_success STRACE 'a short listing reads only the rows it prints' '
	use_store &&
	hermes chat -c t10 -q more --no-agent -Q &&
	strace -f -o trace hermes sessions list --limit 3 >out &&
	opened trace >files &&
	test_line_count = 3 files &&
	cut -f2 out >titles &&
	printf "%s\n" t10 t599 t598 >expect &&
	test_cmp expect titles
'

test_expect_success 'hermes writes keep the catalog believed: append, create, rename, delete' '
	use_store &&
	hermes chat -c t5 -q a --no-agent -Q &&
	hermes chat -c new-1 --create-if-missing -q b --no-agent -Q &&
	hermes sessions rename t7 renamed-5 2>err &&
	hermes sessions delete t8 --yes 2>err &&
	# Believed: reading it writes no new one, as a full pass would.
	cp "$HERMES_HOME/catalog-state" expect &&
	hermes sessions list >/dev/null &&
	hermes sessions show renamed-5 >/dev/null &&
	hermes sessions show new-1 >/dev/null &&
	test_cmp expect "$HERMES_HOME/catalog-state" &&
	all_agree
'

test_expect_success 'files added, removed and renamed by other programs are seen' '
	use_store &&
	all_agree &&
	# A copy under a new ID with the same title, and newer.
	sed -e "s/20260101_000005_00012c/20260102_000000_aaaaaa/" -e "s/:1767243600,/:1767999999,/g" \
		"$(session_file 300)" >"$HERMES_HOME/sessions/20260102_000000_aaaaaa.json" &&
	all_agree &&
	agree sessions show t300 &&
	rm "$(session_file 599)" &&
	all_agree &&
	# Renamed by mv: its own ID goes with it.
	f=$(session_file 598) &&
	sed "s/20260101_000009_000256/20260103_000000_bbbbbb/" "$f" >moved &&
	cat moved >"$f" && mv "$f" "$HERMES_HOME/sessions/20260103_000000_bbbbbb.json" &&
	all_agree &&
	# A damaged file appears.
	echo "{" >"$HERMES_HOME/sessions/20260104_000000_cccccc.json" &&
	all_agree
'

test_expect_success 'a title changed in place (not by rename) is never found under its old title' '
	use_store &&
	f=$(session_file 200) &&
	sed "s/\"title\":\"t200\"/\"title\":\"dup\"/" "$f" >edited &&
	cat edited >"$f" &&
	agree sessions show t200 &&
	agree sessions show dup &&
	test_must_fail hermes sessions show t200 2>err &&
	hermes sessions show dup >out
'

test_expect_success 'a catalog missing, cut short, damaged, stale or from another store is not believed' '
	use_store &&
	rm "$HERMES_HOME/catalog" && all_agree &&
	head -c 1000 "$HERMES_HOME/catalog" >cut && cat cut >"$HERMES_HOME/catalog" && all_agree &&
	head -c 40 "$HERMES_HOME/catalog-state" >cut && cat cut >"$HERMES_HOME/catalog-state" && all_agree &&
	printf "XXXXXXXX" | dd of="$HERMES_HOME/catalog" bs=1 seek=3000 conv=notrunc 2>/dev/null && all_agree &&
	# An old catalog and state, put back after hermes changed the store.
	hermes sessions list >/dev/null &&
	cp "$HERMES_HOME/catalog" "$HERMES_HOME/catalog-state" . &&
	hermes sessions rename t1 new-2 2>err &&
	cp catalog catalog-state "$HERMES_HOME/" && all_agree &&
	# Another store s catalog (another machine, a restored backup).
	mkdir other && gen_sessions 550 3 | sed "s/\"title\":\"t/\"title\":\"other-/" >o.jsonl &&
	HERMES_HOME=$PWD/other hermes sessions import o.jsonl 2>err &&
	HERMES_HOME=$PWD/other hermes sessions list >/dev/null &&
	cp other/catalog other/catalog-state "$HERMES_HOME/" && all_agree
'

test_expect_success 'any sequence of hermes commands and other programs: every answer agrees with a full scan' '
	use_store &&
	awk "BEGIN { srand(12); for (i = 0; i < 24; i++) print int(rand() * 8), int(rand() * 600) }" >steps &&
	n=0 &&
	while read -r op k; do
		n=$((n + 1)) &&
		f=$(session_file "$k") &&
		case $op in
		0) hermes chat -c "t$k" -q "step $n" --no-agent -Q 2>/dev/null || : ;;
		1) hermes chat -c "new-$n" --create-if-missing -q x --no-agent -Q ;;
		2) hermes sessions rename "t$k" "renamed-$n" 2>/dev/null || : ;;
		3) hermes sessions delete "t$k" --yes 2>/dev/null || : ;;
		4) rm -f "$f" ;;
		5) id=$(basename "$f" .json) && copy=${id%_*}_f$(printf %05x "$n") &&
			{ test ! -f "$f" || sed "s/$id/$copy/" "$f" >"$HERMES_HOME/sessions/$copy.json"; } ;;
		6) test ! -f "$f" || { sed "s/\"title\":\"t$k\"/\"title\":\"t$k-$n\"/" "$f" >edit && cat edit >"$f"; } ;;
		7) hermes sessions list --all >/dev/null ;;
		esac &&
		all_agree || { echo "disagreed after step $n: $op $k" >&2; return 1; }
	done <steps
'

test_expect_success 'writers killed at any moment (kill -9) leave no answer wrong' '
	use_store &&
	i=0 &&
	while test $i -lt 12; do
		i=$((i + 1)) &&
		case $((i % 3)) in
		0) hermes chat -c "t$i" -q "kill $i" --no-agent -Q & ;;
		1) hermes sessions rename "t$i" "killed-$i" 2>/dev/null & ;;
		2) hermes chat -c "made-$i" --create-if-missing -q x --no-agent -Q & ;;
		esac
		pid=$! &&
		sleep "0.00$i" && kill -9 $pid 2>/dev/null
		wait $pid
		agree sessions list &&
		agree sessions show "t$i" &&
		agree sessions show "killed-$i" &&
		agree sessions show "made-$i" || return 1
	done
'

test_expect_success 'parallel writers: eight appends and a rename at once, then every answer agrees' '
	use_store &&
	for k in 1 2 3 4 5 6 7 8; do
		hermes chat -c "t$k" -q "parallel" --no-agent -Q &
	done &&
	hermes sessions rename t9 renamed-5 2>err &
	wait &&
	all_agree
'

test_done
