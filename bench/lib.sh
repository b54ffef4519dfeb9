# SPDX-License-Identifier: MIT
# bench/lib.sh - what the small benchmarks share, beyond bench/common.sh:
# their options, their work directory and SHMTRACE_HOME. Source it with the
# script's arguments after setting `name` (the work directory's prefix)
# and the defaults `reps` and `events`: it parses -r REPS, -n EVENTS, -k
# (keep the work directory) and -h (prints the script's header comment, up
# to its usage line's block). A script with options of its own defines
# bench_option before: called with the remaining arguments when the first
# is none of these, it sets bench_shift to the number it took (0: unknown).
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift 2 ;;
	-n) events=$2; shift 2 ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '3,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*)
		bench_shift=0
		if declare -F bench_option >/dev/null; then bench_option "$@"; fi
		if [ "$bench_shift" -lt 1 ] || [ "$bench_shift" -gt $# ]; then
			sed -n 's/^# usage: /usage: /p' "$0" >&2
			exit 2
		fi
		shift "$bench_shift" ;;
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
