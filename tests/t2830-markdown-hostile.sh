#!/bin/sh
test_description='the Markdown drawer on hostile replies just under 16 MiB, in a pty: drawn whole, deep lists capped visibly, control sequences shown whole, open links as text'
. "$(dirname "$0")/lib.sh"

# Markdown is drawn on a terminal that can show it; NO_COLOR keeps the
# drawing to text (marks, bullets), which the tests compare.
TERM=xterm NO_COLOR=1
export TERM NO_COLOR

# fill UNIT FILE: UNIT (a printf format) repeated to just under 16 MiB.
fill() {
	UNIT=$(printf "$1") awk 'BEGIN {
		unit = ENVIRON["UNIT"]
		n = int((16 * 1048576 - 4096) / length(unit))
		for (i = 0; i < n; i++) printf "%s", unit
	}' >"$2"
}

# nested LINES FILE: LINES lines of 5,000 list markers each; with a third
# argument, each as the drawer shows it.
nested() {
	awk -v lines="$1" -v shown="${3-}" 'BEGIN {
		for (l = 0; l < lines; l++) {
			if (shown != "") printf "              » • "
			for (i = shown != "" ? 9 : 0; i < 5000; i++) printf "- "
			print ""
		}
	}' >"$2"
}

# draw FILE: the reply FILE as a chat on a terminal draws it, in drawn
# (carriage returns, the erasing of the waiting sign and the attributes
# emphasis is drawn with taken out).
draw() {
	run_in_pty "hermes chat --agent \"cat $1\" -q x -Q" >raw &&
	tr -d "\r" <raw | sed -e "s/$(printf "\033")\[K//g" -e "s/$(printf "\033")\[[0-9;]*m//g" >drawn
}

test_expect_success SCRIPT 'lines of 5,000 nested list markers: each drawn eight deep after », the deeper markers as text' '
	nested 1677 reply &&
	draw reply &&
	nested 1677 expect shown &&
	cmp expect drawn
'

test_expect_success SCRIPT 'ESC \ before Markdown marks: the sequence shown whole, its backslash kept, the marks read' '
	fill "\033\\\\*a* " reply &&
	draw reply &&
	head -c 20 drawn >actual &&
	printf "^[\\\\a ^[\\\\a ^[\\\\a ^[\\\\a " >expect &&
	test_cmp expect actual &&
	test "$(tr -d "\n" <drawn | wc -c)" = $(( $(wc -c <reply) / 6 * 5 ))
'

test_expect_success SCRIPT 'a clear-screen inside an autolink: shown whole, not underlined, not half read' '
	fill "<http://a \033[2J>](u) " reply &&
	draw reply &&
	head -c 42 drawn >actual &&
	printf "<http://a ^[[2J>](u) <http://a ^[[2J>](u) " >expect &&
	test_cmp expect actual &&
	test "$(tr -d "\n" <drawn | wc -c)" = $(( $(wc -c <reply) / 20 * 21 ))
'

test_expect_success SCRIPT 'links that never close: drawn as they came' '
	fill "[a](" reply &&
	draw reply &&
	printf "\n" >>reply &&
	cmp reply drawn
'

test_done
