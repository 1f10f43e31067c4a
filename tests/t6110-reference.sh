#!/bin/sh
test_description='the generated reference: every --help and the completion scripts, as checked in'
. "$(dirname "$0")/lib.sh"

# What a user reads of the command line is made from one table (src/cli/);
# its every word is checked in under tests/reference/ (and man/hermes.1),
# so that a change to any of it shows in review as a change to these files.
# The unit tests in src/cli/reference.rs hold the files to the tables, and
# write them anew after a change meant to show: 'make bless'. Here the
# built binary is held to them.
REFERENCE=$TEST_DIR/reference

# reference NAME CMD...: CMD's output is tests/reference/NAME.
reference() {
	name=$1
	shift
	"$@" >"$name" || return 1
	test_cmp "$REFERENCE/$name" "$name"
}

test_expect_success 'hermes help --all: every command'"'"'s and verb'"'"'s --help' '
	reference help.txt hermes help --all
'

test_expect_success 'help --all holds every --help there is' '
	hermes help --all >all &&
	for command in $COMMANDS; do
		hermes "$command" --help >one &&
		grep -qxF -e "$(head -n 1 one)" all || return 1
	done &&
	for verb in $VERBS; do
		hermes sessions "$verb" --help >one &&
		grep -qxF -e "$(head -n 1 one)" all || return 1
	done &&
	for verb in $CONFIG_VERBS; do
		hermes config "$verb" --help >one &&
		grep -qxF -e "$(head -n 1 one)" all || return 1
	done
'

for shell in bash zsh fish; do
	test_expect_success "the $shell completion script" "
		reference completion.$shell hermes completion $shell
	"
done

test_done
