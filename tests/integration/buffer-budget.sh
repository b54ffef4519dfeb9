#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A channel's buffer budget (enable-channel --buffer-budget): a process
# never holds more buffer memory for the channel than it allows, and
# what its threads past it emit is counted as lost without a buffer.
# Channel c: 4 sub-buffers of 64 KiB, a budget of 1 MiB (4 buffers);
# gen-events runs 8 threads of N events that stay alive: 4 threads have a
# buffer and record everything, 4 have none and lose everything, counted;
# the process's buffer memfds hold at most 4 buffers; status shows the
# budget, and recorded + discarded + lost without a buffer is what was
# emitted. The default channel shows the default budget (1 GiB, 128
# buffers of 8 MiB); --buffer-budget 0 is no limit.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
N=2000
"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s c --subbuf-size 64k --num-subbuf 4 --buffer-budget 1M \
		>/dev/null &&
	"$TRACECTL" enable-channel -s s free --buffer-budget 0 >/dev/null &&
	"$TRACECTL" enable-event -s s -c c 'shmtrace_test:event' >/dev/null &&
	"$TRACECTL" enable-event -s s 'shmtrace_test:mark' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
ctl_json "$WORK/st0.json" status s || fail "status failed"
[ "$(jget "$WORK/st0.json" sessions s channels c budget)" -eq $((1 << 20)) ] &&
	[ "$(jget "$WORK/st0.json" sessions s channels c budget_buffers)" -eq 4 ] &&
	[ "$(jget "$WORK/st0.json" sessions s channels channel0 budget)" -eq $((1024 << 20)) ] &&
	[ "$(jget "$WORK/st0.json" sessions s channels channel0 budget_buffers)" -eq 128 ] &&
	[ "$(jget "$WORK/st0.json" sessions s channels free budget)" -eq 0 ] &&
	[ "$(jget "$WORK/st0.json" sessions s channels free budget_buffers)" -eq 0 ] ||
	fail "the budgets: $(cat "$WORK/st0.json")"

gen_idle a -n "$N" -t 8 -s 16
held=$(buf_bytes "$IDLE_PID")
# 4 buffers of 4 pages of header and sub-buffers at most, and the segments' first pages
[ "$held" -le $((4 * (256 + 4) * 1024 + 8 * 4096)) ] ||
	fail "the process holds $held bytes of buffers for a budget of 1 MiB"
release_idle a
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
ctl_json "$WORK/st.json" status s || fail "status failed"
rec=$(jget "$WORK/st.json" sessions s channels c recorded)
disc=$(jget "$WORK/st.json" sessions s channels c discarded)
nobuf=$(jget "$WORK/st.json" sessions s channels c lost_without_buffer)
bufs=$(jget "$WORK/st.json" sessions s channels c buffers)
[ "$((rec + disc + nobuf))" -eq $((8 * N)) ] ||
	fail "recorded $rec + discarded $disc + lost without a buffer $nobuf is not $((8 * N))"
[ "$bufs" -le 4 ] && [ "$nobuf" -ge $((4 * N)) ] && [ "$rec" -ge $((3 * N)) ] ||
	fail "$bufs buffers, $rec recorded, $nobuf lost without a buffer: $(cat "$WORK/st.json")"
n=$("$TRACE_READ" --format json "$D" 2>"$WORK/tr.err" | grep -c '"event":"shmtrace_test:event"') ||
	fail "trace-read: $(head -3 "$WORK/tr.err")"
[ "$n" -eq "$rec" ] || fail "$n events in the trace, status says $rec"
# the packets say the losses, as discards
said=$(awk '/^WARNING: [0-9]+ events discarded in / { n += $2 } END { print n + 0 }' "$WORK/tr.err")
[ "$said" -eq $((nobuf + disc)) ] ||
	fail "trace-read says $said events discarded, not $((nobuf + disc)): $(cat "$WORK/tr.err")"
echo "ok: a budget of 4 buffers for 8 threads: $held bytes held, $rec recorded," \
	"$nobuf lost without a buffer (counted), $disc discarded"
