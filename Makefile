# hermes: build, test and install.
#   make              build the release binary (target/release/hermes)
#   make check        unit tests, then the shell test suite (tests/run)
#   make install      install binary, man page, completions, contrib agents
#   make static       a statically linked binary (target/static/hermes)
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

BIN = target/release/hermes

.PHONY: all build check test unit lint-man install uninstall static clean

all: build

build:
	$(CARGO) build --release --locked

$(BIN): build

check: build
	$(CARGO) test --release --locked --quiet
	sh tests/run

clean:
	$(CARGO) clean
