#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl add-context: the call-site address and the CPU number recorded
# with every event of a channel. Threads pinned to each CPU emit from two
# functions; every event's cpu_id must be its thread's CPU and its ip must
# lie in the function that emitted it. A channel without context in the
# same trace (another stream class) and a session whose default channel
# gets only cpu_id are read by babeltrace2 with no complaint, and by
# trace-read, which names the function of each address (from the state
# dump recorded in the other channel). Adding
# context after the session started, or an unknown field, is refused.
. "$(dirname "$0")/lib.sh"
need_babeltrace
APP=$B/tests/apps/context-app
BIN=$B/tests/apps/.libs/context-app
[ -f "$BIN" ] || BIN=$APP
N=500
start_daemons
"$TRACECTL" create s --output "$WORK/s" >/dev/null
"$TRACECTL" enable-channel -s s plain >/dev/null
"$TRACECTL" enable-channel -s s withctx >/dev/null
"$TRACECTL" enable-event -s s -c plain 'shmtrace_test:ctx' 'shmtrace_statedump:*' >/dev/null
"$TRACECTL" enable-event -s s -c withctx 'shmtrace_test:ctx' >/dev/null
"$TRACECTL" add-context -s s -c withctx -t ip -t cpu_id >/dev/null || fail "add-context refused"
st=0
"$TRACECTL" add-context -s s -t bogus >/dev/null 2>"$WORK/err" || st=$?
[ "$st" -eq 2 ] && grep -q "no context field 'bogus' (known: ip, cpu_id)" "$WORK/err" ||
	fail "an unknown context field was accepted: $(cat "$WORK/err")"
"$TRACECTL" add-context --list | grep -q "^cpu_id " || fail "add-context --list"
status_json "$WORK/st.json" s || fail "status failed"
[ "$(jget "$WORK/st.json" sessions s channels withctx context)" = '["ip","cpu_id"]' ] ||
	fail "status does not show the context: $(cat "$WORK/st.json")"
# the default channel, made by add-context, with the CPU only
"$TRACECTL" create c2 --output "$WORK/c2" >/dev/null
"$TRACECTL" add-context -s c2 -t cpu_id >/dev/null || fail "add-context without a channel"
"$TRACECTL" enable-event -s c2 'shmtrace_test:*' >/dev/null
# filters decided in the traced thread on its context: the CPU (a bare
# name that is no field of the event, or $ctx.), the thread and process
"$TRACECTL" create c4 --output "$WORK/c4" >/dev/null
"$TRACECTL" enable-event -s c4 --filter 'cpu_id == 0 && site == 1' 'shmtrace_test:ctx' >/dev/null
"$TRACECTL" create c5 --output "$WORK/c5" >/dev/null
"$TRACECTL" enable-event -s c5 --filter '$ctx.vtid > 0 && $ctx.vpid > 0 && ($ctx.cpu_id < 0 || cpu < 0)' \
	'shmtrace_test:ctx' >/dev/null
for s in s c2 c4 c5; do "$TRACECTL" start $s >/dev/null; done
"$APP" -n $N >"$WORK/app.out" || fail "context-app failed"
st=0
ctl_json "$WORK/err.json" add-context -s s -t ip 2>/dev/null || st=$?
[ "$st" -eq 1 ] && [ "$(error_code "$WORK/err.json")" = started ] ||
	fail "add-context after start was accepted: $(cat "$WORK/err.json")"
# refused without side effect: no default channel made for it
"$TRACECTL" create c3 --output "$WORK/c3" >/dev/null
"$TRACECTL" start c3 >/dev/null
"$TRACECTL" add-context -s c3 -t cpu_id >/dev/null 2>&1 && fail "add-context after start (c3)"
status_json "$WORK/c3.json" c3 || fail "status c3 failed"
[ "$(jget "$WORK/c3.json" sessions c3 channel0_made)" = false ] &&
	[ "$(jget "$WORK/c3.json" sessions c3 channels '#')" = 0 ] ||
	fail "a refused add-context made a channel"
for s in s c2 c3 c4 c5; do "$TRACECTL" stop $s >/dev/null; "$TRACECTL" destroy $s >/dev/null; done

