#!/bin/sh
test_description='make install and make uninstall'
. "$(dirname "$0")/lib.sh"

# make install in the source tree, with the binary under test: CARGO=true
# keeps make from building (it is built), BIN says which binary to install.
# Tests install into $TRASH.pkg, beside their trash directory: the binary
# holds the words of its panic message, which the harness looks for in it.
make_install() {
	make -s -C "$ROOT" CARGO=true BIN="$HERMES_BIN" "$@"
}

# "MODE PATH" for every file under $1, sorted, paths relative to $1.
list_files() {
	(
		cd "$1" &&
		find . -type f | sort | while read -r path; do
			echo "$(file_mode "$path") $path"
		done
	)
}

# An install(1) that takes only the portable forms and logs each use.
cat >"$TRASH_ROOT/strict-install" <<\EOF
#!/bin/sh
echo "install $*" >>"${INSTALL_LOG:?}"
case $1 in
-d) ;;
-m) case $2 in [0-7][0-7][0-7]) ;; *) echo "strict-install: bad mode $2" >&2; exit 1 ;; esac ;;
*) echo "strict-install: only -d and -m are portable: $*" >&2; exit 1 ;;
esac
for arg; do
	case $arg in
	-[!dm]*) echo "strict-install: not portable: $arg" >&2; exit 1 ;;
	esac
done
exec install "$@"
EOF
chmod +x "$TRASH_ROOT/strict-install"
STRICT_INSTALL=$TRASH_ROOT/strict-install

test_expect_success 'make install puts exactly these files under DESTDIR' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" >out 2>&1 &&
	list_files "$pkg" >actual &&
	cat >expect <<-\EOF &&
	755 ./usr/local/bin/hermes
	644 ./usr/local/share/bash-completion/completions/hermes
	644 ./usr/local/share/fish/vendor_completions.d/hermes.fish
	755 ./usr/local/share/hermes/agents/llm
	755 ./usr/local/share/hermes/agents/ollama
	755 ./usr/local/share/hermes/agents/openai-compatible
	644 ./usr/local/share/hermes/installed-files
	644 ./usr/local/share/hermes/roles/commit.md
	644 ./usr/local/share/hermes/roles/explain.md
	644 ./usr/local/share/hermes/roles/shell.md
	644 ./usr/local/share/man/man1/hermes.1
	644 ./usr/local/share/zsh/site-functions/_hermes
	EOF
	test_cmp expect actual
'

test_expect_success 'the installed files are the binary, its completions, the page, the agents, the roles' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" >out 2>&1 &&
	cmp "$HERMES_BIN" "$pkg/usr/local/bin/hermes" &&
	"$pkg/usr/local/bin/hermes" --version >version &&
	grep "^hermes [0-9]" version &&
	hermes completion bash >expect &&
	test_cmp expect "$pkg/usr/local/share/bash-completion/completions/hermes" &&
	hermes completion zsh >expect &&
	test_cmp expect "$pkg/usr/local/share/zsh/site-functions/_hermes" &&
	hermes completion fish >expect &&
	test_cmp expect "$pkg/usr/local/share/fish/vendor_completions.d/hermes.fish" &&
	test_cmp "$ROOT/man/hermes.1" "$pkg/usr/local/share/man/man1/hermes.1" &&
	for agent in openai-compatible ollama llm; do
		cmp "$ROOT/contrib/agents/$agent" "$pkg/usr/local/share/hermes/agents/$agent" || return 1
	done &&
	for role in commit explain shell; do
		cmp "$ROOT/contrib/roles/$role.md" "$pkg/usr/local/share/hermes/roles/$role.md" || return 1
	done &&
	emulated_install "$pkg/usr/local/bin" &&
	HERMES_HOME=$TRASH/home "$pkg/usr/local/bin/hermes" roles >roles &&
	cut -f1,4 roles >actual &&
	cat >expect <<-EOF &&
	commit	$pkg/usr/local/share/hermes/roles/commit.md
	explain	$pkg/usr/local/share/hermes/roles/explain.md
	shell	$pkg/usr/local/share/hermes/roles/shell.md
	EOF
	test_cmp expect actual
'

