#!/bin/sh
test_description='times from a clock that ran ahead count as now, and are shown as stored'
. "$(dirname "$0")/lib.sh"

NOW=$(date +%s)
OLD=20261201_100000_aaaaaa FAR=20261201_110000_bbbbbb SOON=20261201_120000_cccccc

future_store() {
	mk_session $OLD old user $((NOW - 600)) "$TRASH" user "ten minutes ago" &&
	# Milliseconds where seconds belong: a year in the tens of millions.
	mk_session $FAR far auto 1000000000000000 /elsewhere user "far" &&
	# A day ahead: another machine'"'"'s clock.
	mk_session $SOON soon auto $((NOW + 86400)) /elsewhere user "soon"
}

future_warning() {
	echo "hermes: warning: $1 last active in the future (another machine's clock ahead?); listed, continued and pruned as if active now"
}

test_expect_success 'list shows a far-future time as stored, no nonsense year, and warns once' '
	future_store &&
	hermes sessions list >out 2>err &&
	future_warning "2 sessions were" >expect &&
	test_cmp expect err &&
	grep "^	far	1000000000000000	1	$FAR\$" out &&
	! grep "3169" out &&
	hermes sessions show far >show &&
	grep "last active: 1000000000000000" show &&
	hermes sessions list --json >json 2>err &&
	grep "\"updated_at\":1000000000000000" json
'

test_expect_success 'a time a few seconds ahead (clocks of synced machines) is no warning' '
	mk_session $OLD old user $((NOW + 5)) "$TRASH" user hi &&
	hermes sessions list >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'a future time ranks as now, not beyond: two from the future tie, by ID' '
	future_store &&
	hermes sessions list >out 2>/dev/null &&
	cut -f2 out >titles &&
	printf "%s\n" soon far old >expect &&
	test_cmp expect titles &&
	# Bare -c falls back to the newest: one counted as now, not the far one.
	(cd "$HOME" && hermes sessions current) >current &&
	check_current current $SOON latest
'

test_expect_success 'continuing a session from the future brings its time back to now' '
	future_store &&
	hermes chat -c far -q more --no-agent -Q &&
	updated=$(field $FAR updated_at) &&
	test "${updated%.*}" -le "$(date +%s)" &&
	hermes sessions list >out 2>err &&
	future_warning "1 session was" >expect &&
	test_cmp expect err
'

test_expect_success 'prune counts a future time as now: not pruned, however old the cutoff' '
	future_store &&
	hermes sessions prune --older-than 0.001 --dry-run >out 2>err &&
	echo "would remove session $OLD '"'old'"' (last active $(date -d @$((NOW - 600)) "+%Y-%m-%d %H:%M"))" >expect &&
	test_cmp expect out
'

# 2040-01-01 00:00 UTC: past 2038-01-19 03:14:07, the last second a 32-bit
# time_t holds (the 32-bit builds must use the C library's 64-bit one).
test_expect_success 'a time past 2038 is shown as a date, on 32-bit machines too' '
	mk_session 20400101_000000_dddddd later user 2208988800 /elsewhere user hi &&
	hermes sessions list >out 2>/dev/null &&
	printf "later\t2040-01-01 00:00\t1\t20400101_000000_dddddd\n" >expect &&
	cut -f2- out >actual &&
	test_cmp expect actual &&
	hermes sessions show later >show &&
	grep "last active: 2040-01-01 00:00\$" show &&
	grep "^\[user\] 2039-12-31 23:00\$" show
'

test_done
