#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The output directory removed while a program is traced: the events
# written into the removed files and those that come after are counted as
# lost to write errors (recorded + discarded + lost == emitted), the
# consumer logs the real errno, and stop and status fail, saying the file
# and "No such file or directory".
. "$(dirname "$0")/lib.sh"
D=$WORK/out
expect_log "error: cannot write $D/gen-events-[0-9]+/[^ ]*: No such file or directory \\(errno 2\\)"
start_daemons
new_session "$D" 'shmtrace_test:*'
# 2 threads, 300000 events each, a pause of 2 ms every 1000: about 0.6 s
"$GEN" -n 300000 -t 2 -p 2000 &
gen=$!
for _ in $(seq 50); do
	[ -n "$(ls "$D"/gen-events-*/channel0_* 2>/dev/null)" ] && break
	sleep 0.02
done
[ -n "$(ls "$D"/gen-events-*/channel0_* 2>/dev/null)" ] || fail "no stream file written"
rm -rf "$D"
wait "$gen" || fail "gen-events failed"
rc=0
ctl_json "$WORK/stop.json" stop s 2>"$WORK/stop.err" || rc=$?
[ "$rc" -eq 1 ] || fail "stop after the output was removed: exit status $rc"
[ "$(error_code "$WORK/stop.json")" = write-error ] && [ "$(jget "$WORK/stop.json" error errno)" = 2 ] &&
	[[ $(jget "$WORK/stop.json" error path) == "$D/gen-events-$gen/channel0_"* ]] ||
	fail "stop said: $(cat "$WORK/stop.json")"
rc=0
status_json "$WORK/status.json" s 2>"$WORK/status.err" || rc=$?
[ "$rc" -eq 1 ] && [ "$(jget "$WORK/status.json" error errno)" = 2 ] ||
	fail "status: exit status $rc: $(cat "$WORK/status.json")"
grep -q "No such file or directory (errno 2)" "$SHMTRACE_HOME/consumerd.log" ||
	fail "the consumer logged: $(grep error "$SHMTRACE_HOME/consumerd.log")"
field() { jget "$WORK/status.json" sessions s channels channel0 "$1"; }
rec=$(field recorded)
disc=$(field discarded)
lost=$(field lost_to_write_errors)
echo "emitted 600000: recorded $rec (then removed), discarded $disc, lost to write errors $lost"
[ "$lost" -gt 0 ] || fail "no event counted as lost"
[ $((rec + disc + lost)) -eq 600000 ] || fail "$rec + $disc + $lost != 600000 emitted"
"$TRACECTL" destroy s >/dev/null || fail "destroy failed"
echo "ok"
