# SPDX-License-Identifier: MIT
# bench/lib.sh - what the small benchmarks share, beyond bench/common.sh:
# their options, their work directory and SHMTRACE_HOME, and building a
# program against the build's library. Source it with the script's
# arguments after setting `name` (the work directory's prefix) and the
# defaults `reps` and `events`: it parses -r REPS, -n EVENTS, -k (keep the
# work directory) and -h (prints the script's header comment, up to its
# usage line's block).
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
. "$top/bench/common.sh"
[ -x "$build/tracectl" ] || die "no build in $build"
work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
T=$build/tracectl

bench_cleanup() {
	shm_daemons_stop
	if [ "$keep" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap bench_cleanup EXIT

# bench_daemons: start them in $work/home; sets CONSUMERD_PID
bench_daemons() {
	shm_daemons_start "$work/home" "$work/sessiond.log" || die "the daemons do not start"
}

# bench_cc OUT SOURCE: a benchmark program linked with the build's libshmtrace
bench_cc() {
	${CC:-cc} -O2 -pthread -I"$top/include" -o "$1" "$2" "$build/.libs/libshmtrace.so" \
		-Wl,-rpath,"$build/.libs"
}
