# hermes: build, test and install.
#   make              build the release binary (target/release/hermes)
#   make check        unit tests, then the shell test suite (tests/run)
#   make unit         the unit tests alone
#   make test         the shell test suite alone; TESTS='t3000-list.sh ...'
#                     names the scripts to run
#   make install      install binary, man page, completions, contrib agents
#                     and roles
#   make uninstall    remove what make install installed (it reads the list
#                     make install left in $(DATADIR)/hermes/installed-files)
#   make static       a statically linked binary (target/static/hermes)
#   make static-x86_64, make static-aarch64, make static-i686
#                     static musl binaries for Linux on x86_64, 64-bit
#                     ARM and 32-bit x86 (target/static-ARCH/hermes),
#                     built reproducibly
#   make check-aarch64, make check-s390x
#                     the shell test suite against the aarch64 (musl) or
#                     s390x (big-endian) binary, run by qemu-user
#   make check-i686, make unit-i686
#                     the shell test suite or the unit tests on 32-bit x86
#                     (musl), run natively
#   make unit-s390x   the unit tests on s390x, under qemu-user
#   make check-qemu   all three
#   make lint-man     check the man page with mandoc -Tlint
#   make bless        write the generated reference anew (man/hermes.1 from
#                     man/hermes.1.in and the tables; tests/reference/)
#   make dist         hermes-VERSION.tar.gz: the sources and vendor/ (all the
#                     crates), which build with no network
#   make check-dist   make dist, then build it twice (in two directories,
#                     with two CARGO_HOMEs, the first with no network) and
#                     compare the binaries; see tests/t6800-dist.sh
#   make deb          hermes_VERSION-1_ARCH.deb, built with dpkg-deb
# Install locations follow the usual conventions and may be overridden:
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
# CARGO_TARGET_DIR, as cargo reads it, is where the binary is built and
# where make install takes it from. SOURCE_DATE_EPOCH, when set, is the
# installed man page's date (and the time of every file in make dist's and
# make deb's archives).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
CARGO ?= cargo
INSTALL ?= install
MANDOC ?= mandoc

