/* SPDX-License-Identifier: MIT */
/*
 * select.h - which events trace-read keeps: event name globs, process and
 * thread ids, a time window and a filter expression (common/filter.h) on
 * the fields. Decisions that depend only on the event class are taken
 * once per class; the filter's field slots are bound once per class.
 */
#ifndef SHMTRACE_TOOLS_SELECT_H
#define SHMTRACE_TOOLS_SELECT_H

#include <stddef.h>
#include <stdint.h>
#include <shmtrace/reader.h>

struct sel;

struct sel *sel_new(void);
void sel_free(struct sel *s);

/* Keep events whose "provider:event" matches @pattern (any of them). */
int sel_add_event(struct sel *s, const char *pattern);
void sel_add_pid(struct sel *s, int64_t pid);
void sel_add_tid(struct sel *s, uint32_t tid);
/*
 * Time bounds: seconds since the Epoch ("1795322544.25"), a time of day
 * on the first event's date ("04:30:41.669"), or an offset from the
 * first event ("+1.5s", "+200ms"). -EINVAL when unreadable.
 */
int sel_set_begin(struct sel *s, const char *when);
int sel_set_end(struct sel *s, const char *when);
/*
 * Keep events for which @expr holds. Fields are the event's own; also
 * $ctx.pid, $ctx.tid and $ctx.procname, and $event.name. On error,
 * -EINVAL and @err says what and at which column.
 */
int sel_set_filter(struct sel *s, const char *expr, char *err, size_t errlen);

/* 1: keep the event; 0: skip it; 2: past the end bound (stop reading). */
int sel_match(struct sel *s, const struct shmtrace_rd_event *ev);

/* Nonzero when something is selected at all (else sel_match always keeps). */
int sel_active(const struct sel *s);

#endif
