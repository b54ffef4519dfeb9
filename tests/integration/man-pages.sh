#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every manual page renders with man -l at 80 columns, without a warning
# from groff, has the sections of its kind, and is installed (listed in a
# dist_manN_MANS of Makefile.am); the pages of every program and library
# are there.
. "$(dirname "$0")/lib.sh"
command -v man >/dev/null 2>&1 || { echo "man not installed: skipped"; exit 77; }
n=0
for f in "$top_srcdir"/doc/man/*.[0-9]; do
	page=$(basename "$f")
	sect=${page##*.}
	MANWIDTH=80 man --warnings -l "$f" >"$WORK/page" 2>"$WORK/err" || fail "$f: man failed: $(cat "$WORK/err")"
	[ ! -s "$WORK/err" ] || fail "$f: $(cat "$WORK/err")"
	case $sect in
	3) want="NAME SYNOPSIS DESCRIPTION RETURN_VALUE ENVIRONMENT EXAMPLES SEE_ALSO" ;;
	*) want="NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT FILES EXIT_STATUS EXAMPLES SEE_ALSO" ;;
	esac
	for s in $want; do
		grep -q "^${s//_/ }\$" "$WORK/page" || fail "$f: no ${s//_/ } section"
	done
	list=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$top_srcdir/Makefile.am" |
		sed -n "s/^dist_man${sect}_MANS = //p" | tr -s ' \t' '  ')
	[[ " $list " == *" doc/man/$page "* ]] ||
		fail "$page is not installed (not in dist_man${sect}_MANS)"
	n=$((n + 1))
done
for p in tracectl.1 trace-read.1 tracectl-aggregate.1 tracectl-show-aggregations.1 \
	trace-sessiond.8 trace-consumerd.8 shmtrace.3 shmtrace-reader.3; do
	[ -f "$top_srcdir/doc/man/$p" ] || fail "no page $p"
done
echo "ok: $n pages"
exit 0
