/* SPDX-License-Identifier: MIT */
/*
 * tsdl.c - parser for the TSDL metadata dialect written by shmtrace (see
 * tsdl.h): tsdl_parse() runs its three stages on one state (struct
 * tsdl_parser): the lexer (tsdl-lex.h) tokenises the text lazily, one
 * token of look-ahead; the parser (tsdl-parse.h), a recursive descent
 * parser, builds a small generic type tree; lowering (tsdl-lower.h)
 * checks it against the fixed layout of doc/trace-format.md and turns it
 * into the flat classes of the result. Names (type aliases, env keys, the
 * fields of a struct, the attributes of a block) are looked up in hash
 * maps (tsdl-arena.h), so that parsing takes time linear in the text.
 * Here also: the look-ups of classes by id in the result, and the
 * signature check of the text.
 *
 * Invariants:
 *  - every allocation (tokens' strings, types, the result) comes from one
 *    arena owned by the returned struct tsdl_metadata; nothing is freed
 *    before tsdl_free(), so pointers in the result never dangle;
 *  - the first error wins: the message names the first bad line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tsdl.h"
#include "tsdl-arena.h"
#include "tsdl-lex.h"
#include "tsdl-lower.h"
#include "tsdl-parse.h"

/* ---- look-ups in the result --------------------------------------------- */

/* Binary search of @n elements of @size bytes, sorted by a leading uint32_t id. */
static const void *tsdl_search_id(const void *base, uint32_t n, size_t size,
				  uint32_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const void *x = (const char *)base + (size_t)mid * size;
		uint32_t xid = *(const uint32_t *)x;

		if (xid == id)
			return x;
		if (xid < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

_Static_assert(offsetof(struct tsdl_stream_class, id) == 0, "id leads");
_Static_assert(offsetof(struct tsdl_event_class, id) == 0, "id leads");

const struct tsdl_stream_class *
tsdl_find_stream(const struct tsdl_metadata *m, uint32_t id)
{
	return tsdl_search_id(m->streams, m->nstreams, sizeof(*m->streams), id);
}

const struct tsdl_event_class *
tsdl_stream_find_event_slow(const struct tsdl_stream_class *sc, uint32_t id)
{
	return tsdl_search_id(sc->events, sc->nevents, sizeof(*sc->events), id);
}

/* ---- the signature -------------------------------------------------------- */

/* Up to 10 decimal digits after blanks, as scanf's %10u reads them. */
static bool tsdl_sig_number(const char **p, const char *end, uint64_t *v)
{
	int n = 0;

	while (*p < end && (**p == ' ' || (**p >= '\t' && **p <= '\r')))
		(*p)++;
	*v = 0;
	while (*p < end && n < 10 && **p >= '0' && **p <= '9') {
		*v = *v * 10 + (uint64_t)(**p - '0');
		(*p)++;
		n++;
	}
	return n > 0;
}

bool tsdl_signature_ok(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	uint64_t major, minor;

	if (len < 6 || memcmp(text, "/* CTF", 6))
		return false;
	p += 6;
	if (!tsdl_sig_number(&p, end, &major) || p == end || *p++ != '.' ||
	    !tsdl_sig_number(&p, end, &minor))
		return false;
	return major == 1 && minor == 8;
}

/* ---- parsing ---------------------------------------------------------------- */

static int tsdl_parse_as(const char *text, size_t len, const char *path,
			 struct tsdl_metadata **out, char *err, size_t errlen,
			 bool general)
{
	struct tsdl_parser P;
	int rc;

	memset(&P, 0, sizeof(P));
	P.general = general;
	P.path = path ? path : "metadata";
	P.p = text;
	P.end = text + len;
	P.line = 1;
	P.err = err;
	P.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	*out = NULL;

	P.m = tsdl_alloc(&P.arena, sizeof(*P.m));
	if (!P.m) {
		rc = tsdl_nomem(&P);
		goto fail;
	}
	rc = tsdl_parse_top(&P);
	if (!rc)
		rc = tsdl_finish(&P);
	if (rc)
		goto fail;
	P.m->arena = P.arena;
	*out = P.m;
	return 0;
fail:
	tsdl_arena_free(P.arena);
	return rc;
}

/* Does the metadata say shmtrace wrote it (env tracer_name)? */
static bool tsdl_is_shmtrace(const struct tsdl_metadata *m)
{
	for (uint32_t i = 0; i < m->nenv; i++) {
		if (!strcmp(m->env[i].key, "tracer_name") && !m->env[i].is_int &&
		    !strcmp(m->env[i].sval, "shmtrace"))
			return true;
	}
	return false;
}

/*
 * shmtrace's fixed layout first (its fast decoder); metadata that is not
 * of that layout, and does not say shmtrace wrote it, is parsed again in
 * the general form. When that fails too, or the metadata says shmtrace
 * wrote it, the first message is said (that of the form shmtrace writes).
 */
int tsdl_parse(const char *text, size_t len, const char *path,
	       struct tsdl_metadata **out, char *err, size_t errlen)
{
	char gerr[256];
	int rc;

	rc = tsdl_parse_as(text, len, path, out, err, errlen, false);
	if (rc != -EINVAL)
		return rc;
	if (tsdl_parse_as(text, len, path, out, gerr, sizeof(gerr), true) == 0) {
		if (!tsdl_is_shmtrace(*out)) {
			if (err && errlen)
				err[0] = '\0';
			return 0;
		}
		tsdl_free(*out);
		*out = NULL;
	}
	return rc;
}

void tsdl_free(struct tsdl_metadata *m)
{
	if (m)
		tsdl_arena_free(m->arena);
}
