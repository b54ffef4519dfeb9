/* SPDX-License-Identifier: MIT */
/*
 * reader-select.c - event selection (see reader-select.h), shared by
 * trace-read and the columns of the reader library (reader-columns.c).
 *
 * Per (trace, event class) a verdict on the name (unknown, keep, skip) and
 * the binding of the filter's field slots to the class's payload or context
 * fields (or to the process, thread and event name), both computed at the
 * class's first event. Memory: a byte and FLT_MAX_FIELDS small integers
 * per class seen.
 *
 * A filter field that no class read has is most likely a typo: the
 * bindings remember which fields some class had, and for the others the
 * closest field name seen (sel_field_missing()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "reader-select.h"
#include "support/units.h"
#include "common/filter.h"
#include "support/filtercc.h"
#include "common/glob.h"
#include "tools/suggest.h"

#define SEL_MAX_IDS 64
#define SEL_CTX "$ctx."

enum { SLOT_NONE = -1, SLOT_PID = -2, SLOT_TID = -3, SLOT_PROC = -4, SLOT_NAME = -5 };

struct sel_class {
	int8_t verdict;			/* 0 unknown, 1 keep, -1 skip */
	int16_t slot[FLT_MAX_FIELDS];	/* sel_field_ref(), or SLOT_* */
};

struct sel_bound {
	int set, rel, tod;		/* given; relative to the first event; time of day */
	int64_t ns;			/* resolved: ns since the Epoch */
	int resolved;
};

struct sel {
	char **events;
	size_t nevents;
	int64_t pids[SEL_MAX_IDS];
	uint32_t tids[SEL_MAX_IDS];
	size_t npids, ntids;
	struct sel_bound begin, end;
	unsigned char *filter;		/* bytecode, NULL = none */
	struct sel_class **cls;		/* [trace][class] */
	size_t *ncls, ntr;
	int64_t first;
	int have_first;
	uint64_t bound;			/* filter fields some class had (bit k) */
	char *near[FLT_MAX_FIELDS];	/* else the closest name seen, or NULL */
};

struct sel *sel_new(void)
{
	return calloc(1, sizeof(struct sel));
}

void sel_free(struct sel *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nevents; i++)
		free(s->events[i]);
	free(s->events);
	for (size_t i = 0; i < s->ntr; i++)
		free(s->cls[i]);
	free(s->cls);
	free(s->ncls);
	free(s->filter);
	for (size_t k = 0; k < FLT_MAX_FIELDS; k++)
		free(s->near[k]);
	free(s);
}

int sel_active(const struct sel *s)
{
	return s->nevents || s->npids || s->ntids || s->begin.set || s->end.set || s->filter;
}

int sel_add_event(struct sel *s, const char *pattern)
{
	char **n = realloc(s->events, (s->nevents + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->events = n;
	s->events[s->nevents] = strdup(pattern);
	if (!s->events[s->nevents])
		return -ENOMEM;
	s->nevents++;
	return 0;
}

const char *sel_event_pattern(const struct sel *s, size_t i)
{
	return i < s->nevents ? s->events[i] : NULL;
}

void sel_add_pid(struct sel *s, int64_t pid)
{
	if (s->npids < SEL_MAX_IDS)
		s->pids[s->npids++] = pid;
}

void sel_add_tid(struct sel *s, uint32_t tid)
{
	if (s->ntids < SEL_MAX_IDS)
		s->tids[s->ntids++] = tid;
}

/* "1795322544.123456789": exact to the nanosecond (a double is not). */
static int parse_epoch(const char *p, int64_t *ns)
{
	int64_t sec = 0, frac = 0;
	int digits = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > INT64_MAX / 10 / 1000000000)
			return -EINVAL;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits++ < 9)
				frac = frac * 10 + (*p - '0');
	if (*p)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 0;
}

