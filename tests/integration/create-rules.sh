#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a newcomer met with create, add-context and flush intervals:
# - create --output refuses a directory that is not empty, as record does
#   (runs are never merged); an empty one is taken;
# - add-context -t ip enables the state dump the addresses are named
#   from, and the events then carry names (ip_sym);
# - a session whose channels flush every 200 ms tells followers so (its
#   .shmtrace-active marker), not the 1 s default.
. "$(dirname "$0")/lib.sh"
start_daemons

mkdir -p "$WORK/used" "$WORK/empty"
echo old >"$WORK/used/old-run"
rc=0
ctl_json "$WORK/u.json" create u --output "$WORK/used" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "create on a directory that is not empty: exit status $rc"
[ "$(error_code "$WORK/u.json")" = output-used ] && [ "$(jget "$WORK/u.json" error path)" = "$WORK/used" ] ||
	fail "create does not say why: $(cat "$WORK/u.json")"
ctl_json "$WORK/list.json" list || fail "list failed"
[ "$(jget "$WORK/list.json" sessions '#')" = 0 ] || fail "session u was made anyway"
"$TRACECTL" create e --output "$WORK/empty" >/dev/null || fail "create on an empty directory"
"$TRACECTL" destroy e >/dev/null

# ip named without asking for the state dump
D=$WORK/ip
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" add-context -s s -t ip >/dev/null || fail "add-context failed"
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
status_json "$WORK/st.json" s || fail "status failed"
[ "$(jget_or none "$WORK/st.json" sessions s channels channel0 enablers 'pattern=shmtrace_statedump:*' \
	pattern)" = 'shmtrace_statedump:*' ] || fail "the state dump is not enabled: $(cat "$WORK/st.json")"
"$TRACECTL" start s >/dev/null
"$GEN" -n 10 -t 1 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACE_READ" --format json "$D" >"$WORK/ip.json" || fail "trace-read failed"
python3 - "$WORK/ip.json" <<'PY' || fail "the addresses are not named"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
ev = [e for e in evs if e["event"] == "shmtrace_test:event"]
if len(ev) != 10 or not all(e.get("context", {}).get("ip_sym") for e in ev):
    sys.exit(f"{len(ev)} events, named: {[e.get('context') for e in ev][:2]}")
PY
"$TRACECTL" destroy s >/dev/null

# the followers' hold-back follows the channels' flush interval
"$TRACECTL" create f --output "$WORK/fast" >/dev/null
"$TRACECTL" enable-channel -s f c --flush-interval 200ms >/dev/null || fail "enable-channel"
"$TRACECTL" enable-event -s f -c c 'shmtrace_test:*' >/dev/null
"$TRACECTL" start f >/dev/null
read -r pid ms <"$WORK/fast/.shmtrace-active" || fail "no marker"
[ "$pid" = "$SESSIOND_PID" ] && [ "$ms" = 200 ] || fail "the marker says '$pid $ms', not '$SESSIOND_PID 200'"
"$TRACECTL" destroy f >/dev/null
echo "ok"
