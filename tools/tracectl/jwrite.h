/* SPDX-License-Identifier: MIT */
/*
 * jwrite.h - the JSON that tracectl prints (--format json): a writer of
 * one compact document, commas and nesting kept by the writer.
 *
 * Invariants: what it writes is valid JSON whatever the strings hold:
 * valid UTF-8 is copied, '"', '\' and control characters are escaped,
 * and a byte that is not part of valid UTF-8 is written \udcXX (XX the
 * byte), as trace-read does (doc/trace-format.md). Numbers are integers
 * (uint64 or int64). Nesting deeper than JW_DEPTH is a bug: it aborts.
 */
#ifndef SHMTRACE_TOOLS_JWRITE_H
#define SHMTRACE_TOOLS_JWRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH	32

struct jw {
	FILE *out;
	int depth;
	bool more[JW_DEPTH];		/* a value was written at this depth: next needs ',' */
	bool keyed;			/* a key was written: its value needs no ',' */
};

void jw_init(struct jw *w, FILE *out);
void jw_obj(struct jw *w);		/* { as a value */
void jw_end(struct jw *w);		/* } */
void jw_arr(struct jw *w);		/* [ as a value */
void jw_end_arr(struct jw *w);		/* ] */
void jw_key(struct jw *w, const char *k);
void jw_str(struct jw *w, const char *s);
void jw_strn(struct jw *w, const char *s, size_t n);
void jw_u64(struct jw *w, uint64_t v);
void jw_s64(struct jw *w, int64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* @len bytes of JSON already checked (one value), its line breaks left out. */
void jw_raw(struct jw *w, const char *json, size_t len);

/* key and value at once */
void jw_kstr(struct jw *w, const char *k, const char *s);
void jw_kstr_or_null(struct jw *w, const char *k, const char *s);	/* "" -> null */
void jw_ku64(struct jw *w, const char *k, uint64_t v);
void jw_ks64(struct jw *w, const char *k, int64_t v);
void jw_kbool(struct jw *w, const char *k, bool v);
void jw_knull(struct jw *w, const char *k);
void jw_kobj(struct jw *w, const char *k);
void jw_karr(struct jw *w, const char *k);

#endif
