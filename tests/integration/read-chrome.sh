#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --export chrome - on the traces of preload-func (built with
# -finstrument-functions) under the func, I/O and pthread helpers, of
# preload-mutex under the pthread helper and of a shell that execs cat
# under the I/O helper. The JSON goes to standard output, nothing to
# standard error; against trace-read --format json of the same traces:
#  - each event with dur_ns is an "X" slice ending at its time (ts + dur),
#    dur_ns / 1000 long; so is each with wait_ns when it waited (wait_ns >
#    0), and an instant when not;
#  - each function entry/exit pair is an "X" slice from the entry to the
#    exit, named after the function, properly nested in its thread;
#  - one process_name per process and image: the shell that execs cat has
#    two names; a thread_name per thread and image;
#  - from --begin in the middle of the run, the exits of functions entered
#    before it are instants and every pair after it is still a slice; up to
#    --end, the functions not exited are slices to their thread's last
#    event, marked unfinished.
. "$(dirname "$0")/lib.sh"
need_babeltrace
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "python3 not installed: skipped"; exit 77; }
L=$B/.libs
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_func:*' 'shmtrace_io:*' 'shmtrace_pthread:mutex_lock' 'shmtrace_pthread:cond_*' \
	'shmtrace_proc:*' 'shmtrace_statedump:*'
export SHMTRACE_REGISTER_TIMEOUT=10000
LD_PRELOAD=$L/libshmtrace.so:$L/libshmtrace-func.so:$L/libshmtrace-io.so:$L/libshmtrace-pthread.so \
	"$B/tests/apps/preload-func" 6 3 0 >"$WORK/app.out" || fail "preload-func failed"
# contended locks (most of the time): mutex_lock slices
LD_PRELOAD=$L/libshmtrace.so:$L/libshmtrace-pthread.so "$B/tests/apps/preload-mutex" 2 20 200 \
	>/dev/null || fail "preload-mutex failed"
head -c 20000 /dev/zero >"$WORK/in"
# into a pipe: cat cannot copy_file_range() there, it reads and writes
LD_PRELOAD=$L/libshmtrace.so:$L/libshmtrace-io.so sh -c 'exec cat "$1"' sh "$WORK/in" |
	cat >"$WORK/cat.out" || fail "sh -c 'exec cat' failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
unset SHMTRACE_REGISTER_TIMEOUT
cmp -s "$WORK/in" "$WORK/cat.out" || fail "cat copied something else"

"$TRACE_READ" --format json "$D" >"$WORK/events" 2>"$WORK/err" || fail "trace-read --format json failed"
"$TRACE_READ" --export chrome - "$D" >"$WORK/all.json" 2>"$WORK/err" || fail "--export chrome - failed"
[ ! -s "$WORK/err" ] || fail "--export chrome - wrote on standard error: $(head -3 "$WORK/err")"
[ ! -e ./- ] || fail "--export chrome - created a file named -"

