#!/bin/sh
test_description='chat -m, -s, --system-file, /model and /system: a model and a system prompt per session'
. "$(dirname "$0")/lib.sh"

# script(1) runs its command with $SHELL; keep that POSIX whatever the user has.
SHELL=/bin/sh
export SHELL
unset HERMES_MODEL

# An agent that keeps the request it was given and answers with the model
# of its environment.
AGENT='tee "$TRASH/request.json" >/dev/null; echo "model=$HERMES_MODEL"'

# The header of session $1 (everything before "messages"), from show --json.
header() {
	hermes sessions show --json "$1" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "{k: x for k, x in v.items() if k != 'messages'}"
}

# The model of session $1 ("None" when it has none).
model_of() {
	hermes sessions show --json "$1" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "str(v.get('model'))"
}

# "role: content" of each message of session $1.
roles() {
	hermes sessions show --json "$1" >"$TRASH/.show.json" &&
	json_get "$TRASH/.show.json" "[m['role'] + ': ' + m['content'] for m in v['messages']]"
}

test_expect_success 'without -m nothing is recorded: the header is as before' '
	hermes chat -c plain --create-if-missing -q hi --agent "$AGENT" -Q >out &&
	echo "model=" >expect &&
	test_cmp expect out &&
	echo None >expect &&
	model_of plain >actual &&
	test_cmp expect actual &&
	json_get request.json "v[\"model\"]" >actual &&
	echo >expect &&
	test_cmp expect actual
'

test_expect_success '-m is stored in the session, and chat -c continues with it' '
	hermes chat -c work --create-if-missing -m gpt-a -q one --agent "$AGENT" -Q >out &&
	echo "model=gpt-a" >expect &&
	test_cmp expect out &&
	json_get request.json "v[\"model\"]" >actual &&
	echo gpt-a >expect &&
	test_cmp expect actual &&
	model_of work >actual &&
	test_cmp expect actual &&
	mkdir -p "$HERMES_HOME" &&
	echo "model = \"from-config\"" >"$HERMES_HOME/config.toml" &&
	HERMES_MODEL=from-env hermes chat -c work -q two --agent "$AGENT" -Q >out &&
	echo "model=gpt-a" >expect &&
	test_cmp expect out &&
	json_get request.json "v[\"model\"]" >actual &&
	echo gpt-a >expect &&
	test_cmp expect actual
'

test_expect_success '-m on chat -c overrides the session model and is kept from then on' '
	hermes chat -c work --create-if-missing -m gpt-a -q one --agent "$AGENT" -Q &&
	hermes chat -c work -m gpt-b -q two --agent "$AGENT" -Q >out &&
	echo "model=gpt-b" >expect &&
	test_cmp expect out &&
	hermes chat -c work -q three --agent "$AGENT" -Q >out &&
	test_cmp expect out &&
	echo gpt-b >expect &&
	model_of work >actual &&
	test_cmp expect actual
'

test_expect_success 'the model of config.toml is recorded in a new session; changing it later leaves the session alone' '
	mkdir -p "$HERMES_HOME" &&
	echo "model = \"first-default\"" >"$HERMES_HOME/config.toml" &&
	hermes chat -c cfg --create-if-missing -q one --agent "$AGENT" -Q >out &&
	echo "model=first-default" >expect &&
	test_cmp expect out &&
	echo "model = \"second-default\"" >"$HERMES_HOME/config.toml" &&
	hermes chat -c cfg -q two --agent "$AGENT" -Q >out &&
	test_cmp expect out &&
	hermes chat -q other --agent "$AGENT" -Q >out &&
	echo "model=second-default" >expect &&
	test_cmp expect out
'

test_expect_success 'a session header before and after -m' '
	hermes chat -c hdr --create-if-missing -q one --agent "$AGENT" -Q &&
	header hdr >before &&
	hermes chat -c hdr -m gpt-4o-mini -q two --agent "$AGENT" -Q &&
	header hdr >after &&
	! grep "\"model\"" before &&
	grep "\"model\":\"gpt-4o-mini\"" after &&
	cat before after
