#!/bin/sh
test_description='roles: a system prompt with its model, budget and agent, in roles/NAME.md or shipped; chat --role, /role, hermes roles; the session records its role'
. "$(dirname "$0")/lib.sh"

SHELL=/bin/sh
export SHELL
unset HERMES_MODEL
test_lazy_prereq BASH 'command -v bash'

# An agent that keeps its request in $TRASH/request.json and answers with
# the model and budget of its environment.
AGENT='tee "$TRASH/request.json" >/dev/null; echo "model=$HERMES_MODEL"'

# role NAME TEXT: the file roles/NAME.md in the profile, holding TEXT.
role() {
	mkdir -p "$HERMES_HOME/roles" &&
	printf "%s\n" "$2" >"$HERMES_HOME/roles/$1.md"
}

# sent: "role: content" of each message of the last request.
sent() {
	json_get "$TRASH/request.json" "[m[\"role\"] + \": \" + m[\"content\"] for m in v[\"messages\"]]"
}

# header_of ID EXPR: EXPR of session ID's file (v).
header_of() {
	hermes sessions show --json "$1" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "$2"
}

test_expect_success 'hermes roles lists those that come with hermes: a name, a model, what it is for, its file' '
	hermes roles >out &&
	cut -f1,2,4 out >actual &&
	cat >expect <<-EOF &&
	commit	-	$ROOT/contrib/roles/commit.md
	explain	-	$ROOT/contrib/roles/explain.md
	shell	-	$ROOT/contrib/roles/shell.md
	EOF
	test_cmp expect actual &&
	grep "^commit	-	a git commit message for the diff" out &&
	hermes roles --json | json_get - "[r[\"name\"] for r in v if r[\"shipped\"]]" >actual &&
	printf "commit\nexplain\nshell\n" >expect &&
	test_cmp expect actual &&
	hermes roles explain >out &&
	head -n 2 out >actual &&
	printf "role: explain\nfile: %s\n" "$ROOT/contrib/roles/explain.md" >expect &&
	test_cmp expect actual &&
	grep "^You explain shell commands" out
'

test_expect_success 'a role of the profile: listed before, and over, a shipped one of the same name' '
	role terse "+++
description = \"short answers\"
model = \"m-small\"
+++
Answer in one line." &&
	role commit "Write a one-line commit message." &&
	hermes roles >out &&
	cut -f1,2,3 out >actual &&
	cat >expect <<-\EOF &&
	commit	-	Write a one-line commit message.
	explain	-	what a shell command does, part by part: hermes chat --role explain -q '"'tar -xzvf x.tgz -C /srv'"'
	shell	-	one shell command for a task, and nothing else: hermes chat --role shell -q '"'the 10 largest files here'"'
	terse	m-small	short answers
	EOF
	test_cmp expect actual &&
	grep "^commit	.*	$HERMES_HOME/roles/commit.md	$" out
'

test_expect_success 'chat --role: its prompt is the first message (its time not after the message'"'"'s), its model is sent, the session records the role' '
	role terse "+++
model = \"m-small\"
+++
Answer in one line." &&
	hermes chat --role terse --agent "$AGENT" -q "why is the sky blue" 2>err >out &&
	echo "model=m-small" >expect &&
	test_cmp expect out &&
	sent >actual &&
	printf "system: Answer in one line.\nuser: why is the sky blue\n" >expect &&
	test_cmp expect actual &&
	json_get request.json "v[\"model\"]" >actual &&
	echo m-small >expect &&
	test_cmp expect actual &&
	id=$(sed -n "s/^session_id: //p" err) &&
	header_of "$id" "[v[\"role\"], v[\"model\"], v[\"title\"]]" >actual &&
	printf "terse\nm-small\nwhy is the sky blue\n" >expect &&
	test_cmp expect actual &&
	header_of "$id" "[m[\"ts\"] for m in v[\"messages\"]] == sorted(m[\"ts\"] for m in v[\"messages\"])" >actual &&
	echo true >expect &&
	test_cmp expect actual &&
	hermes sessions list --json | json_get - "v[0][\"role\"]" >actual &&
	echo terse >expect &&
	test_cmp expect actual &&
	hermes sessions show "$id" | sed -n 2p | grep "  model: m-small  role: terse$"
