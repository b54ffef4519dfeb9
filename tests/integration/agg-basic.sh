#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# aggregate --by thread --count --quantize seq while the same event is
# recorded: per thread 100000 updates in both, the quantize buckets exactly
# those of seq 0..99999 and of the recorded events; show-aggregations as
# text and as JSON (python3 -m json.tool parses it; its results are the
# aggregations' objects), status lists its definition, aggregations.json
# is written at stop and trace-read prints it as show-aggregations does.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" aggregate -s s agg 'shmtrace_test:event' --by thread --count --quantize seq \
	>"$WORK/def" || fail "aggregate refused: $(cat "$WORK/def")"
"$TRACECTL" enable-event -s s 'shmtrace_test:event' >/dev/null
status_json "$WORK/st.json" s || fail "status failed"
[ "$(jget "$WORK/st.json" sessions s aggregations agg pattern)" = shmtrace_test:event ] &&
	[ "$(jget "$WORK/st.json" sessions s aggregations agg keys '*' field)" = thread ] &&
	[ "$(jget "$WORK/st.json" sessions s aggregations agg functions '*' fn | tr '\n' ' ')" = "count quantize " ] &&
	[ "$(jget "$WORK/st.json" sessions s aggregations agg functions @1 field)" = seq ] ||
	fail "status does not list the aggregation: $(cat "$WORK/st.json")"
"$TRACECTL" start s >/dev/null
"$GEN" -n 100000 -t 4 -s 4 || fail "gen-events failed"
"$TRACECTL" show-aggregations -s s >"$WORK/text" || fail "show-aggregations failed"
"$TRACECTL" show-aggregations -s s agg --format json >"$WORK/live.json" || fail "show --format json failed"
python3 -m json.tool "$WORK/live.json" >/dev/null || fail "the JSON does not parse: $(head -c 300 "$WORK/live.json")"
# --interval prints again until interrupted: a document a line
timeout 2.5 "$TRACECTL" show-aggregations -s s --interval 500ms --format json >"$WORK/again" || true
n=$(python3 -c 'import json, sys
print(sum(json.loads(l)["results"][0]["name"] == "agg" for l in open(sys.argv[1]) if l.strip()))' \
	"$WORK/again") || fail "--interval: not a JSON document a line: $(head -c 300 "$WORK/again")"
[ "$n" -ge 2 ] || fail "--interval printed once or never"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
[ -f "$D/aggregations.json" ] || fail "no aggregations.json at stop"
python3 -m json.tool "$D/aggregations.json" >/dev/null || fail "aggregations.json does not parse"
"$TRACE_READ" "$D" >"$WORK/events" || fail "trace-read failed"
python3 - "$WORK/live.json" "$D/aggregations.json" "$WORK/events" <<'PY' || fail "aggregations and events differ"
import json, re, sys
def bucket(v):
    if v == 0:
        return (0, 0)
    lo = 1 << (v.bit_length() - 1)
    return (lo, 2 * lo - 1)
expect = {}
for t in range(4):
    h = {}
    for v in range(100000):
        h[bucket(v)] = h.get(bucket(v), 0) + 1
    expect[t] = h
recorded = {}
pat = re.compile(r"shmtrace_test:event: \{ seq = (\d+), thread = (\d+),")
for line in open(sys.argv[3]):
    m = pat.search(line)
    if m:
        t = int(m.group(2))
        b = bucket(int(m.group(1)))
        recorded.setdefault(t, {})
        recorded[t][b] = recorded[t].get(b, 0) + 1
assert recorded == expect, "recorded events are not seq 0..99999 per thread"
for path in sys.argv[1:3]:
    doc = json.load(open(path))
    if path == sys.argv[1]:     # tracectl's document: the results are the file's array
        assert doc["version"] == 1 and doc["command"] == "show-aggregations", doc
        doc = doc["results"]
    assert isinstance(doc, list) and len(doc) == 1, path
    a = doc[0]
    assert a["name"] == "agg" and a["event"] == "shmtrace_test:event" and a["keys"] == ["thread"], a
    assert a["updates"] == 400000 and a["dropped"] == 0 and a["lost"] == 0 and a["torn"] == 0, a
    got = {}
    for e in a["entries"]:
        t = e["key"][0]
        assert e["count"] == 100000, (path, t, e["count"])
        got[t] = {(b["lo"], b["hi"]): b["count"] for b in e["quantize(seq)"]}
    assert got == expect, (path, got)
    assert got == recorded
PY
# the file at stop, read back without the daemons
stop_daemons
"$TRACE_READ" --aggregations "$D" >"$WORK/read" 2>&1 || fail "trace-read --aggregations failed: $(head -3 "$WORK/read")"
diff <(grep -v "^$" "$WORK/text") <(grep -v "^$" "$WORK/read") >/dev/null ||
	fail "trace-read --aggregations differs from show-aggregations"
exit 0
