#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl record ends as soon as nothing of its command runs, with
# everything on disk: short commands recorded back to back, whose
# processes end just as the command does (children it waited for, an
# orphan that exits after it), each event of theirs counted exactly, in
# the summary as in the trace, and no session left behind.
. "$(dirname "$0")/lib.sh"
start_daemons
FORK=$B/tests/apps/fork-events
ROUNDS=10

# run NAME WANT CMD...: record CMD (exit status 0); the summary and
# trace-read both count WANT shmtrace_test:event events, none discarded,
# and stop counted as many events as the trace holds
run() {
	local name=$1 want=$2 rc=0 n s
	shift 2
	"$TRACECTL" record --format json --output "$WORK/$name" -- "$@" >/dev/null \
		2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "$name: record exited with status $rc: $(tail -3 "$WORK/$name.err")"
	[ "$(jget "$WORK/$name.err" incomplete)" = false ] || fail "$name: the trace is incomplete"
	s=$(jget_or 0 "$WORK/$name.err" trace events_by_name shmtrace_test:event count)
	n=$("$TRACE_READ" --stats=count --event 'shmtrace_test:event' "$WORK/$name" |
		awk '$2 == "total" { print $1 }')
	[ "$s" = "$want" ] || fail "$name: the summary counts $s test events, expected $want"
	[ "$n" = "$want" ] || fail "$name: $n test events in the trace, expected $want"
	[ "$(jget "$WORK/$name.err" summary discarded)" = 0 ] || fail "$name: events discarded"
	[ "$(jget "$WORK/$name.err" summary recorded)" = "$(jget "$WORK/$name.err" trace events)" ] ||
		fail "$name: stop counted $(jget "$WORK/$name.err" summary recorded) events, the trace holds $(jget "$WORK/$name.err" trace events)"
	rm -rf "${WORK:?}/$name"
}

for ((i = 0; i < ROUNDS; i++)); do
	# one process, two threads
	run "gen$i" 1000 "$GEN" -n 500 -t 2
	# children that exit just before their parent
	run "fork$i" 1000 "$FORK" 4 200 100
	# an orphan that outlives the command by a little
	run "orphan$i" 300 sh -c "(sleep 0.0$((i % 5)); exec '$GEN' -n 300) & exit 0"
done
[ "$(nsessions)" = 0 ] || fail "a session is left"
echo "ok: $ROUNDS rounds"
