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

# A predictable world: no agent, no model from the environment, no terminal
# identity, UTC, C locale.
unset HERMES_AGENT HERMES_MODEL OPENAI_MODEL ZELLIJ_PANE_ID TMUX_PANE KITTY_WINDOW_ID WEZTERM_PANE \
	TERM_SESSION_ID WT_SESSION TMUX NO_COLOR
TZ=UTC LC_ALL=C
export TZ LC_ALL
# No pager unless a test names one (t2850).
unset HERMES_PAGER LESS
PAGER=cat
export PAGER

SCRIPT_NAME=$(basename "$0" .sh)
TRASH_ROOT=${TMPDIR:-/tmp}/hermes-tests.$$.$SCRIPT_NAME
rm -rf "$TRASH_ROOT"
mkdir -p "$TRASH_ROOT"
trap 'rm -rf "$TRASH_ROOT"' EXIT
trap 'exit 130' INT TERM

test_count=0
test_failed=0
test_skipped=0

# sh tests/tNNNN-name.sh --run=2,5-7 runs only those tests (each has its own
# trash directory and store, so any one can run alone); the others are
# reported skipped.
test_run=
for test_arg in "$@"; do
	case $test_arg in
	--run=*) test_run=$(echo "${test_arg#--run=}" | tr , " ") ;;
	esac
done

# test_selected: the current test is in --run (or there is no --run).
test_selected() {
	test -z "$test_run" && return 0
	for test_range in $test_run; do
		case $test_range in
		*-*) test "$test_count" -ge "${test_range%-*}" && test "$test_count" -le "${test_range#*-}" && return 0 ;;
		*) test "$test_count" = "$test_range" && return 0 ;;
		esac
	done
	return 1
}

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
	if ! test_selected; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (not in --run)"
		return 0
	fi
	if test -n "$test_prereq" && ! test_have_prereq "$test_prereq"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (missing $test_missing_prereq)"
		return 0
	fi
	if test -n "${test_native_why:-}"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 (not under qemu-$HERMES_TEST_EMULATED: $test_native_why)"
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
	if test $status = 0 && grep -rlIE 'panicked at|internal error|RUST_BACKTRACE' "$TRASH" >/dev/null 2>&1; then
		echo "# a panic was captured in: $(grep -rlIE 'panicked at|internal error|RUST_BACKTRACE' "$TRASH" | head -3)"
		status=1
	fi
	if test $status = 0 && test -e "$TRASH_ROOT/skip.$test_count"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $1 ($(cat "$TRASH_ROOT/skip.$test_count"))"
	elif test $status = 0; then
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

# ---- Prerequisites -----------------------------------------------------
# The one mechanism: test_expect_success A,B 'description' 'body' runs the
# body when prerequisites A and B both hold, and otherwise reports the test
# skipped, naming the first missing one. A prerequisite is a shell check
# given once with test_lazy_prereq, run when first asked for (its output
# discarded), its answer kept. Those several scripts use are defined here;
# a script defines its own the same way, before its tests.

# test_lazy_prereq NAME 'CHECK'
test_lazy_prereq() {
	eval "test_prereq_check_$1=\$2"
}

# test_have_prereq A[,B...]: every one holds; else the first that does not
# is in $test_missing_prereq. A name never defined stops the script: a
# misspelt prerequisite would otherwise skip its test for good.
test_have_prereq() {
	for test_prereq_name in $(echo "$1" | tr , " "); do
		eval "test_prereq_check=\${test_prereq_check_$test_prereq_name-}"
		eval "test_prereq_known=\${test_prereq_check_$test_prereq_name+yes}"
		if test "$test_prereq_known" != yes; then
			echo "Bail out! unknown prerequisite $test_prereq_name" >&2
			exit 1
		fi
		eval "test_prereq_result=\${test_prereq_result_$test_prereq_name-}"
		if test -z "$test_prereq_result"; then
			if (eval "$test_prereq_check") </dev/null >/dev/null 2>&1; then
				test_prereq_result=yes
			else
				test_prereq_result=no
			fi
			eval "test_prereq_result_$test_prereq_name=\$test_prereq_result"
		fi
		if test "$test_prereq_result" != yes; then
			test_missing_prereq=$test_prereq_name
			return 1
		fi
	done
}

