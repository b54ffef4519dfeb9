#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The marker a traced process leaves in $SHMTRACE_HOME/apps/<pid> (for a
# session daemon started later) is removed when the process goes, however
# it goes: killed, crashed, _exit, or while no daemon ran; a live process
# keeps its own.
. "$(dirname "$0")/lib.sh"
APPS=$SHMTRACE_HOME/apps

# gone TAG...: every process TAG's marker disappears within 6 s
gone() {
	local t pid
	for _ in $(seq 60); do
		for t in "$@"; do
			eval "pid=\$HPID_$t"
			[ -e "$APPS/$pid" ] && { sleep 0.1; continue 2; }
		done
		return 0
	done
	for t in "$@"; do
		eval "pid=\$HPID_$t"
		[ -e "$APPS/$pid" ] && fail "the marker of $t (pid $pid) is still there"
	done
}

# processes that leave without their atexit handler, a daemon running
start_daemons
new_session "$WORK/out" 'shmtrace_test:*'
harsh_start live ready
harsh_start killed ready
harsh_start quits ready quit
harsh_start crashes ready
for t in live killed quits crashes; do harsh_expect "$t" ready; done
for t in live killed quits crashes; do
	eval "pid=\$HPID_$t"
	[ -e "$APPS/$pid" ] || fail "no marker for $t"
done
eval "kill -KILL \$HPID_killed"
eval "kill -SEGV \$HPID_crashes"
harsh_go quits
gone killed quits crashes
eval "pid=\$HPID_live"
[ -e "$APPS/$pid" ] || fail "the live process lost its marker"

# a process that died while no daemon ran: the next daemon's sweep
stop_daemons
harsh_start nodaemon ready
harsh_expect nodaemon ready
eval "kill -KILL \$HPID_nodaemon"
eval "wait \$HPID_nodaemon" 2>/dev/null || true
eval "pid=\$HPID_nodaemon"
[ -e "$APPS/$pid" ] || fail "no marker left by the killed process"
start_daemons
gone nodaemon
harsh_go live
harsh_wait live
[ "$HSTATUS" -eq 0 ] || fail "the live process exited $HSTATUS"
echo "ok: markers of processes that went are removed, a live one's stays"
