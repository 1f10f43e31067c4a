#!/bin/sh
test_description='everyday use: --version, hermes help, quiet progress off a terminal'
. "$(dirname "$0")/lib.sh"

CR=$(printf '\r')

test_expect_success '--version prints the version of Cargo.toml, and nothing else' '
	sed -n "s/^version = \"\(.*\)\"$/hermes \1/p" "$ROOT/Cargo.toml" | head -n 1 >expect &&
	hermes --version >out 2>err &&
	test_cmp expect out &&
	test_must_be_empty err &&
	hermes -V >out &&
	test_cmp expect out
'

test_expect_success '--version -v adds the build details' '
	hermes --version -v >out &&
	hermes -V -v >out2 &&
	test_cmp out out2 &&
	hermes --version --verbose >out3 &&
	test_cmp out out3 &&
	sed -e "s/^\(target\): .*/\1: T/" -e "s/^static: yes$/static: Y/" -e "s/^static: no$/static: Y/" \
		-e "s/^hermes .*/hermes V/" out >actual &&
	cat >expect <<-\EOF &&
	hermes V
	session format: 1
	target: T
	profile: release
	static: Y
	EOF
	test_cmp expect actual
'

test_expect_success '--version and help touch no files, even with no HOME' '
	hermes --version -v >/dev/null &&
	hermes help sessions list >/dev/null &&
	! test -e "$HERMES_HOME" &&
	env -u HOME -u HERMES_HOME hermes --version >out &&
	grep "^hermes " out
'

test_expect_success 'hermes help is hermes --help' '
	hermes --help >expect &&
	hermes help >actual &&
	test_cmp expect actual &&
	hermes -h >actual &&
	test_cmp expect actual
'

test_expect_success 'hermes help COMMAND is COMMAND --help' '
	for command in chat sessions completion; do
		hermes "$command" --help >expect &&
		hermes help "$command" >actual 2>err &&
		test_cmp expect actual &&
		test_must_be_empty err || return 1
	done
'

test_expect_success 'hermes help sessions list is hermes sessions list --help' '
	hermes sessions list --help >expect &&
	grep "^Usage: hermes sessions list " expect &&
	hermes help sessions list >actual &&
	test_cmp expect actual
'

test_expect_success 'hermes help sessions VERB for every verb, and hermes help VERB' '
	for verb in $VERBS; do
		hermes sessions "$verb" --help >expect &&
		grep -q "^Usage: hermes sessions $verb" expect &&
		hermes help sessions "$verb" >actual &&
		test_cmp expect actual &&
		hermes help "$verb" >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'hermes help with an unknown command is a usage error' '
	test_expect_code 2 hermes help frobnicate >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: help: no such command .frobnicate.$" err &&
	test_expect_code 2 hermes help sessions frobnicate >out 2>err &&
	grep "^hermes: help: no such command .sessions frobnicate.$" err
'

# $1 sessions to import: one real session, copied with new IDs and titles.
make_import_file() {
	HERMES_HOME=$TRASH/template hermes chat -c template --create-if-missing -q hi --no-agent -Q &&
	HERMES_HOME=$TRASH/template hermes sessions export --format jsonl >template.jsonl &&
	id=$(sed -n "s/.*\"id\":\"\([0-9_a-f]*\)\".*/\1/p" template.jsonl) &&
	test -n "$id" &&
	awk -v id="$id" -v n="$1" "{
		for (i = 1; i <= n; i++) {
			line = \$0
			gsub(id, sprintf(\"20261202_120000_%06x\", i), line)
			gsub(/\"title\":\"template\"/, \"\\\"title\\\":\\\"session \" i \"\\\"\", line)
			print line
		}
	}" template.jsonl >sessions.jsonl &&
	test_line_count = "$1" sessions.jsonl
}

test_expect_success 'import and export of 300 sessions, stderr to a file: no progress' '
	make_import_file 300 &&
	hermes sessions import sessions.jsonl >out 2>err &&
	test "$(session_count)" = 300 &&
	! grep -q "$CR" err &&
	! grep -q "importing" err &&
	hermes sessions export --format jsonl -o exported.jsonl >out 2>err &&
	test_line_count = 300 exported.jsonl &&
	test_must_be_empty err &&
	hermes sessions export --format jsonl >exported.jsonl 2>err &&
	test_line_count = 300 exported.jsonl &&
	test_must_be_empty err &&
	hermes sessions prune --older-than 365 --yes >out 2>err &&
	! grep -q "$CR" err out &&
	test "$(session_count)" = 300
'

test_expect_success SCRIPT 'on a terminal the same export shows its progress' '
	make_import_file 300 &&
	hermes sessions import sessions.jsonl >out 2>err &&
	run_in_pty "hermes sessions export --format jsonl -o exported.jsonl" >tty &&
	grep -q "exporting 300/300" tty &&
	grep -q "$CR" tty &&
	test_line_count = 300 exported.jsonl
'

test_expect_success 'hermes --help names every sessions command' '
	hermes --help | sed -n "/^  sessions /,/^  completion /p" | tr -s " ,\n" "\n\n\n" >words &&
	for verb in $VERBS; do
		grep -qx -e "$verb" words || { echo "hermes --help lacks $verb" >&2; return 1; }
	done
'

test_done
