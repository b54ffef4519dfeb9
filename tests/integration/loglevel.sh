#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# enable-event --loglevel LEVEL records that level and more severe ones;
# --loglevel-only LEVEL that level alone; two sessions with different
# conditions on the same program record each their own events, exactly.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
# gen-events levels: shmtrace_test:event info, types debug, mark notice
"$TRACECTL" create a --output "$WORK/a" >/dev/null
"$TRACECTL" create b --output "$WORK/b" >/dev/null
"$TRACECTL" create c --output "$WORK/c" >/dev/null
"$TRACECTL" enable-event -s a --loglevel info 'shmtrace_test:*' >/dev/null || fail "--loglevel refused"
"$TRACECTL" enable-event -s b --loglevel-only debug 'shmtrace_test:*' >/dev/null || fail "--loglevel-only refused"
"$TRACECTL" enable-event -s c --loglevel NOTICE 'shmtrace_test:*' >/dev/null
"$TRACECTL" enable-event -s a --loglevel bogus 'x:*' >/dev/null 2>&1 && fail "a bad level was accepted"
status_json "$WORK/a.json" a || fail "status failed"
[ "$(jget "$WORK/a.json" sessions a channels channel0 enablers 'pattern=shmtrace_test:*' loglevel)" = \
	'{"match":"at-least","level":"info","value":6}' ] || fail "status: $(cat "$WORK/a.json")"
for s in a b c; do "$TRACECTL" start $s >/dev/null; done
"$GEN" -n 1000 -t 2 -T || fail "gen-events failed"
for s in a b c; do "$TRACECTL" stop $s >/dev/null; "$TRACECTL" destroy $s >/dev/null; done
count() { grep -c "shmtrace_test:$2: " "$WORK/$1.bt" || true; }
for s in a b c; do
	"$BT" "$WORK/$s" >"$WORK/$s.bt" 2>"$WORK/$s.err" || fail "babeltrace2 failed on $s"
	[ ! -s "$WORK/$s.err" ] || fail "$s: $(head -2 "$WORK/$s.err")"
done
[ "$(count a event)" -eq 2000 ] && [ "$(count a mark)" -eq 1 ] && [ "$(count a types)" -eq 0 ] ||
	fail "a (<= info): $(count a event) event, $(count a mark) mark, $(count a types) types"
[ "$(count b event)" -eq 0 ] && [ "$(count b mark)" -eq 0 ] && [ "$(count b types)" -eq 1 ] ||
	fail "b (== debug): $(count b event) event, $(count b mark) mark, $(count b types) types"
[ "$(count c event)" -eq 0 ] && [ "$(count c mark)" -eq 1 ] && [ "$(count c types)" -eq 0 ] ||
	fail "c (<= notice): $(count c event) event, $(count c mark) mark, $(count c types) types"
echo "ok"
