#!/bin/sh
test_description='Ctrl-C in a real terminal while a shipped agent works: it stops quietly (no "Terminated" from its shell), hermes says it was interrupted, the message is kept'
. "$(dirname "$0")/lib.sh"

# SHELL for the tmux pane: POSIX whatever the user has.
SHELL=/bin/sh
export SHELL

AGENTS=$ROOT/contrib/agents
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
test_lazy_prereq TMUX 'command -v tmux'
start_fake_server 120
# The pane's hermes asks this server for the model that answers after 1.5 s,
# and finds the stand-ins below first.
OPENAI_BASE_URL=$BASE_URL HERMES_MODEL=slow PATH=bin:$PATH
export OPENAI_BASE_URL HERMES_MODEL PATH

# Stand-ins for the llm and ollama programs: they note that they started,
# then take their time.
slow_program() {
	mkdir -p bin &&
	printf "#!/bin/sh\ncat >/dev/null\n: >\"%s/started\"\nexec sleep 30\n" "$TRASH" >"bin/$1" &&
	chmod +x "bin/$1"
}

# requests: how many requests the fake server has had.
requests() {
	ls "$SERVER_DIR" | sed -n "/^request\./p" | wc -l
}

# more_requests_than N: the fake server has had more than N requests.
more_requests_than() {
	test "$(requests)" -gt "$1"
}

# interrupted_quietly READY: once READY succeeds (the agent is at work),
# Ctrl-C; hermes exits 130 saying so, the pane shows nothing else (no
# "Terminated"), and the session holds the message.
interrupted_quietly() {
	wait_until "$@" &&
	keys C-c &&
	hermes_exited 130 &&
	on_screen "^hermes: interrupted$" &&
	! on_screen -i "terminated" &&
	# What the pane shows of it: the terminal echoes the Ctrl-C as ^C.
	screen | sed -n "/^\\$ hermes /,/^\\$ \$/p" | sed -e "s/^^C//" -e "/^\\$ /d" -e "/^session_id: /d" \
		-e "/^hermes: interrupted\$/d" -e "/^\$/d" >noise &&
	test_must_be_empty noise &&
	test "$(session_count)" = 1
}

for way in "openai-compatible|hermes's own request (curl, no shell)" \
	"sh $AGENTS/openai-compatible|its script, run by a shell"; do
	test_expect_success SERVER,TMUX "openai-compatible, ${way#*|}: Ctrl-C stops it quietly" '
		before=$(requests) &&
		start_tmux &&
		start_hermes "chat --agent \"${way%%|*}\" -q hi" &&
		interrupted_quietly more_requests_than "$before"
	'
done

for program in llm ollama; do
	test_expect_success TMUX "$program: Ctrl-C stops it quietly" '
		slow_program $program &&
		start_tmux &&
		start_hermes "chat --agent $program -q hi" &&
		interrupted_quietly test -e started
	'
done

test_done
