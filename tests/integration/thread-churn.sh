#!/usr/bin/env bash
# 10,000 threads, at most 8 alive at once, 100 events each: every event is
# in the trace, buffers are reused so that stream files stay few, and the
# daemons leak no file descriptor.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
fds() { ls "/proc/$1/fd" | wc -l; }
s0=$(fds "$SESSIOND_PID")
c0=$(fds "$CONSUMERD_PID")
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$B/libtool" --mode=execute /usr/bin/env time -f "%M" -o "$WORK/rss" \
	"$B/tests/apps/thread-churn" 10000 8 100 || fail "thread-churn failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" status s >"$WORK/status"
buffers=$(sed -n 's/.*buffers: //p' "$WORK/status")
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 1000000 ] || fail "$n events, expected 1000000"
files=$(find "$D" -type f ! -name metadata | wc -l)
echo "stream files: $files, buffers in the pool: $buffers, program peak RSS: $(cat "$WORK/rss") KiB"
[ "$files" -le $((2 * buffers)) ] || fail "$files stream files for a pool of $buffers buffers"
[ "$files" -lt 1000 ] || fail "$files stream files: buffers are not reused"
[ "$(fds "$SESSIOND_PID")" -eq "$s0" ] || fail "trace-sessiond: $(fds "$SESSIOND_PID") fds, $s0 before"
[ "$(fds "$CONSUMERD_PID")" -eq "$c0" ] || fail "trace-consumerd: $(fds "$CONSUMERD_PID") fds, $c0 before"
echo "daemons' peak RSS: sessiond $(grep VmHWM "/proc/$SESSIOND_PID/status" | tr -s ' '), consumerd $(grep VmHWM "/proc/$CONSUMERD_PID/status" | tr -s ' ')"
echo "ok"
