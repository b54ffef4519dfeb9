#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# memory.sh - what a traced program's buffers cost in memory, by number of
# threads, under the default channel: programs of 1, 16, 64 and 256
# threads (bench/mem-threads.c), each thread emitting EVENTS events of
# event B (29 bytes each; the default, 320000, is about 9 MB per thread,
# more than its 8 MiB buffer), at most RATE events per second per thread.
#
# Per thread count, the program's memory while its threads are alive and
# idle, and again once they exited and the buffers stayed free past the
# consumer's reclaim delay (SHMTRACE_RECLAIM_MS, set to 1000 here):
#   rss        VmRSS (KiB)
#   shmem      RssShmem: its shared memory mapped and resident (KiB)
#   buffers    what its buffer memfds hold (KiB), mapped or not
# the channel's budget (the buffers a process may hold, status's
# budget_buffers; 0: no limit) and the events recorded and lost
# (discarded, without a buffer: the threads past the budget).
#
# usage: bench/memory.sh [-n EVENTS] [-k] [THREADS...]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR, RATE
# (events per second per thread, default 0: as fast as they can), BUDGET
# (the channel's --buffer-budget, e.g. 0 for none; default: the default).
set -euo pipefail
events=320000
reps=1
name=memory
counts=()
bench_option() { case $1 in [0-9]*) counts+=("$1"); bench_shift=1 ;; esac; }
. "$(dirname "$0")/lib.sh" "$@"
[ ${#counts[@]} -gt 0 ] || counts=(1 16 64 256)
rate=${RATE:-0}
export SHMTRACE_RECLAIM_MS=1000
bench_cc "$work/mt" "$top/bench/mem-threads.c"
bench_daemons

kib() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status"; }
buf_kib() {	# what the buffer memfds of process $1 hold, KiB
	local f n=0 b
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		/memfd:shmtrace-buf*)
			b=$(stat -L -c '%b %B' "$f" 2>/dev/null) || continue
			n=$((n + ${b% *} * ${b#* } / 1024))
			;;
		esac
	done
	echo "$n"
}
printf '%-8s %10s %10s %10s | %10s %10s %10s | %6s %12s %10s %10s\n' threads rss shmem buffers \
	"rss gone" "shmem gone" "buf gone" budget recorded discarded nobuf
for t in "${counts[@]}"; do
	"$T" create m --output "$work/m" >/dev/null
	[ -z "${BUDGET:-}" ] || "$T" enable-channel -s m channel0 --buffer-budget "$BUDGET" >/dev/null
	"$T" enable-event -s m 'bench:b' >/dev/null
	"$T" start m >/dev/null
	rm -f "$work/in" "$work/out"
	mkfifo "$work/in" "$work/out"
	"$work/mt" "$t" "$events" "$rate" <"$work/in" >"$work/out" &
	pid=$!
	exec {in}>"$work/in" {out}<"$work/out"
	read -r l <&"$out"
	[ "$l" = ready ] || die "mem-threads said '$l'"
	sleep 2	# the consumer drains what is left
	alive="$(kib "$pid" VmRSS) $(kib "$pid" RssShmem) $(buf_kib "$pid")"
	echo go >&"$in"
	read -r l <&"$out"
	[ "$l" = exited ] || die "mem-threads said '$l'"
	sleep 3	# drained, freed, then reclaimed (1 s delay, swept once a second)
	gone="$(kib "$pid" VmRSS) $(kib "$pid" RssShmem) $(buf_kib "$pid")"
	echo go >&"$in"
	wait "$pid"
	exec {in}>&- {out}<&-
	"$T" stop m >/dev/null
	"$T" status m --format json >"$work/st.json"
	"$T" destroy m >/dev/null
	rm -rf "$work/m"
	read -r r1 s1 b1 <<<"$alive"
	read -r r2 s2 b2 <<<"$gone"
	printf '%-8s %10s %10s %10s | %10s %10s %10s | %6s %12s %10s %10s\n' "$t" "$r1" "$s1" "$b1" \
		"$r2" "$s2" "$b2" "$(status_sum "$work/st.json" budget_buffers)" \
		"$(status_sum "$work/st.json" recorded)" \
		"$(status_sum "$work/st.json" discarded)" \
		"$(status_sum "$work/st.json" lost_without_buffer)"
done
