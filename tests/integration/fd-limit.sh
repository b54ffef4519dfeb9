#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A session daemon at its descriptor limit (a handful per traced process)
# refuses new processes and says so in its log, goes on tracing those it
# has and serving tracectl; once they exit, new processes are traced again.
# The trace holds every event of each process traced (those status lists
# at the limit, and the one after), and none of those refused.
. "$(dirname "$0")/lib.sh"
LOG=$SHMTRACE_HOME/sessiond.log
(ulimit -n 48 && start_daemons)
new_session "$WORK/out" 'shmtrace_test:*'

n=0
while [ $n -lt 12 ] && ! grep -q "descriptor limit (48) reached" "$LOG"; do
	n=$((n + 1))
	gen_bg "p$n" ready -w -m -n 10
	eval "P$n=\$IDLE_PID"
done
grep -q "descriptor limit (48) reached" "$LOG" || fail "$n processes and no descriptor limit"
n=$((n + 1))	# one more, refused
gen_bg "p$n" ready -w -m -n 10
eval "P$n=\$IDLE_PID"
grep -q "not traced: the descriptor limit is reached" "$LOG" ||
	fail "no process said refused: $(grep -i descriptor "$LOG")"
status_json "$WORK/status.json" s || fail "status failed at the limit"
traced=$(jget "$WORK/status.json" sessions s processes_traced)
[ "$(jget "$WORK/status.json" sessions s fd_limit)" = 48 ] &&
	[ "$(jget "$WORK/status.json" sessions s processes_refused_at_fd_limit)" -gt 0 ] ||
	fail "status does not say that processes were refused: $(cat "$WORK/status.json")"
[ -n "$traced" ] && [ "$traced" -lt "$n" ] && [ "$traced" -ge 2 ] ||
	fail "at the limit, status says '$traced' processes traced of $n"
jget "$WORK/status.json" sessions s processes '*' pid >"$WORK/traced"
[ "$(wc -l <"$WORK/traced")" -eq "$traced" ] || fail "status lists $(wc -l <"$WORK/traced") processes of $traced"

for i in $(seq "$n"); do
	release_idle "p$i"
	eval "wait \$P$i" || fail "process $i failed"
done
for _ in $(seq 50); do
	grep -q "descriptors free again" "$LOG" && break
	sleep 0.1
done
grep -q "descriptors free again" "$LOG" || fail "the daemon did not take its reserve back"
gen_bg again ready -w -m -n 10
status_json "$WORK/status.json" s || fail "status failed"
[ "$(jget "$WORK/status.json" sessions s processes_traced)" = 1 ] ||
	fail "a new process is not traced once the others exited"
echo "$IDLE_PID" >>"$WORK/traced"
release_idle again
wait "$IDLE_PID" || fail "the last process failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
# pid seq of every event: seq 0..9 of each process traced, nothing else
"$TRACE_READ" --format json -e shmtrace_test:event "$WORK/out" >"$WORK/ev.json" ||
	fail "trace-read failed"
sed 's/.*"pid":\([0-9]*\),.*"fields":{"seq":\([0-9]*\),.*/\1 \2/' "$WORK/ev.json" | sort -n -k1,1 -k2,2 >"$WORK/got"
while read -r p; do
	for s in $(seq 0 9); do echo "$p $s"; done
done <"$WORK/traced" | sort -n -k1,1 -k2,2 >"$WORK/want"
cmp -s "$WORK/got" "$WORK/want" ||
	fail "events (pid seq) not those of the traced processes: $(diff "$WORK/want" "$WORK/got" | head -5)"
echo "ok: $traced of $n processes traced at the limit, tracectl served, then traced again; $(wc -l <"$WORK/got") events"
