#!/bin/sh
test_description='the man page: clean, complete, and in step with --help'
. "$(dirname "$0")/lib.sh"

MAN=$ROOT/man/hermes.1

# Every --help text: the main one, chat, completion, each sessions verb.
all_help() {
	hermes --help &&
	hermes chat --help &&
	hermes completion --help &&
	hermes sessions --help &&
	for verb in $VERBS; do
		hermes sessions "$verb" --help || return 1
	done
}

# The man page source with roff's escaped hyphens and fonts made plain.
plain_source() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN"
}

# One section of the source, from ".SH NAME" to the next ".SH".
man_section() {
	plain_source | awk -v want=".SH $1" '
		/^\.SH / { on = ($0 == want || $0 == want "\"") }
		on { print }'
}

# The rendered page (or any text) on one line, whitespace collapsed.
one_line() {
	tr -s " \t\n" "   "
}

test_expect_success MANDOC 'mandoc -Tlint reports nothing' '
	mandoc -Tlint "$MAN" >out 2>&1 &&
	test_must_be_empty out
'

test_expect_success MANDOC 'make lint-man runs the same lint' '
	make -s -C "$ROOT" lint-man >out 2>&1 &&
	test_must_be_empty out
'

test_expect_success 'every long option of every --help is in the man page' '
	all_help >help &&
	grep -o -- "--[a-z][a-z-]*" help | sort -u >options &&
	test_line_count -gt 15 options &&
	plain_source >source &&
	for option in $(cat options); do
		grep -q -e "$option" source || {
			echo "missing from the man page: $option" >&2
			return 1
		}
	done
'

# Each command's entry carries a mark, under which src/cli/man.rs checks
# its usage and its options against the command line's table.
sed -n 's/^\.\\" \(options of: .*\)/\1/p' "$MAN" >"$TRASH_ROOT/marks"

test_expect_success 'the man page has an entry for every sessions and config command' '
	marks=$TRASH_ROOT/marks &&
	for verb in $VERBS; do
		grep -q "^options of: sessions $verb\$" "$marks" || {
			echo "no entry for sessions $verb" >&2
			return 1
		}
	done &&
	for verb in $CONFIG_VERBS; do
		grep -q "^options of: config $verb\$" "$marks" || {
			echo "no entry for config $verb" >&2
			return 1
		}
	done
'

# The description of each option in --help, as one line: the text after
# the option on its line, and the lines continuing it.
help_descriptions() {
	awk '
		function flush() { if (text != "") print text; text = ""; on = 0 }
		/^ +-/ {
			flush()
			line = $0
			sub(/^ +/, "", line)
			text = ""
			if (match(line, /   */)) text = substr(line, RSTART + RLENGTH)
			on = 1
			next
		}
		on && /^        / {
			line = $0
			sub(/^ +/, "", line)
			text = (text == "" ? line : text " " line)
			next
		}
		{ flush() }
		END { flush() }'
}

test_expect_success MANDOC 'each option is described in the words of its --help' '
	all_help | help_descriptions >descriptions &&
	test_line_count -gt 25 descriptions &&
	MANWIDTH=80 mandoc -Tascii "$MAN" | col -b | one_line >page &&
	while read -r description; do
		printf "%s" "$description" | one_line >want &&
		grep -q -F -e "$(cat want)" page || {
			echo "not in the man page: $description" >&2
			return 1
		}
	done <descriptions
'

test_expect_success 'the interactive commands of chat --help are in the man page' '
	hermes chat --help | sed -n "/^Interactive commands:/,/^$/p" |
		grep -o "/[a-z!]*" | sort -u >commands &&
	test_line_count -gt 10 commands &&
	plain_source >source &&
	for command in $(cat commands); do
		grep -q -e "^$command\$" -e "^$command " source || {
			echo "no entry for $command" >&2
			return 1
		}
	done
'

test_expect_success 'ENVIRONMENT names every variable hermes reads or sets' '
	man_section ENVIRONMENT >section &&
	for var in HERMES_HOME HERMES_AGENT HERMES_MODEL HERMES_SESSION_ID \
		HERMES_SESSION_TITLE ZELLIJ_PANE_ID TMUX_PANE KITTY_WINDOW_ID \
		WEZTERM_PANE TERM_SESSION_ID WT_SESSION NO_COLOR HOME; do
		grep -q "^\.B[R]* .*\<$var\>" section || {
			echo "ENVIRONMENT lacks $var" >&2
			return 1
		}
	done
'

test_expect_success 'the terminal variables are listed in the order hermes tries them' '
	grep -o "ZELLIJ_PANE_ID\|TMUX_PANE\|KITTY_WINDOW_ID\|WEZTERM_PANE\|TERM_SESSION_ID\|WT_SESSION" \
		"$ROOT/src/terminal/mod.rs" | awk "!seen[\$0]++" >expect &&
	test_line_count = 6 expect &&
	man_section ENVIRONMENT | grep "^\.BR ZELLIJ_PANE_ID" |
		grep -o "[A-Z_]*_[A-Z_]*" >actual &&
	test_cmp expect actual
'

test_expect_success 'EXIT STATUS lists the codes of --help' '
	man_section "EXIT STATUS" | sed -n "s/^\.B \([0-9][0-9]*\)$/\1/p" >actual &&
	hermes --help | sed -n "/^Exit status:/,/^$/p" | one_line |
		grep -o "[0-9][0-9]* [a-z]" | sed "s/ .*//" >expect &&
	test_line_count = 6 expect &&
	test_cmp expect actual
'

test_expect_success 'FILES shows every config.toml key' '
	test -n "$CONFIG_KEYS" &&
	man_section FILES >section &&
	for key in $CONFIG_KEYS; do
		grep -q "^$key = \"" section || {
			echo "FILES lacks the config key $key" >&2
			return 1
		}
	done
'

test_expect_success 'EXAMPLES has tmux panes, cron, a script checking $?, curl' '
	man_section EXAMPLES >section &&
	grep -q "tmux" section &&
	grep -q "^0 7 \* \* \* .*--create-if-missing" section &&
	grep -q "^case \$? in" section &&
	grep -q "HERMES_AGENT=.*curl " section
'

test_expect_success 'the man page has the version of the binary' '
	hermes --version | sed "s/^hermes //" >expect &&
	sed -n "s/^\.TH HERMES 1 [0-9-]* \"hermes \([^\"]*\)\".*/\1/p" "$MAN" >actual &&
	test_cmp expect actual
'

test_done
