#!/bin/sh
test_description='make dist: a release tarball that builds with no network, twice to the same bytes (make check-dist runs this script)'
. "$(dirname "$0")/lib.sh"

# make check-dist makes the tarball and names it here; run alone, with no
# tarball, every test skips.
TARBALL=${HERMES_DIST_TARBALL:-}
test_lazy_prereq TARBALL 'test -f "$TARBALL"'
# Root may make a network namespace with no interfaces but loopback down.
test_lazy_prereq NO_NETWORK 'test "$(id -u)" = 0 && unshare -n true'
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)
DIST=hermes-$VERSION
# cargo and rustup find their toolchains through the HOME the tests replace.
BUILD_HOME=$HOME

# The unpacked trees sit beside the trash directories, not in them: the
# sources and a built binary hold the words of a panic message, which the
# harness looks for there. The second tree lies deeper, under another name.
TREE_A=$TRASH_ROOT/a/$DIST
TREE_B=$TRASH_ROOT/build-two/somewhere/else/$DIST

# unpack DIR: the tarball, unpacked in DIR.
unpack() {
	mkdir -p "$1" && tar -xzf "$TARBALL" -C "$1"
}

test_expect_success TARBALL 'the tarball holds every file git tracks, vendor/ with every crate of Cargo.lock, and the config that uses it' '
	tar -tzvf "$TARBALL" >listing &&
	! grep -v " 0/0 " listing &&
	tar -tzf "$TARBALL" | grep -v "/\$" | sed "s|^$DIST/||" | sort >files &&
	git -C "$ROOT" ls-files | sort >tracked &&
	grep -v -e "^vendor/" -e "^\.cargo/config\.toml\$" files >sources &&
	test_cmp tracked sources &&
	grep "^man/hermes.1\$" sources &&
	awk "/^name = / { gsub(/\"/, \"\"); n = \$3 } /^version = / && n != \"\" { gsub(/\"/, \"\"); print n \"-\" \$3; n = \"\" }" \
		"$ROOT/Cargo.lock" | grep -v "^hermes-" | sort >crates &&
	test_line_count -ge 4 crates &&
	sed -n "s|^vendor/\([^/]*\)/\.cargo-checksum\.json\$|\1|p" files | sort >vendored &&
	test_cmp crates vendored &&
	unpack "$TRASH.unpacked" &&
	config=$TRASH.unpacked/$DIST/.cargo/config.toml &&
	grep "^replace-with = \"vendored-sources\"\$" "$config" &&
	grep "^directory = \"vendor\"\$" "$config" &&
	figure "t6800: $(basename "$TARBALL"): $(wc -c <"$TARBALL" | tr -d " ") bytes, $(wc -l <sources | tr -d " ") source files, $(wc -l <vendored | tr -d " ") vendored crates ($(tr "\n" " " <vendored))"
'

test_expect_success TARBALL 'make dist again gives the same bytes' '
	cp "$TARBALL" first.tar.gz &&
	HOME=$BUILD_HOME make -s -C "$ROOT" dist >out 2>&1 &&
	cmp first.tar.gz "$TARBALL"
'

test_expect_success TARBALL,NO_NETWORK 'with no network at all (unshare -n): make, make unit and a test script run in the unpacked tree' '
	unpack "$TRASH_ROOT/a" &&
	(
		cd "$TREE_A" &&
		HOME=$BUILD_HOME unshare -n sh -c "make && make unit && make test TESTS=t0000-harness.sh"
	) >build.log 2>&1 &&
	test -x "$TREE_A/target/release/hermes" &&
	grep "^[0-9]* passed, 0 failed" build.log &&
	"$TREE_A/target/release/hermes" --version >out &&
	echo "hermes $VERSION" >expect &&
	test_cmp expect out
'

test_expect_success TARBALL 'two builds, in two directories with two CARGO_HOMEs, give the same binary' '
	if ! test -x "$TREE_A/target/release/hermes"; then
		# Where the namespace was refused, the first build runs here.
		unpack "$TRASH_ROOT/a" &&
		(cd "$TREE_A" && HOME=$BUILD_HOME make) >build-a.log 2>&1 || return 1
	fi &&
	unpack "$(dirname "$TREE_B")" &&
	mkdir "$TRASH_ROOT/cargo-home-b" &&
	(
		cd "$TREE_B" &&
		HOME=$BUILD_HOME CARGO_HOME=$TRASH_ROOT/cargo-home-b make
	) >build-b.log 2>&1 &&
	a=$(sha256sum <"$TREE_A/target/release/hermes" | cut -d" " -f1) &&
	b=$(sha256sum <"$TREE_B/target/release/hermes" | cut -d" " -f1) &&
	figure "t6800: sha256 of hermes built in $TREE_A: $a" &&
	figure "t6800: sha256 of hermes built in $TREE_B (CARGO_HOME $TRASH_ROOT/cargo-home-b): $b" &&
	test "$a" = "$b" &&
	# Neither names where it was built, nor a cargo home.
	! grep -a -e "$TRASH_ROOT" -e "\.cargo/registry" "$TREE_B/target/release/hermes" >/dev/null
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