test_lazy_prereq TMUX 'command -v tmux'
test_lazy_prereq SCRIPT 'command -v script && script -qc true /dev/null' # util-linux script(1)
test_lazy_prereq SETSID 'command -v setsid'
test_lazy_prereq MANDOC 'command -v mandoc'
test_lazy_prereq ROOT 'test "$(id -u)" = 0'
test_lazy_prereq NOT_ROOT 'test "$(id -u)" != 0'
test_lazy_prereq PYTHON3 'command -v python3'
test_lazy_prereq SETPRIV 'command -v setpriv'
test_lazy_prereq PRLIMIT 'command -v prlimit'
# EXPENSIVE: tests that take minutes (a full static build); .ci/run turns
# them on with HERMES_TEST_EXPENSIVE=1, as git's EXPENSIVE.
# NATIVE: not under qemu-user, whose own memory (its translated code grows
# with the work done) is in every peak RSS measured there.
test_lazy_prereq NATIVE 'test -z "${HERMES_TEST_EMULATED:-}"'
test_lazy_prereq EXPENSIVE 'test -n "${HERMES_TEST_EXPENSIVE-}"'
# Root may make mount and UTS namespaces and bind-mount over
# /etc/machine-id: another machine.
test_lazy_prereq MACHINES 'test "$(id -u)" = 0 && test -f /etc/machine-id &&
	unshare -m -u sh -c "mount --bind /etc/machine-id /etc/machine-id && hostname probe"'

# test_skip 'REASON': inside a test body: stop here and report the test
# skipped for REASON (a precondition the test could not bring about), not
# passed. Call it after cleaning up what the body started.
test_skip() {
	printf '%s\n' "$1" >"$TRASH_ROOT/skip.$test_count"
	exit 0
}

# test_native 'WHY': inside a test body, first: under qemu-user (make
# check-aarch64 and check-s390x set HERMES_TEST_EMULATED to the emulated
# CPU) report the test skipped, saying WHY it cannot work there; anywhere
# else it does nothing.
test_native() {
	if test -n "${HERMES_TEST_EMULATED:-}"; then
		test_skip "not under qemu-$HERMES_TEST_EMULATED: $1"
	fi
}

# emulated_install BINDIR: after make install BIN="$HERMES_BIN" put hermes
# in BINDIR. Under qemu-user $HERMES_BIN is a sh script that runs the
# binary where it was built, so the installed copy of that script would
# too, and hermes, which looks for its shipped agents beside its own
# binary (../share/hermes/agents), would not find the installed ones. There
# the binary is copied into BINDIR and the script made to run that copy.
# Anywhere else it does nothing.
emulated_install() {
	if test -n "${HERMES_TEST_EMULATED:-}"; then
		cp "$HERMES_TEST_EMULATED_BINARY" "$1/hermes.$HERMES_TEST_EMULATED" &&
		printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' \
			"$(command -v "qemu-$HERMES_TEST_EMULATED-static")" \
			"$1/hermes.$HERMES_TEST_EMULATED" >"$1/hermes"
	fi
}

