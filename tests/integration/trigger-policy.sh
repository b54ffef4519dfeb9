#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Event triggers' rate policies, wait-trigger and remove-trigger
# (acceptance 3 of triggers), on events no session records (the polled
# path): every:1000 over 4 threads of 5000 events fires exactly 20 times
# (the count is exact across threads; a firing the process's ring cannot
# hold until the session daemon reads it is counted as lost, never gone); once-after:2500 fires once;
# wait-trigger returns with the firing event's fields; remove-trigger
# stops a trigger.
. "$(dirname "$0")/lib.sh"
start_daemons

# wait_field FILE TRIGGER FIELD WANT: list-triggers until FIELD of TRIGGER is WANT (10 s)
wait_field() {
	for _ in $(seq 100); do
		ctl_json "$1" list-triggers || fail "list-triggers failed"
		[ "$(jget_or none "$1" triggers "$2" "$3")" = "$4" ] && return 0
		sleep 0.1
	done
	fail "trigger $2: $3 is not $4: $(cat "$1")"
}

"$TRACECTL" add-trigger every --on-event 'shmtrace_test:event' --rate-policy every:1000 \
	--action notify >/dev/null || fail "add-trigger every"
"$TRACECTL" add-trigger once --on-event 'shmtrace_test:*' --rate-policy once-after:2500 \
	--action notify >/dev/null || fail "add-trigger once"
"$TRACECTL" add-trigger exact --on-event 'shmtrace_test:event' --filter 'seq == 4321 && thread == 2' \
	--action notify >/dev/null || fail "add-trigger exact"
ctl_json "$WORK/list0.json" list-triggers || fail "list-triggers"
[ "$(jget "$WORK/list0.json" triggers '#')" -eq 3 ] || fail "$(cat "$WORK/list0.json")"
[ "$(jget "$WORK/list0.json" triggers once condition rate_policy kind)" = once-after ] ||
	fail "$(cat "$WORK/list0.json")"

# clients waiting for two of them
"$TRACECTL" wait-trigger exact --timeout 60s --format json >"$WORK/exact.json" &
w1=$!
"$TRACECTL" wait-trigger once --timeout 60s --format json >"$WORK/once.json" &
w2=$!
wait_field "$WORK/l.json" exact waiters 1
wait_field "$WORK/l.json" once waiters 1

# bursts of 1000 events a thread, 20 ms apart: about 4 firings a burst,
# which the process's ring of 16 holds while the session daemon reads them
"$GEN" -n 5000 -t 4 -s 8 -p 20000 &
gen=$!
wait "$gen" || fail "gen-events failed"
wait "$w1" || fail "wait-trigger exact: $(cat "$WORK/exact.json")"
wait "$w2" || fail "wait-trigger once: $(cat "$WORK/once.json")"
wait_field "$WORK/l.json" once fired 1
wait_field "$WORK/l.json" exact fired 1
[ "$(jget "$WORK/l.json" triggers every matches)" -eq 20000 ] || fail "matches: $(cat "$WORK/l.json")"
# every 1000th match fires: 20, each acted on or, when the ring was full
# (a session daemon kept from running that long), counted as lost
for _ in $(seq 100); do
	ctl_json "$WORK/l.json" list-triggers || fail "list-triggers failed"
	[ $(($(jget "$WORK/l.json" triggers every fired) + $(jget "$WORK/l.json" triggers every lost))) \
		-eq 20 ] && break
	sleep 0.1
done
[ $(($(jget "$WORK/l.json" triggers every fired) + $(jget "$WORK/l.json" triggers every lost))) -eq 20 ] &&
	[ "$(jget "$WORK/l.json" triggers every fired)" -ge 1 ] ||
	fail "every: fired + lost is not 20: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" triggers once done)" = true ] || fail "once not done: $(cat "$WORK/l.json")"

# what fired, with the fields of its event
f=$WORK/exact.json
[ "$(jget "$f" firing trigger)" = exact ] && [ "$(jget "$f" firing event)" = shmtrace_test:event ] &&
	[ "$(jget "$f" firing fields seq)" -eq 4321 ] && [ "$(jget "$f" firing fields thread)" -eq 2 ] &&
	[ "$(jget "$f" firing fields payload)" = cdefghij ] && [ "$(jget "$f" firing pid)" -eq "$gen" ] &&
	[ "$(jget "$f" firing match)" -eq 1 ] && [ "$(jget "$f" firing before_commit)" = false ] ||
	fail "wait-trigger exact: $(cat "$f")"
[ "$(jget "$WORK/once.json" firing match)" -eq 2500 ] &&
	[ "$(jget "$WORK/once.json" firing pid)" -eq "$gen" ] || fail "wait-trigger once: $(cat "$WORK/once.json")"

# a timeout is said as such, exit status 1
st=0
ctl_json "$WORK/timeout.json" wait-trigger every --timeout 200ms || st=$?
[ "$st" -eq 1 ] && [ "$(error_code "$WORK/timeout.json")" = wait-timeout ] ||
	fail "wait-trigger --timeout: status $st, $(cat "$WORK/timeout.json")"

# removed: it fires no more; once-after stays done
ctl_json "$WORK/rm.json" remove-trigger every || fail "remove-trigger failed"
[ "$(jget "$WORK/rm.json" triggers every removed)" = true ] || fail "$(cat "$WORK/rm.json")"
"$GEN" -n 5000 -t 4 -s 8 || fail "gen-events failed"
sleep 0.5
ctl_json "$WORK/l2.json" list-triggers || fail "list-triggers"
[ "$(jget "$WORK/l2.json" triggers '#')" -eq 2 ] || fail "after remove: $(cat "$WORK/l2.json")"
[ "$(jget "$WORK/l2.json" triggers once fired)" -eq 1 ] || fail "once fired again: $(cat "$WORK/l2.json")"
[ "$(jget "$WORK/l2.json" triggers exact fired)" -eq 2 ] || fail "exact: $(cat "$WORK/l2.json")"
st=0
ctl_json "$WORK/rm2.json" remove-trigger every || st=$?
[ "$st" -eq 1 ] && [ "$(error_code "$WORK/rm2.json")" = no-trigger ] || fail "removed twice: $(cat "$WORK/rm2.json")"
grep -q 'trigger exact fired: shmtrace_test:event' "$SHMTRACE_HOME/sessiond.log" ||
	fail "notify: no log line"
echo "ok: every:1000 fired $(jget "$WORK/l.json" triggers every fired) times" \
	"(lost $(jget "$WORK/l.json" triggers every lost)) over 4 threads, once-after once," \
	"wait-trigger with the fields, remove-trigger"
