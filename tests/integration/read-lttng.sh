#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read reads LTTng-UST 2.13's own traces as babeltrace2 does. Real
# traces are made with lttng-tools (lttng-lib.sh: a session daemon of the
# test's own, as nobody):
#  1. per-UID buffers, the contexts vpid, vtid, procname and ip: the
#     every-field-type provider (lttng-types types) and its 4-thread mode;
#  2. per-PID buffers: two processes at once (4 threads and 1), with the
#     perf counters page-fault and task-clock where they may be counted;
#  3. the cyg-profile helpers (lttng-calls, built with
#     -finstrument-functions, under liblttng-ust-cyg-profile.so, then
#     liblttng-ust-cyg-profile-fast.so) with the state dump;
#  4. the libc wrapper (lttng-calls under liblttng-ust-libc-wrapper.so);
#  5. a trace written by lttng-relayd (the test's own, on loopback).
# Each trace: trace-read and babeltrace2 print the same events (one
# canonical line per event: time to the nanosecond, name, every field of
# every group; the same multiset), trace-read's in time order, both
# without a word on standard error; --stats=count counts what babeltrace2
# prints, name by name; --profile counts the calls of each function as
# the function entry events say.
. "$(dirname "$0")/lib.sh"
need_babeltrace
. "$(dirname "$0")/lttng-lib.sh"
export LC_ALL=C
lt_start
APPS=$B/tests/apps
LIBDIR=$(dirname "$(ldconfig -p | awk '/liblttng-ust-cyg-profile.so / { print $NF; exit }')")

# 1. per-UID, every field type, contexts
lt_session uid
lt_channel
lt enable-event -u -c ch 'shmtrace_lt:*'
lt add-context -u -c ch -t vpid -t vtid -t procname -t ip
lt start
lt_run "$APPS/lttng-types" types 500 >/dev/null || fail "lttng-types types failed"
lt_run "$APPS/lttng-types" threads 4 3000 >/dev/null || fail "lttng-types threads failed"
lt stop
lt destroy

# 1b. per-UID, buffers far too small: what LTTng discards, counted
lt_session lossy
lt enable-channel -u --subbuf-size 4096 --num-subbuf 2 ch
lt enable-event -u -c ch 'shmtrace_lt:*'
lt add-context -u -c ch -t vpid -t vtid
lt start
lt_run "$APPS/lttng-types" threads 4 50000 >/dev/null || fail "lttng-types threads failed"
lt stop
lt destroy

# 2. per-PID buffers, two processes at once
lt_session pid
lt_channel --buffers-pid
lt enable-event -u -c ch 'shmtrace_lt:*'
lt add-context -u -c ch -t vtid
# perf counters (software ones: a virtual machine may have no hardware
# counter), where an unprivileged process may count its own
PERF=no
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -le 2 ]; then
	lt add-context -u -c ch -t perf:thread:page-fault -t perf:thread:task-clock
	PERF=yes
fi
lt start
lt_run "$APPS/lttng-types" threads 4 2000 >/dev/null &
P1=$!
lt_run "$APPS/lttng-types" types 300 >/dev/null || fail "lttng-types types failed"
wait $P1 || fail "lttng-types threads failed"
lt stop
lt destroy

# 3. cyg-profile, both helpers, with the state dump
N=200
lt_session cyg
lt_channel
lt enable-event -u -c ch 'lttng_ust_cyg_profile:*'
lt enable-event -u -c ch 'lttng_ust_cyg_profile_fast:*'
lt enable-event -u -c ch 'lttng_ust_statedump:*'
lt add-context -u -c ch -t vpid -t vtid
lt start
lt_run env LD_PRELOAD="$LIBDIR/liblttng-ust-cyg-profile.so" "$APPS/lttng-calls" $N >/dev/null ||
	fail "lttng-calls under cyg-profile failed"
lt_run env LD_PRELOAD="$LIBDIR/liblttng-ust-cyg-profile-fast.so" "$APPS/lttng-calls" $N >/dev/null ||
	fail "lttng-calls under cyg-profile-fast failed"
lt stop
lt destroy

# 4. the libc wrapper
lt_session libc
lt_channel
lt enable-event -u -c ch 'lttng_ust_libc:*'
lt add-context -u -c ch -t vtid
lt start
lt_run env LD_PRELOAD="$LIBDIR/liblttng-ust-libc-wrapper.so" "$APPS/lttng-calls" $N >/dev/null ||
	fail "lttng-calls under the libc wrapper failed"
lt stop
lt destroy

