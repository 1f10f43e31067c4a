#!/bin/sh
test_description='images in a message: chat -f photo.png sends the image as a content part, kept once by its hash in images/, named by the message; show, export and import name it; delete and prune remove what no session names'
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SERVER 'test -n "$BASE_URL"'
start_fake_server 120

# sha256 FILE: its SHA-256 in hex.
sha256() {
	{ sha256sum "$1" 2>/dev/null || shasum -a 256 "$1"; } | cut -d" " -f1
}

# png FILE BYTES: a PNG's signature and IHDR chunk, then BYTES more
# bytes of filler (no server here decodes the picture).
png() {
	printf "\211PNG\r\n\032\n\000\000\000\015IHDR\000\000\000\001\000\000\000\001\010\006\000\000\000\037\025\304\211" >"$1" &&
	awk -v n="$2" "BEGIN { for (i = 0; i < n; i++) printf \"%c\", 65 + i % 26 }" >>"$1"
}

# vision ARGS: a one-shot turn of hermes's own request to the fake
# server's model that says which content parts it received.
vision() {
	OPENAI_BASE_URL=$BASE_URL hermes chat --agent openai-compatible -m vision "$@"
}

# old FILE...: made two minutes old, past the minute an image is kept
# for a turn still being saved.
old() {
	touch -t 202001010000 "$@"
}

test_expect_success SERVER '-f photo.png: the server gets the text and the image as a content part; the image is kept in images/ by its hash (0600), the session file names it and stays small' '
	png photo.png 100000 &&
	hash=$(sha256 photo.png) &&
	vision -f photo.png -q "what is this" >out 2>err &&
	cat >expect <<-EOF &&
	text: what is this
	image: image/png, 100033 bytes, sha256 $hash
	EOF
	test_cmp expect out &&
	grep -F "\"content\":[{\"type\":\"text\",\"text\":\"what is this\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," "$(last_request)" &&
	id=$(only_id) &&
	cmp photo.png "$HERMES_HOME/images/$hash.png" &&
	ls -l "$HERMES_HOME/images/$hash.png" | cut -c1-10 >actual &&
	echo "-rw-------" >expect &&
	test_cmp expect actual &&
	grep -F "{\"role\":\"user\",\"content\":\"what is this\",\"ts\":" "$HERMES_HOME/sessions/$id.json" >line &&
	grep -F ",\"images\":[{\"name\":\"photo.png\",\"file\":\"$hash.png\",\"bytes\":100033}]}" line &&
	test "$(wc -c <"$HERMES_HOME/sessions/$id.json")" -lt 2000 &&
	test_line_count = 1 line
'

test_expect_success SERVER 'the same image again is the same file; another is another; a message without images is sent as ever' '
	png photo.png 1000 &&
	hash=$(sha256 photo.png) &&
	vision -f photo.png -q "what is this" >out 2>err &&
	vision -c "what is this" -f photo.png -q "and this one?" >out 2>err &&
	ls "$HERMES_HOME/images" >actual &&
	echo "$hash.png" >expect &&
	test_cmp expect actual &&
	printf "\377\330\377\340\000\020JFIF\000" >cat.jpg &&
	vision -c "what is this" -f cat.jpg -q "and a cat" >out 2>err &&
	grep -F "image: image/jpeg, 11 bytes, sha256 $(sha256 cat.jpg)" out &&
	test "$(ls "$HERMES_HOME/images" | wc -l)" = 2 &&
	vision -c "what is this" -q "no picture now" >out 2>err &&
	grep -F "{\"role\":\"user\",\"content\":\"no picture now\"}]}" "$(last_request)" &&
	# The turns before still carry their images, every time.
	test "$(grep -o "data:image/png;base64," "$(last_request)" | wc -l)" = 2
'

test_expect_success 'an agent reading JSON gets the parts; a transcript names each image by its path' '
	png small.png 10 &&
	hash=$(sha256 small.png) &&
	hermes chat --agent "cat >request.json; echo seen" -f small.png -q "look" >out &&
	grep -F "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJQUJDREVGR0hJSg==\"}}]}" request.json &&
	echo "agent_input = \"transcript\"" >"$HERMES_HOME/config.toml" &&
	hermes chat -c look --agent "cat >transcript.txt; echo seen" -q "again" >out &&
	cat >expect <<-EOF &&
	user: look
	[image: small.png, $HERMES_HOME/images/$hash.png]

	assistant: seen

	user: again

	EOF
	test_cmp expect transcript.txt &&
	rm "$HERMES_HOME/config.toml" &&
	# An image gone from the store is named in a text part instead.
	rm "$HERMES_HOME/images/$hash.png" &&
	hermes chat -c look --agent "cat >request.json; echo seen" -q "once more" >out &&
	grep -F "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},{\"type\":\"text\",\"text\":\"[image: small.png, missing from the store" request.json &&
	! grep -F "image_url" request.json
'

