#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl list-events: each registered process with the events it
# described, their fields and types, and their log levels as
# <shmtrace/shmtrace.h> names them (JSON: "loglevel" and "loglevel_name");
# the text for people says the same, a line per event ("    provider:event
# (loglevel SHMTRACE_INFO = 6) { type name, ... }" under "PROCNAME[PID]"),
# made from the same records; the shell completion finds the event names.
. "$(dirname "$0")/lib.sh"
start_daemons
gen_bg g ready -w -n 10 -t 1 -T
ctl_json "$WORK/list.json" list-events || fail "list-events failed"
"$TRACECTL" list-events >"$WORK/list" || fail "list-events (text) failed"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
[ "$(jget "$WORK/list.json" processes "pid=$IDLE_PID" name)" = gen-events ] ||
	fail "no gen-events[$IDLE_PID]: $(cat "$WORK/list.json")"
ev() {	# ev NAME FIELD: a field of event NAME of the process
	jget "$WORK/list.json" processes "pid=$IDLE_PID" events "$1" "$2"
}
[ "$(ev shmtrace_test:event loglevel)" = 6 ] && [ "$(ev shmtrace_test:event loglevel_name)" = SHMTRACE_INFO ] &&
	[ "$(ev shmtrace_test:event fields)" = \
	  '[{"name":"seq","type":"u64"},{"name":"thread","type":"u32"},{"name":"payload","type":"string"}]' ] ||
	fail "shmtrace_test:event: $(ev shmtrace_test:event fields)"
[ "$(ev shmtrace_test:mark loglevel_name)" = SHMTRACE_NOTICE ] && [ "$(ev shmtrace_test:mark fields)" = '[]' ] ||
	fail "shmtrace_test:mark: $(ev shmtrace_test:mark loglevel_name)"
[ "$(ev shmtrace_test:types loglevel_name)" = SHMTRACE_DEBUG ] &&
	[ "$(jget "$WORK/list.json" processes "pid=$IDLE_PID" events shmtrace_test:types fields @0)" = \
	  '{"name":"u8","type":"u8"}' ] || fail "no shmtrace_test:types at SHMTRACE_DEBUG"
[ "$(ev shmtrace_proc:exec loglevel_name)" = SHMTRACE_INFO ] &&
	[ "$(ev shmtrace_proc:exec fields)" = \
	  '[{"name":"path","type":"string"},{"name":"pid","type":"s32"},{"name":"ppid","type":"s32"}]' ] ||
	fail "no shmtrace_proc:exec at SHMTRACE_INFO"
n=$(jget "$WORK/list.json" processes "pid=$IDLE_PID" events '#')
[ "$n" -ge 4 ] || fail "$n events listed"
# the text: the lines the JSON's records make, each process then its events
python3 - "$WORK/list.json" "$WORK/list" <<'PY' || fail "the text does not say what the records hold"
import json, sys
doc = json.load(open(sys.argv[1]))
want = []
for p in doc["processes"]:
    want.append("%s[%d]" % (p["name"], p["pid"]))
    for e in p["events"]:
        fields = ", ".join("%s %s" % (f["type"], f["name"]) for f in e["fields"])
        want.append("    %s (loglevel %s = %d) { %s }" % (e["name"], e["loglevel_name"], e["loglevel"], fields))
got = open(sys.argv[2]).read().splitlines()
assert got == want, (got[:5], want[:5])
PY
# what completion/tracectl finds
. "$top_srcdir/completion/tracectl"
_tracectl_cmd=$TRACECTL
gen_bg h ready -w -n 10 -t 1 -T
_tracectl_events | grep -qx "shmtrace_test:mark" || fail "the completion no longer finds the events"
release_idle h
wait "$IDLE_PID" || fail "gen-events failed"
echo "ok: $n events with their levels named"
