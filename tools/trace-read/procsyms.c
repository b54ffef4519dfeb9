// SPDX-License-Identifier: MIT
/*
 * procsyms.c - trace-read's per-process symbol tables (see procsyms.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "procsyms.h"

/* What an event class means to the symbol tables. */
enum ev_kind {
	EK_UNKNOWN = 0,		/* not classified yet */
	EK_PLAIN,		/* any other event */
	EK_BIN_INFO,		/* shmtrace_statedump:bin_info */
	EK_DLOPEN,		/* shmtrace_proc:dlopen */
	EK_DLCLOSE,		/* shmtrace_proc:dlclose */
};

/* Symbol state of one process (trace). */
struct proc_syms {
	struct sym_table *tab;		/* NULL until an object is described */
	unsigned char *kind;		/* enum ev_kind by event class index */
	size_t nkind;
};

static struct sym_cache *sym_cache;	/* NULL: no symbol resolution */
static struct proc_syms *procs;		/* by trace index */
static size_t nprocs;

static void sym_warn(void *arg, const char *msg)
{
	out_flush();
	fprintf(stderr, "WARNING: %s\n", msg);
}

int procsyms_init(const struct shmtrace_rd_reader *r)
{
	struct sym_cache_config cfg = { .warn = sym_warn };
	int rc;

	nprocs = shmtrace_rd_trace_count(r);
	procs = calloc(nprocs + 1, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	rc = sym_cache_new(&sym_cache, &cfg);
	if (rc < 0) {
		free(procs);
		procs = NULL;
	}
	return rc;
}

void procsyms_fini(void)
{
	size_t i;

	for (i = 0; procs && i < nprocs; i++) {
		sym_table_free(procs[i].tab);
		free(procs[i].kind);
	}
	free(procs);
	procs = NULL;
	sym_cache_free(sym_cache);
	sym_cache = NULL;
}

bool procsyms_on(void)
{
	return sym_cache != NULL;
}

struct proc_syms *procsyms_at(size_t i)
{
	return sym_cache && i < nprocs ? &procs[i] : NULL;
}

struct proc_syms *procsyms_of(const struct shmtrace_rd_event *ev)
{
	if (!sym_cache)
		return NULL;
	return &procs[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))];
}

static unsigned char classify(const char *name)
{
	if (!strcmp(name, "shmtrace_statedump:bin_info"))
		return EK_BIN_INFO;
	if (!strcmp(name, "shmtrace_proc:dlopen"))
		return EK_DLOPEN;
	if (!strcmp(name, "shmtrace_proc:dlclose"))
		return EK_DLCLOSE;
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

bool procsyms_is_bin_info(struct proc_syms *p, const struct shmtrace_rd_event *ev)
{
	return event_kind(p, ev) == EK_BIN_INFO;
}

/* Apply a state dump or dlopen/dlclose event to its process's table. */
static void syms_feed(struct proc_syms *p, unsigned char kind,
		      const struct shmtrace_rd_event *ev)
{
	unsigned i, n = shmtrace_rd_event_field_count(ev), have = 0;
	uint64_t base = 0, low = 0, high = 0;
	const char *path = NULL;
	const uint8_t *id = NULL;
	size_t id_len = 0;
	int64_t result = 0;

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
		} else if ((v.kind == SHMTRACE_RD_SEQUENCE || v.kind == SHMTRACE_RD_ARRAY) &&
			   v.bytes == 1 && !strcmp(name, "build_id") &&
			   v.count <= SYM_BUILD_ID_MAX) {
			id = v.data;
			id_len = v.count;
		}
	}
	if (!p->tab && sym_table_new(&p->tab, sym_cache) < 0)
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
	}
}

void procsyms_track(const struct shmtrace_rd_event *ev)
{
	struct proc_syms *p = procsyms_of(ev);
	unsigned char kind;

	if (!p)
		return;
	kind = event_kind(p, ev);
	if (kind > EK_PLAIN)
		syms_feed(p, kind, ev);
}

int procsyms_lookup(struct proc_syms *p, uint64_t addr, struct sym_result *res)
{
	return p->tab && sym_table_resolve(p->tab, addr, res);
}

const char *procsyms_name(void *arg, const struct shmtrace_rd_event *ev, uint64_t addr,
			  char *buf, size_t len)
{
	struct proc_syms *p = procsyms_of(ev);
	struct sym_result res;

	if (!p || !procsyms_lookup(p, addr, &res))
		return NULL;
	snprintf(buf, len, "%s", res.name);
	return buf;
}
