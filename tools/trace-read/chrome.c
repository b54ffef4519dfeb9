/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - trace-read --export chrome: the Chrome trace event format, as
 * the Perfetto UI and chrome://tracing load it.
 *
 *	{"displayTimeUnit":"ns","traceEvents":[
 *	{"ph":"M","name":"process_name","ts":0.000,"pid":P,"tid":P,"args":{"name":"proc"}},
 *	{"ph":"M","name":"thread_name","ts":0.000,"pid":P,"tid":T,"args":{"name":"proc"}},
 *	{"ph":"X","name":"shmtrace_io:read","cat":"shmtrace_io","ts":2.500,"dur":1.250,
 *	 "pid":P,"tid":T,"args":{"fd":3,...,"dur_ns":1250}},
 *	{"ph":"X","name":"fib","cat":"shmtrace_func","ts":12.345,"dur":0.420,...,
 *	 "args":{"addr":"0x4011d6","call_site":"0x401234"}},
 *	{"ph":"i","s":"t","name":"app:tick","cat":"app","ts":...,"args":{"n":3}},
 *	{"ph":"i",...,"args":{"n":4,"context":{"ip":"0x4011d6","cpu_id":2}}},
 *	...],"otherData":{"time_origin_ns":"1700000000123456789"}}
 *
 * Strings are valid UTF-8 whatever the trace holds, written as every JSON
 * of trace-read writes them (printers.h: a byte of no character is
 * \udcXX).
 *
 * Timestamps and durations are microseconds with nanosecond decimals,
 * from the first event exported (time_origin_ns, in nanoseconds since the
 * Epoch), so that viewers keep the precision. Each traced process is a
 * pid (its process id, or its trace's index when unknown), each thread a
 * tid. Events come in the order they end, not the order they begin: the
 * format does not ask for any.
 *
 * Slices ("X": ts, the start, and dur):
 *  - an event with an unsigned integer field dur_ns (shmtrace_io, the I/O
 *    preload helper) or wait_ns (shmtrace_pthread mutex_lock, cond_wait,
 *    cond_timedwait) ends at its time and lasts that long: shmtrace events
 *    are written when the call returns. A wait_ns of 0 stays an instant:
 *    the helper reads no clock for a lock it finds free, so 0 says "not
 *    waited", not "waited 0 ns", and the uncontended locks (nearly all)
 *    do not fill the slice tracks. A slice that would begin before the
 *    first event exported begins with it (dur_ns stays in its args);
 *  - shmtrace_func:entry and the next exit of the same function on the
 *    same thread, named after the function; events named X_begin and
 *    X_end, X_entry and X_exit, X_start and X_stop (the end named alike):
 *    the slice X. A pair suffix wins over a duration field. Each thread
 *    (of each trace: an exec starts another) has a stack of the slices
 *    begun and not ended. An end closes the innermost slice of its name;
 *    those begun inside it and not ended end with it, with
 *    "unfinished":true in their args. An end that matches none is an
 *    instant (a function exit named after the function) and leaves the
 *    stack alone. The slices still open after the
 *    last event end at their thread's last event exported, "unfinished"
 *    too (a "B" would stretch over what the next image of the process or
 *    the rest of the trace did). A slice's args are its begin's, and the
 *    end's payload, if any, as "end".
 * Other events are thread-scoped instants ("i"), payload and context
 * fields in args.
 *
 * Names ("M"): a process_name when a pid is first seen, and again when it
 * changes image: shmtrace_proc:exec in a trace (image) other than the one
 * named, or a trace of another process name (viewers keep the latest). A
 * thread_name (the process name) once per thread and image.
 *
 * Past CH_WARN_BYTES (256 MiB) of JSON, one warning on standard error says
 * that viewers struggle with that much and how to export less; the export
 * goes on.
 *
 * Memory: a record per process and per thread (of each trace) seen, the
 * roles of the event classes, one event's JSON, and each thread's open
 * slices: at most CH_DEPTH (1024) deep, keeping at most CH_ARENA (256 KiB)
 * of their names and begin args. A begin past either bound is written at
 * once as "B", and the ends that follow, until those are closed, as "E".
 * A thread's buffers, once past 4 KiB, are freed when its stack empties.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chrome.h"
#include "printers.h"
#include "profile.h"
#include "reader-select.h"
#include "common/util.h"

#define CH_DEPTH	1024
#define CH_ARENA	(256 << 10)
#define CH_WARN_BYTES	(256ULL << 20)

enum {
	CK_UNKNOWN, CK_INSTANT, CK_BEGIN, CK_END, CK_FUNC_ENTRY, CK_FUNC_EXIT,
	CK_DUR, CK_WAIT, CK_EXEC,
};

struct ch_class {
	uint8_t kind;
	unsigned field;			/* dur_ns or wait_ns (CK_DUR, CK_WAIT) */
	char *slice;			/* slice name (CK_BEGIN, CK_END) */
};

struct ch_buf {
	char *p;
	size_t len, cap;
	int err;
};

struct ch_frame {
	int64_t ts;			/* begin, ns */
	uint64_t addr;			/* the function (func entries) */
	const struct ch_class *k;	/* the begin's class */
	size_t off;			/* name, NUL, args in the arena */
};

struct ch_thread {
	uint64_t key;			/* (trace + 1) << 32 | tid; 0: free slot */
	int64_t pid, last;		/* latest event, ns */
	struct ch_frame *fr;
	uint32_t depth, cap, over;	/* over: "B" written, not ended */
	struct ch_buf arena;
};

struct ch_proc {
	int64_t pid;
	size_t trace;			/* the trace (image) named + 1; 0: free */
	const char *name;
};

struct an_chrome {
	FILE *out;
	struct shmtrace_rd_symbols *syms;	/* names the functions, or NULL */
	struct ch_class **cls;
	size_t *ncls, ntr;
	struct ch_thread *th;
	size_t nth, thcap;
	struct ch_proc *pr;
	size_t npr, prcap;
	struct ch_buf line, args;
	uint64_t bytes;
	int64_t t0;
	int started, nevents, warned;
};

/* ---- buffers ------------------------------------------------------------- */

static int cb_reserve(struct ch_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->err)
		return -1;
	if (b->len + n + 1 <= b->cap)
		return 0;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void cb_mem(struct ch_buf *b, const char *s, size_t n)
{
	if (cb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void cb_puts(struct ch_buf *b, const char *s)
{
	cb_mem(b, s, strlen(s));
}

static void cb_putc(struct ch_buf *b, char ch)
{
	cb_mem(b, &ch, 1);
}

__attribute__((format(printf, 2, 3)))
static void cb_printf(struct ch_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (cb_reserve(b, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (cb_reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Empty @b, a valid empty string (b->p is not NULL) unless out of memory */
static void cb_reset(struct ch_buf *b)
{
	b->len = 0;
	if (!cb_reserve(b, 0))
		b->p[0] = 0;
}

static void cb_free(struct ch_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A JSON string of @s, valid UTF-8 whatever its bytes (printers.h). */
static void json_str(struct ch_buf *b, const char *s, size_t n)
{
	cb_putc(b, '"');
	while (n) {
		size_t k = pr_json_run(s, n);
		char x[6];

		if (!k) {
			cb_mem(b, x, pr_json_esc((unsigned char)*s, x));
			k = 1;
		} else {
			cb_mem(b, s, k);
		}
		s += k;
		n -= k;
	}
	cb_putc(b, '"');
}

/* ns from the origin as microseconds with three decimals */
static void json_us(struct ch_buf *b, const char *key, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	cb_printf(b, ",\"%s\":%" PRId64 ".%03" PRId64, key, ns / 1000, ns % 1000);
}

/* ---- event classes ----------------------------------------------------- */

struct an_chrome *an_chrome_new(FILE *out, struct shmtrace_rd_symbols *syms)
{
	static const char head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
	struct an_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	c->syms = syms;
	fputs(head, out);
	c->bytes = sizeof(head) - 1;
	return c;
}

static const char *const pairs[][2] = {
	{ "_begin", "_end" }, { "_entry", "_exit" }, { "_start", "_stop" },
};

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix);
}

static int ch_classify(struct ch_class *k, const struct shmtrace_rd_event *ev)
{
	const char *name = shmtrace_rd_event_name(ev);

	k->kind = CK_INSTANT;
	if (!strcmp(name, "shmtrace_func:entry")) {
		k->kind = CK_FUNC_ENTRY;
		return 0;
	}
	if (!strcmp(name, "shmtrace_func:exit")) {
		k->kind = CK_FUNC_EXIT;
		return 0;
	}
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		for (int end = 0; end < 2; end++) {
			if (!ends_with(name, pairs[i][end]))
				continue;
			k->slice = strndup(name, strlen(name) - strlen(pairs[i][end]));
			if (!k->slice)
				return -ENOMEM;
			k->kind = end ? CK_END : CK_BEGIN;
			return 0;
		}
	}
	for (unsigned i = 0; i < shmtrace_rd_event_field_count(ev); i++) {
		const char *f = shmtrace_rd_event_field_name(ev, i);

		if (!strcmp(f, "dur_ns") || !strcmp(f, "wait_ns")) {
			k->kind = f[0] == 'd' ? CK_DUR : CK_WAIT;
			k->field = i;
			return 0;
		}
	}
	if (!strcmp(name, "shmtrace_proc:exec"))
		k->kind = CK_EXEC;
	return 0;
}

static struct ch_class *ch_class(struct an_chrome *c, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct ch_class *k;

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
	if (!k->kind && ch_classify(k, ev) < 0)
		return NULL;
	return k;
}

/* ---- output ------------------------------------------------------------- */

/* "name":value,... of the context fields (@ctx) or of the payload */
static void ch_fields(struct ch_buf *b, const struct shmtrace_rd_event *ev, bool ctx)
{
	unsigned n = sel_event_count(ev, ctx);

	for (unsigned i = 0; i < n; i++) {
		struct shmtrace_rd_value v;
		const char *fname = sel_event_value(ev, ctx, i, &v);

		if (!fname)
			continue;
		if (i)
			cb_putc(b, ',');
		json_str(b, fname, strlen(fname));
		cb_putc(b, ':');
		switch (v.kind) {
		case SHMTRACE_RD_INT:
			if (v.base == 16)
				cb_printf(b, "\"0x%" PRIx64 "\"", v.u);
			else if (v.is_signed)
				cb_printf(b, "%" PRId64, v.s);
			else
				cb_printf(b, "%" PRIu64, v.u);
			break;
		case SHMTRACE_RD_FLOAT:
			if (v.d != v.d || v.d - v.d != 0)
				cb_puts(b, "null");	/* NaN, infinities: not JSON */
			else
				cb_printf(b, "%.17g", v.d);
			break;
		case SHMTRACE_RD_STRING:
			json_str(b, v.str, v.len);
			break;
		case SHMTRACE_RD_ENUM:
			if (v.str)
				json_str(b, v.str, v.len);	/* the label */
			else if (v.is_signed)
				cb_printf(b, "%" PRId64, v.s);
			else
				cb_printf(b, "%" PRIu64, v.u);
			break;
		case SHMTRACE_RD_SEQUENCE:
		case SHMTRACE_RD_ARRAY:
			cb_putc(b, '[');
			for (uint32_t j = 0; j < v.count; j++) {
				if (j)
					cb_putc(b, ',');
				if (v.is_signed)
					cb_printf(b, "%" PRId64, shmtrace_rd_value_elem_s(&v, j));
				else
					cb_printf(b, "%" PRIu64, shmtrace_rd_value_elem_u(&v, j));
			}
			cb_putc(b, ']');
			break;
		}
	}
}

/* The payload fields, and the context fields (if any) as "context", without braces. */
static void ch_args(struct ch_buf *b, const struct shmtrace_rd_event *ev)
{
	ch_fields(b, ev, false);
	if (sel_event_count(ev, true)) {
		cb_puts(b, sel_event_count(ev, false) ? ",\"context\":{" : "\"context\":{");
		ch_fields(b, ev, true);
		cb_putc(b, '}');
	}
}

/* Start an event in c->line: {"ph":PH,"name":NAME,"cat":CAT */
static void ch_start(struct an_chrome *c, const char *ph, const char *name, const char *cat)
{
	const char *colon = strchr(cat, ':');

	c->line.len = 0;
	cb_puts(&c->line, c->nevents ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	cb_puts(&c->line, ph);
	cb_puts(&c->line, *ph == 'i' ? "\",\"s\":\"t\",\"name\":" : "\",\"name\":");
	json_str(&c->line, name, strlen(name));
	cb_puts(&c->line, ",\"cat\":");
	json_str(&c->line, cat, colon ? (size_t)(colon - cat) : strlen(cat));
}

static void ch_ids(struct an_chrome *c, int64_t pid, uint32_t tid)
{
	cb_printf(&c->line, ",\"pid\":%" PRId64 ",\"tid\":%" PRIu32, pid, tid);
}

/* Write c->line out, and warn once past CH_WARN_BYTES. */
static int ch_emit(struct an_chrome *c)
{
	if (c->line.err)
		return c->line.err;
	c->nevents++;
	c->bytes += c->line.len;
	if (fwrite(c->line.p, 1, c->line.len, c->out) != c->line.len)
		return -EIO;
	if (c->bytes > CH_WARN_BYTES && !c->warned) {
		c->warned = 1;
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\r%60s\r", "");
		fprintf(stderr, "trace-read: warning: the Chrome trace is past %llu MiB: viewers "
			"struggle with that much; --begin/--end, --pid/--tid, --event or "
			"--filter export less\n", CH_WARN_BYTES >> 20);
	}
	return 0;
}

static int ch_name_event(struct an_chrome *c, const char *what, int64_t pid, uint32_t tid,
			 int64_t rel, const char *name)
{
	c->line.len = 0;
	cb_puts(&c->line, c->nevents ? ",\n{\"ph\":\"M\",\"name\":\"" : "\n{\"ph\":\"M\",\"name\":\"");
	cb_puts(&c->line, what);
	cb_putc(&c->line, '"');
	json_us(&c->line, "ts", rel);
	ch_ids(c, pid, tid);
	cb_puts(&c->line, ",\"args\":{\"name\":");
	json_str(&c->line, name, strlen(name));
	cb_puts(&c->line, "}}");
	return ch_emit(c);
}

/* An X slice from @start to @end (ns since the origin); args: @args (no braces), then @extra. */
static int ch_slice(struct an_chrome *c, const char *name, const char *cat, int64_t start,
		    int64_t end, int64_t pid, uint32_t tid, const char *args, const char *extra)
{
	ch_start(c, "X", name, cat);
	json_us(&c->line, "ts", start);
	json_us(&c->line, "dur", end - start);
	ch_ids(c, pid, tid);
	cb_puts(&c->line, ",\"args\":{");
	cb_puts(&c->line, args);
	if (extra && *extra) {
		if (*args)
			cb_putc(&c->line, ',');
		cb_puts(&c->line, extra);
	}
	cb_puts(&c->line, "}}");
	return ch_emit(c);
}

/* ---- processes and threads ------------------------------------------------ */

static struct ch_thread *ch_thread(struct an_chrome *c, uint64_t key, bool *fresh)
{
	size_t i;

	if (2 * (c->nth + 1) > c->thcap) {
		size_t cap = c->thcap ? 2 * c->thcap : 64;
		struct ch_thread *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < c->thcap; j++) {
			if (!c->th[j].key)
				continue;
			i = hash_id(c->th[j].key) & (cap - 1);
			while (n[i].key)
				i = (i + 1) & (cap - 1);
			n[i] = c->th[j];
		}
		free(c->th);
		c->th = n;
		c->thcap = cap;
	}
	i = hash_id(key) & (c->thcap - 1);
	while (c->th[i].key && c->th[i].key != key)
		i = (i + 1) & (c->thcap - 1);
	*fresh = !c->th[i].key;
	if (*fresh) {
		c->th[i].key = key;
		c->nth++;
	}
	return &c->th[i];
}

static struct ch_proc *ch_proc(struct an_chrome *c, int64_t pid)
{
	size_t i;

	if (2 * (c->npr + 1) > c->prcap) {
		size_t cap = c->prcap ? 2 * c->prcap : 16;
		struct ch_proc *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < c->prcap; j++) {
			if (!c->pr[j].trace)
				continue;
			i = hash_id((uint64_t)c->pr[j].pid) & (cap - 1);
			while (n[i].trace)
				i = (i + 1) & (cap - 1);
			n[i] = c->pr[j];
		}
		free(c->pr);
		c->pr = n;
		c->prcap = cap;
	}
	i = hash_id((uint64_t)pid) & (c->prcap - 1);
	while (c->pr[i].trace && c->pr[i].pid != pid)
		i = (i + 1) & (c->prcap - 1);
	if (!c->pr[i].trace) {
		c->pr[i].pid = pid;
		c->npr++;
	}
	return &c->pr[i];
}

/* Name the process when it is new or changed image, the thread when it is new. */
static int ch_names(struct an_chrome *c, const struct shmtrace_rd_event *ev,
		    const struct ch_class *k, int64_t pid, int64_t rel, bool fresh)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t) + 1;
	const char *pname = shmtrace_rd_trace_procname(t);
	struct ch_proc *p;
	int rc;

	if (!fresh && k->kind != CK_EXEC)
		return 0;
	p = ch_proc(c, pid);
	if (!p)
		return -ENOMEM;
	if (!p->trace || (p->trace != tr && (k->kind == CK_EXEC || strcmp(p->name, pname)))) {
		p->trace = tr;
		p->name = pname;
		rc = ch_name_event(c, "process_name", pid, (uint32_t)pid, rel, pname);
		if (rc < 0)
			return rc;
	}
	return fresh ? ch_name_event(c, "thread_name", pid, shmtrace_rd_event_tid(ev), rel, pname) : 0;
}

/* ---- slices ----------------------------------------------------------------- */

static const char *fr_name(const struct ch_thread *th, const struct ch_frame *f)
{
	return th->arena.p + f->off;
}

static const char *fr_args(const struct ch_thread *th, const struct ch_frame *f)
{
	return th->arena.p + f->off + strlen(th->arena.p + f->off) + 1;
}

static const char *k_cat(const struct ch_class *k)
{
	return k->kind == CK_FUNC_ENTRY || k->kind == CK_FUNC_EXIT ? "shmtrace_func" : k->slice;
}

/* Open a slice: on the stack, or written as "B" past the bounds. */
static int ch_begin(struct an_chrome *c, struct ch_thread *th, const struct ch_class *k,
		    const char *name, uint64_t addr, const struct shmtrace_rd_event *ev, int64_t rel)
{
	struct ch_frame *f;
	size_t off = th->arena.len;

	cb_reset(&c->args);
	ch_args(&c->args, ev);
	if (c->args.err)
		return c->args.err;
	if (!th->over && th->depth < CH_DEPTH &&
	    off + strlen(name) + c->args.len + 3 <= CH_ARENA) {
		if (th->depth == th->cap) {
			uint32_t cap = th->cap ? 2 * th->cap : 16;

			f = realloc(th->fr, cap * sizeof(*f));
			if (!f)
				return -ENOMEM;
			th->fr = f;
			th->cap = cap;
		}
		cb_mem(&th->arena, name, strlen(name) + 1);
		cb_mem(&th->arena, c->args.p, c->args.len + 1);
		if (th->arena.err)
			return th->arena.err;
		f = &th->fr[th->depth++];
		f->ts = rel;
		f->addr = addr;
		f->k = k;
		f->off = off;
		return 0;
	}
	th->over++;
	ch_start(c, "B", name, k_cat(k));
	json_us(&c->line, "ts", rel);
	ch_ids(c, th->pid, (uint32_t)th->key);
	cb_puts(&c->line, ",\"args\":{");
	cb_mem(&c->line, c->args.p, c->args.len);
	cb_puts(&c->line, "}}");
	return ch_emit(c);
}

/* Close the frames from the top down to @to (included), ending at @end. */
static int ch_close(struct an_chrome *c, struct ch_thread *th, uint32_t to, int64_t end,
		    const char *extra)
{
	while (th->depth > to) {
		struct ch_frame *f = &th->fr[--th->depth];
		int rc = ch_slice(c, fr_name(th, f), k_cat(f->k), f->ts, end, th->pid,
				  (uint32_t)th->key, fr_args(th, f),
				  th->depth > to ? "\"unfinished\":true" : extra);

		th->arena.len = f->off;
		if (rc < 0)
			return rc;
	}
	if (!th->depth && th->arena.cap > 4096) {
		cb_free(&th->arena);
		free(th->fr);
		th->fr = NULL;
		th->cap = 0;
	}
	return 0;
}

/* An end: 1 when it closed a slice, 0 when it matches none. */
static int ch_end(struct an_chrome *c, struct ch_thread *th, const struct ch_class *k,
		  const char *name, uint64_t addr, const struct shmtrace_rd_event *ev, int64_t rel)
{
	uint32_t i;
	int rc;

	if (th->over) {
		th->over--;
		ch_start(c, "E", name, k_cat(k));
		json_us(&c->line, "ts", rel);
		ch_ids(c, th->pid, (uint32_t)th->key);
		cb_putc(&c->line, '}');
		rc = ch_emit(c);
		return rc < 0 ? rc : 1;
	}
	for (i = th->depth; i > 0; i--) {
		const struct ch_frame *f = &th->fr[i - 1];

		if (k->kind == CK_FUNC_EXIT ? f->k->kind == CK_FUNC_ENTRY && f->addr == addr :
		    f->k->kind == CK_BEGIN && !strcmp(f->k->slice, k->slice))
			break;
	}
	if (!i)
		return 0;
	cb_reset(&c->args);
	if (k->kind == CK_END && sel_event_count(ev, false)) {
		cb_puts(&c->args, "\"end\":{");
		ch_args(&c->args, ev);
		cb_putc(&c->args, '}');
	}
	if (c->args.err)
		return c->args.err;
	rc = ch_close(c, th, i - 1, rel, c->args.p);
	return rc < 0 ? rc : 1;
}

/* ---- events ------------------------------------------------------------------ */

int an_chrome_event(struct an_chrome *c, const struct shmtrace_rd_event *ev)
{
	struct ch_class *k = ch_class(c, ev);
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	int64_t pid = shmtrace_rd_trace_vpid(t), ts = shmtrace_rd_event_time_ns(ev), rel;
	uint32_t tid = shmtrace_rd_event_tid(ev);
	const char *name = shmtrace_rd_event_name(ev);
	struct shmtrace_rd_value v;
	struct ch_thread *th;
	char buf[512];
	bool fresh;
	int rc;

	if (!k)
		return -ENOMEM;
	if (pid < 0)
		pid = (int64_t)shmtrace_rd_trace_index(t) + 1;
	if (!c->started) {
		c->started = 1;
		c->t0 = ts;
	}
	rel = ts - c->t0;
	th = ch_thread(c, (uint64_t)(shmtrace_rd_trace_index(t) + 1) << 32 | tid, &fresh);
	if (!th)
		return -ENOMEM;
	th->pid = pid;
	th->last = rel;
	rc = ch_names(c, ev, k, pid, rel, fresh);
	if (rc < 0)
		return rc;
	switch (k->kind) {
	case CK_FUNC_ENTRY:
	case CK_FUNC_EXIT: {
		int fi = -1;

		for (unsigned i = 0; i < shmtrace_rd_event_field_count(ev); i++)
			if (!strcmp(shmtrace_rd_event_field_name(ev, i), "addr"))
				fi = (int)i;
		if (fi < 0 || shmtrace_rd_event_field(ev, (unsigned)fi, &v) < 0 ||
		    v.kind != SHMTRACE_RD_INT)
			break;
		name = an_function_name(c->syms, ev, v.u, buf, sizeof(buf));
		if (k->kind == CK_FUNC_ENTRY)
			return ch_begin(c, th, k, name, v.u, ev, rel);
		rc = ch_end(c, th, k, name, v.u, ev, rel);
		if (rc)
			return rc < 0 ? rc : 0;
		break;			/* an exit without its entry */
	}
	case CK_BEGIN:
		return ch_begin(c, th, k, k->slice, 0, ev, rel);
	case CK_END:
		rc = ch_end(c, th, k, k->slice, 0, ev, rel);
		if (rc)
			return rc < 0 ? rc : 0;
		break;			/* an end without its begin */
	case CK_DUR:
	case CK_WAIT:
		if (shmtrace_rd_event_field(ev, k->field, &v) < 0 || v.kind != SHMTRACE_RD_INT ||
		    v.is_signed || (k->kind == CK_WAIT && !v.u))
			break;
		cb_reset(&c->args);
		ch_args(&c->args, ev);
		if (c->args.err)
			return c->args.err;
		return ch_slice(c, name, name, v.u < (uint64_t)rel ? rel - (int64_t)v.u : 0, rel,
				pid, tid, c->args.p, NULL);
	default:
		break;
	}
	ch_start(c, "i", name, shmtrace_rd_event_name(ev));
	json_us(&c->line, "ts", rel);
	ch_ids(c, pid, tid);
	cb_puts(&c->line, ",\"args\":{");
	ch_args(&c->line, ev);
	cb_puts(&c->line, "}}");
	return ch_emit(c);
}

int an_chrome_finish(struct an_chrome *c)
{
	int ret = 0;

	/* the slices still open end at their thread's last event */
	for (size_t i = 0; i < c->thcap; i++) {
		struct ch_thread *th = &c->th[i];

		if (th->key && !ret)
			ret = ch_close(c, th, 0, th->last, "\"unfinished\":true");
		if (th->key) {
			cb_free(&th->arena);
			free(th->fr);
		}
	}
	fputs("\n]", c->out);
	if (c->started)
		fprintf(c->out, ",\"otherData\":{\"time_origin_ns\":\"%" PRId64 "\"}", c->t0);
	fputs("}\n", c->out);
	if (fflush(c->out) || ferror(c->out))
		ret = -EIO;
	for (size_t i = 0; i < c->ntr; i++) {
		for (size_t j = 0; c->cls[i] && j <= c->ncls[i]; j++)
			free(c->cls[i][j].slice);
		free(c->cls[i]);
	}
	free(c->cls);
	free(c->ncls);
	free(c->th);
	free(c->pr);
	cb_free(&c->line);
	cb_free(&c->args);
	free(c);
	return ret < 0 ? ret : 0;
}
