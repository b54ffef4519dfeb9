#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Malformed and truncated messages are refused with an error reply (or the
# connection closed), logged, and the session daemon keeps serving. So are
# a traced process's malformed descriptions of buffer and aggregation
# segments, each logged once, while the well-formed ones are taken.
. "$(dirname "$0")/lib.sh"
start_daemons
"$B/tests/apps/bad-client" || fail "bad-client"
kill -0 "$SESSIOND_PID" || fail "the session daemon died"
"$TRACECTL" list >/dev/null || fail "tracectl list failed afterwards"
grep -q "malformed" "$SHMTRACE_HOME/sessiond.log" || fail "nothing logged"
# a traced process works as before
"$TRACECTL" create s --output "$WORK/out" >/dev/null
"$TRACECTL" enable-event 'shmtrace_test:*' >/dev/null
"$TRACECTL" start >/dev/null
"$GEN" -n 100 -t 1 || fail "gen-events failed"
"$TRACECTL" stop >/dev/null
status_json "$WORK/status.json" || fail "status failed"
[ "$(status_field s channel0 recorded)" = 100 ] || fail "status: $(cat "$WORK/status.json")"
"$TRACECTL" destroy s >/dev/null

# segments, with an aggregation active (its definition in every control page)
"$TRACECTL" create g --output "$WORK/g" >/dev/null &&
	"$TRACECTL" aggregate -s g counts 'shmtrace_test:event' --count >/dev/null &&
	"$TRACECTL" start g >/dev/null || fail "cannot set up session g"
"$B/tests/apps/bad-client" segments >"$WORK/seg.out" || fail "bad-client segments: $(cat "$WORK/seg.out")"
nseg=$(sed -n 's/^buffer segments refused //p' "$WORK/seg.out")
nagg=$(sed -n 's/^aggregation segments refused //p' "$WORK/seg.out")
[ "${nseg:-0}" -gt 0 ] && [ "${nagg:-0}" -gt 0 ] || fail "bad-client said: $(cat "$WORK/seg.out")"
n=$(grep -c "bad-client\[[0-9]*\]: malformed buffer segment refused" "$SHMTRACE_HOME/sessiond.log" || true)
[ "$n" -eq "$nseg" ] || fail "$n malformed buffer segments logged, $nseg sent"
n=$(grep -c "bad-client\[[0-9]*\]: malformed aggregation segment refused" "$SHMTRACE_HOME/sessiond.log" || true)
[ "$n" -eq "$nagg" ] || fail "$n malformed aggregation segments logged, $nagg sent"
kill -0 "$SESSIOND_PID" || fail "the session daemon died"
"$TRACECTL" show-aggregations -s g >/dev/null || fail "show-aggregations failed afterwards"
"$TRACECTL" destroy g >/dev/null || fail "destroy failed afterwards"
echo "ok: $nseg malformed buffer and $nagg aggregation segments refused"
