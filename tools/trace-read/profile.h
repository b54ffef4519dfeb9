/* SPDX-License-Identifier: MIT */
/*
 * profile.h - trace-read --profile: calls, total and self time per
 * function from shmtrace_func entry/exit events, and the bytes allocated
 * inside each (shmtrace_libc events) when present. Recursive calls count
 * in calls and self time; total time counts the outermost activation
 * only, so no time is counted twice. Functions are named from the reader
 * library's symbol tables. The rows are printed by one function that
 * trace-read --aggregations uses too (profiles kept by the traced
 * processes).
 *
 * an_profile_event() returns 0, or -ENOMEM when it runs out of memory;
 * printing goes to a FILE.
 */
#ifndef SHMTRACE_TOOLS_PROFILE_H
#define SHMTRACE_TOOLS_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <shmtrace/reader.h>

/*
 * The name of the function at @addr in the process (trace) of @ev, as the
 * profile and the chrome export name it, written to @buf (@len bytes at
 * most): the function's name from @syms (NULL: none), else "0x" and the
 * address in hexadecimal. Returns @buf.
 */
const char *an_function_name(struct shmtrace_rd_symbols *syms, const struct shmtrace_rd_event *ev,
			     uint64_t addr, char *buf, size_t len);

struct an_profile;

/* @syms: the symbol tables the events are tracked in, or NULL (addresses). */
struct an_profile *an_profile_new(struct shmtrace_rd_symbols *syms);
int an_profile_event(struct an_profile *p, const struct shmtrace_rd_event *ev);
void an_profile_print(struct an_profile *p, FILE *out);
void an_profile_free(struct an_profile *p);

/* One function's line of a profile. */
struct an_prof_row {
	const char *name;
	uint64_t calls, total, self, bytes_self, bytes_total;
};

/*
 * Print @n rows as --profile does: rows of one name (the same function in
 * several processes) added up, sorted by total time; the byte columns
 * with @have_alloc. Reorders @rows.
 */
void an_profile_rows_print(FILE *out, struct an_prof_row *rows, size_t n, int have_alloc);

#endif
