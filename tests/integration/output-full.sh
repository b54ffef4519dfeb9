#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A full disk, on a 5 MB tmpfs (in a mount namespace of the test's own;
# skipped where mounting is not permitted). Full at create: refused, as is
# a read-only file system. Filled while tracing: the program runs on at
# full speed, the consumer keeps draining without spinning, every event
# is in the trace, reported discarded or counted as lost to write errors
# (exactly: their sum is what was emitted), what the trace holds reads
# whole, and stop, status and record fail, saying the file and the errno.
if [ -z "${SHMTRACE_TEST_NS:-}" ]; then
	command -v unshare >/dev/null 2>&1 || { echo "unshare not installed: skipped"; exit 77; }
	unshare --mount --propagation private true 2>/dev/null ||
		{ echo "no mount namespace allowed: skipped"; exit 77; }
	SHMTRACE_TEST_NS=1 exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
need_babeltrace
M=$WORK/mnt
mkdir "$M"
mount -t tmpfs -o size=5m tmpfs "$M" 2>/dev/null || { echo "cannot mount a tmpfs: skipped"; exit 77; }
trap 'rc=$?; umount -l "$M" 2>/dev/null; (exit $rc); cleanup' EXIT
expect_log "error: cannot write $M/[^ ]*: No space left on device \\(errno 28\\)"
start_daemons

# 1. full at create, and read-only: refused
dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null || true
rc=0
ctl_json "$WORK/o" create s --output "$M/out" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "create on a full disk: exit status $rc: $(cat "$WORK/o")"
[ "$(error_code "$WORK/o")" = output-refused ] && [ "$(jget "$WORK/o" error path)" = "$M/out" ] &&
	[ "$(jget "$WORK/o" error errno)" = 28 ] || fail "create on a full disk said: $(cat "$WORK/o")"
[ ! -e "$M/out" ] || fail "create on a full disk left $M/out"
rm "$M/fill"
mount -o remount,ro "$M"
rc=0
ctl_json "$WORK/o" create s --output "$M/out" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o")" = output-refused ] &&
	[ "$(jget "$WORK/o" error errno)" = 30 ] ||
	fail "create on a read-only file system: exit status $rc: $(cat "$WORK/o")"
mount -o remount,rw "$M"
echo "refused at create: full, read-only"

# 2. filled while tracing: 400000 events of about 100 bytes, 40 MB
D=$M/out
new_session "$D" 'shmtrace_test:*'
gen_idle g -n 200000 -t 2 -s 64
c0=$(awk '{ print $14 + $15 }' "/proc/$CONSUMERD_PID/stat")
sleep 1
c1=$(awk '{ print $14 + $15 }' "/proc/$CONSUMERD_PID/stat")
[ $((c1 - c0)) -le 10 ] || fail "the consumer used $((c1 - c0)) ticks in 1 s after write errors"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
rc=0
ctl_json "$WORK/stop.json" stop s 2>"$WORK/stop.err" || rc=$?
[ "$rc" -eq 1 ] || fail "stop after write errors: exit status $rc"
# the error: the file, the errno, the events lost; the channel's record the same
[ "$(error_code "$WORK/stop.json")" = write-error ] && [ "$(jget "$WORK/stop.json" error errno)" = 28 ] &&
	[[ $(jget "$WORK/stop.json" error path) == "$D/gen-events-$IDLE_PID/channel0_"* ]] ||
	fail "stop said: $(cat "$WORK/stop.json")"
werr() { jget "$WORK/stop.json" sessions s channels channel0 write_error "$1"; }
[ "$(werr errno)" = 28 ] && [ "$(werr traces)" = 1 ] &&
	[ "$(werr path)" = "$(jget "$WORK/stop.json" error path)" ] &&
	[ "$(jget "$WORK/stop.json" error events_lost)" = "$(jget "$WORK/stop.json" summary lost_to_write_errors)" ] ||
	fail "stop's channel: $(cat "$WORK/stop.json")"
rc=0
status_json "$WORK/status.json" s 2>"$WORK/status.err" || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/status.json")" = write-error ] &&
	[ "$(jget "$WORK/status.json" error errno)" = 28 ] ||
	fail "status after write errors: exit status $rc: $(cat "$WORK/status.json")"
grep -q "No space left on device (errno 28): the trace's events are lost" \
	"$SHMTRACE_HOME/consumerd.log" || fail "the consumer logged: $(grep error "$SHMTRACE_HOME/consumerd.log")"
field() { jget "$WORK/status.json" sessions s channels channel0 "$1"; }
rec=$(field recorded)
disc=$(field discarded)
nobuf=$(field lost_without_buffer)
lost=$(field lost_to_write_errors)
echo "emitted 400000: recorded $rec, discarded $disc, lost without a buffer $nobuf, lost to write errors $lost"
[ "$lost" -gt 0 ] || fail "no event counted as lost to write errors"
[ $((rec + disc + nobuf + lost)) -eq 400000 ] ||
	fail "$rec + $disc + $nobuf + $lost != 400000 emitted"
"$TRACECTL" destroy s >/dev/null || fail "destroy failed"
# the files hold whole packets: read in full, the events recorded
n=$("$TRACE_READ" --stats=count "$D" 2>"$WORK/tr.err" | awk '$2 == "total" { print $1 }') ||
	fail "trace-read failed: $(head -3 "$WORK/tr.err")"
[ "$n" -eq "$rec" ] || fail "trace-read read $n events, $rec recorded"
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
n=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
[ "$n" -eq "$rec" ] || fail "babeltrace2 read $n events, $rec recorded"

# 3. record: nonzero (125), the command's own status said, the loss in the summary
rm -rf "${D:?}"/*
rc=0
"$TRACECTL" record --format json --output "$M/rec" -- sh -c "'$GEN' -n 200000 -t 2 -s 64; exit 3" \
	2>"$WORK/rec.err" || rc=$?
tail -n 1 "$WORK/rec.err"
[ "$rc" -eq 125 ] || fail "record with write errors: exit status $rc"
[ "$(jget "$WORK/rec.err" summary lost_to_write_errors)" -gt 0 ] || fail "no loss in the summary"
[ "$(jget "$WORK/rec.err" run exit_status)" = 3 ] && [ "$(jget "$WORK/rec.err" exit_status)" = 125 ] &&
	[ "$(jget "$WORK/rec.err" incomplete)" = true ] || fail "the command's status is not said"
[ "$(jget "$WORK/rec.err" error code)" = write-error ] &&
	[[ $(jget "$WORK/rec.err" error path) == "$M/rec/"* ]] || fail "record does not say what failed"
echo "ok"
