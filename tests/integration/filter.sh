#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# enable-event --filter: the traced threads record exactly the events whose
# fields match, decided before copying; another session on the same events
# without a filter records everything; a malformed filter is refused with
# its column. Two patterns with filters matching one event record it when
# either filter keeps it.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
"$TRACECTL" create f --output "$WORK/f" >/dev/null
"$TRACECTL" create all --output "$WORK/all" >/dev/null
"$TRACECTL" create str --output "$WORK/str" >/dev/null
"$TRACECTL" create or --output "$WORK/or" >/dev/null
# narrow signed and unsigned fields, decided in the traced thread without
# the interpreter (a conjunction of integer comparisons)
"$TRACECTL" create ty --output "$WORK/ty" >/dev/null
"$TRACECTL" enable-event -s ty --filter 's8 == -128 && s16 < -32767 && s32 <= -2147483648 &&
	s64 < 0 && u8 == 255 && u16 > 65534 && u32 == 4294967295 && u64 > 18446744073709551614 && u64 != -1' 'shmtrace_test:types' \
	>/dev/null || fail "types filter refused"
"$TRACECTL" enable-event -s or --filter 'seq < 10' 'shmtrace_test:event' >/dev/null
"$TRACECTL" enable-event -s or --filter 'seq >= 1995 || thread == 7' 'shmtrace_test:*' >/dev/null
st=0
"$TRACECTL" enable-event -s f --filter 'seq >= 500 && thread ==' 'shmtrace_test:*' --format json \
	>"$WORK/err.json" 2>/dev/null || st=$?
[ "$st" -eq 1 ] || fail "a malformed filter was accepted"
[ "$(error_code "$WORK/err.json")" = bad-filter ] && [ "$(jget "$WORK/err.json" error column)" = 24 ] ||
	fail "no column in: $(cat "$WORK/err.json")"
"$TRACECTL" enable-event -s f --filter 'seq >= 500 && thread == 1' 'shmtrace_test:event' \
	>/dev/null || fail "filter refused"
"$TRACECTL" enable-event -s f 'shmtrace_test:mark' >/dev/null
"$TRACECTL" enable-event -s all 'shmtrace_test:*' >/dev/null
# strings and globs; a field the event lacks (mark) makes it false
"$TRACECTL" enable-event -s str --filter '(payload == "bcd*" && !(seq % 2 == 1)) || nosuch == 3' \
	'shmtrace_test:*' >/dev/null 2>&1 && fail "'%' was accepted"
"$TRACECTL" enable-event -s str --filter 'payload == "bcd*" && seq < 10 || nosuch == 3' \
	'shmtrace_test:*' >/dev/null || fail "string filter refused"
status_json "$WORK/f.json" f || fail "status failed"
[ "$(jget "$WORK/f.json" sessions f channels channel0 enablers pattern=shmtrace_test:event filter)" = \
	"seq >= 500 && thread == 1" ] || fail "status does not show the filter: $(cat "$WORK/f.json")"
for s in f all str or ty; do "$TRACECTL" start $s >/dev/null; done
"$GEN" -n 2000 -t 3 -T || fail "gen-events failed"
for s in f all str or ty; do "$TRACECTL" stop $s >/dev/null; "$TRACECTL" destroy $s >/dev/null; done
n=$(bt_count "$WORK/f" shmtrace_test:event)
[ "$n" -eq 1500 ] || fail "filtered session: $n events, expected 1500"
awk '/shmtrace_test:event/ && !/seq = (5[0-9][0-9]|[6-9][0-9][0-9]|1[0-9][0-9][0-9]), thread = 1,/ { bad++ }
	END { exit bad > 0 }' "$WORK/bt.out" || fail "an event that does not match was recorded"
[ "$(grep -c 'shmtrace_test:mark' "$WORK/bt.out")" -eq 1 ] || fail "the unfiltered mark is missing"
n=$(bt_count "$WORK/all" shmtrace_test:event)
[ "$n" -eq 6000 ] || fail "unfiltered session: $n events, expected 6000"
# gen-events payloads: thread t starts at letter t (a, b, c...): thread 1 is "bcd..."
n=$(bt_count "$WORK/str" shmtrace_test:event)
[ "$n" -eq 10 ] || fail "string filter: $n events, expected 10"
[ "$(grep -c 'shmtrace_test:types\|shmtrace_test:mark' "$WORK/bt.out")" -eq 0 ] ||
	fail "events without the fields passed the string filter"
n=$(bt_count "$WORK/ty" shmtrace_test:types)
[ "$n" -eq 1 ] || fail "filter on narrow fields: $n types events, expected 1"
n=$(bt_count "$WORK/or" shmtrace_test:event)
[ "$n" -eq 45 ] || fail "two filtered patterns: $n events, expected 45 (seq < 10 or >= 1995)"
awk '/shmtrace_test:event/ && !/seq = ([0-9]|199[5-9]), /  { bad++ } END { exit bad > 0 }' \
	"$WORK/bt.out" || fail "two filtered patterns: an event that neither keeps was recorded"
echo "ok"
