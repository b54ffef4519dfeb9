#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What tracectl status prints matches the traces: per channel, events
# recorded and discarded, bytes written and stream files, against what the
# trace files hold; the output path, the channels' settings, the patterns.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-channel -s s big >/dev/null
"$TRACECTL" enable-channel -s s tiny --subbuf-size 8k --num-subbuf 2 --flush-interval 0 >/dev/null
"$TRACECTL" enable-event -s s -c big 'shmtrace_test:*' >/dev/null
"$TRACECTL" enable-event -s s -c tiny --loglevel info 'shmtrace_test:event' >/dev/null
"$TRACECTL" start s >/dev/null
"$GEN" -n 30000 -t 2 -T || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" status s >"$WORK/status" || fail "status failed"
cat "$WORK/status"
grep -q "^  output: $D\$" "$WORK/status" || fail "wrong output path"
grep -q "channel tiny: discard, 2 sub-buffers of 8 KiB, pool of 10 buffers, flush every 0 ms" \
	"$WORK/status" || fail "tiny's settings"
grep -q "shmtrace_test:event (loglevel <= info)" "$WORK/status" || fail "tiny's pattern"
# stat CHANNEL FIELD: the value status printed for the channel
stat() {
	awk -v c="$1" -v f="$2" '/^  channel / { cur = ($2 == c ":") }
		cur && index($0, "    " f ": ") == 1 { sub(".*: ", ""); print }' "$WORK/status"
}
for ch in big tiny; do
	mkdir -p "$WORK/$ch/t"
	cp "$D"/*/metadata "$WORK/$ch/t/"
	cp "$D"/*/"${ch}"_* "$WORK/$ch/t/"
	"$TRACE_READ" --stats=count "$WORK/$ch" >"$WORK/$ch.count" 2>/dev/null || fail "trace-read failed on $ch"
	rec=$(sed -n 's/^ *\([0-9]*\)  total$/\1/p' "$WORK/$ch.count")
	disc=$(sed -n 's/^ *\([0-9]*\)  discarded$/\1/p' "$WORK/$ch.count")
	bytes=$(cat "$D"/*/"${ch}"_* | wc -c)
	files=$(ls "$D"/*/"${ch}"_* | wc -l)
	[ "$(stat $ch "events recorded")" = "$rec" ] || fail "$ch: status says $(stat $ch "events recorded") recorded, the trace holds $rec"
	[ "$(stat $ch "events discarded")" = "$disc" ] || fail "$ch: status says $(stat $ch "events discarded") discarded, the trace reports $disc"
	[ "$(stat $ch "bytes written")" = "$bytes" ] || fail "$ch: status says $(stat $ch "bytes written") bytes, the files hold $bytes"
	[ "$(stat $ch "streams")" = "$files" ] || fail "$ch: status says $(stat $ch streams) streams, $files files"
	echo "$ch: $rec recorded, $disc discarded, $bytes bytes, $files files"
done
[ "$(stat big "events recorded")" -eq 60002 ] || fail "big lost events"
[ $(( $(stat tiny "events recorded") + $(stat tiny "events discarded") )) -eq 60000 ] ||
	fail "tiny: recorded + discarded != 60000"
"$TRACECTL" destroy s >/dev/null
echo "ok"
