#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every manual page renders with man -l, without a warning from groff.
. "$(dirname "$0")/lib.sh"
command -v man >/dev/null 2>&1 || { echo "man not installed: skipped"; exit 77; }
n=0
for f in "$top_srcdir"/doc/man/*.[0-9]; do
	MANWIDTH=80 man --warnings -l "$f" >"$WORK/page" 2>"$WORK/err" || fail "$f: man failed: $(cat "$WORK/err")"
	[ ! -s "$WORK/err" ] || fail "$f: $(cat "$WORK/err")"
	grep -q "^NAME" "$WORK/page" || fail "$f: no NAME section"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no manual page found"
exit 0