static int set_bound(struct sel_bound *b, const char *when)
{
	unsigned int h, m;
	int n = 0;

	memset(b, 0, sizeof(*b));
	b->set = 1;
	if (when[0] == '+') {
		uint64_t ns;
		int ret = units_duration(when + 1, &ns);

		if (ret < 0 || ns > INT64_MAX)
			return ret < 0 ? ret : -ERANGE;
		b->rel = 1;
		b->ns = (int64_t)ns;
		return 0;
	}
	if (sscanf(when, "%2u:%2u:%n", &h, &m, &n) == 2 && n > 0 && h < 24 && m < 60) {
		char sec[64];
		uint64_t ns;

		/* the seconds of a time of day, exact to the nanosecond */
		if (snprintf(sec, sizeof(sec), "%ss", when + n) >= (int)sizeof(sec) ||
		    units_duration(sec, &ns) < 0 || ns >= 61000000000ull)
			return -EINVAL;
		b->tod = 1;
		b->ns = ((int64_t)h * 3600 + m * 60) * 1000000000LL + (int64_t)ns;
		return 0;
	}
	b->resolved = 1;
	return parse_epoch(when, &b->ns);
}

int sel_set_begin(struct sel *s, const char *when)
{
	return set_bound(&s->begin, when);
}

int sel_set_end(struct sel *s, const char *when)
{
	return set_bound(&s->end, when);
}

/*
 * A window that selects nothing whatever the trace: --end before --begin
 * when both say when in the same way (two times since the Epoch, or two
 * times of day); else known only at the first event (sel_match() -EINVAL).
 */
int sel_window_bad(const struct sel *s)
{
	if (!s->begin.set || !s->end.set || s->end.rel)
		return 0;
	if (s->begin.tod != s->end.tod || s->begin.rel)
		return s->have_first && s->end.ns < s->begin.ns;
	return s->end.ns < s->begin.ns;
}

int sel_set_filter(struct sel *s, const char *expr, char *err, size_t errlen)
{
	unsigned char buf[sizeof(struct flt_hdr) + FLT_MAX_INSN * sizeof(struct flt_insn) +
			  FLT_MAX_TABLE];
	char msg[128];
	int col = 0;
	long n = flt_compile(expr, buf, sizeof(buf), &col, msg, sizeof(msg));

	if (n < 0) {
		if (n == -EINVAL)
			snprintf(err, errlen, "column %d: %s", col, msg);
		else
			snprintf(err, errlen, "%s", n == -E2BIG ? "expression too long" :
				 "out of memory");
		return -EINVAL;
	}
	free(s->filter);
	s->filter = malloc((size_t)n);
	if (!s->filter)
		return -ENOMEM;
	memcpy(s->filter, buf, (size_t)n);
	return 0;
}

/* Bounds given as a time of day or an offset take the first event's date. */
static void resolve(struct sel_bound *b, int64_t first)
{
	if (!b->set || b->resolved)
		return;
	if (b->rel) {
		b->ns += first;	/* (--end +D: @first is --begin, see sel_match()) */
	} else {
		time_t sec = (time_t)(first / 1000000000);
		struct tm tm;

		localtime_r(&sec, &tm);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		b->ns += (int64_t)mktime(&tm) * 1000000000LL;
	}
	b->resolved = 1;
}

/* See sel_field_value() for what a reference is. */
int sel_field_ref(const struct shmtrace_rd_event *ev, const char *name)
{
	int i;

	if (!strncmp(name, SEL_CTX, strlen(SEL_CTX))) {
		i = shmtrace_rd_event_context_index(ev, name + strlen(SEL_CTX));
		return i < 0 ? i : 2 * i + 1;
	}
	i = shmtrace_rd_event_field_index(ev, name);
	if (i >= 0)
		return 2 * i;
	i = shmtrace_rd_event_context_index(ev, name);
	return i < 0 ? i : 2 * i + 1;
}

/*
 * Keep in *@near the name closest to the unknown field @name (as it is
 * written): *@near itself, or one of @ev's fields.
 */
