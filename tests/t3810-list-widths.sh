#!/bin/sh
test_description='list and search fit the terminal: 40, 60 and 200 columns in real tmux panes'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL

long="a very long title that goes on and on well past sixty columns of text in any terminal at all"

# Titles of every width kind: plain, emoji, CJK, long; two sessions share
# the suffix 111111, so their short form is a prefix.
sessions_of_all_widths() {
	mk_session 20261201_100000_aaaaaa "redis debug" user 1795495200 /tmp user "about redis" &&
	mk_session 20261201_110000_bbbbbb "deploy 🚀" user 1795595200 /tmp user "about deploys" &&
	mk_session 20261201_120000_cccccc "调试缓存问题的会话" user 1795695200 /tmp user "about caches" &&
	mk_session 20261201_130000_dddddd "$long" user 1795795200 /tmp user "about length" &&
	mk_session 20261202_140000_111111 "same end one" user 1795895200 /tmp user "about ends" &&
	mk_session 20261202_150000_111111 "same end two" user 1795995200 /tmp user "about ends"
}

# screen_at WIDTH 'COMMAND': run COMMAND in a fresh tmux pane WIDTH
# columns wide; the screen (one line per row, trailing blanks cut) goes
# to screen.WIDTH.
screen_at() {
	SOCKET=$TRASH/w$1.sock &&
	trap stop_tmux EXIT &&
	tm new-session -d -s w -x "$1" -y 30 -c "$TRASH" \
		"$2; echo done; sleep 60" &&
	poll_until tm_screen_has "$1" done &&
	tm capture-pane -p -t w | sed -e "s/ *$//" -e "/^$/d" >"screen.$1"
}

tm_screen_has() {
	tm capture-pane -p -t w | grep -q "^$2\$"
}

# check_fits WIDTH: every row of screen.WIDTH is one table row (nothing
# wrapped), ends with its session's ID in the column ID_WIDTH wide, and
# the columns after the title line up in display columns.
check_fits() {
	sed "/^done$/d" "screen.$1" >rows &&
	test_line_count = 7 rows &&
	python3 -c "
import sys, unicodedata
width = int(sys.argv[1])
def cols(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in s)
rows = open('rows', encoding='utf-8').read().splitlines()
starts = set()
for row in rows[1:]:
    assert cols(row) < width, (cols(row), row)
    at = row.index('2026-') if '2026-' in row else row.index('11-')
    starts.add(cols(row[:at]))
assert len(starts) == 1, (starts, rows)
" "$1"
}

test_expect_success TMUX,PYTHON3 '200 columns: full IDs, titles capped at 60 columns' '
	sessions_of_all_widths &&
	screen_at 200 "hermes sessions list" &&
	check_fits 200 &&
	grep "20261202_150000_111111$" screen.200 &&
	grep "^  a very long title that goes on and on well past sixty…        2026" screen.200
'

test_expect_success TMUX,PYTHON3 '60 columns: IDs shrink to their shortest unique form before titles go under 20' '
	sessions_of_all_widths &&
	screen_at 60 "hermes sessions list" &&
	check_fits 60 &&
	grep "  aaaaaa$" screen.60 &&
	grep "  20261202_15$" screen.60 &&
	grep "  20261202_14$" screen.60 &&
	grep "^  a very long title…  " screen.60 &&
	hermes sessions show 20261202_15 >out &&
	head -1 out >actual &&
	echo "same end two" >expect &&
	test_cmp expect actual
'

test_expect_success TMUX,PYTHON3 '40 columns: no row wraps; the count goes before titles are cut short' '
	sessions_of_all_widths &&
	screen_at 40 "hermes sessions list" &&
	check_fits 40 &&
	! grep MSGS screen.40 &&
	grep "^\* same end…  *11-29 23:33  20261202_15$" screen.40
'

test_expect_success TMUX 'search fits the same way, its snippet lines too' '
	sessions_of_all_widths &&
	screen_at 40 "NO_COLOR=1 hermes sessions search about" &&
	sed "/^done$/d" screen.40 >rows &&
	# A title row and a snippet row per session, none wrapped.
	test_line_count = 13 rows &&
	grep -c "^    user: about" rows >count &&
	echo 6 >expect &&
	test_cmp expect count
'

test_expect_success 'piped output is unchanged: tab-separated, full titles and IDs' '
	sessions_of_all_widths &&
	hermes sessions list >out &&
	printf "\t%s\t2026-11-27 16:00\t1\t20261201_130000_dddddd\n" "$long" >expect &&
	sed -n 3p out >actual &&
	test_cmp expect actual
'

test_done
