#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A flight recorder as an operator sets one up, every part of it at once:
# a memory-only session of two channels (an exclusion keeps an event in
# one of them only) that records gen-events only (track --exe; another
# traced program running beside is not recorded), an event trigger with
# --rate-policy once-after:2 that snapshots it, and a notify trigger
# that wait-trigger waits for. The snapshot holds the triggering event
# and what came before it; then clear, the session daemon killed
# (SIGKILL) and started again by the next command, which keeps all of
# it (the session, its tracking, its exclusion, the triggers, the spent
# once-after, the clear), and a second trigger firing: its snapshot
# holds only events emitted after the clear. babeltrace2 and trace-read
# read the same events in every snapshot; nothing else is written.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out

# wait_field FILE TRIGGER FIELD WANT: list-triggers until FIELD of TRIGGER is WANT (10 s)
wait_field() {
	for _ in $(seq 100); do
		ctl_json "$1" list-triggers || fail "list-triggers failed"
		[ "$(jget_or none "$1" triggers "$2" "$3")" = "$4" ] && return 0
		sleep 0.1
	done
	fail "trigger $2: $3 is not $4: $(cat "$1")"
}

# events DIR OUT: the events of the snapshot DIR, one "pid event thread
# seq" line each (thread and seq - for events without them), sorted, as
# trace-read reads them; babeltrace2 reads the same, pid aside (it names
# the process by its trace's directory), without a complaint
events() {
	"$TRACE_READ" --format json "$1" >"$WORK/tr.json" 2>"$WORK/tr.err" ||
		fail "trace-read $1: $(head -3 "$WORK/tr.err")"
	bt_read "$1"
	[ "$BT_DISC" -eq 0 ] || fail "babeltrace2: $BT_DISC events discarded in $1"
	python3 - "$WORK/tr.json" "$WORK/bt.out" >"$2" <<'PY' || fail "trace-read and babeltrace2 differ on $1 (above)"
import json, re, sys
tr = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    f = e.get("fields", {})
    tr.append((e["pid"], e["event"], f.get("thread", "-"), f.get("seq", "-")))
bt = []
for line in open(sys.argv[2]):
    m = re.search(r' (shmtrace_[a-z_]+:[a-z_]+): ', line)
    if not m:
        continue
    s = re.search(r'seq = ([0-9]+), thread = ([0-9]+)', line)
    bt.append((m.group(1), int(s.group(2)) if s else "-", int(s.group(1)) if s else "-"))
a = sorted((e, t, s) for _, e, t, s in tr)
b = sorted(bt)
if a != b:
    print("trace-read %d events, babeltrace2 %d" % (len(a), len(b)), file=sys.stderr)
    sys.exit(1)
for p, e, t, s in sorted(tr, key=str):
    print(p, e, t, s)
PY
}

# seqs FILE PID THREAD: "lo hi n" of shmtrace_test:event seqs of PID's THREAD in FILE
seqs() {
	awk -v p="$2" -v t="$3" '$1 == p && $2 == "shmtrace_test:event" && $3 == t {
		if (n == 0 || $4 < lo) lo = $4; if (n == 0 || $4 > hi) hi = $4; n++ }
		END { print (n ? lo : "-"), (n ? hi : "-"), n + 0 }' "$1"
}

# 1. the session: two channels, an exclusion, gen-events only
"$TRACECTL" create fr --snapshot --output "$D" >/dev/null || fail "create --snapshot failed"
"$TRACECTL" enable-channel -s fr hot --subbuf-size 64k --num-subbuf 16 --flush-interval 30s >/dev/null &&
	"$TRACECTL" enable-channel -s fr cold --subbuf-size 16k --num-subbuf 4 --flush-interval 30s \
		>/dev/null || fail "enable-channel failed"
# hot: every test event but types; cold: types only (once in a snapshot, not twice)
"$TRACECTL" enable-event -s fr -c hot 'shmtrace_test:*' -x 'shmtrace_test:types' >/dev/null &&
	"$TRACECTL" enable-event -s fr -c cold 'shmtrace_test:types' >/dev/null ||
	fail "enable-event failed"
ctl_json "$WORK/tk.json" track -s fr --exe '*/gen-events' || fail "track failed: $(cat "$WORK/tk.json")"
"$TRACECTL" start fr >/dev/null || fail "start failed"

# the triggers: a snapshot at the second seq 3000 of a process (its two
# threads each emit one); a notify on thread 1's seq 100
ctl_json "$WORK/t1.json" add-trigger snap1 --on-event 'shmtrace_test:event' --filter 'seq == 3000' \
	--rate-policy once-after:2 --action snapshot-session fr || fail "add-trigger snap1: $(cat "$WORK/t1.json")"
[ "$(jget "$WORK/t1.json" triggers snap1 condition rate_policy kind)" = once-after ] &&
	[ "$(jget "$WORK/t1.json" triggers snap1 condition rate_policy n)" -eq 2 ] ||
	fail "add-trigger snap1: $(cat "$WORK/t1.json")"
"$TRACECTL" add-trigger note --on-event 'shmtrace_test:event' --filter 'seq == 100 && thread == 1' \
	--action notify >/dev/null || fail "add-trigger note"
