#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read and babeltrace2 read a multi-process, multi-thread trace
# alike. Two gen-events processes (3 threads each, every field type, one
# with 40-character strings) run at once with fork-events (2 threads, 4
# children); every event is enabled, so the processes' state dumps and
# exec/fork/exit events (hexadecimal fields, paths, byte sequences) are in
# the trace too. Both outputs are turned into one canonical line per
# event, "SECONDS.NANOSECONDS PID TID PROCNAME PROVIDER:EVENT field=value...",
# and must hold the same events (the same multiset), each in time order,
# with the same order within every thread, the same timestamps to the
# nanosecond and the same field values. The test programs' own events are
# also checked against what the programs emitted.
. "$(dirname "$0")/lib.sh"
need_babeltrace
export LC_ALL=C
export SHMTRACE_REGISTER_TIMEOUT=10000	# enabled before the first event, even on a loaded machine
start_daemons
D=$WORK/out
N=20000		# events per gen-events thread: within its buffers, nothing is discarded
new_session "$D" '*'

# the gen-events are registered and wait; fork-events starts, then they go
gen_bg a ready -w -m -T -n $N -t 3
PID_A=$IDLE_PID
gen_bg b ready -w -m -T -n $N -t 3 -s 40
PID_B=$IDLE_PID
# (fork-events counts only recorded events: were its event not enabled it
# would spin, hence the bound)
timeout 120 "$B/tests/apps/fork-events" 4 2000 6000 >"$WORK/children" &
PID_F=$!
release_idle a
release_idle b
wait $PID_A || fail "gen-events a failed"
wait $PID_B || fail "gen-events b failed"
wait $PID_F || fail "fork-events failed"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "status: $(cat "$WORK/status.json")"
[ "$(status_sum "$WORK/status.json" s lost_without_buffer)" = 0 ] || fail "status: $(cat "$WORK/status.json")"
[ "$(wc -l <"$WORK/children")" -eq 4 ] || fail "fork-events: $(wc -l <"$WORK/children") children"

"$TRACE_READ" --time-format epoch --no-symbols "$D" >"$WORK/tr.out" 2>"$WORK/tr.err" ||
	fail "trace-read failed: $(head -3 "$WORK/tr.err")"
[ ! -s "$WORK/tr.err" ] || fail "trace-read complained: $(head -3 "$WORK/tr.err")"
"$BT" --clock-seconds "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" ||
	fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
[ ! -s "$WORK/bt.err" ] || fail "babeltrace2 complained: $(head -3 "$WORK/bt.err")"

# The canonical form. trace-read: "[S.NS] (+D) PROC:PID:TID NAME: { f = v, ... }";
# babeltrace2: "[S.NS] (+D) HOST:PROC:(PID) NAME: { tid = TID }, { f = v, ... }"
# (the packet context, then the payload). Values as canon-lib.awk makes
# them (floating point numbers as %.17g). Anything else is an error.
cat >"$WORK/canon.awk" <<'EOF'
BEGIN {
	if (fmt != "tr" && fmt != "bt") { print "canon.awk: -v fmt=tr|bt" >"/dev/stderr"; exit 2 }
	escape_ctl()
}
{
	r = $0
	if (!match(r, /^\[[0-9]+\.[0-9]+\] /)) bad("[seconds.nanoseconds] expected")
	t = substr(r, 2, RLENGTH - 3)
	if (length(t) - index(t, ".") != 9) bad("not nanoseconds")
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^\(\+[0-9?.]+\) /)) bad("(+delta) expected")
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^[^ ]+ /)) bad("process expected")
	who = substr(r, 1, RLENGTH - 1)
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^[^ :]+:[^ :]+: /)) bad("provider:event expected")
	name = substr(r, 1, RLENGTH - 2)
	r = substr(r, RLENGTH + 1)
	if (fmt == "tr") {
		if (!match(who, /:[0-9]+:[0-9]+$/)) bad("PROC:PID:TID expected")
		proc = substr(who, 1, RSTART - 1)
		split(substr(who, RSTART + 1), a, ":")
		pid = a[1]
		tid = a[2]
		payload = group()
	} else {
		if (!match(who, /:\([0-9]+\)$/)) bad("HOST:PROC:(PID) expected")
		pid = substr(who, RSTART + 2, RLENGTH - 3)
		proc = substr(who, 1, RSTART - 1)
		if (!sub(/^[^:]*:/, "", proc)) bad("HOST:PROC:(PID) expected")
		ctx = group()
		if (ctx !~ /^ tid=[0-9]+$/) bad("packet context { tid = N } expected")
		tid = substr(ctx, 6)
		if (substr(r, 1, 2) != ", ") bad("', ' expected after the packet context")
		r = substr(r, 3)
		payload = group()
	}
	if (r != "") bad("trailing text '" r "'")
	print t, pid, tid, proc, name payload
}
END { exit failed }
EOF
LIB=$(dirname "$0")/canon-lib.awk
awk -v fmt=tr -f "$LIB" -f "$WORK/canon.awk" "$WORK/tr.out" >"$WORK/tr.canon" || fail "cannot parse trace-read's output"
awk -v fmt=bt -f "$LIB" -f "$WORK/canon.awk" "$WORK/bt.out" >"$WORK/bt.canon" || fail "cannot parse babeltrace2's output"

