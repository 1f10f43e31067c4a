#!/bin/sh
test_description='a title two sessions share is ambiguous wherever a name is resolved'
. "$(dirname "$0")/lib.sh"

# Two machines each made thread "b" (--create-if-missing) before they synced:
# two files, one title.
A=20261201_100000_aaaaaa B=20261201_110000_bbbbbb

two_bs() {
	mk_session $A b user 1796200000 /x user "from one machine" &&
	mk_session $B b user 1796203600 /x user "from the other" assistant yes
}

ambiguous_b() {
	cat <<-EOF
	hermes: 'b' is ambiguous: 2 sessions have that title:
	  $B  last active 2026-12-02 09:26  2 messages
	  $A  last active 2026-12-02 08:26  1 message
	nothing was done; name one by its ID, rename one (hermes sessions rename ID TITLE), or merge them into one (hermes sessions merge b)
	EOF
}

snapshot() {
	find "$HERMES_HOME" -type f | sort | xargs cksum
}

test_expect_success 'every verb that takes a name refuses an ambiguous one: exit 1, both named, nothing written' '
	two_bs &&
	snapshot >before &&
	ambiguous_b >expect &&
	for cmd in "chat -c b -q more --no-agent" "chat -c b --create-if-missing -q more --no-agent" \
		"sessions show b" "sessions export b" "sessions rename b c" "sessions delete b --yes"; do
		test_expect_code 1 hermes $cmd >out 2>err &&
		test_must_be_empty out &&
		test_cmp expect err &&
		snapshot >after &&
		test_cmp before after || return 1
	done &&
	test "$(session_count)" = 2
'

test_expect_success 'by ID each is still reachable, and a cleaned-up spelling is as ambiguous' '
	two_bs &&
	hermes chat -c $A -q more --no-agent -Q &&
	test "$(field $A message_count)" = 2 &&
	test_expect_code 1 hermes sessions show "  b " 2>err &&
	grep "is ambiguous: 2 sessions have that title" err
'

test_expect_success 'renaming one ends the ambiguity' '
	two_bs &&
	hermes sessions rename $B "b on the server" &&
	hermes sessions show b >out &&
	grep "from one machine" out
'

test_expect_success 'merge TITLE folds them into the oldest, each message once; the name works again' '
	two_bs &&
	env TMUX_PANE=%3 hermes sessions current >/dev/null 2>&1;
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	env TMUX_PANE=%3 hermes chat -c $B -q "in pane 3" --no-agent -Q &&
	hermes sessions merge b --dry-run >out 2>err &&
	echo "would merge session $B into $A '"'b'"': 3 new messages" >expect &&
	test_cmp expect out &&
	test "$(session_count)" = 2 &&
	hermes sessions merge b --yes >out 2>err &&
	echo "merged session $B into $A '"'b'"': 3 new messages" >expect &&
	test_cmp expect out &&
	test "$(session_count)" = 1 &&
	hermes sessions show b --json | tr "{" "\n" | sed -n "s/.*\"content\":\"\([^\"]*\)\".*/\1/p" >actual &&
	printf "%s\n" "from one machine" "from the other" yes "in pane 3" >expect &&
	test_cmp expect actual &&
	test "$(field $A message_count)" = 4 &&
	# The pane that talked in the folded session continues the merged one.
	env TMUX_PANE=%3 hermes sessions current >current &&
	check_current current $A breadcrumb &&
	hermes sessions merge b --yes 2>err &&
	echo "only one session is titled '"'b'"'; nothing to merge" >expect &&
	test_cmp expect err
'

test_expect_success 'parallel --create-if-missing still makes one session' '
	for i in 1 2 3 4 5 6; do
		hermes chat -c cron --create-if-missing -q "run $i" --no-agent -Q &
	done &&
	wait &&
	test "$(session_count)" = 1 &&
	test "$(field $(only_id) message_count)" = 6
'

test_done
