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
# Beside each, the same program built with LTTng-UST 2.13 (when it is
# installed; --no-lttng: not), its event recorded by a channel of LTTng's
# defaults with per-user buffers, then with per-process buffers. Its
# buffers are the shared memory files of LTTng's consumer the process
# maps (per-user buffers are shared by every process of the user); lost
# is the events emitted minus those babeltrace2 counts in the trace.
#
# usage: bench/memory.sh [-n EVENTS] [-k] [--no-lttng] [THREADS...]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR, RATE
# (events per second per thread, default 0: as fast as they can), BUDGET
# (the channel's --buffer-budget, e.g. 0 for none; default: the default).
set -euo pipefail
events=320000
reps=1
name=memory
counts=()
use_lttng=1
bench_option() {
	case $1 in
	[0-9]*) counts+=("$1"); bench_shift=1 ;;
	--no-lttng) use_lttng=0; bench_shift=1 ;;
	esac
}
. "$(dirname "$0")/lib.sh" "$@"
[ ${#counts[@]} -gt 0 ] || counts=(1 16 64 256)
rate=${RATE:-0}
export SHMTRACE_RECLAIM_MS=1000
bench_cc "$work/mt" "$top/bench/mem-threads.c"
if [ "$use_lttng" = 1 ] && command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null &&
   ${CC:-cc} -O2 -pthread -DBENCH_LTTNG -I"$top/bench" -o "$work/mt-lttng" "$top/bench/mem-threads.c" \
	-llttng-ust -ldl 2>"$work/build-lttng.log"; then
	trap 'lttng_daemons_stop; bench_cleanup' EXIT
	lttng_daemons_start "$work/lttng-home" "$work/lttng-sessiond.log" ||
		die "lttng-sessiond does not start (see $work/lttng-sessiond.log; another root session daemon?)"
else
	[ "$use_lttng" = 0 ] || log "$name: LTTng-UST, lttng-tools or babeltrace2 missing: shmtrace only"
	use_lttng=0
fi
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
# lttng_buf_kib PID: what the LTTng consumer's buffer files that PID maps hold, KiB
lttng_buf_kib() {
	local f n=0 b seen=" "
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		/dev/shm/shm-ust-consumer-*)
			b=$(stat -L -c '%i %b %B' "$f" 2>/dev/null) || continue
			set -- $b
			case $seen in *" $1 "*) continue ;; esac
			seen="$seen$1 "
			n=$((n + $2 * $3 / 1024))
			;;
		esac
	done
	echo "$n"
}

# run_mt PROG BUFS [ENV...]: the program of $t threads, its memory alive and
# gone ("rss shmem buffers" each, BUFS the function that measures the
# buffers) into $alive and $gone
run_mt() {
	local prog=$1 bufs=$2 pid in out l
	shift 2
	rm -f "$work/in" "$work/out"
	mkfifo "$work/in" "$work/out"
	env "$@" "$prog" "$t" "$events" "$rate" <"$work/in" >"$work/out" &
	pid=$!
	exec {in}>"$work/in" {out}<"$work/out"
	read -r l <&"$out"
	[ "$l" = ready ] || die "mem-threads said '$l'"
	sleep 2	# the consumer drains what is left
	alive="$(kib "$pid" VmRSS) $(kib "$pid" RssShmem) $($bufs "$pid")"
	echo go >&"$in"
	read -r l <&"$out"
	[ "$l" = exited ] || die "mem-threads said '$l'"
	sleep 3	# drained, freed, then reclaimed (1 s delay, swept once a second)
	gone="$(kib "$pid" VmRSS) $(kib "$pid" RssShmem) $($bufs "$pid")"
	echo go >&"$in"
	wait "$pid"
	exec {in}>&- {out}<&-
}

row() {	# row TRACER THREADS ALIVE GONE BUDGET RECORDED DISCARDED NOBUF
	local r1 s1 b1 r2 s2 b2
	read -r r1 s1 b1 <<<"$3"
	read -r r2 s2 b2 <<<"$4"
	printf '%-10s %-8s %10s %10s %10s | %10s %10s %10s | %6s %12s %10s %10s\n' "$1" "$2" \
		"$r1" "$s1" "$b1" "$r2" "$s2" "$b2" "$5" "$6" "$7" "$8"
}
printf '%-10s %-8s %10s %10s %10s | %10s %10s %10s | %6s %12s %10s %10s\n' tracer threads rss shmem \
	buffers "rss gone" "shmem gone" "buf gone" budget recorded discarded nobuf
for t in "${counts[@]}"; do
	"$T" create m --output "$work/m" >/dev/null
	[ -z "${BUDGET:-}" ] || "$T" enable-channel -s m channel0 --buffer-budget "$BUDGET" >/dev/null
	"$T" enable-event -s m 'bench:b' >/dev/null
	"$T" start m >/dev/null
	run_mt "$work/mt" buf_kib
	"$T" stop m >/dev/null
	"$T" status m --format json >"$work/st.json"
	"$T" destroy m >/dev/null
	rm -rf "$work/m"
	row shmtrace "$t" "$alive" "$gone" "$(status_sum "$work/st.json" budget_buffers)" \
		"$(status_sum "$work/st.json" recorded)" \
		"$(status_sum "$work/st.json" discarded)" \
		"$(status_sum "$work/st.json" lost_without_buffer)"
	[ "$use_lttng" = 1 ] || continue
	for mode in uid pid; do
		{ lttng create m --output "$work/l" &&
		  lttng enable-channel -u --buffers-$mode ch &&
		  lttng enable-event -u -c ch bench:b &&
		  lttng start m; } >"$work/lttng.ctl" 2>&1 || { cat "$work/lttng.ctl" >&2; die "lttng set-up failed"; }
		# the program waits for its registration: its event is then enabled
		run_mt "$work/mt-lttng" lttng_buf_kib LTTNG_UST_REGISTER_TIMEOUT=-1
		lttng stop m >/dev/null 2>&1
		lttng destroy m >/dev/null 2>&1
		n=$(lttng_count "$work/l")
		rm -rf "$work/l"
		row "lttng-$mode" "$t" "$alive" "$gone" - "$n" "$((t * events - n))" -
	done
done
echo "KiB; budget: the buffers a process may hold; lttng: discarded = emitted - recorded"