test_expect_success 'PREFIX, BINDIR and MANDIR are honoured, and the page names them' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" PREFIX=/usr BINDIR=/usr/sbin MANDIR=/usr/man >out 2>&1 &&
	list_files "$pkg" | sed "s/^[0-7]* //" >actual &&
	cat >expect <<-\EOF &&
	./usr/man/man1/hermes.1
	./usr/sbin/hermes
	./usr/share/bash-completion/completions/hermes
	./usr/share/fish/vendor_completions.d/hermes.fish
	./usr/share/hermes/agents/llm
	./usr/share/hermes/agents/ollama
	./usr/share/hermes/agents/openai-compatible
	./usr/share/hermes/installed-files
	./usr/share/hermes/roles/commit.md
	./usr/share/hermes/roles/explain.md
	./usr/share/hermes/roles/shell.md
	./usr/share/zsh/site-functions/_hermes
	EOF
	test_cmp expect actual &&
	grep "^\.I /usr/share/hermes/agents/$" "$pkg/usr/man/man1/hermes.1" &&
	grep "/usr/sbin/hermes chat" "$pkg/usr/man/man1/hermes.1" &&
	! grep "/usr/local" "$pkg/usr/man/man1/hermes.1"
'

test_expect_success MANDOC 'the installed page is still lint-clean' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" PREFIX=/opt/hermes >out 2>&1 &&
	mandoc -Tlint "$pkg/opt/hermes/share/man/man1/hermes.1" >out 2>&1 &&
	test_must_be_empty out
'

test_expect_success 'with SOURCE_DATE_EPOCH set, the installed page carries its day; without, the page'"'"'s own' '
	pkg=$TRASH.pkg &&
	SOURCE_DATE_EPOCH=86400 make_install install DESTDIR="$pkg" >out 2>&1 &&
	grep "^\.TH HERMES 1 1970-01-02 " "$pkg/usr/local/share/man/man1/hermes.1" &&
	sed "/^\.TH /d" "$ROOT/man/hermes.1" >expect &&
	sed "/^\.TH /d" "$pkg/usr/local/share/man/man1/hermes.1" >actual &&
	test_cmp expect actual &&
	(unset SOURCE_DATE_EPOCH && make_install install DESTDIR="$pkg.2") >out 2>&1 &&
	grep "^\.TH " "$ROOT/man/hermes.1" >expect &&
	grep "^\.TH " "$pkg.2/usr/local/share/man/man1/hermes.1" >actual &&
	test_cmp expect actual
'

test_expect_success 'install uses only portable install -d and install -m' '
	pkg=$TRASH.pkg &&
	INSTALL_LOG=$TRASH/install.log &&
	export INSTALL_LOG &&
	make_install install DESTDIR="$pkg" INSTALL="$STRICT_INSTALL" >out 2>&1 &&
	grep "^install -d " install.log &&
	grep "^install -m 755 " install.log &&
	test "$(list_files "$pkg" | wc -l)" = 12
'

test_expect_success 'without cargo (sudo make install) it installs the binary built before' '
	pkg=$TRASH.pkg &&
	make -s -C "$ROOT" CARGO=no-such-cargo BIN="$HERMES_BIN" install DESTDIR="$pkg" >out 2>&1 &&
	grep "^no-such-cargo not found: installing the .* built before$" out &&
	cmp "$HERMES_BIN" "$pkg/usr/local/bin/hermes" &&
	test "$(list_files "$pkg" | wc -l)" = 12
'

test_expect_success 'make uninstall removes exactly what install put there' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" >out 2>&1 &&
	echo other >"$pkg/usr/local/bin/other-tool" &&
	echo other >"$pkg/usr/local/share/man/man1/other.1" &&
	make_install uninstall DESTDIR="$pkg" >out 2>&1 &&
	test_must_be_empty out &&
	list_files "$pkg" | sed "s/^[0-7]* //" >actual &&
	cat >expect <<-\EOF &&
	./usr/local/bin/other-tool
	./usr/local/share/man/man1/other.1
	EOF
	test_cmp expect actual &&
	! test -e "$pkg/usr/local/share/hermes"
'

test_expect_success 'after install and uninstall no file is left' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" PREFIX=/usr >out 2>&1 &&
	make_install uninstall DESTDIR="$pkg" PREFIX=/usr >out 2>&1 &&
	find "$pkg" -type f >left &&
	test_must_be_empty left &&
	! test -e "$pkg/usr/share/hermes"
