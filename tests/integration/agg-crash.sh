#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Aggregations of processes that die or fork: a program killed with
# SIGKILL keeps every update it made up to the kill (quiet: exactly; in
# full flight: all that returned, at most one more per thread, a table
# written at the kill said torn), both while the consumer still maps its
# tables and once they are folded after it is gone; forked children's
# updates are their own (keyed by $ctx.vpid).
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null
"$TRACECTL" aggregate -s s byt 'shmtrace_test:event' --by thread --count >/dev/null
"$TRACECTL" aggregate -s s byp 'shmtrace_test:event' --by '$ctx.vpid,thread' --count >/dev/null
"$TRACECTL" start s >/dev/null
ulimit -c 0

# processes still registered with the session daemon
nproc() { status_json "$WORK/nproc.json" s && jget "$WORK/nproc.json" sessions s processes_traced; }
wait_no_proc() {
	local i
	for i in $(seq 100); do
		[ "$(nproc)" = 0 ] && return 0
		sleep 0.1
	done
	fail "the session daemon still lists a process that died"
}

"$B/tests/apps/crash-events" 4 kill >"$WORK/last" 2>/dev/null && fail "crash-events did not die"
[ "$(wc -l <"$WORK/last")" -eq 4 ] || fail "$(wc -l <"$WORK/last") threads reported"
wait_no_proc
"$TRACECTL" show-aggregations -s s byt --format json >"$WORK/quiet.json" || fail "show failed"
python3 - "$WORK/quiet.json" "$WORK/last" <<'PY' || fail "quiet kill: $(cat "$WORK/quiet.json")"
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
last = dict(map(int, l.split()) for l in open(sys.argv[2]))
got = {e["key"][0]: e["count"] for e in a["entries"]}
assert got == {t: n + 1 for t, n in last.items()}, (got, last)
assert a["lost"] == 0 and a["dropped"] == 0 and a["torn"] == 0, a
PY

# in full flight, twice: read while mapped (the session daemon may not know
# yet), and after the process is gone
"$TRACECTL" disable-aggregation -s s byt >/dev/null
"$TRACECTL" aggregate -s s byt 'shmtrace_test:event' --by thread --count >/dev/null
"$B/tests/apps/crash-events" 4 kill "$WORK/counts" 300 2>/dev/null && fail "crash-events did not die"
"$TRACECTL" show-aggregations -s s byt --format json >"$WORK/flight1.json" || fail "show failed"
wait_no_proc
"$TRACECTL" show-aggregations -s s byt --format json >"$WORK/flight2.json" || fail "show failed"
python3 - "$WORK/counts" "$WORK/flight1.json" "$WORK/flight2.json" <<'PY' || fail "full flight: $(cat "$WORK/flight2.json")"
import json, struct, sys
counts = struct.unpack("<4Q", open(sys.argv[1], "rb").read(32))
assert all(c > 0 for c in counts), counts
for path in sys.argv[2:]:
    a = json.load(open(path))["results"][0]
    got = {e["key"][0]: e["count"] for e in a["entries"]}
    for t, c in enumerate(counts):
        assert c <= got.get(t, 0) <= c + 1, (path, t, c, got)
    assert a["torn"] <= 4 and a["lost"] == 0, a
PY
a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["torn"])' "$WORK/flight1.json")
b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["torn"])' "$WORK/flight2.json")
[ "$a" = "$b" ] || fail "torn tables: $a while mapped, $b once folded"

# fork: each child's updates under its own pid
"$B/tests/apps/fork-events" 6 300 1200 || fail "fork-events failed"
wait_no_proc
"$TRACECTL" stop s >/dev/null || fail "stop failed"
python3 - "$WORK/out/aggregations.json" "$WORK/last" <<'PY' || fail "fork: $(cat "$WORK/out/aggregations.json")"
import json, sys
doc = {a["name"]: a for a in json.load(open(sys.argv[1]))}
ents = [(e["key"][0], e["key"][1], e["count"]) for e in doc["byp"]["entries"]]
parents = {p for p, t, n in ents if t in (1000000, 1000001)}
kids = [(p, t, n) for p, t, n in ents if t < 1000000 and p not in parents and n == 300]
assert len(parents) == 1, ents
p = parents.pop()
assert sorted((t, n) for q, t, n in ents if q == p) == [(1000000, 1200), (1000001, 1200)], ents
# the crash-events processes, then six children each of its own pid
forked = {t: q for q, t, n in kids if t < 6}
assert sorted(forked) == list(range(6)), ents
assert len(set(forked.values())) == 6 and p not in forked.values(), ents
PY
exit 0
