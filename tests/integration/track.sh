#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# track and untrack: which processes a session records, by pid, uid and
# executable. Processes already registered follow each change (their
# events enabled or not again), those that register later are decided
# then; kinds are and-ed; a kind untracked to an empty set records
# nothing; untrack of a value not tracked, or of a kind that tracks every
# process, is refused and changes nothing. status shows it (JSON
# "tracking", "processes"), and a session daemon killed and started
# again keeps it.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'

# events DIR PID: shmtrace_test:event of process PID in DIR (0: no trace)
events() {
	local t
	t=$(find "$1" -mindepth 1 -maxdepth 1 -type d -name "*-$2")
	if [ -z "$t" ]; then
		echo 0
		return
	fi
	bt_count "$t" shmtrace_test:event
}
# tracked FILE KIND: the values of KIND in the tracking of session s, or "all"
tracked() {
	if [ "$(jget "$1" sessions s tracking "$2" all)" = true ]; then
		echo all
	else
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(",".join(str(v) for v in d["sessions"][0]["tracking"][sys.argv[2]]["values"]))' "$1" "$2"
	fi
}
# traced_pids: the pids status lists for session s, sorted
traced_pids() {
	status_json "$WORK/st.json" s || fail "status failed"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["sessions"][0]
assert s["processes_traced"] == len(s["processes"])
print(" ".join(sorted(str(p["pid"]) for p in s["processes"])))' "$WORK/st.json"
}

# by default every process; a and b, three phases of 10 events each
harsh_start a emit:10 ready emit:10 ready emit:10 done
harsh_start b emit:10 ready emit:10 ready emit:10 done
harsh_expect a ready
harsh_expect b ready
status_json "$WORK/st.json" s
for k in pid uid exe; do
	[ "$(tracked "$WORK/st.json" $k)" = all ] || fail "$k tracked by default: $(cat "$WORK/st.json")"
done
[ "$(traced_pids)" = "$(echo "$HPID_a $HPID_b" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
	fail "status does not list both processes: $(traced_pids)"

# phase 2: a alone
ctl_json "$WORK/t.json" track -s s --pid "$HPID_a" || fail "track --pid failed"
[ "$(tracked "$WORK/t.json" pid)" = "$HPID_a" ] && [ "$(tracked "$WORK/t.json" uid)" = all ] ||
	fail "track --pid: $(cat "$WORK/t.json")"
[ "$(traced_pids)" = "$HPID_a" ] || fail "status lists $(traced_pids), not $HPID_a"
harsh_go a
harsh_go b
harsh_expect a ready
harsh_expect b ready
# refused, nothing changed: a pid not tracked; a kind that tracks every process
rc=0
ctl_json "$WORK/t.json" untrack -s s --pid "$HPID_b" || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/t.json")" = not-tracked ] &&
	[ "$(jget "$WORK/t.json" error value)" = "$HPID_b" ] || fail "untrack of b: $rc $(cat "$WORK/t.json")"
rc=0
ctl_json "$WORK/t.json" untrack -s s --pid "$HPID_a" --uid 0 || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/t.json")" = tracking-all ] ||
	fail "untrack --uid of every uid: $rc $(cat "$WORK/t.json")"
[ "$(traced_pids)" = "$HPID_a" ] || fail "a refused untrack changed the tracking"

# phase 3: only gen-events programs: neither
"$TRACECTL" track -s s --all >/dev/null || fail "track --all failed"
ctl_json "$WORK/t.json" track -s s --exe '*/gen-events' || fail "track --exe failed"
[ "$(tracked "$WORK/t.json" exe)" = '*/gen-events' ] && [ "$(tracked "$WORK/t.json" pid)" = all ] ||
	fail "track --exe: $(cat "$WORK/t.json")"
[ "$(traced_pids)" = "" ] || fail "status lists $(traced_pids) for */gen-events"
harsh_go a
harsh_go b
harsh_expect a done
harsh_expect b done
# processes that register now: by their executable
"$GEN" -n 100 -t 1 >/dev/null || fail "gen-events failed"
harsh_start c ready emit:100
harsh_expect c ready
cpid=$HPID_c
# kinds are and-ed: gen-events of another uid than ours records nothing
"$TRACECTL" track -s s --uid 4242 >/dev/null || fail "track --uid failed"
"$GEN" -n 100 -t 1 >/dev/null || fail "gen-events failed"
# ... and of ours, again
"$TRACECTL" track -s s --uid "$(id -u)" >/dev/null || fail "track --uid failed"
"$GEN" -n 100 -t 1 >/dev/null || fail "gen-events failed"
harsh_go c
harsh_wait c
[ "$HSTATUS" -eq 0 ] || fail "harsh-app c exited $HSTATUS"
harsh_go a
harsh_go b
harsh_wait a
[ "$HSTATUS" -eq 0 ] || fail "harsh-app a exited $HSTATUS"
harsh_wait b
[ "$HSTATUS" -eq 0 ] || fail "harsh-app b exited $HSTATUS"

# the session daemon killed: the next one has the same tracking
status_json "$WORK/before.json" s || fail "status failed"
restart_sessiond "$WORK/after.json" s
python3 - "$WORK/before.json" "$WORK/after.json" <<'PY' || fail "tracking not resumed"
import json, sys
a, b = (json.load(open(f))["sessions"][0]["tracking"] for f in sys.argv[1:])
sys.exit(0 if a == b and a["uid"]["values"] == [4242, int(__import__("os").getuid())] else 1)
PY
"$TRACECTL" stop s >/dev/null || fail "stop failed"

n=$(events "$D" "$HPID_a")
[ "$n" -eq 20 ] || fail "process a: $n events, expected 20 (phases 1 and 2)"
n=$(events "$D" "$HPID_b")
[ "$n" -eq 10 ] || fail "process b: $n events, expected 10 (phase 1)"
n=$(events "$D" "$cpid")
[ "$n" -eq 0 ] || fail "process c (not gen-events): $n events recorded"
gens=$(find "$D" -mindepth 1 -maxdepth 1 -type d -name 'gen-events-*' | wc -l)
[ "$gens" -eq 2 ] || fail "$gens traces of gen-events, expected 2 (not the one of uid 4242 only)"
for t in "$D"/gen-events-*; do
	n=$(bt_count "$t" shmtrace_test:event)
	[ "$n" -eq 100 ] || fail "$t: $n events, expected 100"
done
# untrack --all: an empty set of every kind, nothing recorded
ctl_json "$WORK/t.json" untrack -s s --all || fail "untrack --all failed"
for k in pid uid exe; do
	[ "$(tracked "$WORK/t.json" $k)" = "" ] || fail "untrack --all: $k $(tracked "$WORK/t.json" $k)"
done
"$TRACECTL" destroy s >/dev/null
echo "ok: the sessions record the processes tracked, by pid, uid and executable"
