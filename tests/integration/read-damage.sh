#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One damaged stream file hides nothing else: a session of three processes
# whose first trace has one stream file damaged by hand at its second
# packet (an unknown event id, bad sizes, an event running past its
# packet, a bad magic), or its last packet cut, or its metadata replaced
# by garbage. Every mode of trace-read (text, --format json, --stats,
# --stats=count, --latency, --profile, --export chrome, --filter, --pid,
# --follow) reads the two other traces whole (exact counts, per process),
# and the damaged stream up to its damage; then names the damaged file and
# the byte offset, and exits with status 3. Hidden files in the trace
# directories (the consumer's bookkeeping) are not streams: ignored.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s ch --subbuf-size 4k --num-subbuf 64 >/dev/null &&
	"$TRACECTL" enable-event -s s -c ch 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
for i in 1 2 3; do
	"$GEN" -n 2000 -t 2 || fail "gen-events $i failed"
done
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
stop_daemons

le() {
	od -An -t "u$3" -j "$2" -N "$3" "$1" | tr -d ' '
}

put_le() {
	local f=$1 off=$2 n=$3 v=$4 i s=
	for ((i = 0; i < n; i++)); do
		s+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
	done
	printf "$s" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

mapfile -t TRACES < <(find "$D" -name metadata -printf '%h\n' | sort)
[ "${#TRACES[@]}" -eq 3 ] || fail "${#TRACES[@]} traces, expected 3"
PIDS=()
for t in "${TRACES[@]}"; do
	PIDS+=("${t##*-}")
done
V=${TRACES[0]#"$D"/}			# the victim trace, as a path below the session
# its stream file with the most packets (three at least), and where they start
S=
POFF=()
for f in "$D/$V"/ch_*; do
	offs=() off=0 size=$(stat -c %s "$f")
	while [ "$off" -lt "$size" ]; do
		offs+=("$off")
		off=$((off + $(le "$f" $((off + 56)) 8) / 8))
	done
	if [ "${#offs[@]}" -ge 3 ] && [ "${#offs[@]}" -gt "${#POFF[@]}" ]; then
		S=$(basename "$f")
		POFF=("${offs[@]}")
	fi
done
[ -n "$S" ] || fail "no stream file of three packets: $(ls -l "$D/$V")"
P2=${POFF[1]}
PLAST=${POFF[${#POFF[@]} - 1]}
SIZE=$(stat -c %s "$D/$V/$S")

# the whole session: 4000 shmtrace_test:event per process (+ the types and mark of none)
"$TRACE_READ" "$D" >"$WORK/all" || fail "trace-read failed on the undamaged session"
for p in "${PIDS[@]}"; do
	n=$("$TRACE_READ" --pid "$p" "$D" | wc -l)
	[ "$n" -eq 4000 ] || fail "pid $p: $n events in the undamaged session, expected 4000"
done

# hidden files in the trace directories are no streams: read as if absent
H=$WORK/hidden
cp -r "$D" "$H"
for t in "$H"/*/; do
	head -c 300 /dev/urandom >"$t/.shmtrace-state"
	printf '\xc1\x1f\xfc\xc1 not a packet' >"$t/.hidden"
done
"$TRACE_READ" "$H" >"$WORK/hidden.out" || fail "hidden files: trace-read failed"
cmp -s "$WORK/all" "$WORK/hidden.out" || fail "hidden files: not the same events"

N=0
# damaged NAME: a fresh copy of the session in $C, with hidden files of garbage
# in every trace directory; $CS: the victim stream file in it
damaged() {
	N=$((N + 1))
	C=$WORK/c$N
	rm -rf "$C"
	cp -r "$D" "$C"
	for t in "$C"/*/; do
		head -c 300 /dev/urandom >"$t/.shmtrace-state"
		printf '\xc1\x1f\xfc\xc1 not a packet' >"$t/.hidden"
	done
	CS=$C/$V/$S
	CASE=$1
}

# expected CUT: the victim's events when its stream file ends at byte CUT
# (a packet boundary), read from a copy so cut: status 0
expected() {
	local R=$WORK/ref
	rm -rf "$R"
	cp -r "$D" "$R"
	truncate -s "$1" "$R/$V/$S"
	"$TRACE_READ" --pid "${PIDS[0]}" "$R" >"$WORK/ref.out" || fail "$CASE: the reference read failed"
	VICTIM=$(wc -l <"$WORK/ref.out")
	[ "$VICTIM" -lt 4000 ] || fail "$CASE: the reference lost nothing"
}

# run STATUS-FILE ERR-FILE OUT-FILE ARGS...: trace-read ARGS, bounded
run() {
	local st=0 stf=$1 err=$2 out=$3
	shift 3
	timeout 120 "$TRACE_READ" "$@" >"$out" 2>"$err" || st=$?
	echo "$st" >"$stf"
}

# check WHERE: every mode on $C: status 3, the damage said (the text WHERE),
# the healthy traces whole, the victim up to its damage ($VICTIM events)
check() {
	local where=$1 total=$((8000 + VICTIM)) st n i
	chk() {	# chk WHAT: status 3 and the damage said, on the last run
		st=$(cat "$WORK/st")
		[ "$st" -eq 3 ] || fail "$CASE: $1: status $st, expected 3: $(head -3 "$WORK/err")"
		grep -qF -- "trace-read: $where" "$WORK/err" ||
			fail "$CASE: $1: '$where' not said: $(head -5 "$WORK/err")"
	}
	run "$WORK/st" "$WORK/err" "$WORK/text" --time-format epoch "$C"; chk text
	n=$(wc -l <"$WORK/text")
	[ "$n" -eq "$total" ] || fail "$CASE: text: $n events, expected $total"
	# the time order holds across the damage
	sed -n 's/^\[\([0-9.]*\)\].*/\1/p' "$WORK/text" | sort -c -g 2>/dev/null ||
		fail "$CASE: text: events out of time order"
	for i in 0 1 2; do
		run "$WORK/st" "$WORK/err" "$WORK/pid" --pid "${PIDS[$i]}" "$C"
		n=$(wc -l <"$WORK/pid")
		if [ "$i" -eq 0 ]; then
			[ "$n" -eq "$VICTIM" ] || fail "$CASE: the victim: $n events, expected $VICTIM"
			chk "--pid victim"
		else
			[ "$n" -eq 4000 ] || fail "$CASE: pid ${PIDS[$i]}: $n events, expected 4000"
			chk "--pid ${PIDS[$i]}"
		fi
	done
	run "$WORK/st" "$WORK/err" "$WORK/json" --format json "$C"; chk json
	python3 - "$WORK/json" "$total" "${PIDS[@]}" "$VICTIM" <<'EOF' || fail "$CASE: json"
import collections, json, sys
path, total, pids, victim = sys.argv[1], int(sys.argv[2]), sys.argv[3:6], int(sys.argv[6])
per = collections.Counter()
with open(path, "rb") as f:
    lines = f.read().decode("utf-8").splitlines()
for line in lines:
    per[str(json.loads(line)["pid"])] += 1
assert len(lines) == total, (len(lines), total)
assert per == collections.Counter({pids[0]: victim, pids[1]: 4000, pids[2]: 4000}), per
EOF
	run "$WORK/st" "$WORK/err" "$WORK/count" --stats=count "$C"; chk --stats=count
	n=$(awk '$2 == "total" { print $1 }' "$WORK/count")
	[ "$n" = "$total" ] || fail "$CASE: --stats=count: total '$n', expected $total"
	n=$(awk '$2 == "damaged" { print $1 }' "$WORK/count")
	[ "$n" = 1 ] || fail "$CASE: --stats=count: damaged '$n', expected 1"
	run "$WORK/st" "$WORK/err" "$WORK/stats" --stats "$C"; chk --stats
	n=$(sed -n 's/^Events: \([0-9]*\) .*/\1/p' "$WORK/stats")
	[ "$n" = "$total" ] || fail "$CASE: --stats: '$n' events, expected $total"
	grep -qF "$C/$V/" "$WORK/stats" || fail "$CASE: --stats lists no damaged file"
	run "$WORK/st" "$WORK/err" "$WORK/filter" --filter 'seq >= 1000 || thread == 7' "$C"
	chk --filter
	n=$(wc -l <"$WORK/filter")
	i=$(grep -c 'seq = 1[0-9][0-9][0-9],' "$WORK/text" || true)	# seq 1000 to 1999
	[ "$n" -eq "$i" ] || fail "$CASE: --filter: $n events, expected $i"
	run "$WORK/st" "$WORK/err" "$WORK/lat" --latency 'shmtrace_test:event,shmtrace_test:event' "$C"
	chk --latency
	run "$WORK/st" "$WORK/err" "$WORK/prof" --profile "$C"; chk --profile
	run "$WORK/st" "$WORK/err" "$WORK/stdout" --export chrome "$WORK/chrome.json" "$C"
	chk "--export chrome"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["traceEvents"]' \
		"$WORK/chrome.json" || fail "$CASE: --export chrome: not JSON"
	run "$WORK/st" "$WORK/err" "$WORK/follow" --follow "$C"; chk --follow
	n=$(wc -l <"$WORK/follow")
	[ "$n" -eq "$total" ] || fail "$CASE: --follow: $n events, expected $total"
	echo "ok: $CASE: $(grep -m1 '^trace-read: ' "$WORK/err")"
}

damaged "unknown event id at the second packet"
expected "$P2"
if [ "$(le "$CS" $((P2 + 84)) 1)" -eq 255 ]; then
	put_le "$CS" $((P2 + 85)) 4 100000
else
	put_le "$CS" $((P2 + 84)) 1 200
fi
check "$C/$V/$S: offset $((P2 + 84)): unknown event id "

damaged "content_size of the second packet larger than its packet_size"
expected "$P2"
put_le "$CS" $((P2 + 48)) 8 $(($(le "$CS" $((P2 + 56)) 8) + 8))
check "$C/$V/$S: offset $((P2 + 48)): invalid content_size"

damaged "an event of the second packet running past its content"
expected "$P2"
put_le "$CS" $((P2 + 48)) 8 $(((84 + 16) * 8))
if [ "$(le "$CS" $((P2 + 84)) 1)" -eq 255 ]; then	# its seq runs past
	check "$C/$V/$S: offset $((P2 + 84)): event shmtrace_test:event: field seq runs past"
else							# its payload string
	check "$C/$V/$S: offset $((P2 + 100)): event shmtrace_test:event: unterminated string"
fi

damaged "bad magic of the second packet"
expected "$P2"
put_le "$CS" "$P2" 4 0x12345678
check "$C/$V/$S: offset $P2: bad packet magic"

damaged "last packet cut"
expected "$PLAST"
truncate -s $((SIZE - 7)) "$CS"
check "$C/$V/$S: offset $((PLAST + 56)): packet_size"

damaged "garbage metadata"
VICTIM=0
printf 'garbage\001' >"$C/$V/metadata"
check "$C/$V/metadata:1: "

echo "ok: $N damaged sessions, every mode"