"$TRACECTL" wait-trigger note --timeout 60s --format json >"$WORK/note.json" &
waiter=$!
wait_field "$WORK/l.json" note waiters 1

# another traced program beside, not gen-events (the same binary under
# another name): one thread, seqs below the triggers' (it fires none)
mkdir -p "$WORK/bin"
cp "$B/tests/apps/.libs/gen-events" "$WORK/bin/other-events"
PROG=$WORK/bin/other-events LD_LIBRARY_PATH=$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	gen_idle other -n 90 -t 1 -T
OTHER=$IDLE_PID

# 2. gen-events a: two threads of 4000, then idle; snap1 fires at the
# second seq 3000, note at thread 1's seq 100
gen_idle a -n 4000 -t 2 -s 8 -T
A=$IDLE_PID
wait "$waiter" || fail "wait-trigger note: $(cat "$WORK/note.json")"
f=$WORK/note.json
[ "$(jget "$f" firing trigger)" = note ] && [ "$(jget "$f" firing pid)" -eq "$A" ] &&
	[ "$(jget "$f" firing event)" = shmtrace_test:event ] &&
	[ "$(jget "$f" firing fields seq)" -eq 100 ] && [ "$(jget "$f" firing fields thread)" -eq 1 ] ||
	fail "wait-trigger note: $(cat "$f")"
wait_field "$WORK/l.json" snap1 fired 1
[ "$(jget "$WORK/l.json" triggers snap1 done)" = true ] &&
	[ "$(jget "$WORK/l.json" triggers snap1 matches)" -eq 2 ] &&
	[ "$(jget "$WORK/l.json" triggers snap1 failed)" -eq 0 ] &&
	[ "$(jget "$WORK/l.json" triggers snap1 last_firing pid)" -eq "$A" ] ||
	fail "snap1: $(cat "$WORK/l.json")"
S1=$(jget "$WORK/l.json" triggers snap1 last_firing path)
case $S1 in "$D"/snapshot-*) ;; *) fail "snap1's snapshot at $S1" ;; esac
events "$S1" "$WORK/s1.ev"
# a's events only (not the other program's), each thread from seq 0 on
# (what came before the firing), one reaching 3000 at least (the firing
# event), no types event in hot (at most the one of cold)
awk -v a="$A" '$1 != a { print "pid " $1; exit 1 }' "$WORK/s1.ev" ||
	fail "snapshot 1 holds another process's events"
for t in 0 1; do
	read -r lo hi n <<<"$(seqs "$WORK/s1.ev" "$A" "$t")"
	[ "$lo" = 0 ] && [ "$n" -eq $((hi + 1)) ] || fail "snapshot 1, thread $t: seq $lo..$hi, $n events"
done
[ "$(awk '$2 == "shmtrace_test:event" && $4 == 3000' "$WORK/s1.ev" | wc -l)" -ge 1 ] ||
	fail "snapshot 1 does not hold the triggering event"
[ "$(grep -c ' shmtrace_test:types ' "$WORK/s1.ev")" -le 1 ] || fail "types twice: the exclusion"
echo "snapshot 1 (snap1, once-after:2): $(wc -l <"$WORK/s1.ev") events of process $A"
# a manual snapshot now: a's every event, types once (cold), the other program absent
ctl_json "$WORK/sm.json" snapshot fr --output "$WORK/manual" || fail "snapshot: $(cat "$WORK/sm.json")"
events "$WORK/manual" "$WORK/sm.ev"
for t in 0 1; do
	[ "$(seqs "$WORK/sm.ev" "$A" "$t")" = "0 3999 4000" ] ||
		fail "manual snapshot, thread $t: $(seqs "$WORK/sm.ev" "$A" "$t")"
done
[ "$(grep -c ' shmtrace_test:types ' "$WORK/sm.ev")" -eq 1 ] &&
	[ "$(grep -c ' shmtrace_test:mark ' "$WORK/sm.ev")" -eq 1 ] ||
	fail "manual snapshot: types $(grep -c ' shmtrace_test:types ' "$WORK/sm.ev"), mark $(grep -c ' shmtrace_test:mark ' "$WORK/sm.ev")"
[ -z "$(awk -v a="$A" '$1 != a' "$WORK/sm.ev")" ] && [ ! -e "$WORK/manual/other-events-$OTHER" ] ||
	fail "the other program is recorded: $(ls "$WORK/manual")"
status_json "$WORK/st.json" fr || fail "status failed"
[ "$(jget "$WORK/st.json" sessions fr processes_traced)" -eq 1 ] || fail "traced: $(cat "$WORK/st.json")"