ntr=$(wc -l <"$WORK/tr.canon")
nbt=$(wc -l <"$WORK/bt.canon")
[ "$ntr" -eq "$nbt" ] || fail "trace-read printed $ntr events, babeltrace2 $nbt"

# each in time order
for f in tr bt; do
	awk '{ split($1, x, "."); s = x[1] + 0; ns = x[2] + 0
	       if (NR > 1 && (s < ps || (s == ps && ns < pns))) { print FNR ": " $0; exit 1 }
	       ps = s; pns = ns }' "$WORK/$f.canon" >"$WORK/order" ||
		fail "$f: out of time order at line $(cat "$WORK/order")"
done
# the same events, timestamps and values (a multiset)
sort "$WORK/tr.canon" >"$WORK/tr.sorted"
sort "$WORK/bt.canon" >"$WORK/bt.sorted"
diff "$WORK/tr.sorted" "$WORK/bt.sorted" >"$WORK/diff" ||
	fail "the events differ (< trace-read, > babeltrace2):
$(head -n 20 "$WORK/diff")"
# the same order within every thread (sort -s keeps each thread's order)
sort -s -k2,3 "$WORK/tr.canon" >"$WORK/tr.threads"
sort -s -k2,3 "$WORK/bt.canon" >"$WORK/bt.threads"
diff "$WORK/tr.threads" "$WORK/bt.threads" >"$WORK/diff" ||
	fail "a thread's events come in another order (< trace-read, > babeltrace2):
$(head -n 20 "$WORK/diff")"
# the whole order, but for events of different threads at the same nanosecond
cmp -s "$WORK/tr.canon" "$WORK/bt.canon" && same=identical || same="identical but for ties"

