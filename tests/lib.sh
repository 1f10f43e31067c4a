# tests/lib.sh: a small git-style test harness for POSIX sh (dash).
#
# A test script sets test_description, sources this file, then runs
#   test_expect_success 'what it checks' '
#           hermes chat -q hi --no-agent &&
#           test_cmp expect actual
#   '
# and ends with test_done. Each body runs in a subshell inside a fresh
# trash directory with its own HERMES_HOME, so tests cannot leak state.
# A body fails if any command in its && chain fails, or if any file in the
# trash directory mentions a panic (tests capture stderr into files there).

set -u

TEST_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$TEST_DIR/.." && pwd)
: "${HERMES_BIN:=$ROOT/target/release/hermes}"
if ! test -x "$HERMES_BIN"; then
	echo "Bail out! $HERMES_BIN is not built; run 'make check'" >&2
	exit 1
fi
export HERMES_BIN
HERMES_BIN_DIR=$(dirname "$HERMES_BIN")
PATH="$HERMES_BIN_DIR:$PATH"
export PATH

# A predictable world: no agent, no terminal identity, UTC, C locale.
unset HERMES_AGENT ZELLIJ_PANE_ID TMUX_PANE KITTY_WINDOW_ID WEZTERM_PANE \
	TERM_SESSION_ID WT_SESSION TMUX NO_COLOR
TZ=UTC LC_ALL=C
export TZ LC_ALL

SCRIPT_NAME=$(basename "$0" .sh)
TRASH_ROOT=${TMPDIR:-/tmp}/hermes-tests.$$.$SCRIPT_NAME
rm -rf "$TRASH_ROOT"
mkdir -p "$TRASH_ROOT"
trap 'rm -rf "$TRASH_ROOT"' EXIT
trap 'exit 130' INT TERM

test_count=0
test_failed=0
test_skipped=0

say_color() {
	shift
	printf '%s\n' "$*"
}

# test_expect_success [PREREQ] 'description' 'body'
test_expect_success() {
	if test $# = 3; then
		test_prereq=$1
		shift
	else
		test_prereq=
	fi
	test_count=$((test_count + 1))
	if test -n "$test_prereq" && ! test_have_prereq "$test_prereq"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (missing $test_prereq)"
		return 0
	fi
	TRASH="$TRASH_ROOT/t$test_count"
	mkdir -p "$TRASH"
	(
		cd "$TRASH" &&
		HOME="$TRASH/home" &&
		HERMES_HOME="$TRASH/hermes-home" &&
		export HOME HERMES_HOME TRASH &&
		mkdir -p "$HOME" &&
		eval "$2"
	) </dev/null >"$TRASH_ROOT/out.$test_count" 2>&1
	status=$?
	if test $status = 0 && grep -rlE 'panicked at|internal error|RUST_BACKTRACE' "$TRASH" >/dev/null 2>&1; then
		echo "# a panic was captured in: $(grep -rlE 'panicked at|internal error|RUST_BACKTRACE' "$TRASH" | head -3)"
		status=1
	fi
	if test $status = 0; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#	/' "$TRASH_ROOT/out.$test_count" | tail -40
		echo "#	body:"
		printf '%s\n' "$2" | sed 's/^/#	/'
	fi
	return 0
}

test_done() {
	passed=$((test_count - test_failed - test_skipped))
	echo "# $SCRIPT_NAME: $passed passed, $test_failed failed, $test_skipped skipped"
	if test -n "${HERMES_TEST_RESULTS:-}"; then
		echo "$passed $test_failed $test_skipped" >>"$HERMES_TEST_RESULTS"
	fi
	test "$test_failed" = 0
}

