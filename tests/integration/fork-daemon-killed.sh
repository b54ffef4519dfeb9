#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A forked child whose registration dies unread with the session daemon
# (SIGSTOPped when the child registers, then SIGKILLed), in a program with
# no doorbell (SHMTRACE_SIGNAL=0: no daemon can ring it). The child
# inherits its parent's enabled events and finds its connection gone at
# its first buffer:
#  a. the next daemon runs when the child emits: the child registers again
#     there and then, and every one of its events is in the trace;
#  b. no daemon runs when the child emits, the next one does when it
#     exits: every event was lost for want of a buffer, and said so (the
#     child registers once more on its way out: status counts them);
#  c. the child emits while the daemon is still stopped (its segment goes
#     to the daemon's socket too, and dies there unread), and exits after
#     the next daemon starts: its registration was never answered, so on
#     its way out, before its events' descriptions are forgotten, it waits
#     for an answer and registers again: every event is in the trace.
# Nothing is lost without a count (before, the three children's events
# were nowhere and counted nowhere).
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
N=3000

# run CASE: one fork-wait through the daemon's death, its child emitting
# while the next daemon runs (a) or before it does (b)
run() {
	local c=$1 s line child
	mkfifo "$WORK/in.$c" "$WORK/out.$c"
	SHMTRACE_SIGNAL=0 "$B/tests/apps/fork-wait" "$N" <"$WORK/in.$c" >"$WORK/out.$c" &
	APP=$!
	exec {IN}>"$WORK/in.$c" {OUT}<"$WORK/out.$c"
	read -r line <&"$OUT" && [ "$line" = ready ] || fail "$c: fork-wait said '$line'"
	s=$(shmtrace_daemon_pid sessiond)
	[ -n "$s" ] || fail "$c: no session daemon"
	kill -STOP "$s"
	echo fork >&"$IN"
	# the child registered (into the stopped daemon's socket) before it says so
	read -r line <&"$OUT" || fail "$c: no child"
	child=${line#child }
	if [ "$c" = c ]; then
		echo emit >&"$IN"
		read -r line <&"$OUT" && [ "$line" = done ] || fail "$c: the child said '$line'"
	fi
	kill -KILL "$s"
	for _ in $(seq 100); do kill -0 "$s" 2>/dev/null || break; sleep 0.05; done
	! kill -0 "$s" 2>/dev/null || fail "$c: the session daemon $s survived SIGKILL"
	[ "$c" = b ] || "$TRACECTL" status s >/dev/null || fail "$c: no next session daemon"
	if [ "$c" != c ]; then
		echo emit >&"$IN"
		read -r line <&"$OUT" && [ "$line" = done ] || fail "$c: the child said '$line'"
	fi
	[ "$c" != b ] || "$TRACECTL" status s >/dev/null || fail "$c: no next session daemon"
	echo exit >&"$IN"
	wait "$APP" || fail "$c: fork-wait failed"
	exec {IN}>&- {OUT}<&-
	eval "CHILD_$c=$child"
}
run a
run b
run c
"$TRACECTL" stop s >/dev/null || fail "stop failed"
ctl_json "$WORK/st.json" status s || fail "status failed"
nobuf=$(jget "$WORK/st.json" sessions s channels channel0 lost_without_buffer)
"$TRACE_READ" --format json "$D" >"$WORK/tr.json" 2>"$WORK/tr.err" || fail "trace-read: $(head -3 "$WORK/tr.err")"
count() {
	python3 -c '
import json, sys
n = 0
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["pid"] == int(sys.argv[2]) and e["event"] == "shmtrace_test:event":
        n += 1
print(n)' "$WORK/tr.json" "$1"
}
a=$(count "$CHILD_a")
b=$(count "$CHILD_b")
c=$(count "$CHILD_c")
[ "$a" -eq "$N" ] || fail "child a (pid $CHILD_a): $a of its $N events in the trace (lost without a buffer: $nobuf)"
[ "$c" -eq "$N" ] || fail "child c (pid $CHILD_c): $c of its $N events in the trace (lost without a buffer: $nobuf)"
[ "$((b + nobuf))" -eq "$N" ] ||
	fail "child b (pid $CHILD_b): $b events in the trace and $nobuf counted lost, of $N"
echo "ok: a child that emitted after the next daemon came: $a of $N events in the trace;" \
	"one that emitted with no daemon: $b in the trace, $nobuf counted lost without a buffer;" \
	"one that emitted into the killed daemon's queue: $c in the trace"
