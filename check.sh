#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install what is missing, build, and run the whole test suite: every test
# with a consumer that drains on its main thread (--workers 1), then the
# integration tests again with four worker threads. Every integration test
# checks that each consumer it ran was asked for that many workers
# (tests/integration/lib.sh), and consumer-workers.sh that 4 do start.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup.sh
shmtrace_setup
jobs=$(nproc 2>/dev/null || echo 2)

# summary LOG STATUS: the counts of a test-suite log; if it failed, its
# tail, then each failed test with the reason it gave (its FAIL: lines)
summary() {
	local log=$1 pass fail xpass err skip
	[ -f "$log" ] || return 0
	pass=$(sed -n 's/^# PASS: *//p' "$log")
	fail=$(sed -n 's/^# FAIL: *//p' "$log")
	xpass=$(sed -n 's/^# XPASS: *//p' "$log")
	err=$(sed -n 's/^# ERROR: *//p' "$log")
	skip=$(sed -n 's/^# SKIP: *//p' "$log")
	if [ "$2" -ne 0 ]; then
		tail -n 40 "$log"
		awk '/^FAIL: tests\// { t = $2 } /^FAIL: / && !/^FAIL: tests\// { print "  " t ": " substr($0, 1, 300) }' \
			"$log" | head -n 20
	fi
	echo "${pass:-0} passed, $(( ${fail:-0} + ${xpass:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
}

status=0 status4=0
SHMTRACE_CONSUMER_WORKERS=1 make -C build -j"$jobs" check || status=$?
one=$(summary build/test-suite.log "$status")
echo "== integration tests with 4 consumer workers"
SHMTRACE_CONSUMER_WORKERS=4 make -C build -j"$jobs" check TESTS='$(INTEGRATION_TESTS)' \
	TEST_SUITE_LOG=test-suite-workers4.log || status4=$?
four=$(summary build/test-suite-workers4.log "$status4")
echo "1 consumer worker: $one"
echo "4 consumer workers: $four"
[ "$status" -eq 0 ] && [ "$status4" -eq 0 ] || exit 1
