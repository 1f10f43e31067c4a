#!/bin/sh
test_description='a home, store directory or config.toml another user owns or can write is refused (ssh StrictModes style); config.toml is opened without blocking and never quoted'
. "$(dirname "$0")/lib.sh"

# An agent that leaves a mark when it runs: a planted config must never
# get that far.
planted_config() {
	printf "agent = \"touch %s/agent-ran; echo planted\"\n" "$TRASH" >"$1"
}

# group_is_private GID: GID has exactly one member, the current user (the
# rule hermes follows, as Debian's openssh does).
group_is_private() {
	me=$(id -un) &&
	awk -F: -v g="$1" -v me="$me" '$4 == g && $1 != me { bad = 1 } $4 == g && $1 == me { n++ } END { exit bad || !n }' /etc/passwd &&
	awk -F: -v g="$1" -v me="$me" '$3 == g { found = 1; if ($4 != "" && $4 != me) bad = 1 } END { exit bad || !found }' /etc/group
}

test_expect_success 'a home writable by anyone is refused to chat: one line with owner, mode and the fix; its config is not run' '
	hermes chat --title first -q hi --no-agent -Q &&
	planted_config "$HERMES_HOME/config.toml" &&
	chmod 666 "$HERMES_HOME/config.toml" &&
	for mode in 0777 1777 0757; do
		chmod $mode "$HERMES_HOME" &&
		test_expect_code 4 hermes chat -c first -q x -Q >out 2>err &&
		echo "hermes: $HERMES_HOME (owner $(id -un), mode $mode) is writable by anyone; run '"'"'chmod 700 $HERMES_HOME'"'"'" >expect &&
		test_cmp expect err &&
		test_must_be_empty out || return 1
	done &&
	! test -e agent-ran &&
	test "$(hermes sessions show first --json 2>/dev/null | grep -c "\"role\":\"user\"")" = 1
'

test_expect_success 'group-writable: refused unless the group is the user'"'"'s private group' '
	hermes chat --title first -q hi --no-agent -Q &&
	chmod 770 "$HERMES_HOME" &&
	chgrp staff "$HERMES_HOME" &&
	test_expect_code 4 hermes chat -c first -q x --no-agent -Q 2>err &&
	echo "hermes: $HERMES_HOME (owner $(id -un), mode 0770) is writable by its group; run '"'"'chmod 700 $HERMES_HOME'"'"'" >expect &&
	test_cmp expect err &&
	gid=$(id -g) &&
	chgrp "$gid" "$HERMES_HOME" &&
	if group_is_private "$gid"; then
		hermes chat -c first -q x --no-agent -Q 2>err &&
		test_must_be_empty err
	else
		test_expect_code 4 hermes chat -c first -q x --no-agent -Q
	fi
'

test_expect_success 'read-only commands in an unsafe home warn exactly once, with the mode as it is' '
	hermes chat --title first -q hi --no-agent -Q &&
	chmod 1777 "$HERMES_HOME" &&
	for command in "sessions list" "sessions show first" "sessions current" "sessions stats" \
		"sessions export" "sessions prune --older-than 1 --dry-run"; do
		hermes $command >out 2>err </dev/null
		test $? -le 1 || return 1
		grep "warning" err >warnings &&
		echo "hermes: warning: $HERMES_HOME (owner $(id -un), mode 1777) is writable by anyone; run '"'"'chmod 700 $HERMES_HOME'"'"'" >expect &&
		test_cmp expect warnings || return 1
	done &&
	test_expect_code 4 hermes sessions rename first second &&
	test_expect_code 4 hermes sessions delete first --yes &&
	test_expect_code 4 hermes sessions prune --older-than 0 --yes &&
	chmod 700 "$HERMES_HOME" &&
	hermes sessions list >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'a home owned by another user is refused, with the fix for a home not yours' '
	hermes chat --title first -q hi --no-agent -Q &&
	chown 65534 "$HERMES_HOME" &&
	test_expect_code 4 hermes chat -c first -q x --no-agent -Q 2>err &&
	echo "hermes: $HERMES_HOME (owner nobody, mode 0700) belongs to another user; use a directory of your own: set HERMES_HOME" >expect &&
	test_cmp expect err
'

test_lazy_prereq SETPRIV 'command -v setpriv'
test_expect_success ROOT,SETPRIV 'as another user: a world-writable home of root'"'"'s is refused with a fix that is not chmod' '
	bin=$(lonely_hermes) &&
	mkdir -m 1777 shared &&
	chmod 755 "$TRASH" &&
	HERMES_HOME=$TRASH/shared setpriv --reuid=$LONELY_UID --regid=$LONELY_UID --clear-groups \
		"$bin" chat -q hi --no-agent -Q 2>err
	test $? = 4 &&
	echo "hermes: $TRASH/shared (owner root, mode 1777) is writable by anyone; use a directory of your own: set HERMES_HOME" >expect &&
	test_cmp expect err &&
	test -z "$(ls -A shared)"