# Prerequisites: TMUX, SCRIPT (util-linux script(1)), SETSID, MANDOC, ROOT
# (running as root), NOT_ROOT, PYTHON3, MACHINES (root may make mount and
# UTS namespaces and bind-mount over /etc/machine-id: another machine).
test_have_prereq() {
	case $1 in
	TMUX) command -v tmux >/dev/null 2>&1 ;;
	SCRIPT) command -v script >/dev/null 2>&1 && script -qc true /dev/null >/dev/null 2>&1 ;;
	SETSID) command -v setsid >/dev/null 2>&1 ;;
	MANDOC) command -v mandoc >/dev/null 2>&1 ;;
	ROOT) test "$(id -u)" = 0 ;;
	NOT_ROOT) test "$(id -u)" != 0 ;;
	PYTHON3) command -v python3 >/dev/null 2>&1 ;;
	MACHINES) test "$(id -u)" = 0 && test -f /etc/machine-id &&
		unshare -m -u sh -c 'mount --bind /etc/machine-id /etc/machine-id && hostname probe' 2>/dev/null ;;
	*) echo "unknown prereq $1" >&2; return 1 ;;
	esac
}

# test_must_fail CMD...: CMD must fail in a controlled way: exit 1..125,
# not success and not a crash (signal, panic/abort).
test_must_fail() {
	"$@"
	test_status=$?
	if test $test_status = 0; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif test $test_status -gt 125; then
		echo "test_must_fail: command crashed (status $test_status): $*" >&2
		return 1
	fi
	return 0
}

# test_expect_code N CMD...: CMD must exit with exactly N.
test_expect_code() {
	want=$1
	shift
	"$@"
	test_status=$?
	if test $test_status != "$want"; then
		echo "test_expect_code: expected $want, got $test_status: $*" >&2
		return 1
	fi
	return 0
}

# test_cmp EXPECTED ACTUAL: files must be identical; shows a diff if not.
test_cmp() {
	diff -u "$1" "$2"
}

# test_must_be_empty FILE
test_must_be_empty() {
	if test -s "$1"; then
		echo "'$1' is not empty:" >&2
		cat "$1" >&2
		return 1
	fi
}

# test_line_count OP N FILE: e.g. test_line_count = 3 out
test_line_count() {
	lines=$(wc -l <"$3" | tr -d ' ')
	if ! test "$lines" "$1" "$2"; then
		echo "test_line_count: $3 has $lines lines, expected $1 $2" >&2
		cat "$3" >&2
		return 1
	fi
}

# Number of session files in $HERMES_HOME.
session_count() {
	ls "$HERMES_HOME/sessions" 2>/dev/null | grep -c '^[0-9]\{8\}_[0-9]\{6\}_[0-9a-f]\{6\}\.json$'
}

# The ID of the only (or newest by name) session whose title is $1.
session_id_by_title() {
	hermes sessions list --all --json | tr '{' '\n' | grep "\"title\":\"$1\"" | sed 's/.*"id":"\([^"]*\)".*/\1/' | head -1
}

# File mode as octal digits, portable across GNU and BSD stat.
file_mode() {
	stat -c %a "$1" 2>/dev/null || stat -f %Lp "$1"
}

# run_in_pty 'shell commands': run them in a fresh pseudo-terminal with
# script(1); the commands' output (terminal transcript) goes to stdout.
run_in_pty() {
	script -qec "$1" /dev/null
}

# MACHINE: the tag that ends this machine's terminal keys (SPEC "Terminal
# identity"): pane %0 leaves tmux_pane--0.$MACHINE.json, found by looking.
MACHINE=$(
	home=$(mktemp -d) &&
	HERMES_HOME=$home TMUX_PANE=%0 "$HERMES_BIN" chat -q x --no-agent -Q </dev/null >/dev/null 2>&1
	ls "$home/terminal-sessions" 2>/dev/null | sed -n 's/^tmux_pane--0\.\([0-9a-f]*\)\.json$/\1/p'
	rm -rf "$home"
)
if test -z "$MACHINE"; then
	echo "Bail out! cannot tell the machine tag of terminal keys" >&2
	exit 1
fi
export MACHINE

# Helpers shared by the scripts (session files, expected texts, waiting,
# terminals, figures) live in lib-fixtures.sh.
. "$TEST_DIR/lib-fixtures.sh"
