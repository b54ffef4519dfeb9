// SPDX-License-Identifier: MIT
/*
 * symbolize.c - the reader library's symbol tables, one per process of a
 * reader, fed by the events as they stream by: shmtrace_statedump:bin_info
 * (or LTTng-UST's lttng_ust_statedump:bin_info) describes a loaded object,
 * shmtrace_proc:dlopen and dlclose (LTTng's lttng_ust_dl:dlopen and
 * dlclose) add and remove one (a state dump precedes the addresses that
 * need it). Addresses are then resolved to function names; symbols.h does
 * the ELF part and caches the files and the recent answers. The public
 * API is shmtrace_rd_sym_*() of <shmtrace/reader.h>.
 *
 * A trace is one process (shmtrace's, LTTng's per-process buffers), or
 * several (LTTng's per-user buffers: env tracer_buffering_scheme "uid"),
 * told apart by their events' vpid context; an event of such a trace
 * without one is resolved nowhere (one table for several processes would
 * give one's names to another's addresses).
 *
 * Invariants:
 *  - procs[] has one entry per trace of the reader, by trace index, with
 *    the trace's event classes' kinds and, for a trace of one process,
 *    its table; shared[] holds the tables of the processes of traces of
 *    several, by (trace, vpid); a table exists from the first event that
 *    describes an object of its process;
 *  - events are classified once per event class (kind[] by class index,
 *    EK_UNKNOWN until seen), so that an event that changes no table costs
 *    one array look-up;
 *  - this file reads the reader through its public accessors only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <shmtrace/reader.h>
#include "symbols.h"

/* What an event class means to the symbol tables. */
enum ev_kind {
	EK_UNKNOWN = 0,		/* not classified yet */
	EK_PLAIN,		/* any other event */
	EK_BIN_INFO,		/* shmtrace_statedump:bin_info */
	EK_DLOPEN,		/* shmtrace_proc:dlopen */
	EK_DLCLOSE,		/* shmtrace_proc:dlclose */
	EK_LT_BIN_INFO,		/* lttng_ust_statedump:bin_info */
	EK_LT_DLOPEN,		/* lttng_ust_dl:dlopen */
	EK_LT_DLCLOSE,		/* lttng_ust_dl:dlclose */
};

/* Symbol state of one trace. */
struct proc_syms {
	struct sym_table *tab;		/* NULL until an object is described (or
					 * the trace holds several processes) */
	unsigned char *kind;		/* enum ev_kind by event class index */
	size_t nkind;
	bool several;			/* processes told apart by vpid */
};

/* A process of a trace of several. */
struct shared_syms {
	uint64_t key;			/* (trace + 1) << 32 | vpid; 0: empty slot */
	struct sym_table *tab;
};

struct shmtrace_rd_symbols {
	struct sym_cache *cache;
	struct proc_syms *procs;	/* by trace index */
	size_t nprocs;
	struct shared_syms *shared;	/* open addressing, at most half full */
	size_t nshared, cap;
};

int shmtrace_rd_sym_open(struct shmtrace_rd_symbols **out, const struct shmtrace_rd_reader *r,
			 const char *debug_dir, shmtrace_rd_sym_warn_fn warn, void *arg)
{
	struct sym_cache_config cfg = { .debug_dir = debug_dir, .warn = warn, .warn_arg = arg };
	struct shmtrace_rd_symbols *s;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!r)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->nprocs = shmtrace_rd_trace_count(r);
	s->procs = calloc(s->nprocs + 1, sizeof(*s->procs));
	if (!s->procs) {
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nprocs; i++) {
		const char *scheme = NULL;

		s->procs[i].several = shmtrace_rd_trace_env(shmtrace_rd_trace_at(r, i),
							    "tracer_buffering_scheme", &scheme, NULL) &&
				      scheme && !strcmp(scheme, "uid");
	}
	rc = sym_cache_new(&s->cache, &cfg);
	if (rc < 0) {
		free(s->procs);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void shmtrace_rd_sym_close(struct shmtrace_rd_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		sym_table_free(s->procs[i].tab);
		free(s->procs[i].kind);
	}
	for (size_t i = 0; i < s->cap; i++)
		sym_table_free(s->shared[i].tab);
	free(s->shared);
	free(s->procs);
	sym_cache_free(s->cache);
	free(s);
}