'

test_expect_success 'config.toml another user owns, or others can write, is never obeyed' '
	hermes chat --title first -q hi --no-agent -Q &&
	planted_config "$HERMES_HOME/config.toml" &&
	chown 65534 "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -c first -q x >out 2>err &&
	echo "hermes: $HERMES_HOME/config.toml (owner nobody, mode 0644) belongs to another user; use a directory of your own: set HERMES_HOME" >expect &&
	test_cmp expect err &&
	chown 0 "$HERMES_HOME/config.toml" &&
	chmod 646 "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -c first -q x >out 2>err &&
	echo "hermes: $HERMES_HOME/config.toml (owner $(id -un), mode 0646) is writable by anyone; run '"'"'chmod 600 $HERMES_HOME/config.toml'"'"'" >expect &&
	test_cmp expect err &&
	chmod 664 "$HERMES_HOME/config.toml" &&
	chgrp staff "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -c first -q x >out 2>err &&
	grep "mode 0664) is writable by its group" err &&
	! test -e agent-ran &&
	chmod 600 "$HERMES_HOME/config.toml" &&
	hermes chat -c first -q x -Q >out &&
	echo planted >expect &&
	test_cmp expect out &&
	test -e agent-ran
'

test_expect_success 'a linked config.toml is followed when what it reaches passes the same check' '
	hermes chat --title first -q hi --no-agent -Q &&
	mkdir -m 700 dotfiles &&
	echo "agent = \"echo from-dotfiles\"" >dotfiles/hermes.toml &&
	ln -s "$TRASH/dotfiles/hermes.toml" "$HERMES_HOME/config.toml" &&
	hermes chat -c first -q x -Q >out &&
	echo from-dotfiles >expect &&
	test_cmp expect out &&
	chown 65534 dotfiles/hermes.toml &&
	test_expect_code 4 hermes chat -c first -q x -Q 2>err &&
	echo "hermes: $HERMES_HOME/config.toml (owner nobody, mode 0644) belongs to another user; use a directory of your own: set HERMES_HOME" >expect &&
	test_cmp expect err
'

test_expect_success 'config.toml linked to a FIFO or a device is refused at once, never waited on' '
	hermes chat --title first -q hi --no-agent -Q &&
	mkfifo fifo &&
	ln -s "$TRASH/fifo" "$HERMES_HOME/config.toml" &&
	test_expect_code 4 timeout 20 hermes chat -c first -q x 2>err &&
	echo "hermes: $HERMES_HOME/config.toml is a FIFO, not a regular file; config.toml must be a file" >expect &&
	test_cmp expect err &&
	rm "$HERMES_HOME/config.toml" &&
	ln -s /dev/zero "$HERMES_HOME/config.toml" &&
	test_expect_code 4 timeout 20 hermes chat -c first -q x 2>err &&
	grep "config.toml is a device, not a regular file" err
'

test_expect_success 'an error about a file that is not a config never quotes its content' '
	hermes chat --title first -q hi --no-agent -Q &&
	printf "root:SECRET-HASH:19000:0:99999:7:::\ndaemon:*:19000\n" >shadow &&
	chmod 600 shadow &&
	ln -s "$TRASH/shadow" "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -c first -q x 2>err &&
	! grep -e SECRET -e root: err &&
	echo "hermes: $HERMES_HOME/config.toml: line 1: expected key = \"value\"" >expect &&
	test_cmp expect err &&
	for text in "password = hunter2-SECRET" "token = \"SECRET\" SECRET" \
		"agent_input = \"SECRET\"" "x.y = \"SECRET\"" "agent = \"SECRET\\q\""; do
		printf "%s\n" "$text" >shadow &&
		test_expect_code 4 hermes chat -c first -q x 2>err &&
		grep "config.toml: line 1: " err &&
		! grep SECRET err || { cat err; return 1; }
	done &&
	head -c 100000 /dev/zero >shadow &&
	test_expect_code 4 hermes chat -c first -q x 2>err &&
	echo "hermes: $HERMES_HOME/config.toml: larger than the 64 KiB a config file may be; make it smaller with '"'"'hermes config unset KEY'"'"' or '"'"'hermes config set KEY VALUE'"'"' (they read it whole to mend it), or by hand" >expect &&
	test_cmp expect err
'

test_done