'

test_expect_success 'what the command line says wins over the role: -m, -s, --context, --agent' '
	role big "+++
model = \"m-role\"
context = \"1000\"
agent = \"false\"
+++
The role prompt." &&
	hermes chat --role big -m m-given -s "The given prompt." --context 5000 --agent "$AGENT" -q "$(printf "%01200d" 0)" 2>err >out &&
	echo "model=m-given" >expect &&
	test_cmp expect out &&
	! grep "larger than the context budget" err &&
	sent >actual &&
	printf "system: The given prompt.\nuser: %01200d\n" 0 >expect &&
	test_cmp expect actual &&
	test_expect_code 3 hermes chat --role big -q "the role'"'"'s agent, false, runs" 2>err &&
	grep "^hermes: agent .false. exited with status 1 \[model m-role, the role.s: --role big\]$" err
'

test_expect_success 'a role'"'"'s context budget and agent apply when nothing says otherwise' '
	cat >agent <<-\EOF &&
	#!/bin/sh
	cat >"$TRASH/request.json"
	echo "from the role agent"
	EOF
	chmod +x agent &&
	role small "+++
context = \"1000\"
agent = \"$TRASH/agent\"
+++" &&
	hermes chat -c "long" --create-if-missing --no-agent -q "$(printf "%02000d" 1)" -Q &&
	hermes chat -c "long" --role small -q "short" -Q >out &&
	echo "from the role agent" >expect &&
	test_cmp expect out &&
	sent >actual &&
	cat >expect <<-\EOF &&
	system: [hermes: 1 messages (2000 characters) are left out to keep within the context budget of 1000 characters.]
	user: short
	EOF
	test_cmp expect actual
'

test_expect_success '-c NAME --role: the session takes the role'"'"'s prompt and records the role' '
	role terse "+++
model = \"m-small\"
+++
Answer in one line." &&
	hermes chat -c "old thread" --create-if-missing --no-agent -q "first" -Q &&
	id=$(only_id) &&
	hermes chat -c "old thread" --role terse --agent "$AGENT" -q "second" -Q >out &&
	sent >actual &&
	printf "system: Answer in one line.\nuser: first\nuser: second\n" >expect &&
	test_cmp expect actual &&
	header_of "$id" "[v[\"role\"], v[\"model\"]]" >actual &&
	printf "terse\nm-small\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a role that is nowhere: exit 2, the nearest name and the others, nothing saved' '
	test_expect_code 2 hermes chat --role comit --no-agent -q "x" 2>err >out &&
	test_must_be_empty out &&
	echo "hermes: no role is called '"'comit'"' (did you mean '"'commit'"'?); the roles are commit, explain, shell: see '"'hermes roles'"'" >expect &&
	test_cmp expect err &&
	test_expect_code 2 hermes chat --role ../../etc/passwd --no-agent -q "x" 2>err &&
	grep "^hermes: no role is called '"'../../etc/passwd'"'; the roles are" err &&
	test_expect_code 2 hermes roles nosuch 2>err &&
	grep "^hermes: no role is called '"'nosuch'"'; the roles are" err &&
	test "$(session_count)" = 0
'

test_expect_success 'a role file with a mistake is named by its line; one others can write is refused; nothing saved' '
	role bad "+++
