/* SPDX-License-Identifier: MIT */
/*
 * profile.c - trace-read --profile (see profile.h), and the names of
 * functions that the profile and the chrome export give addresses.
 *
 * Each thread has a stack of the functions entered and not yet left
 * (shmtrace_func:entry and exit; in LTTng's traces, the cyg-profile
 * helpers' lttng_ust_cyg_profile(_fast):func_entry and func_exit, the
 * thread being the vtid context field); a function's row is keyed by (trace,
 * address) in an open-addressing table, named once when first seen.
 * Memory follows the number of functions and threads, and the depth of
 * their stacks, never the number of events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "common/util.h"

enum { PK_UNKNOWN, PK_ENTRY, PK_EXIT, PK_ALLOC, PK_OTHER };

struct prof_func {
	uint64_t key;			/* trace << 48 ^ addr, mixed; 0 = empty */
	uint64_t addr;
	size_t trace;
	char *name;
	uint64_t calls, total, self, bytes_self, bytes_total;
};

struct prof_frame {
	struct prof_func *f;
	int64_t start;
	uint64_t child, bytes, child_bytes;
	int outer;			/* not inside another activation of f */
};

struct prof_thread {
	uint64_t key;			/* trace + 1 << 32 | tid; 0 = empty */
	struct prof_frame *stack;
	uint32_t depth, cap;
};

struct an_profile {
	struct shmtrace_rd_symbols *syms;	/* names the functions, or NULL */
	uint8_t **kind;			/* [trace][class] PK_* */
	int8_t **size_field, **nmemb_field;
	size_t ntr;
	struct prof_func *funcs;
	size_t nfuncs, fcap;
	struct prof_thread *threads;
	size_t nthreads, tcap;
	int have_alloc;
	uint64_t unmatched;
};