TARGET_DIR = $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),target)
BIN = $(TARGET_DIR)/release/hermes
# What make install writes: one installed path a line (without DESTDIR), so
# that make uninstall removes those, wherever BINDIR or MANDIR pointed.
MANIFEST = $(DATADIR)/hermes/installed-files
AGENTS = $(notdir $(wildcard contrib/agents/*))
ROLES = $(notdir $(wildcard contrib/roles/*.md))

# make static: the host's own target triple, so that no other standard
# library needs installing; its own target directory, so that the ordinary
# build in target/release is left alone.
STATIC_TARGET ?= $(shell rustc -vV | sed -n 's/^host: //p')
STATIC_RUSTFLAGS ?= -C target-feature=+crt-static
STATIC_BUILD_DIR = target/static-build

VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' Cargo.toml | head -n 1)
DIST = hermes-$(VERSION)

# Reproducible builds: the binary names its dependencies' source files (in
# panic locations). Where those live, under vendor/ here or in CARGO_HOME's
# registry, is rewritten to fixed names, so that two builds in two places,
# by two users, give the same bytes. On by default in a release tree (one
# with vendor/); REPRODUCIBLE=1 asks for it in a checkout too (it changes
# RUSTFLAGS, so cargo rebuilds what a plain cargo build made).
REPRODUCIBLE ?= $(if $(wildcard vendor/.),1,)
CARGO_HOME_DIR = $(if $(CARGO_HOME),$(CARGO_HOME),$(HOME)/.cargo)
REMAP_RUSTFLAGS = --remap-path-prefix=$(CURDIR)=/usr/src/$(DIST) \
	--remap-path-prefix=$(CARGO_HOME_DIR)=/usr/src/cargo-home
BUILD_ENV = $(if $(REPRODUCIBLE),RUSTFLAGS='$(strip $(RUSTFLAGS) $(REMAP_RUSTFLAGS))')

# The man page's date: SOURCE_DATE_EPOCH's day when it is set, else the one
# the page carries.
MAN_DATE = $(if $(SOURCE_DATE_EPOCH),$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%d))

# make deb. The package's architecture is the binary's own, as readelf
# names its machine (make deb BIN=target/static-i686/hermes makes an i386
# package), else this machine's. It depends on the glibc the binary needs,
# if it needs one; a static one (no NEEDED library) depends on nothing and
# carries a lintian override saying it is static on purpose.
DEB_ARCH = $(or $(shell readelf -h "$(BIN)" 2>/dev/null | sed -n \
	-e 's/^ *Machine: *Advanced Micro Devices X86-64$$/amd64/p' \
	-e 's/^ *Machine: *Intel 80386$$/i386/p' \
	-e 's/^ *Machine: *AArch64$$/arm64/p' \
	-e 's|^ *Machine: *IBM S/390$$|s390x|p'),$(shell dpkg --print-architecture 2>/dev/null))
DEB_LIBC = $(shell objdump -T "$(BIN)" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | \
	sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
DEB_STATIC = $(if $(shell readelf -d "$(BIN)" 2>/dev/null | grep '(NEEDED)'),,yes)
DEB_VERSION = $(VERSION)-1
DEB = hermes_$(DEB_VERSION)_$(DEB_ARCH).deb
# Where the .deb is written, and where its tree is put together.
DEBDIR ?= .
DEB_ROOT ?= $(CURDIR)/target/deb/root
# The time of every file in the .deb (and the man page's date): the
# changelog's, unless SOURCE_DATE_EPOCH says otherwise.
DEB_EPOCH = $(if $(SOURCE_DATE_EPOCH),$(SOURCE_DATE_EPOCH),$(shell dpkg-parsechangelog -l contrib/deb/changelog -STimestamp 2>/dev/null))

.PHONY: all build check test unit lint-shell lint-man bless install uninstall static clean dist check-dist deb \
	static-x86_64 static-aarch64 static-s390x static-i686 check-aarch64 check-s390x check-qemu unit-s390x \
	check-i686 unit-i686

all: build

# HERMES_DATADIR: where hermes looks for its shipped agents when they are
# not beside the binary (../share/hermes/agents), which it looks in first.
build:
	$(BUILD_ENV) HERMES_DATADIR='$(DATADIR)' $(CARGO) build --release --locked

$(BIN): build

check: unit lint-shell test

SHELLCHECK ?= shellcheck

# The bash completion script hermes prints (its template in
# src/cli/completions/ filled in from src/cli/defs.rs), checked where
# shellcheck is installed.
lint-shell: $(BIN)
	@if command -v $(SHELLCHECK) >/dev/null 2>&1; then \
		echo "$(BIN) completion bash | $(SHELLCHECK) -s bash -"; \
		$(BIN) completion bash | $(SHELLCHECK) -s bash -; \
	else \
		echo "shellcheck not installed: the bash completion script not checked"; \
	fi

# Unit tests in the dev profile: a second LTO build of the test harness
# would double the time of every check and test nothing more.
unit:
	$(CARGO) test --locked --quiet

test: build
	sh tests/run $(TESTS)

lint-man:
	$(MANDOC) -Tlint man/hermes.1

# The one step that writes every generated file: src/cli/reference.rs.
bless:
	HERMES_BLESS=1 $(CARGO) test --locked --quiet reference::

# Builds first, where cargo is at hand: 'make && sudo make install' then
# installs what was built even where root has no cargo. The man page names
# the default locations; it is installed with the actual ones. Completion
# scripts come from the binary being installed.
install:
	@if command -v $(CARGO) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory build; \
	else \
		echo "$(CARGO) not found: installing the $(BIN) built before"; \
	fi
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" \
		"$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" \
		"$(DESTDIR)$(FISHCOMPDIR)" "$(DESTDIR)$(DATADIR)/hermes/agents" \
		"$(DESTDIR)$(DATADIR)/hermes/roles"
	$(INSTALL) -m 755 "$(BIN)" "$(DESTDIR)$(BINDIR)/hermes"
	sed -e 's|/usr/local/share/hermes/|$(DATADIR)/hermes/|g' \
		-e 's|/usr/local/bin/hermes|$(BINDIR)/hermes|g' \
		$(if $(MAN_DATE),-e 's|^\(\.TH HERMES 1\) [0-9-]*|\1 $(MAN_DATE)|') \
		man/hermes.1 >"$(DESTDIR)$(MANDIR)/man1/hermes.1"
	"$(BIN)" completion bash >"$(DESTDIR)$(BASHCOMPDIR)/hermes"
	"$(BIN)" completion zsh >"$(DESTDIR)$(ZSHCOMPDIR)/_hermes"
	"$(BIN)" completion fish >"$(DESTDIR)$(FISHCOMPDIR)/hermes.fish"
	chmod 644 "$(DESTDIR)$(MANDIR)/man1/hermes.1" \
		"$(DESTDIR)$(BASHCOMPDIR)/hermes" "$(DESTDIR)$(ZSHCOMPDIR)/_hermes" \
		"$(DESTDIR)$(FISHCOMPDIR)/hermes.fish"
	$(INSTALL) -m 755 $(addprefix contrib/agents/,$(AGENTS)) "$(DESTDIR)$(DATADIR)/hermes/agents"
	$(INSTALL) -m 644 $(addprefix contrib/roles/,$(ROLES)) "$(DESTDIR)$(DATADIR)/hermes/roles"
	printf '%s\n' "$(BINDIR)/hermes" "$(MANDIR)/man1/hermes.1" \
		"$(BASHCOMPDIR)/hermes" "$(ZSHCOMPDIR)/_hermes" "$(FISHCOMPDIR)/hermes.fish" \
		$(addprefix "$(DATADIR)/hermes/agents/,$(addsuffix ",$(AGENTS))) \
		$(addprefix "$(DATADIR)/hermes/roles/,$(addsuffix ",$(ROLES))) \
		>"$(DESTDIR)$(MANIFEST)"
	chmod 644 "$(DESTDIR)$(MANIFEST)"

# Removes the files make install listed in $(MANIFEST) (or, for an install
# made before that list existed, those at today's locations), then the
# directories that are hermes's own. With no hermes under these locations it
# says so and fails: a PREFIX other than install's would otherwise remove
# nothing, quietly. It removes only files with the names hermes installs.
uninstall:
	@manifest="$(DESTDIR)$(MANIFEST)"; \
	files=$$(if test -f "$$manifest"; then \
		cat "$$manifest"; \
	elif test -f "$(DESTDIR)$(BINDIR)/hermes"; then \
		printf '%s\n' "$(BINDIR)/hermes" "$(MANDIR)/man1/hermes.1" \
			"$(BASHCOMPDIR)/hermes" "$(ZSHCOMPDIR)/_hermes" "$(FISHCOMPDIR)/hermes.fish" \
			$(addprefix "$(DATADIR)/hermes/agents/,$(addsuffix ",$(AGENTS))) \
			$(addprefix "$(DATADIR)/hermes/roles/,$(addsuffix ",$(ROLES))); \
	else \
		echo "make uninstall: no hermes installed here: neither $$manifest nor $(DESTDIR)$(BINDIR)/hermes exists" >&2; \
		echo "make uninstall: run it with the PREFIX (or DATADIR) that make install was given, e.g. make uninstall PREFIX=/usr" >&2; \
		if found=$$(command -v hermes); then echo "make uninstall: the hermes on PATH is $$found" >&2; fi; \
		exit 1; \
	fi) || exit 1; \
	printf '%s\n' "$$files" | while IFS= read -r file; do \
		case $${file##*/} in \
		hermes | hermes.1 | _hermes | hermes.fish | $(subst $(eval) , | ,$(AGENTS) $(ROLES))) rm -f "$(DESTDIR)$$file" ;; \
		*) echo "make uninstall: $$manifest names $$file, not a file hermes installs; left alone" >&2 ;; \
		esac; \
	done; \
	rm -f "$$manifest"; \
	rmdir "$(DESTDIR)$(DATADIR)/hermes/agents" "$(DESTDIR)$(DATADIR)/hermes/roles" \
		"$(DESTDIR)$(DATADIR)/hermes" 2>/dev/null || true

