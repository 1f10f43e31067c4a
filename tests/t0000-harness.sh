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

test_expect_success 'json_valid refuses what only looks like JSON' '
	echo "[{\"id\":\"a\"},{\"id\":\"b\"}]" >good &&
	json_valid good &&
	for bad in "[,{\"id\":\"a\"}]" "[{\"id\":\"a\"}] x" "{\"a\":1,\"a\":2}" "[NaN]" "" "[1,]"; do
		printf "%s\n" "$bad" >bad &&
		! json_valid bad 2>err &&
		grep "^bad: not valid JSON: " err || { echo "taken: $bad"; return 1; }
	done &&
	printf "[\"\377\"]" >bad &&
	! json_valid bad
'

test_expect_success 'json_get prints what an expression picks, and fails on a missing key' '
	echo "[{\"id\":\"a\",\"n\":1,\"t\":\"x \\\"y\\\"\"},{\"id\":\"b\",\"n\":2,\"t\":\"z\"}]" >in &&
	json_get in "[s[\"id\"] for s in v]" >actual &&
	printf "a\nb\n" >expect && test_cmp expect actual &&
	json_get in "v[0][\"t\"]" >actual &&
	echo "x \"y\"" >expect && test_cmp expect actual &&
	json_get in "[s[\"id\"] for s in v if s[\"t\"] == a[0]]" "x \"y\"" >actual &&
	echo a >expect && test_cmp expect actual &&
	json_get in "v[1]" >actual &&
	echo "{\"id\":\"b\",\"n\":2,\"t\":\"z\"}" >expect && test_cmp expect actual &&
	! json_get in "v[0][\"missing\"]" 2>err &&
	grep "KeyError" err
'

# A script of its own, run by the harness as tests/run would, for what the
# harness reports.
run_script() {
	cat >"$TEST_DIR/t0000-scratch-$$.sh" &&
	sh "$TEST_DIR/t0000-scratch-$$.sh" "$@" >out 2>err
	status=$?
	rm -f "$TEST_DIR/t0000-scratch-$$.sh"
	return $status
}

test_expect_success 'test_skip in a body reports a skip with its reason, not a pass' '
	run_script <<-\EOF &&
	. "$(dirname "$0")/lib.sh"
	test_expect_success "cannot get there" "true && test_skip \"no way in\""
	test_expect_success "gets there" "true"
	test_done
	EOF
	grep "^ok 1 # skip cannot get there (no way in)$" out &&
	grep "^ok 2 - gets there$" out &&
	grep ": 1 passed, 0 failed, 1 skipped$" out
'

test_expect_success 'prerequisites: lazy, comma lists name the missing one, an unknown one stops the script' '
	test_must_fail run_script <<-\EOF &&
	. "$(dirname "$0")/lib.sh"
	test_lazy_prereq YES "true"
	test_lazy_prereq NO "echo noise; false"
	test_expect_success YES "runs" "true"
	test_expect_success YES,NO "skipped" "false"
	test_expect_success YESS "misspelt" "true"
	test_done
	EOF
	grep "^ok 1 - runs$" out &&
	grep "^ok 2 # skip skipped (missing NO)$" out &&
	! grep noise out &&
	! grep misspelt out &&
	grep "^Bail out! unknown prerequisite YESS$" err
'

test_expect_success '--run=LIST runs only those tests' '
	run_script --run=1,3-4 <<-\EOF &&
	. "$(dirname "$0")/lib.sh"
	for n in 1 2 3 4 5; do test_expect_success "test $n" "true"; done
	test_done
	EOF
	grep "^ok [0-9]* - " out >ran &&
	printf "ok 1 - test 1\nok 3 - test 3\nok 4 - test 4\n" >expect &&
	test_cmp expect ran &&
	grep ": 3 passed, 0 failed, 2 skipped$" out
'

test_expect_success 'make unit and make test have rules; TESTS names the scripts' '
	make -n -C "$ROOT" unit >out &&
	grep "cargo test " out &&
	make -n -C "$ROOT" test TESTS=t0000-harness.sh >out &&
	grep "tests/run t0000-harness.sh$" out
'

test_expect_success 'every test script has a number of its own' '
	ls "$ROOT"/tests/t[0-9]*.sh | sed "s|.*/t\([0-9]*\)-.*|\1|" | sort | uniq -d >dup &&
	test_must_be_empty dup
'

test_expect_success 'tests/run keeps the scripts going and reports each as it ends' '
	# Beside the trash directory: lib.sh holds the words of a panic, which
	# the harness looks for in trash directories.
	t=$TRASH.run && mkdir "$t" &&
	cp "$ROOT"/tests/lib.sh "$ROOT"/tests/lib-fixtures.sh "$ROOT"/tests/run "$t" &&
	# The first ends only once the second has been reported: a runner
	# that reports each script as it ends shows the second first, whatever
	# the load; one that waits for both, or for all, shows the first first
	# (after the first gives up waiting, in 30 seconds).
	for n in 1 2 3; do
		case $n in
		1) body="i=0; until grep -q \"^# t9002-s: \" \"$PWD/out\" || test \$i = 300; do sleep 0.1; i=\$((i + 1)); done" ;;
		2) body=true ;;
		3) body=true ;;
		esac &&
		printf "%s\n" "test_description=\"s$n\"" ". \"\$(dirname \"\$0\")/lib.sh\"" \
			"test_expect_success \"one\" '"'"'$body'"'"'" test_done >"$t/t900$n-s.sh" || return 1
	done &&
	TEST_JOBS=2 HERMES_TEST_TIMES=times sh "$t/run" >out &&
	tail -n 1 out >actual &&
	echo "3 passed, 0 failed, 0 skipped" >expect &&
	test_cmp expect actual &&
	test_line_count = 3 "$t/times" &&
	# The second script is reported before the first.
	grep "^# t900[12]-s: " out | cut -d: -f1 >actual &&
	printf "%s\n" "# t9002-s" "# t9001-s" >expect &&
	test_cmp expect actual
'

test_done
