#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program with a dedicated signal thread, which takes every signal with
# sigtimedwait or reads them from a signalfd, never receives the doorbell
# signal (SIGRTMIN+3): not when a session starts, not when events are
# enabled on the active session, however many times; and it is traced all
# the same, every event it emits once the session started. The program
# reports every signal its thread took; SIGRTMIN+3 among them makes it
# exit with status 3.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# run TAG STEPS...: the program sets up its signal thread with STEPS, then
# emits 1000 events, waits while control changes come, and emits 1000 more
run() {
	local tag=$1 D=$WORK/$1 n
	shift
	harsh_start "$tag" emit:10 "$@" ready emit:1000 done emit:1000 stopwait
	harsh_expect "$tag" ready
	# the doorbell is withdrawn: no marker left for a daemon to ring
	eval "pid=\$HPID_$tag"
	[ ! -e "$SHMTRACE_HOME/apps/$pid" ] || fail "$tag: the doorbell is still there (its marker)"
	new_session "$D" 'shmtrace_test:event'
	harsh_go "$tag"
	harsh_expect "$tag" done
	for _ in $(seq 100); do
		"$TRACECTL" enable-event -s s 'shmtrace_test:mark' >/dev/null
		"$TRACECTL" disable-event -s s 'shmtrace_test:mark' >/dev/null
	done
	"$TRACECTL" stop s >/dev/null
	"$TRACECTL" start s >/dev/null
	harsh_go "$tag"
	harsh_expect "$tag" "emitted 2010"
	harsh_expect "$tag" "consumed 0 doorbell 0"
	harsh_wait "$tag"
	[ "$HSTATUS" -eq 0 ] || fail "$tag: harsh-app exited $HSTATUS"
	"$TRACECTL" stop s >/dev/null
	"$TRACECTL" destroy s >/dev/null
	n=$(bt_count "$D" shmtrace_test:event)
	[ "$n" -eq 2000 ] || fail "$tag: $n events in the trace, expected 2000"
}

# every thread blocks every signal, one takes them
run sigwait blockall waiter
run signalfd blockall waiterfd
# the main thread does not block them: the signal thread may still take
# what is sent to the process (when the main thread cannot at that moment)
run unblocked waiter
echo "ok: the doorbell never reached the signal thread"
