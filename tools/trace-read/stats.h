/* SPDX-License-Identifier: MIT */
/*
 * stats.h - trace-read --stats: events per name and per thread, discarded
 * events per process and stream, time span and rate; or, in short
 * (--stats=count), events per name, total and discarded, one count per
 * line. Fed the events one by one as the reader merges them, with memory
 * bounded by what it reports (names, threads, images), never by the
 * number of events read.
 *
 * A process is counted per program image: a shmtrace_proc:exec event that
 * starts a trace, or another process name, starts a new image of its pid;
 * the traces of one image (chunks of a rotated session) are one. A fork is
 * counted once under shmtrace_proc:fork, though the parent and the child
 * both record it (the totals count the events). Damaged stream files are
 * listed last, each with the events read before its damage (--stats=count:
 * their number, on a "damaged" line, when there are).
 *
 * Each function returns -ENOMEM when it runs out of memory; printing goes
 * to a FILE.
 */
#ifndef SHMTRACE_TOOLS_STATS_H
#define SHMTRACE_TOOLS_STATS_H

#include <stdint.h>
#include <stdio.h>
#include <shmtrace/reader.h>

struct an_stats;

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

#endif
