# hermes: build, test and install.
#   make              build the release binary (target/release/hermes)
#   make check        unit tests, then the shell test suite (tests/run)
#   make unit         the unit tests alone
#   make test         the shell test suite alone; TESTS='t3000-list.sh ...'
#                     names the scripts to run
#   make install      install binary, man page, completions, contrib agents
#   make uninstall    remove what make install installed
#   make static       a statically linked binary (target/static/hermes)
#   make lint-man     check the man page with mandoc -Tlint
# Install locations follow the usual conventions and may be overridden:
#   make install PREFIX=/usr DESTDIR=/tmp/pkg

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

BIN = target/release/hermes
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

# Removes what install put there, and the directories that are hermes's own.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/hermes" "$(DESTDIR)$(MANDIR)/man1/hermes.1" \
		"$(DESTDIR)$(BASHCOMPDIR)/hermes" "$(DESTDIR)$(ZSHCOMPDIR)/_hermes" \
		"$(DESTDIR)$(FISHCOMPDIR)/hermes.fish"
	rm -f $(addprefix "$(DESTDIR)$(DATADIR)/hermes/agents/",$(AGENTS))
	rmdir "$(DESTDIR)$(DATADIR)/hermes/agents" "$(DESTDIR)$(DATADIR)/hermes" 2>/dev/null || true

static:
	RUSTFLAGS='$(STATIC_RUSTFLAGS)' $(CARGO) build --release --locked \
		--target "$(STATIC_TARGET)" --target-dir $(STATIC_BUILD_DIR)
	mkdir -p target/static
	cp "$(STATIC_BUILD_DIR)/$(STATIC_TARGET)/release/hermes" target/static/hermes
	@file target/static/hermes 2>/dev/null || true

clean:
	$(CARGO) clean
