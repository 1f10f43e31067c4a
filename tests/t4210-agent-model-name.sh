#!/bin/sh
test_description='OPENAI_MODEL reaches the request body through hermes: the shipped openai-compatible agent is curl alone, started by hermes, no shell, no sed'
. "$(dirname "$0")/lib.sh"

AGENTS=$ROOT/contrib/agents
test_lazy_prereq SERVER 'test -n "$BASE_URL"'
test_lazy_prereq STRACE 'command -v strace && strace -f -o /dev/null true'
# strace -z (only calls that succeeded) came with strace 5.2.
test_lazy_prereq STRACE_Z 'strace -f -z -o /dev/null true'
start_fake_server 60
if test -n "$BASE_URL"; then
	OPENAI_BASE_URL=$BASE_URL
	export OPENAI_BASE_URL
fi

# The body the server received last.
last_body() {
	sed -n "/^{/p" "$(last_request)"
}

# sed that notes each run in ./seds, then does its work.
counting_sed() {
	mkdir -p counting &&
	printf "#!/bin/sh\necho run >>\"%s/seds\"\nexec %s \"\$@\"\n" "$PWD" "$(command -v sed)" >counting/sed &&
	chmod +x counting/sed
}

test_expect_success SERVER 'OPENAI_MODEL: in the body hermes writes; the agent runs no sed' '
	counting_sed &&
	OPENAI_MODEL=gpt-4o-mini PATH="$PWD/counting:$PATH" \
		hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	! test -e seds &&
	last_body | grep "^{\"model\":\"gpt-4o-mini\",\"stream\":true,"
'

test_expect_success SERVER 'a name with quotes, backslashes, & and | is a JSON string' '
	OPENAI_MODEL="a\"b\\\\c&d|e" hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	last_body | grep -F "{\"model\":\"a\\\"b\\\\\\\\c&d|e\",\"stream\":true,"
'

test_expect_success SERVER 'a UTF-8 name passes as it is' '
	OPENAI_MODEL="modèle-é" hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	last_body | grep "^{\"model\":\"modèle-é\",\"stream\":true,"
'

test_expect_success 'HERMES_MODEL wins over OPENAI_MODEL, and config.toml over both' '
	OPENAI_MODEL=openai HERMES_MODEL=hermes hermes chat -q one --agent "cat >body.json; echo ok" -Q &&
	grep "^{\"model\":\"hermes\"," body.json &&
	printf "model = \"file\"\n" >"$HERMES_HOME/config.toml" &&
	OPENAI_MODEL=openai HERMES_MODEL=hermes hermes chat -q two --agent "cat >body.json; echo ok" -Q &&
	grep "^{\"model\":\"file\"," body.json &&
	rm "$HERMES_HOME/config.toml"
'

test_expect_success 'OPENAI_MODEL is the model of an agent that reads JSON only; config list says so' '
	OPENAI_MODEL=openai hermes chat -q one --agent "cat >body.json; echo model=\$HERMES_MODEL" -Q >out &&
	grep "^{\"model\":\"openai\"," body.json &&
	echo model=openai >expect && test_cmp expect out &&
	printf "agent_input = \"transcript\"\n" >"$HERMES_HOME/config.toml" &&
	OPENAI_MODEL=openai hermes chat -q two --agent "echo model=\$HERMES_MODEL" -Q >out &&
	echo model= >expect && test_cmp expect out &&
	OPENAI_MODEL=openai hermes config list >list &&
	! grep OPENAI_MODEL list &&
	rm "$HERMES_HOME/config.toml" &&
	OPENAI_MODEL=openai HERMES_AGENT=cat hermes config list >list &&
	grep "^model = \"openai\" *# environment: OPENAI_MODEL$" list
'

# The processes of a turn with the shipped agent: hermes and curl, nothing
# else (no shell: hermes makes the request the script would make).
test_expect_success SERVER,STRACE,STRACE_Z 'a turn with OPENAI_MODEL and a key starts curl, nothing else' '
	# Only the execve calls that succeeded (-z): a PATH walk tries each
	# directory, and a failed try may be split over two lines.
	OPENAI_MODEL=m OPENAI_API_KEY=sk-x strace -f -z -o trace -e trace=execve \
		hermes chat --agent "$AGENTS/openai-compatible" -q hi -Q >out &&
	echo "Hello from the fake server" >expect && test_cmp expect out &&
	grep "^Authorization: Bearer sk-x" "$(last_request)" &&
	# Under qemu-user the wrapper named hermes starts the emulator: that
	# one is not a process of the turn.
	grep "execve(" trace | sed "s/^[0-9]* *execve(\"\([^\"]*\)\".*/\1/" |
		grep -v "/qemu-[a-z0-9_]*-static\$" >run &&
	printf "%s\n" "$(command -v hermes)" "$(command -v curl)" >expect &&
	test_cmp expect run &&
	# The key went through a pipe curl read, never its command line.
	! grep "sk-x" trace
'

test_done
