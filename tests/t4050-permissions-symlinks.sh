#!/bin/sh
test_description='private modes from creation under any umask; planted symlinks are never written through'
. "$(dirname "$0")/lib.sh"

# strace(1) that can trace, and inject faults (ptrace may be forbidden).
test_lazy_prereq STRACE 'strace -o /dev/null true'
test_lazy_prereq STRACE_INJECT 'strace -o /dev/null -e inject=getpid:retval=1 true'

# wait_for_match PATTERN: wait up to 10 s for a file matching the glob
# (wait_for_file takes one name, not a glob).
wait_for_match() {
	poll_until -t 10 some_file_matches "$1"
}

# some_file_matches PATTERN: a file matching the glob exists.
some_file_matches() {
	for f in $1; do
		test -e "$f" && return 0
	done
	return 1
}

ID=20260101_000000_5e1f11
session_json() {
	printf "{\"format\":1,\"id\":\"%s\",\"title\":\"%s\",\"messages\":[\\n]}\\n" "$1" "$2"
}

test_expect_success 'under umask 000 every directory is 0700 and every file 0600' '
	HERMES_HOME=$TRASH/a/b/home &&
	umask 000 &&
	TMUX_PANE=%1 hermes chat -q hi --no-agent -Q &&
	TMUX_PANE=%1 hermes chat -c -q again --agent "echo reply" -Q >/dev/null &&
	hermes -p work chat -q "in a profile" --no-agent -Q &&
	hermes sessions export -o "$TRASH/export.json" &&
	hermes sessions export --format markdown -o "$TRASH/export.md" &&
	echo old >"$TRASH/existing" && chmod 644 "$TRASH/existing" &&
	hermes sessions export --format jsonl -o "$TRASH/existing" --force &&
	for d in "$TRASH/a" "$TRASH/a/b" "$HERMES_HOME" "$HERMES_HOME/sessions" \
		"$HERMES_HOME/terminal-sessions" "$HERMES_HOME/profiles" \
		"$HERMES_HOME/profiles/work" "$HERMES_HOME/profiles/work/sessions"; do
		test -d "$d" && test "$(file_mode "$d")" = 700 || { echo "$d: $(file_mode "$d")"; return 1; }
	done &&
	files=0 &&
	for f in "$HERMES_HOME"/.lock "$HERMES_HOME"/sessions/*.json \
		"$HERMES_HOME"/terminal-sessions/*.json "$HERMES_HOME"/profiles/work/.lock \
		"$HERMES_HOME"/profiles/work/sessions/*.json \
		"$TRASH/export.json" "$TRASH/export.md" "$TRASH/existing"; do
		test -f "$f" && test "$(file_mode "$f")" = 600 || { echo "$f: $(file_mode "$f")"; return 1; }
		files=$((files + 1))
	done &&
	test "$(ls "$HERMES_HOME"/terminal-sessions | wc -l)" = 1 &&
	figure "t4050: umask 000: 8 directories 0700, $files files 0600 (sessions, breadcrumb, .lock, exports)"
'

test_expect_success 'the header index a large store gets is 0600 too' '
	mkdir -p "$HERMES_HOME/sessions" &&
	chmod 700 "$HERMES_HOME" "$HERMES_HOME/sessions" &&
	i=1 &&
	while test $i -le 520; do
		id=$(printf "20250101_000000_%06x" $i) &&
		session_json "$id" "t$i" >"$HERMES_HOME/sessions/$id.json" &&
		i=$((i + 1)) || return 1
	done &&
	touch -d "1 hour ago" "$HERMES_HOME"/sessions/* &&
	umask 000 &&
	hermes sessions list >/dev/null 2>&1 &&
	test -f "$HERMES_HOME/index" &&
	test "$(file_mode "$HERMES_HOME/index")" = 600
'

test_expect_success STRACE 'files are created 0600 and directories 0700, never chmod-ed afterwards' '
	umask 000 &&
	TMUX_PANE=%1 strace -f -qq -s 4096 -o trace -e trace=%file,%desc,umask \
		hermes chat -q hi --no-agent -Q &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	TMUX_PANE=%1 strace -f -qq -s 4096 -o trace2 -e trace=%file,%desc,umask \
		hermes chat -r "$id" -q again --agent "echo reply" -Q >/dev/null &&
	strace -f -qq -s 4096 -o trace3 -e trace=%file,%desc,umask \
		hermes sessions export -o "$TRASH/export.json" &&
	# O_LARGEFILE is the C library'"'"'s, on every open of a 32-bit process.
	cat trace trace2 trace3 | sed "s/|O_LARGEFILE//" >all &&
	grep "O_CREAT" all >creates &&
	grep "mkdir" all >mkdirs &&
	test -s creates && test -s mkdirs &&
	grep "\.tmp\", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW" creates &&
	# strace -f splits a call another thread interrupts ("<unfinished ...>"
	# here, "<... resumed>" later): the arguments are on the first part.
	! grep -v -E "O_CREAT[^)]*, 0600(\)| <unfinished)" creates &&
	! grep -v -E "mkdir[a-z]*\(.*, 0700(\)| <unfinished)" mkdirs &&
	! grep -E " (chmod|fchmod|fchmodat|fchmodat2)\(" all &&
	figure "t4050: $(wc -l <creates | tr -d " ") file creations all O_CREAT 0600 (temporaries O_EXCL|O_NOFOLLOW), $(wc -l <mkdirs | tr -d " ") mkdirs all 0700, 0 chmod calls"
'

test_expect_success STRACE_INJECT 'a temporary file caught mid-write is already 0600' '
	umask 000 &&
	hermes chat -q hi --no-agent -Q &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	# Stall the write at its fsync, so the temporary sits there to be seen.
	{ strace -f -qq -o /dev/null -e trace=fdatasync,fsync -e inject=fdatasync,fsync:delay_enter=2000000 \
		hermes chat -r "$id" -q slow --no-agent -Q & } &&
	writer=$! &&
	wait_for_match "$HERMES_HOME/sessions/.$id.json.*.tmp" &&
	for t in "$HERMES_HOME"/sessions/.*.tmp; do
		test "$(file_mode "$t")" = 600 || { echo "$t: $(file_mode "$t")"; return 1; }
	done &&
	wait $writer &&
	show_contents "$id" >contents &&
	grep -x slow contents &&
	! ls -a "$HERMES_HOME/sessions" | grep "\.tmp\$"
'

test_expect_success 'a symlink at a session path is neither read nor written through' '
	hermes chat -q real --no-agent -Q &&
	mkdir outside &&
	session_json $ID victim >outside/victim.json &&
	cp outside/victim.json victim.orig &&
	ln -s "$TRASH/outside/victim.json" "$HERMES_HOME/sessions/$ID.json" &&
	test_expect_code 4 hermes chat -r "$ID" -q x --no-agent -Q 2>err &&
	grep "is a symbolic link" err &&
	test_expect_code 4 hermes sessions show "$ID" &&
	test_expect_code 4 hermes sessions rename "$ID" other &&
	test_expect_code 1 hermes chat -c victim -q x --no-agent -Q &&
	hermes sessions list >out 2>err &&
	grep "$ID.json.*symbolic link" err &&
	! grep victim out &&
	test_cmp victim.orig outside/victim.json &&
	test -h "$HERMES_HOME/sessions/$ID.json"
'

test_expect_success 'a symlink at the breadcrumb path is replaced, not written through' '
	mkdir outside &&
	echo precious >outside/crumb &&
	mkdir -p "$HERMES_HOME/terminal-sessions" &&
	chmod 700 "$HERMES_HOME" "$HERMES_HOME/terminal-sessions" &&
	ln -s "$TRASH/outside/crumb" "$HERMES_HOME/terminal-sessions/tmux_pane--7.$MACHINE.json" &&
	TMUX_PANE=%7 hermes chat -q hi --no-agent -Q &&
	echo precious >expect &&
	test_cmp expect outside/crumb &&
	! test -h "$HERMES_HOME/terminal-sessions/tmux_pane--7.$MACHINE.json" &&
	grep "\"session_id\":\"[0-9_a-f]*\"" "$HERMES_HOME/terminal-sessions/tmux_pane--7.$MACHINE.json" &&
	# and bare -c continues through the new breadcrumb
	TMUX_PANE=%7 hermes chat -c -q again --no-agent -Q &&
	test "$(session_count)" = 1
'

test_expect_success 'a symlink at the lock file is refused, not followed' '
	hermes chat -q hi --no-agent -Q &&
	mkdir outside &&
	echo precious >outside/lock &&
	rm "$HERMES_HOME/.lock" &&
	ln -s "$TRASH/outside/lock" "$HERMES_HOME/.lock" &&
	test_expect_code 4 hermes chat -q again --no-agent -Q 2>err &&
	grep "\.lock" err &&
	echo precious >expect &&
	test_cmp expect outside/lock
'

test_expect_success 'export -o onto a symlink is refused: neither the link nor its target changes' '
	hermes chat -q hi --no-agent -Q &&
	mkdir outside &&
	echo precious >outside/file &&
	ln -s "$TRASH/outside/file" link.json &&
	test_expect_code 2 hermes sessions export -o link.json 2>err &&
	echo "hermes: link.json is a symbolic link; hermes neither writes through it nor replaces it: give the file itself" >expect &&
	test_cmp expect err &&
	echo precious >expect &&
	test_cmp expect outside/file &&
	test -h link.json
'

test_expect_success 'export -o and /save into a FIFO or a device write into it and leave it one' '
	hermes chat -q hi --no-agent -Q &&
	mkfifo fifo &&
	{ timeout 20 cat fifo >from-fifo & } &&
	hermes sessions export --format jsonl -o fifo &&
	wait &&
	test -p fifo &&
	grep "\"content\":\"hi\"" from-fifo &&
	if test "$(id -u)" = 0 && test_have_prereq SCRIPT; then
		# A null device of our own: /dev/null itself is not risked.
		mknod null c 1 3 &&
		hermes sessions export -o null &&
		test -c null &&
		printf "/save %s\n/quit\n" "$TRASH/null" >input &&
		run_in_pty "hermes chat -c hi --no-agent" <input >transcript &&
		grep "Saved to" transcript &&
		test -c null
	fi
'

test_expect_success STRACE_INJECT 'a symlink planted at the temporary name is not followed' '
	test_native "strace counts qemu'"'"'s own getrandom calls too" &&
	hermes chat -q hi --no-agent -Q &&
	id=$(ls "$HERMES_HOME/sessions" | sed -n "s/\.json\$//p") &&
	# Which getrandom call names the temporary? Count them in a dry run.
	strace -f -qq -o trace -e trace=getrandom,$(syscalls open) hermes chat -r "$id" -q probe --no-agent -Q &&
	n=$(awk "/getrandom\\(/ { n++ } /\\.tmp\"/ { print n; exit }" trace) &&
	test -n "$n" &&
	grep -c "getrandom(.*, 6, " trace &&
	# Make that call return without filling its buffer: the name is then
	# all zeros, and a symlink waits there.
	mkdir outside &&
	echo precious >outside/victim &&
	ln -s "$TRASH/outside/victim" "$HERMES_HOME/sessions/.$id.json.000000000000.tmp" &&
	strace -f -qq -o trace2 -e trace=getrandom,$(syscalls open) -e inject=getrandom:retval=6:when=$n \
		hermes chat -r "$id" -q planted --no-agent -Q &&
	sed "s/|O_LARGEFILE//" trace2 |
		grep "000000000000.tmp\", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW.* = -1 EEXIST" &&
	echo precious >expect &&
	test_cmp expect outside/victim &&
	test -h "$HERMES_HOME/sessions/.$id.json.000000000000.tmp" &&
	show_contents "$id" >contents &&
	grep -x planted contents
'

# A home others can write to is refused (or, on a read-only command,
# warned about): t4110-strict-modes.

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