'

test_expect_success 'sessions show, list --json, export and current --format show the model' '
	hermes chat -c shown --create-if-missing -m "org/m:7b" -q hi --agent "$AGENT" -Q &&
	hermes sessions show shown >out &&
	grep "^id: .*  model: org/m:7b$" out &&
	hermes sessions list --json >list.json &&
	json_get list.json "[s[\"model\"] for s in v if s[\"title\"] == \"shown\"]" >actual &&
	echo "org/m:7b" >expect &&
	test_cmp expect actual &&
	hermes sessions export shown -f json -o export.json &&
	json_get export.json "v[0][\"model\"] if isinstance(v, list) else v[\"model\"]" >actual &&
	test_cmp expect actual &&
	hermes sessions export shown -f markdown -o export.md &&
	grep "^- model: .org/m:7b.$" export.md &&
	hermes sessions current --format "{model}|{title}\n" >actual </dev/null &&
	echo "org/m:7b|shown" >expect &&
	test_cmp expect actual
'

test_expect_success 'a bad model name is a usage error and nothing is saved' '
	test_expect_code 2 hermes chat -m "a
b" -q hi --agent "$AGENT" 2>err &&
	grep "^hermes: -m: a model name is one line" err &&
	test_expect_code 2 hermes chat -m "" -q hi --agent "$AGENT" 2>err &&
	! ls "$HERMES_HOME/sessions/"*.json 2>/dev/null
'

test_expect_success 'a model is checked as a title is wherever it is typed: -m, config set, config.toml, $HERMES_MODEL' '
	nl="$(printf "a\nb")" &&
	for bad in "$nl" "$(printf "m\033]0;PWN\007")" "$(printf "gpt\342\200\2564")" "$(printf "%0201d" 0)"; do
		test_expect_code 2 hermes config set model "$bad" 2>err &&
		grep "^hermes: a model name " err &&
		! test -e "$HERMES_HOME/config.toml" &&
		test_expect_code 2 hermes chat -m "$bad" -q hi --agent "$AGENT" 2>err &&
		test_expect_code 2 env HERMES_MODEL="$bad" hermes chat -q hi --agent "$AGENT" 2>err &&
		grep "^hermes: \$HERMES_MODEL: a model name " err || return 1
	done &&
	! ls "$HERMES_HOME/sessions/"*.json 2>/dev/null &&
	mkdir -m 700 -p "$HERMES_HOME" &&
	cat >"$HERMES_HOME/config.toml" <<-\EOF &&
	model = "a\nb"
	EOF
	chmod 600 "$HERMES_HOME/config.toml" &&
	test_expect_code 4 hermes chat -q hi --agent "$AGENT" 2>err &&
	grep "config.toml: line 1: a model name is one line" err &&
	hermes config set model good &&
	echo "model = \"good\"" >expect &&
	test_cmp expect "$HERMES_HOME/config.toml"
'

test_expect_success '-s puts a system message first; the first user message still titles the session' '
	hermes chat -s "Be brief." -q "what is redis" --agent "$AGENT" -Q &&
	id=$(session_id_by_title "what is redis") &&
	roles "$id" >actual &&
	cat >expect <<-\EOF &&
	system: Be brief.
	user: what is redis
	assistant: model=
	EOF
	test_cmp expect actual &&
	json_get request.json "[m[\"role\"] + \": \" + m[\"content\"] for m in v[\"messages\"]]" >actual &&
	printf "system: Be brief.\nuser: what is redis\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--system-file reads the prompt from a file; -s on chat -c replaces the prompt' '
	printf "You are a pirate.\nSpeak so.\n" >prompt.txt &&
	hermes chat -c pirate --create-if-missing --system-file prompt.txt -q ahoy --agent "$AGENT" -Q &&
	hermes chat -c pirate -s "You are a parrot." -q again --agent "$AGENT" -Q &&
	roles pirate >actual &&
	cat >expect <<-\EOF &&
	system: You are a parrot.
	user: ahoy
	assistant: model=
	user: again
	assistant: model=
	EOF
	test_cmp expect actual &&
	test_expect_code 2 hermes chat --system-file no-such-file -q x --agent "$AGENT" 2>err &&
	grep "^hermes: --system-file: cannot read no-such-file" err &&
	test_expect_code 2 hermes chat -s "a" --system-file prompt.txt -q x 2>err
