#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What tracectl says of a session matches its traces: per channel, status's
# events recorded and discarded, bytes written and stream files (JSON),
# against what trace-read --stats=count reads in the channel's files and
# what the files hold; stop's and destroy's summaries are their sums; the
# output path, the channels' settings, the patterns. Every document parses
# with python3 -m json.tool; the text for people says what the JSON holds.
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
ctl_json "$WORK/stop.json" stop s || fail "stop failed"
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" status s >"$WORK/status" || fail "status (text) failed"
cat "$WORK/status"
for f in stop status; do
	python3 -m json.tool "$WORK/$f.json" >/dev/null || fail "$f: not JSON: $(cat "$WORK/$f.json")"
done
S() { jget "$WORK/status.json" sessions s "$@"; }
[ "$(S output)" = "$D" ] || fail "wrong output path"
[ "$(S channels tiny mode)" = discard ] && [ "$(S channels tiny num_subbuf)" = 2 ] &&
	[ "$(S channels tiny subbuf_size)" = 8192 ] && [ "$(S channels tiny pool_size)" = 10 ] &&
	[ "$(S channels tiny flush_interval_ms)" = 0 ] || fail "tiny's settings"
[ "$(S channels tiny enablers @0 pattern)" = shmtrace_test:event ] &&
	[ "$(S channels tiny enablers @0 loglevel level)" = info ] || fail "tiny's pattern"
for ch in big tiny; do
	mkdir -p "$WORK/$ch/t"
	cp "$D"/*/metadata "$WORK/$ch/t/"
	cp "$D"/*/"${ch}"_* "$WORK/$ch/t/"
	"$TRACE_READ" --stats=count "$WORK/$ch" >"$WORK/$ch.count" 2>/dev/null || fail "trace-read failed on $ch"
	rec=$(sed -n 's/^ *\([0-9]*\)  total$/\1/p' "$WORK/$ch.count")
	disc=$(sed -n 's/^ *\([0-9]*\)  discarded$/\1/p' "$WORK/$ch.count")
	bytes=$(cat "$D"/*/"${ch}"_* | wc -c)
	files=$(ls "$D"/*/"${ch}"_* | wc -l)
	for doc in status stop; do
		c() { jget "$WORK/$doc.json" sessions s channels "$ch" "$1"; }
		[ "$(c recorded)" = "$rec" ] || fail "$ch: $doc says $(c recorded) recorded, the trace holds $rec"
		[ "$(c discarded)" = "$disc" ] || fail "$ch: $doc says $(c discarded) discarded, the trace reports $disc"
		[ "$(c bytes)" = "$bytes" ] || fail "$ch: $doc says $(c bytes) bytes, the files hold $bytes"
		[ "$(c streams)" = "$files" ] || fail "$ch: $doc says $(c streams) streams, $files files"
	done
	echo "$ch: $rec recorded, $disc discarded, $bytes bytes, $files files"
done
[ "$(S channels big recorded)" -eq 60002 ] || fail "big lost events"
[ $(( $(S channels tiny recorded) + $(S channels tiny discarded) )) -eq 60000 ] ||
	fail "tiny: recorded + discarded != 60000"
# stop's summary: the session's sums, where the trace is
for f in recorded discarded bytes; do
	[ "$(jget "$WORK/stop.json" summary $f)" = "$(status_sum "$WORK/status.json" s $f)" ] ||
		fail "stop's summary: $f $(jget "$WORK/stop.json" summary $f)"
done
[ "$(jget "$WORK/stop.json" summary path)" = "$D" ] && [ "$(jget "$WORK/stop.json" summary lost)" = 0 ] &&
	[ "$(jget "$WORK/stop.json" summary complete)" = true ] || fail "stop's summary: $(cat "$WORK/stop.json")"
# the whole session's count, as trace-read --stats=count reads it
all=$("$TRACE_READ" --stats=count "$D" | sed -n 's/^ *\([0-9]*\)  total$/\1/p')
[ "$(jget "$WORK/stop.json" summary recorded)" = "$all" ] || fail "stop: recorded is not $all"
ctl_json "$WORK/destroy.json" destroy s || fail "destroy failed"
python3 -m json.tool "$WORK/destroy.json" >/dev/null || fail "destroy: not JSON"
[ "$(jget "$WORK/destroy.json" summary recorded)" = "$all" ] || fail "destroy: recorded is not $all"
# the text says what the JSON holds (its words are what is tested here)
python3 - "$WORK/status.json" "$WORK/status" <<'PY' || fail "the text does not say what the records hold"
import json, sys
s = json.load(open(sys.argv[1]))["sessions"][0]
text = open(sys.argv[2]).read().splitlines()
assert text[0] == "Session s: inactive" and text[1] == "  output: " + s["output"], text[:2]
for c in s["channels"]:
    head = "  channel %s: %s, %d sub-buffers of %d KiB, pool of %d buffers, flush every %d ms" % (
        c["name"], c["mode"], c["num_subbuf"], c["subbuf_size"] >> 10, c["pool_size"],
        c["flush_interval_ms"])
    i = text.index(head)
    for k, v in (("events recorded", "recorded"), ("events discarded", "discarded"),
                 ("bytes written", "bytes"), ("streams", "streams")):
        assert "    %s: %d" % (k, c[v]) in text[i:i + 14], (k, c[v])
PY
echo "ok"
