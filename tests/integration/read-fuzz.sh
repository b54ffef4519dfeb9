#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read against babeltrace2 on a corpus of damaged real traces. Two
# sessions record one gen-events run (3 threads, a few hundred events of
# every field type, the state dump): session s in plain stream files, with
# the test events in channel a (4 KiB sub-buffers: several packets per
# stream) and the others in channel b with context fields (a second stream
# class); session z the same in a channel written as LZ4 frames.
# read-fuzz.py then damages copies of them (directed cases and seeded
# random ones) and reads each with trace-read and babeltrace2: trace-read
# must never crash, hang or run out of memory (10 s, 256 MiB), and must
# exit with 2 and say why whenever babeltrace2 rejects the input (see
# read-fuzz.py). Failing cases stay in the test's directory with
# SHMTRACE_TEST_KEEP=1. READ_FUZZ_RANDOM (default 200) and READ_FUZZ_SEED
# (default 1) change the random cases.
. "$(dirname "$0")/lib.sh"
need_babeltrace
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "python3 not installed: skipped"; exit 77; }
LZ4=
command -v lz4 >/dev/null && LZ4=yes
start_daemons
"$TRACECTL" create s --output "$WORK/s" >/dev/null &&
	"$TRACECTL" enable-channel -s s a --subbuf-size 4k >/dev/null &&
	"$TRACECTL" enable-channel -s s b --subbuf-size 4k >/dev/null &&
	"$TRACECTL" add-context -s s -c b -t ip -t cpu_id >/dev/null &&
	"$TRACECTL" enable-event -s s -c a 'shmtrace_test:event' >/dev/null &&
	"$TRACECTL" enable-event -s s -c b 'shmtrace_test:types' 'shmtrace_test:mark' \
		'shmtrace_statedump:*' 'shmtrace_proc:*' >/dev/null ||
	fail "cannot set up session s"
if [ -n "$LZ4" ]; then
	"$TRACECTL" create z --output "$WORK/z" >/dev/null &&
		"$TRACECTL" enable-channel -s z c --subbuf-size 4k --compress lz4 >/dev/null &&
		"$TRACECTL" enable-event -s z -c c 'shmtrace_test:*' 'shmtrace_statedump:*' >/dev/null &&
		"$TRACECTL" start z >/dev/null || fail "cannot set up session z"
fi
"$TRACECTL" start s >/dev/null || fail "cannot start session s"
"$GEN" -n 120 -t 3 -T -s 24 || fail "gen-events failed"
for x in s ${LZ4:+z}; do
	"$TRACECTL" stop "$x" >/dev/null
	"$TRACECTL" destroy "$x" >/dev/null
done

P=$(dirname "$(find "$WORK/s" -name metadata | head -1)")
[ -d "$P" ] || fail "no trace recorded"
"$TRACE_READ" "$P" >"$WORK/p.out" 2>"$WORK/p.err" || fail "trace-read: $(head -3 "$WORK/p.err")"
"$BT" "$P" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2: $(head -3 "$WORK/bt.err")"
n=$(wc -l <"$WORK/p.out")
[ "$n" -ge 360 ] && [ "$n" -eq "$(wc -l <"$WORK/bt.out")" ] ||
	fail "trace-read read $n events, babeltrace2 $(wc -l <"$WORK/bt.out")"
Z=-
if [ -n "$LZ4" ]; then
	Z=$(dirname "$(find "$WORK/z" -name metadata | head -1)")
	[ -d "$Z" ] || fail "no LZ4 trace recorded"
	"$TRACE_READ" "$Z" >/dev/null 2>"$WORK/z.err" || fail "trace-read (LZ4): $(head -3 "$WORK/z.err")"
else
	echo "lz4 not installed: no LZ4 cases"
fi
echo "the traces: $n events in $(find "$P" -type f ! -name metadata | wc -l) plain stream files${LZ4:+, and an LZ4 copy}"

st=0
"$PY" "$(dirname "$0")/read-fuzz.py" "$WORK/fuzz" "$TRACE_READ" "$BT" "$P" "$Z" \
	--random "${READ_FUZZ_RANDOM:-200}" --seed "${READ_FUZZ_SEED:-1}" || st=$?
[ "$st" -eq 0 ] || fail "trace-read disagrees with babeltrace2 or failed (inputs in $WORK/fuzz/failed)"
