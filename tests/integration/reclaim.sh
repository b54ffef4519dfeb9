#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The buffers of threads that exited give their pages back to the kernel
# after a while free (consumerd/reclaim.c), and are taken again as new:
# thread-waves runs 8 threads of 20000 events, which exit; with a reclaim
# delay of 300 ms, the pages its buffer memfds hold fall to a small part
# of what they held, the process still alive and idle; a second wave of 8
# threads then takes the same buffers; every event of both waves is in
# the trace, each thread's seq 0..19999 once, nothing discarded or lost.
. "$(dirname "$0")/lib.sh"
need_babeltrace
export SHMTRACE_RECLAIM_MS=300
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'

mkfifo "$WORK/wave.in" "$WORK/wave.out"
"$B/tests/apps/thread-waves" 8 20000 2 <"$WORK/wave.in" >"$WORK/wave.out" &
APP=$!
exec {IN}>"$WORK/wave.in" {OUT}<"$WORK/wave.out"
read -r line <&"$OUT" || fail "thread-waves said nothing"
[ "$line" = "wave 1" ] || fail "thread-waves said '$line'"
held=$(buf_bytes "$APP")
[ "$held" -ge $((8 * 256 * 1024)) ] || fail "the first wave's buffers hold $held bytes"
for _ in $(seq 100); do
	now=$(buf_bytes "$APP")
	[ "$now" -le $((held / 8)) ] && break
	sleep 0.1
done
[ "$now" -le $((held / 8)) ] || fail "the buffers of the threads gone still hold $now of $held bytes"
kill -0 "$APP" 2>/dev/null || fail "thread-waves ended early"

echo go >&"$IN"
read -r line <&"$OUT" || fail "thread-waves said nothing after the second wave"
[ "$line" = done ] || fail "thread-waves said '$line'"
wait "$APP" || fail "thread-waves failed"
exec {IN}>&- {OUT}<&-

"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/st.json" s
[ "$(jsum "$WORK/st.json" sessions s channels '*' discarded)" -eq 0 ] || fail "events discarded"
"$TRACE_READ" "$D" --format json >"$WORK/ev.json" || fail "trace-read failed"
python3 - "$WORK/ev.json" <<'PY' || fail "the trace is not both waves, each event once"
import json, sys
seen = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("event") != "shmtrace_test:event":
        continue
    f = e["fields"]
    seen.setdefault(f["thread"], []).append(f["seq"])
assert sorted(seen) == list(range(16)), sorted(seen)
for t, s in seen.items():
    assert sorted(s) == list(range(20000)), (t, len(s))
PY
"$TRACECTL" destroy s >/dev/null
echo "ok: $held bytes held by the first wave fell to $now; both waves recorded exactly"
