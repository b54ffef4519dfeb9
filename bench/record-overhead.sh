#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# record-overhead.sh - what `tracectl record` adds to a short command: the
# wall time of /bin/true run bare and under `tracectl record`, with the
# daemons already running (warm) and with none running, record starting
# them (cold), and `uftrace record` beside them when uftrace is installed.
#
# Each repetition runs, in an order that alternates: the command bare;
# `tracectl record --output DIR -- CMD` with the daemons of one home
# running (DIR removed after each run); `uftrace record --force -d DIR
# CMD` (--force: a program built without -pg, whose library calls uftrace
# records; a run that leaves no data is not counted); and
# `tracectl record` in a new home where no daemon runs (the daemons it
# started are stopped afterwards, untimed). Times are taken by the shell
# ($EPOCHREALTIME: no process started to read the clock), so each includes
# starting the program. Printed: the medians over the repetitions, and
# the medians of the differences and ratios to the bare command taken
# within each repetition.
#
# usage: bench/record-overhead.sh [-r REPS] [-c CMD] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), TMPDIR.
set -euo pipefail
reps=21
events=0
cmd=/bin/true
name=record-overhead
bench_option() {
	if [ "$1" = -c ] && [ $# -ge 2 ]; then
		cmd=$2
		bench_shift=2
	fi
}
. "$(dirname "$0")/lib.sh" "$@"
[ "${BASH_VERSINFO[0]}" -ge 5 ] || die "needs bash 5 (EPOCHREALTIME)"
res=$work/results
: >"$res"
uft=$(command -v uftrace || true)
[ -n "$uft" ] || log "$name: uftrace is not installed: its column is n/a"

us() {	# us CMD...: the wall time of CMD (its output dropped), in microseconds
	local a b
	a=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || true
	b=$EPOCHREALTIME
	echo $(((${b/./} - ${a/./})))
}
cold() {	# cold: record in a new home, no daemon running; its daemons stopped after
	local h=$work/cold$rep t
	mkdir -m 700 "$h"
	t=$(SHMTRACE_HOME=$h us "$T" record --output "$work/c" -- $cmd)
	shmtrace_daemons_stop "$h" || log "warning: the daemons of $h did not stop cleanly"
	rm -rf "$h" "$work/c"
	echo "$t"
}
bench_daemons
# one untimed run of each: the page cache warm
"$T" record --output "$work/w" -- $cmd >/dev/null 2>&1 || die "tracectl record failed"
rm -rf "$work/w"
[ -z "$uft" ] || { "$uft" record --force -d "$work/u" $cmd >/dev/null 2>&1 || true; rm -rf "$work/u"; }
kinds="bare warm uftrace cold"
for rep in $(seq "$reps"); do
	order=$kinds
	[ $((rep % 2)) = 0 ] && order=$(echo "$kinds" | tr ' ' '\n' | tac | tr '\n' ' ')
	for k in $order; do
		case $k in
		bare) record bare us "$(us $cmd)" ;;
		warm) record warm us "$(us "$T" record --output "$work/w" -- $cmd)"
		      rm -rf "$work/w" ;;
		uftrace) if [ -n "$uft" ]; then
				t=$(us "$uft" record --force -d "$work/u" $cmd)
				[ ! -f "$work/u/info" ] || record uftrace us "$t"
			 fi
			 rm -rf "$work/u" ;;
		cold) record cold us "$(cold)" ;;
		esac
	done
done
echo "$name: $cmd, $reps repetitions; wall time in ms, median (min-max); added: the median"
echo "of (X - bare) and of X / bare, each taken within a repetition"
printf '%-34s %8s %14s %10s %8s\n' "" median range added ratio
for k in $kinds; do
	m=$(med "$k" us)
	r=$(vals "$k" us | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { if (NR) printf "%.1f-%.1f", a / 1000, b / 1000 }')
	case $k in
	bare) label="bare" ;;
	warm) label="tracectl record, daemons running" ;;
	uftrace) label="uftrace record --force" ;;
	cold) label="tracectl record, daemons started" ;;
	esac
	if [ -z "$m" ]; then
		printf '%-34s %8s\n' "$label" n/a
		continue
	fi
	printf '%-34s %8.1f %14s %10s %8s\n' "$label" "$(echo "$m" | awk '{ print $1 / 1000 }')" "$r" \
		"$([ "$k" = bare ] && echo - || fmt %.1f "$(medratio "$k" us bare us - | awk 'NF { print $1 / 1000 }')")" \
		"$([ "$k" = bare ] && echo - || fmt %.1f "$(medratio "$k" us bare us)")"
done