# 3. clear, then the session daemon killed and started again
ctl_json "$WORK/clear.json" clear fr || fail "clear failed: $(cat "$WORK/clear.json")"
cleared=$(jget "$WORK/clear.json" sessions fr channels hot cleared)
# (the part of an open packet discarded is counted when its sub-buffer is
# reused, not as cleared: doc/architecture.md)
[ "$cleared" -gt 0 ] && [ "$cleared" -le 8002 ] || fail "cleared $cleared"
status_json "$WORK/before.json" fr || fail "status failed"
ctl_json "$WORK/tbefore.json" list-triggers || fail "list-triggers failed"
"$TRACECTL" save fr >"$WORK/before.profile" || fail "save failed"
restart_sessiond "$WORK/after.json" fr
python3 - "$WORK/before.json" "$WORK/after.json" <<'PY' || fail "the session changed across the restart (above)"
import json, sys
a, b = (json.load(open(f))["sessions"][0] for f in sys.argv[1:])
for k in ("memory_only", "active", "output", "tracking", "defaults"):
    if a[k] != b[k]:
        print(k, a[k], b[k], file=sys.stderr); sys.exit(1)
ca = {c["name"]: c for c in a["channels"]}
cb = {c["name"]: c for c in b["channels"]}
for n in ("hot", "cold"):
    for k in ("mode", "enabled", "enablers", "cleared"):
        if ca[n][k] != cb[n][k]:
            print(n, k, ca[n][k], cb[n][k], file=sys.stderr); sys.exit(1)
    if cb[n]["memory"]["held_events"] != 0:
        print(n, "holds", cb[n]["memory"], "after the clear", file=sys.stderr); sys.exit(1)
if b["processes_traced"] != 1:
    print("processes_traced", b["processes_traced"], file=sys.stderr); sys.exit(1)
PY
ctl_json "$WORK/tafter.json" list-triggers || fail "list-triggers failed"
for t in snap1 note; do
	for k in id fired matches done condition action last_firing; do
		[ "$(jget "$WORK/tafter.json" triggers "$t" "$k")" = "$(jget "$WORK/tbefore.json" triggers "$t" "$k")" ] ||
			fail "trigger $t: $k differs after the restart: $(cat "$WORK/tafter.json")"
	done
done
"$TRACECTL" save fr >"$WORK/after.profile" || fail "save failed"
cmp -s "$WORK/before.profile" "$WORK/after.profile" ||
	fail "the restarted daemon saves another profile: $(diff "$WORK/before.profile" "$WORK/after.profile")"
# nothing new: a snapshot has nothing to hold (a's old events were cleared)
rc=0
ctl_json "$WORK/o.json" snapshot fr --output "$WORK/none" || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = snapshot-empty ] ||
	fail "snapshot after clear and restart: exit $rc: $(cat "$WORK/o.json")"

# 4. a second trigger, on gen-events b: its snapshot holds b's events up
# to its firing, none of a (idle, alive, cleared) nor of the other
# program; snap1, spent, does not fire again
"$TRACECTL" add-trigger snap2 --on-event 'shmtrace_test:event' --filter 'seq == 500 && thread == 1' \
	--action snapshot-session fr >/dev/null || fail "add-trigger snap2"
gen_idle b -n 4000 -t 2 -s 8
Bp=$IDLE_PID
wait_field "$WORK/l2.json" snap2 fired 1
[ "$(jget "$WORK/l2.json" triggers snap2 failed)" -eq 0 ] &&
	[ "$(jget "$WORK/l2.json" triggers snap2 last_firing pid)" -eq "$Bp" ] || fail "snap2: $(cat "$WORK/l2.json")"
sleep 0.5
ctl_json "$WORK/l2.json" list-triggers || fail "list-triggers failed"
[ "$(jget "$WORK/l2.json" triggers snap1 fired)" -eq 1 ] &&
	[ "$(jget "$WORK/l2.json" triggers snap1 done)" = true ] || fail "snap1 again: $(cat "$WORK/l2.json")"
S2=$(jget "$WORK/l2.json" triggers snap2 last_firing path)
[ "$S2" != "$S1" ] && [ -d "$S2" ] || fail "snap2's snapshot $S2"
events "$S2" "$WORK/s2.ev"
awk -v b="$Bp" '$1 != b { print "pid " $1 " in snapshot 2" > "/dev/stderr"; exit 1 }' "$WORK/s2.ev" ||
	fail "snapshot 2 holds events emitted before the clear, or of another program: $(ls "$S2")"
read -r lo hi n <<<"$(seqs "$WORK/s2.ev" "$Bp" 1)"
[ "$lo" = 0 ] && [ "$hi" -ge 500 ] && [ "$n" -eq $((hi + 1)) ] ||
	fail "snapshot 2, thread 1: seq $lo..$hi, $n events"
echo "snapshot 2 (snap2, after clear and restart): $(wc -l <"$WORK/s2.ev") events, of process $Bp only"

# the output: the two snapshots, nothing else
[ "$(find "$D" -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')" = "$(printf '%s\n' "$S1" "$S2" | sort | tr '\n' ' ')" ] ||
	fail "the output holds $(ls -A "$D")"
for t in a b other; do
	release_idle $t
done
wait || true
"$TRACECTL" remove-trigger snap1 snap2 note >/dev/null || fail "remove-trigger failed"
"$TRACECTL" stop fr >/dev/null && "$TRACECTL" destroy fr >/dev/null || fail "stop, destroy failed"
echo "ok: flight recorder: exclusion, tracking, once-after, notify, clear, restart"
