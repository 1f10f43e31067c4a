#!/bin/sh
test_description='errors say the real cause: curl that cannot start is not "not installed"; a home hermes cannot write names config.toml, not its temporary; a ~/.hermes root made (sudo with HOME kept) says whose it is and how to give it back'
. "$(dirname "$0")/lib.sh"

AGENT=$ROOT/contrib/agents/openai-compatible

# Under this address-space limit sh runs and curl cannot load its
# libraries (measured here: the limit a curl needs depends on its build).
CURL_LIMIT=8000
test_lazy_prereq CURL_UNLOADABLE '
	command -v curl &&
	sh -c "ulimit -v $CURL_LIMIT && true" &&
	! sh -c "ulimit -v $CURL_LIMIT && exec curl --version"
'

test_expect_success CURL_UNLOADABLE 'openai-compatible: curl that cannot load its libraries says so in its own words, not "not installed"' '
	test_expect_code 3 hermes chat -q hi -Q --agent "ulimit -v $CURL_LIMIT; exec $AGENT" >out 2>err &&
	grep "^curl: error while loading shared libraries" err &&
	grep "^openai-compatible: curl could not start (exit status 127)$" err &&
	! grep "not installed" err
'

test_expect_success 'openai-compatible: a curl that is not there is "not installed"' '
	test_expect_code 3 hermes chat -q hi -Q --agent "PATH=/nonexistent; exec $AGENT" >out 2>err &&
	grep "^openai-compatible: curl is not installed$" err
'

# as_user CMD...: CMD as user $LONELY_UID (whose processes are this
# test's alone), with the copy of hermes that user can run.
as_user() {
	setpriv --reuid=$LONELY_UID --regid=$LONELY_UID --clear-groups "$@"
}

test_expect_success ROOT,SETPRIV 'a home hermes cannot write (mode 0500): config set names config.toml and the directory, never its temporary' '
	bin=$(lonely_hermes) &&
	chmod 755 "$TRASH" &&
	mkdir -m 700 ro &&
	chown $LONELY_UID:$LONELY_UID ro &&
	HERMES_HOME=$TRASH/ro as_user "$bin" config set model first &&
	chmod 500 ro &&
	test_expect_code 4 env HERMES_HOME=$TRASH/ro setpriv --reuid=$LONELY_UID --regid=$LONELY_UID --clear-groups \
		"$bin" config set model second 2>err &&
	echo "hermes: cannot write $TRASH/ro/config.toml: no file can be added to its directory $TRASH/ro (Permission denied); see its owner and mode with: ls -ld $TRASH/ro" >expect &&
	test_cmp expect err &&
	ls -A ro >listing &&
	! grep "\.tmp$" listing &&
	# The sessions directory it would make, likewise.
	test_expect_code 4 env HERMES_HOME=$TRASH/ro setpriv --reuid=$LONELY_UID --regid=$LONELY_UID --clear-groups \
		"$bin" chat -q hi --no-agent -Q 2>err &&
	echo "hermes: cannot make $TRASH/ro/sessions: no file can be added to its directory $TRASH/ro (Permission denied); see its owner and mode with: ls -ld $TRASH/ro" >expect &&
	test_cmp expect err
'

test_expect_success ROOT,SETPRIV 'a ~/.hermes that root made (HOME kept): whose it is and the fix, for chat, list and config' '
	bin=$(lonely_hermes) &&
	chmod 755 "$TRASH" &&
	unset HERMES_HOME &&
	hermes chat -q "as root" --no-agent -Q &&
	chown $LONELY_UID:$LONELY_UID home &&
	echo "hermes: $TRASH/home/.hermes belongs to root, not to uid $LONELY_UID (was hermes run as root with HOME kept, as sudo does?), so hermes cannot use it; give it back: sudo chown -R $LONELY_UID $TRASH/home/.hermes" >expect &&
	for command in "chat -q hi --no-agent -Q" "sessions list" "config set model x" "config get model"; do
		# shellcheck disable=SC2086
		test_expect_code 4 as_user "$bin" $command 2>err &&
		test_cmp expect err || return 1
	done &&
	chown -R $LONELY_UID:$LONELY_UID home/.hermes &&
	as_user "$bin" chat -q "mine again" --no-agent -Q
'

test_expect_success ROOT,SETPRIV 'a directory inside the home that root made is the one named' '
	bin=$(lonely_hermes) &&
	chmod 755 "$TRASH" &&
	mkdir -m 700 mine &&
	chown $LONELY_UID:$LONELY_UID mine &&
	HERMES_HOME=$TRASH/mine &&
	mkdir -m 700 mine/sessions &&
	test_expect_code 4 as_user "$bin" chat -q hi --no-agent -Q 2>err &&
	echo "hermes: $TRASH/mine/sessions belongs to root, not to uid $LONELY_UID (was hermes run as root with HOME kept, as sudo does?), so hermes cannot use it; give it back: sudo chown -R $LONELY_UID $TRASH/mine" >expect &&
	test_cmp expect err
'

test_done
