#!/bin/sh
test_description='mutated session and breadcrumb files, fed to the binary: never a crash, never a bad write'
. "$(dirname "$0")/lib.sh"

# A small mutational fuzzer over the built binary, run on every make check.
# The in-process fuzzer (fuzz/, cargo fuzz) goes much deeper; this one
# checks the whole path: scan, load, append, write back, print.
#   HERMES_FUZZ_CASES=5000 HERMES_FUZZ_SEED=42 sh tests/t4090-mutated-files.sh
cases=${HERMES_FUZZ_CASES:-150}
seed=${HERMES_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d " ")}

test_expect_success PYTHON3 "mutated session files: show/append/list exit 0 or 4, output and files stay valid (seed $seed)" '
	hermes chat -q "hello \"world\" \\ é ☃" --agent "echo reply" -Q >/dev/null &&
	hermes chat -c -q "second
line	tab" --no-agent -Q &&
	mkdir seeds &&
	cp "$HERMES_HOME"/sessions/*.json seeds/ &&
	{ cp "$ROOT"/fuzz/seeds/session_file/*.json seeds/ 2>/dev/null || :; } &&
	python3 - "$HERMES_BIN" "$HERMES_HOME" seeds "$cases" "$seed" >fuzz.out 2>fuzz.log <<-\EOF || : >failed
	import json, os, random, re, subprocess, sys
	binary, home, seeds, cases, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
	rng = random.Random(seed)
	corpus = [open(os.path.join(seeds, n), "rb").read() for n in sorted(os.listdir(seeds))]
	tokens = [b"1e999", b"-1e999", b"\\ud800", b"\\udc00\\ud800", b"\xff", b"\xc3", b"\x00",
	          b"[" * 100, b"]" * 3, b"{}", b"null", b"\"messages\":", b",\"messages\":[", b"18446744073709551616",
	          b"-1", b"1.5", b"\"format\":2", b"\"format\":1", b"\\u0000", b"\"", b"\\", b"\n", b"]}"]
	def mutate(data):
	    data = bytearray(data)
	    for _ in range(rng.randint(1, 4)):
	        op = rng.randrange(6)
	        at = rng.randint(0, len(data))
	        if op == 0 and data:
	            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
	        elif op == 1:
	            data[at:at] = rng.choice(tokens)
	        elif op == 2:
	            del data[at:at + rng.randint(1, 16)]
	        elif op == 3:
	            data = data[:at]
	        elif op == 4:
	            other = rng.choice(corpus)
	            j = rng.randint(0, len(other))
	            data = data[:at] + other[j:]
	        else:
	            data[at:at] = bytes([rng.randrange(256)])
	    return bytes(data)
	def run(*args, env=None):
	    p = subprocess.run([binary, *args], capture_output=True, env=env)
	    sys.stderr.buffer.write(p.stderr)
	    return p
	bad = []
	counts = {}
	sessions = os.path.join(home, "sessions")
	for n in range(cases):
	    sid = "20200101_000000_%06x" % n
	    path = os.path.join(sessions, sid + ".json")
	    data = rng.choice(corpus)
	    # Most cases claim the ID of their file name, so they get past that
	    # check into the deeper ones; a few keep the seed ID.
	    if rng.random() < 0.9:
	        data = re.sub(rb"\"id\":\"[^\"]*\"", b"\"id\":\"" + sid.encode() + b"\"", data, count=1)
	    data = mutate(data)
	    with open(path, "wb") as f:
	        f.write(data)
	    show = run("sessions", "show", sid, "--json")
	    counts[("show", show.returncode)] = counts.get(("show", show.returncode), 0) + 1
	    if show.returncode not in (0, 4):
	        bad.append("show %s: exit %d" % (sid, show.returncode))
	    if show.returncode == 0:
	        try:
	            json.loads(show.stdout.decode("utf-8"))
	        except Exception as e:
	            bad.append("show %s printed invalid JSON: %s" % (sid, e))
	    app = run("chat", "-r", sid, "-q", "appended", "--no-agent", "-Q")
	    counts[("append", app.returncode)] = counts.get(("append", app.returncode), 0) + 1
	    after = open(path, "rb").read()
	    if app.returncode == 0 and show.returncode == 4:
	        # Known: append copies old messages as bytes and checks only
	        # that they are JSON, so a message of the wrong shape (say
	        # "role":5) is kept and appended to, not refused. Counted;
	        # the append must still leave valid JSON (checked below).
	        counts[("append-to-unshowable", 0)] = counts.get(("append-to-unshowable", 0), 0) + 1
	    if app.returncode == 0:
	        try:
	            doc = json.loads(after.decode("utf-8"))
	            assert doc["messages"][-1]["content"] == "appended"
	        except Exception as e:
	            bad.append("append to %s left an unreadable file: %r" % (sid, e))
	    elif app.returncode == 4:
	        if after != data:
	            bad.append("append to %s failed yet changed the file" % sid)
	    else:
	        bad.append("append %s: exit %d" % (sid, app.returncode))
	    if n % 25 == 0:
	        lst = run("sessions", "list", "--all", "--json")
	        if lst.returncode != 0:
	            bad.append("list: exit %d" % lst.returncode)
	        json.loads(lst.stdout.decode("utf-8"))
	    if rng.random() < 0.5:
	        os.unlink(path)
	lst = run("sessions", "list", "--all")
	if lst.returncode != 0:
	    bad.append("final list: exit %d" % lst.returncode)
	print(" ".join("%s:%d=%d" % (k[0], k[1], v) for k, v in sorted(counts.items())))
	for b in bad:
	    print("BAD", b)
	sys.exit(1 if bad else 0)
	EOF
	cat fuzz.out &&
	figure "t4090: $cases mutated session files (seed $seed): $(cat fuzz.out | head -1); problems: $(grep -c ^BAD fuzz.out)" &&
	! test -e failed &&
	! grep "internal error\|panicked" fuzz.log
'

test_expect_success PYTHON3 "mutated breadcrumbs: -c and current never crash (seed $seed)" '
	hermes chat -q one --no-agent -Q &&
	TMUX_PANE=%1 hermes chat -q two --no-agent -Q &&
	crumb=$HERMES_HOME/terminal-sessions/tmux_pane--1.$MACHINE.json &&
	cp "$crumb" seed.json &&
	python3 - "$HERMES_BIN" "$crumb" seed.json "$cases" "$seed" >fuzz.out 2>fuzz.log <<-\EOF || : >failed
	import os, random, subprocess, sys
	binary, crumb, seedfile, cases, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
	rng = random.Random(seed)
	base = open(seedfile, "rb").read()
	tokens = [b"1e999", b"\\ud800", b"\xff", b"\x00", b"[" * 100, b"\"", b"\\", b"null", b"20200101_000000_000000", b"../x"]
	env = dict(os.environ, TMUX_PANE="%1")
	bad = []
	for n in range(cases):
	    data = bytearray(base)
	    for _ in range(rng.randint(1, 3)):
	        at = rng.randint(0, len(data))
	        op = rng.randrange(4)
	        if op == 0 and data:
	            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
	        elif op == 1:
	            data[at:at] = rng.choice(tokens)
	        elif op == 2:
	            del data[at:at + rng.randint(1, 8)]
	        else:
	            data = data[:at]
	    with open(crumb, "wb") as f:
	        f.write(data)
	    for args in (["sessions", "current"], ["sessions", "list"]):
	        p = subprocess.run([binary, *args], capture_output=True, env=env)
	        sys.stderr.buffer.write(p.stderr)
	        if p.returncode != 0:
	            bad.append("%s: exit %d on %r" % (" ".join(args), p.returncode, bytes(data)))
	    p = subprocess.run([binary, "chat", "-c", "-q", "x%d" % n, "--no-agent", "-Q"], capture_output=True, env=env)
	    sys.stderr.buffer.write(p.stderr)
	    if p.returncode != 0:
	        bad.append("chat -c: exit %d on %r" % (p.returncode, bytes(data)))
	print("%d breadcrumbs, %d problems" % (cases, len(bad)))
	for b in bad:
	    print("BAD", b)
	sys.exit(1 if bad else 0)
	EOF
	cat fuzz.out &&
	figure "t4090: $(head -1 fuzz.out) (current, list, chat -c on each)" &&
	! test -e failed &&
	! grep "internal error\|panicked" fuzz.log
'

cat "$TRASH_ROOT/figures" 2>/dev/null
test_done
