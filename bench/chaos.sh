#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# chaos.sh - the chaos test (tests/chaos/chaos.sh) for longer: two programs
# write events at full speed and a third forks children, while the consumer
# and the session daemon are killed and stopped at random instants; every
# event must be on disk once or counted lost, and status, trace-read and
# babeltrace2 must agree with the disk. Each run prints its seed, its
# faults and its figures; a failed run stops the series (its home and
# trace are kept, and CHAOS_SEED=SEED replays its faults).
#
# usage: bench/chaos.sh [-d SECONDS] [-r RUNS] [-f MIN_FAULTS] [-s SEED]
#                       [-b BURST] [-p PAUSE_US] [-i FORK_US] [-k KINDS]
#   -d SECONDS  how long the faults go on in each run (default 300)
#   -r RUNS     runs in a row (default 1); the seeds are SEED, SEED+1, ...
#   -f, -s, -b, -p, -i, -k  as tests/chaos/chaos.sh (at least 20 faults;
#               a random seed; bursts of 1000 events, 10000 us apart; a
#               fork every 250000 us; every kind of fault). For example
#               `-i 40000 -k kill-sessiond`: a child every 40 ms, and only
#               session daemons killed, the hardest case for a forked
#               child's registration
# Environment: SHMTRACE_BUILD (default <tree>/build), TMPDIR (where the
# homes and traces go: a run of 300 s writes a few GiB).
#
# It is a benchmark, not a test: it prints figures (make check runs the
# short form, about a minute).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
secs=300 runs=1 faults=20 seed="" burst=1000 pause_us=10000 fork_us=250000
fault_kinds=kill-consumer,kill-sessiond,stop-consumer,stop-sessiond
while getopts d:r:f:s:b:p:i:k:h o; do
	case $o in
	d) secs=$OPTARG ;;
	r) runs=$OPTARG ;;
	f) faults=$OPTARG ;;
	s) seed=$OPTARG ;;
	b) burst=$OPTARG ;;
	p) pause_us=$OPTARG ;;
	i) fork_us=$OPTARG ;;
	k) fault_kinds=$OPTARG ;;
	h) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-d SECONDS] [-r RUNS] [-f MIN_FAULTS] [-s SEED] [-b BURST] [-p PAUSE_US]" \
		"[-i FORK_US] [-k KINDS]" >&2
	   exit 2 ;;
	esac
done
name=chaos
. "$top/bench/common.sh"
case $secs$runs$faults$burst$pause_us$fork_us$seed in ''|*[!0-9]*) die "bad option value" ;; esac
[ -x "$build/tracectl" ] || die "no shmtrace build in $build"
command -v babeltrace2 >/dev/null 2>&1 || die "babeltrace2 is needed"
# the test's programs are built by make check; build just them
make -C "$build" -s tests/apps/chaos-app tests/chaos/chaos-check >/dev/null ||
	die "cannot build the chaos test's programs"
[ -n "$seed" ] || seed=$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483648 ))

out=$(mktemp "${TMPDIR:-/tmp}/chaos-bench.XXXXXX")
trap 'rm -f "$out"' EXIT
# faults by kind: consumer killed / session daemon killed / consumer
# stopped / session daemon stopped
printf '%-11s %7s %-16s %6s %12s %12s %10s %7s %8s %6s\n' seed faults "kinds" secs emitted \
	"on disk" "lost" "lost %" "check s" "MiB"
for ((r = 0; r < runs; r++)); do
	s=$(( (seed + r) % 2147483648 ))
	t0=$(date +%s)
	rc=0
	SHMTRACE_TEST_KEEP=1 top_builddir=$build top_srcdir=$top BABELTRACE2=babeltrace2 \
		"$top/tests/chaos/chaos.sh" -d "$secs" -f "$faults" -s "$s" -b "$burst" -p "$pause_us" \
		-i "$fork_us" -k "$fault_kinds" >"$out" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$out" >&2
		die "run $((r + 1)) of $runs failed (seed $s, exit status $rc, $(( $(date +%s) - t0 )) s)"
	fi
	grep '^fault \|^chaos: seed\|^note' "$out" >&2 || true
	last=$(tail -n 1 "$out")
	timing=$(grep '^chaos: faults for ' "$out")
	kinds=$(grep '^chaos: [0-9]* consumers killed' "$out" | tr -cs '0-9' ' ' | sed 's/^ //; s/ $//; s/ /\//g')
	read -r f e d l < <(echo "$last" |
		sed -n 's/^chaos: \([0-9]*\) faults, emitted \([0-9]*\), on disk \([0-9]*\), counted lost \([0-9]*\),.*/\1 \2 \3 \4/p')
	[ -n "${l:-}" ] || die "run $((r + 1)): no last line: $last"
	chk=$(echo "$timing" | sed -n 's/.*trace checked and read in \([0-9]*\) s.*/\1/p')
	mib=$(echo "$timing" | sed -n 's/.*(\([0-9]*\) MiB).*/\1/p')
	printf '%-11s %7s %-16s %6s %12s %12s %10s %7s %8s %6s\n' "$s" "$f" "$kinds" \
		"$(( $(date +%s) - t0 ))" "$e" "$d" "$l" \
		"$(awk -v l="$l" -v e="$e" 'BEGIN { printf "%.2f", e ? 100 * l / e : 0 }')" "$chk" "$mib"
	log "$last"
done
echo "chaos: $runs run(s) of $secs s passed, seeds $seed to $(( (seed + runs - 1) % 2147483648 ))"
