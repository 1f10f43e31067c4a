#!/bin/sh
test_description='compact = "auto": a cron-like loop of one-shot posts to one thread never sends more than the budget; a failing summariser does not stop the turn'
. "$(dirname "$0")/lib.sh"

test_expect_success PYTHON3 'compact = auto: 200 one-shot posts, no input over the budget, summaries made' '
	make_rec &&
	printf "context = \"4000\"\ncompact = \"auto\"\n" >config.toml &&
	mkdir -p "$HERMES_HOME" && cp config.toml "$HERMES_HOME/" &&
	i=0 &&
	while test $i -lt 200; do
		i=$((i + 1)) &&
		hermes chat -c nightly --create-if-missing -q "night $i: $(printf "%080d" $i)" --agent "$REC" -Q >/dev/null 2>>err ||
		return 1
	done &&
	test_must_be_empty err &&
	for f in inputs/*; do
		test "$(sent "$f")" -le 4000 || { echo "$f: $(sent "$f") characters" >&2; return 1; }
	done &&
	id=$(only_id) &&
	hermes sessions stats nightly --json >stats &&
	json_get stats "[v[\"messages\"], v[\"summaries\"] > 1, v[\"over_budget\"]]" >actual &&
	printf "%s\ntrue\nfalse\n" $((400 + $(json_get stats "v[\"summaries\"]"))) >expect &&
	test_cmp expect actual &&
	# Nothing was left out without a summary standing for it.
	! grep -l "left out to keep within" inputs/*
'

test_expect_success PYTHON3 'compact = auto with a failing summariser: the turn goes on within the budget, and says so' '
	make_rec &&
	mkdir -p "$HERMES_HOME" &&
	printf "context = \"2000\"\ncompact = \"auto\"\n" >"$HERMES_HOME/config.toml" &&
	i=0 &&
	while test $i -lt 30; do
		i=$((i + 1)) &&
		hermes chat -c nightly --create-if-missing -q "night $i: $(printf "%080d" $i)" --no-agent -Q || return 1
	done &&
	printf "#!/bin/sh\\ncat >/dev/null\\nexit 7\\n" >broken && chmod +x broken &&
	cp "$HERMES_HOME/sessions/$(only_id).json" before &&
	test_expect_code 3 hermes chat -c nightly -q "and now" --agent "$TRASH/broken" -Q 2>err &&
	grep "automatic compaction failed: agent .* exited with status 7; no summary was made; the session is unchanged; this turn sends what fits in the budget" err &&
	hermes chat -c nightly -q "once more" --agent "sh -c \"grep -q Summarise && exit 5; echo fine\"" -Q >out 2>err &&
	grep "automatic compaction failed" err &&
	echo fine >expect && test_cmp expect out
'

test_done
