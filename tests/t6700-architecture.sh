#!/bin/sh
test_description='ARCHITECTURE.md: every module it names exists, every folder of src/ is in it, and the invariants it states that grep can see hold'
. "$(dirname "$0")/lib.sh"

ARCH=$ROOT/ARCHITECTURE.md

test_expect_success 'every path under src/ that ARCHITECTURE.md names exists' '
	grep -o "src/[A-Za-z0-9_./]*[A-Za-z0-9_/]" "$ARCH" | sort -u >named &&
	test -s named &&
	while read -r path; do
		test -e "$ROOT/$path" || { echo "ARCHITECTURE.md names $path, which does not exist"; return 1; }
		case $path in
		*/) test -d "$ROOT/$path" || { echo "$path is not a folder"; return 1; } ;;
		esac
	done <named
'

test_expect_success 'every folder of src/ is named in ARCHITECTURE.md' '
	(cd "$ROOT" && find src -mindepth 1 -type d | sort) >folders &&
	test -s folders &&
	while read -r dir; do
		grep -q "\`$dir/\`" "$ARCH" || { echo "ARCHITECTURE.md does not name $dir/"; return 1; }
	done <folders
'

test_expect_success 'every unsafe is in src/sys.rs' '
	(cd "$ROOT" && grep -rnE "(^|[^A-Za-z0-9_])unsafe *(\{|fn |impl |extern )" src --include=*.rs) >unsafe &&
	grep "^src/sys.rs:" unsafe &&
	! grep -v "^src/sys.rs:" unsafe
'

test_expect_success 'chat and sessions never use each other' '
	! grep -rn "crate::sessions" "$ROOT/src/chat" &&
	! grep -rn "crate::chat" "$ROOT/src/sessions"
'

test_done
