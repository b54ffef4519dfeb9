/* SPDX-License-Identifier: MIT */
/*
 * chrome.h - trace-read --export chrome: the Chrome trace event format
 * (JSON) that Perfetto UI and chrome://tracing open: a track per thread,
 * named after its process and thread; events with a dur_ns or wait_ns
 * field, function entry/exit (named as the profile names them, profile.h)
 * and events named X_begin and X_end (also X_entry and X_exit, X_start and
 * X_stop) as complete slices; other events as instants with their fields
 * as arguments (chrome.c says what exactly). Fed the events one by one as
 * the reader merges them.
 */
#ifndef SHMTRACE_TOOLS_CHROME_H
#define SHMTRACE_TOOLS_CHROME_H

#include <stdio.h>
#include <shmtrace/reader.h>

struct an_chrome;

/* Write to @out, naming functions with @syms (NULL: addresses); NULL without memory. */
struct an_chrome *an_chrome_new(FILE *out, struct shmtrace_rd_symbols *syms);
/* One event: 0, -ENOMEM or -EIO. */
int an_chrome_event(struct an_chrome *c, const struct shmtrace_rd_event *ev);
/* Close the JSON and free @c: 0, or -EIO. */
int an_chrome_finish(struct an_chrome *c);

#endif