const char *an_function_name(struct shmtrace_rd_symbols *syms, const struct shmtrace_rd_event *ev,
			     uint64_t addr, char *buf, size_t len)
{
	struct shmtrace_rd_symbol sym;

	if (syms && shmtrace_rd_sym_event_lookup(syms, ev, addr, &sym))
		snprintf(buf, len, "%s", sym.name);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

struct an_profile *an_profile_new(struct shmtrace_rd_symbols *syms)
{
	struct an_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->syms = syms;
	p->fcap = 256;
	p->tcap = 64;
	p->funcs = calloc(p->fcap, sizeof(*p->funcs));
	p->threads = calloc(p->tcap, sizeof(*p->threads));
	if (!p->funcs || !p->threads) {
		an_profile_free(p);
		return NULL;
	}
	return p;
}

static int field_index(const struct shmtrace_rd_event *ev, const char *name)
{
	for (unsigned i = 0; i < shmtrace_rd_event_field_count(ev); i++)
		if (!strcmp(shmtrace_rd_event_field_name(ev, i), name))
			return (int)i;
	return -1;
}

/*
 * A function entry or exit (@what: "entry", "exit"): shmtrace's
 * (shmtrace_func:entry) or LTTng-UST's cyg-profile helpers'
 * (lttng_ust_cyg_profile:func_entry, lttng_ust_cyg_profile_fast:func_entry).
 */
static bool is_func_event(const char *n, const char *what)
{
	if (!strncmp(n, "shmtrace_func:", 14))
		return !strcmp(n + 14, what);
	if (!strncmp(n, "lttng_ust_cyg_profile:func_", 27))
		return !strcmp(n + 27, what);
	if (!strncmp(n, "lttng_ust_cyg_profile_fast:func_", 32))
		return !strcmp(n + 32, what);
	return false;
}

/* An allocation: shmtrace's libc helper's events, or LTTng-UST's libc wrapper's, but free. */
static bool is_alloc_event(const char *n)
{
	if (!strncmp(n, "shmtrace_libc:", 14))
		return strcmp(n + 14, "free") != 0;
	if (!strncmp(n, "lttng_ust_libc:", 15))
		return strcmp(n + 15, "free") != 0;
	return false;
}

static int prof_kind(struct an_profile *p, const struct shmtrace_rd_event *ev, int *sz, int *nm)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)), ci = shmtrace_rd_event_class_index(ev);
	size_t ncls = shmtrace_rd_trace_event_class_count(shmtrace_rd_event_trace(ev));

	if (tr >= p->ntr) {
		size_t n = tr + 8;
		uint8_t **k = realloc(p->kind, n * sizeof(*k));
		int8_t **s = k ? realloc(p->size_field, n * sizeof(*s)) : NULL;
		int8_t **m = s ? realloc(p->nmemb_field, n * sizeof(*m)) : NULL;

		if (k)
			p->kind = k;
		if (s)
			p->size_field = s;
		if (m)
			p->nmemb_field = m;
		if (!m)
			return -ENOMEM;
		for (size_t i = p->ntr; i < n; i++)
			p->kind[i] = NULL, p->size_field[i] = NULL, p->nmemb_field[i] = NULL;
		p->ntr = n;
	}
	if (!p->kind[tr]) {
		p->kind[tr] = calloc(ncls + 1, 1);
		p->size_field[tr] = calloc(ncls + 1, 1);
		p->nmemb_field[tr] = calloc(ncls + 1, 1);
		if (!p->kind[tr] || !p->size_field[tr] || !p->nmemb_field[tr])
			return -ENOMEM;
	}
	if (ci > ncls)
		ci = ncls;
	if (!p->kind[tr][ci]) {
		const char *n = shmtrace_rd_event_name(ev);
		int k = PK_OTHER;

		if (is_func_event(n, "entry") && field_index(ev, "addr") >= 0)
			k = PK_ENTRY;
		else if (is_func_event(n, "exit"))
			k = PK_EXIT;	/* the fast cyg-profile helper's has no addr: the innermost */
		else if (is_alloc_event(n) && field_index(ev, "size") >= 0)
			k = PK_ALLOC;
		p->kind[tr][ci] = (uint8_t)k;
		p->size_field[tr][ci] = (int8_t)field_index(ev, "size");
		p->nmemb_field[tr][ci] = (int8_t)field_index(ev, "nmemb");
	}
	*sz = p->size_field[tr][ci];
	*nm = p->nmemb_field[tr][ci];
	return p->kind[tr][ci];
}

static uint64_t field_u64(const struct shmtrace_rd_event *ev, int i)
{
	struct shmtrace_rd_value v;

	if (i < 0 || shmtrace_rd_event_field(ev, (unsigned)i, &v) < 0 || v.kind != SHMTRACE_RD_INT)
		return 0;
	return v.u;
}

static struct prof_thread *prof_thread(struct an_profile *p, uint64_t key)
{
	size_t i;

	if (2 * (p->nthreads + 1) > p->tcap) {
		struct prof_thread *n = calloc(2 * p->tcap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < p->tcap; j++) {
			if (!p->threads[j].key)
				continue;
			i = hash_id(p->threads[j].key) & (2 * p->tcap - 1);
			while (n[i].key)
				i = (i + 1) & (2 * p->tcap - 1);
			n[i] = p->threads[j];
		}
		free(p->threads);
		p->threads = n;
		p->tcap *= 2;
	}
	i = hash_id(key) & (p->tcap - 1);
	while (p->threads[i].key && p->threads[i].key != key)
		i = (i + 1) & (p->tcap - 1);
	if (!p->threads[i].key) {
		p->threads[i].key = key;
		p->nthreads++;
	}
	return &p->threads[i];
}

