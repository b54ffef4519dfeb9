#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Channels: two channels of one session with their own settings and
# events; an LZ4 channel's stream files are LZ4 frames that trace-read
# reads directly and `lz4 -d` turns back into plain CTF for babeltrace2;
# both channels' events are complete.
. "$(dirname "$0")/lib.sh"
need_babeltrace
command -v lz4 >/dev/null || { echo "lz4 not installed: skipped"; exit 77; }
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-channel -s s plain --subbuf-size 256k --num-subbuf 16 >/dev/null || fail "plain refused"
"$TRACECTL" enable-channel -s s packed --compress lz4 --flush-interval 100ms >/dev/null ||
	fail "packed refused"
"$TRACECTL" enable-event -s s -c plain 'shmtrace_test:event' >/dev/null
"$TRACECTL" enable-event -s s -c packed 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$GEN" -n 20000 -t 3 -T || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
t=$(find "$D" -mindepth 1 -maxdepth 1 -type d)
ls "$t"/plain_* >/dev/null 2>&1 || fail "no stream file of channel plain"
for f in "$t"/packed_*; do
	[ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 04224d18 ] || fail "$f is not an LZ4 frame"
done
# trace-read reads the LZ4 streams: each channel has every event (2 x 60000)
"$TRACE_READ" --stats=count "$D" >"$WORK/count" || fail "trace-read failed"
grep -q "^ *120000  shmtrace_test:event$" "$WORK/count" || fail "$(cat "$WORK/count")"
grep -q "^ *1  shmtrace_test:types$" "$WORK/count" || fail "$(cat "$WORK/count")"
grep -q "^ *0  discarded$" "$WORK/count" || fail "$(cat "$WORK/count")"
# lz4 -d gives plain CTF back
cp -r "$D" "$WORK/plain"
for f in "$WORK/plain"/*/packed_*; do
	lz4 -q -d -c "$f" >"$f.out" && mv "$f.out" "$f" || fail "lz4 -d failed on $f"
done
n=$(bt_count "$WORK/plain" shmtrace_test:event)
[ "$n" -eq 120000 ] || fail "babeltrace2 after lz4 -d: $n events, expected 120000"
"$TRACE_READ" "$D" >"$WORK/a" && "$TRACE_READ" "$WORK/plain" >"$WORK/b" || fail "trace-read failed"
cmp -s "$WORK/a" "$WORK/b" || fail "the LZ4 trace and its lz4 -d copy read differently"
packed=$(cat "$t"/packed_* | wc -c)
raw=$(cat "$WORK/plain"/*/packed_* | wc -c)
echo "ok: lz4 $packed bytes for $raw bytes of CTF (ratio $(awk -v a="$raw" -v b="$packed" 'BEGIN { printf "%.2f", a / b }'))"
