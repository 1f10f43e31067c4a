#!/bin/sh
test_description='make deb: a .deb of make install'"'"'s files under /usr, that lintian finds no error in'
. "$(dirname "$0")/lib.sh"
test_native_script "make deb reads the libc the binary needs with objdump; here the binary is a script that runs qemu"

test_lazy_prereq DPKG_DEB 'command -v dpkg-deb && command -v dpkg-parsechangelog && command -v objdump && command -v readelf'
test_lazy_prereq LINTIAN 'command -v lintian'
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)

# make_deb DIR: make deb with the binary under test (CARGO=true: it is
# built), the .deb and its tree in DIR, beside the trash directory (the
# binary holds the words of its panic message, which the harness looks
# for there); the .deb's path in $deb.
make_deb() {
	mkdir -p "$1" &&
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" DEBDIR="$1" DEB_ROOT="$1/root" deb >out 2>&1 &&
	deb=$(ls "$1"/hermes_*.deb) &&
	test -f "$deb"
}

# static: the binary under test needs no shared library (make static,
# make static-ARCH), as it says itself.
static() {
	"$HERMES_BIN" --version -v | grep -qx "static: yes"
}

# elf_kind FILE: the word size, byte order and machine of an ELF binary.
elf_kind() {
	readelf -h "$1" | sed -n "s/^ *\(Class\|Data\|Machine\): *//p"
}

# the_deb: make_deb once for the script, in $TRASH_ROOT/deb (any test that
# runs alone makes it); its path in $deb.
the_deb() {
	if test -f "$TRASH_ROOT/deb/built"; then
		deb=$(ls "$TRASH_ROOT"/deb/hermes_*.deb)
	else
		make_deb "$TRASH_ROOT/deb" && : >"$TRASH_ROOT/deb/built"
	fi
}

test_expect_success DPKG_DEB 'the .deb holds make install'"'"'s files under /usr (the page compressed), the copyright and the changelog' '
	the_deb &&
	dpkg-deb -c "$deb" | awk "\$1 !~ /^d/ { print \$1, \$2, \$6 }" | sort -k3 >actual &&
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" install DESTDIR="$TRASH.inst" PREFIX=/usr \
		ZSHCOMPDIR=/usr/share/zsh/vendor-completions >out 2>&1 &&
	(
		cd "$TRASH.inst" &&
		find . -type f ! -name installed-files | sed "s|/hermes\.1\$|/hermes.1.gz|" &&
		echo ./usr/share/doc/hermes/copyright &&
		echo ./usr/share/doc/hermes/changelog.Debian.gz &&
		if static; then echo ./usr/share/lintian/overrides/hermes; fi
	) | sort >installed &&
	awk "{ print \$3 }" actual >packaged &&
	test_cmp installed packaged &&
	# Owned by root, executables 755, the rest 644.
	! grep -v " root/root " actual &&
	grep "^-rwxr-xr-x .*/usr/bin/hermes\$" actual &&
	test "$(grep -c "^-rwxr-xr-x" actual)" = 4 &&
	test "$(grep -c "^-rw-r--r--" actual)" = $(($(wc -l <actual) - 4))
'

test_expect_success DPKG_DEB 'its control file: package, version, the binary'"'"'s architecture, the libc it needs' '
	the_deb &&
	dpkg-deb -f "$deb" Package Version >actual &&
	printf "Package: hermes\nVersion: %s-1\n" "$VERSION" >expect &&
	test_cmp expect actual &&
	arch=$(dpkg-deb -f "$deb" Architecture) &&
	# This machine'"'"'s where the binary is of dpkg'"'"'s own kind; else another,
	# of the binary'"'"'s word size and byte order (the 32-bit x86 build: i386).
	if test "$(elf_kind "$HERMES_BIN")" = "$(elf_kind "$(command -v dpkg)")"; then
		test "$arch" = "$(dpkg --print-architecture)"
	else
		test "$arch" != "$(dpkg --print-architecture)" &&
		bits=$(dpkg-architecture -a "$arch" -qDEB_HOST_ARCH_BITS 2>/dev/null) &&
		endian=$(dpkg-architecture -a "$arch" -qDEB_HOST_ARCH_ENDIAN 2>/dev/null) &&
		elf_kind "$HERMES_BIN" >kind &&
		grep -x "ELF$bits" kind &&
		grep -x ".* $endian endian" kind
	fi &&
	# A static binary needs no C library.
	if static; then
		! dpkg-deb -f "$deb" Depends | grep .
	else
		dpkg-deb -f "$deb" Depends | grep "^libc6 (>= 2\.[0-9]*)\$"
	fi &&
	dpkg-deb -f "$deb" Installed-Size | grep "^[1-9][0-9]*\$"
'

test_expect_success DPKG_DEB 'hermes --version runs from a scratch extract, and the page there reads' '
	the_deb &&
	dpkg-deb -x "$deb" "$TRASH.root" &&
	"$TRASH.root/usr/bin/hermes" --version >out &&
	echo "hermes $VERSION" >expect &&
	test_cmp expect out &&
	cmp "$HERMES_BIN" "$TRASH.root/usr/bin/hermes" &&
	gzip -dc "$TRASH.root/usr/share/man/man1/hermes.1.gz" | grep "^\.TH HERMES 1 " &&
	figure "t6210: $(basename "$deb"): $(wc -c <"$deb" | tr -d " ") bytes"
'

test_expect_success DPKG_DEB 'the changelog is of this version; two builds give the same .deb' '
	test "$(dpkg-parsechangelog -l "$ROOT/contrib/deb/changelog" -SVersion)" = "$VERSION-1" &&
	the_deb && one=$deb &&
	make_deb "$TRASH.two" &&
	cmp "$one" "$deb"
'

test_expect_success DPKG_DEB,LINTIAN 'lintian reports no error' '
	the_deb &&
	lintian "$deb" >report 2>lintian.err
	status=$?
	cat report &&
	! grep "^E: " report &&
	test $status = 0 &&
	figure "t6210: lintian: $(grep -c "^E: " report) errors, $(grep -c "^W: " report) warnings: $(sed -n "s/^[EW]: hermes: //p" report | tr "\n" " ")"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
