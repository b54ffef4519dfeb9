# SPDX-License-Identifier: MIT
# bench/lib.sh - what the small benchmarks share: their options, their work
# directory and SHMTRACE_HOME, the daemons of the build started and stopped
# by pid, and medians. Source it with the script's arguments after setting
# `name` (the work directory's prefix) and the defaults `reps` and `events`:
# it parses -r REPS, -n EVENTS, -k (keep the work directory) and -h (prints
# the script's header comment, up to its usage line's block).
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift 2 ;;
	-n) events=$2; shift 2 ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '3,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
[ -x "$build/tracectl" ] || { echo "no build in $build" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
export SHMTRACE_HOME=$work/home SHMTRACE_SESSIOND=$build/trace-sessiond \
	SHMTRACE_CONSUMERD=$build/trace-consumerd
mkdir -m 0700 "$SHMTRACE_HOME"
T=$build/tracectl

bench_cleanup() {
	local s c p
	s=$(cat "$SHMTRACE_HOME/sessiond.pid" 2>/dev/null || true)
	c=$(cat "$SHMTRACE_HOME/consumerd.pid" 2>/dev/null || true)
	[ -n "$s" ] && kill -TERM "$s" 2>/dev/null
	for p in $s $c; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap bench_cleanup EXIT

# bench_daemons: start them; sets CONSUMERD_PID
bench_daemons() {
	"$build/trace-sessiond" --daemonize
	for _ in $(seq 50); do [ -s "$SHMTRACE_HOME/consumerd.pid" ] && break; sleep 0.1; done
	CONSUMERD_PID=$(cat "$SHMTRACE_HOME/consumerd.pid")
}

# bench_cc OUT SOURCE: a benchmark program linked with the build's libshmtrace
bench_cc() {
	${CC:-cc} -O2 -pthread -I"$top/include" -o "$1" "$2" "$build/.libs/libshmtrace.so" \
		-Wl,-rpath,"$build/.libs"
}

# median of the numbers on standard input, one per line
median() {
	grep . | sort -g | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
