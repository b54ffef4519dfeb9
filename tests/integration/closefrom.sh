#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced program that closes every descriptor (closefrom, a loop up to
# the limit), as daemons do, keeps being traced: the session daemon sees
# the connection close while the process runs, keeps its trace going and
# rings it; the process registers again with new descriptors, and every
# event it emitted is in the trace or counted as discarded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# run TAG STEPS...: a traced harsh-app; its events end up in $WORK/TAG
run() {
	local tag=$1 D=$WORK/$1 n
	shift
	new_session "$D" 'shmtrace_test:*'
	harsh_start "$tag" "$@"
	harsh_expect "$tag" ready
	harsh_go "$tag"
	harsh_expect "$tag" done
	harsh_go "$tag"
	harsh_expect "$tag" "emitted 3000"
	harsh_wait "$tag"
	[ "$HSTATUS" -eq 0 ] || fail "$tag: harsh-app exited $HSTATUS"
	"$TRACECTL" stop s >"$WORK/$tag.stop" || fail "$tag: stop failed"
	"$TRACECTL" destroy s >/dev/null
	n=$(bt_count "$D" shmtrace_test:event)
	[ "$n" -eq 3000 ] || fail "$tag: $n events in the trace, expected 3000"
	seq_pairs "$WORK/bt.out" | sort -u -k2,2n | awk '$2 != NR - 1 { exit 1 }' ||
		fail "$tag: events missing or repeated"
}

# close_range while running, doorbell in place: it registers again
run cf ready emit:1000 closefrom emit:1000 sleep:300 emit:1000 done
grep -q "registered again" "$SHMTRACE_HOME/sessiond.log" ||
	fail "the session daemon did not see the process register again"
grep -q "registered again" "$SHMTRACE_HOME/consumerd.log" ||
	fail "the consumer did not take the new process page"

# a daemon's start: every signal reset, every descriptor closed in a loop;
# the session starts after that (no doorbell: control changes are polled)
run dm resetsig closeloop ready emit:1000 sleep:200 emit:1000 closefrom emit:1000 done
n=$(grep -c "registered again" "$SHMTRACE_HOME/sessiond.log")
[ "$n" -ge 2 ] || fail "the daemonized process did not register again"
echo "ok: closed descriptors, 3000 events twice, $n new registrations"
