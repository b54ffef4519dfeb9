// SPDX-License-Identifier: MIT
/*
 * procsyms.h - trace-read's symbol tables, one per process (trace), fed by
 * the events as they stream by: shmtrace_statedump:bin_info describes a
 * loaded object, shmtrace_proc:dlopen and dlclose add and remove one (a
 * state dump precedes the addresses that need it). Addresses are then
 * resolved to function names (symbols.h does the ELF part).
 *
 * Events are classified once per event class, so an event that changes
 * no table costs one array look-up; symbols.h caches recent answers. All
 * state is global: one reader's traces at a time.
 */
#ifndef SHMTRACE_TOOLS_PROCSYMS_H
#define SHMTRACE_TOOLS_PROCSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <shmtrace/reader.h>
#include "symbols.h"

struct proc_syms;

/*
 * One table per trace of @r, empty; a file that gives no names is
 * reported once on standard error. 0, or -ENOMEM.
 */
int procsyms_init(const struct shmtrace_rd_reader *r);
void procsyms_fini(void);

/* Are the tables there (procsyms_init() succeeded, no procsyms_fini())? */
bool procsyms_on(void);

/* Apply @ev to its process's table if it describes objects. */
void procsyms_track(const struct shmtrace_rd_event *ev);

/* The table of trace @i, or of @ev's trace; NULL when the tables are off. */
struct proc_syms *procsyms_at(size_t i);
struct proc_syms *procsyms_of(const struct shmtrace_rd_event *ev);

/*
 * Is @ev a state dump's description of an object (whose addresses are
 * the object's bounds, not code)? @p is @ev's table.
 */
bool procsyms_is_bin_info(struct proc_syms *p, const struct shmtrace_rd_event *ev);

/* Resolve the run-time address @addr of @p's process: 1 and *res, or 0. */
int procsyms_lookup(struct proc_syms *p, uint64_t addr, struct sym_result *res);

/*
 * For the analyses (an_resolve_fn): the name of the function holding
 * @addr in @ev's process, written to @buf; @buf, or NULL when unknown.
 */
const char *procsyms_name(void *arg, const struct shmtrace_rd_event *ev, uint64_t addr,
			  char *buf, size_t len);

#endif