/* The table of trace @t, NULL when @t is not one of the reader's. */
static struct proc_syms *proc_of(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_trace *t)
{
	size_t i = shmtrace_rd_trace_index(t);

	return i < s->nprocs ? &s->procs[i] : NULL;
}

static unsigned char classify(const char *name)
{
	static const struct {
		const char *name;
		unsigned char kind;
	} known[] = {
		{ "shmtrace_statedump:bin_info", EK_BIN_INFO },
		{ "shmtrace_proc:dlopen", EK_DLOPEN },
		{ "shmtrace_proc:dlclose", EK_DLCLOSE },
		{ "lttng_ust_statedump:bin_info", EK_LT_BIN_INFO },
		{ "lttng_ust_dl:dlopen", EK_LT_DLOPEN },
		{ "lttng_ust_dl:dlclose", EK_LT_DLCLOSE },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name))
			return known[i].kind;
	return EK_PLAIN;
}

/*
 * Where the table of @ev's process is kept (*slot may be NULL: none yet),
 * or NULL when its process cannot be told (a trace of several processes,
 * an event without a vpid context) or memory runs out (with @make).
 */
static struct sym_table **table_slot(struct shmtrace_rd_symbols *s, struct proc_syms *p,
				     const struct shmtrace_rd_event *ev, bool make)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	struct shmtrace_rd_value v;
	uint64_t key;
	size_t i;
	int ci;

	if (!p->several)
		return &p->tab;
	ci = shmtrace_rd_event_context_index(ev, "vpid");
	if (ci < 0 || shmtrace_rd_event_context(ev, (unsigned)ci, &v) || v.kind != SHMTRACE_RD_INT)
		return NULL;
	key = (uint64_t)(shmtrace_rd_trace_index(t) + 1) << 32 | (uint32_t)v.u;
	if (make && 2 * (s->nshared + 1) > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		struct shared_syms *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->shared[j].key)
				continue;
			for (i = s->shared[j].key * 0x9e3779b97f4a7c15ULL >> 32; n[i & (ncap - 1)].key; i++)
				;
			n[i & (ncap - 1)] = s->shared[j];
		}
		free(s->shared);
		s->shared = n;
		s->cap = ncap;
	}
	if (!s->cap)
		return NULL;
	for (i = key * 0x9e3779b97f4a7c15ULL >> 32;; i++) {
		struct shared_syms *e = &s->shared[i & (s->cap - 1)];

		if (e->key == key)
			return &e->tab;
		if (!e->key) {
			if (!make)
				return NULL;
			e->key = key;
			s->nshared++;
			return &e->tab;
		}
	}
}

static unsigned char event_kind(struct proc_syms *p, const struct shmtrace_rd_event *ev)
{
	size_t i = shmtrace_rd_event_class_index(ev);

	if (i >= p->nkind) {
		size_t n = shmtrace_rd_trace_event_class_count(shmtrace_rd_event_trace(ev));
		unsigned char *k;

		if (n <= i)
			n = i + 1;
		k = realloc(p->kind, n);
		if (!k)
			return EK_PLAIN;
		memset(k + p->nkind, EK_UNKNOWN, n - p->nkind);
		p->kind = k;
		p->nkind = n;
	}
	if (p->kind[i] == EK_UNKNOWN)
		p->kind[i] = classify(shmtrace_rd_event_name(ev));
	return p->kind[i];
}

/*
 * Apply a state dump or dlopen/dlclose event to its process's table.
 * LTTng's name an object by its lowest address (baddr) and the span of
 * its segments (memsz); a position-independent object (is_pic; every
 * dlopened one) is linked at 0, so its load bias is baddr, and another's
 * is 0.
 */