static void nearest_field(const struct shmtrace_rd_event *ev, const char *name, char **near)
{
	/* the names sel_class() knows besides the fields */
	static const char *const own[] = { "pid", "tid", "vpid", "vtid", "procname" };
	size_t pre = strncmp(name, SEL_CTX, strlen(SEL_CTX)) ? 0 : strlen(SEL_CTX);
	const char *names[1 + 5 + 2 * 64];
	const char *best;
	size_t n = 0;
	char *out;

	if (*near)
		names[n++] = *near + pre;	/* first: the earlier wins a tie */
	for (size_t i = 0; pre && i < sizeof(own) / sizeof(own[0]); i++)
		names[n++] = own[i];
	for (int ctx = !!pre; ctx < 2; ctx++)
		for (unsigned i = 0; i < sel_event_count(ev, ctx) && i < 64; i++) {
			const char *f = ctx ? shmtrace_rd_event_context_name(ev, i) :
					shmtrace_rd_event_field_name(ev, i);

			if (f)
				names[n++] = f;
		}
	best = suggest_word(name + pre, names, n);
	if (!best || (*near && best == *near + pre) ||
	    asprintf(&out, "%.*s%s", (int)pre, name, best) < 0)
		return;
	free(*near);
	*near = out;
}

static struct sel_class *sel_class(struct sel *s, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct sel_class *c;

	if (tr >= s->ntr) {
		size_t n = tr + 8;
		struct sel_class **nc = realloc(s->cls, n * sizeof(*nc));
		size_t *nn = nc ? realloc(s->ncls, n * sizeof(*nn)) : NULL;

		if (nc)
			s->cls = nc;
		if (nn)
			s->ncls = nn;
		if (!nn)
			return NULL;
		memset(s->cls + s->ntr, 0, (n - s->ntr) * sizeof(*nc));
		memset(s->ncls + s->ntr, 0, (n - s->ntr) * sizeof(*nn));
		s->ntr = n;
	}
	if (!s->cls[tr]) {
		s->ncls[tr] = shmtrace_rd_trace_event_class_count(t);
		s->cls[tr] = calloc(s->ncls[tr] + 1, sizeof(**s->cls));
		if (!s->cls[tr])
			return NULL;
	}
	c = &s->cls[tr][ci < s->ncls[tr] ? ci : s->ncls[tr]];
	if (c->verdict)
		return c;
	c->verdict = s->nevents ? -1 : 1;
	for (size_t i = 0; i < s->nevents; i++)
		if (glob_match(s->events[i], shmtrace_rd_event_name(ev)))
			c->verdict = 1;
	for (unsigned int k = 0; s->filter && k < flt_nfields(s->filter); k++) {
		const char *name = flt_field_name(s->filter, k);
		int ref = sel_field_ref(ev, name);

		c->slot[k] = ref >= 0 && ref <= INT16_MAX ? (int16_t)ref : SLOT_NONE;
		if (c->slot[k] != SLOT_NONE)
			continue;
		/* vpid and vtid: the names enable-event --filter takes too */
		if (!strcmp(name, "$ctx.pid") || !strcmp(name, "$ctx.vpid"))
			c->slot[k] = SLOT_PID;
		else if (!strcmp(name, "$ctx.tid") || !strcmp(name, "$ctx.vtid"))
			c->slot[k] = SLOT_TID;
		else if (!strcmp(name, "$ctx.procname"))
			c->slot[k] = SLOT_PROC;
		else if (!strcmp(name, "$event.name"))
			c->slot[k] = SLOT_NAME;
		if (c->slot[k] == SLOT_NONE)
			nearest_field(ev, name, &s->near[k]);
	}
	for (unsigned int k = 0; s->filter && k < flt_nfields(s->filter); k++)
		if (c->slot[k] != SLOT_NONE)
			s->bound |= 1ull << k;
	return c;
}

const char *sel_field_missing(const struct sel *s, unsigned int k, const char **near)
{
	if (!s->filter || k >= flt_nfields(s->filter) || !s->ntr || (s->bound >> k & 1))
		return NULL;
	*near = s->near[k];
	return flt_field_name(s->filter, k);
}

