// SPDX-License-Identifier: MIT
/*
 * aggprint.h - trace-read --aggregations: print the aggregations.json a
 * consumer wrote when its session stopped (support/aggjson.h reads it,
 * support/aggfmt.h prints it), as DTrace-style text or as one JSON
 * document; function profiles as --profile prints them, named from the
 * state dumps of the traces beside the file.
 */
#ifndef SHMTRACE_TOOLS_AGGPRINT_H
#define SHMTRACE_TOOLS_AGGPRINT_H

#include <stdbool.h>

/*
 * Print @path's aggregations.json (@path: the directory that holds it, or
 * the file): all, or those named @name only; as JSON with @json; profiles
 * without function names unless @symbols. Returns the exit status: 0, 1
 * (no aggregation @name) or 2 (unreadable or damaged file, write error),
 * after a message on standard error.
 */
int aggprint(const char *path, bool json, const char *name, bool symbols);

#endif
