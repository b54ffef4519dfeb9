#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program that blocks the doorbell signal (SIGRTMIN+3), as daemons with a
# signal thread or a signalfd block every signal, is traced all the same,
# and so is its forked child: every event it emits after a session starts,
# or after its events are enabled again on an active session, is in the
# trace, exactly; and the
# doorbell never piles up in it: never more than one instance pending, not
# when it blocked it through the C library, nor with the raw system call
# (none then), nor while its only thread that could take it cannot. A program waiting
# in sigsuspend() with every other signal blocked sees a session started
# meanwhile from its first event after the wait. A thread that blocks
# every signal while the main thread does not leaves the doorbell in
# place (its marker stays); the main thread blocking it withdraws it, and
# unblocking it brings it back.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# churn N: N control changes that enable an event on the active session s
churn() {
	for _ in $(seq "$1"); do
		"$TRACECTL" enable-event -s s 'shmtrace_test:types' >/dev/null
		"$TRACECTL" disable-event -s s 'shmtrace_test:types' >/dev/null
	done
}

# count DIR NAME: NAME events in DIR, as trace-read and babeltrace2 read them
count() {
	local n m
	[ -d "$1" ] || { echo 0; return; }	# nothing recorded, no trace
	n=$(bt_count "$1" "$2")
	m=$("$TRACE_READ" --stats=count "$1" | awk -v e="$2" '$2 == e { s += $1 } END { print s + 0 }')
	[ "$n" -eq "$m" ] || fail "$1: babeltrace2 reads $n $2, trace-read $m"
	echo "$n"
}

# pending_le TAG MAX: harsh-app TAG said "pending N" with N <= MAX
pending_le() {
	local line=
	eval "read -r -t 30 line <&\$HOUT_$1" || true
	case $line in
	"pending "[0-9]*) ;;
	*) fail "$1: harsh-app said '$line', expected 'pending N'" ;;
	esac
	[ "${line#pending }" -le "$2" ] || fail "$1: ${line#pending } doorbell signals pending, at most $2 allowed"
	PENDING=${line#pending }
}

# blocked TAG WHEN: harsh-app blocks every signal with sigprocmask, before
# the session exists (WHEN=first) or once it recorded from it (WHEN=later)
blocked() {
	local tag=$1 D=$WORK/$1 n first= later=
	[ "$2" = first ] && first=blockall || later=blockall
	harsh_start "$tag" emit:100 $first ready emit:1000 $later done emit:500 mark:300 done \
		pending emit:200 forkemit:300
	harsh_expect "$tag" ready
	new_session "$D" 'shmtrace_test:event'
	harsh_go "$tag"
	harsh_expect "$tag" done
	# off and on again, and another event, on the active session
	"$TRACECTL" disable-event -s s 'shmtrace_test:event' >/dev/null
	"$TRACECTL" enable-event -s s 'shmtrace_test:event' >/dev/null
	"$TRACECTL" enable-event -s s 'shmtrace_test:mark' >/dev/null
	harsh_go "$tag"
	harsh_expect "$tag" done
	churn 100
	harsh_go "$tag"
	pending_le "$tag" 1
	harsh_expect "$tag" "emitted 1800"
	harsh_expect "$tag" "consumed 0 doorbell 0"
	harsh_wait "$tag"
	[ "$HSTATUS" -eq 0 ] || fail "$tag: harsh-app exited $HSTATUS"
	"$TRACECTL" stop s >/dev/null
	status_json "$WORK/status.$tag" s || fail "$tag: status failed"
	"$TRACECTL" destroy s >/dev/null
	n=$(count "$D" shmtrace_test:event)
	[ "$n" -eq 2000 ] || fail "$tag: $n shmtrace_test:event in the trace, expected 1000 + 500 + 200, and 300 of a forked child"
	n=$(grep -c 'shmtrace_test:event: .*payload = "child"' "$WORK/bt.out" || true)
	[ "$n" -eq 300 ] || fail "$tag: $n events of the forked child, expected 300"
	n=$(count "$D" shmtrace_test:mark)
	[ "$n" -eq 300 ] || fail "$tag: $n shmtrace_test:mark in the trace, expected 300"
	for f in discarded lost_without_buffer lost_to_write_errors; do
		[ "$(status_sum "$WORK/status.$tag" s "$f")" = 0 ] ||
			fail "$tag: status: $f $(status_sum "$WORK/status.$tag" s "$f")"
	done
}
blocked first first
blocked later later

# with the raw system call, every signal blocked: never rung (it would
# stay pending for the program's sigwait or signalfd)
harsh_start raw rawblockall ready pending
harsh_expect raw ready
new_session "$WORK/raw" 'shmtrace_test:event'
churn 100
harsh_go raw
pending_le raw 0
harsh_wait raw
[ "$HSTATUS" -eq 0 ] || fail "raw: harsh-app exited $HSTATUS"
"$TRACECTL" destroy s >/dev/null

# the one thread that does not block it cannot take it (it sits in vfork):
# one instance pending at most, however many changes
harsh_start vf rawblockall vforkhold ready pending vforkrelease
harsh_expect vf ready
new_session "$WORK/vf" 'shmtrace_test:event'
churn 100
harsh_go vf
pending_le vf 1
vf=$PENDING
harsh_wait vf
[ "$HSTATUS" -eq 0 ] || fail "vfork: harsh-app exited $HSTATUS"
"$TRACECTL" destroy s >/dev/null

# a session started while the program waits with a temporary mask
harsh_start su ready suspend emit:300
harsh_expect su ready
harsh_go su
harsh_expect su suspended
new_session "$WORK/su" 'shmtrace_test:event'
eval "kill -USR1 \$HPID_su"
harsh_expect su "emitted 300"
harsh_wait su
[ "$HSTATUS" -eq 0 ] || fail "suspend: harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(count "$WORK/su" shmtrace_test:event)
[ "$n" -eq 300 ] || fail "suspend: $n events in the trace, expected 300"

# whose mask matters: the main thread's, not a worker's
marker() {
	local pid
	eval "pid=\$HPID_$1"
	[ -e "$SHMTRACE_HOME/apps/$pid" ] && echo yes || echo no
}
harsh_start mk ready workerblock done blockall done unblockall done
harsh_expect mk ready
[ "$(marker mk)" = yes ] || fail "no marker at start"
harsh_go mk
harsh_expect mk done
[ "$(marker mk)" = yes ] || fail "a worker that blocks every signal withdrew the doorbell"
harsh_go mk
harsh_expect mk done
[ "$(marker mk)" = no ] || fail "the main thread blocks every signal: the doorbell is still there"
harsh_go mk
harsh_expect mk done
[ "$(marker mk)" = yes ] || fail "the main thread unblocked every signal: no doorbell"
harsh_go mk
harsh_wait mk
[ "$HSTATUS" -eq 0 ] || fail "marker: harsh-app exited $HSTATUS"
echo "ok: blocked programs traced, at most one doorbell pending ($vf with a thread in vfork)"
