#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SHMTRACE_CONSUMER_WORKERS reaches the consumer the session daemon starts,
# and the consumer runs that many workers once it has that many streams,
# never more: 8 threads alive at once (8 streams) with 4 workers asked
# start exactly 4 (SHMTRACE_DEBUG logs each), and every event is in the
# trace. (lib.sh checks the count asked of every consumer of every test
# when SHMTRACE_CONSUMER_WORKERS is set, as check.sh sets it.)
. "$(dirname "$0")/lib.sh"
need_babeltrace
export SHMTRACE_CONSUMER_WORKERS=4
SHMTRACE_DEBUG=1 start_daemons	# its log says when each worker starts
LOG=$SHMTRACE_HOME/consumerd.log
grep -q "trace-consumerd\[$CONSUMERD_PID\] info: started (4 workers at most)" "$LOG" ||
	fail "the consumer was not asked for 4 workers: $(grep started "$LOG")"
new_session "$WORK/out" 'shmtrace_test:*'
# every thread has emitted and stays alive: 8 streams at once
gen_idle g -n 20000 -t 8
for _ in $(seq 300); do
	grep -q "worker 4 started" "$LOG" && break
	sleep 0.05
done
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(grep -c "trace-consumerd\[$CONSUMERD_PID\] debug: worker [0-9]* started" "$LOG" || true)
[ "$n" -eq 4 ] || fail "$n workers started for 8 streams, 4 asked: $(grep worker "$LOG")"
n=$(bt_count "$WORK/out" shmtrace_test:event)
check_seqs "$WORK/bt.out" 8 20000
echo "ok: 4 workers for 8 streams, $n events"
