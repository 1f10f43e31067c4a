#!/bin/sh
test_description='every sessions verb finds NAME as chat -c does; every verb has --help'
. "$(dirname "$0")/lib.sh"

# Run each verb that takes a NAME on "$1" (a name that matches nothing) and
# check it fails like "hermes chat -c NAME": exit 1, no stdout, nothing
# changed in the store; chat says the man page text (expect), each verb its
# own one-line hint (expect.verb), which never offers --create-if-missing.
same_as_chat_c () {
	find "$HERMES_HOME" -type f ! -name .lock | sort >store.before &&
	test_expect_code 1 hermes chat -c "$1" -q x --no-agent -Q >out 2>chat.err &&
	test_must_be_empty out &&
	test_cmp expect chat.err &&
	for verb in show export delete rename; do
		case $verb in
		rename) set -- "$1" "new title" ;;
		delete) set -- "$1" --yes ;;
		*) set -- "$1" ;;
		esac
		test_expect_code 1 hermes sessions $verb "$@" >out 2>err &&
		test_must_be_empty out &&
		test_cmp expect.verb err || { echo "in: sessions $verb" >&2; return 1; }
	done &&
	find "$HERMES_HOME" -type f ! -name .lock | sort >store.after &&
	test_cmp store.before store.after
}

test_expect_success 'no match: exit 1, the man page text for chat -c, a hint that fits for every verb' '
	hermes chat --title "redis debug" -q x --no-agent -Q &&
	not_found "nosuch" >expect &&
	verb_not_found "nosuch" >expect.verb &&
	same_as_chat_c "nosuch"
'

test_expect_success 'a title that matches except for case: Did you mean, for every verb' '
	hermes chat --title "redis debug" -q x --no-agent -Q &&
	cat >expect <<-\EOF &&
	No session found matching '"'Redis Debug'"'.
	Did you mean '"'redis debug'"'?
	Use '"'hermes sessions list'"' to see available sessions, or pass
	--create-if-missing to start a new session with that title.
	EOF
	verb_not_found "Redis Debug" "redis debug" >expect.verb &&
	same_as_chat_c "Redis Debug"
'

test_expect_success 'a title is matched whole, not by prefix or substring: that is only suggested' '
	hermes chat --title "redis debug" -q x --no-agent -Q &&
	not_found "redis" "redis debug" >expect &&
	verb_not_found "redis" "redis debug" >expect.verb &&
	same_as_chat_c "redis" &&
	not_found "debug" "redis debug" >expect &&
	verb_not_found "debug" "redis debug" >expect.verb &&
	same_as_chat_c "debug"
'

test_expect_success 'an ID of the right shape that does not exist' '
	hermes chat --title a -q x --no-agent -Q &&
	not_found "20200101_000000_abcdef" >expect &&
	verb_not_found "20200101_000000_abcdef" >expect.verb &&
	same_as_chat_c "20200101_000000_abcdef"
'

