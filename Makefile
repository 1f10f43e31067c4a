# hermes: build, test and install.
#   make              build the release binary (target/release/hermes)
#   make check        unit tests, then the shell test suite (tests/run)
#   make unit         the unit tests alone
#   make test         the shell test suite alone; TESTS='t3000-list.sh ...'
#                     names the scripts to run
#   make install      install binary, man page, completions, contrib agents
#   make uninstall    remove what make install installed (it reads the list
#                     make install left in $(DATADIR)/hermes/installed-files)
#   make static       a statically linked binary (target/static/hermes)
#   make lint-man     check the man page with mandoc -Tlint
# Install locations follow the usual conventions and may be overridden:
#   make install PREFIX=/usr DESTDIR=/tmp/pkg
# CARGO_TARGET_DIR, as cargo reads it, is where the binary is built and
# where make install takes it from.

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

# make static: the host's own target triple, so that no other standard
# library needs installing; its own target directory, so that the ordinary
# build in target/release is left alone.
STATIC_TARGET ?= $(shell rustc -vV | sed -n 's/^host: //p')
STATIC_RUSTFLAGS ?= -C target-feature=+crt-static
STATIC_BUILD_DIR = target/static-build

.PHONY: all build check test unit lint-man install uninstall static clean

all: build

build:
	$(CARGO) build --release --locked

$(BIN): build

check: unit test

# Unit tests in the dev profile: a second LTO build of the test harness
# would double the time of every check and test nothing more.
unit:
	$(CARGO) test --locked --quiet

test: build
	sh tests/run $(TESTS)

lint-man:
	$(MANDOC) -Tlint man/hermes.1

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
		"$(DESTDIR)$(FISHCOMPDIR)" "$(DESTDIR)$(DATADIR)/hermes/agents"
	$(INSTALL) -m 755 "$(BIN)" "$(DESTDIR)$(BINDIR)/hermes"
	sed -e 's|/usr/local/share/hermes/|$(DATADIR)/hermes/|g' \
		-e 's|/usr/local/bin/hermes|$(BINDIR)/hermes|g' \
		man/hermes.1 >"$(DESTDIR)$(MANDIR)/man1/hermes.1"
	"$(BIN)" completion bash >"$(DESTDIR)$(BASHCOMPDIR)/hermes"
	"$(BIN)" completion zsh >"$(DESTDIR)$(ZSHCOMPDIR)/_hermes"
	"$(BIN)" completion fish >"$(DESTDIR)$(FISHCOMPDIR)/hermes.fish"
	chmod 644 "$(DESTDIR)$(MANDIR)/man1/hermes.1" \
		"$(DESTDIR)$(BASHCOMPDIR)/hermes" "$(DESTDIR)$(ZSHCOMPDIR)/_hermes" \
		"$(DESTDIR)$(FISHCOMPDIR)/hermes.fish"
	$(INSTALL) -m 755 $(addprefix contrib/agents/,$(AGENTS)) "$(DESTDIR)$(DATADIR)/hermes/agents"
	printf '%s\n' "$(BINDIR)/hermes" "$(MANDIR)/man1/hermes.1" \
		"$(BASHCOMPDIR)/hermes" "$(ZSHCOMPDIR)/_hermes" "$(FISHCOMPDIR)/hermes.fish" \
		$(addprefix "$(DATADIR)/hermes/agents/,$(addsuffix ",$(AGENTS))) \
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
			$(addprefix "$(DATADIR)/hermes/agents/,$(addsuffix ",$(AGENTS))); \
	else \
		echo "make uninstall: no hermes installed here: neither $$manifest nor $(DESTDIR)$(BINDIR)/hermes exists" >&2; \
		echo "make uninstall: run it with the PREFIX (or DATADIR) that make install was given, e.g. make uninstall PREFIX=/usr" >&2; \
		if found=$$(command -v hermes); then echo "make uninstall: the hermes on PATH is $$found" >&2; fi; \
		exit 1; \
	fi) || exit 1; \
	printf '%s\n' "$$files" | while IFS= read -r file; do \
		case $${file##*/} in \
		hermes | hermes.1 | _hermes | hermes.fish | $(subst $(eval) , | ,$(AGENTS))) rm -f "$(DESTDIR)$$file" ;; \
		*) echo "make uninstall: $$manifest names $$file, not a file hermes installs; left alone" >&2 ;; \
		esac; \
	done; \
	rm -f "$$manifest"; \
	rmdir "$(DESTDIR)$(DATADIR)/hermes/agents" "$(DESTDIR)$(DATADIR)/hermes" 2>/dev/null || true

static:
	RUSTFLAGS='$(STATIC_RUSTFLAGS)' $(CARGO) build --release --locked \
		--target "$(STATIC_TARGET)" --target-dir $(STATIC_BUILD_DIR)
	mkdir -p target/static
	cp "$(STATIC_BUILD_DIR)/$(STATIC_TARGET)/release/hermes" target/static/hermes
	@file target/static/hermes 2>/dev/null || true

clean:
	$(CARGO) clean
