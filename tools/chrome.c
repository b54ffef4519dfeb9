/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - trace-read --export chrome: the Chrome trace event format.
 *
 *	{"displayTimeUnit":"ns","traceEvents":[
 *	{"ph":"M","name":"process_name","pid":P,"tid":P,"args":{"name":"proc"}},
 *	{"ph":"B","name":"fib","cat":"shmtrace_func","ts":12.345,"pid":P,"tid":T},
 *	{"ph":"i","s":"t","name":"app:tick","ts":...,"args":{"n":3}},
 *	{"ph":"i",...,"args":{"n":4,"context":{"ip":"0x4011d6","cpu_id":2}}},
 *	...]}
 *
 * Timestamps are microseconds (with nanosecond decimals) from the first
 * event, so that viewers keep the precision. Each traced process is a pid
 * (its process id, or its trace's index when unknown), each thread a tid;
 * their names come as metadata events the first time they appear.
 * Slices: shmtrace_func:entry/exit named after the function, and events
 * named X_begin/X_end, X_entry/X_exit or X_start/X_stop named X. Memory:
 * one flag per (process, thread) seen, and the per-class roles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "select.h"

enum { CK_UNKNOWN, CK_INSTANT, CK_BEGIN, CK_END, CK_FUNC_ENTRY, CK_FUNC_EXIT };

struct ch_class {
	uint8_t kind;
	char *slice;			/* slice name for CK_BEGIN/CK_END */
};

struct an_chrome {
	FILE *out;
	an_resolve_fn resolve;
	void *arg;
	struct ch_class **cls;
	size_t *ncls, ntr;
	uint64_t *seen;			/* (trace + 1) << 32 | tid, open addressing */
	size_t nseen, cap;
	int64_t t0;
	int started, nevents;
};

struct an_chrome *an_chrome_new(FILE *out, an_resolve_fn resolve, void *arg)
{
	struct an_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	c->resolve = resolve;
	c->arg = arg;
	c->cap = 64;
	c->seen = calloc(c->cap, sizeof(*c->seen));
	if (!c->seen) {
		free(c);
		return NULL;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	return c;
}

static void json_str(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);	/* UTF-8 passes through */
	}
	fputc('"', out);
}

static const char *const pairs[][2] = {
	{ "_begin", "_end" }, { "_entry", "_exit" }, { "_start", "_stop" },
};

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix);
}

static struct ch_class *ch_class(struct an_chrome *c, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct ch_class *k;
	const char *name;

	if (tr >= c->ntr) {
		size_t n = tr + 8;
		struct ch_class **nc = realloc(c->cls, n * sizeof(*nc));
		size_t *nn = nc ? realloc(c->ncls, n * sizeof(*nn)) : NULL;

		if (nc)
			c->cls = nc;
		if (nn)
			c->ncls = nn;
		if (!nn)
			return NULL;
		memset(c->cls + c->ntr, 0, (n - c->ntr) * sizeof(*nc));
		memset(c->ncls + c->ntr, 0, (n - c->ntr) * sizeof(*nn));
		c->ntr = n;
	}
	if (!c->cls[tr]) {
		c->ncls[tr] = shmtrace_rd_trace_event_class_count(t);
		c->cls[tr] = calloc(c->ncls[tr] + 1, sizeof(**c->cls));
		if (!c->cls[tr])
			return NULL;
	}
	k = &c->cls[tr][ci < c->ncls[tr] ? ci : c->ncls[tr]];
	if (k->kind)
		return k;
	name = shmtrace_rd_event_name(ev);
	k->kind = CK_INSTANT;
	if (!strcmp(name, "shmtrace_func:entry")) {
		k->kind = CK_FUNC_ENTRY;
		return k;
	}
	if (!strcmp(name, "shmtrace_func:exit")) {
		k->kind = CK_FUNC_EXIT;
		return k;
	}
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		for (int end = 0; end < 2; end++) {
			if (!ends_with(name, pairs[i][end]))
				continue;
			k->slice = strndup(name, strlen(name) - strlen(pairs[i][end]));
			if (!k->slice)
				return NULL;
			k->kind = end ? CK_END : CK_BEGIN;
			return k;
		}
	}
	return k;
}

