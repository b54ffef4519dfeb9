// SPDX-License-Identifier: MIT
/*
 * symbolize.c - the reader library's symbol tables, one per process
 * (trace) of a reader, fed by the events as they stream by:
 * shmtrace_statedump:bin_info describes a loaded object,
 * shmtrace_proc:dlopen and dlclose add and remove one (a state dump
 * precedes the addresses that need it); in LTTng-UST's traces,
 * lttng_ust_statedump:bin_info and lttng_ust_dl:dlopen and dlclose do
 * the same (baddr, memsz, is_pic, path). Addresses are then resolved to
 * function names; symbols.h does the ELF part and caches the files and the
 * recent answers. The public API is shmtrace_rd_sym_*() of
 * <shmtrace/reader.h>.
 *
 * Invariants:
 *  - procs[] has one entry per trace of the reader, by trace index; an
 *    entry's sym_table exists from the first event that describes an
 *    object of its process;
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
	EK_DLCLOSE,		/* shmtrace_proc:dlclose, lttng_ust_dl:dlclose */
	EK_LT_OBJECT,		/* lttng_ust_statedump:bin_info, lttng_ust_dl:dlopen */
};

/* Symbol state of one process (trace). */
struct proc_syms {
	struct sym_table *tab;		/* NULL until an object is described */
	unsigned char *kind;		/* enum ev_kind by event class index */
	size_t nkind;
};

struct shmtrace_rd_symbols {
	struct sym_cache *cache;
	struct proc_syms *procs;	/* by trace index */
	size_t nprocs;
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
	if (!strcmp(name, "shmtrace_statedump:bin_info"))
		return EK_BIN_INFO;
	if (!strcmp(name, "shmtrace_proc:dlopen"))
		return EK_DLOPEN;
	if (!strcmp(name, "shmtrace_proc:dlclose") || !strcmp(name, "lttng_ust_dl:dlclose"))
		return EK_DLCLOSE;
	if (!strcmp(name, "lttng_ust_statedump:bin_info") || !strcmp(name, "lttng_ust_dl:dlopen"))
		return EK_LT_OBJECT;
	return EK_PLAIN;
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

/* Apply a state dump or dlopen/dlclose event to its process's table. */
static void syms_feed(struct shmtrace_rd_symbols *s, struct proc_syms *p, unsigned char kind,
		      const struct shmtrace_rd_event *ev)
{
	unsigned i, n = shmtrace_rd_event_field_count(ev), have = 0;
	uint64_t base = 0, low = 0, high = 0, memsz = 0, pic = 1;
	const char *path = NULL;
	const uint8_t *id = NULL;
	size_t id_len = 0;
	int64_t result = 0;

	for (i = 0; i < n; i++) {
		const char *name = shmtrace_rd_event_field_name(ev, i);
		struct shmtrace_rd_value v;

		if (shmtrace_rd_event_field(ev, i, &v))
			continue;
		if (v.kind == SHMTRACE_RD_INT && (!strcmp(name, "base") || !strcmp(name, "baddr"))) {
			base = v.u;
			have |= 1;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "memsz")) {
			memsz = v.u;
			have |= 16;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "is_pic")) {
			pic = v.u;
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
		} else if ((v.kind == SHMTRACE_RD_SEQUENCE || v.kind == SHMTRACE_RD_ARRAY) &&
			   v.bytes == 1 && !strcmp(name, "build_id") &&
			   v.count <= SYM_BUILD_ID_MAX) {
			id = v.data;
			id_len = v.count;
		}
	}
	if (!p->tab && sym_table_new(&p->tab, s->cache) < 0)
		return;
	switch (kind) {
	case EK_BIN_INFO:
		if (have == 15)
			sym_table_add(p->tab, base, low, high, path, id, id_len);
		break;
	case EK_DLOPEN:
		/* the state dump that follows a dlopen describes it better */
		if ((have & 9) == 9 && base)
			sym_table_add(p->tab, base, 0, 0, path, NULL, 0);
		break;
	case EK_DLCLOSE:
		if ((have & 1) && !result)
			sym_table_remove(p->tab, base);
		break;
	case EK_LT_OBJECT:
		/* LTTng: baddr is where the object starts; its load bias, when position-independent */
		if ((have & 25) == 25 && memsz && base + memsz > base)
			sym_table_add(p->tab, pic ? base : 0, base, base + memsz, path, NULL, 0);
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

/* @p's function at @addr into *@sym: 1, or 0. */
static int proc_lookup(struct proc_syms *p, uint64_t addr, struct shmtrace_rd_symbol *sym)
{
	struct sym_result res;

	if (!p->tab || !sym_table_resolve(p->tab, addr, &res))
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

	return p && proc_lookup(p, addr, sym);
}

int shmtrace_rd_sym_value(struct shmtrace_rd_symbols *s, const struct shmtrace_rd_event *ev,
			  bool context, const struct shmtrace_rd_value *v,
			  struct shmtrace_rd_symbol *sym)
{
	struct proc_syms *p;

	if (!shmtrace_rd_value_is_address(v))
		return 0;
	p = proc_of(s, shmtrace_rd_event_trace(ev));
	if (!p || !p->tab)
		return 0;
	/* a state dump's addresses are objects' bounds, not code */
	if (!context && (event_kind(p, ev) == EK_BIN_INFO || event_kind(p, ev) == EK_LT_OBJECT))
		return 0;
	return proc_lookup(p, v->u, sym);
}