# the time of an entry in the middle of the run, for --begin and --end
mid=$("$PY" - "$WORK/events" <<'EOF'
import json, sys
ts = [r["time_ns"] for r in map(json.loads, open(sys.argv[1])) if r["event"] == "shmtrace_func:entry"]
t = ts[len(ts) // 2]
print("%d.%09d" % (t // 10**9, t % 10**9))
EOF
) || fail "no middle time"
"$TRACE_READ" --format json --begin "$mid" "$D" >"$WORK/events-begin" || fail "--begin failed"
"$TRACE_READ" --export chrome - --begin "$mid" "$D" >"$WORK/begin.json" || fail "--export chrome --begin failed"
"$TRACE_READ" --format json --end "$mid" "$D" >"$WORK/events-end" || fail "--end failed"
"$TRACE_READ" --export chrome - --end "$mid" "$D" >"$WORK/end.json" || fail "--export chrome --end failed"

"$PY" - "$WORK" <<'EOF' || fail "Chrome export wrong"
import collections, json, sys
from decimal import Decimal
W = sys.argv[1]


def load(name):
    d = json.load(open(W + "/" + name), parse_float=Decimal)
    ev = d["traceEvents"]
    t0 = int(d["otherData"]["time_origin_ns"])
    for e in ev:
        assert {"ph", "name", "pid", "tid"} <= e.keys(), e
        if "ts" in e:
            e["ts_ns"] = int(e["ts"] * 1000)
            assert e["ts_ns"] >= 0, e
        if "dur" in e:
            e["dur_ns"] = int(e["dur"] * 1000)
    return ev, t0


def rows(name):
    return [json.loads(l) for l in open(W + "/" + name)]


def func_pairs(rs, t0, syms):
    """(pid, tid, name, begin, end) of each entry/exit pair, matched per thread"""
    stacks = collections.defaultdict(list)
    out = []
    for r in rs:
        if not r["event"].startswith("shmtrace_func:"):
            continue
        key = (r["pid"], r["tid"], r["proc"])
        addr = r["fields"]["addr"]
        if r["event"] == "shmtrace_func:entry":
            stacks[key].append((addr, r["time_ns"] - t0))
        elif stacks[key] and stacks[key][-1][0] == addr:
            a, b = stacks[key].pop()
            out.append((r["pid"], r["tid"], syms.get(a, a), b, r["time_ns"] - t0))
        else:
            assert not stacks[key], ("unbalanced", r)
    return out, stacks


ev, t0 = load("all.json")
rs = rows("events")
assert t0 == rs[0]["time_ns"], (t0, rs[0])
kinds = collections.Counter(e["ph"] for e in ev)
assert set(kinds) <= {"M", "X", "i"}, kinds
print("events:", dict(kinds))

# events with a duration: X ending at their time
want = collections.Counter()
waits = collections.Counter()
for r in rs:
    f = r["fields"]
    if "dur_ns" in f or f.get("wait_ns", 0):
        d = f.get("dur_ns", f.get("wait_ns"))
        want[r["pid"], r["tid"], r["event"], r["time_ns"] - t0, d] += 1
    elif "wait_ns" in f:
        waits[r["pid"], r["tid"], r["time_ns"] - t0] += 1
got = collections.Counter()
for e in ev:
    if e["ph"] == "X" and e["name"].startswith(("shmtrace_io:", "shmtrace_pthread:")):
        d = e["args"].get("dur_ns", e["args"].get("wait_ns"))
        assert e["dur_ns"] == d, ("dur is not dur_ns / 1000", e)
        got[e["pid"], e["tid"], e["name"], e["ts_ns"] + e["dur_ns"], d] += 1
assert got == want, ("duration slices", got - want, want - got)
io = collections.Counter(k[2] for k in want.elements())
for n in ("io:open", "io:read", "io:write", "io:close", "pthread:cond_wait"):
    assert io["shmtrace_" + n] > 0, ("no " + n, io)
inst = collections.Counter((e["pid"], e["tid"], e["ts_ns"]) for e in ev
                           if e["ph"] == "i" and "wait_ns" in e["args"])
assert inst == waits and sum(waits.values()) > 0, ("wait_ns 0: instants", inst, waits)
print("duration slices:", dict(io), "wait_ns 0:", sum(waits.values()),
      "instants")

# function pairs: X from entry to exit, nested
syms = {}
for line in open(W + "/app.out"):
    w = line.split()
    if w[1].startswith("0x"):
        syms["0x%x" % int(w[1], 16)] = w[0]
pairs, left = func_pairs(rs, t0, syms)
assert not any(left.values()), "entries without exits"
fx = [e for e in ev if e["ph"] == "X" and e["cat"] == "shmtrace_func"]
got = collections.Counter((e["pid"], e["tid"], e["name"], e["ts_ns"], e["ts_ns"] + e["dur_ns"])
                          for e in fx)
assert not any("unfinished" in e["args"] for e in fx), "unfinished slices"
want = collections.Counter((p, t, n if not n.startswith("0x") else None, b, x)
                           for p, t, n, b, x in pairs)
got_addr = collections.Counter((p, t, n if n in syms.values() else None, b, x)
                               for p, t, n, b, x in got.elements())
assert got_addr == want, ("function slices", got_addr - want, want - got_addr)
names = collections.Counter(e["name"] for e in fx)
fibc = int(next(l.split()[1] for l in open(W + "/app.out") if l.startswith("fib_calls")))
assert names["fib"] == 2 * 3 * fibc and names["walk"] == 2 * 3 * 17, names
assert names["leaf"] == 2 * 3 and names["main"] == 1, names
by_thread = collections.defaultdict(list)
for e in fx:
    by_thread[e["pid"], e["tid"]].append(e)
for k, es in by_thread.items():
    es.sort(key=lambda e: (e["ts_ns"], -e["dur_ns"]))
    stack = []
    for e in es:
        while stack and stack[-1]["ts_ns"] + stack[-1]["dur_ns"] <= e["ts_ns"]:
            stack.pop()
        if stack:
            p = stack[-1]
            assert e["ts_ns"] + e["dur_ns"] <= p["ts_ns"] + p["dur_ns"], ("overlap", p, e)
            if e["name"] == "leaf":
                assert p["name"] == "walk", ("leaf in", p)
            if e["name"] == "fib":
                assert p["name"] in ("fib", "thread_main"), ("fib in", p)
        stack.append(e)
print("function slices:", sum(names.values()), "in", len(by_thread), "threads")

# names: once per process and image, once per thread and image
images = collections.defaultdict(list)
threads = collections.defaultdict(set)
for r in rs:
    if not images[r["pid"]] or images[r["pid"]][-1] != r["proc"]:
        images[r["pid"]].append(r["proc"])
    threads[r["pid"], r["tid"]].add(r["proc"])
pn = collections.defaultdict(list)
tn = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "M":
        (pn if e["name"] == "process_name" else tn)[e["pid"]
            if e["name"] == "process_name" else (e["pid"], e["tid"])].append(e["args"]["name"])
assert dict(pn) == dict(images), ("process names", dict(pn), dict(images))
assert {k: sorted(v) for k, v in tn.items()} == {k: sorted(v) for k, v in threads.items()}, \
    ("thread names", dict(tn), dict(threads))
two = [p for p, v in pn.items() if len(v) == 2]
assert len(two) == 1 and pn[two[0]][-1] == "cat", ("the pid that execs", dict(pn))
print("process names:", dict(pn))

# from --begin: the exits before are instants, the pairs after slices
ev, t0 = load("begin.json")
rs = rows("events-begin")
pairs, left = func_pairs(rs, t0, syms)
fx = [e for e in ev if e["ph"] == "X" and e["cat"] == "shmtrace_func"]
assert len(fx) == len(pairs) and not any("unfinished" in e["args"] for e in fx), (len(fx), len(pairs))
lone = [e for e in ev if e["ph"] == "i" and e["cat"] == "shmtrace_func"]
exits = sum(r["event"] == "shmtrace_func:exit" for r in rs)
assert len(lone) == exits - len(pairs) > 0, (len(lone), exits, len(pairs))

# up to --end: the open functions end at their thread's last event
ev, t0 = load("end.json")
rs = rows("events-end")
pairs, left = func_pairs(rs, t0, syms)
last = {}
for r in rs:
    last[r["pid"], r["tid"]] = r["time_ns"] - t0
open_ = collections.Counter()
for (p, t, _), st in left.items():
    for a, b in st:
        open_[p, t, syms.get(a), b, last[p, t]] += 1
fx = [e for e in ev if e["ph"] == "X" and e["cat"] == "shmtrace_func"]
unf = collections.Counter((e["pid"], e["tid"], e["name"] if e["name"] in syms.values() else None,
                           e["ts_ns"], e["ts_ns"] + e["dur_ns"])
                          for e in fx if e["args"].get("unfinished"))
assert unf == open_ and open_, ("unfinished slices", unf, open_)
assert len(fx) == len(pairs) + sum(open_.values()), (len(fx), len(pairs))
print("--begin: %d lone exits; --end: %d unfinished slices" % (len(lone), sum(unf.values())))
EOF
echo "ok"
