#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The traced program dies by kill: everything committed is in the trace.
. "$(dirname "$0")/lib.sh"
crash_test kill