'

test_expect_success 'install lists what it installed; uninstall with the PREFIX alone removes it, wherever BINDIR and MANDIR were' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" PREFIX=/usr BINDIR=/usr/sbin MANDIR=/usr/man >out 2>&1 &&
	cat >expect <<-\EOF &&
	/usr/sbin/hermes
	/usr/man/man1/hermes.1
	/usr/share/bash-completion/completions/hermes
	/usr/share/zsh/site-functions/_hermes
	/usr/share/fish/vendor_completions.d/hermes.fish
	/usr/share/hermes/agents/llm
	/usr/share/hermes/agents/ollama
	/usr/share/hermes/agents/openai-compatible
	/usr/share/hermes/roles/commit.md
	/usr/share/hermes/roles/explain.md
	/usr/share/hermes/roles/shell.md
	EOF
	test_cmp expect "$pkg/usr/share/hermes/installed-files" &&
	make_install uninstall DESTDIR="$pkg" PREFIX=/usr >out 2>&1 &&
	test_must_be_empty out &&
	find "$pkg" -type f >left &&
	test_must_be_empty left
'

test_expect_success 'uninstall without the PREFIX install was given says so, names the hermes on PATH, fails, removes nothing' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" PREFIX=/opt/hermes >out 2>&1 &&
	list_files "$pkg" >before &&
	test_expect_code 2 env PATH="$pkg/opt/hermes/bin:$PATH" \
		make -s -C "$ROOT" CARGO=true uninstall DESTDIR="$pkg" >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-EOF &&
	make uninstall: no hermes installed here: neither $pkg/usr/local/share/hermes/installed-files nor $pkg/usr/local/bin/hermes exists
	make uninstall: run it with the PREFIX (or DATADIR) that make install was given, e.g. make uninstall PREFIX=/usr
	make uninstall: the hermes on PATH is $pkg/opt/hermes/bin/hermes
	EOF
	grep "^make uninstall: " err >actual &&
	test_cmp expect actual &&
	list_files "$pkg" >after &&
	test_cmp before after
'

test_expect_success 'uninstall where nothing is installed says so and fails' '
	test_expect_code 2 make_install uninstall DESTDIR="$TRASH.empty" >out 2>err &&
	test_must_be_empty out &&
	grep "^make uninstall: no hermes installed here" err
'

test_expect_success 'uninstall removes only names hermes installs, whatever the list says' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" >out 2>&1 &&
	echo precious >"$pkg/usr/local/bin/other-tool" &&
	echo /usr/local/bin/other-tool >>"$pkg/usr/local/share/hermes/installed-files" &&
	make_install uninstall DESTDIR="$pkg" >out 2>err &&
	grep "^make uninstall: .* names /usr/local/bin/other-tool, not a file hermes installs; left alone$" err &&
	find "$pkg" -type f >left &&
	echo "$pkg/usr/local/bin/other-tool" >expect &&
	test_cmp expect left
'

test_expect_success 'uninstall of an install made before the list existed removes the files at their places' '
	pkg=$TRASH.pkg &&
	make_install install DESTDIR="$pkg" >out 2>&1 &&
	rm "$pkg/usr/local/share/hermes/installed-files" &&
	make_install uninstall DESTDIR="$pkg" >out 2>&1 &&
	find "$pkg" -type f >left &&
	test_must_be_empty left
'

test_expect_success 'install takes the binary from CARGO_TARGET_DIR when it is set' '
	pkg=$TRASH.pkg &&
	# Not the binary in target/release: a stand-in, to tell them apart.
	mkdir -p "$TRASH.target/release" &&
	printf "#!/bin/sh\necho \"completion for \$2\"\n" >"$TRASH.target/release/hermes" &&
	chmod 755 "$TRASH.target/release/hermes" &&
	CARGO_TARGET_DIR=$TRASH.target make -s -C "$ROOT" CARGO=true install DESTDIR="$pkg" >out 2>&1 &&
	cmp "$TRASH.target/release/hermes" "$pkg/usr/local/bin/hermes" &&
	echo "completion for bash" >expect &&
	test_cmp expect "$pkg/usr/local/share/bash-completion/completions/hermes"
'

test_done
