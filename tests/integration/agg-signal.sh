#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Aggregations and signal handlers: a ~10 kHz timer signal emits events
# from its handler while the main thread's events update aggregations
# (nothing recorded). The handler's updates that interrupted an update
# are dropped and counted as lost: updates + lost == emitted for both.
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null
"$TRACECTL" aggregate -s s main 'shmtrace_test:event' --count --quantize seq >/dev/null
"$TRACECTL" aggregate -s s sig 'shmtrace_test:sig' --count --max seq >/dev/null
"$TRACECTL" start s >/dev/null
"$B/tests/apps/sig-events" 400000 500 >"$WORK/counts" || fail "sig-events failed"
read -r _ main _ sig <"$WORK/counts"
"$TRACECTL" stop s >/dev/null
python3 - "$WORK/out/aggregations.json" "$main" "$sig" <<'PY' || fail "$(cat "$WORK/out/aggregations.json")"
import json, sys
doc = {a["name"]: a for a in json.load(open(sys.argv[1]))}
main, sig = int(sys.argv[2]), int(sys.argv[3])
m, s = doc["main"], doc["sig"]
print("main: emitted %d, updates %d, lost %d; signal: emitted %d, updates %d, lost %d"
      % (main, m["updates"], m["lost"], sig, s["updates"], s["lost"]))
assert sig > 100, "the timer hardly fired"
assert m["updates"] == main and m["lost"] == 0, m
assert m["entries"][0]["count"] == main
assert s["lost"] > 0, "no signal interrupted an update: the test proves nothing"
assert s["updates"] + s["lost"] == sig, s
assert s["entries"][0]["count"] == s["updates"]
PY
exit 0
