#!/bin/sh
test_description='a real sync engine: two Syncthing instances share one home'
. "$(dirname "$0")/lib.sh"

# Two Syncthing instances on 127.0.0.1, no discovery, relays or NAT, share
# one folder: home-a and home-b are the same $HERMES_HOME on two machines.
# Syncthing's file watcher is off; the test asks it to rescan (REST API,
# POST /rest/db/scan) right after hermes wrote, so that both sides change
# the session before either side sees the other's change: a real conflict.

test_lazy_prereq SYNCTHING 'command -v syncthing && command -v python3'

KEY=hermes-test-api-key

# rest PORT METHOD PATH: Syncthing's REST API.
rest() {
	python3 - "$@" <<-PY
	import sys, urllib.request
	port, method, path = sys.argv[1:4]
	request = urllib.request.Request("http://127.0.0.1:%s%s" % (port, path), method=method,
	                                 headers={"X-API-Key": "$KEY"})
	print(urllib.request.urlopen(request, timeout=10).read().decode())
	PY
}

# free_ports N: N TCP ports on 127.0.0.1 that nothing listens on now.
free_ports() {
	python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# st_config ME_PORT GUI_PORT FOLDER: a config.xml for one instance.
st_config() {
	cat <<-EOF
	<configuration version="36">
	  <folder id="hermes" label="hermes" path="$3" type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="false">
	    <device id="$ID_A"></device>
	    <device id="$ID_B"></device>
	    <minDiskFree unit="%">0</minDiskFree>
	    <maxConflicts>10</maxConflicts>
	  </folder>
	  <device id="$ID_A" name="a" compression="metadata"><address>tcp://127.0.0.1:$PORT_A</address></device>
	  <device id="$ID_B" name="b" compression="metadata"><address>tcp://127.0.0.1:$PORT_B</address></device>
	  <gui enabled="true" tls="false"><address>127.0.0.1:$2</address><apikey>$KEY</apikey></gui>
	  <options>
	    <listenAddress>tcp://127.0.0.1:$1</listenAddress>
	    <globalAnnounceEnabled>false</globalAnnounceEnabled>
	    <localAnnounceEnabled>false</localAnnounceEnabled>
	    <relaysEnabled>false</relaysEnabled>
	    <natEnabled>false</natEnabled>
	    <startBrowser>false</startBrowser>
	    <urAccepted>-1</urAccepted>
	    <crashReportingEnabled>false</crashReportingEnabled>
	    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
	    <reconnectionIntervalS>1</reconnectionIntervalS>
	    <minHomeDiskFree unit="%">0</minHomeDiskFree>
	  </options>
	</configuration>
	EOF
}

stop_syncthing() {
	for pid in "$TRASH"/st-*.pid; do
		test -f "$pid" && kill "$(cat "$pid")" 2>/dev/null
	done
}

# start_syncthing: both instances, connected; homes in $HOME_A and $HOME_B,
# GUI (REST) ports in $GUI_A and $GUI_B. What hermes writes only for this
# machine stays out of sync (see the README): the index cache, the lock
# file, breadcrumbs, temporary files.
start_syncthing() {
	set -- $(free_ports 4) &&
	PORT_A=$1 PORT_B=$2 GUI_A=$3 GUI_B=$4 &&
	HOME_A=$TRASH/home-a HOME_B=$TRASH/home-b &&
	for side in a b; do
		syncthing generate --home="$TRASH/st-$side" --no-default-folder >"$TRASH/gen-$side" 2>&1 &&
		mkdir -p "$TRASH/home-$side/.stfolder" &&
		printf "%s\n" index catalog catalog-state .lock terminal-sessions "(?d).*.tmp" >"$TRASH/home-$side/.stignore" || return 1
	done &&
	ID_A=$(sed -n "s/.*Device ID: //p" "$TRASH/gen-a") &&
	ID_B=$(sed -n "s/.*Device ID: //p" "$TRASH/gen-b") &&
	st_config $PORT_A $GUI_A "$HOME_A" >"$TRASH/st-a/config.xml" &&
	st_config $PORT_B $GUI_B "$HOME_B" >"$TRASH/st-b/config.xml" &&
	trap stop_syncthing EXIT &&
	trap "exit 130" INT TERM HUP &&
	for side in a b; do
		STNODEFAULTFOLDER=1 syncthing serve --home="$TRASH/st-$side" --no-browser --no-restart \
			--no-upgrade >"$TRASH/st-$side.log" 2>&1 &
		echo $! >"$TRASH/st-$side.pid"
	done &&
	poll_until -t 60 connected
}

connected() {
	rest $GUI_A GET /rest/system/connections 2>/dev/null | grep -q "\"connected\": true"
}

# rescan SIDE...: ask Syncthing on each side to look at the folder now.
rescan() {
	for side in "$@"; do
		if test $side = a; then port=$GUI_A; else port=$GUI_B; fi
		rest $port POST "/rest/db/scan?folder=hermes" >/dev/null || return 1
	done
}

# in_sync: both homes hold the same session files (names and contents).
in_sync() {
	test "$(cd "$HOME_A/sessions" && ls | xargs cksum 2>/dev/null)" = \
		"$(cd "$HOME_B/sessions" && ls | xargs cksum 2>/dev/null)"
}

has_copy() {
	ls "$HOME_A/sessions" | grep -q "\.sync-conflict-"
}

synced_with_copy() {
	in_sync && has_copy
}

now() {
	date +%s.%N | cut -c1-14
}

since() {
	awk "BEGIN { printf \"%.1f\", $(now) - $1 }"
}

# append_on_a: "from a" appended on side a, in the background ($appender).
append_on_a() {
	HERMES_HOME=$HOME_A hermes chat -c shared -q "from a" --no-agent -Q &
	appender=$!
}

contents() {
	HERMES_HOME=$1 hermes sessions show shared --json | tr "{" "\n" | sed -n "s/.*\"content\":\"\([^\"]*\)\".*/\1/p" | sort
}

test_expect_success SYNCTHING 'appends on two machines at once: a conflict copy on both, merged on each side, nothing lost' '
	t0=$(now) &&
	start_syncthing &&
	t_connected=$(since $t0) &&
	HERMES_HOME=$HOME_A hermes chat --title shared -q first --no-agent -Q &&
	rescan a &&
	poll_until -t 60 in_sync &&
	t_first=$(since $t0) &&
	# The same session, on both machines at once.
	append_on_a &&
	HERMES_HOME=$HOME_B hermes chat -c shared -q "from b" --no-agent -Q &&
	wait $appender &&
	t1=$(now) &&
	rescan a b &&
	poll_until -t 60 synced_with_copy &&
	t_conflict=$(since $t1) &&
	ls "$HOME_B/sessions" >files &&
	test_line_count = 2 files &&
	# Both sides see the copy and say what to run.
	HERMES_HOME=$HOME_B hermes sessions list >out 2>err &&
	grep "^hermes: warning: 1 conflict copy of a session (from a sync tool or an editor) is not listed; merge it with .hermes sessions merge.\$" err &&
	HERMES_HOME=$HOME_A hermes sessions merge --yes >merge-a 2>&1 &&
	grep "^merged [0-9_a-f]*\.sync-conflict-[0-9]*-[0-9]*-[A-Z0-9]*\.json into [0-9_a-f]* .shared.: 1 new message\$" merge-a &&
	t2=$(now) &&
	rescan a &&
	poll_until -t 60 in_sync &&
	t_merged=$(since $t2) &&
	HERMES_HOME=$HOME_B hermes sessions merge --yes >merge-b 2>&1 &&
	grep "^no conflict copies to merge\$" merge-b &&
	printf "%s\n" first "from a" "from b" >expect &&
	contents "$HOME_A" >a &&
	contents "$HOME_B" >b &&
	test_cmp expect a &&
	test_cmp expect b &&
	ls "$HOME_A/sessions" "$HOME_B/sessions" | grep -c "\.json\$" >count &&
	echo 2 >expect && test_cmp expect count &&
	figure "t2700: syncthing $(syncthing --version | cut -d" " -f2): connected after ${t_connected}s, first session synced by ${t_first}s; two appends at once: conflict copy on both sides ${t_conflict}s after the rescan; merged on a, synced to b ${t_merged}s after the rescan; total $(since $t0)s"
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
