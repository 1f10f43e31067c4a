#!/bin/sh
test_description='typos get a "did you mean", ls and rm are aliases, and each verb says how to find a session it cannot'
. "$(dirname "$0")/lib.sh"

test_expect_success 'an unknown command suggests the nearest one, exit 2' '
	test_expect_code 2 hermes sesions list >out 2>err &&
	test_must_be_empty out &&
	head -1 err >first &&
	echo "hermes: unknown command '"'sesions'"'; did you mean '"'sessions'"'? (commands: chat, sessions, config, roles, models, completion, help)" >expect &&
	test_cmp expect first
'

test_expect_success 'a word far from every command is a message (hermes TEXT...), not an error' '
	hermes frobnicate --no-agent 2>err &&
	grep "^session_id: " err &&
	test "$(session_count)" = 1
'

test_expect_success 'an unknown sessions command suggests the nearest verb, exit 2' '
	test_expect_code 2 hermes sessions serach x 2>err &&
	head -1 err | grep "^hermes: unknown sessions command '"'serach'"'; did you mean '"'search'"'? (list, search, " &&
	test_expect_code 2 hermes sessions lsit 2>err &&
	head -1 err | grep "did you mean '"'list'"'?"
'

test_expect_success 'a word people try for a verb suggests the verb: find and grep are search, mv is rename' '
	test_expect_code 2 hermes sessions find redis >out 2>err &&
	test_must_be_empty out &&
	head -1 err | grep "^hermes: unknown sessions command '"'find'"'; did you mean '"'search'"'? (list, search, " &&
	test_expect_code 2 hermes sessions grep redis 2>err &&
	head -1 err | grep "did you mean '"'search'"'?" &&
	test_expect_code 2 hermes sessions mv a b 2>err &&
	head -1 err | grep "did you mean '"'rename'"'?"
'

test_expect_success 'help of a mistyped command or verb suggests the nearest, exit 2' '
	test_expect_code 2 hermes help sesions >out 2>err &&
	test_must_be_empty out &&
	head -1 err >first &&
	echo "hermes: help: no such command '"'sesions'"'; did you mean '"'sessions'"'?" >expect &&
	test_cmp expect first &&
	test_expect_code 2 hermes help sessions lsit 2>err &&
	head -1 err >first &&
	echo "hermes: help: no such command '"'sessions lsit'"'; did you mean '"'list'"'?" >expect &&
	test_cmp expect first &&
	test_expect_code 2 hermes help serach 2>err &&
	head -1 err | grep "did you mean '"'search'"'?"
'

test_expect_success 'a missing argument that is one of some words is named by them: completion' '
	test_expect_code 2 hermes completion >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	hermes: completion: missing bash, zsh or fish; see '"'hermes completion --help'"'
	EOF
	test_cmp expect err
'

test_expect_success 'an unknown option suggests the nearest option of that command, exit 2' '
	test_expect_code 2 hermes sessions list --jsn 2>err &&
	head -1 err >first &&
	echo "hermes: invalid option '"'--jsn'"'; did you mean '"'--json'"'?" >expect &&
	test_cmp expect first &&
	test_expect_code 2 hermes chat --titel x 2>err &&
	head -1 err | grep "did you mean '"'--title'"'?" &&
	test_expect_code 2 hermes --quite -q x 2>err &&
	head -1 err | grep "did you mean '"'--quiet'"'?" &&
	test_expect_code 2 hermes sessions delete --yse x 2>err &&
	head -1 err | grep "did you mean '"'--yes'"'?" &&
	test_expect_code 2 hermes sessions show --limit 3 x 2>err &&
	head -1 err >first &&
	echo "hermes: invalid option '"'--limit'"'" >expect &&
	test_cmp expect first
'

test_expect_success 'ls is list and rm is delete' '
	hermes chat --title alpha -q one --no-agent -Q &&
	hermes chat --title beta -q two --no-agent -Q &&
	hermes sessions list >list &&
	hermes sessions ls >ls &&
	test_cmp list ls &&
	hermes sessions ls --json >ls.json &&
	json_valid ls.json &&
	hermes sessions rm alpha --yes 2>err &&
	grep "^deleted .* '"'alpha'"'" err &&
	hermes sessions ls >after &&
	test_line_count = 1 after &&
	hermes sessions ls --help >help &&
	head -1 help | grep "^Usage: hermes sessions list"
'

test_expect_success 'show, export, delete and rename point to list and search, never --create-if-missing' '
	hermes chat --title "redis debug" -q x --no-agent -Q &&
	for verb in show export delete rename; do
		case $verb in
		rename) set -- "api v2" "new title" ;;
		delete) set -- "api v2" --yes ;;
		*) set -- "api v2" ;;
		esac
		test_expect_code 1 hermes sessions $verb "$@" 2>err &&
		verb_not_found "api v2" >expect &&
		test_cmp expect err &&
		! grep create-if-missing err || return 1
	done
'

test_expect_success 'a rename says the same thing in chat and in sessions rename' '
	hermes chat --title old -q x --no-agent -Q &&
	id=$(session_id_by_title old) &&
	hermes sessions rename old newer 2>err &&
	echo "renamed $id to '"'newer'"'" >expect &&
	test_cmp expect err
'

test_done