static void syms_feed(struct shmtrace_rd_symbols *s, struct proc_syms *p, unsigned char kind,
		      const struct shmtrace_rd_event *ev)
{
	unsigned i, n = shmtrace_rd_event_field_count(ev), have = 0;
	uint64_t base = 0, low = 0, high = 0, baddr = 0, memsz = 0;
	const char *path = NULL;
	const uint8_t *id = NULL;
	size_t id_len = 0;
	int64_t result = 0;
	bool pic = kind == EK_LT_DLOPEN;
	struct sym_table **tab;

	for (i = 0; i < n; i++) {
		const char *name = shmtrace_rd_event_field_name(ev, i);
		struct shmtrace_rd_value v;

		if (shmtrace_rd_event_field(ev, i, &v))
			continue;
		if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "base")) {
			base = v.u;
			have |= 1;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "low")) {
			low = v.u;
			have |= 2;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "high")) {
			high = v.u;
			have |= 4;
		} else if (v.kind == SHMTRACE_RD_STRING && !strcmp(name, "path")) {
			path = v.str;
			have |= 8;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "result")) {
			result = v.is_signed ? v.s : (int64_t)v.u;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "baddr")) {
			baddr = v.u;
			have |= 16;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "memsz")) {
			memsz = v.u;
			have |= 32;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "is_pic")) {
			pic = v.u != 0;
		} else if ((v.kind == SHMTRACE_RD_SEQUENCE || v.kind == SHMTRACE_RD_ARRAY) &&
			   v.bytes == 1 && !strcmp(name, "build_id") &&
			   v.count <= SYM_BUILD_ID_MAX) {
			id = v.data;
			id_len = v.count;
		}
	}
	tab = table_slot(s, p, ev, true);
	if (!tab || (!*tab && sym_table_new(tab, s->cache) < 0))
		return;
	switch (kind) {
	case EK_BIN_INFO:
		if ((have & 15) == 15)
			sym_table_add(*tab, base, low, high, path, id, id_len);
		break;
	case EK_DLOPEN:
		/* the state dump that follows a dlopen describes it better */
		if ((have & 9) == 9 && base)
			sym_table_add(*tab, base, 0, 0, path, NULL, 0);
		break;
	case EK_DLCLOSE:
		if ((have & 1) && !result)
			sym_table_remove(*tab, base);
		break;
	case EK_LT_BIN_INFO:
	case EK_LT_DLOPEN:
		if ((have & 56) == 56 && memsz && baddr + memsz > baddr)
			sym_table_add(*tab, pic ? baddr : 0, baddr, baddr + memsz, path, NULL, 0);
		break;
	case EK_LT_DLCLOSE:
		if (have & 16)
			sym_table_remove(*tab, baddr);
		break;
	}
}

void shmtrace_rd_sym_track(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_event *ev)
{
	struct proc_syms *p = proc_of(s, shmtrace_rd_event_trace(ev));
	unsigned char kind;

	if (!p)
		return;
	kind = event_kind(p, ev);
	if (kind > EK_PLAIN)
		syms_feed(s, p, kind, ev);
}

/* The function at @addr in table @tab (may be NULL) into *@sym: 1, or 0. */
static int table_lookup(struct sym_table *tab, uint64_t addr, struct shmtrace_rd_symbol *sym)
{
	struct sym_result res;

	if (!tab || !sym_table_resolve(tab, addr, &res))
		return 0;
	sym->name = res.name;
	sym->offset = res.offset;
	sym->path = res.path;
	return 1;
}

int shmtrace_rd_sym_lookup(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_trace *t,
			   uint64_t addr, struct shmtrace_rd_symbol *sym)
{
	struct proc_syms *p = proc_of(s, t);

	return p && table_lookup(p->tab, addr, sym);
}

int shmtrace_rd_sym_event_lookup(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_event *ev,
				 uint64_t addr, struct shmtrace_rd_symbol *sym)
{
	struct proc_syms *p = proc_of(s, shmtrace_rd_event_trace(ev));
	struct sym_table **tab = p ? table_slot(s, p, ev, false) : NULL;

	return tab && table_lookup(*tab, addr, sym);
}

int shmtrace_rd_sym_value(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_event *ev,
			  bool context, const struct shmtrace_rd_value *v,
			  struct shmtrace_rd_symbol *sym)
{
	struct proc_syms *p;

	if (!shmtrace_rd_value_is_address(v))
		return 0;
	p = proc_of(s, shmtrace_rd_event_trace(ev));
	if (!p)
		return 0;
	/* a state dump's addresses are objects' bounds, not code */
	if (!context && (event_kind(p, ev) == EK_BIN_INFO || event_kind(p, ev) == EK_LT_BIN_INFO))
		return 0;
	return shmtrace_rd_sym_event_lookup(s, ev, v->u, sym);
}
