#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --stats counts processes as they ran: a fork once, though
# the parent and the child both record it (fork-events forks 7 children);
# each program a pid executes as a row of its own (sh executes sh, which
# executes ls: three images of one pid); one program across a rotation of
# the session (two chunks, two traces) as one process.
. "$(dirname "$0")/lib.sh"
PRE=$B/.libs/libshmtrace.so
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_proc:*' 'shmtrace_test:*'
"$B/tests/apps/fork-events" 7 10 70 >"$WORK/children" || fail "fork-events failed"
[ "$(wc -l <"$WORK/children")" -eq 7 ] || fail "$(wc -l <"$WORK/children") children"
P=$(LD_PRELOAD=$PRE sh -c 'echo $$; exec sh -c "exec ls / >/dev/null"') || fail "sh failed"
gen_bg g ready -w -n 100 -t 1
G=$IDLE_PID
"$TRACECTL" rotate s >/dev/null || fail "rotate failed"
release_idle g
wait "$G" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
[ "$(find "$D" -name "gen-events-$G" | wc -l)" -eq 2 ] || fail "gen-events $G: not in both chunks"

"$TRACE_READ" --stats "$D" >"$WORK/stats" 2>"$WORK/tr.err" || fail "--stats failed: $(cat "$WORK/tr.err")"
"$TRACE_READ" --stats=count "$D" >"$WORK/count" || fail "--stats=count failed"
events=$("$TRACE_READ" "$D" | wc -l)
forks=$("$TRACE_READ" -e shmtrace_proc:fork "$D" | wc -l)
[ "$forks" -eq 14 ] || fail "$forks fork events, expected 14 (the parent's and the children's)"
show() { cat "$WORK/stats" >&2; }
grep -Eq "^ +7 +[0-9.]+% +shmtrace_proc:fork$" "$WORK/stats" || { show; fail "--stats: not 7 forks"; }
grep -qx " *7  shmtrace_proc:fork" "$WORK/count" || fail "--stats=count: not 7 forks: $(cat "$WORK/count")"
# the total still counts the events as recorded
grep -qx " *$events  total" "$WORK/count" || fail "--stats=count: total is not $events: $(cat "$WORK/count")"
grep -q "^Events: $events in " "$WORK/stats" || { show; fail "--stats: not $events events"; }
# fork-events and its 7 children, sh/sh/ls, gen-events: 10 pids, 2 execs
grep -q "^Events: .*, 10 processes (2 execs), " "$WORK/stats" || { show; fail "not 10 processes, 2 execs"; }
for w in "sh\[$P\] tid $P \(image 1\)" "sh\[$P\] tid $P \(image 2\)" "ls\[$P\] tid $P \(image 3\)"; do
	grep -Eq "^ +[0-9]+  $w$" "$WORK/stats" || { show; fail "no row $w"; }
done
[ "$(grep -c "\[$P\]" "$WORK/stats")" -eq 3 ] || { show; fail "pid $P: not 3 rows"; }
# gen-events: its main thread and its worker, once each, across the chunks
[ "$(grep -c "^ *[0-9]*  gen-events\[$G\] tid [0-9]*$" "$WORK/stats")" -eq 2 ] ||
	{ show; fail "gen-events $G: not 2 rows"; }
grep -Eq "^ +100  gen-events\[$G\] tid [0-9]+$" "$WORK/stats" || { show; fail "gen-events $G: no worker with 100 events"; }
echo "ok: 7 forks of 14 fork events, 3 images of pid $P, gen-events $G across 2 chunks as one"
