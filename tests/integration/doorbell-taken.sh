#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The doorbell signal (SIGRTMIN+3) is only a hint. A program that resets
# it to its default action, ignores it, handles it itself (with sigaction,
# signal, sigset, bsd_signal or sysv_signal, whose one-shot handler a
# second signal would kill), or never had it (SHMTRACE_SIGNAL=0) is traced
# all the same, from its next event after a session starts, and never
# receives the signal from shmtrace: not when it changes the action while
# the daemon rings it hundreds of times, and not when it bypasses the C
# library to change it.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# run TAG STEPS...: harsh-app STEPS (they end with "ready emit:N done"),
# the session started once it is ready; expects N events in the trace.
run() {
	local tag=$1 want D=$WORK/$1 n
	shift
	want=${*: -2:1}
	want=${want#emit:}
	harsh_start "$tag" "$@"
	harsh_expect "$tag" ready
	new_session "$D" 'shmtrace_test:*'
	harsh_go "$tag"
	harsh_expect "$tag" done
	harsh_go "$tag"
	harsh_wait "$tag"
	[ "$HSTATUS" -eq 0 ] || fail "$tag: harsh-app exited $HSTATUS"
	"$TRACECTL" stop s >/dev/null
	"$TRACECTL" destroy s >/dev/null
	n=$(bt_count "$D" shmtrace_test:event)
	[ "$n" -eq "$want" ] || fail "$tag: $n events in the trace, expected $want"
}

run reset resetsig ready emit:1000 done
run ignore ignoresig ready emit:1000 done
run own ownsig ready emit:1000 done
SHMTRACE_SIGNAL=0 run nobell ready emit:1000 done
# the other functions that change an action: a wrapper that did not see
# the change would leave the process unaware of the session (0 events,
# the default action) or let the doorbell reach its handler (exit 3)
run sigset_dfl wrap:sigset:dfl ready emit:1000 done
run sigset_own wrap:sigset:own ready emit:1000 done
run bsd_dfl wrap:bsd_signal:dfl ready emit:1000 done
run sysv_own wrap:sysv_signal:own ready emit:1000 done

# the action changes back and forth while the daemon rings again and again
harsh_start tg ready toggle:1500 done
harsh_expect tg ready
"$TRACECTL" create s --output "$WORK/tg" >/dev/null
"$TRACECTL" start s >/dev/null
harsh_go tg
rings=0
t0=$(date +%s%N)
while [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 1300 ]; do
	"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
	"$TRACECTL" disable-event -s s 'shmtrace_test:*' >/dev/null
	rings=$((rings + 1))
done
harsh_expect tg done
harsh_go tg
harsh_wait tg
[ "$HSTATUS" -eq 0 ] || fail "toggling harsh-app exited $HSTATUS (a signal reached it?)"
"$TRACECTL" destroy s >/dev/null

# a raw system call goes around the library: never killed by the doorbell;
# the daemon sees that the process no longer catches it (log, status), and
# the process, whose events were all disabled, sees the session only at an
# enabled event: its 10 events are not recorded (a known limit)
harsh_start raw rawreset ready emit:10 done
harsh_expect raw ready
new_session "$WORK/raw" 'shmtrace_test:*'
"$TRACECTL" enable-event -s s 'shmtrace_proc:*' >/dev/null
grep -q "harsh-app\[$HPID_raw\] no longer catches signal " "$SHMTRACE_HOME/sessiond.log" ||
	fail "the session daemon did not see that harsh-app[$HPID_raw] no longer catches the doorbell"
status_json "$WORK/raw.json" s || fail "status failed"
[ "$(jget "$WORK/raw.json" sessions s processes "pid=$HPID_raw" doorbell)" = false ] ||
	fail "status does not say harsh-app[$HPID_raw] has no doorbell"
harsh_go raw
harsh_expect raw done
harsh_go raw
harsh_wait raw
[ "$HSTATUS" -eq 0 ] || fail "harsh-app with a raw reset exited $HSTATUS"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
[ ! -e "$WORK/raw" ] || fail "events of the process that reset the doorbell: $(ls -R "$WORK/raw" | head)"
echo "ok: traced without the doorbell, never signalled ($rings rings while toggling)"