static struct prof_func *prof_func(struct an_profile *p, const struct shmtrace_rd_event *ev,
				   uint64_t addr)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)), i;
	uint64_t key = hash_id(addr ^ ((uint64_t)(tr + 1) << 48)) | 1;
	char buf[512];
	const char *name;

	if (2 * (p->nfuncs + 1) > p->fcap) {
		/* rehash; frames point into the table, so move them too */
		struct prof_func *n = calloc(2 * p->fcap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < p->fcap; j++) {
			struct prof_func *old = &p->funcs[j];

			if (!old->key)
				continue;
			i = old->key & (2 * p->fcap - 1);
			while (n[i].key)
				i = (i + 1) & (2 * p->fcap - 1);
			n[i] = *old;
			for (size_t t = 0; t < p->tcap; t++)
				for (uint32_t d = 0; d < p->threads[t].depth; d++)
					if (p->threads[t].stack[d].f == old)
						p->threads[t].stack[d].f = &n[i];
		}
		free(p->funcs);
		p->funcs = n;
		p->fcap *= 2;
	}
	i = key & (p->fcap - 1);
	while (p->funcs[i].key && (p->funcs[i].key != key || p->funcs[i].addr != addr ||
				   p->funcs[i].trace != tr))
		i = (i + 1) & (p->fcap - 1);
	if (p->funcs[i].key)
		return &p->funcs[i];
	name = an_function_name(p->syms, ev, addr, buf, sizeof(buf));
	p->funcs[i].name = strdup(name);
	if (!p->funcs[i].name)
		return NULL;
	p->funcs[i].key = key;
	p->funcs[i].addr = addr;
	p->funcs[i].trace = tr;
	p->nfuncs++;
	return &p->funcs[i];
}

static void prof_pop(struct prof_thread *t, int64_t ts)
{
	struct prof_frame *fr = &t->stack[--t->depth];
	uint64_t d = ts > fr->start ? (uint64_t)(ts - fr->start) : 0;
	uint64_t self = d > fr->child ? d - fr->child : 0;

	fr->f->calls++;
	fr->f->self += self;
	fr->f->bytes_self += fr->bytes;
	if (fr->outer) {
		fr->f->total += d;
		fr->f->bytes_total += fr->bytes + fr->child_bytes;
	}
	if (t->depth) {
		t->stack[t->depth - 1].child += d;
		t->stack[t->depth - 1].child_bytes += fr->bytes + fr->child_bytes;
	}
}

int an_profile_event(struct an_profile *p, const struct shmtrace_rd_event *ev)
{
	int sz, nm, k = prof_kind(p, ev, &sz, &nm);
	uint64_t key = (uint64_t)(shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)) + 1) << 32 | shmtrace_rd_event_tid(ev);
	int64_t ts = shmtrace_rd_event_time_ns(ev);
	struct prof_thread *t;
	struct prof_func *f;
	uint64_t addr;

	if (k < 0)
		return k;
	if (k == PK_OTHER)
		return 0;
	t = prof_thread(p, key);
	if (!t)
		return -ENOMEM;
	if (k == PK_ALLOC) {
		uint64_t bytes = field_u64(ev, sz) * (nm >= 0 ? field_u64(ev, nm) : 1);

		p->have_alloc = 1;
		if (t->depth)
			t->stack[t->depth - 1].bytes += bytes;
		return 0;
	}
	addr = field_u64(ev, field_index(ev, "addr"));
	if (k == PK_ENTRY) {
		struct prof_frame *fr;

		if (t->depth == t->cap) {
			uint32_t n = t->cap ? 2 * t->cap : 64;
			struct prof_frame *s = realloc(t->stack, n * sizeof(*s));

			if (!s)
				return -ENOMEM;
			t->stack = s;
			t->cap = n;
		}
		f = prof_func(p, ev, addr);
		if (!f)
			return -ENOMEM;
		fr = &t->stack[t->depth++];
		memset(fr, 0, sizeof(*fr));
		fr->f = f;
		fr->start = ts;
		fr->outer = 1;
		for (uint32_t d = 0; d + 1 < t->depth; d++)
			if (t->stack[d].f == f)
				fr->outer = 0;
		return 0;
	}
	/* exit: close up to the matching entry (frames whose exit was lost too) */
	if (field_index(ev, "addr") < 0) {
		if (!t->depth) {
			p->unmatched++;
			return 0;
		}
		prof_pop(t, ts);
		return 0;
	}
	for (uint32_t d = t->depth; d > 0; d--) {
		if (t->stack[d - 1].f->addr == addr) {
			while (t->depth >= d)
				prof_pop(t, ts);
			return 0;
		}
	}
	p->unmatched++;
	return 0;
}

