#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl gives up on a session daemon that does not answer: with the
# session daemon stopped (SIGSTOP), every form of the timeout (--timeout
# before the command or among its options, SHMTRACE_CTL_TIMEOUT) makes a
# request return with status 1 within a few seconds, naming the daemon's
# pid and its state; stop, whose default is long, gives up once it sees the
# daemon stopped. Once continued (SIGCONT), everything works: the session
# records as before, and the requests given up were carried out all the
# same (giving up cancels nothing). record's own wait for its command is no
# request: a command that runs longer than the timeout is traced to its end.
. "$(dirname "$0")/lib.sh"
start_daemons
new_session "$WORK/out" 'shmtrace_test:*'
"$TRACECTL" create t --output "$WORK/t" >/dev/null &&
	"$TRACECTL" enable-event -s t 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start t >/dev/null || fail "cannot set up session t"

resume() {
	kill -CONT "$SESSIOND_PID" 2>/dev/null || true
}
sfail() {
	resume
	fail "$@"
}

# gives_up MAX WHAT CMD...: status 1 within MAX seconds; CMD --format json
# says so, with the daemon's pid and state (view, whose --format is
# trace-read's, only in words)
gives_up() {
	local max=$1 what=$2 st=0 t0 t1 json=--format=json
	shift 2
	[ "$(basename "$3")" != view ] && [ "$(basename "$2")" != view ] || json=
	t0=$(date +%s%N)
	timeout 120 "$@" $json >"$WORK/out.txt" 2>"$WORK/err.txt" || st=$?
	t1=$(date +%s%N)
	[ "$st" -eq 1 ] || sfail "$what: status $st, expected 1: $(head -3 "$WORK/err.txt")"
	[ $(((t1 - t0) / 1000000000)) -lt "$max" ] ||
		sfail "$what: returned after $(((t1 - t0) / 1000000)) ms"
	if [ -n "$json" ]; then
		[ "$(error_code "$WORK/out.txt")" = no-answer ] &&
			[ "$(jget "$WORK/out.txt" error daemon_pid)" = "$SESSIOND_PID" ] &&
			[ "$(jget "$WORK/out.txt" error daemon_state)" = stopped ] ||
			sfail "$what: pid and state not said: $(cat "$WORK/out.txt")"
		python3 "$(dirname "$0")/json-schema.py" "$top_srcdir/doc/json.md" "$WORK/out.txt" >/dev/null ||
			sfail "$what: a document doc/json.md does not allow: $(cat "$WORK/out.txt")"
	fi
	echo "ok: $what: $(((t1 - t0) / 1000000)) ms: $(head -1 "$WORK/err.txt")"
}

kill -STOP "$SESSIOND_PID"
gives_up 8 "--timeout 1s status" "$TRACECTL" --timeout 1s status
gives_up 8 "status --timeout 1s" "$TRACECTL" status --timeout 1s
gives_up 8 "status --timeout=500ms" "$TRACECTL" status s --timeout=500ms
gives_up 8 "SHMTRACE_CTL_TIMEOUT=1s list" env SHMTRACE_CTL_TIMEOUT=1s "$TRACECTL" list
gives_up 8 "enable-event --timeout 1s" "$TRACECTL" enable-event -s s --timeout 1s 'x:*'
gives_up 8 "show-aggregations --timeout 1s" "$TRACECTL" show-aggregations -s s --timeout 1s
gives_up 8 "view --timeout 1s" "$TRACECTL" view s --timeout 1s
# an option among the command's wins over the environment
gives_up 8 "--timeout 1s over SHMTRACE_CTL_TIMEOUT=1h" \
	env SHMTRACE_CTL_TIMEOUT=1h "$TRACECTL" status --timeout 1s
# stop's default is long (a large flush may take minutes) but a stopped
# daemon cannot be flushing: given up after 10 s
gives_up 40 "stop, default timeout" "$TRACECTL" stop t
[ "$(jget "$WORK/out.txt" error waiting_for)" = answer ] &&
	[ "$(jget "$WORK/out.txt" error waited_ms)" -ge 10000 ] || sfail "stop: $(cat "$WORK/out.txt")"
resume

# continued: it answers; the stop given up was carried out, s is as it was
"$TRACECTL" --timeout 10s status --format json >"$WORK/status.json" || fail "status after SIGCONT failed"
[ "$(jget "$WORK/status.json" sessions s active)" = true ] || fail "s is not active: $(cat "$WORK/status.json")"
[ "$(jget "$WORK/status.json" sessions t active)" = false ] || fail "t was not stopped: $(cat "$WORK/status.json")"
"$GEN" -n 100 -t 2 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop after SIGCONT failed"
"$TRACECTL" destroy s >/dev/null || fail "destroy after SIGCONT failed"
n=$("$TRACE_READ" "$WORK/out" | wc -l)
[ "$n" -eq 200 ] || fail "$n events recorded after SIGCONT, expected 200"

# 0: no limit
"$TRACECTL" --timeout 0 list >/dev/null || fail "--timeout 0 list failed"

# bad values: status 2, said
for v in 1 1x -1s 25h; do
	st=0
	"$TRACECTL" --timeout "$v" list >/dev/null 2>"$WORK/err.txt" || st=$?
	[ "$st" -eq 2 ] || fail "--timeout $v: status $st, expected 2"
	st=0
	SHMTRACE_CTL_TIMEOUT=$v "$TRACECTL" list >/dev/null 2>"$WORK/err.txt" || st=$?
	[ "$st" -eq 2 ] || fail "SHMTRACE_CTL_TIMEOUT=$v: status $st, expected 2"
done

# record: its requests are bounded, its command is not
"$TRACECTL" --timeout 1s record --output "$WORK/rec1" -- sh -c 'sleep 3; exec "$0" -n 10 -t 1' "$GEN" \
	2>"$WORK/rec.err" || fail "record --timeout 1s of a 3 s command failed: $(tail -3 "$WORK/rec.err")"
[ "$("$TRACE_READ" "$WORK/rec1" | grep -c 'shmtrace_test:event')" -eq 10 ] ||
	fail "record --timeout 1s: not every event recorded"
"$TRACECTL" record --timeout 1s --output "$WORK/rec2" -- sleep 2 2>"$WORK/rec.err" ||
	fail "record --timeout 1s (its option) of a 2 s command failed: $(tail -3 "$WORK/rec.err")"
echo "ok: record --timeout 1s of commands of 2 and 3 s"
