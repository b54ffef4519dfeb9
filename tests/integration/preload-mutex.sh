#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libshmtrace-pthread.so preloaded into preload-mutex (4 threads contending
# for one mutex): every lock and unlock of that mutex is recorded; the
# waits the trace reports (wait_ns, read only when the lock was busy) add
# up to within 10% of the time the program measured its own contended
# pthread_mutex_lock calls take; uncontended locks say 0; thread, trylock
# and condition variable events carry what the program did.
. "$(dirname "$0")/lib.sh"
need_babeltrace
THREADS=4
ITER=1500
HOLD_US=20
APP=$B/tests/apps/preload-mutex
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-pthread.so
[ -f "$B/.libs/libshmtrace-pthread.so" ] || fail "no libshmtrace-pthread.so"

start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_pthread:*'
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$APP" $THREADS $ITER $HOLD_US >"$WORK/app.out" ||
	fail "preload-mutex failed: $(cat "$WORK/app.out")"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null

val() { sed -n "s/^$1 \\(.*\\)/\\1/p" "$WORK/app.out" | tr 'a-f' 'A-F' | sed 's/^0X/0x/'; }
mutex=$(val mutex)
done_mutex=$(val done_mutex)
cond=$(val cond)
timed_cond=$(val timed_cond)
worker=$(val worker)
calls=$(val lock_calls)
waited=$(val waited_ns)
[ -n "$mutex" ] && [ -n "$waited" ] || fail "program output: $(cat "$WORK/app.out")"

n=$(bt_count "$D" 'shmtrace_pthread:mutex_lock')
grep ' shmtrace_pthread:mutex_lock: .*{ mutex = '"$mutex"',' "$WORK/bt.out" >"$WORK/locks"
[ "$(wc -l <"$WORK/locks")" -eq "$calls" ] || fail "$(wc -l <"$WORK/locks") locks of the mutex, expected $calls"
# the workers' unlocks, and the main thread's after its trylocks
[ "$(grep -c ' shmtrace_pthread:mutex_unlock: .*{ mutex = '"$mutex"', result = 0,' "$WORK/bt.out")" -eq $((calls + 1)) ] ||
	fail "unlocks of the mutex: not $((calls + 1))"
! grep -q -v 'result = 0, caller = 0x' "$WORK/locks" || fail "a lock without result 0 or caller"

# the waits: within 10% of the program's own measure
sed -n 's/.* wait_ns = \([0-9]*\),.*/\1/p' "$WORK/locks" >"$WORK/waits"
traced=$(awk '{ s += $1 } END { printf "%d", s }' "$WORK/waits")
zero=$(grep -c '^0$' "$WORK/waits" || true)
[ "$zero" -gt 0 ] || fail "no uncontended lock (wait_ns = 0)"
[ "$zero" -lt "$calls" ] || fail "no contended lock"
awk -v t="$traced" -v p="$waited" 'BEGIN { exit !(p > 0 && t >= 0.9 * p && t <= 1.1 * p) }' ||
	fail "traced waits $traced ns, the program measured $waited ns"

# trylock: free (0), then held (EBUSY)
grep -q "shmtrace_pthread:mutex_trylock: .*{ mutex = $mutex, result = 0," "$WORK/bt.out" || fail "no trylock = 0"
grep -q "shmtrace_pthread:mutex_trylock: .*{ mutex = $mutex, result = 16," "$WORK/bt.out" || fail "no trylock = EBUSY"

# threads: created, started and ended, one through pthread_exit
for e in thread_start thread_exit; do
	[ "$(grep -c "shmtrace_pthread:$e: .*{ start_routine = $worker" "$WORK/bt.out")" -eq $THREADS ] ||
		fail "$e events: not $THREADS with start_routine = $worker"
done
[ "$(grep -c "shmtrace_pthread:thread_create: .*start_routine = $worker, result = 0," "$WORK/bt.out")" -eq $THREADS ] ||
	fail "thread_create events: not $THREADS"
[ "$(grep -c "shmtrace_pthread:thread_exit: .*retval = 0x1234 }" "$WORK/bt.out")" -eq 1 ] ||
	fail "no thread_exit from pthread_exit(0x1234)"
[ "$(grep -c "shmtrace_pthread:thread_exit: .*retval = 0x5678 }" "$WORK/bt.out")" -eq $((THREADS - 1)) ] ||
	fail "thread_exit with the returned value: not $((THREADS - 1))"

# condition variables
[ "$(grep -c "shmtrace_pthread:cond_signal: .*{ cond = $cond," "$WORK/bt.out")" -eq $THREADS ] ||
	fail "cond_signal events: not $THREADS"
grep -q "shmtrace_pthread:cond_wait: .*{ cond = $cond, mutex = $done_mutex, wait_ns = [0-9]*, result = 0," \
	"$WORK/bt.out" || fail "no cond_wait"
grep -q "shmtrace_pthread:cond_timedwait: .*{ cond = $timed_cond, mutex = $done_mutex, wait_ns = [0-9]*, result = 110," \
	"$WORK/bt.out" || fail "no cond_timedwait = ETIMEDOUT"
tw=$(sed -n 's/.*shmtrace_pthread:cond_timedwait: .* wait_ns = \([0-9]*\), result = 110,.*/\1/p' "$WORK/bt.out" | tail -1)
[ "$tw" -ge 500000 ] || fail "cond_timedwait waited $tw ns, the timeout was 1 ms"
[ "$(grep -c "shmtrace_pthread:cond_broadcast: .*{ cond = $timed_cond," "$WORK/bt.out")" -eq 1 ] ||
	fail "cond_broadcast events: not 1"
echo "ok: $calls locks ($zero uncontended), waits $traced ns traced, $waited ns measured by the program"
