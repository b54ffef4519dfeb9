#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup.sh
shmtrace_setup
jobs=$(nproc 2>/dev/null || echo 2)
status=0
make -C build -j"$jobs" check || status=$?
log=build/test-suite.log
if [ -f "$log" ]; then
	pass=$(sed -n 's/^# PASS: *//p' "$log")
	fail=$(sed -n 's/^# FAIL: *//p' "$log")
	xpass=$(sed -n 's/^# XPASS: *//p' "$log")
	err=$(sed -n 's/^# ERROR: *//p' "$log")
	skip=$(sed -n 's/^# SKIP: *//p' "$log")
	[ "$status" -eq 0 ] || cat "$log" | tail -n 60
	echo "${pass:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
fi
exit "$status"
