#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl list-events names each event's log level as
# <shmtrace/shmtrace.h> does, with its number: "    provider:event
# (loglevel SHMTRACE_INFO = 6) { type name, ... }" under "PROCNAME[PID]",
# and the shell completion still finds the event names in it.
. "$(dirname "$0")/lib.sh"
start_daemons
gen_bg g ready -w -n 10 -t 1 -T
"$TRACECTL" list-events >"$WORK/list" || fail "list-events failed"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
grep -qx "gen-events\[$IDLE_PID\]" "$WORK/list" || fail "no gen-events[$IDLE_PID]: $(cat "$WORK/list")"
has() {
	grep -qxF "$1" "$WORK/list" || fail "no line '$1' in: $(cat "$WORK/list")"
}
has "    shmtrace_test:event (loglevel SHMTRACE_INFO = 6) { u64 seq, u32 thread, string payload }"
has "    shmtrace_test:mark (loglevel SHMTRACE_NOTICE = 5) {  }"
grep -q "^    shmtrace_test:types (loglevel SHMTRACE_DEBUG = 7) { u8 u8, " "$WORK/list" ||
	fail "no shmtrace_test:types at SHMTRACE_DEBUG"
grep -q "^    shmtrace_proc:exec (loglevel SHMTRACE_INFO = 6) { string path, s32 pid, s32 ppid }$" \
	"$WORK/list" || fail "no shmtrace_proc:exec at SHMTRACE_INFO"
# every event line has a level with its name
n=$(grep -c '^    ' "$WORK/list")
[ "$n" -ge 4 ] || fail "$n events listed"
[ "$(grep -c '^    [^ ]* (loglevel SHMTRACE_[A-Z]* = [0-7]) { .* }$' "$WORK/list")" -eq "$n" ] ||
	fail "an event line of another form: $(grep -v '^    [^ ]* (loglevel SHMTRACE_[A-Z]* = [0-7]) {' "$WORK/list" | grep '^    ')"
# what completion/tracectl reads from it
sed -n 's/^    \([^ ]*\) (loglevel .*/\1/p' "$WORK/list" | grep -qx "shmtrace_test:mark" ||
	fail "the completion's parsing no longer finds the events"
echo "ok: $n events with their levels named"
