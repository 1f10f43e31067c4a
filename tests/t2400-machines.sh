#!/bin/sh
test_description='one home, many machines: terminal keys name the machine'
. "$(dirname "$0")/lib.sh"

# Another machine is a private mount and UTS namespace (root only) with its
# own /etc/machine-id bind-mounted over the real one and its own host name:
# what two laptops, two login nodes or two containers sharing a home differ
# in. Tests here have no tty; TMUX_PANE=%1 is "the same pane" on each.
cat >"$TRASH_ROOT/on-machine" <<'SCRIPT'
#!/bin/sh
# on-machine ID HOST CMD...: run CMD as machine ID (its machine-id, or
# "none" for a machine without one) named HOST.
id=$1 host=$2
shift 2
if test "$id" = none; then
	: >"$TRASH/machine-id.$$"
else
	printf '%s\n' "$id" >"$TRASH/machine-id.$$"
fi &&
mount --bind "$TRASH/machine-id.$$" /etc/machine-id &&
hostname "$host" &&
"$@"
SCRIPT
chmod +x "$TRASH_ROOT/on-machine"

# on ID HOST CMD...: CMD on that machine, in pane %1.
on() {
	unshare -m -u "$TRASH_ROOT/on-machine" "$@"
}

crumb_files() {
	ls "$HERMES_HOME/terminal-sessions"
}

test_expect_success MACHINES 'the same pane on two machines keeps two breadcrumbs, each its own session' '
	A=1111111111111111aaaaaaaaaaaaaaaa B=2222222222222222bbbbbbbbbbbbbbbb &&
	on $A laptop env TMUX_PANE=%1 hermes chat -q "on the laptop" --no-agent -Q &&
	on $B server env TMUX_PANE=%1 hermes chat -q "on the server" --no-agent -Q &&
	crumb_files >files &&
	test_line_count = 2 files &&
	grep -E "^tmux_pane--1\.[0-9a-f]{12}\.json\$" files >keys &&
	test_line_count = 2 keys &&
	on $A laptop env TMUX_PANE=%1 hermes sessions current >a.current &&
	on $B server env TMUX_PANE=%1 hermes sessions current >b.current &&
	check_current a.current "$(session_id_by_title "on the laptop")" breadcrumb &&
	check_current b.current "$(session_id_by_title "on the server")" breadcrumb &&
	on $A laptop env TMUX_PANE=%1 hermes chat -c -q "laptop again" --no-agent -Q &&
	hermes sessions show "on the laptop" >shown &&
	grep "laptop again" shown &&
	! grep "laptop again" "$HERMES_HOME"/sessions/$(session_id_by_title "on the server").json
'

test_expect_success MACHINES 'containers that differ only in host name, or only in machine-id, are apart' '
	A=1111111111111111aaaaaaaaaaaaaaaa B=2222222222222222bbbbbbbbbbbbbbbb &&
	on $A box1 env TMUX_PANE=%1 hermes chat -q one --no-agent -Q &&
	on $A box2 env TMUX_PANE=%1 hermes chat -q two --no-agent -Q &&
	on $B box1 env TMUX_PANE=%1 hermes chat -q three --no-agent -Q &&
	on none box1 env TMUX_PANE=%1 hermes chat -q four --no-agent -Q &&
	crumb_files >files &&
	test_line_count = 4 files &&
	for pair in "$A box1 one" "$A box2 two" "$B box1 three" "none box1 four"; do
		set -- $pair &&
		on $1 $2 env TMUX_PANE=%1 hermes sessions current >current &&
		check_current current "$(session_id_by_title $3)" breadcrumb || return 1
	done
'

test_expect_success MACHINES 'a machine keeps its keys: the same machine-id and host name, another boot' '
	A=1111111111111111aaaaaaaaaaaaaaaa &&
	on $A laptop env TMUX_PANE=%1 hermes chat -q first --no-agent -Q &&
	crumb_files >before &&
	# A fresh namespace is as new as a reboot gets here: nothing carries over
	# but the two names.
	on $A laptop env TMUX_PANE=%1 hermes chat -c -q second --no-agent -Q &&
	crumb_files >after &&
	test_cmp before after &&
	hermes sessions show first >shown &&
	grep second shown
'

test_expect_success 'a breadcrumb of an older hermes (no machine in its key) works once, then is migrated' '
	in_pane() { env TMUX_PANE=%1 "$@"; } &&
	in_pane hermes chat -q mine --no-agent -Q &&
	hermes chat -q newer --no-agent -Q &&
	T=$HERMES_HOME/terminal-sessions &&
	mv "$T/tmux_pane--1.$MACHINE.json" "$T/tmux_pane--1.json" &&
	in_pane hermes sessions current >current &&
	check_current current "$(session_id_by_title mine)" breadcrumb &&
	in_pane hermes chat -c -q "still mine" --no-agent -Q &&
	hermes sessions show mine >shown &&
	grep "still mine" shown &&
	echo tmux_pane--1.$MACHINE.json >expect &&
	crumb_files >actual &&
	test_cmp expect actual
'

test_expect_success 'an old breadcrumb of another terminal (another leader) is not taken' '
	env TMUX_PANE=%1 hermes chat -q mine --no-agent -Q &&
	hermes chat -q newer --no-agent -Q &&
	T=$HERMES_HOME/terminal-sessions &&
	sed "s/\"leader\":\"[^\"]*\"/\"leader\":\"1@1\"/" "$T/tmux_pane--1.$MACHINE.json" >"$T/tmux_pane--1.json" &&
	rm "$T/tmux_pane--1.$MACHINE.json" &&
	env TMUX_PANE=%1 hermes sessions current >current &&
	check_current current "$(session_id_by_title newer)" workspace
'

test_done