static:
	RUSTFLAGS='$(STATIC_RUSTFLAGS)' $(CARGO) build --release --locked \
		--target "$(STATIC_TARGET)" --target-dir $(STATIC_BUILD_DIR)
	mkdir -p target/static
	cp "$(STATIC_BUILD_DIR)/$(STATIC_TARGET)/release/hermes" target/static/hermes
	@file target/static/hermes 2>/dev/null || true

# Cross builds: static binaries for other Linux machines, each built with
# its target's standard library (rustup target add TRIPLE) into its own
# directory under target/cross, with the reproducible build's path
# rewriting always on. musl binaries are static by default; aarch64 is
# linked by the toolchain's own rust-lld, s390x (glibc, for the big-endian
# tests) by the cross gcc (Debian's gcc-s390x-linux-gnu).
CROSS_BUILD_DIR = target/cross
QEMU_DIR = target/qemu
# The musl binaries are linked at a fixed address (not position-independent):
# with no dynamic loader to relocate them, a static PIE carries its own
# relocation table, some 30 KB of it, for address randomisation of the
# binary's own code alone.
CROSS_ENV = RUSTFLAGS='-C target-feature=+crt-static $(CROSS_RUSTFLAGS) $(REMAP_RUSTFLAGS)' \
	CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=rust-lld \
	CARGO_TARGET_I686_UNKNOWN_LINUX_MUSL_LINKER=rust-lld \
	CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc \
	CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER=qemu-s390x-static
