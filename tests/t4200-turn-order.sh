#!/bin/sh
test_description='a turn in order: the message is in the file, synced, before the agent has its input; the catalog and the breadcrumb follow'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq STRACE 'command -v strace && strace -f -o /dev/null true'

# An agent that looks at the session file before it reads anything: the
# user's message must already be there, whenever the agent was started.
# It notes what it saw in ./peeked, and its input in ./stdin.json.
PEEK=$TRASH_ROOT/peek
cat >"$PEEK" <<'EOF'
#!/bin/sh
grep -c '"content":"the question"' "$HERMES_HOME/sessions/$HERMES_SESSION_ID.json" >peeked
cat >stdin.json
echo answer
EOF
chmod +x "$PEEK"

# A session titled "order", to continue by name.
order() {
	hermes chat -c order --create-if-missing -q hello --no-agent -Q
}

test_expect_success 'an agent that reads the session file first finds the message there' '
	order &&
	hermes chat -c "order" -q "the question" --agent "$PEEK" -Q >out &&
	echo answer >expect && test_cmp expect out &&
	echo 1 >expect && test_cmp expect peeked &&
	grep "\"content\":\"the question\"}\]}$" stdin.json
'

test_expect_success 'so does one run by the shell' '
	order &&
	hermes chat -c "order" -q "the question" --agent "sh $PEEK" -Q >out &&
	echo 1 >expect && test_cmp expect peeked
'

# A store large enough to keep a catalog (500 sessions, titled t0 to t499).
many() {
	awk 'BEGIN {
		for (i = 0; i < 500; i++) {
			t = 1767225600 + i * 60
			printf "{\"format\":1,\"id\":\"20260101_%06d_%06x\",\"title\":\"t%d\",\"title_source\":\"user\",\"created_at\":%d,\"updated_at\":%d,\"cwd\":\"/w\",\"message_count\":1,\"preview\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"m\",\"ts\":%d}]}\n", i / 60, i, i, t, t, t
		}
	}' >many.jsonl &&
	hermes sessions import many.jsonl 2>/dev/null
}

test_expect_success 'after the turn, the catalog is believed: its bookkeeping was done' '
	many &&
	hermes sessions list >/dev/null &&
	test -s "$HERMES_HOME/catalog-state" &&
	hermes chat -c t250 -q more --agent "$PEEK" -Q >/dev/null &&
	grep "20260101_000004_0000fa" "$HERMES_HOME/catalog-state" &&
	# Believed: reading it writes no new one, as a full pass would.
	cp "$HERMES_HOME/catalog-state" expect &&
	hermes sessions list >listed &&
	test_cmp expect "$HERMES_HOME/catalog-state" &&
	head -n 1 listed | grep "t250"
'

# The system calls of one turn, in order: the temporary file synced, renamed
# over the session, the directory synced, and only then the agent's input
# written to its pipe; the reply saved the same way after.
test_expect_success STRACE 'the input is written after fdatasync, rename and the directory fsync' '
	order &&
	# rename(2) is renameat or renameat2 where there is no rename system
	# call (aarch64) or the C library prefers those: tests/lib.sh syscalls.
	strace -f -o trace -e trace=fdatasync,fsync,$(syscalls rename),write \
		hermes chat -c "order" -q "the question" --agent "$PEEK" -Q >out &&
	echo answer >expect && test_cmp expect out &&
	awk "
		/fdatasync\(/ && !synced { synced = NR }
		/rename(at2?)?\(.*\.tmp\", (AT_FDCWD, )?\".*sessions\/[0-9_a-f]*\.json\"/ && !renamed { renamed = NR }
		/ fsync\(/ && renamed && !dir_synced { dir_synced = NR }
		/write\(.*\"\{\\\\\"model\\\\\":/ && !fed { fed = NR }
		END {
			print synced, renamed, dir_synced, fed
			exit !(synced && synced < renamed && renamed < dir_synced && dir_synced < fed)
		}
	" trace
'

# With compact = "auto", a session too small to be compacted (its file no
# larger than the budget) has its agent started as early as without it:
# the agent's process is made (a clone with SIGCHLD: a process, not a
# thread) after the rename and before the directory fsync. (Its execve may
# come later under qemu-user, whose vfork does not wait for the exec.)
test_expect_success STRACE 'compact = auto, a small session: the agent starts before the directory fsync' '
	order &&
	printf "compact = \"auto\"\n" >"$HERMES_HOME/config.toml" &&
	strace -f -o trace -e trace=clone,clone3,fork,vfork,fsync,$(syscalls rename) \
		hermes chat -c "order" -q "the question" --agent "$PEEK" -Q >out &&
	rm "$HERMES_HOME/config.toml" &&
	echo answer >expect && test_cmp expect out &&
	echo 1 >expect && test_cmp expect peeked &&
	awk "
		/rename(at2?)?\(.*\.tmp\", (AT_FDCWD, )?\".*sessions\/[0-9_a-f]*\.json\"/ && !renamed { renamed = NR }
		/(clone3?|v?fork)\(.*SIGCHLD/ && renamed && !started { started = NR }
		/ fsync\(/ && renamed && !dir_synced { dir_synced = NR }
		END {
			print renamed, started, dir_synced
			exit !(renamed && started && renamed < started && started < dir_synced)
		}
	" trace
'

# The shipped openai-compatible, whose request hermes makes itself with
# curl: curl reads no session file, so it starts first of all (its start-up
# overlaps the save), yet it has its input, and asks the server, only once
# the message is synced, renamed and the directory synced.
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 60

test_expect_success STRACE,SERVER 'hermes own request: curl starts before the save, asks the server only after it' '
	order &&
	OPENAI_BASE_URL=$BASE_URL OPENAI_MODEL=m strace -f -o trace \
		-e trace=clone,clone3,fork,vfork,fdatasync,fsync,$(syscalls rename),connect \
		hermes chat -c "order" -q "the question" --agent "$ROOT/contrib/agents/openai-compatible" -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	awk "
		/(clone3?|v?fork)\(.*SIGCHLD/ && !started { started = NR }
		/fdatasync\(/ && !synced { synced = NR }
		/rename(at2?)?\(.*\.tmp\", (AT_FDCWD, )?\".*sessions\/[0-9_a-f]*\.json\"/ && !renamed { renamed = NR }
		/ fsync\(/ && renamed && !dir_synced { dir_synced = NR }
		/connect\(.*AF_INET/ && !asked { asked = NR }
		END {
			print started, synced, renamed, dir_synced, asked
			exit !(started && started < synced && synced < renamed && renamed < dir_synced && dir_synced < asked)
		}
	" trace &&
	grep -c "\"content\":\"the question\"" "$HERMES_HOME/sessions/$(session_id_by_title order).json"
'

test_expect_success 'a breadcrumb is still written for the terminal of a one-shot turn' '
	order &&
	TMUX_PANE=%7 hermes chat -c "order" -q "crumb" --agent "$PEEK" -Q >/dev/null &&
	TMUX_PANE=%7 hermes sessions current --format "{title}" >actual &&
	printf order >expect && test_cmp expect actual
'

test_done