test_expect_success 'show and the markdown export name the image; json carries the field, import keeps it' '
	png small.png 10 &&
	hash=$(sha256 small.png) &&
	hermes chat --agent "cat >/dev/null; echo seen" -f small.png -q "look" >out &&
	hermes sessions show look >shown &&
	grep -x "\[image: small.png, 43 bytes, images/$hash.png\]" shown &&
	hermes sessions export look --format markdown >md &&
	grep -x "\[image: small.png, 43 bytes, images/$hash.png\]" md &&
	hermes sessions export look --format jsonl >look.jsonl &&
	grep -F "\"images\":[{\"name\":\"small.png\",\"file\":\"$hash.png\",\"bytes\":43}]" look.jsonl &&
	HERMES_HOME=$TRASH/other hermes sessions import look.jsonl 2>err &&
	grep -F "\"images\":[{\"name\":\"small.png\",\"file\":\"$hash.png\",\"bytes\":43}]" "$TRASH"/other/sessions/*.json
'

# two_sessions: "first" with photo.png and cat.jpg, "second" with
# photo.png and small.png; photo.png and cat.jpg made old.
two_sessions() {
	png photo.png 1000 && png small.png 10 &&
	printf "\377\330\377\340\000\020JFIF\000" >cat.jpg &&
	photo=$(sha256 photo.png).png cat=$(sha256 cat.jpg).jpg small=$(sha256 small.png).png &&
	hermes chat --agent "cat >/dev/null; echo seen" -f photo.png -f cat.jpg -q "first" >out &&
	hermes chat --agent "cat >/dev/null; echo seen" -f photo.png -f small.png -q "second" >out &&
	old "$HERMES_HOME/images/$photo" "$HERMES_HOME/images/$cat"
}

test_expect_success 'delete removes the images no session names, keeps those named and those under a minute old' '
	two_sessions &&
	hermes sessions delete --yes first 2>err &&
	grep -x "removed 1 image no session names" err &&
	ls "$HERMES_HOME/images" >actual &&
	printf "%s\n" "$photo" "$small" | sort >expect &&
	test_cmp expect actual &&
	hermes sessions delete --yes second 2>err &&
	grep -x "removed 1 image no session names" err &&
	ls "$HERMES_HOME/images" >actual &&
	echo "$small" >expect &&
	test_cmp expect actual
'

test_expect_success 'prune: --dry-run lists the images it would remove; prune removes them and keeps the rest' '
	two_sessions &&
	rm "$HERMES_HOME/sessions/$(session_id_by_title first).json" &&
	hermes sessions prune --older-than 1000 --dry-run >out 2>err &&
	echo "would remove $HERMES_HOME/images/$cat" >expect &&
	test_cmp expect out &&
	grep -x "dry run: 1 image no session names would be removed" err &&
	hermes sessions prune --older-than 1000 --yes 2>err &&
	grep -x "removed 1 image no session names" err &&
	ls "$HERMES_HOME/images" >actual &&
	printf "%s\n" "$photo" "$small" | sort >expect &&
	test_cmp expect actual &&
	# The session that named them pruned, the images go with it (but
	# the one under a minute old).
	hermes sessions prune --older-than 0 --dry-run >out &&
	grep -x "would remove $HERMES_HOME/images/$photo" out &&
	! grep "$small" out &&
	hermes sessions prune --older-than 0 --yes 2>err &&
	ls "$HERMES_HOME/images" >actual &&
	echo "$small" >expect &&
	test_cmp expect actual
'

# ready PROMPT: the pane's last non-blank line is PROMPT (the editor waits).
ready() {
	test "$(tm capture-pane -p -t "$PANE" | grep -v "^$" | tail -n 1 | sed "s/ *$//")" = "$1"
}

test_expect_success TMUX '/file photo.png in the chat: said attached, sent with the next message as an image' '
	png photo.png 10 &&
	hash=$(sha256 photo.png) &&
	printf "#!/bin/sh\ncat >/dev/null\necho seen\n" >seen-agent && chmod +x seen-agent &&
	start_pane &&
	start_hermes "chat --agent $TRASH/seen-agent" &&
	wait_until ready "new session>" &&
	type_line "/file photo.png" &&
	wait_until on_screen "^Attached to the next message: photo.png (a PNG image, 43 bytes).$" &&
	type_line "what is this" &&
	wait_until on_screen "^seen" &&
	wait_until ready "what is this>" &&
	keys C-d && hermes_exited 0 &&
	grep -F "\"content\":\"what is this\",\"ts\":" "$HERMES_HOME"/sessions/*.json >line &&
	grep -F ",\"images\":[{\"name\":\"photo.png\",\"file\":\"$hash.png\",\"bytes\":43}]}" line &&
	cmp photo.png "$HERMES_HOME/images/$hash.png"
'

test_expect_success 'what is not an image nor text is refused, so is an image cut short or too large; nothing saved' '
	printf "%%PDF-1.7\n\000" >doc.pdf &&
	test_expect_code 2 hermes chat --no-agent -f doc.pdf -q "look" 2>err &&
	grep -x "hermes: -f doc.pdf: not a text file (a PDF document); a message holds text files and PNG, JPEG, GIF or WebP images only, nothing was saved" err &&
	printf "\211PNG\r\n\032\n\000\000\000\015IHDR" >cut.png &&
	test_expect_code 2 hermes chat --no-agent -f cut.png -q "look" 2>err &&
	grep -x "hermes: -f cut.png: a PNG image cut short (its header is incomplete); nothing was saved" err &&
	png big.png 20971520 &&
	test_expect_code 2 hermes chat --no-agent -f big.png -q "look" 2>err &&
	grep "^hermes: -f big.png: a PNG image larger than an image may be (20 MiB); nothing was saved$" err &&
	test "$(session_count)" = 0 &&
	! test -d "$HERMES_HOME/images"
'

test_done