static-x86_64: CROSS_TRIPLE = x86_64-unknown-linux-musl
static-i686: CROSS_TRIPLE = i686-unknown-linux-musl
static-aarch64: CROSS_TRIPLE = aarch64-unknown-linux-musl
static-s390x: CROSS_TRIPLE = s390x-unknown-linux-gnu
static-x86_64 static-aarch64 static-i686: CROSS_RUSTFLAGS = -C relocation-model=static
# 32-bit musl: the C library's time_t is 64 bits (musl 1.2), but the libc
# crate binds its old 32-bit functions unless told (src/base/sys.rs refuses to
# build with a 32-bit time_t): without this, times past 2038 are lost.
TIME64_RUSTFLAGS = --cfg=libc_unstable_time64
static-i686: CROSS_RUSTFLAGS += $(TIME64_RUSTFLAGS)

# The binary is put in place by a rename, never written over: a copy
# written into the file a running hermes has mapped (a suite under qemu
# while another make builds) kills that hermes with SIGBUS.
static-x86_64 static-aarch64 static-s390x static-i686:
	$(CROSS_ENV) $(CARGO) build --release --locked --target $(CROSS_TRIPLE) \
		--target-dir $(CROSS_BUILD_DIR)
	mkdir -p target/$@
	cp "$(CROSS_BUILD_DIR)/$(CROSS_TRIPLE)/release/hermes" target/$@/hermes.new
	mv -f target/$@/hermes.new target/$@/hermes
	@file target/$@/hermes 2>/dev/null || true

# The test suite against a binary of another CPU: tests/lib.sh runs
# $(HERMES_BIN), and many tests run plain `hermes` from its directory, so
# that directory holds a script named hermes that runs the binary under
# qemu-user, named by its full path (tests run hermes with PATH=/nonexistent
# to hide curl, which must not hide the emulator). HERMES_TEST_EMULATED tells the few tests that cannot work
# under emulation to skip, each saying why; HERMES_TEST_EMULATED_BINARY
# names the binary itself, for the tests that install hermes and run it
# from there (tests/lib.sh's emulated_install).
check-aarch64: QEMU_ARCH = aarch64
check-s390x: QEMU_ARCH = s390x
check-aarch64: static-aarch64
check-s390x: static-s390x
check-aarch64 check-s390x:
	mkdir -p "$(QEMU_DIR)-$(QEMU_ARCH)"
	qemu=$$(command -v qemu-$(QEMU_ARCH)-static) && \
	printf '#!/bin/sh\nexec "%s" "%s" "$$@"\n' "$$qemu" \
		"$(CURDIR)/target/static-$(QEMU_ARCH)/hermes" >"$(QEMU_DIR)-$(QEMU_ARCH)/hermes.new"
	chmod 755 "$(QEMU_DIR)-$(QEMU_ARCH)/hermes.new"
	mv -f "$(QEMU_DIR)-$(QEMU_ARCH)/hermes.new" "$(QEMU_DIR)-$(QEMU_ARCH)/hermes"
	HERMES_BIN="$(CURDIR)/$(QEMU_DIR)-$(QEMU_ARCH)/hermes" HERMES_TEST_EMULATED=$(QEMU_ARCH) \
		HERMES_TEST_EMULATED_BINARY="$(CURDIR)/target/static-$(QEMU_ARCH)/hermes" \
		sh tests/run $(TESTS)

# Unit tests on a big-endian CPU (the word-at-a-time byte scans), in the
# dev profile as make unit does.
unit-s390x:
	$(CROSS_ENV) $(CARGO) test --locked --quiet --target s390x-unknown-linux-gnu \
		--target-dir $(CROSS_BUILD_DIR)

check-qemu: unit-s390x check-aarch64 check-s390x

# The unit tests and the suite against the 32-bit x86 binary (musl,
# static), run natively: an x86_64 kernel runs it, no emulator. The tests
# that read system calls (strace) accept the names of either width
# (tests/lib.sh's syscalls: fcntl64, open, statx, ...), as the binary
# under test makes them.
unit-i686:
	$(CROSS_ENV) $(CARGO) test --locked --quiet --target i686-unknown-linux-musl \
		--target-dir $(CROSS_BUILD_DIR)
