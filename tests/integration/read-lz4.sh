#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read reads stream files written as LZ4 frames directly: the same
# output as the plain trace; a damaged frame is an error (status 2) that
# names the file, never a crash.
. "$(dirname "$0")/lib.sh"
command -v lz4 >/dev/null || { echo "lz4 not installed: skipped"; exit 77; }
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 20000 -t 3 -T || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
cp -r "$D" "$WORK/z"
for f in $(find "$WORK/z" -type f ! -name metadata); do
	lz4 -q -c "$f" >"$f.tmp" && mv "$f.tmp" "$f" || fail "lz4 failed"
done
"$TRACE_READ" "$D" >"$WORK/plain" || fail "trace-read (plain) failed"
"$TRACE_READ" "$WORK/z" >"$WORK/lz4" || fail "trace-read (lz4) failed"
[ "$(wc -l <"$WORK/plain")" -ge 60000 ] || fail "too few events"
cmp -s "$WORK/plain" "$WORK/lz4" || fail "the LZ4 trace reads differently"
f=$(find "$WORK/z" -type f ! -name metadata | head -1)
size=$(stat -c %s "$f")
head -c $((size / 2)) "$f" >"$f.cut" && mv "$f.cut" "$f"
st=0
"$TRACE_READ" "$WORK/z" >/dev/null 2>"$WORK/err" || st=$?
[ "$st" -eq 3 ] || fail "a cut LZ4 stream: status $st, expected 3"
grep -q "$(basename "$f")" "$WORK/err" || fail "the message does not name the file: $(cat "$WORK/err")"
echo "ok: $(wc -l <"$WORK/plain") events read alike; $(cat "$WORK/err")"
