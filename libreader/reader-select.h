/* SPDX-License-Identifier: MIT */
/*
 * reader-select.h - which events trace-read and the columns of the reader
 * library (reader-columns.c) keep: event name globs, process and thread
 * ids, a time window and a filter expression (common/filter.h) on the
 * fields. Decisions that depend only on the event class are taken
 * once per class; the filter's field slots are bound once per class.
 */
#ifndef SHMTRACE_READER_SELECT_H
#define SHMTRACE_READER_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <shmtrace/reader.h>

struct sel;

struct sel *sel_new(void);
void sel_free(struct sel *s);

/* Keep events whose "provider:event" matches @pattern (any of them). */
int sel_add_event(struct sel *s, const char *pattern);
/* The @i-th of those patterns (from 0), or NULL past the last. */
const char *sel_event_pattern(const struct sel *s, size_t i);
void sel_add_pid(struct sel *s, int64_t pid);
void sel_add_tid(struct sel *s, uint32_t tid);
/*
 * Time bounds: seconds since the Epoch ("1795322544.25"), a time of day
 * on the first event's date ("04:30:41.669"), or an offset from the
 * first event ("+1.5s", "+200ms"). -EINVAL when unreadable.
 */
int sel_set_begin(struct sel *s, const char *when);
int sel_set_end(struct sel *s, const char *when);
/* --end before --begin (nothing could be selected)? 1 or 0; see select.c. */
int sel_window_bad(const struct sel *s);
/*
 * Keep events for which @expr holds. Fields are named as sel_field_ref()
 * finds them; also $ctx.pid, $ctx.tid and $ctx.procname (unless the event
 * has a context field of that name), and $event.name. On error, -EINVAL
 * and @err says what and at which column.
 */
int sel_set_filter(struct sel *s, const char *expr, char *err, size_t errlen);

/*
 * A field of @ev named by the user: the payload field @name, else the
 * context field @name; "$ctx.NAME" names the context field NAME only.
 * Returns a reference (>= 0, the same for every event of the class) for
 * sel_field_value(), or -ENOENT.
 */
int sel_field_ref(const struct shmtrace_rd_event *ev, const char *name);
/*
 * Fill *v with the field @ref (>= 0) of @ev; 0, or -EINVAL when it has
 * none. References: payload field i is 2 i, context field i is 2 i + 1.
 */
static inline int sel_field_value(const struct shmtrace_rd_event *ev, int ref,
				  struct shmtrace_rd_value *v)
{
	if (ref & 1)
		return shmtrace_rd_event_context(ev, (unsigned)ref >> 1, v);
	return shmtrace_rd_event_field(ev, (unsigned)ref >> 1, v);
}

/* How many context fields (@ctx) or payload fields @ev has. */
static inline unsigned sel_event_count(const struct shmtrace_rd_event *ev, bool ctx)
{
	return ctx ? shmtrace_rd_event_context_count(ev) : shmtrace_rd_event_field_count(ev);
}

/*
 * Context field @i (@ctx) or payload field @i of @ev: fills *v and returns
 * its name, or NULL when @ev has no such field.
 */
static inline const char *sel_event_value(const struct shmtrace_rd_event *ev, bool ctx,
					  unsigned i, struct shmtrace_rd_value *v)
{
	if (ctx)
		return shmtrace_rd_event_context(ev, i, v) ? NULL :
			shmtrace_rd_event_context_name(ev, i);
	return shmtrace_rd_event_field(ev, i, v) ? NULL : shmtrace_rd_event_field_name(ev, i);
}

/*
 * The process id of @ev: its trace's (shmtrace's traces, LTTng's per-PID
 * buffers), else its "vpid" context field (LTTng's per-UID buffers, where
 * one trace holds the events of several processes), else -1.
 */
int64_t sel_event_pid(const struct shmtrace_rd_event *ev);
/* The program of @ev: its trace's, else its "procname" context field, else "". */
const char *sel_event_procname(const struct shmtrace_rd_event *ev);

/* 1: keep the event; 0: skip it; 2: past the end bound (stop reading). */
int sel_match(struct sel *s, const struct shmtrace_rd_event *ev);

/*
 * Filter field @k (from 0) when none of the event classes read had it (a
 * typo, most likely), with *@near the closest field name they had (or
 * NULL); NULL when it was found, or when nothing was read. Valid until
 * sel_free().
 */
const char *sel_field_missing(const struct sel *s, unsigned int k, const char **near);

/* Nonzero when something is selected at all (else sel_match always keeps). */
int sel_active(const struct sel *s);

#endif
