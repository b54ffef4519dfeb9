#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A memory-only session across restarts: the session daemon killed
# (SIGKILL), the next one resumes the session memory-only (status says
# so, a discard channel is still refused, the events clear discarded are
# still counted) and it still writes nothing until a snapshot; the
# consumer killed, the next one maps the same buffers and still writes
# nothing, and a snapshot still holds exactly the events after the last
# clear (its mark lives in the shared buffers).
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out

no_output() {
	[ ! -e "$D" ] || [ -z "$(find "$D" -mindepth 1 -maxdepth 1 ! -name 'snapshot-*' -print -quit)" ] ||
		fail "$1: the output holds $(ls -A "$D")"
}

# snap_only DIR PID N: DIR holds PID's trace alone, N events per thread of its
# two, seq 0..N-1, read alike by trace-read and babeltrace2
snap_only() {
	local tr
	[ "$(cd "$1" && echo *)" = "gen-events-$2" ] || fail "$1 holds $(ls "$1"), not process $2 alone"
	tr=$("$TRACE_READ" --stats=count "$1" | awk '$2 == "total" { print $1 }')
	[ "$tr" -eq $((2 * $3)) ] && [ "$(bt_count "$1" shmtrace_test:event)" -eq "$tr" ] ||
		fail "$1: trace-read $tr events, babeltrace2 $(bt_count "$1" shmtrace_test:event)"
	check_seqs "$WORK/bt.out" 2 "$3"
}

"$TRACECTL" create fr --snapshot --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s fr c --subbuf-size 64k --num-subbuf 4 --flush-interval 30s >/dev/null &&
	"$TRACECTL" enable-event -s fr -c c 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start fr >/dev/null || fail "cannot set up fr"
gen_idle g -n 5000 -t 2
ctl_json "$WORK/c.json" clear fr || fail "clear failed"
cleared=$(jget "$WORK/c.json" sessions fr channels c cleared)
[ "$cleared" -gt 0 ] || fail "clear discarded nothing"
gen_idle h -n 1000 -t 2
H=$IDLE_PID
grep -q '"memory_only":1' "$SHMTRACE_HOME/state.json" || fail "state.json: $(cat "$SHMTRACE_HOME/state.json")"

# the session daemon killed; the next one resumes the session
restart_sessiond "$WORK/st.json" fr
[ "$(jget "$WORK/st.json" sessions fr memory_only)" = true ] &&
	[ "$(jget "$WORK/st.json" sessions fr active)" = true ] &&
	[ "$(jget "$WORK/st.json" sessions fr channels c mode)" = overwrite ] &&
	[ "$(jget "$WORK/st.json" sessions fr channels c cleared)" -eq "$cleared" ] ||
	fail "not resumed memory-only: $(cat "$WORK/st.json")"
rc=0
ctl_json "$WORK/o.json" enable-channel -s fr d --discard || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = memory-only-discard ] ||
	fail "a discard channel after the restart: exit $rc: $(cat "$WORK/o.json")"
no_output "after the session daemon's restart"
"$TRACECTL" snapshot fr --output "$WORK/s1" >/dev/null || fail "snapshot after the restart failed"
snap_only "$WORK/s1" "$H" 1000

# the consumer killed; the next one maps the same buffers
old=$CONSUMERD_PID
kill_daemon KILL "$old"
shmtrace_wait_gone "$old" || fail "consumer $old still runs"
shmtrace_daemons_wait "$SHMTRACE_HOME" 200 "$old" || fail "no new consumer after $old"
ok=0
for _ in $(seq 50); do
	"$TRACECTL" snapshot fr --output "$WORK/s2" >/dev/null 2>&1 && { ok=1; break; }
	rm -rf "$WORK/s2"
	sleep 0.1
done
[ "$ok" -eq 1 ] || fail "no snapshot after the consumer's restart"
snap_only "$WORK/s2" "$H" 1000
no_output "after the consumer's restart"
release_idle g
release_idle h
wait || true
"$TRACECTL" destroy fr >/dev/null || fail "destroy failed"
[ ! -e "$D" ] || fail "the output holds $(ls -A "$D")"
echo "ok: resumed memory-only, $cleared events cleared before; snapshots hold the $((2 * 1000)) newer events"
