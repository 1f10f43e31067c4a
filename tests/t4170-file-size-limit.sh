#!/bin/sh
test_description='a write past ulimit -f (SIGXFSZ, EFBIG): "File too large" naming the file, exit 4, the old file kept and no temporary left, for sessions, exports, imports and config.toml'
. "$(dirname "$0")/lib.sh"

# limited BLOCKS CMD...: CMD with its file size limit at BLOCKS (of 512
# bytes, as sh counts them), in a subshell so the test goes on unlimited.
limited() {
	(
		blocks=$1 &&
		shift &&
		ulimit -f "$blocks" &&
		exec "$@"
	)
}

# no_temporaries DIR: DIR holds no temporary file of hermes.
no_temporaries() {
	ls -A "$1" >listing &&
	! grep "\.tmp$" listing
}

# big_text BYTES: BYTES letters, no newline, in big.txt.
big_text() {
	head -c "$1" /dev/zero | tr "\0" a >big.txt
}

test_expect_success 'a message that would grow the session past the limit: exit 4, "File too large", the session as it was' '
	S=$(mk small) &&
	cp "$HERMES_HOME/sessions/$S.json" before.json &&
	big_text 200000 &&
	test_expect_code 4 limited 100 hermes chat -c small -q - --no-agent -Q <big.txt 2>err &&
	echo "hermes: $HERMES_HOME/sessions/$S.json: File too large" >expect &&
	test_cmp expect err &&
	cmp before.json "$HERMES_HOME/sessions/$S.json" &&
	no_temporaries "$HERMES_HOME/sessions"
'

test_expect_success 'export -o past the limit: exit 4, the file named, nothing left beside it' '
	big_text 200000 &&
	hermes chat --title big -q - --no-agent -Q <big.txt &&
	mkdir out &&
	test_expect_code 4 limited 100 hermes sessions export -o out/all.json --format json 2>err &&
	echo "hermes: out/all.json: File too large" >expect &&
	test_cmp expect err &&
	no_temporaries out &&
	test_must_be_empty listing
'

test_expect_success 'config set past the limit: exit 4, config.toml named, kept as it was, no temporary' '
	hermes config set model first &&
	cp "$HERMES_HOME/config.toml" before.toml &&
	# 8 blocks, not 1: qemu-user (make check-s390x) itself needs a file
	# of some hundred bytes as it starts, and dies of SIGXFSZ below that.
	big_text 8000 &&
	test_expect_code 4 limited 8 hermes config set system "$(cat big.txt)" 2>err &&
	echo "hermes: $HERMES_HOME/config.toml: File too large" >expect &&
	test_cmp expect err &&
	cmp before.toml "$HERMES_HOME/config.toml" &&
	no_temporaries "$HERMES_HOME"
'

test_expect_success 'import of a session past the limit: exit 4, nothing imported, no temporary' '
	big_text 200000 &&
	hermes chat --title big -q - --no-agent -Q <big.txt &&
	hermes sessions export --format jsonl >all.jsonl &&
	rm -r "$HERMES_HOME/sessions" &&
	mkdir -m 700 "$HERMES_HOME/sessions" &&
	test_expect_code 4 limited 100 hermes sessions import all.jsonl 2>err &&
	grep "^hermes: $HERMES_HOME/sessions/[0-9]*_[0-9]*_[0-9a-f]*\.json: File too large\$" err &&
	test_line_count = 1 err &&
	test "$(session_count)" = 0 &&
	no_temporaries "$HERMES_HOME/sessions"
'

test_done