unit-i686: CROSS_RUSTFLAGS = $(TIME64_RUSTFLAGS)

check-i686: static-i686
	HERMES_BIN="$(CURDIR)/target/static-i686/hermes" sh tests/run $(TESTS)

# The release tarball: the files git tracks (as they are in the work tree),
# vendor/ from cargo vendor (this needs the network, or the crates in
# CARGO_HOME), and a .cargo/config.toml that builds from vendor/ alone.
# Reproducible: names sorted, owner root, every time SOURCE_DATE_EPOCH's
# (else the last commit's), gzip without a time stamp.
dist:
	rm -rf "target/dist/$(DIST)" "$(DIST).tar.gz"
	mkdir -p "target/dist/$(DIST)/.cargo"
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C "target/dist/$(DIST)"
	$(CARGO) vendor --quiet --locked --versioned-dirs "target/dist/$(DIST)/vendor" >/dev/null
	printf '%s\n' '# Build from vendor/ alone: no network, no registry.' \
		'[source.crates-io]' 'replace-with = "vendored-sources"' '' \
		'[source.vendored-sources]' 'directory = "vendor"' '' \
		'[net]' 'offline = true' >"target/dist/$(DIST)/.cargo/config.toml"
	tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mode=u+rw,go=u-w \
		--mtime=@$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct)} \
		-C target/dist -cf - "$(DIST)" | gzip -9n >"$(DIST).tar.gz"
	rm -rf "target/dist/$(DIST)"
	@echo "$(DIST).tar.gz"

# Builds the tarball with no network and twice reproducibly, and runs a
# test script in the unpacked tree (tests/t6800-dist.sh).
check-dist: build dist
	HERMES_DIST_TARBALL="$(CURDIR)/$(DIST).tar.gz" sh tests/run t6800-dist.sh

# A .deb of $(BIN) (this machine's build) from make install's files under
# /usr, with the control file, copyright and changelog from contrib/deb/.
deb: build
	rm -rf "$(DEB_ROOT)" "$(DEBDIR)/$(DEB)"
	$(MAKE) --no-print-directory install DESTDIR="$(DEB_ROOT)" PREFIX=/usr \
		ZSHCOMPDIR=/usr/share/zsh/vendor-completions SOURCE_DATE_EPOCH=$(DEB_EPOCH)
	rm "$(DEB_ROOT)/usr/share/hermes/installed-files"
	gzip -9n "$(DEB_ROOT)/usr/share/man/man1/hermes.1"
	$(INSTALL) -d "$(DEB_ROOT)/usr/share/doc/hermes" "$(DEB_ROOT)/DEBIAN"
	$(INSTALL) -m 644 contrib/deb/copyright "$(DEB_ROOT)/usr/share/doc/hermes/copyright"
	gzip -9n <contrib/deb/changelog >"$(DEB_ROOT)/usr/share/doc/hermes/changelog.Debian.gz"
	chmod 644 "$(DEB_ROOT)/usr/share/doc/hermes/changelog.Debian.gz"
	$(if $(DEB_STATIC),$(INSTALL) -d "$(DEB_ROOT)/usr/share/lintian/overrides" && \
		printf '%s\n' 'hermes: statically-linked-binary [usr/bin/hermes]' \
		>"$(DEB_ROOT)/usr/share/lintian/overrides/hermes" && \
		chmod 644 "$(DEB_ROOT)/usr/share/lintian/overrides/hermes")
	sed -e 's/@VERSION@/$(DEB_VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' \
		-e "s/@SIZE@/$$(du -sk --exclude=DEBIAN "$(DEB_ROOT)" | cut -f1)/" \
		$(if $(DEB_LIBC),-e 's/@LIBC@/$(DEB_LIBC)/',-e '/^Depends: libc6 /d') \
		contrib/deb/control >"$(DEB_ROOT)/DEBIAN/control"
	cd "$(DEB_ROOT)" && find usr -type f | sort | xargs md5sum >DEBIAN/md5sums
	chmod 644 "$(DEB_ROOT)/DEBIAN/control" "$(DEB_ROOT)/DEBIAN/md5sums"
	SOURCE_DATE_EPOCH=$(DEB_EPOCH) dpkg-deb --root-owner-group -Zxz --build "$(DEB_ROOT)" "$(DEBDIR)/$(DEB)" >/dev/null
	@echo "$(DEBDIR)/$(DEB)"

clean:
	$(CARGO) clean