test_expect_success 'a name that is a path never leaves the store' '
	hermes chat --title a -q x --no-agent -Q &&
	mkdir -p "$HERMES_HOME/elsewhere" &&
	cp "$HERMES_HOME"/sessions/*.json "$HERMES_HOME/elsewhere/20200101_000000_abcdef.json" &&
	not_found "../elsewhere/20200101_000000_abcdef" >expect &&
	verb_not_found "../elsewhere/20200101_000000_abcdef" >expect.verb &&
	same_as_chat_c "../elsewhere/20200101_000000_abcdef" &&
	not_found "../../../../etc/passwd" >expect &&
	verb_not_found "../../../../etc/passwd" >expect.verb &&
	same_as_chat_c "../../../../etc/passwd"
'

test_expect_success 'an empty name matches nothing, not an untitled session' '
	mkdir -p "$HERMES_HOME/sessions" &&
	echo "{\"format\":1,\"id\":\"20260101_090000_aaaaaa\",\"title\":\"\",\"messages\":[]}" \
		>"$HERMES_HOME/sessions/20260101_090000_aaaaaa.json" &&
	not_found "" >expect &&
	verb_not_found "" >expect.verb &&
	same_as_chat_c ""
'

test_expect_success 'the ID is tried before titles' '
	hermes chat --title first -q x --no-agent -Q &&
	first=$(session_id_by_title first) &&
	hermes chat --title second -q y --no-agent -Q &&
	second=$(session_id_by_title second) &&
	# hermes refuses such a title now; an older hermes, or an edit, made it.
	sed -i "s/\"title\":\"second\"/\"title\":\"$first\"/" "$HERMES_HOME/sessions/$second.json" &&
	hermes sessions show "$first" >out &&
	head -n 1 out >title &&
	echo first >expect &&
	test_cmp expect title &&
	hermes chat -c "$first" -q z --no-agent 2>err &&
	echo "session_id: $first" >expect &&
	test_cmp expect err
'

test_expect_success 'every verb finds the session chat -c finds, by ID and by title' '
	hermes chat --title "redis debug" -q x --no-agent -Q &&
	hermes chat --title other -q y --no-agent -Q &&
	id=$(session_id_by_title "redis debug") &&
	for name in "$id" "redis debug" "redis   debug"; do
		hermes chat -c "$name" -q more --no-agent 2>err &&
		echo "session_id: $id" >expect &&
		test_cmp expect err &&
		hermes sessions show "$name" >out &&
		grep "^id: $id " out &&
		hermes sessions export "$name" --format jsonl >out &&
		grep "^{\"format\":1,\"id\":\"$id\"," out &&
		test_line_count = 1 out || return 1
	done &&
	hermes sessions rename "redis   debug" "cache bug" 2>err &&
	echo "renamed $id to '"'cache bug'"'" >expect &&
	test_cmp expect err &&
	hermes sessions delete "cache bug" --yes 2>err &&
	echo "deleted $id '"'cache bug'"'" >expect &&
	test_cmp expect err
'

for verb in list show current export import rename delete prune stats; do
	test_expect_success "sessions $verb --help: usage on stdout, exit 0, touches no files" '
		hermes sessions '$verb' --help >out 2>err &&
		test_must_be_empty err &&
		head -n 1 out >first &&
		grep "^Usage: hermes sessions '$verb'\( \|$\)" first &&
		hermes sessions '$verb' -h >out.h &&
		test_cmp out out.h &&
		hermes help sessions '$verb' >out.help &&
		test_cmp out out.help &&
		! test -e "$HERMES_HOME"
	'
done

test_expect_success '--help wins even after other arguments' '
	hermes sessions delete nosuch --help >out &&
	grep "^Usage: hermes sessions delete" out &&
	hermes sessions prune --help >out &&
	grep "^Usage: hermes sessions prune" out
'

test_expect_success 'each verb help names the options the verb takes' '
	check () { verb=$1; shift; hermes sessions $verb --help >out &&
		for flag in "$@"; do grep -e "$flag" out >/dev/null ||
			{ echo "sessions $verb --help lacks $flag" >&2; return 1; }; done; } &&
	check list --limit --all --here --json &&
	check show "NAME|ID" --json &&
	check current --json &&
	check export "NAME|ID" --format json jsonl markdown -o &&
	check import FILE &&
	check rename "NAME|ID" TITLE "100 characters" &&
	check delete "NAME|ID" --yes &&
	check prune --older-than --dry-run --yes &&
	check stats --json
'

test_expect_success 'sessions --help lists every verb' '
	hermes sessions --help >out &&
	for verb in list show current export import rename delete prune stats; do
		grep "^  $verb" out || return 1
	done &&
	hermes sessions >bare &&
	test_cmp out bare
'

test_expect_success 'an unknown verb is a usage error naming the verbs' '
	test_expect_code 2 hermes sessions purge 2>err &&
	grep "^hermes: unknown sessions command '"'purge'"' (list, search, pick, show, current, export, import, rename, repair, delete, prune, stats, compact, merge, merge-file)" err
'

test_expect_success 'an option of another verb is refused' '
	test_expect_code 2 hermes sessions list --yes 2>err &&
	test_expect_code 2 hermes sessions show x --dry-run 2>err &&
	test_expect_code 2 hermes sessions stats --format json 2>err &&
	test_expect_code 2 hermes sessions current --here 2>err
'

test_lazy_prereq STRACE 'command -v strace && strace -f -o /dev/null true'

# bytes_read ID TRACE: how many bytes the traced processes read from
# session ID's file, through every descriptor opened on it.
bytes_read() {
	awk -v name="/$1.json\"" '
	{ sub(/^[0-9]+ +/, "") }
	/^open(at)?\(/ && index($0, name) { mine[$NF] = 1; next }
	/^(read|pread64)\(/ { fd = $0; sub(/^[a-z0-9]+\(/, "", fd); sub(/,.*/, "", fd); if (fd in mine) total += $NF }
	/^close\(/ { fd = $0; sub(/^close\(/, "", fd); sub(/\).*/, "", fd); delete mine[fd] }
	END { print total + 0 }' "$2"
}

# long_session ID TITLE: a session of 2,000 messages of 500 characters,
# times as hermes's clock writes them, written directly.
long_session() {
	mkdir -p "$HERMES_HOME/sessions" &&
	awk -v id="$1" -v title="$2" 'BEGIN {
		printf "{\"format\":1,\"id\":\"%s\",\"title\":\"%s\",\"title_source\":\"user\",\"created_at\":1767268800,\"updated_at\":1767268800,\"cwd\":\"/w\",\"message_count\":2000,\"preview\":\"m\",\"messages\":[", id, title
		for (i = 0; i < 2000; i++)
			printf "%s\n{\"role\":\"user\",\"content\":\"%0500d\",\"ts\":1767268800.1234567}", (i ? "," : ""), i
		print "\n]}"
	}' >"$HERMES_HOME/sessions/$1.json"
}

test_expect_success STRACE 'a lookup by title reads a header, not every message: an append reads the file once' '
	id=20260101_120000_aaaaaa &&
	long_session $id "long one" &&
	size=$(wc -c <"$HERMES_HOME/sessions/$id.json") &&
	strace -f -o trace -e trace=$(syscalls open),read,pread64,close hermes chat -c "long one" -q x --no-agent -Q &&
	read=$(bytes_read $id trace) &&
	test "$read" -ge "$size" &&
	test "$read" -le $((size + 65536)) &&
	test "$(hermes sessions show --json "long one" | json_get - "len(v[\"messages\"])")" = 2001
'

test_done
