#!/bin/sh
test_description='ARCHITECTURE.md: every path and code name it cites exists, every room of src/ is in it, every crate:: path keeps to its rank table, the files of a folder never use one another in a circle, and the invariants it states that grep can see hold'
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

test_expect_success 'every room of src/ (a folder, or a file beside lib.rs) is named in ARCHITECTURE.md' '
	(cd "$ROOT" && find src -mindepth 1 -maxdepth 1 -type d | sort) >folders &&
	test_line_count -ge 8 folders &&
	while read -r dir; do
		grep -q "\`$dir/\`" "$ARCH" || { echo "ARCHITECTURE.md does not name $dir/"; return 1; }
	done <folders &&
	(cd "$ROOT" && ls src/*.rs | grep -v "^src/lib.rs$" | grep -v "^src/main.rs$") >files &&
	while read -r file; do
		grep -qF "\`$file\`" "$ARCH" || { echo "ARCHITECTURE.md does not name $file"; return 1; }
	done <files
'

# cited FILE: the code names FILE cites in backticks, a path of modules
# then maybe items ("cli::defs::COMMANDS", "text::printable",
# "hermes::fuzzing"), each one a line.
cited() {
	grep -o "\`[a-z_][a-z_0-9]*\(::[A-Za-z_][A-Za-z_0-9]*\)\+" "$1" | tr -d "\`" | sort -u
}

# defined ROOT NAME: whether NAME, a path as cited, is there: its modules
# are files (src/a/b.rs, src/a/b/mod.rs; a room of the ground floor is
# under src/base/), and its first item is defined (fn, struct, enum,
# const, static, trait, type, mod, macro) or brought in by a use in the
# last module's file, or is one of its enum's variants or fields; further
# names (a method, a variant) are words of that file.
defined() {
	dir=$1/src file=$1/src/lib.rs
	set -- $(printf "%s\n" "$2" | sed "s/^hermes:://; s/::/ /g")
	if test -e "$dir/base/$1.rs" || test -d "$dir/base/$1"; then dir=$dir/base; fi
	while test $# -gt 0; do
		if test -e "$dir/$1.rs"; then file=$dir/$1.rs dir=$dir/$1
		elif test -e "$dir/$1/mod.rs"; then file=$dir/$1/mod.rs dir=$dir/$1
		else break
		fi
		shift
	done
	test $# -eq 0 && return 0
	grep -Eq "(fn|struct|enum|const|static|trait|type|mod|macro_rules!) +$1\b|^ *$1\b|use .*\b$1\b" "$file" || return 1
	shift
	for name in "$@"; do
		grep -qw "$name" "$file" || return 1
	done
}

test_expect_success 'every code name ARCHITECTURE.md cites is there' '
	cited "$ARCH" >names &&
	test_line_count -gt 15 names &&
	while read -r name; do
		defined "$ROOT" "$name" || { echo "ARCHITECTURE.md cites $name, which is not there"; return 1; }
	done <names
'

test_expect_success 'the cited-name check sees a name that is not there' '
	defined "$ROOT" cli::defs::COMMANDS &&
	defined "$ROOT" text::printable &&
	test_must_fail defined "$ROOT" cli::defs::NO_SUCH_TABLE &&
	test_must_fail defined "$ROOT" no_room::Spec &&
	test_must_fail defined "$ROOT" settings::Key::NoSuchKey
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
	grep "^src/commands/chat/mod.rs commands view\$" uses &&
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

# Inside a folder, no circle: its files (a subfolder counted whole) use one
# another one way only, however far round. A use is a path in a file's
# code, its tests included, to a module of the crate (crate::, super::,
# self::, or a module the file declares), to an item counted as its
# module's; a name a module brought in with `use` (mod.rs re-exporting
# another file's item, say) counts as the module it comes from. The
# folder's own file (mod.rs, or text.rs for src/text/) stands aside, as
# lib.rs does for src/: it declares the others, it may use them and they
# what it defines. inside.awk reads "FILE MODULE" lines, then every file
# twice (for the names each brings in, then for its paths), and prints
# "FROM TO FILE": the two files (or subfolders, "src/store/format/") as
# seen from the folder where their paths part, and the file of the path.
cat >"$TRASH_ROOT/inside.awk" <<\EOF
function parent(m) { return m ~ /::/ ? substr(m, 1, match(m, /::[a-z_0-9]+$/) - 1) : "-" }
function join(m, name) { return m == "-" ? name : m "::" name }
# Module M as seen from the folder of module L, which holds it.
function node(L, m,    child) {
	child = L == "-" ? m : substr(m, length(L) + 3)
	sub(/::.*/, "", child)
	child = join(L, child)
	return (child in folder) ? folder[child] : file[child]
}
# The module that path P ("-::a::b::Item") names: its longest prefix that
# is a module, through the names modules brought in by use.
function target(p,    n, seg, i, m, rest) {
	n = split(p, seg, "::")
	m = "-"
	for (i = 2; i <= n; i++) {
		if (join(m, seg[i]) in file) {
			m = join(m, seg[i])
		} else {
			if ((m SUBSEP seg[i]) in alias && hops++ < 20) {
				rest = alias[m, seg[i]]
				for (i++; i <= n; i++) rest = rest "::" seg[i]
				return target(rest)
			}
			break
		}
	}
	return m
}
# Path P, ending in NAME, is in module `mod`'s code.
function leaf(p, name,    to, L) {
	if (pass == 1) {
		if (name != "*") alias[mod, name] = p
		return
	}
	hops = 0
	to = target(p)
	# L: the deepest module that holds both
	for (L = mod; L != "-" && index(to "::", L "::") != 1; L = parent(L)) ;
	if (to != L && mod != L) print node(L, mod), node(L, to), src
}
function blanks() { while (substr(T, pos, 1) ~ /[ \n]/) pos++ }
# The path or use tree at T[pos...] after P: each of its leaves.
function tree(p,    c, word, name) {
	for (;;) {
		blanks()
		if (substr(T, pos, 1) == "{") {
			pos++
			for (;;) {
				blanks()
				if (substr(T, pos, 1) == "}") { pos++; break }
				tree(p)
				blanks()
				c = substr(T, pos++, 1)
				if (c != ",") break
			}
			return
		}
		if (!match(substr(T, pos), /^([A-Za-z_][A-Za-z0-9_]*|\*)/)) break
		word = substr(T, pos, RLENGTH)
		pos += RLENGTH
		if (word == "super") {
			p = p ~ /::/ ? substr(p, 1, match(p, /::[^:]+$/) - 1) : "-"
		} else if (word == "self") {
			name = p
			sub(/.*::/, "", name)
		} else {
			p = p "::" word
			name = word
		}
		if (substr(T, pos, 2) != "::") break
		pos += 2
	}
	if (match(substr(T, pos), /^ +as +[A-Za-z_][A-Za-z0-9_]*/)) {
		name = substr(T, pos, RLENGTH)
		sub(/.* /, "", name)
		pos += RLENGTH
	}
	leaf(p, name)
}
# Every path of the file (T) that starts at crate, super, self, or a
# module declared in it.
function scan(    at, root, line) {
	pos = 1
	line = 1
	while (match(substr(T, pos), /[a-z_][a-z0-9_]*::/)) {
		at = pos + RSTART - 1
		pos = at + RLENGTH
		if (substr(T, at - 1, 1) ~ /[A-Za-z0-9_:]/) continue
		root = substr(T, at, RLENGTH - 2)
		while (line < lines && start[line + 1] <= at) line++
		if (pass == 1 && (inline[line] || substr(T, start[line], at - start[line]) !~ /^ *(pub(\([a-z]+\))? )?use $/)) continue
		if (root == "crate") tree("-")
		else if (root == "super") tree(inline[line] ? "-::" mod : parent(mod) == "-" ? "-" : "-::" parent(mod))
		else if (root == "self") tree("-::" mod)
		else if (join(mod, root) in file) tree("-::" join(mod, root))
	}
}
NR == FNR {
	file[$2] = $1
	for (m = $2; m != "-"; m = parent(m)) {
		folder[parent(m)] = parent(m) == "-" ? "src/" : "src/" parent(m) "/"
		gsub(/::/, "/", folder[parent(m)])
	}
	next
}
FNR == 1 {
	if (T != "") scan()
	if (FILENAME == first) pass = 2
	if (first == "") { first = FILENAME; pass = 1 }
	T = ""; lines = 0; depth = 0; src = FILENAME
	for (m in file) if (file[m] == FILENAME) mod = m
}
{
	code = $0
	if (code ~ /^[ \t]*\/\//) code = ""
	start[++lines] = length(T) + 1
	T = T code "\n"
	# inline modules (mod tests { ... }): their super is the file's module
	inline[lines] = depth > 0
	if (code ~ /^ *(pub(\([a-z]+\))? )?mod [a-z_0-9]+ \{$/) {
		indent[++depth] = code
		sub(/[^ ].*/, "", indent[depth])
	} else if (depth > 0 && code == indent[depth] "}") {
		depth--
	}
}
END { scan() }
EOF

# inside DIR: the uses between files of one folder of DIR/src.
inside() {
	(
		cd "$1" || exit 1
		modules=$(find src -name "*.rs" ! -path src/main.rs | sort | awk '{
			m = $0; sub(/^src\//, "", m); sub(/\.rs$/, "", m); sub(/\/mod$/, "", m)
			if (m == "lib") m = "-"
			gsub(/\//, "::", m); print $0, m
		}')
		files=$(printf "%s\n" "$modules" | cut -d" " -f1)
		# shellcheck disable=SC2086
		printf "%s\n" "$modules" | awk -f "$TRASH_ROOT/inside.awk" - $files $files
	)
}

# circles FILE: fail if the uses of FILE ("FROM TO [FILE]") go round,
# printing those between the files tsort finds in a circle.
circles() {
	cut -d" " -f1,2 "$1" | tsort >/dev/null 2>tsort.out && ! test -s tsort.out && return 0
	grep -v "input contains a loop" tsort.out | sed "s/^tsort: //" >round
	awk 'NR == FNR { round[$1] = 1; next }
		($1 in round) && ($2 in round) { print $1 " uses " $2 ($3 == "" || $3 == $1 ? "" : " (" $3 ")") }
	' round "$1" | sort -u
	return 1
}

test_expect_success 'no circle inside a folder: its files use one another one way only' '
	inside "$ROOT" >inside &&
	grep "^src/commands/chat/slash.rs src/commands/chat/state.rs " inside &&
	grep "^src/store/search.rs src/store/scan.rs " inside &&
	grep "^src/store/format/ src/store/json.rs " inside &&
	circles inside
'

test_expect_success 'the circle check sees a circle, however far round' '
	printf "src/x/a.rs src/x/b.rs\nsrc/x/b.rs src/x/c.rs\nsrc/x/c.rs src/x/a.rs\n" >far &&
	test_must_fail circles far >said &&
	grep "^src/x/c.rs uses src/x/a.rs\$" said &&
	printf "src/x/a.rs src/x/b.rs\nsrc/x/b.rs src/x/c.rs\nsrc/x/a.rs src/x/c.rs\n" >one-way &&
	circles one-way
'

test_expect_success 'the circle check sees a use through a name mod.rs brings in' '
	mkdir -p fake/src/room &&
	printf "mod room;\n" >fake/src/lib.rs &&
	printf "mod a;\nmod b;\npub(crate) use b::Thing;\n" >fake/src/room/mod.rs &&
	printf "use super::{\n    Thing,\n};\n" >fake/src/room/a.rs &&
	printf "pub(crate) struct Thing;\n// crate::room::a, in a comment\n" >fake/src/room/b.rs &&
	inside fake >uses &&
	echo "src/room/a.rs src/room/b.rs src/room/a.rs" >expect &&
	test_cmp expect uses &&
	printf "fn one() -> u8 {\n    crate::room::a::ONE\n}\n" >>fake/src/room/b.rs &&
	inside fake >uses &&
	test_must_fail circles uses >said &&
	grep "^src/room/b.rs uses src/room/a.rs\$" said
'

test_expect_success 'every unsafe is in src/base/sys.rs' '
	(cd "$ROOT" && grep -rnE "(^|[^A-Za-z0-9_])unsafe *(\{|fn |impl |extern )" src --include=*.rs) >unsafe &&
	grep "^src/base/sys.rs:" unsafe &&
	! grep -v "^src/base/sys.rs:" unsafe
'

test_expect_success 'chat and sessions never use each other' '
	! grep -rn "commands::sessions" "$ROOT/src/commands/chat" &&
	! grep -rn "commands::chat" "$ROOT/src/commands/sessions"
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
	if (n > 80 && !(FILENAME ~ /error\/mod\.rs$/ && name == "fmt")) print FILENAME ": fn " name ": " n " lines"
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

# rustfmt keeps code to max_width, but gives up on a line it cannot break
# (a long string) and then leaves the whole expression as it is.
test_expect_success 'no line of src/ is wider than rustfmt.toml'"'"'s max_width' '
	width=$(sed -n "s/^max_width *= *\([0-9]*\)$/\1/p" "$ROOT/rustfmt.toml") &&
	test "$width" -gt 0 &&
	(cd "$ROOT" && LC_ALL=C.UTF-8 grep -rn --include="*.rs" "^.\{$((width + 1)),\}" src) >wide || true &&
	test_must_be_empty wide &&
	printf "%s\n" "$(printf "%0$((width + 1))d" 0)" >one.rs &&
	LC_ALL=C.UTF-8 grep -q "^.\{$((width + 1)),\}" one.rs
'

test_done
