#!/bin/sh
test_description='ARCHITECTURE.md: every module it names exists, every file and folder of src/ is in it, every crate:: path keeps to its rank table, and the invariants it states that grep can see hold'
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

test_expect_success 'every file of src/ is named in ARCHITECTURE.md' '
	(cd "$ROOT" && find src -type f | sort) >files &&
	test -s files &&
	while read -r file; do
		grep -qF "\`$file\`" "$ARCH" || { echo "ARCHITECTURE.md does not name $file"; return 1; }
	done <files
'

# The rank table: lines "| N | `room` `room` ... |"; every backticked word
# on such a line is a name that may follow crate::.
ranks() {
	sed -n "s/^| *\([0-9][0-9]*\) *|\(.*\)|$/\1 \2/p" "$ARCH" |
	while read -r rank rest; do
		printf "%s\n" "$rest" | grep -o "\`[a-z_]*\`" | tr -d "\`" |
		sed "s/^/$rank /"
	done
}

# Every "file module used" triple of src/: the room of each file (the first
# name under src/) and each name that follows crate:: in it, also inside
# "crate::{a, b::c}" (only the names of the first level count).
uses() {
	(cd "$ROOT" && find src -name "*.rs" ! -path src/lib.rs ! -path src/main.rs | sort) |
	while read -r file; do
		room=${file#src/}; room=${room%%/*}; room=${room%.rs}
		awk -v file="$file" -v room="$room" "
		{
			line = \$0
			while (match(line, /crate::[{a-z_]/)) {
				line = substr(line, RSTART + 7)
				if (substr(line, 1, 1) == \"{\") {
					depth = 0; name = \"\"; i = 2
					for (; i <= length(line); i++) {
						c = substr(line, i, 1)
						if (c == \"{\") depth++
						else if (c == \"}\") { if (depth == 0) break; depth-- }
						else if (depth == 0 && c ~ /[a-z_]/ && (name == \"\" || prev !~ /[a-z_:]/) && prev != \":\") {
							match(substr(line, i), /^[a-z_]+/)
							print file, room, substr(line, i, RLENGTH)
							i += RLENGTH - 1
						}
						prev = c
					}
					line = substr(line, i)
				} else {
					match(line, /^[a-z_]+/)
					print file, room, substr(line, 1, RLENGTH)
					line = substr(line, RLENGTH + 1)
				}
			}
		}" "$ROOT/$file"
	done
}

# Print each line of $2 ("file room used") where a room uses one of a
# higher rank than its own in $1 ("rank room"); fail if any.
uphill() {
	awk '
		NR == FNR { rank[$2] = $1 + 0; next }
		rank[$3] > rank[$2] { print $1 ": " $2 " (rank " rank[$2] ") uses " $3 " (rank " rank[$3] ")"; bad = 1 }
		END { exit bad }
	' "$1" "$2"
}

test_expect_success 'ARCHITECTURE.md ranks every room of src/' '
	ranks >ranks &&
	test $(wc -l <ranks) -ge 8 &&
	uses >uses &&
	grep "^src/store/scan.rs store error\$" uses &&
	grep "^src/chat/mod.rs chat view\$" uses &&
	for room in $( (cut -d" " -f2 uses; cut -d" " -f3 uses) | sort -u); do
		grep -q " $room\$" ranks || { echo "no rank for $room"; return 1; }
	done
'

test_expect_success 'no module uses one of a higher rank (every crate:: path, use or not)' '
	ranks >ranks &&
	uses >uses &&
	uphill ranks uses
'

test_expect_success 'the rank check sees a use that runs uphill' '
	ranks >ranks &&
	test -s ranks &&
	printf "src/store/x.rs store view\n" >uphill &&
	test_must_fail uphill ranks uphill &&
	printf "src/view/x.rs view store\n" >downhill &&
	uphill ranks downhill
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

# Code asks for a setting by its settings::Key: a call that names a key of
# config.toml by a string ("model", or Key::parse("model")) is the old,
# untyped way, where a typo reads as "unset". Text searched for is no call.
test_expect_success 'no key of config.toml is asked for by its name outside src/settings/' '
	sed -n "s/^ *name: \"\([a-z_]*\)\",\$/\1/p" "$ROOT/src/settings/mod.rs" >names &&
	test_line_count -gt 10 names &&
	names=$(tr "\n" "|" <names | sed "s/|\$//") &&
	(cd "$ROOT" && grep -rnoE "[A-Za-z_:.]*\(\"($names)\"\)" src) >calls &&
	grep "^src/settings/mod.rs:.*option_help(\"stop\")" calls &&
	! grep -v -e "^src/settings/" -e "contains(" calls
'

# sizes FILE: "FILE: N lines of code" when over 600, and "FILE: fn NAME:
# N lines" for each function over 80 (Error's Display, the one place of
# every message, excepted). Lines of code: not blank, not a // comment,
# not a man page entry's text (the lines inside a r#" ... "# literal).
cat >"$TRASH_ROOT/sizes.awk" <<\EOF
inman { if ($0 ~ /^"#/) inman = 0; next }
/r#"$/ { inman = 1 }
function code(line) { return line !~ /^[ \t]*$/ && line !~ /^[ \t]*\/\// }
code($0) { loc++; if (name != "") n++ }
name == "" && /^[ \t]*(pub(\([a-z]+\))? )?(const )?(unsafe )?fn [a-z_0-9]+/ && $0 !~ /;[ \t]*$/ {
	indent = $0; sub(/[^ \t].*/, "", indent)
	name = $0; sub(/.*fn /, "", name); sub(/[^a-z_0-9].*/, "", name)
	n = 1
}
name != "" && $0 == indent "}" {
	if (n > 80 && !(FILENAME ~ /error\.rs$/ && name == "fmt")) print FILENAME ": fn " name ": " n " lines"
	name = ""
}
END { if (loc > 600) print FILENAME ": " loc " lines of code" }
EOF

test_expect_success 'no file over 600 lines of code, no function over 80 (Error::fmt excepted)' '
	(cd "$ROOT" && find src -name "*.rs" | sort) >files &&
	test_line_count -gt 50 files &&
	(cd "$ROOT" && while read -r file; do awk -f "$TRASH_ROOT/sizes.awk" "$file"; done) <files >over &&
	test_must_be_empty over
'

test_expect_success 'the size check sees a file and a function too long' '
	awk "BEGIN { print \"fn long() {\"; for (i = 0; i < 85; i++) print \"    x();\"; print \"}\";
		for (i = 0; i < 600; i++) print \"const X: u8 = 0;\" }" >big.rs &&
	awk -f "$TRASH_ROOT/sizes.awk" big.rs >over &&
	grep "big.rs: fn long: 87 lines" over &&
	grep "big.rs: 687 lines of code" over
'

test_done
