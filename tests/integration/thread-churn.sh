#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 10,000 threads, at most 8 alive at once, 100 events each: every event is
# in the trace, buffers are reused so that stream files stay few, the
# daemons leak no file descriptor, and memory follows the threads alive at
# once, not the threads ever created: against a first run of 1,000
# threads, the daemons' resident memory grows by at most 1 MiB, and the
# program's peak by at most 1 MiB more than its pool's extra buffers
# explain. The pool follows the consumer: a consumer slowed down by other
# load leaves released buffers undrained longer, and the pool grows by a
# buffer where none is free (each costs the pages its threads touched:
# the header's and one per sub-buffer).
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
fds() { ls "/proc/$1/fd" | wc -l; }
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
# churn N: N threads, 8 at once, 100 events each; peak RSS in KiB in $WORK/rss
churn() {
	"$B/libtool" --mode=execute /usr/bin/env time -f "%M" -o "$WORK/rss" \
		"$B/tests/apps/thread-churn" "$1" 8 100 || fail "thread-churn $1 failed"
}
s0=$(fds "$SESSIOND_PID")
c0=$(fds "$CONSUMERD_PID")
"$TRACECTL" create warm --output "$WORK/warm" >/dev/null
"$TRACECTL" enable-event -s warm 'shmtrace_test:*' >/dev/null
"$TRACECTL" start warm >/dev/null
churn 1000
"$TRACECTL" stop warm >/dev/null
b1=$(status_field warm channel0 buffers)
"$TRACECTL" destroy warm >/dev/null
p1=$(cat "$WORK/rss")
s1=$(rss "$SESSIOND_PID")
c1=$(rss "$CONSUMERD_PID")
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
churn 10000
"$TRACECTL" stop s >/dev/null
buffers=$(status_field s channel0 buffers)
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 1000000 ] || fail "$n events, expected 1000000"
files=$(find "$D" -type f ! -name metadata | wc -l)
echo "stream files: $files, buffers in the pool: $buffers, program peak RSS: $(cat "$WORK/rss") KiB"
[ "$files" -le $((2 * buffers)) ] || fail "$files stream files for a pool of $buffers buffers"
[ "$files" -lt 1000 ] || fail "$files stream files: buffers are not reused"
[ "$(fds "$SESSIOND_PID")" -eq "$s0" ] || fail "trace-sessiond: $(fds "$SESSIOND_PID") fds, $s0 before"
[ "$(fds "$CONSUMERD_PID")" -eq "$c0" ] || fail "trace-consumerd: $(fds "$CONSUMERD_PID") fds, $c0 before"
p2=$(cat "$WORK/rss")
s2=$(rss "$SESSIOND_PID")
c2=$(rss "$CONSUMERD_PID")
echo "KiB after 1,000 and 10,000 threads: program peak $p1, $p2; sessiond $s1, $s2; consumerd $c1, $c2"
# 16 sub-buffers (the default channel) and the header: 17 pages a buffer
extra=$(( (buffers > b1 ? buffers - b1 : 0) * 17 * 4 ))
echo "buffers in the pool after 1,000 and 10,000 threads: $b1, $buffers (up to $extra KiB explained)"
[ "$p2" -le $((p1 + 1024 + extra)) ] || fail "the program's memory grows with the threads created"
[ "$s2" -le $((s1 + 1024)) ] || fail "trace-sessiond's memory grows with the threads created"
[ "$c2" -le $((c1 + 1024)) ] || fail "trace-consumerd's memory grows with the threads created"
echo "ok"