int64_t sel_event_pid(const struct shmtrace_rd_event *ev)
{
	int64_t pid = shmtrace_rd_trace_vpid(shmtrace_rd_event_trace(ev));
	struct shmtrace_rd_value v;
	int i;

	if (pid >= 0)
		return pid;
	i = shmtrace_rd_event_context_index(ev, "vpid");
	if (i >= 0 && !shmtrace_rd_event_context(ev, (unsigned)i, &v) && v.kind == SHMTRACE_RD_INT)
		return v.is_signed ? v.s : (int64_t)v.u;
	return -1;
}

const char *sel_event_procname(const struct shmtrace_rd_event *ev)
{
	const char *p = shmtrace_rd_trace_procname(shmtrace_rd_event_trace(ev));
	struct shmtrace_rd_value v;
	int i;

	if (*p)
		return p;
	i = shmtrace_rd_event_context_index(ev, "procname");
	if (i >= 0 && !shmtrace_rd_event_context(ev, (unsigned)i, &v) && v.kind == SHMTRACE_RD_STRING)
		return v.str;
	return p;
}

static int run_filter(struct sel *s, const struct sel_class *c, const struct shmtrace_rd_event *ev)
{
	struct flt_value v[FLT_MAX_FIELDS];

	for (unsigned int k = 0; k < flt_nfields(s->filter); k++) {
		struct shmtrace_rd_value rv;

		v[k].type = FLT_T_NONE;
		switch (c->slot[k]) {
		case SLOT_NONE:
			break;
		case SLOT_PID:
			v[k].type = FLT_T_S64;
			v[k].s = sel_event_pid(ev);
			break;
		case SLOT_TID:
			v[k].type = FLT_T_U64;
			v[k].u = shmtrace_rd_event_tid(ev);
			break;
		case SLOT_PROC:
			v[k].type = FLT_T_STR;
			v[k].str = sel_event_procname(ev);
			break;
		case SLOT_NAME:
			v[k].type = FLT_T_STR;
			v[k].str = shmtrace_rd_event_name(ev);
			break;
		default:
			if (sel_field_value(ev, c->slot[k], &rv) < 0)
				break;
			if (rv.kind == SHMTRACE_RD_INT) {
				v[k].type = rv.is_signed ? FLT_T_S64 : FLT_T_U64;
				v[k].u = rv.u;
			} else if (rv.kind == SHMTRACE_RD_FLOAT) {
				v[k].type = FLT_T_F64;
				v[k].d = rv.d;
			} else if (rv.kind == SHMTRACE_RD_STRING) {
				v[k].type = FLT_T_STR;
				v[k].str = rv.str;
			}
			break;
		}
	}
	return flt_eval(s->filter, v);
}

int sel_match(struct sel *s, const struct shmtrace_rd_event *ev)
{
	struct sel_class *c;
	int64_t ts;
	size_t i;

	if (s->begin.set || s->end.set) {
		ts = shmtrace_rd_event_time_ns(ev);
		if (!s->have_first) {
			s->have_first = 1;
			s->first = ts;
			resolve(&s->begin, ts);
			/* --end +D counts from --begin when there is one */
			resolve(&s->end, s->end.rel && s->begin.set ? s->begin.ns : ts);
			if (s->begin.set && s->end.set && s->end.ns < s->begin.ns)
				return -EINVAL;	/* the caller says so */
		}
		if (s->end.set && ts > s->end.ns)
			return 2;
		if (s->begin.set && ts < s->begin.ns)
			return 0;
	}
	if (s->npids) {
		int64_t pid = sel_event_pid(ev);

		for (i = 0; i < s->npids && s->pids[i] != pid; i++)
			;
		if (i == s->npids)
			return 0;
	}
	if (s->ntids) {
		uint32_t tid = shmtrace_rd_event_tid(ev);

		for (i = 0; i < s->ntids && s->tids[i] != tid; i++)
			;
		if (i == s->ntids)
			return 0;
	}
	if (!s->nevents && !s->filter)
		return 1;
	c = sel_class(s, ev);
	if (!c || c->verdict < 0)
		return 0;
	return s->filter ? run_filter(s, c, ev) : 1;
}