/* "name":value,... of the context fields (@ctx) or of the payload */
static void ch_fields(FILE *out, const struct shmtrace_rd_event *ev, bool ctx)
{
	unsigned n = sel_event_count(ev, ctx);

	for (unsigned i = 0; i < n; i++) {
		struct shmtrace_rd_value v;
		const char *fname = sel_event_value(ev, ctx, i, &v);

		if (!fname)
			continue;
		if (i)
			fputc(',', out);
		json_str(out, fname, strlen(fname));
		fputc(':', out);
		switch (v.kind) {
		case SHMTRACE_RD_INT:
			if (v.base == 16)
				fprintf(out, "\"0x%" PRIx64 "\"", v.u);
			else if (v.is_signed)
				fprintf(out, "%" PRId64, v.s);
			else
				fprintf(out, "%" PRIu64, v.u);
			break;
		case SHMTRACE_RD_FLOAT:
			if (v.d != v.d || v.d - v.d != 0)
				fputs("null", out);	/* NaN, infinities: not JSON */
			else
				fprintf(out, "%.17g", v.d);
			break;
		case SHMTRACE_RD_STRING:
			json_str(out, v.str, v.len);
			break;
		case SHMTRACE_RD_SEQUENCE:
		case SHMTRACE_RD_ARRAY:
			fputc('[', out);
			for (uint32_t j = 0; j < v.count; j++) {
				if (j)
					fputc(',', out);
				if (v.is_signed)
					fprintf(out, "%" PRId64, shmtrace_rd_value_elem_s(&v, j));
				else
					fprintf(out, "%" PRIu64, shmtrace_rd_value_elem_u(&v, j));
			}
			fputc(']', out);
			break;
		}
	}
}

/* The payload fields, and the context fields (if any) as "context". */
static void ch_args(FILE *out, const struct shmtrace_rd_event *ev)
{
	fputs(",\"args\":{", out);
	ch_fields(out, ev, false);
	if (sel_event_count(ev, true)) {
		fputs(sel_event_count(ev, false) ? ",\"context\":{" : "\"context\":{", out);
		ch_fields(out, ev, true);
		fputc('}', out);
	}
	fputc('}', out);
}

static void ch_sep(struct an_chrome *c)
{
	fputs(c->nevents++ ? ",\n" : "\n", c->out);
}

/* Name the process and thread the first time one of their events comes. */
static int ch_names(struct an_chrome *c, const struct shmtrace_rd_event *ev, int64_t pid, uint32_t tid)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	uint64_t key = (uint64_t)(shmtrace_rd_trace_index(t) + 1) << 32 | tid, *slot;
	const char *pname = shmtrace_rd_trace_procname(t);
	size_t i;

	if (2 * (c->nseen + 1) > c->cap) {
		uint64_t *n = calloc(2 * c->cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t j = 0; j < c->cap; j++) {
			if (!c->seen[j])
				continue;
			i = (c->seen[j] * 0x9e3779b97f4a7c15ULL >> 20) & (2 * c->cap - 1);
			while (n[i])
				i = (i + 1) & (2 * c->cap - 1);
			n[i] = c->seen[j];
		}
		free(c->seen);
		c->seen = n;
		c->cap *= 2;
	}
	i = (key * 0x9e3779b97f4a7c15ULL >> 20) & (c->cap - 1);
	while (c->seen[i] && c->seen[i] != key)
		i = (i + 1) & (c->cap - 1);
	slot = &c->seen[i];
	if (*slot)
		return 0;
	*slot = key;
	c->nseen++;
	ch_sep(c);
	fprintf(c->out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64 ",\"tid\":%" PRIu32
		",\"args\":{\"name\":", pid, tid);
	json_str(c->out, pname, strlen(pname));
	fprintf(c->out, "}}");
	/* the process's name, once: with its first thread */
	for (size_t j = 0; j < c->cap; j++)
		if (c->seen[j] && c->seen[j] >> 32 == key >> 32 && c->seen[j] != key)
			return 0;
	ch_sep(c);
	fprintf(c->out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"tid\":%"
		PRId64 ",\"args\":{\"name\":", pid, pid);
	json_str(c->out, pname, strlen(pname));
	fprintf(c->out, "}}");
	return 0;
}

