#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced program that closes every descriptor (closefrom, a loop up to
# the limit), as daemons do, keeps being traced: the session daemon sees
# the connection close while the process runs, keeps its trace going and
# rings it; the process registers again with new descriptors, and every
# event it emitted is in the trace.
#
# The program waits at each "ready" while the test waits for the session
# daemon's view of it (tracectl status) to reach the next state: never a
# fixed sleep, so that a loaded machine cannot make the process exit before
# its new registration is read (the daemon then sees it gone first).
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# reg_state PID: "DETACHED AGAIN" of harsh-app[PID] in tracectl status:
# 1 while its connection is closed, and the times it registered again
reg_state() {
	local d
	"$TRACECTL" status s --format json >"$WORK/reg.json" 2>/dev/null || true
	d=$(jget_or false "$WORK/reg.json" sessions s processes "pid=$1" detached)
	echo "$([ "$d" = true ] && echo 1 || echo 0) $(jget_or 0 "$WORK/reg.json" sessions s processes \
		"pid=$1" registered_again)"
}

# wait_reg TAG STATE: until harsh-app TAG's reg_state is STATE (30 s at most)
wait_reg() {
	local pid st=
	eval "pid=\$HPID_$1"
	for _ in $(seq 600); do
		st=$(reg_state "$pid")
		[ "$st" = "$2" ] && return 0
		sleep 0.05
	done
	fail "$1: harsh-app[$pid] stays '$st' (detached, registered again), expected '$2'"
}

# run TAG STEPS...: harsh-app STEPS (each "ready" but the first given a
# state to reach in STATES), 3000 events in $WORK/TAG
run() {
	local tag=$1 D=$WORK/$1 n st
	shift
	new_session "$D" 'shmtrace_test:*'
	harsh_start "$tag" "$@"
	for st in "${STATES[@]}"; do
		harsh_expect "$tag" ready
		[ "$st" = - ] || wait_reg "$tag" "$st"
		harsh_go "$tag"
	done
	harsh_expect "$tag" done
	wait_reg "$tag" "$LAST"
	harsh_go "$tag"
	harsh_expect "$tag" "emitted 3000"
	harsh_wait "$tag"
	[ "$HSTATUS" -eq 0 ] || fail "$tag: harsh-app exited $HSTATUS"
	"$TRACECTL" stop s >"$WORK/$tag.stop" || fail "$tag: stop failed"
	"$TRACECTL" destroy s >/dev/null
	n=$(bt_count "$D" shmtrace_test:event)
	[ "$n" -eq 3000 ] || fail "$tag: $n events in the trace, expected 3000"
	seq_pairs "$WORK/bt.out" | sort -k2,2n | awk '$2 != NR - 1 { exit 1 }' ||
		fail "$tag: events missing or repeated"
}

# registered_again TAG N: both daemons continued harsh-app TAG's trace
# exactly N times (never as a new process)
registered_again() {
	local pid n f
	eval "pid=\$HPID_$1"
	for f in sessiond consumerd; do
		n=$(grep -c "harsh-app\[$pid\] registered again" "$SHMTRACE_HOME/$f.log" || true)
		[ "$n" -eq "$2" ] || fail "$1: trace-$f continued harsh-app[$pid] $n times, expected $2"
	done
	n=$(grep -c "registered harsh-app\[$pid\]$" "$SHMTRACE_HOME/sessiond.log" || true)
	[ "$n" -eq 1 ] || fail "$1: harsh-app[$pid] registered as a new process $n times"
}

# close_range while running, doorbell in place: the daemon rings it while
# it waits, and it registers again from the signal handler
STATES=("0 0" "0 1") LAST="0 1"
run cf ready emit:1000 closefrom ready emit:2000 done
registered_again cf 1

# a daemon's start: every signal reset, every descriptor closed in a loop;
# no doorbell: each time, it registers again at its next event
STATES=("1 0" "0 1" "1 1") LAST="0 2"
run dm resetsig closeloop ready emit:1000 ready emit:1000 closefrom ready emit:1000 done
registered_again dm 2
echo "ok: closed descriptors, 3000 events twice, registered again once and twice"
