#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two hosts, one relay: two sets of daemons, each in a UTS namespace of
# its own with its own host name, stream concurrently to one lttng-relayd.
# Its output holds each host's traces under the host's name; trace-read
# and babeltrace2 read them merged in time order, each event with its host.
. "$(dirname "$0")/lib.sh"
need_babeltrace
unshare --uts true 2>/dev/null || { echo "cannot make UTS namespaces here: skipped"; exit 77; }
start_relay a
N=300
for h in alpha beta; do
	home=$WORK/home.$h
	OTHER_HOMES="${OTHER_HOMES:-} $home"
	shmtrace_daemons_start "$B" "$home" "" unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' \
		sh "$h" || fail "cannot start the daemons of $h"
	SHMTRACE_HOME=$home "$TRACECTL" create s --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" \
		>/dev/null || fail "create on $h failed"
	SHMTRACE_HOME=$home "$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
	SHMTRACE_HOME=$home "$TRACECTL" start s >/dev/null
done
gens=
for h in alpha beta; do
	SHMTRACE_HOME=$WORK/home.$h "$GEN" -n "$N" -t 1 -e 2000 >/dev/null &
	gens="$gens $!"
done
for g in $gens; do
	wait "$g" || fail "gen-events failed"
done
for h in alpha beta; do
	SHMTRACE_HOME=$WORK/home.$h "$TRACECTL" stop s >/dev/null || fail "stop on $h failed"
	SHMTRACE_HOME=$WORK/home.$h "$TRACECTL" destroy s >/dev/null
	[ -d "$RELAY_OUT/$h" ] || fail "no traces of host $h in the relay's output"
done

# babeltrace2: every event, both hosts, in time order
n=$(bt_count "$RELAY_OUT" shmtrace_test:event)
[ "$n" -eq $((2 * N)) ] || fail "babeltrace2 read $n events, expected $((2 * N))"
for h in alpha beta; do
	[ "$(grep -c "\] ([^)]*) $h:gen-events:" "$WORK/bt.out")" -eq "$N" ] ||
		fail "babeltrace2: not $N events of host $h"
done
# the two hosts' events interleave (they ran at the same time)
switches=$(sed -n 's/^[^)]*) \([a-z]*\):gen-events.*/\1/p' "$WORK/bt.out" | uniq | wc -l)
[ "$switches" -gt 10 ] || fail "babeltrace2: the hosts' events do not interleave ($switches runs)"

# trace-read: the same, each line naming its host, times never going back
"$TRACE_READ" "$RELAY_OUT" >"$WORK/tr.out" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
for h in alpha beta; do
	[ "$(grep -c "^[^ ]* ([^)]*) $h:gen-events:" "$WORK/tr.out")" -eq "$N" ] ||
		fail "trace-read: not $N events of host $h: $(head -2 "$WORK/tr.out")"
done
grep -q '(-' "$WORK/tr.out" && fail "trace-read: time goes back: $(grep -m1 '(-' "$WORK/tr.out")"
switches=$(sed -n 's/^[^)]*) \([a-z]*\):gen-events.*/\1/p' "$WORK/tr.out" | uniq | wc -l)
[ "$switches" -gt 10 ] || fail "trace-read: the hosts' events do not interleave ($switches runs)"
echo "ok: $((2 * N)) events of two hosts merged in time order ($switches runs)"
