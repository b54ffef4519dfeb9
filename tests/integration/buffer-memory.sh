#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A thread's buffer memory grows with what it writes: the pages of its
# buffer are mapped one sub-buffer ahead of it (libtrace/pool.c), not
# all at its first switch. 8 threads each write about 2.7 sub-buffers of
# a 16 x 64 KiB buffer and stay alive: their buffer memfds hold at most
# the header and 5 sub-buffers a thread (the whole buffer would be
# 1 MiB), at least what they wrote; every event is in the trace.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s c --subbuf-size 64k --num-subbuf 16 >/dev/null &&
	"$TRACECTL" enable-event -s s -c c 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"

gen_idle a -n 4000 -t 8 -s 16
held=$(buf_bytes "$IDLE_PID")
sub=$((64 * 1024))
[ "$held" -ge $((8 * 2 * sub)) ] || fail "8 threads' buffers hold $held bytes: less than they wrote"
[ "$held" -le $((8 * 6 * sub)) ] ||
	fail "8 threads that wrote 2.7 sub-buffers each hold $held bytes of buffers (whole buffers: $((8 * 16 * sub)))"
release_idle a
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 32000 ] || fail "$n events in the trace, 32000 emitted"
echo "ok: 8 threads of 2.7 sub-buffers each hold $((held / 1024)) KiB of buffers, of $((8 * 16 * sub / 1024)) KiB"
