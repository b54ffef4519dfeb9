#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl's replies as data: every command that prints a reply, with
# --format json, prints one document (one line) that python3 -m json.tool
# parses and that the schema of doc/json.md allows, refusals included
# (their "error" with its code); the checker refuses what the schema does
# not allow (its self-test). The text for people has no literal "\n" and
# ends each line (add-context and rotate printed one), and says no more
# than the same records hold (list-events and status are compared in
# their own tests).
. "$(dirname "$0")/lib.sh"
start_daemons
SCHEMA=$top_srcdir/doc/json.md
CHECK=$(dirname "$0")/json-schema.py
python3 "$CHECK" --self-test "$SCHEMA" || fail "the schema checker accepts what it must refuse"
ALL=$WORK/all.json
: >"$ALL"
# j WANT ARGS...: tracectl ARGS --format json exits with WANT; its document
# joins the others, after json.tool read it
j() {
	local want=$1 rc=0
	shift
	"$TRACECTL" "$@" --format json >"$WORK/one.json" 2>"$WORK/one.err" || rc=$?
	[ "$rc" -eq "$want" ] || fail "tracectl $*: exit status $rc, expected $want: $(cat "$WORK/one.err")"
	[ "$(wc -l <"$WORK/one.json")" -eq 1 ] || fail "tracectl $*: not one line: $(cat "$WORK/one.json")"
	python3 -m json.tool "$WORK/one.json" >/dev/null || fail "tracectl $*: not JSON: $(cat "$WORK/one.json")"
	[ "$(jget "$WORK/one.json" command)" = "$1" ] || fail "tracectl $*: command $(jget "$WORK/one.json" command)"
	cat "$WORK/one.json" >>"$ALL"
}
# t ARGS...: tracectl ARGS as text: no literal "\n", every line ended
t() {
	"$TRACECTL" "$@" >"$WORK/one.txt" 2>&1 || true
	! grep -qF '\n' "$WORK/one.txt" || fail "tracectl $*: a literal \\n: $(cat "$WORK/one.txt")"
	[ ! -s "$WORK/one.txt" ] || [ "$(tail -c 1 "$WORK/one.txt" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "tracectl $*: the last line is not ended: $(cat "$WORK/one.txt")"
}

D=$WORK/out
j 0 list
j 0 status
j 1 start
j 0 create s --output "$D"
j 1 create s --output "$D"
j 0 enable-channel -s s c --subbuf-size 64k --num-subbuf 4
j 1 enable-channel -s s c
j 0 enable-event -s s -c c 'shmtrace_test:*' --filter 'seq >= 10'
j 0 enable-event -s s --loglevel info 'shmtrace_test:*'
j 1 enable-event -s s --filter 'seq >=' 'x:*'
j 0 enable-event -s s -c c 'shmtrace_*:*' -x 'shmtrace_test:mark,shmtrace_proc:*'
j 1 enable-event -s s 'x:y' -x 'x:z'
j 0 add-context -s s -c c -t ip -t cpu_id
t add-context -s s -t cpu_id
j 0 aggregate -s s agg 'shmtrace_test:event' --by thread,nosuchfield --count --quantize seq \
	--lquantize seq,0,1000,100
j 1 aggregate -s s agg 'shmtrace_test:event'
j 1 show-aggregations -s s nope
j 0 start s
j 1 start s
j 0 add-trigger tr --on-event 'shmtrace_test:event' --filter 'seq == 5' --rate-policy every:1 \
	--action notify
j 1 add-trigger tr --on-event 'x:*' --action notify
j 0 add-trigger ta --on-aggregation agg -s s --when 'p99 >= 500' --every 100ms \
	--action snapshot-session s
j 1 add-trigger tb --on-aggregation agg -s s --when 'sum > 1' --action notify
j 0 list-triggers
j 1 wait-trigger tr --timeout 100ms
"$TRACECTL" wait-trigger tr --timeout 60s --format json >"$WORK/waited.json" &
waiter=$!
for _ in $(seq 100); do
	"$TRACECTL" list-triggers --format json >"$WORK/lt.json"
	[ "$(jget "$WORK/lt.json" triggers tr waiters)" -eq 1 ] && break
	sleep 0.1
done
gen_idle g -n 2000 -t 2 -T
wait "$waiter" || fail "wait-trigger: $(cat "$WORK/waited.json")"
[ "$(jget "$WORK/waited.json" command)" = wait-trigger ] || fail "$(cat "$WORK/waited.json")"
cat "$WORK/waited.json" >>"$ALL"
t wait-trigger tr --timeout 10ms
j 0 list-triggers
t list-triggers
j 0 list-events
# a pattern none of the registered events matches is noted; one that does, not
j 0 enable-event -s s 'shmtrace_tset:*'
[ "$(jget "$WORK/one.json" notes @0 code)" = pattern-unknown ] &&
	[ "$(jget "$WORK/one.json" notes @0 pattern)" = 'shmtrace_tset:*' ] ||
	fail "no note of a pattern nothing matches: $(cat "$WORK/one.json")"
j 0 enable-event -s s 'shmtrace_test:ev*'
[ "$(jget_or '' "$WORK/one.json" notes '#')" = "" ] || fail "a note of a known pattern: $(cat "$WORK/one.json")"
j 0 status s
j 0 list
j 0 regenerate statedump -s s
j 0 track -s s --pid "$IDLE_PID" --exe '*/gen-events'
j 1 untrack -s s --uid 0
j 0 untrack -s s --pid "$IDLE_PID"
j 0 track -s s --all
j 0 save s -o "$WORK/p.json"
# (s's trigger ta goes with it: another name, for the load beside it)
sed -e "s|\"$D\"|\"$WORK/o-load\"|" -e 's|"name": "ta"|"name": "ta2"|' "$WORK/p.json" >"$WORK/p2.json"
j 0 load "$WORK/p2.json" --override-name s2
[ "$(jget "$WORK/one.json" triggers ta2 condition session)" = s2 ] || fail "$(cat "$WORK/one.json")"
j 0 remove-trigger ta2
j 0 destroy s2
j 1 load "$WORK/p.json"
j 1 load "$WORK/no-such-profile.json"
j 1 save nope -o "$WORK/x.json"
j 0 show-aggregations -s s
j 0 snapshot -s s --output "$WORK/snap"
j 0 rotate -s s
t rotate -s s
j 0 rotate -s s --every 10s --size 1M
t rotate -s s --every 0 --size 0
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
j 0 disable-event -s s 'shmtrace_test:*'
j 1 disable-event -s s 'nope:*'
j 0 remove-trigger tr ta
j 1 remove-trigger tr
j 0 disable-channel -s s c
j 1 disable-channel -s s nope
j 0 enable-channel -s s c
j 0 disable-aggregation -s s agg
j 0 stop s
j 1 stop s
j 0 destroy s
j 1 destroy s
# a session streamed nowhere: refused with the address and the reason
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
j 1 create n --set-url "net://127.0.0.1:$port:$port"
# a destroy that stops, with the stop's summary
new_session "$WORK/d" 'shmtrace_test:*'
"$GEN" -n 100 -t 1 || fail "gen-events failed"
j 0 clear s
j 0 destroy s
# a memory-only session: its channels' memory, a bounded snapshot, clear
j 0 create m --snapshot --output "$WORK/m"
j 1 enable-channel -s m x --discard
j 0 enable-event -s m 'shmtrace_test:*'
j 0 start m
gen_idle m -n 1000 -t 2
j 0 status m
j 0 snapshot m --max-size 1M
j 1 snapshot m --max-size 1k
j 1 rotate m
j 0 clear m
j 0 status m
release_idle m
wait "$IDLE_PID" || fail "gen-events failed"
j 0 destroy m
for v in create enable-channel enable-event start stop destroy list status list-events \
	add-trigger list-triggers remove-trigger wait-trigger clear; do
	grep -q "\"command\":\"$v\"" "$ALL" || fail "no document of $v checked"
done
# record: its summary, and a record that cannot run its command
"$TRACECTL" record --format json --output "$WORK/rec" -- "$GEN" -n 10 -t 1 >/dev/null 2>"$WORK/rec.err" ||
	fail "record failed: $(cat "$WORK/rec.err")"
tail -n 1 "$WORK/rec.err" >>"$ALL"
rc=0
"$TRACECTL" record --format json --output "$WORK/rec2" -- "$WORK/no-such-program" 2>"$WORK/rec2.err" ||
	rc=$?
[ "$rc" -eq 127 ] || fail "record of no program: exit status $rc"
tail -n 1 "$WORK/rec2.err" >>"$ALL"
mkdir -p "$WORK/used" && touch "$WORK/used/x"
"$TRACECTL" record --format json --output "$WORK/used" -- true 2>"$WORK/rec3.err" && fail "record into a used output"
tail -n 1 "$WORK/rec3.err" >>"$ALL"
python3 "$CHECK" "$SCHEMA" "$ALL" || fail "documents the schema does not allow"
echo "ok: $(grep -c . "$ALL") documents, each one line, as doc/json.md says"
