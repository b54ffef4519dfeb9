#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every manual page renders with man -l at 80 columns, without a warning
# from groff, has the sections of its kind, and is installed (listed in a
# dist_manN_MANS of Makefile.am); the pages of every program and library
# are there. tracectl.1 is checked against tracectl's table of verbs
# (tests/apps/verb-table): its synopsis lists exactly the commands of the
# table, and each command has a section that names every option it takes.
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
# tracectl.1 against the table of verbs
"$B/tests/apps/verb-table" >"$WORK/table" || fail "verb-table failed"
awk '$1 == "verb" { print $2 }' "$WORK/table" | sort >"$WORK/verbs"
# "COMMAND is one of .BR create , ... .B view and .BR record ." in the synopsis
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$top_srcdir/doc/man/tracectl.1" |
	sed -n '/^is one of$/,$p' | sed -n 's/^\.BR\{0,1\} \([a-z\\-]*\).*/\1/p' |
	sed 's/\\-/-/g' | sort >"$WORK/listed"
cmp -s "$WORK/verbs" "$WORK/listed" ||
	fail "tracectl.1's synopsis does not list the commands of the table: $(diff "$WORK/verbs" "$WORK/listed" | grep '^[<>]' | tr '\n' ' ')"
# section VERB: the text of its ".SS" (whose title may name several
# commands), and of its own page tracectl-VERB.1 when there is one
section() {
	awk -v v="$1" '
		/^\.SH / { on = 0 }
		/^\.SS / { t = substr($0, 5); gsub(/\\-/, "-", t); on = index(", " t ", ", ", " v ", ") > 0 }
		on' "$top_srcdir/doc/man/tracectl.1"
	[ ! -f "$top_srcdir/doc/man/tracectl-$1.1" ] || cat "$top_srcdir/doc/man/tracectl-$1.1"
}
for v in $(cat "$WORK/verbs"); do
	section "$v" >"$WORK/section"
	[ -s "$WORK/section" ] || fail "tracectl.1 has no section for $v"
	# every option but --help, --timeout and --format (in OPTIONS: every command takes
	# them), long or short, as the page writes it (\-\-name, \-x); the
	# session may be the first argument ([NAME])
	while read -r kind verb opt short; do
		[ "$kind" = option ] && [ "$verb" = "$v" ] || continue
		opt=${opt%=}
		case $opt in --help | --timeout | --format) continue ;; esac
		grep -qF -- "${opt//-/\\-}" "$WORK/section" && continue
		[ -n "$short" ] && grep -qE -- "\\\\-${short#-}([^a-z]|\$)" "$WORK/section" && continue
		[ "$opt" = --session ] && grep -qF '.RI [ NAME ]' "$WORK/section" && continue
		fail "tracectl.1: the section of $v does not name $opt"
	done <"$WORK/table"
done
for o in timeout format; do
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$top_srcdir/doc/man/tracectl.1" | grep -qF -- "\\-\\-$o" ||
		fail "tracectl.1: OPTIONS does not name --$o"
done
echo "ok: $n pages, tracectl.1 as the table of verbs"
exit 0
