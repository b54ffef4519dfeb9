#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A session daemon that does not answer (stopped) delays a program's start
# by one SHMTRACE_REGISTER_TIMEOUT at most, in all, however many modules
# register events; a library loaded later, while the daemon still does not
# answer, does not wait again (a signal that interrupts the wait is no
# reason to stop waiting). Once the daemon answers, the program is
# traced from its next event; with SHMTRACE_DEBUG it says how many events
# it emitted before that, which no session could record.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
LIB=$B/tests/apps/.libs/libdlevents.so
[ -f "$LIB" ] || fail "no $LIB"
new_session "$D" 'shmtrace_test:event' 'shmtrace_dl:*' 'shmtrace_dlapp:step'
export SHMTRACE_REGISTER_TIMEOUT=1000

resumed=
trap 'rc=$?; [ -n "$resumed" ] || kill -CONT "$SESSIOND_PID" 2>/dev/null; (exit $rc); cleanup' EXIT

# a signal (the doorbell, when the daemon enables the events it is about
# to answer for) does not end the wait for the daemon's answer
kill -STOP "$SESSIOND_PID"
SHMTRACE_REGISTER_TIMEOUT=20000 harsh_start in ready
eval "pid=\$HPID_in"
for _ in $(seq 100); do [ -e "$SHMTRACE_HOME/apps/$pid" ] && break; sleep 0.05; done
[ -e "$SHMTRACE_HOME/apps/$pid" ] || fail "no marker"
for _ in $(seq 10); do
	kill -s RTMIN+3 "$pid"
	sleep 0.1
done
line=
eval "read -r -t 1 line <&\$HOUT_in" || true
[ -z "$line" ] || fail "the program stopped waiting for the daemon when a signal came: '$line'"
kill -CONT "$SESSIOND_PID"
harsh_expect in ready
harsh_go in
harsh_wait in
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
kill -STOP "$SESSIOND_PID"

# three modules register events (the library, its process events, the
# program's): one timeout in all, not three
t0=$(date +%s%N)
export SHMTRACE_DEBUG=1
harsh_start st ready emit:100 done emit:200 2>"$WORK/st.err"
unset SHMTRACE_DEBUG
harsh_expect st ready
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "start-up with a stopped session daemon: $ms ms"
[ "$ms" -lt 2500 ] || fail "start-up took $ms ms with SHMTRACE_REGISTER_TIMEOUT=1000"

# and a dlopen does not wait again
t0=$(date +%s%N)
"$B/tests/apps/dl-app" "$LIB" 10 || fail "dl-app failed"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "start-up and dlopen with a stopped session daemon: $ms ms"
[ "$ms" -lt 2500 ] || fail "start-up and dlopen took $ms ms with SHMTRACE_REGISTER_TIMEOUT=1000"

# 100 events while the daemon does not answer, 200 once it did
harsh_go st
harsh_expect st done
kill -CONT "$SESSIOND_PID"
resumed=1
eval "pid=\$HPID_st"
for _ in $(seq 100); do
	registered "$pid" && break
	sleep 0.1
done
registered "$pid" || fail "the program did not register"
harsh_go st
harsh_expect st "emitted 300"
harsh_wait st
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 200 ] || fail "$n events in the trace, expected the 200 emitted once the daemon answered"
# its 100, and the process event of its start (shmtrace_proc:exec)
grep -q "before the session daemon answered.*(101)\$" "$WORK/st.err" ||
	fail "the 101 events not recorded were not said: $(cat "$WORK/st.err")"
echo "ok"
