#!/bin/sh
test_description='catalog: not believed when a change could hide inside a coarse directory time (the racily clean rule)'
. "$(dirname "$0")/lib.sh"

# An ext2 file system with 128-byte inodes keeps whole seconds, like
# FAT and many network file systems; mounting one needs root and a loop
# device.
test_lazy_prereq EXT2 '
	test "$(id -u)" = 0 && command -v mke2fs && command -v mount &&
	d=$(mktemp -d) && truncate -s 8M "$d/img" && mke2fs -q -t ext2 -I 128 "$d/img" &&
	mkdir "$d/m" && mount -o loop "$d/img" "$d/m" && umount "$d/m"; rc=$?; rm -rf "$d"; exit $rc
'

# A store of 520 sessions (enough for a catalog), titled "title N".
big_store() {
	mkdir -p "$HERMES_HOME/sessions" && chmod 700 "$HERMES_HOME" "$HERMES_HOME/sessions" &&
	i=0 &&
	while test $i -lt 520; do
		id=$(printf "20260101_000000_%06x" $i) &&
		printf "{\"format\":1,\"id\":\"%s\",\"title\":\"title %d\",\"title_source\":\"user\",\"created_at\":1000.0,\"updated_at\":1000.0,\"cwd\":\"/\",\"message_count\":1,\"preview\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\",\"ts\":1000.0}]}\n" "$id" $i >"$HERMES_HOME/sessions/$id.json" &&
		i=$((i + 1)) || return 1
	done &&
	chmod 600 "$HERMES_HOME"/sessions/*
}

# The issue's case: hermes renames a session and another program copies a
# session under a new ID in the same second.
rename_and_copy() {
	S=$HERMES_HOME/sessions &&
	sed "s/20260101_000000_000005/20260101_000000_fffff5/" "$S/20260101_000000_000005.json" >new.json &&
	hermes sessions rename "title 6" "renamed 6" >/dev/null &&
	cp new.json "$S/20260101_000000_fffff5.json"
}

test_expect_success EXT2 'on ext2 (whole seconds), a copy in the same second as a rename is not hidden' '
	truncate -s 64M img && mke2fs -q -t ext2 -I 128 img && mkdir m && mount -o loop img m &&
	HERMES_HOME=$PWD/m/h && export HERMES_HOME &&
	{
		big_store &&
		hermes sessions list >/dev/null && sleep 2 && hermes sessions list >/dev/null &&
		test -e "$HERMES_HOME/catalog-state" &&
		rename_and_copy &&
		test_expect_code 1 hermes chat -c "title 5" -q appended --no-agent 2>err &&
		grep "'"'title 5'"' is ambiguous: 2 sessions have that title" err &&
		! grep appended "$HERMES_HOME"/sessions/*.json
	}; rc=$?; umount m; test $rc = 0
'

test_expect_success EXT2 'on ext2, the catalog is believed again once the directory is a tick old' '
	truncate -s 64M img && mke2fs -q -t ext2 -I 128 img && mkdir -p m && mount -o loop img m &&
	HERMES_HOME=$PWD/m/h && export HERMES_HOME &&
	{
		big_store &&
		hermes sessions list >/dev/null && sleep 2 &&
		hermes sessions list >/dev/null &&
		test -e "$HERMES_HOME/catalog-state" &&
		state=$(cat "$HERMES_HOME/catalog-state") &&
		hermes sessions list >/dev/null &&
		test "$(cat "$HERMES_HOME/catalog-state")" = "$state"
	}; rc=$?; umount m; test $rc = 0
'

test_expect_success 'whole-second directory times set by touch: a state noted in that second is not recorded' '
	big_store &&
	hermes sessions list >/dev/null &&
	touch -d "@$(date +%s)" "$HERMES_HOME/sessions" &&
	rm -f "$HERMES_HOME/catalog-state" &&
	hermes sessions list >/dev/null &&
	! test -e "$HERMES_HOME/catalog-state" &&
	sleep 2 &&
	hermes sessions list >/dev/null &&
	test -e "$HERMES_HOME/catalog-state"
'

test_done