static int prof_by_name(const void *a, const void *b)
{
	return strcmp(((const struct an_prof_row *)a)->name, ((const struct an_prof_row *)b)->name);
}

static int prof_by_total(const void *a, const void *b)
{
	const struct an_prof_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

void an_profile_rows_print(FILE *out, struct an_prof_row *rows, size_t n, int have_alloc)
{
	size_t k = 0;

	/* the same function in several processes: one line */
	qsort(rows, n, sizeof(*rows), prof_by_name);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(rows[k - 1].name, rows[i].name)) {
			rows[k - 1].calls += rows[i].calls;
			rows[k - 1].total += rows[i].total;
			rows[k - 1].self += rows[i].self;
			rows[k - 1].bytes_self += rows[i].bytes_self;
			rows[k - 1].bytes_total += rows[i].bytes_total;
		} else {
			rows[k++] = rows[i];
		}
	}
	qsort(rows, k, sizeof(*rows), prof_by_total);
	fprintf(out, "%12s %16s %16s %14s", "calls", "total ns", "self ns", "avg ns");
	if (have_alloc)
		fprintf(out, " %14s %14s", "bytes self", "bytes total");
	fprintf(out, "  function\n");
	for (size_t i = 0; i < k; i++) {
		fprintf(out, "%12" PRIu64 " %16" PRIu64 " %16" PRIu64 " %14" PRIu64, rows[i].calls,
			rows[i].total, rows[i].self, rows[i].calls ? rows[i].total / rows[i].calls : 0);
		if (have_alloc)
			fprintf(out, " %14" PRIu64 " %14" PRIu64, rows[i].bytes_self,
				rows[i].bytes_total);
		fprintf(out, "  %s\n", rows[i].name);
	}
}

void an_profile_print(struct an_profile *p, FILE *out)
{
	struct an_prof_row *rows = calloc(p->nfuncs + 1, sizeof(*rows));
	size_t n = 0;
	uint64_t open = 0;

	if (!rows) {
		fprintf(out, "out of memory\n");
		return;
	}
	for (size_t i = 0; i < p->tcap; i++)
		open += p->threads[i].depth;
	for (size_t i = 0; i < p->fcap; i++) {
		const struct prof_func *f = &p->funcs[i];

		if (!f->key || !f->calls)
			continue;
		rows[n++] = (struct an_prof_row){ f->name, f->calls, f->total, f->self,
						  f->bytes_self, f->bytes_total };
	}
	if (!n && !open && !p->unmatched) {
		/* nothing to show: say what a profile needs */
		fprintf(out, "No function entry or exit events (shmtrace_func:entry, "
			"shmtrace_func:exit, or LTTng-UST's lttng_ust_cyg_profile*:func_entry, "
			"func_exit) in the traces: a profile needs a program built "
			"with -finstrument-functions, run under tracectl record --preload func\n");
		free(rows);
		return;
	}
	an_profile_rows_print(out, rows, n, p->have_alloc);
	if (open || p->unmatched)
		fprintf(out, "(%" PRIu64 " calls still open at the end, %" PRIu64
			" exits without an entry)\n", open, p->unmatched);
	free(rows);
}

void an_profile_free(struct an_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ntr; i++) {
		free(p->kind[i]);
		free(p->size_field[i]);
		free(p->nmemb_field[i]);
	}
	free(p->kind);
	free(p->size_field);
	free(p->nmemb_field);
	for (size_t i = 0; p->funcs && i < p->fcap; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	for (size_t i = 0; p->threads && i < p->tcap; i++)
		free(p->threads[i].stack);
	free(p->threads);
	free(p);
}
