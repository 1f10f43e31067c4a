#!/bin/sh
test_description='names, IDs and profiles from the command line never reach a path outside the store'
. "$(dirname "$0")/lib.sh"

CANARY=$TRASH_ROOT/canary
STORE=$CANARY/home/store
WORK=$CANARY/work/deep

# A valid session that must never be found: planted wherever a name that
# escaped the sessions directory could land.
decoy() {
	mkdir -p "$(dirname "$1")" &&
	printf "{\"format\":1,\"id\":\"20260101_000000_dec0y0\",\"title\":\"DECOY\",\"messages\":[\\n]}\\n" >"$1"
}

# The state of everything a stray write could touch.
snapshot() {
	{
		find "$CANARY" -exec ls -ld --time-style=+%s.%N {} +
		find "$CANARY" -type f -exec cksum {} +
		cksum /etc/passwd
		ls -a /
	} | sort
}

# hostile NAME: every command that takes a session name, given NAME. Each
# must say "no session" (1) or "usage" (2): not succeed, not crash, and not
# print anything on stdout.
hostile() {
	for cmd in "chat -c" "chat -r" "sessions show" "sessions rename" \
		"sessions delete" "sessions export" "sessions show --json"; do
		# shellcheck disable=SC2086
		case $cmd in
		"sessions rename") set -- sessions rename "$1" "new title" ;;
		"sessions delete") set -- sessions delete "$1" --yes ;;
		"sessions show --json") set -- sessions show "$1" --json ;;
		chat*) set -- $cmd "$1" -q hi --no-agent ;;
		*) set -- $cmd "$1" ;;
		esac
		# From a directory inside the canary tree, so that a path taken
		# relative to the current directory would show up too.
		(cd "$WORK" && "$TRACE" hermes "$@") >out 2>err
		rc=$?
		name=$3
		test $rc = 1 || test $rc = 2 || { echo "exit $rc: hermes $*" | cut -c1-200; return 1; }
		test_must_be_empty out || return 1
		grep -q DECOY err && { echo "decoy read: hermes $*" | cut -c1-200; return 1; }
		runs=$((runs + 1))
		check_trace || return 1
		echo "$rc" >>codes
		set -- "$name"
	done
}

# Tracing every path hermes touches, where strace is available: each must
# be in the store, the current directory's ancestry (workspace lookup),
# or the dynamic loader's and /proc/self's usual places.
# Under qemu-user strace would see qemu's own file calls: not traced.
if test -z "${HERMES_TEST_EMULATED:-}" && command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	TRACE=trace_file_calls
else
	TRACE=env
fi

trace_file_calls() {
	strace -f -qq -s 65536 -e trace=%file -o "$TRASH/trace" "$@"
}

check_trace() {
	test "$TRACE" = env && return 0
	sed -n "s/^[0-9]* [a-z0-9_]*([A-Z_]*,* *\"\([^\"]*\)\".*/\1/p" "$TRASH/trace" |
		grep -v "^\$" |
		grep -v "^$STORE/" | grep -v "^$STORE\$" |
		grep -v "/\.git\$" |
		grep -v "^$HERMES_BIN\$" |
		grep -v "^/etc/ld\.so\.\(cache\|preload\)\$" |
		grep -v "^/lib\|^/usr/lib\|^/proc/self/" >stray-paths
	if test -s stray-paths; then
		echo "touched outside the store: $(head -3 stray-paths)"
		return 1
	fi
}

test_expect_success 'set up a store inside a canary tree, decoys where escapes would land' '
	HERMES_HOME=$STORE &&
	mkdir -p "$WORK" &&
	cd "$WORK" &&
	hermes chat -q "a real session" --no-agent -Q &&
	decoy "$STORE/x.json" &&
	decoy "$STORE/x" &&
	decoy "$CANARY/home/x.json" &&
	decoy "$CANARY/x.json" &&
	decoy "$STORE/sessions/..json" &&
	decoy "$STORE/sessions/...json" &&
	decoy "$STORE/sessions/a/b.json" &&
	decoy "$STORE/profiles/x/sessions/20260101_000000_dec0y1.json" &&
	decoy "$CANARY/home/x/sessions/20260101_000000_dec0y1.json" &&
	snapshot >"$TRASH_ROOT/before"
'

test_expect_success 'hostile names get "no session" or usage, never a crash, never an outside path' '
	HERMES_HOME=$STORE &&
	runs=0 &&
	: >codes &&
	long=$(awk "BEGIN { for (i = 0; i < 10000; i++) printf \"a\" }") &&
	bad=$(printf "\377") &&
	for name in ../x /etc/passwd .. . a/b "$long" "$bad" "x$bad/../../x" \
		../../../../../../../../etc/passwd sessions/../x ../sessions/x \
		20260101_000000_dec0y0 "20261202_143015_a1b2c3/../../x" "" " " -; do
		hostile "$name" || { echo "failed for name: $(printf %s "$name" | cut -c1-60)"; return 1; }
	done &&
	sort codes | uniq -c >code-counts &&
	figure "t4040: $runs hostile-name commands (16 names x 7 verbs): $(awk "{ printf \"%s%d x exit %s\", sep, \$1, \$2; sep = \", \" }" code-counts), 0 crashes, 0 paths outside the store; $(test "$TRACE" = env && echo "not traced (no strace)" || echo "every file system call traced")" &&
	snapshot >after &&
	test_cmp "$TRASH_ROOT/before" after
'

test_expect_success 'hostile profile names are refused as usage errors' '
	HERMES_HOME=$STORE &&
	long=$(awk "BEGIN { for (i = 0; i < 10000; i++) printf \"a\" }") &&
	for p in ../x /etc x/../../x .. . a/b "$long" "$(printf "\377")" ""; do
		test_expect_code 2 hermes -p "$p" chat -q hi --no-agent -Q 2>err &&
		test_expect_code 2 hermes -p "$p" sessions list 2>err &&
		test_expect_code 2 hermes --profile="$p" sessions show x 2>err || return 1
	done &&
	snapshot >after &&
	test_cmp "$TRASH_ROOT/before" after
'

test_expect_success 'a hostile name as a new title stays a title: the file is named by a generated ID' '
	HERMES_HOME=$STORE &&
	for name in ../x /etc/passwd .. . a/b; do
		hermes chat -c "$name" --create-if-missing -q hi --no-agent -Q || return 1
	done &&
	long=$(awk "BEGIN { for (i = 0; i < 10000; i++) printf \"a\" }") &&
	test_expect_code 2 hermes chat -c "$long" --create-if-missing -q hi --no-agent -Q &&
	# A name that is not UTF-8 would be a title that is not: refused.
	test_expect_code 2 hermes chat -c "$(printf "\377")" --create-if-missing -q hi --no-agent -Q &&
	# Five new sessions, each in a file of the ID shape, nothing else new.
	test "$(session_count)" = 6 &&
	snapshot >after &&
	diff "$TRASH_ROOT/before" after | grep "^[<>]" >changes &&
	{ grep -v "^> .*/sessions/[0-9]\{8\}_[0-9]\{6\}_[0-9a-f]\{6\}\.json\$" changes || :; } |
		{ grep -v "^[<>] .*$STORE/sessions\$" || :; } >unexpected &&
	test_must_be_empty unexpected &&
	hermes sessions show ../x >shown &&
	head -1 shown >title &&
	echo ../x >expect &&
	test_cmp expect title
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