# What the programs emitted: every thread's seq 0, 1, 2... in order, with
# its thread number and payload; 3 threads x N for each gen-events, 6000
# for each of fork-events' 2 threads, 2000 for each child.
c=$WORK/tr.canon
awk -v a="$PID_A" -v b="$PID_B" -v N=$N -v kids="$(tr '\n' ' ' <"$WORK/children")" '
	BEGIN {
		abc = "abcdefghijklmnopqrstuvwxyz"
		abc = abc abc abc
		n = split(kids, k, " ")
		for (i = 1; i < n; i += 2) child[k[i]] = k[i + 1]
	}
	function err(m) { print "line " NR ": " m ": " $0; bad = 1; exit 1 }
	$5 == "shmtrace_test:event" {
		if (!match($0, / seq=[0-9]+ thread=[0-9]+ payload="[^"]*"$/)) err("fields")
		s = substr($0, RSTART + 1)
		i = index(s, " payload=\"")
		pl = substr(s, i + 10, length(s) - i - 10)
		split(substr(s, 1, i - 1), x, " ")
		seq = substr(x[1], 5) + 0
		th = substr(x[2], 8) + 0
		key = $2 " " $3
		if (seq != next_seq[key] + 0) err("seq " next_seq[key] + 0 " expected")
		next_seq[key] = seq + 1
		if (seq == 0) { thread_of[key] = th; pid_of[key] = $2 }
		else if (thread_of[key] != th) err("thread changes")
		if ($2 == a || $2 == b) {
			if (th > 2) err("thread number")
			want = substr(abc, th + 1, $2 == a ? 16 : 40)
		} else if ($4 == "fork-events" && !($2 in child)) {
			if (f == "") f = $2
			else if (f != $2) err("two fork-events parents")
			if (th != 1000000 && th != 1000001) err("thread number")
			want = th == 1000000 ? "parent" : "parent thread"
		} else if ($2 in child) {
			if (th != child[$2]) err("child number")
			want = "child"
		} else
			err("unknown process")
		if (pl != want) err("payload " want " expected")
		next
	}
	$5 == "shmtrace_test:types" {
		if (index($0, " u8=255 u16=65535 u32=4294967295 u64=18446744073709551615 s8=-128 s16=-32768 s32=-2147483648 s64=-9223372036854775808 dbl=3.25 ptr=3735928559 str=\"quote\\\" back\\\\slash\" bytes=[1,2,255] ints=[-1,0,2147483647]") == 0 ||
		    ($2 != a && $2 != b) || $2 != $3) err("types event")
		types[$2]++
		next
	}
	$5 == "shmtrace_test:mark" {
		if (($2 != a && $2 != b) || $2 != $3 || NF != 5) err("mark event")
		marks[$2]++
		next
	}
	END {
		if (bad) exit 1
		for (key in next_seq) {
			p = pid_of[key]
			want = (p == a || p == b) ? N : (p in child) ? 2000 : 6000
			if (next_seq[key] != want) { print key ": " next_seq[key] " events, " want " expected"; exit 1 }
			threads[p]++
		}
		if (f == "" || threads[a] != 3 || threads[b] != 3 || threads[f] != 2) { print "threads: " threads[a] " " threads[b] " " threads[f]; exit 1 }
		for (p in child) if (threads[p] != 1) { print "child " p ": no events"; exit 1 }
		if (types[a] != 1 || types[b] != 1 || marks[a] != 2 || marks[b] != 2) { print "types or marks missing"; exit 1 }
	}' "$c" >"$WORK/check" || fail "the test programs' events: $(cat "$WORK/check")"
# the other providers made it in, with their hexadecimal fields and sequences
grep -q ' shmtrace_statedump:bin_info base=[0-9]* low=[0-9]* high=[0-9]* path="[^"]*" build_id=\[' "$c" ||
	fail "no state dump in the trace"
# each fork seen by the parent (from either thread) and by the child
awk -v kids="$(tr '\n' ' ' <"$WORK/children")" '
	BEGIN { n = split(kids, k, " "); for (i = 1; i < n; i += 2) child[k[i]] = 1 }
	$5 == "shmtrace_proc:fork" {
		if (!match($0, / parent_pid=[0-9]+ child_pid=[0-9]+$/)) exit 1
		split(substr($0, RSTART + 1), x, " ")
		pp = substr(x[1], 12); cp = substr(x[2], 11)
		if (!(cp in child)) exit 1
		if ($2 == pp) by_parent[cp]++
		else if ($2 == cp && $3 == cp) by_child[cp]++
		else exit 1
	}
	END { for (p in child) if (by_parent[p] != 1 || by_child[p] != 1) exit 1 }' "$c" ||
	fail "fork events: $(grep ' shmtrace_proc:fork ' "$c")"
# how often the merged order switches between processes (for the record:
# on a loaded machine they may hardly overlap)
switches=$(awk '$5 == "shmtrace_test:event" { if (NR > 1 && $2 != p) n++; p = $2 } END { print n + 0 }' "$c")
echo "ok: $ntr events read alike by trace-read and babeltrace2 ($(grep -c ' shmtrace_test:' "$c") of the test programs," \
	"$(cut -d' ' -f2 "$c" | sort -u | wc -l) processes, $(cut -d' ' -f3 "$c" | sort -u | wc -l) threads," \
	"$switches switches between processes); global order $same"
