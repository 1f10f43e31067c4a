#!/bin/sh
test_description='make static: a static binary that runs alone, with no environment'
. "$(dirname "$0")/lib.sh"

STATIC=$ROOT/target/static/hermes
# cargo and rustup find their toolchains through the HOME the tests replace.
BUILD_HOME=$HOME

# A directory holding nothing but a copy of the static binary. It sits
# beside the trash directory, not in it: the binary holds the words of its
# panic message, which the harness looks for in trash directories.
lone_copy() {
	lone=$TRASH.alone &&
	mkdir "$lone" &&
	cp "$STATIC" "$lone/hermes"
}

test_expect_success EXPENSIVE 'make static builds target/static/hermes' '
	rm -f "$STATIC" &&
	HOME=$BUILD_HOME make -s -C "$ROOT" static >out 2>&1 &&
	test -x "$STATIC"
'

test_expect_success EXPENSIVE 'file(1) reports it statically linked, with no interpreter' '
	file "$STATIC" >out &&
	grep -E "statically linked|static-pie linked" out &&
	! grep "interpreter" out
'

test_expect_success EXPENSIVE 'it says so itself' '
	"$STATIC" --version -v >out &&
	grep "^static: yes$" out
'

test_expect_success EXPENSIVE 'alone, with an empty environment: a clear error about HERMES_HOME, exit 4' '
	lone_copy &&
	(cd "$lone" && test_expect_code 4 env -i ./hermes sessions list >"$TRASH/out" 2>"$TRASH/err") &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	hermes: neither HERMES_HOME nor HOME is set, so there is nowhere to keep sessions; set HERMES_HOME=/path/to/dir
	EOF
	test_cmp expect err &&
	ls -A "$lone" >left &&
	echo hermes >expect &&
	test_cmp expect left
'

test_expect_success EXPENSIVE 'alone, with an empty environment: chat fails the same way' '
	lone_copy &&
	(cd "$lone" && test_expect_code 4 env -i ./hermes chat -q hi >"$TRASH/out" 2>"$TRASH/err") &&
	test_must_be_empty out &&
	grep "^hermes: neither HERMES_HOME nor HOME is set" err
'

test_expect_success EXPENSIVE 'alone, with only HERMES_HOME: it keeps sessions' '
	lone_copy &&
	(
		cd "$lone" &&
		env -i HERMES_HOME="$lone/home" ./hermes chat -c notes --create-if-missing -q hello -Q &&
		env -i HERMES_HOME="$lone/home" ./hermes sessions list
	) >out 2>err &&
	test_must_be_empty err &&
	grep "^[*]*	notes	.*	1	[0-9_a-f]*$" out
'

test_expect_success EXPENSIVE 'alone, with an empty environment: what needs no store works' '
	lone_copy &&
	(cd "$lone" && env -i ./hermes --version && env -i ./hermes completion bash && env -i ./hermes help) >out 2>err &&
	test_must_be_empty err &&
	grep "^hermes [0-9]" out &&
	grep "^complete -F _hermes hermes$" out
'

test_done
