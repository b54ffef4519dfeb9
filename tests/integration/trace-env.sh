#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The env block of a trace's metadata holds the keys LTTng-UST writes and
# that Trace Compass and babeltrace2 show (doc/trace-format.md): the
# session's name and creation time, the host, the buffering scheme, the
# architecture's width, the domain. The creation time is the session's,
# not the trace's: a process traced after both daemons were killed and
# the session resumed from the saved state has the same one.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
t0=$(date +%s)
"$TRACECTL" create envs --output "$D" >/dev/null &&
	"$TRACECTL" enable-event -s envs 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start envs >/dev/null || fail "cannot set up session envs"
"$GEN" -n 10 -t 1 >/dev/null &
A=$!
wait "$A" || fail "gen-events $A failed"
t1=$(date +%s)

# the session daemon killed: the next one resumes envs from its state and
# gives its channels to a new consumer (the first ended with the processes
# it had); that consumer killed too, they go to a third
restart_sessiond "$WORK/st.json" envs
old=$(shmtrace_daemon_pid consumerd)
kill_daemon KILL "$old"
shmtrace_wait_gone "$old" || fail "consumer $old still runs"
shmtrace_daemons_wait "$SHMTRACE_HOME" 200 "$old" || fail "no new consumer after $old"
CONSUMERD_PID=$(shmtrace_daemon_pid consumerd)
"$GEN" -n 10 -t 1 >/dev/null &
B=$!
wait "$B" || fail "gen-events $B failed"
"$TRACECTL" stop envs >/dev/null || fail "stop failed"

for p in "$A" "$B"; do
	"$BT" --output-format=ctf-metadata "$D/gen-events-$p" >"$WORK/meta.$p" 2>"$WORK/bt.err" ||
		fail "babeltrace2 cannot read the metadata of $p: $(head -3 "$WORK/bt.err")"
done
python3 - "$WORK/meta.$A" "$A" "$WORK/meta.$B" "$B" "$t0" "$t1" "$(hostname)" <<'PY' ||
import datetime, re, sys

def env(path):
    text = open(path).read()
    block = re.search(r"\benv\s*\{(.*?)\};", text, re.S).group(1)
    out = {}
    for k, v in re.findall(r"(\w+)\s*=\s*(\"[^\"]*\"|-?\d+)\s*;", block):
        out[k] = v[1:-1] if v.startswith('"') else int(v)
    return out

ma, a, mb, b, t0, t1, host = sys.argv[1:]
ea, eb = env(ma), env(mb)
for e, pid in ((ea, int(a)), (eb, int(b))):
    want = {"domain": "ust", "trace_name": "envs", "hostname": host,
            "tracer_name": "shmtrace", "tracer_buffering_scheme": "pid",
            "tracer_buffering_id": pid, "vpid": pid, "architecture_bit_width": 64,
            "procname": "gen-events"}
    bad = {k: (e.get(k), v) for k, v in want.items() if e.get(k) != v}
    assert not bad, ("env of %d: (got, want)" % pid, bad)
    assert re.fullmatch(r"\d{8}T\d{6}[+-]\d{4}", e["trace_creation_datetime"]), e
when = datetime.datetime.strptime(ea["trace_creation_datetime"], "%Y%m%dT%H%M%S%z")
assert int(t0) <= when.timestamp() <= int(t1), (ea["trace_creation_datetime"], t0, t1)
assert eb["trace_creation_datetime"] == ea["trace_creation_datetime"], (ea, eb)
PY
	fail "the env of the traces is not the session's"
exit 0
