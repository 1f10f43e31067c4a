#!/bin/sh
test_description='config set and unset: read, change and write config.toml under a lock (racing writers lose no key); one size limit, checked before writing; a config.toml made too large by hand is refused by the rest and mended by set and unset'
. "$(dirname "$0")/lib.sh"

# An apostrophe, for the messages quoting names (a test body cannot hold one).
SQ="'"

# keys_kept: config.toml sets both model and system.
keys_kept() {
	grep -q "^model = \"m\"$" "$HERMES_HOME/config.toml" &&
	grep -q "^system = \"s\"$" "$HERMES_HOME/config.toml"
}

test_expect_success 'the issue: 30 rounds of two config set at once keep both keys every time' '
	mkdir -p "$HERMES_HOME" &&
	lost=0 &&
	for round in $(seq 30); do
		: >"$HERMES_HOME/config.toml" &&
		{ hermes config set model m & hermes config set system s & wait; } &&
		{ keys_kept || lost=$((lost + 1)); } || return 1
	done &&
	figure "t6905: 30 rounds of config set model m & config set system s: $lost lost a key" &&
	test "$lost" = 0
'

test_expect_success 'set and unset racing on other keys: the set one is there, the unset one gone, every time' '
	mkdir -p "$HERMES_HOME" &&
	for round in $(seq 20); do
		printf "model = \"m\"\n# mine\nsystem = \"s\"\n" >"$HERMES_HOME/config.toml" &&
		{ hermes config set agent a & hermes config unset model & wait; } &&
		printf "# mine\nsystem = \"s\"\nagent = \"a\"\n" >expect &&
		test_cmp expect "$HERMES_HOME/config.toml" || return 1
	done
'

test_expect_success 'a value that would make config.toml pass 64 KiB: exit 2, nothing written, the key named' '
	hermes config set model m &&
	cp "$HERMES_HOME/config.toml" before &&
	awk "BEGIN { while (n++ < 72 * 1024) printf \"x\" }" >72KB.txt &&
	test_expect_code 2 hermes config set system "$(cat 72KB.txt)" 2>err &&
	echo "hermes: config.toml would be 73 KiB, over the 64 KiB a config file may be; nothing was written (the line of ${SQ}system${SQ} alone is 73 KiB). A long system prompt belongs in a file: hermes chat --system-file FILE" >expect &&
	test_cmp expect err &&
	test_cmp before "$HERMES_HOME/config.toml" &&
	hermes config get model &&
	awk "BEGIN { while (n++ < 60 * 1024) printf \"x\" }" >60KB.txt &&
	hermes config set system "$(cat 60KB.txt)" &&
	awk "BEGIN { while (n++ < 62 * 1024) printf \"x\" }" >62KB.txt &&
	test_expect_code 2 hermes config set agent "$(cat 62KB.txt)" 2>err &&
	grep "the line of ${SQ}agent${SQ} alone is 63 KiB" err &&
	! grep "system-file" err
'

test_expect_success 'a config.toml over 64 KiB made by hand: every other command refuses it saying how to mend it; unset mends it' '
	mkdir -p "$HERMES_HOME" &&
	{
		echo "model = \"m\"" &&
		printf "system = \"" && awk "BEGIN { while (n++ < 72 * 1024) printf \"x\" }" && echo "\""
	} >"$HERMES_HOME/config.toml" &&
	chmod 600 "$HERMES_HOME/config.toml" &&
	cp "$HERMES_HOME/config.toml" before &&
	echo "hermes: $HERMES_HOME/config.toml: larger than the 64 KiB a config file may be; make it smaller with ${SQ}hermes config unset KEY${SQ} or ${SQ}hermes config set KEY VALUE${SQ} (they read it whole to mend it), or by hand" >expect &&
	test_expect_code 4 hermes config get model 2>err && test_cmp expect err &&
	test_expect_code 4 hermes config list 2>err && test_cmp expect err &&
	test_expect_code 4 hermes chat -q hi --agent cat 2>err && test_cmp expect err &&
	# Still over the limit afterwards: refused, nothing written.
	test_expect_code 2 hermes config set model n 2>err &&
	grep "would be 73 KiB" err &&
	test_cmp before "$HERMES_HOME/config.toml" &&
	hermes config unset system 2>err &&
	echo "hermes: $HERMES_HOME/config.toml is larger than the 64 KiB a config file may be (every other command refuses it): read whole, to mend it" >expect &&
	test_cmp expect err &&
	echo "model = \"m\"" >expect &&
	test_cmp expect "$HERMES_HOME/config.toml" &&
	hermes config get model
'

test_expect_success 'set mends it too, by replacing the large value' '
	mkdir -p "$HERMES_HOME" &&
	{
		printf "system = \"" && awk "BEGIN { while (n++ < 72 * 1024) printf \"x\" }" && echo "\""
	} >"$HERMES_HOME/config.toml" &&
	chmod 600 "$HERMES_HOME/config.toml" &&
	hermes config set system "be brief" 2>err &&
	grep "read whole, to mend it" err &&
	test "$(hermes config get system)" = "be brief"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
