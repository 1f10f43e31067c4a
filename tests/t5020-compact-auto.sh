#!/bin/sh
test_description='compact = "auto": a cron-like loop of one-shot posts to one thread never sends more than the budget; a failing summariser does not stop the turn'
. "$(dirname "$0")/lib.sh"

# make_rec: an agent, $REC, that keeps each input it reads as inputs/N
# (N = 1, 2, ...) in the test's directory and replies "reply N", or
# "SUMMARY N: the thread so far" when asked for a summary.
make_rec() {
	mkdir -p "$TRASH/inputs" &&
	cat >"$TRASH/rec" <<-EOF &&
	#!/bin/sh
	n=\$(( \$(ls "$TRASH/inputs" | wc -l) + 1 ))
	cat >"$TRASH/inputs/\$n"
	if grep -q "Summarise the conversation above" "$TRASH/inputs/\$n"; then
		echo "SUMMARY \$n: the thread so far"
	else
		echo "reply \$n"
	fi
	EOF
	chmod +x "$TRASH/rec" &&
	REC=$TRASH/rec
}

# last_input: the newest input the agent read.
last_input() {
	echo "$TRASH/inputs/$(ls "$TRASH/inputs" | sort -n | tail -n 1)"
}

# sent FILE: the characters of the messages' contents in JSON input FILE.
sent() {
	json_get "$1" "sum(len(m['content']) for m in v['messages'])"
}

# thread ID N: a session ID with a system prompt and N messages, user and
# assistant in turn, each "message I" padded to 100 characters.
thread() {
	python3 - "$HERMES_HOME/sessions/$1.json" "$1" "$2" <<-'EOF'
	import json, sys
	path, id, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
	ms = [{"role": "system", "content": "SYSTEM PROMPT", "ts": 1.0}]
	for i in range(n):
	    ms.append({"role": "user" if i % 2 == 0 else "assistant",
	               "content": ("message %d " % i).ljust(100, "x"), "ts": 2.0 + i})
	head = {"format": 1, "id": id, "title": "long", "title_source": "user",
	        "created_at": 1.0, "updated_at": 2.0 + n, "cwd": "/", "message_count": len(ms), "preview": ""}
	with open(path, "w") as f:
	    f.write(json.dumps(head)[:-1] + ',"messages":[\n' + ",\n".join(json.dumps(m) for m in ms) + "\n]}\n")
	EOF
}

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
