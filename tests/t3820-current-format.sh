#!/bin/sh
test_description='sessions current --format TEMPLATE: for shell prompts and tmux status lines'
. "$(dirname "$0")/lib.sh"

test_expect_success 'the fields are filled in; backslash-n and backslash-t are a newline and a tab' '
	TMUX_PANE=%7 hermes chat --title "redis debug" -q hi --no-agent -Q &&
	id=$(session_id_by_title "redis debug") &&
	TMUX_PANE=%7 hermes sessions current --format "[{title}] {short_id} {reason}\t{id}\n" >out &&
	printf "[redis debug] %s breadcrumb\t%s\n" "$(echo "$id" | cut -c17-)" "$id" >expect &&
	test_cmp expect out &&
	TMUX_PANE=%7 hermes sessions current -f "{title}" >out &&
	printf "redis debug" >expect &&
	test_cmp expect out
'

test_expect_success 'without a breadcrumb: the session -c would continue, and why' '
	hermes chat --title "api design" -q hi --no-agent -Q &&
	hermes sessions current --format "{title}/{reason}" >out &&
	printf "api design/workspace" >expect &&
	test_cmp expect out
'

test_expect_success 'no session: prints nothing, says nothing, exits 1' '
	test_expect_code 1 hermes sessions current --format "{title}" >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err &&
	# A store it cannot read is no session either: a prompt stays quiet.
	mkdir -p "$HERMES_HOME" && echo junk >"$HERMES_HOME/sessions" &&
	test_expect_code 1 hermes sessions current --format "{title}" >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'

test_expect_success 'a title cannot write to the terminal; braces that name no field stay as typed' '
	mk_session 20261201_100000_aaaaaa "evil\u001b]0;pwned\u0007" user 1796100000 /tmp user hi &&
	hermes sessions current --format "{title} {not a field} {" >out &&
	printf "evil^[]0;pwned^G {not a field} {" >expect &&
	test_cmp expect out
'

test_expect_success 'the values go through the gate, the template as typed (a prompt'"'"'s colours); {title_tmux} doubles #' '
	mk_session 20261201_100000_aaaaaa "#[fg=red]x #{pane_id}\u202e" user 1796100000 /tmp user hi &&
	f=$HERMES_HOME/sessions/20261201_100000_aaaaaa.json &&
	sed "s/\"messages\"/\"model\":\"m\\\\u001b]0;PWN\\\\u0007\",\"messages\"/" "$f" >"$f.new" && mv "$f.new" "$f" &&
	grep -F "\"model\":\"m\\u001b]0;PWN\\u0007\"" "$f" &&
	hermes sessions current --format "$(printf "\033[32m"){title}|{title_tmux}|{model}$(printf "\033[0m")" >out &&
	printf "\033[32m#[fg=red]x #{pane_id}\\\\u{202e}|##[fg=red]x ##{pane_id}\\\\u{202e}|m^[]0;PWN^G\033[0m" >expect &&
	test_cmp expect out
'

# README's tmux status line, as README gives it.
readme_status_right() {
	sed -n "s/^set -g status-right '\(.*\)'\$/\1/p" "$ROOT/README.md"
}

test_expect_success TMUX 'README'"'"'s status line in a real tmux: a title with tmux markup is drawn as it is, not as styles and formats' '
	SHELL=/bin/sh && export SHELL &&
	hermes chat --title "#[fg=red,bg=yellow]styled #{pane_id}" -q hi --no-agent -Q &&
	short=$(session_id_by_title "#[fg=red,bg=yellow]styled #{pane_id}" | cut -c17-) &&
	recipe=$(readme_status_right) &&
	test -n "$recipe" &&
	start_tmux inner &&
	tm set -g status-interval 1 &&
	tm set -g status-right-length 80 &&
	tm set -g status-right "$recipe" &&
	start_tmux outer &&
	PANE=$(tm list-panes -F "#{pane_id}") &&
	type_line "tmux -S $TRASH/inner.sock -f /dev/null attach" &&
	wait_until on_screen "$short\$" &&
	tm capture-pane -e -p -t "$PANE" | grep "$short\$" >status &&
	grep -F "#[fg=red,bg=yellow]styled #{pane_id} $short" status &&
	! grep "$(printf "\033")\[31m" status &&
	! grep "$(printf "\033")\[43m" status
'

test_expect_success '--format with --json is a usage error' '
	test_expect_code 2 hermes sessions current --json --format "{id}" 2>err &&
	grep "^hermes: --json and -f/--format: one of them, once$" err
'

test_expect_success 'an unknown field in --format is a usage error naming the fields, even without a session' '
	test_expect_code 2 hermes sessions current --format "[{bogus}]" >out 2>err &&
	test_must_be_empty out &&
	grep "^hermes: --format: unknown field {bogus} (the fields: {title}, {title_tmux}, {id}, {short_id}, {model}, {reason})$" err &&
	test_expect_code 2 hermes sessions current --format "{tilte}" 2>err &&
	grep "did you mean {title}?" err &&
	hermes chat -c x --create-if-missing -q y --no-agent -Q &&
	hermes sessions current --format "{\"id\": \"{short_id}\"}" >out &&
	grep "^{\"id\": \"[0-9a-f]*\"}$" out
'

test_done