# 5. through lttng-relayd (its own, on loopback), per-UID, with the contexts
start_relay lt
lt create relay --set-url="net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA"
lt_channel
lt enable-event -u -c ch 'shmtrace_lt:*'
lt add-context -u -c ch -t vpid -t vtid -t procname
lt start
lt_run "$APPS/lttng-types" types 200 >/dev/null || fail "lttng-types types failed"
lt_run "$APPS/lttng-types" threads 4 500 >/dev/null || fail "lttng-types threads failed"
lt stop
lt destroy
lt_stop
stop_relays
mkdir -p "$LT/out/relay"
mv "$RELAY_OUT"/* "$LT/out/relay/"

# compare NAME MIN: trace-read and babeltrace2 alike on $LT/out/NAME (at least MIN events)
compare() {
	local d=$LT/out/$1 n
	"$TRACE_READ" --time-format epoch --no-symbols "$d" >"$WORK/$1.tr" 2>"$WORK/$1.tr.err" ||
		fail "$1: trace-read failed: $(head -3 "$WORK/$1.tr.err")"
	[ ! -s "$WORK/$1.tr.err" ] || fail "$1: trace-read complained: $(head -3 "$WORK/$1.tr.err")"
	"$BT" --clock-seconds "$d" >"$WORK/$1.bt" 2>"$WORK/$1.bt.err" ||
		fail "$1: babeltrace2 failed: $(head -3 "$WORK/$1.bt.err")"
	[ ! -s "$WORK/$1.bt.err" ] || fail "$1: babeltrace2 complained: $(head -3 "$WORK/$1.bt.err")"
	lt_canon tr "$WORK/$1.tr" >"$WORK/$1.trc" || fail "$1: cannot parse trace-read's output"
	lt_canon bt "$WORK/$1.bt" >"$WORK/$1.btc" || fail "$1: cannot parse babeltrace2's output"
	n=$(wc -l <"$WORK/$1.trc")
	[ "$n" -ge "$2" ] || fail "$1: $n events, at least $2 expected"
	[ "$n" -eq "$(wc -l <"$WORK/$1.btc")" ] ||
		fail "$1: trace-read printed $n events, babeltrace2 $(wc -l <"$WORK/$1.btc")"
	awk '{ split($1, x, "."); s = x[1] + 0; ns = x[2] + 0
	       if (NR > 1 && (s < ps || (s == ps && ns < pns))) { print FNR ": " $0; exit 1 }
	       ps = s; pns = ns }' "$WORK/$1.trc" >"$WORK/order" ||
		fail "$1: trace-read's events out of time order at line $(cat "$WORK/order")"
	sort "$WORK/$1.trc" >"$WORK/$1.trs"
	sort "$WORK/$1.btc" >"$WORK/$1.bts"
	diff "$WORK/$1.trs" "$WORK/$1.bts" >"$WORK/diff" ||
		fail "$1: the events differ (< trace-read, > babeltrace2):
$(head -n 10 "$WORK/diff")"
	# --stats=count: what babeltrace2 printed, by name
	"$TRACE_READ" --stats=count "$d" >"$WORK/$1.count" 2>"$WORK/$1.count.err" ||
		fail "$1: trace-read --stats=count failed: $(head -3 "$WORK/$1.count.err")"
	awk '$2 != "total" && $2 != "discarded" { print $2, $1 }' "$WORK/$1.count" | sort >"$WORK/$1.trn"
	cut -d' ' -f2 "$WORK/$1.btc" | sort | uniq -c | awk '{ print $2, $1 }' | sort >"$WORK/$1.btn"
	diff "$WORK/$1.trn" "$WORK/$1.btn" >"$WORK/diff" ||
		fail "$1: --stats=count differs from babeltrace2's events: $(cat "$WORK/diff")"
	[ "$(awk '$2 == "total" { print $1 }' "$WORK/$1.count")" = "$n" ] ||
		fail "$1: --stats=count total: $(cat "$WORK/$1.count")"
	"$TRACE_READ" --stats "$d" >"$WORK/$1.stats" 2>&1 || fail "$1: trace-read --stats failed"
	echo "$1: $n events read alike"
}

# count NAME EVENT: events named EVENT in the canonical lines of NAME
count() { awk -v e="$2" '$2 == e { n++ } END { print n + 0 }' "$WORK/$1.trc"; }

compare uid $((500 + 4 * 3000))
[ "$(count uid shmtrace_lt:types)" -eq 500 ] && [ "$(count uid shmtrace_lt:event)" -eq 12000 ] ||
	fail "uid: $(count uid shmtrace_lt:types) types and $(count uid shmtrace_lt:event) events"
# each of the 4 threads: seq 0 .. 2999 in order, with its vtid
awk '$2 == "shmtrace_lt:event" {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	t = f["thread"]; if (f["seq"] != next_seq[t] + 0) { print "thread " t ": seq " f["seq"]; exit 1 }
	next_seq[t]++; if (t in tid && tid[t] != f["vtid"]) { print "thread " t ": vtid changes"; exit 1 }
	tid[t] = f["vtid"] }
	END { for (t = 0; t < 4; t++) if (next_seq[t] != 3000) { print "thread " t ": " next_seq[t]; exit 1 } }' \
	"$WORK/uid.trc" >"$WORK/check" || fail "uid: the threads' events: $(cat "$WORK/check")"
# (LTTng-UST 2.13 swaps the network-order fields once more than it says:
# their bytes are little-endian, read as big-endian by babeltrace2 too)
grep -q ' s8=-7 s16=-7000 s32=-700000 s64=-9223372036854775801 u8=252 u16=65532 u32=4294967292 u64=18446744073709551608 hex32=3735928559 hex64=18369614217784328199 hex8=171 net32=67305985 nethex16=2826 flt=10.5 dbl=22.75 dbl_neg=-8e-300 str="quote\\" back\\\\slash" arr=\[1,-2,3\] arrnet=\[256,512\] arrtext="abcd" arrhex=\[16,255\] _seq_length=5 seq=\[-1,2,-3,4,-5\] _seqhex_length=5 seqhex=\[10,11,12,13,14\] _seqnet_length=5 seqnet=\[117440512,134217728,150994944,167772160,184549376\] _seqtext_length=5 seqtext="quote" enumfield=GREEN:7 enumneg=NEG:-5$' "$WORK/uid.trc" ||
	fail "uid: the types event of i = 7 is not as emitted: $(grep -m1 ' s8=-7 ' "$WORK/uid.trc")"

# per-UID: one trace, two processes; each event's process is its vpid
# context (the text's PROC:PID:TID, --pid)
p=$(awk '$2 == "shmtrace_lt:types" { for (i = 3; i <= NF; i++) if ($i ~ /^vpid=/) { print substr($i, 6); exit } }' "$WORK/uid.trc")
want=$(awk -v p="vpid=$p" '{ for (i = 3; i <= NF; i++) if ($i == p) { n++; break } } END { print n + 0 }' "$WORK/uid.trc")
[ "$want" -eq 501 ] || fail "uid: $want events of the types process"
got=$("$TRACE_READ" --pid "$p" --stats=count "$LT/out/uid" | awk '$2 == "total" { print $1 }')
[ "$got" = "$want" ] || fail "uid: --pid $p: $got events, $want expected"
awk -v p="$p" '$1 == 501 && $2 == "lttng-types[" p "]" && $3 == "tid" && $4 == p { ok = 1 } END { exit !ok }' \
	"$WORK/uid.stats" || fail "uid: --stats has no row of 501 events for lttng-types[$p]: $(cat "$WORK/uid.stats")"
grep -q '^Events: 12502 in .* 2 processes, 6 threads$' "$WORK/uid.stats" ||
	fail "uid: --stats: $(head -n 1 "$WORK/uid.stats")"
[ "$(grep -c "^\[[^]]*\] ([^)]*) lttng-types:$p:$p shmtrace_lt:types: " "$WORK/uid.tr")" -eq 500 ] ||
	fail "uid: the text does not say lttng-types:$p:$p: $(head -c 300 "$WORK/uid.tr")"
# the Python package reads the per-UID trace alike: every event, each one's
# process its vpid, the procname of its context, the integers exact (u64
# past 2^53)
if python_env; then
	"$PY" - "$LT/out/uid" "$WORK/uid.trc" <<'PY' || fail "uid: the Python package reads otherwise"
import re, sys
import shmtrace
d, trc = sys.argv[1], sys.argv[2]
want, total = [], 0
for line in open(trc):
    total += 1
    if " shmtrace_lt:types " in line:
        want.append((int(re.search(r" vpid=(\d+)", line).group(1)),
                     re.search(r' procname="([^"]*)"', line).group(1),
                     int(re.search(r" u64=(\d+)", line).group(1))))
c = shmtrace.read(d, event="shmtrace_lt:types", fields=["u64"])
assert c["u64"].dtype.name == "uint64", c["u64"].dtype
got = list(zip(c["pid"].tolist(), c["proc"].tolist(), c["u64"].tolist()))
assert sorted(got) == sorted(want), (len(got), len(want), sorted(got)[:2], sorted(want)[:2])
assert len(shmtrace.read(d)) == total, (len(shmtrace.read(d)), total)
PY
fi

# the lossy per-UID trace: --stats counts its discarded events under the
# trace, the sum of its streams' (they mix the processes: no process owns
# a loss), and in the total
"$TRACE_READ" --stats "$LT/out/lossy" >"$WORK/lossy.stats" 2>&1 || fail "lossy: --stats failed"
awk '/^Discarded events:/ { on = 1; next }
	on && $2 == "total" { tot = $1 }
	on && / \(several processes\)$/ && $2 ~ /ust\/uid\// { tr += $1; n++ }
	on && $2 ~ /\/ch_[0-9]+$/ { st += $1 }
	on && /\[-1\]/ { bad = 1 }
	END { exit !(n == 1 && tr > 0 && tot == tr && st == tr && !bad) }' "$WORK/lossy.stats" ||
	fail "lossy: --stats does not count the discarded events under the trace: $(sed -n '/^Discarded/,$p' "$WORK/lossy.stats")"

compare pid $((300 + 4 * 2000))
[ "$(find "$LT/out/pid/ust/pid" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 2 ] ||
	fail "pid: not one trace per process"
[ "$PERF" = no ] || grep -q ' perf_thread_page_fault=[0-9]* perf_thread_task_clock=[0-9]* ' "$WORK/pid.trc" ||
	fail "pid: no perf counter context: $(head -n 1 "$WORK/pid.trc")"

compare cyg $((2 * 10 * N))
for h in lttng_ust_cyg_profile lttng_ust_cyg_profile_fast; do
	[ "$(count cyg $h:func_entry)" -ge $((10 * N)) ] && [ "$(count cyg $h:func_entry)" = "$(count cyg $h:func_exit)" ] ||
		fail "cyg: $h: $(count cyg $h:func_entry) entries, $(count cyg $h:func_exit) exits"
done
# --profile: the calls of each function, as the entries count them (by address)
"$TRACE_READ" --profile --no-symbols "$LT/out/cyg" >"$WORK/profile" 2>"$WORK/profile.err" ||
	fail "--profile failed: $(head -3 "$WORK/profile.err")"
awk '$2 ~ /:func_entry$/ { for (i = 3; i <= NF; i++) if ($i ~ /^addr=/) n[substr($i, 6)]++ }
	END { for (a in n) print a, n[a] }' "$WORK/cyg.trc" | sort >"$WORK/calls.bt"
awk '$NF ~ /^0x[0-9a-f]+$/ { print $NF, $1 }' "$WORK/profile" | while read -r a c; do
	printf '%s %s\n' "$(printf '%d' "$a")" "$c"; done | sort >"$WORK/calls.tr"
[ -s "$WORK/calls.tr" ] || fail "--profile listed no function: $(head -20 "$WORK/profile")"
diff "$WORK/calls.tr" "$WORK/calls.bt" >"$WORK/diff" ||
	fail "--profile's calls differ from the entries (< profile, > events): $(head "$WORK/diff")
$(head -20 "$WORK/profile")"
# with the function names of the state dumps (lttng_ust_statedump:bin_info):
# outer, inner and leaf, N, 3N and 6N calls in each of the two processes
"$TRACE_READ" --profile "$LT/out/cyg" >"$WORK/profile.sym" 2>"$WORK/profile.sym.err" ||
	fail "--profile failed: $(head -3 "$WORK/profile.sym.err")"
for f in "outer $((2 * N))" "inner $((6 * N))" "leaf $((12 * N))"; do
	set -- $f
	awk -v f="$1" -v n="$2" '$NF == f && $1 == n { ok = 1 } END { exit !ok }' "$WORK/profile.sym" ||
		fail "--profile: $1 not named with $2 calls: $(head -20 "$WORK/profile.sym")"
done
# outer, inner, leaf: N, 3N, 6N calls in each of the two runs (two processes)
for c in $N $((3 * N)) $((6 * N)); do
	[ "$(grep -c " $c\$" "$WORK/calls.bt")" -eq 2 ] ||
		fail "not two functions of $c calls: $(cat "$WORK/calls.bt")"
done

compare relay $((200 + 4 * 500))
[ "$(count relay shmtrace_lt:types)" -eq 200 ] && [ "$(count relay shmtrace_lt:event)" -eq 2000 ] ||
	fail "relay: $(count relay shmtrace_lt:types) types and $(count relay shmtrace_lt:event) events"

compare libc $((4 * N))
for e in malloc calloc realloc free; do
	[ "$(count libc lttng_ust_libc:$e)" -ge "$N" ] || fail "libc: $(count libc lttng_ust_libc:$e) $e events"
done
"$TRACE_READ" --latency lttng_ust_libc:malloc,lttng_ust_libc:free "$LT/out/libc" >"$WORK/lat" 2>&1 ||
	fail "--latency on the libc wrapper's events failed: $(head -3 "$WORK/lat")"
echo "ok: LTTng's traces read alike by trace-read and babeltrace2 (per-UID, per-PID, cyg-profile, libc wrapper, relay)"
