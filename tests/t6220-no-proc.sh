#!/bin/sh
test_description='without /proc (a chroot, a bare container: here a mount namespace with /proc hidden) hermes finds itself as a shell would, by argv[0] then PATH, and with it its installed agents; where it cannot, it says where it looked'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
# Root may make a mount namespace and hide /proc in it under an empty tmpfs.
test_lazy_prereq NOPROC 'test "$(id -u)" = 0 &&
	unshare -m sh -c "mount -t tmpfs none /proc && ! test -e /proc/self/exe"'

start_fake_server 60

# no_proc 'COMMANDS': run COMMANDS (sh) where /proc is an empty tmpfs.
no_proc() {
	unshare -m sh -c "mount -t tmpfs none /proc && ! test -e /proc/self/exe && $1"
}

# install_at DIR: make install with PREFIX=DIR (outside the trash
# directory: the binary holds the words of its panic message, which the
# harness looks for there).
install_at() {
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" install PREFIX="$1" >/dev/null &&
	emulated_install "$1/bin"
}

SHIPPED="the agents that come with hermes are llm, ollama, openai-compatible"

test_expect_success NOPROC 'found by PATH, by a relative argv[0], and through a symbolic link on PATH' '
	prefix=$TRASH.inst &&
	install_at "$prefix" &&
	mkdir -p links && ln -s "$prefix/bin/hermes" links/hermes &&
	test_expect_code 3 no_proc "PATH=$prefix/bin:/usr/bin:/bin hermes chat --agent no-such-agent -q hi" 2>err.path &&
	grep "^hermes: agent .no-such-agent. not found: not a shipped agent nor a command on PATH; $SHIPPED\$" err.path &&
	test_expect_code 3 no_proc "cd $prefix && ./bin/hermes chat --agent no-such-agent -q hi" 2>err.relative &&
	grep "; $SHIPPED\$" err.relative &&
	test_expect_code 3 no_proc "PATH=$TRASH/links:/usr/bin:/bin hermes chat --agent no-such-agent -q hi" 2>err.link &&
	grep "; $SHIPPED\$" err.link
'

test_expect_success NOPROC,SERVER 'a turn through the installed openai-compatible, with no /proc' '
	prefix=$TRASH.inst &&
	install_at "$prefix" &&
	hermes config set base_url "$BASE_URL" &&
	no_proc "PATH=$prefix/bin:/usr/bin:/bin hermes chat --agent openai-compatible -q hi" >out 2>err &&
	grep "^Hello from the fake server\$" out &&
	grep "^session_id: " err
'

test_expect_success NOPROC,PYTHON3 'a hermes with no agents beside it says where it looked, and when it cannot tell where it is' '
	test_native "a copy of the qemu-user wrapper still runs the binary where it was built" &&
	lone=$TRASH.lone &&
	mkdir -p "$lone/bin" &&
	cp "$HERMES_BIN" "$lone/bin/hermes" &&
	test_expect_code 3 no_proc "PATH=$lone/bin:/usr/bin:/bin hermes chat --agent no-such-agent -q hi" 2>err &&
	grep "; no agents are installed beside this hermes (looked in $lone/share/hermes/agents[,)]" err &&
	! grep "cannot tell where it is" err &&
	# Its name neither a path nor on PATH: it says so. (The interpreter
	# itself, not a shim on PATH that would look for others there.)
	python=$(python3 -c "import sys; print(sys.executable)") &&
	test_expect_code 3 no_proc "PATH=/nonexistent $python -c \"import os, sys; os.execv(sys.argv[1], [\\\"hermes\\\"] + sys.argv[2:])\" $lone/bin/hermes chat --agent no-such-agent -q hi" 2>err &&
	grep "it cannot tell where it is itself: /proc/self/exe cannot be read, and its name .hermes. is neither a path to it nor a program on PATH)\$" err
'

test_done
