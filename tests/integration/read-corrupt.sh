#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read (and trace-read --stats) on a real trace damaged in many ways:
# stream files cut inside a packet header, inside an event or at a packet
# boundary, packet header fields changed (magic, uuid, stream id, sizes,
# timestamps, sequence number, discarded count), unknown event ids, event
# content cut, garbage, cut, NUL-holding, empty or missing metadata, an
# empty stream file, a bad LZ4 frame, directories without traces, bytes
# changed at random. Each must exit with status 3 (damaged) and a message
# on stderr that names the damaged file (and the byte offset where there is
# one), or with status 0 where the damage is harmless; a path without a
# trace exits with 1; never a crash, never a hang.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s ch --subbuf-size 4k >/dev/null &&
	"$TRACECTL" enable-event -s s -c ch 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
"$GEN" -n 300 -t 2 -T || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null

# le FILE OFFSET BYTES: the little-endian unsigned integer there
le() {
	od -An -t "u$3" -j "$2" -N "$3" "$1" | tr -d ' '
}

# put_le FILE OFFSET BYTES VALUE: write VALUE (< 2^63) there
put_le() {
	local f=$1 off=$2 n=$3 v=$4 i s=
	for ((i = 0; i < n; i++)); do
		s+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
	done
	printf "$s" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# the trace, its stream files, and one with two packets at least
T=$(dirname "$(find "$D" -name metadata | head -1)")
[ -d "$T" ] || fail "no trace written"
TN=$(basename "$T")
S=
for f in "$T"/ch_*; do
	size=$(stat -c %s "$f")
	[ "$size" -gt 84 ] || continue
	psize=$(($(le "$f" 56 8) / 8))
	if [ "$psize" -lt "$size" ]; then
		S=$(basename "$f")
		break
	fi
done
[ -n "$S" ] || fail "no stream file with two packets: $(ls -l "$T")"
SIZE=$(stat -c %s "$T/$S")
P2=$(($(le "$T/$S" 56 8) / 8))			# offset of the second packet
E1_ID=$(le "$T/$S" 84 1)			# first event header
"$TRACE_READ" "$D" >"$WORK/good" 2>"$WORK/good.err" || fail "trace-read failed on the trace"
NGOOD=$(wc -l <"$WORK/good")
[ "$NGOOD" -ge 600 ] || fail "only $NGOOD events in the trace"

N=0
# damaged NAME: a fresh copy of the trace in $C, its trace directory $CT
damaged() {
	N=$((N + 1))
	C=$WORK/c$N
	rm -rf "$C"
	cp -r "$D" "$C"
	CT=$C/$TN
	CASE=$1
}

# expect STATUS PATH [TEXT...]: trace-read PATH and trace-read --stats PATH
# both exit with STATUS; with 2, stderr holds every TEXT.
expect() {
	local want=$1 path=$2 mode st t
	shift 2
	for mode in "" --stats; do
		st=0
		timeout 60 "$TRACE_READ" $mode "$path" >"$WORK/out.txt" 2>"$WORK/err.txt" || st=$?
		[ "$st" -ne 124 ] || fail "$CASE: trace-read $mode hangs"
		[ "$st" -lt 128 ] || fail "$CASE: trace-read $mode died of signal $((st - 128))"
		[ "$st" -eq "$want" ] ||
			fail "$CASE: trace-read $mode: status $st, expected $want: $(head -3 "$WORK/err.txt")"
		[ "$want" -ne 0 ] || continue
		grep -q '^trace-read: ' "$WORK/err.txt" ||
			fail "$CASE: trace-read $mode: no error message: $(head -3 "$WORK/err.txt")"
		for t in "$@"; do
			grep -qF -- "$t" "$WORK/err.txt" ||
				fail "$CASE: trace-read $mode: '$t' not in: $(head -3 "$WORK/err.txt")"
		done
	done
	[ "$want" -eq 0 ] || echo "ok: $CASE: $(grep -m1 '^trace-read: ' "$WORK/err.txt")"
	[ "$want" -ne 0 ] || echo "ok: $CASE: status 0"
}

# ---- stream files cut -------------------------------------------------------
damaged "cut inside the first packet header"
truncate -s 40 "$CT/$S"
expect 3 "$C" "$CT/$S: offset 0: " "truncated packet header"

damaged "cut right after the first packet header"
truncate -s 84 "$CT/$S"
expect 3 "$C" "$CT/$S: offset 56: " "past the end of the file"

damaged "cut inside the last event of the first packet"
truncate -s $((P2 - 3)) "$CT/$S"
expect 3 "$C" "$CT/$S: offset 56: " "past the end of the file"

damaged "cut inside the second packet header"
truncate -s $((P2 + 30)) "$CT/$S"
expect 3 "$C" "$CT/$S: offset $P2: " "truncated packet header"

damaged "cut one byte short"
truncate -s $((SIZE - 1)) "$CT/$S"
expect 3 "$C" "$CT/$S: offset " "past the end of the file"

damaged "cut at a packet boundary"
truncate -s "$P2" "$CT/$S"
expect 0 "$C"
n=$("$TRACE_READ" "$C" | wc -l)
[ "$n" -gt 0 ] && [ "$n" -lt "$NGOOD" ] || fail "$CASE: $n events, expected fewer than $NGOOD"

damaged "empty stream file"
: >"$CT/$S"
expect 0 "$C"
n=$("$TRACE_READ" "$C" | wc -l)
[ "$n" -lt "$NGOOD" ] || fail "$CASE: $n events, expected fewer than $NGOOD"

damaged "every stream file empty"
for f in "$CT"/ch_*; do : >"$f"; done
expect 0 "$C"
[ "$("$TRACE_READ" "$C" | wc -l)" -eq 0 ] || fail "$CASE: events from empty files"

# ---- packet headers changed -------------------------------------------------
damaged "bad magic"
put_le "$CT/$S" 0 1 $(($(le "$CT/$S" 0 1) ^ 0xff))
expect 3 "$C" "$CT/$S: offset 0: " "bad packet magic"

damaged "bad magic of the second packet"
put_le "$CT/$S" "$P2" 4 0x12345678
expect 3 "$C" "$CT/$S: offset $P2: " "bad packet magic 0x12345678"

damaged "another trace's uuid"
put_le "$CT/$S" 10 1 $(($(le "$CT/$S" 10 1) ^ 0x55))
expect 3 "$C" "$CT/$S: offset 4: " "uuid"

damaged "unknown stream id"
put_le "$CT/$S" 20 4 7
expect 3 "$C" "$CT/$S: offset 20: " "unknown stream id 7"

damaged "content_size larger than packet_size"
put_le "$CT/$S" 48 8 $(($(le "$CT/$S" 56 8) + 8))
expect 3 "$C" "$CT/$S: offset 48: " "invalid content_size"

damaged "content_size not a whole number of bytes"
put_le "$CT/$S" 48 8 $(($(le "$CT/$S" 48 8) - 3))
expect 3 "$C" "$CT/$S: offset 48: " "invalid content_size"

damaged "content_size smaller than the headers"
put_le "$CT/$S" 48 8 64
expect 3 "$C" "$CT/$S: offset 48: " "invalid content_size"

damaged "huge packet_size"
put_le "$CT/$S" 56 8 $((1 << 62))
expect 3 "$C" "$CT/$S: offset 56: " "past the end of the file"

damaged "packet_size of the second packet past the end"
put_le "$CT/$S" $((P2 + 48)) 8 $(((SIZE - P2 + 8) * 8))
put_le "$CT/$S" $((P2 + 56)) 8 $(((SIZE - P2 + 8) * 8))
expect 3 "$C" "$CT/$S: offset $((P2 + 56)): " "past the end of the file"

damaged "timestamp_begin after timestamp_end"
put_le "$CT/$S" 32 8 $(($(le "$CT/$S" 40 8) + 1))
expect 3 "$C" "$CT/$S: offset 32: " "timestamp_begin"

damaged "second packet begins before the first one's events"
put_le "$CT/$S" $((P2 + 32)) 8 "$(le "$CT/$S" 32 8)"
expect 3 "$C" "$CT/$S: offset $((P2 + 32)): " "goes back"

damaged "packet_seq_num repeated"
put_le "$CT/$S" $((P2 + 64)) 8 "$(le "$CT/$S" 64 8)"
expect 3 "$C" "$CT/$S: offset $((P2 + 64)): " "packet_seq_num"

damaged "events_discarded decreasing"
put_le "$CT/$S" 72 8 1000000
expect 3 "$C" "$CT/$S: offset $((P2 + 72)): " "events_discarded decreases"

# ---- events ------------------------------------------------------------------
damaged "unknown event id"
if [ "$E1_ID" -eq 255 ]; then
	put_le "$CT/$S" 85 4 100000
	expect 3 "$C" "$CT/$S: offset 84: " "unknown event id 100000"
else
	put_le "$CT/$S" 84 1 200
	expect 3 "$C" "$CT/$S: offset 84: " "unknown event id 200"
fi

damaged "packet content ending inside an event header"
put_le "$CT/$S" 48 8 $(((84 + 2) * 8))
expect 3 "$C" "$CT/$S: offset 84: " "truncated"

damaged "packet content ending inside an event's fields"
put_le "$CT/$S" 48 8 $(((84 + 16) * 8))
expect 3 "$C" "$CT/$S: offset " "event shmtrace_test:"

damaged "extended event header going back in time"
printf '\xff' | dd of="$CT/$S" bs=1 seek=84 conv=notrunc status=none
put_le "$CT/$S" 85 4 "$(le "$T/$S" 84 1)"
put_le "$CT/$S" 89 8 0
expect 3 "$C" "$CT/$S: offset 84: " "goes back"

# ---- LZ4 ---------------------------------------------------------------------
damaged "bad LZ4 frame"
{ printf '\x04\x22\x4d\x18'; head -c 200 "$T/$S"; } >"$CT/$S"
expect 3 "$C" "$CT/$S: byte " "LZ4"

# ---- metadata ------------------------------------------------------------------
damaged "garbage metadata"
printf 'garbage\001\002\003' >"$CT/metadata"
expect 3 "$C" "$CT/metadata:1: " "not CTF metadata"

damaged "garbage after the metadata signature"
printf '/* CTF 1.8 */\n\ntrace { major = 1; };\n%%%%\n' >"$CT/metadata"
expect 3 "$C" "$CT/metadata:4: " "unexpected character '%'"

damaged "metadata cut in the middle"
head -c $(($(stat -c %s "$T/metadata") / 2)) "$T/metadata" >"$CT/metadata"
expect 3 "$C" "$CT/metadata:"

damaged "NUL byte in the metadata"
printf '\0' | dd of="$CT/metadata" bs=1 seek=100 conv=notrunc status=none
expect 3 "$C" "$CT/metadata: " "NUL"

damaged "metadata of another layout"
sed 's/uint64_t packet_seq_num;/uint32_t packet_seq_num;/' "$T/metadata" >"$CT/metadata"
expect 3 "$C" "$CT/metadata:" "packet.context"

damaged "empty metadata"
: >"$CT/metadata"
expect 3 "$C" "$CT/metadata:1: " "not CTF metadata"

damaged "missing metadata"
rm "$CT/metadata"
expect 1 "$C" "$C: no CTF trace found"

damaged "metadata is a directory"
rm "$CT/metadata"
mkdir "$CT/metadata"
expect 1 "$C" "$C: no CTF trace found"

# ---- bytes changed at random (the same ones every run) ---------------------------
RANDOM=1
nerr=0
for i in $(seq 40); do
	damaged "4 random bytes changed in $S ($i)"
	for j in 1 2 3 4; do
		put_le "$CT/$S" $(((RANDOM << 15 | RANDOM) % SIZE)) 1 $((RANDOM & 255))
	done
	for mode in "" --stats; do
		st=0
		timeout 60 "$TRACE_READ" $mode "$C" >/dev/null 2>"$WORK/err.txt" || st=$?
		[ "$st" -eq 0 ] || [ "$st" -eq 3 ] ||
			fail "$CASE: trace-read $mode: status $st: $(head -3 "$WORK/err.txt")"
		[ "$st" -eq 0 ] || grep -qF "trace-read: $CT/$S: offset " "$WORK/err.txt" ||
			fail "$CASE: trace-read $mode: $(head -3 "$WORK/err.txt")"
	done
	[ "$st" -eq 0 ] || nerr=$((nerr + 1))
done
echo "ok: 40 random changes: $nerr errors (status 3, the file and offset named), others read"

# ---- no trace at all -------------------------------------------------------------
CASE="directory without traces"
mkdir -p "$WORK/empty/a/b"
expect 1 "$WORK/empty" "$WORK/empty: no CTF trace found"
CASE="path that does not exist"
expect 1 "$WORK/nothing" "$WORK/nothing: "
CASE="a file, not a directory"
expect 1 "$T/$S" "$T/$S: not a directory"

echo "ok: $N damaged traces, each read with and without --stats"
