#!/bin/sh
test_description='the test harness and the binary it drives'
. "$(dirname "$0")/lib.sh"

test_expect_success 'hermes --version prints the version and exits 0' '
	hermes --version >out 2>err &&
	grep "^hermes [0-9]" out &&
	test_must_be_empty err
'

test_expect_success 'each test gets its own empty HERMES_HOME' '
	! test -e "$HERMES_HOME" &&
	hermes chat -q hi --no-agent -Q &&
	test "$(session_count)" = 1
'

test_expect_success 'test_must_fail refuses a crash' '
	! test_must_fail sh -c "kill -SEGV \$\$"
'

test_done
