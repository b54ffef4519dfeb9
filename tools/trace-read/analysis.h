/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - trace-read's analyses, each fed the events one by one as
 * the reader merges them, each with memory bounded by what it reports
 * (names, threads, open pairs, durations kept for exact percentiles), never
 * by the number of events read.
 *
 *  - stats: events per name and per thread, discarded events per process
 *    and stream, time span and rate; or, in short (--stats=count), events
 *    per name, total and discarded, one count per line. A process is
 *    counted per program image: a shmtrace_proc:exec event that starts a
 *    trace, or another process name, starts a new image of its pid; the
 *    traces of one image (chunks of a rotated session) are one. A fork is
 *    counted once under shmtrace_proc:fork, though the parent and the
 *    child both record it (the totals count the events). Damaged stream
 *    files are listed last, each with the events read before its damage
 *    (--stats=count: their number, on a "damaged" line, when there are).
 *  - latency: pairs BEGIN and END events per thread (or by a key field)
 *    and reports count, min, p50, p90, p99, p99.9, max and a power-of-two
 *    histogram (DTrace's quantize), and optionally the pairs slower than a
 *    bound.
 *
 * Each returns -ENOMEM when it runs out of memory; printing goes to a
 * FILE.
 */
#ifndef SHMTRACE_TOOLS_ANALYSIS_H
#define SHMTRACE_TOOLS_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>
#include <shmtrace/reader.h>

struct an_stats;
struct an_latency;

struct an_stats *an_stats_new(const struct shmtrace_rd_reader *r);
int an_stats_event(struct an_stats *s, const struct shmtrace_rd_event *ev);
void an_stats_print(struct an_stats *s, const struct shmtrace_rd_reader *r, FILE *out);
/*
 * The short form: an_stats_count() counts events per class only (no
 * thread, no time span: cheaper than an_stats_event(), always 0);
 * an_stats_print_counts() prints "%12" PRIu64 "  NAME" per event name (its
 * classes added up), sorted by name, then the "  total" and "  discarded"
 * lines, and "  damaged" when stream files were damaged: 0, or -ENOMEM.
 */
int an_stats_count(struct an_stats *s, const struct shmtrace_rd_event *ev);
int an_stats_print_counts(struct an_stats *s, const struct shmtrace_rd_reader *r, FILE *out);
void an_stats_free(struct an_stats *s);

/*
 * @begin and @end: event name globs; @by: a field of both events whose
 * value pairs them (payload or context, as sel_field_ref() finds it; NULL:
 * the thread); @slower_ns: list pairs longer than this (0: none).
 */
struct an_latency *an_latency_new(const char *begin, const char *end, const char *by,
				  uint64_t slower_ns);
int an_latency_event(struct an_latency *l, const struct shmtrace_rd_event *ev);
void an_latency_print(struct an_latency *l, FILE *out);
void an_latency_free(struct an_latency *l);

/*
 * The name of the function at @addr in the process (trace) of @ev, as the
 * profile and the chrome export name it, written to @buf (@len bytes at
 * most): the function's name from @syms (NULL: none), else "0x" and the
 * address in hexadecimal. Returns @buf.
 */
const char *an_function_name(struct shmtrace_rd_symbols *syms, const struct shmtrace_rd_event *ev,
			     uint64_t addr, char *buf, size_t len);

/*
 * profile: calls, total and self time per function from shmtrace_func
 * entry/exit events, and the bytes allocated inside each (shmtrace_libc
 * events) when present. Recursive calls count in calls and self time;
 * total time counts the outermost activation only, so no time is counted
 * twice.
 */
struct an_profile;
struct an_profile *an_profile_new(struct shmtrace_rd_symbols *syms);
int an_profile_event(struct an_profile *p, const struct shmtrace_rd_event *ev);
void an_profile_print(struct an_profile *p, FILE *out);

/* One function's line of a profile. */
struct an_prof_row {
	const char *name;
	uint64_t calls, total, self, bytes_self, bytes_total;
};

/*
 * Print @n rows as --profile does: rows of one name (the same function in
 * several processes) added up, sorted by total time; the byte columns
 * with @have_alloc. Reorders @rows.
 */
void an_profile_rows_print(FILE *out, struct an_prof_row *rows, size_t n, int have_alloc);
void an_profile_free(struct an_profile *p);

/*
 * chrome: the Chrome trace event format (JSON) that Perfetto UI and
 * chrome://tracing open: a track per thread, named after its process and
 * thread; events with a dur_ns or wait_ns field, function entry/exit,
 * and events named X_begin and X_end (also X_entry and X_exit, X_start
 * and X_stop) as complete slices; other events as instants with their
 * fields as arguments (chrome.c says what exactly). an_chrome_event()
 * returns 0, -ENOMEM or -EIO.
 */
struct an_chrome;
struct an_chrome *an_chrome_new(FILE *out, struct shmtrace_rd_symbols *syms);
int an_chrome_event(struct an_chrome *c, const struct shmtrace_rd_event *ev);
int an_chrome_finish(struct an_chrome *c);	/* closes the JSON; 0 or -EIO */

#endif
