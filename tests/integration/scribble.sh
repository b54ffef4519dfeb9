#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced process that scribbles over its own shared memory (segment and
# slot headers, counters, commit words, sub-buffer descriptors, data, its
# control page mapped read-write again) damages only its own trace: the
# consumer neither crashes nor spins, another process traced at the same
# time has an exact trace, and the readers survive the scribbler's trace.
. "$(dirname "$0")/lib.sh"
need_babeltrace
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# the consumer says which of the scribbler's streams it stops reading
expect_log "error: $WORK/out[0-9]/scribbler-[0-9]+: "
for seed in 1 2 3; do
	start_daemons
	D=$WORK/out$seed
	new_session "$D" 'shmtrace_test:*'
	mkfifo "$WORK/sin$seed" "$WORK/sout$seed"
	"$B/tests/apps/scribbler" 5000 "$seed" <"$WORK/sin$seed" >"$WORK/sout$seed" &
	spid=$!
	exec {SIN}>"$WORK/sin$seed"
	exec {SOUT}<"$WORK/sout$seed"
	"$GEN" -n 50000 -t 2 -p 200 || fail "seed $seed: gen-events failed"
	read -r -t 30 what <&"$SOUT" || true
	read -r -t 30 line <&"$SOUT" || true
	[ "$line" = done ] || fail "seed $seed: the scribbler said '$what' '$line'"
	case $what in "scribbled "[1-9]*) ;; *) fail "seed $seed: nothing scribbled: $what" ;; esac
	kill -0 "$CONSUMERD_PID" || fail "seed $seed: the consumer died"
	sleep 1.5	# past the consumer's busy polling: it should sleep now
	t0=$(ticks "$CONSUMERD_PID")
	sleep 1
	t1=$(ticks "$CONSUMERD_PID")
	[ $((t1 - t0)) -le 10 ] || fail "seed $seed: the consumer spins ($((t1 - t0)) ticks in 1 s)"
	echo go >&"$SIN"
	exec {SIN}>&- {SOUT}<&-
	wait "$spid" || true
	"$TRACECTL" stop s >/dev/null || true
	"$TRACECTL" status s --format json >"$WORK/status$seed.json" || true
	"$TRACECTL" destroy s >/dev/null || true
	# what the scribbler wrote over was not copied: the whole session reads
	# without error, and status names it
	st=0
	timeout 60 "$BT" "$D" >"$WORK/bt.all" 2>"$WORK/bt.err" || st=$?
	[ "$st" -eq 0 ] || fail "seed $seed: babeltrace2 on the session: status $st: $(head -3 "$WORK/bt.err")"
	! grep -v "^WARNING: Tracer discarded [0-9]* events between" "$WORK/bt.err" ||
		fail "seed $seed: babeltrace2 complained about the session"
	st=0
	timeout 60 "$TRACE_READ" "$D" >"$WORK/tr.all" 2>"$WORK/tr.err" || st=$?
	[ "$st" -eq 0 ] || fail "seed $seed: trace-read on the session: status $st: $(cat "$WORK/tr.err")"
	n=$(grep -c " gen-events:[0-9]*:[0-9]* shmtrace_test:event:" "$WORK/tr.all" || true)
	[ "$n" -eq 100000 ] || fail "seed $seed: trace-read of the session: $n events of the other process"
	field() { jget "$WORK/status$seed.json" sessions s channels channel0 "$1"; }
	[ "$(field damaged_pid)" = "$spid" ] || [ "$(field liar_pid)" = "$spid" ] ||
		fail "seed $seed: status does not name the scribbler: $(cat "$WORK/status$seed.json")"
	kill -0 "$CONSUMERD_PID" || fail "seed $seed: the consumer died"
	g=$(find "$D" -maxdepth 1 -name 'gen-events-*' | head -1)
	[ -n "$g" ] || fail "seed $seed: no trace of the well-behaved process"
	n=$(bt_count "$g" shmtrace_test:event)
	[ "$n" -eq 100000 ] || fail "seed $seed: $n events of the well-behaved process, expected 100000"
	check_seqs "$WORK/bt.out" 2 50000
	for t in "$D"/scribbler-*; do
		[ -d "$t" ] || continue
		st=0
		timeout 60 "$BT" "$t" >/dev/null 2>&1 || st=$?
		[ "$st" -lt 124 ] || fail "seed $seed: babeltrace2 on the scribbler's trace: status $st"
		st=0
		timeout 60 "$TRACE_READ" "$t" >/dev/null 2>&1 || st=$?
		[ "$st" -le 3 ] || fail "seed $seed: trace-read on the scribbler's trace: status $st"
	done
	stop_daemons
	echo "seed $seed: $what, the other trace exact, the consumer calm"
done
echo "ok"
