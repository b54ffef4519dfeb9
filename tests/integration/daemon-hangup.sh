#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session daemon run in the foreground of a terminal that goes away:
# the hangup (and the interrupt) reach its whole process group, the
# consumer included. The session daemon stops its sessions and lets the
# consumer go; the consumer does not die first. Every event recorded is in
# the trace, though nothing was flushed before (a flush interval of 0, too
# few events to fill a sub-buffer) and the program still runs: only the
# consumer, at the sessions' stop, can write them.
. "$(dirname "$0")/lib.sh"
need_babeltrace
command -v setsid >/dev/null && command -v ps >/dev/null ||
	{ echo "setsid or ps not installed: skipped"; exit 77; }

for sig in HUP INT; do
	mkdir -p "$SHMTRACE_HOME" && chmod 700 "$SHMTRACE_HOME"
	# a process group of its own, as a terminal's foreground job has
	setsid "$B/trace-sessiond" >"$WORK/fg-$sig.log" 2>&1 &
	shmtrace_daemons_wait "$SHMTRACE_HOME" || fail "$sig: the daemons did not start"
	pgid=$(ps -o pgid= -p "$SESSIOND_PID" | tr -d ' ')
	[ "$(ps -o pgid= -p "$CONSUMERD_PID" | tr -d ' ')" = "$pgid" ] ||
		fail "$sig: the consumer is not in the session daemon's process group"
	"$TRACECTL" create s --output "$WORK/$sig" >/dev/null &&
		"$TRACECTL" enable-channel -s s ch --flush-interval 0 >/dev/null &&
		"$TRACECTL" enable-event -s s -c ch 'shmtrace_test:*' >/dev/null &&
		"$TRACECTL" start s >/dev/null || fail "$sig: cannot set up session s"
	# the program alive, its events in its buffers, when the signal comes
	coproc GENP { "$GEN" -n 100 -t 2 -W; }
	read -r line <&"${GENP[0]}" && [ "$line" = done ] || fail "$sig: gen-events did not run"
	kill -"$sig" -- -"$pgid"
	shmtrace_wait_gone "$SESSIOND_PID" || fail "$sig: the session daemon did not exit"
	shmtrace_wait_gone "$CONSUMERD_PID" || fail "$sig: the consumer did not exit"
	echo >&"${GENP[1]}"
	wait "$GENP_PID" || fail "$sig: gen-events failed"
	n=$(bt_count "$WORK/$sig" shmtrace_test:event)
	[ "$n" -eq 200 ] || fail "SIG$sig to the group: $n events in the trace, expected 200"
	check_seqs "$WORK/bt.out" 2 100
	echo "SIG$sig to the daemons' process group: all 200 events written"
done
echo "ok"
