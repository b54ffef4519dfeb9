#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The files of the session daemon call each other in no loop of more than
# 3 files (read off the object files: a file calls another when it uses a
# function or a variable the other defines), and doc/architecture.md names
# every one of them.
set -euo pipefail
: "${top_srcdir:?run through make check}"
: "${top_builddir:=.}"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
# the objects of the sources there are (an object of a file since renamed
# or removed may linger in a build directory)
objs=()
for o in "$top_builddir"/sessiond/trace_sessiond-*.o; do
	b=${o##*/trace_sessiond-}
	[ -e "$top_srcdir/sessiond/${b%.o}.c" ] && objs+=("$o")
done
[ "${#objs[@]}" -gt 0 ] || { echo "SKIP: trace-sessiond not built here"; exit 77; }
python3 "$top_srcdir/tests/unit/calls/calls.py" --max 3 --doc "$top_srcdir/doc/architecture.md" \
	--dir sessiond "${objs[@]}"