int an_chrome_event(struct an_chrome *c, const struct shmtrace_rd_event *ev)
{
	struct ch_class *k = ch_class(c, ev);
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	int64_t pid = shmtrace_rd_trace_vpid(t), ts = shmtrace_rd_event_time_ns(ev), rel;
	uint32_t tid = shmtrace_rd_event_tid(ev);
	const char *name = shmtrace_rd_event_name(ev), *ph = "i", *cat = name;
	char buf[512];
	size_t catlen;

	if (!k)
		return -ENOMEM;
	if (pid < 0)
		pid = (int64_t)shmtrace_rd_trace_index(t) + 1;
	if (!c->started) {
		c->started = 1;
		c->t0 = ts;
	}
	if (ch_names(c, ev, pid, tid) < 0)
		return -ENOMEM;
	rel = ts - c->t0;
	catlen = strchr(name, ':') ? (size_t)(strchr(name, ':') - name) : strlen(name);
	switch (k->kind) {
	case CK_FUNC_ENTRY:
	case CK_FUNC_EXIT: {
		struct shmtrace_rd_value v;
		int fi = -1;

		for (unsigned i = 0; i < shmtrace_rd_event_field_count(ev); i++)
			if (!strcmp(shmtrace_rd_event_field_name(ev, i), "addr"))
				fi = (int)i;
		if (fi < 0 || shmtrace_rd_event_field(ev, (unsigned)fi, &v) < 0 || v.kind != SHMTRACE_RD_INT)
			goto instant;
		name = c->resolve ? c->resolve(c->arg, ev, v.u, buf, sizeof(buf)) : NULL;
		if (!name) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64, v.u);
			name = buf;
		}
		ph = k->kind == CK_FUNC_ENTRY ? "B" : "E";
		break;
	}
	case CK_BEGIN:
	case CK_END:
		name = k->slice;
		ph = k->kind == CK_BEGIN ? "B" : "E";
		break;
	default:
	instant:
		break;
	}
	ch_sep(c);
	fprintf(c->out, "{\"ph\":\"%s\",%s\"name\":", ph, *ph == 'i' ? "\"s\":\"t\"," : "");
	json_str(c->out, name, strlen(name));
	fputs(",\"cat\":", c->out);
	json_str(c->out, cat, catlen);
	fprintf(c->out, ",\"ts\":%" PRId64 ".%03" PRId64 ",\"pid\":%" PRId64 ",\"tid\":%" PRIu32,
		rel / 1000, rel % 1000, pid, tid);
	if (*ph != 'E')
		ch_args(c->out, ev);
	fputc('}', c->out);
	return ferror(c->out) ? -EIO : 0;
}

int an_chrome_finish(struct an_chrome *c)
{
	int ret;

	fputs("\n]}\n", c->out);
	ret = fflush(c->out) || ferror(c->out) ? -EIO : 0;
	for (size_t i = 0; i < c->ntr; i++) {
		for (size_t j = 0; c->cls[i] && j <= c->ncls[i]; j++)
			free(c->cls[i][j].slice);
		free(c->cls[i]);
	}
	free(c->cls);
	free(c->ncls);
	free(c->seen);
	free(c);
	return ret;
}