model = \"m\"
base_url = \"http://elsewhere/v1\"
+++
x" &&
	test_expect_code 4 hermes chat --role bad --no-agent -q "x" 2>err &&
	echo "hermes: $HERMES_HOME/roles/bad.md: line 3: a role sets only description, model, context, agent, agent_input, save, temperature, top_p, max_tokens, seed, stop, not '"'base_url'"'" >expect &&
	test_cmp expect err &&
	hermes roles >out 2>err &&
	grep "roles/bad.md: line 3: .*; left out$" err &&
	! grep "^bad" out &&
	role open "Be open." &&
	chmod 666 "$HERMES_HOME/roles/open.md" &&
	test_expect_code 4 hermes chat --role open --no-agent -q "x" 2>err &&
	grep "roles/open.md .* is writable by anyone; run .chmod 600" err &&
	test "$(session_count)" = 0
'

test_expect_success 'a role file that is no file (a directory, a FIFO) is named as the role file, not as config.toml; nothing saved' '
	mkdir -p "$HERMES_HOME/roles/dir.md" &&
	chmod 700 "$HERMES_HOME/roles/dir.md" &&
	test_expect_code 4 hermes chat --role dir --no-agent -q "x" 2>err &&
	echo "hermes: $HERMES_HOME/roles/dir.md is a directory, not a regular file; dir.md must be a file" >expect &&
	test_cmp expect err &&
	mkfifo "$HERMES_HOME/roles/pipe.md" &&
	test_expect_code 4 hermes chat --role pipe --no-agent -q "x" 2>err &&
	echo "hermes: $HERMES_HOME/roles/pipe.md is a FIFO, not a regular file; pipe.md must be a file" >expect &&
	test_cmp expect err &&
	test "$(session_count)" = 0
'

test_expect_success BASH 'bash completes role names after --role' '
	role terse "x" &&
	bash -c "
		eval \"\$(hermes completion bash)\"
		COMP_LINE=\"hermes chat --role te\" COMP_POINT=21
		COMP_WORDS=(hermes chat --role te) COMP_CWORD=3
		_hermes hermes te --role
		printf \"%s\n\" \"\${COMPREPLY[@]}\"
	" >actual &&
	echo terse >expect &&
	test_cmp expect actual
'

test_expect_success TMUX '/role: Tab completes it, it starts a session with the role, /role and /model say so' '
	role terse "+++
model = \"m-small\"
+++
Answer in one line." &&
	printf "#!/bin/sh\n%s\n" "$AGENT" >agent.sh && chmod +x agent.sh &&
	start_pane &&
	start_hermes "chat --agent ./agent.sh" &&
	wait_until ready "new session>" &&
	typed "/role te" && keys Tab &&
	wait_until ready "new session> /role terse" &&
	keys Enter &&
	wait_until on_screen "^Role: terse, model m-small. Answer in one line.$" &&
	type_line "/model" &&
	wait_until on_screen -F "model: m-small (the role'"'"'s: /role terse)" &&
	type_line "hello" &&
	wait_until on_screen "^model=m-small" &&
	wait_until ready "hello>" &&
	type_line "/role" &&
	wait_until on_screen "^role: terse (this session.s)$" &&
	wait_until on_screen "^Roles: commit, explain, shell, terse. /role NAME starts a session with one.$" &&
	type_line "/role comit" &&
	wait_until on_screen "no role is called .comit. (did you mean .commit.?)" &&
	keys C-d && hermes_exited 0 &&
	sent >actual &&
	printf "system: Answer in one line.\nuser: hello\n" >expect &&
	test_cmp expect actual &&
	id=$(only_id) &&
	header_of "$id" "v[\"role\"]" >actual &&
	echo terse >expect &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'on a narrow terminal the list wraps each description at words, under itself' '
	run_in_pty "stty cols 40; hermes roles" | tr -d "\r" >out &&
	cat >expect <<-\EOF &&
	commit   -  a git commit message for the
	            diff it is given: git diff
	            --staged | hermes chat
	            --role commit
	EOF
	head -n 4 out >actual &&
	test_cmp expect actual &&
	! grep -q ".\{41\}" out
'

test_done
