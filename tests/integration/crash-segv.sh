#!/usr/bin/env bash
# The traced program dies by segv: everything committed is in the trace.
. "$(dirname "$0")/lib.sh"
crash_test segv