# test_native_script 'WHY': at the top of a script: under qemu-user every
# test of the script is reported skipped, saying WHY.
test_native_script() {
	if test -n "${HERMES_TEST_EMULATED:-}"; then
		test_native_why=$1
	fi
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

# $interruptible CMD...: CMD with SIGINT at its default, for tests that
# stand in for a Ctrl-C with kill -INT. A command a script puts in the
# background (and every command of a script tests/run started in the
# background) starts with SIGINT ignored, and hermes, as it should, leaves
# an ignored signal ignored. A word, not a function: "$interruptible CMD &"
# is then one process, whose pid $! is.
interruptible="env --default-signal=INT"

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

# ---- System calls (strace) ---------------------------------------------
# Which system call does a thing is the C library's and the ABI's choice,
# not hermes's: glibc opens with openat, musl with open where the kernel
# has it; a 32-bit process locks with fcntl64 and looks at files with statx
# or fstatat64; aarch64 has no open, stat or rename at all. strace takes the
# names of every ABI it knows (one the traced process's ABI lacks matches
# none of its calls), so one list serves every binary under test: the
# x86_64 build, the static musl ones, the 32-bit one (make check-i686).

# syscalls CALL...: the system calls that may do what each CALL names, as
# one comma-separated list for strace -e trace= and -e inject=; for
# grep -E, "($(syscalls open | tr , "|"))\(" matches any of them.
syscalls() {
	syscalls_list=
	for syscalls_call in "$@"; do
		case $syscalls_call in
		open) syscalls_call=open,openat ;;
		stat) syscalls_call=stat,lstat,stat64,lstat64,newfstatat,fstatat64,statx ;;
		fcntl) syscalls_call=fcntl,fcntl64 ;;
		rename) syscalls_call=rename,renameat,renameat2 ;;
		link) syscalls_call=link,linkat ;;
		unlink) syscalls_call=unlink,unlinkat ;;
		esac
		syscalls_list=${syscalls_list:+$syscalls_list,}$syscalls_call
	done
	echo "$syscalls_list"
}

# ---- JSON --------------------------------------------------------------
# Every --json output a test looks at is read by a real parser (python3's
# json), never by grep: "[,{...}]" holds the right ids too.

# The parser: strict UTF-8, one JSON text and nothing after it, no NaN or
# Infinity, no key twice in an object.
json_py='
import json, sys
def pairs(kv):
    keys = [k for k, _ in kv]
    if len(keys) != len(set(keys)):
        raise ValueError("a key given twice in one object")
    return dict(kv)
def constant(name):
    raise ValueError(name + " is not JSON")
name, expr, a = sys.argv[1], sys.argv[2], sys.argv[3:]
data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
try:
    v = json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
except ValueError as e:
    sys.exit("%s: not valid JSON: %s" % (name, e))
if expr:
    try:
        r = eval(expr, {"v": v, "a": a})
    except Exception as e:
        sys.exit("%s: %s: %r" % (name, expr, e))
    def show(x):
        return x if isinstance(x, str) else json.dumps(x, ensure_ascii=False, separators=(",", ":"))
    for x in (r if isinstance(r, list) else [r]):
        print(show(x))
'

# json_valid FILE: FILE (- for stdin) holds one valid JSON text.
json_valid() {
	json_get "$1" ""
}

# json_get FILE EXPR [ARG...]: parse FILE (- for stdin), then print the
# Python expression EXPR of its value v (the ARGs are the list a): a list
# one item a line, a string as it is, anything else as compact JSON (true,
# 3, {"a":1}). Fails, saying why, when FILE is not valid JSON or EXPR does
# not apply (a missing key).
#   json_get out "len(v)"
#   json_get out "[s['id'] for s in v if s['title'] == a[0]]" "$title"
json_get() {
	if ! command -v python3 >/dev/null 2>&1; then
		echo "json_get: python3 is needed to read JSON" >&2
		return 1
	fi
	PYTHONIOENCODING=utf-8 python3 -c "$json_py" "$@"
}

# show_contents NAME: the contents of session NAME's messages, one a line,
# in order, as hermes sessions show NAME --json gives them.
show_contents() {
	hermes sessions show "$1" --json >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "[m['content'] for m in v['messages']]"
}

# Number of session files in $HERMES_HOME.
session_count() {
	ls "$HERMES_HOME/sessions" 2>/dev/null | grep -c '^[0-9]\{8\}_[0-9]\{6\}_[0-9a-f]\{6\}\.json$'
}

# The ID of the only (or newest by name) session whose title is $1.
session_id_by_title() {
	hermes sessions list --all --json |
	json_get - "[s['id'] for s in v if s['title'] == a[0]]" "$1" | head -n 1
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

# MACHINE: the tag that ends this machine's terminal keys (see machine_tag in
# src/terminal/mod.rs): pane %0 leaves tmux_pane--0.$MACHINE.json, found by looking.
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