nth=$(python3 -c 'import os; print(min(4, len(os.sched_getaffinity(0))))')
total=$((N * (2 * nth + 1)))
n=$(bt_count "$WORK/s" shmtrace_test:ctx)
[ "$n" -eq $((2 * total)) ] || fail "session s: $n events, expected $((2 * total))"
cp "$WORK/bt.out" "$WORK/s.txt"
n=$(bt_count "$WORK/c2" shmtrace_test:ctx)
[ "$n" -eq "$total" ] || fail "session c2: $n events, expected $total"
cp "$WORK/bt.out" "$WORK/c2.txt"
cpu0=$(python3 -c 'import os; print(int(0 in sorted(os.sched_getaffinity(0))[:4]))')
if [ "$cpu0" = 1 ]; then
	n=$(bt_count "$WORK/c4" shmtrace_test:ctx)
	[ "$n" -eq "$N" ] || fail "filter on cpu_id: $n events, expected $N"
	[ "$(grep -c 'site = 1, cpu = 0,' "$WORK/bt.out")" -eq "$N" ] ||
		fail "filter on cpu_id kept other events"
fi
n=$(bt_count "$WORK/c5" shmtrace_test:ctx)
[ "$n" -eq "$N" ] || fail "filter on \$ctx.vtid, vpid, cpu_id: $n events, expected $N"
[ "$(grep -c 'cpu = -1,' "$WORK/bt.out")" -eq "$N" ] || fail "filter on the context kept others"
nm -S "$BIN" >"$WORK/nm.out" || fail "nm failed on $BIN"
"$TRACE_READ" "$WORK/s" >"$WORK/tr.txt" || fail "trace-read failed"
"$TRACE_READ" --filter 'cpu_id == 0 && site == 1' "$WORK/s" >"$WORK/tr0.txt" || fail "trace-read --filter failed"
python3 - "$WORK" "$total" "$(nproc --all)" "$N" <<'PY' || fail "context values are wrong"
import os, re, sys
work, total, ncpu, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
run = dict(l.split() for l in open(work + "/app.out"))
syms = {}
for l in open(work + "/nm.out"):
    f = l.split()
    if len(f) == 4 and f[3] in ("site_a", "site_b"):
        syms[f[3]] = (int(f[0], 16), int(f[1], 16))
base = int(run["site_a"], 16) - syms["site_a"][0]
assert int(run["site_b"], 16) - syms["site_b"][0] == base, "load base"
ev = re.compile(r"shmtrace_test:ctx: \{ tid = \d+ \}, (?:\{ (.*?) \}, )?"
                r"\{ site = (\d), cpu = (-?\d+), seq = \d+ \}$")
plain = withctx = 0
for l in open(work + "/s.txt"):
    if "shmtrace_test:ctx:" not in l:
        continue	# the state dump, for trace-read's symbols
    m = ev.search(l.rstrip("\n"))
    assert m, "unexpected line: " + l
    if m.group(1) is None:
        plain += 1
        continue
    withctx += 1
    c = dict(kv.split(" = ") for kv in m.group(1).split(", "))
    assert list(c) == ["ip", "cpu_id"], l
    site, cpu, cpu_id = int(m.group(2)), int(m.group(3)), int(c["cpu_id"])
    start, size = syms["site_b" if site else "site_a"]
    off = int(c["ip"], 16) - base
    assert start <= off < start + size, "ip %#x not in site %d: %s" % (off, site, l)
    assert (cpu_id == cpu) if cpu >= 0 else (0 <= cpu_id < ncpu), l
assert plain == total and withctx == total, (plain, withctx)
for l in open(work + "/c2.txt"):
    m = ev.search(l.rstrip("\n"))
    assert m and m.group(1) and m.group(1).startswith("cpu_id = "), l
    assert "ip = " not in m.group(1), l
# trace-read: the same events, the address named after its function
sym = re.compile(r"ctx: \{ ip = 0x[0-9A-F]+ <(site_[ab])\+0x[0-9a-f]+>, cpu_id = (\d+) \}, "
                 r"\{ site = (\d), cpu = (-?\d+), seq = \d+ \}$")
named = 0
for l in open(work + "/tr.txt"):
    m = sym.search(l.rstrip("\n"))
    if m:
        named += 1
        assert m.group(1) == ("site_b" if m.group(3) == "1" else "site_a"), l
        assert int(m.group(4)) < 0 or m.group(2) == m.group(4), l
assert named == total, "trace-read named %d addresses of %d" % (named, total)
# a filter on a context field: the events of the thread on CPU 0, site b
lines = open(work + "/tr0.txt").readlines()
assert all("cpu_id = 0 }, { site = 1, cpu = 0," in l for l in lines), "filter kept others"
assert len(lines) == (per if 0 in sorted(os.sched_getaffinity(0))[:4] else 0), len(lines)
print("checked %d events with context" % (2 * total))
PY
echo "ok"
