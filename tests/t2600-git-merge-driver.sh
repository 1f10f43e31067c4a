#!/bin/sh
test_description='a home kept in git: hermes sessions merge-file as the merge driver'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq GIT 'command -v git'

# git_home: $HERMES_HOME as a git repository set up as the README says, with
# session "thread" (one message) committed on branch main.
git_home() {
	hermes chat --title thread -q first --no-agent -Q &&
	ID=$(session_id_by_title thread) &&
	cd "$HERMES_HOME" &&
	git init -q -b main . &&
	git config user.email t@example.com && git config user.name t &&
	# The three lines of the README:
	echo "sessions/*.json merge=hermes" >>.gitattributes &&
	git config merge.hermes.name "hermes sessions" &&
	git config merge.hermes.driver "hermes sessions merge-file %O %A %B" &&
	printf "%s\n" index .lock terminal-sessions/ >.gitignore &&
	git add -A && git commit -q -m start &&
	cd "$TRASH"
}

# on BRANCH CMD...: CMD with branch BRANCH checked out in the home.
on() {
	branch=$1
	shift
	git -C "$HERMES_HOME" checkout -q "$branch" && "$@" &&
	git -C "$HERMES_HOME" add -A && git -C "$HERMES_HOME" commit -q -m "$branch"
}

contents() {
	hermes sessions show "$1" --json | tr "{" "\n" | sed -n "s/.*\"content\":\"\([^\"]*\)\".*/\1/p"
}

test_expect_success GIT 'both branches appended: git merges cleanly, every message once, in time order' '
	git_home &&
	git -C "$HERMES_HOME" branch laptop &&
	on main hermes chat -c thread -q "on main" --no-agent -Q &&
	on laptop hermes chat -c thread -q "on the laptop" --no-agent -Q &&
	git -C "$HERMES_HOME" checkout -q main &&
	git -C "$HERMES_HOME" merge -q --no-edit laptop >out 2>err &&
	printf "%s\n" first "on main" "on the laptop" >expect &&
	contents thread >actual &&
	test_cmp expect actual &&
	test "$(field $ID message_count)" = 3 &&
	git -C "$HERMES_HOME" status --porcelain >status &&
	test_must_be_empty status
'

test_expect_success GIT 'without the driver the same merge conflicts (what the driver is for)' '
	git_home &&
	git -C "$HERMES_HOME" config --unset merge.hermes.driver &&
	git -C "$HERMES_HOME" config merge.hermes.driver false &&
	git -C "$HERMES_HOME" branch laptop &&
	on main hermes chat -c thread -q "on main" --no-agent -Q &&
	on laptop hermes chat -c thread -q "on the laptop" --no-agent -Q &&
	git -C "$HERMES_HOME" checkout -q main &&
	test_must_fail git -C "$HERMES_HOME" merge -q --no-edit laptop >out 2>&1
'

test_expect_success GIT 'a rename on one side is taken; messages of both are kept' '
	git_home &&
	git -C "$HERMES_HOME" branch laptop &&
	on main hermes chat -c thread -q "on main" --no-agent -Q &&
	on laptop hermes sessions rename thread "redis thread" &&
	git -C "$HERMES_HOME" checkout -q main &&
	git -C "$HERMES_HOME" merge -q --no-edit laptop &&
	test "$(field $ID title)" = "redis thread" &&
	printf "%s\n" first "on main" >expect &&
	contents "redis thread" >actual &&
	test_cmp expect actual
'

test_expect_success GIT 'two different renames: exit 1, ours kept and valid, messages merged, git reports the conflict' '
	git_home &&
	git -C "$HERMES_HOME" branch laptop &&
	on main hermes sessions rename thread "main title" &&
	on main hermes chat -c "main title" -q "on main" --no-agent -Q &&
	on laptop hermes sessions rename thread "laptop title" &&
	on laptop hermes chat -c "laptop title" -q "on the laptop" --no-agent -Q &&
	git -C "$HERMES_HOME" checkout -q main &&
	test_must_fail git -C "$HERMES_HOME" merge --no-edit laptop >out 2>err &&
	grep "^hermes: session $ID: titled '"'main title'"' here and '"'laptop title'"' there; kept '"'main title'"' (messages merged); rename it if you want theirs\$" out err &&
	git -C "$HERMES_HOME" status --porcelain >status &&
	grep "^UU sessions/$ID.json\$" status &&
	# The file in the work tree is a valid session, with our title.
	test "$(field $ID title)" = "main title" &&
	printf "%s\n" first "on main" "on the laptop" >expect &&
	contents "main title" >actual &&
	test_cmp expect actual
'

test_expect_success 'merge-file by hand: THEIRS not a session leaves OURS as it was, exit 1' '
	hermes chat --title thread -q first --no-agent -Q &&
	ID=$(session_id_by_title thread) &&
	cp "$HERMES_HOME/sessions/$ID.json" ours &&
	cp ours ours.before &&
	echo "<<<<<<< not json" >theirs &&
	: >base &&
	test_expect_code 1 hermes sessions merge-file base ours theirs 2>err &&
	grep "^hermes: theirs: THEIRS is not a valid session file (.*); OURS left as it was\$" err &&
	test_cmp ours.before ours
'

test_expect_success 'merge-file by hand: two different sessions are not merged' '
	hermes chat -q one --no-agent -Q &&
	hermes chat -q two --no-agent -Q &&
	cp "$HERMES_HOME/sessions/$(session_id_by_title one).json" ours &&
	cp ours ours.before &&
	cp "$HERMES_HOME/sessions/$(session_id_by_title two).json" theirs &&
	test_expect_code 1 hermes sessions merge-file ours ours theirs 2>err &&
	grep "not two versions of one session; OURS left as it was" err &&
	test_cmp ours.before ours
'

test_expect_success 'merge-file wants exactly three files' '
	test_expect_code 2 hermes sessions merge-file a b 2>err &&
	grep "missing THEIRS" err
'

test_done