'

test_expect_success 'system in config.toml starts new sessions, not continued ones' '
	hermes chat -c old --create-if-missing -q first --agent "$AGENT" -Q &&
	mkdir -p "$HERMES_HOME" &&
	echo "system = \"Answer in French.\"" >"$HERMES_HOME/config.toml" &&
	hermes chat -c old -q second --agent "$AGENT" -Q &&
	hermes chat -c new --create-if-missing -q first --agent "$AGENT" -Q &&
	roles old >actual &&
	! grep "^system:" actual &&
	roles new | head -n 1 >actual &&
	echo "system: Answer in French." >expect &&
	test_cmp expect actual
'

test_expect_success SCRIPT '/model and /system in the interactive chat' '
	hermes chat -c talk --create-if-missing -q first --agent "$AGENT" -Q &&
	printf "/model\n/model gpt-y\n/model\nhello\n/system\n/system Be terse.\n/system\n" |
		run_in_pty "TERM=dumb hermes chat -c talk --agent '\''echo model=\$HERMES_MODEL'\''" >transcript &&
	tr -d "\r" <transcript >screen &&
	grep "^[^>]*> model: none set: the agent.s default$" screen &&
	grep "^[^>]*> model: gpt-y from the next message on, in this session$" screen &&
	grep "^[^>]*> model: gpt-y (chosen in this chat for this session)$" screen &&
	grep "^[^>]*> model=gpt-y$" screen &&
	grep "^[^>]*> (no system prompt)$" screen &&
	grep "^[^>]*> system: Be terse.$" screen &&
	echo gpt-y >expect &&
	model_of talk >actual &&
	test_cmp expect actual &&
	roles talk | head -n 1 >actual &&
	echo "system: Be terse." >expect &&
	test_cmp expect actual
'

test_expect_success SCRIPT 'a model chosen with /model stays with its session: /new and /continue take the other session'"'"'s own' '
	hermes chat -c notes --create-if-missing -q first --agent "$AGENT" -m gpt-notes -Q &&
	printf "/model gpt-x\n/new repro\n/model\n/model m2\nhi\n/new fresh\n/model\n/continue notes\n/model\n" |
		run_in_pty "TERM=dumb hermes chat -c notes --agent '"'"'echo model=\$HERMES_MODEL'"'"'" >transcript &&
	tr -d "\r" <transcript >screen &&
	grep -c "^[^>]*> model: none set: the agent.s default$" screen >count &&
	echo 2 >expect &&
	test_cmp expect count &&
	grep "^[^>]*> model=m2$" screen &&
	grep "^[^>]*> model: gpt-x (this session.s)$" screen &&
	echo gpt-x >expect &&
	model_of notes >actual &&
	test_cmp expect actual &&
	echo m2 >expect &&
	model_of repro >actual &&
	test_cmp expect actual
'

test_expect_success 'a session file with a model is read by the rules of format 1: the field is optional' '
	hermes chat -c fmt --create-if-missing -m m1 -q hi --no-agent -Q &&
	id=$(session_id_by_title fmt) &&
	sed "s/,\"model\":\"m1\"//" "$HERMES_HOME/sessions/$id.json" >stripped &&
	cp stripped "$HERMES_HOME/sessions/$id.json" &&
	echo None >expect &&
	model_of fmt >actual &&
	test_cmp expect actual
'

test_done
