/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lower.c - the third stage of the TSDL parser (see tsdl-lower.h):
 * the type tree checked against the fixed packet header, packet context
 * and event header layout of doc/trace-format.md (each stream class's as
 * its block ends), and every stream class's event context and every
 * event's payload struct lowered to flat arrays of struct tsdl_field that
 * the reader decodes. At the end, event classes are keyed by (stream
 * class, id): an event block names a stream class declared anywhere in
 * the text (or none when the trace has a single stream class), and
 * tsdl_finish() sorts them by that key, so that each stream class's
 * events are one slice of the array, with its own dense id table.
 *
 * Invariants:
 *  - every allocation comes from the parse's arena (tsdl-arena.h);
 *  - the first error wins (tsdl_err()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-lower.h"

#define TSDL_DENSE_MAX 65536U

/* The stream class declared with @id, or NULL. */
static struct tsdl_sc *tsdl_declared_stream(struct tsdl_parser *P, uint64_t id)
{
	struct tsdl_sc *sc;

	for (sc = P->scs; sc; sc = sc->next) {
		if (sc->cls.id == id)
			return sc;
	}
	return NULL;
}

static bool tsdl_int_ok(const struct tsdl_type *t, unsigned bits, bool sign)
{
	return t->kind == TK_INT_T && t->size == bits && t->is_signed == sign;
}

struct tsdl_expect {
	const char *name;
	unsigned bits;
	unsigned array;
};

static int tsdl_check_layout(struct tsdl_parser *P, const struct tsdl_type *t,
			     const struct tsdl_expect *exp, unsigned n,
			     const char *what, int line)
{
	const struct tsdl_member *m;
	unsigned i = 0;

	if (!t)
		return tsdl_err(P, line, "missing %s", what);
	if (t->kind != TK_STRUCT_T || t->nmembers != n || t->align > 8)
		goto bad;
	for (m = t->members; m; m = m->next, i++) {
		const struct tsdl_type *mt = m->type;

		if (strcmp(m->name, exp[i].name))
			goto bad;
		if (exp[i].array) {
			if (mt->kind != TK_ARRAY_T ||
			    mt->length != exp[i].array)
				goto bad;
			mt = mt->elem;
		}
		if (!tsdl_int_ok(mt, exp[i].bits, false) || mt->align > 8)
			goto bad;
	}
	return 0;
bad:
	return tsdl_err(P, t->line, "unsupported %s layout", what);
}

static const struct tsdl_member *tsdl_member(const struct tsdl_type *t,
					     const char *name)
{
	const struct tsdl_member *m;

	if (t->kind != TK_STRUCT_T && t->kind != TK_VARIANT_T)
		return NULL;
	for (m = t->members; m; m = m->next) {
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

/* The id enum maps exactly compact = 0 ... 254, extended = 255. */
static bool tsdl_header_enum_ok(const struct tsdl_type *t)
{
	bool compact = false, extended = false;
	const struct tsdl_enum_map *em;

	for (em = t->maps; em; em = em->next) {
		if (!strcmp(em->label, "compact") && !compact &&
		    em->lo == 0 && em->hi == 254)
			compact = true;
		else if (!strcmp(em->label, "extended") && !extended &&
			 em->lo == 255 && em->hi == 255)
			extended = true;
		else
			return false;
	}
	return compact && extended;
}

static int tsdl_check_event_header(struct tsdl_parser *P,
				   const struct tsdl_sc *sc)
{
	const struct tsdl_type *t = sc->event_header;
	const struct tsdl_member *id, *v, *c, *e, *x;

	if (!t)
		return tsdl_err(P, sc->line, "missing event.header");
	if (t->kind != TK_STRUCT_T || t->nmembers != 2 || t->align > 8)
		goto bad;
	id = t->members;
	v = id->next;
	if (strcmp(id->name, "id") || id->type->kind != TK_ENUM_T ||
	    !tsdl_int_ok(id->type->elem, 8, false) ||
	    id->type->elem->align > 8 || !tsdl_header_enum_ok(id->type))
		goto bad;
	if (v->type->kind != TK_VARIANT_T || strcmp(v->type->tag, "id") ||
	    v->type->nmembers != 2)
		goto bad;
	c = tsdl_member(v->type, "compact");
	e = tsdl_member(v->type, "extended");
	if (!c || !e || c->type->kind != TK_STRUCT_T || c->type->align > 8)
		goto bad;
	x = tsdl_member(c->type, "timestamp");
	if (c->type->nmembers != 1 || !x || !tsdl_int_ok(x->type, 24, false) ||
	    x->type->align > 8)
		goto bad;
	if (e->type->kind != TK_STRUCT_T || e->type->nmembers != 2 ||
	    e->type->align > 8)
		goto bad;
	x = e->type->members;
	if (strcmp(x->name, "id") || !tsdl_int_ok(x->type, 32, false) ||
	    x->type->align > 8)
		goto bad;
	x = x->next;
	if (strcmp(x->name, "timestamp") || !tsdl_int_ok(x->type, 64, false) ||
	    x->type->align > 8)
		goto bad;
	return 0;
bad:
	return tsdl_err(P, t->line, "unsupported event.header layout");
}

static int tsdl_lower_int(struct tsdl_parser *P, const struct tsdl_type *t,
			  struct tsdl_field *f, int line)
{
	if (t->kind != TK_INT_T)
		return tsdl_err(P, line, "field '%s': unsupported element type",
				f->decl_name);
	if ((t->size != 8 && t->size != 16 && t->size != 32 &&
	     t->size != 64) || t->align > 8)
		return tsdl_err(P, line,
				"field '%s': unsupported integer size or alignment",
				f->decl_name);
	f->bytes = t->size / 8;
	f->is_signed = t->is_signed;
	f->base = t->base;
	return 0;
}

/* Names as declared, and without their leading underscore. */
static void tsdl_name_field(struct tsdl_field *f, const char *decl_name)
{
	f->decl_name = decl_name;
	f->name = decl_name[0] == '_' && decl_name[1] ? decl_name + 1 :
		decl_name;
}

int tsdl_lower_context(struct tsdl_parser *P, struct tsdl_sc *sc,
		       const struct tsdl_type *t)
{
	const struct tsdl_member *m;
	struct tsdl_field *ctx, *f;
	uint32_t i, off = 0;
	int rc;

	if (t->kind != TK_STRUCT_T || t->align > 8)
		return tsdl_err(P, t->line, "unsupported event.context layout");
	if (sc->cls.ctx)
		return tsdl_err(P, t->line, "duplicate event.context");
	ctx = tsdl_alloc(&P->arena, (t->nmembers + 1) * sizeof(*ctx));
	if (!ctx)
		return tsdl_nomem(P);
	for (m = t->members, i = 0; m; m = m->next, i++) {
		f = &ctx[i];
		tsdl_name_field(f, m->name);
		if (m->type->kind != TK_INT_T)
			return tsdl_err(P, m->line,
					"context field '%s': only integers are supported",
					m->name);
		f->kind = TSDL_F_INT;
		f->offset = off;
		rc = tsdl_lower_int(P, m->type, f, m->line);
		if (rc)
			return rc;
		off += f->bytes;
	}
	sc->cls.ctx = ctx;
	sc->cls.nctx = t->nmembers;
	sc->cls.ctx_bytes = off;
	return 0;
}

/* A stream block ended: check it and add it to the declared ones. */
int tsdl_add_stream(struct tsdl_parser *P, struct tsdl_sc *sc)
{
	static const struct tsdl_expect ctx[] = {
		{ "timestamp_begin", 64, 0 },
		{ "timestamp_end", 64, 0 },
		{ "content_size", 64, 0 },
		{ "packet_size", 64, 0 },
		{ "packet_seq_num", 64, 0 },
		{ "events_discarded", 64, 0 },
		{ "tid", 32, 0 },
	};
	int rc = 0;

	if (P->general) {
		sc->cls.packet_context = sc->packet_context;
		sc->cls.event_header = sc->event_header;
		sc->cls.event_context = sc->event_context;
	} else {
		rc = tsdl_check_layout(P, sc->packet_context, ctx, 7,
				       "packet.context", sc->line);
		if (!rc)
			rc = tsdl_check_event_header(P, sc);
	}
	if (rc)
		return rc;
	if (tsdl_declared_stream(P, sc->cls.id))
		return tsdl_err(P, sc->line, "duplicate stream id %" PRIu32,
				sc->cls.id);
	if (P->nscs == TSDL_MAX_STREAMS)
		return tsdl_err(P, sc->line, "more than %u stream classes",
				TSDL_MAX_STREAMS);
	sc->next = P->scs;
	P->scs = sc;
	P->nscs++;
	return 0;
}

int tsdl_lower_event(struct tsdl_parser *P, struct tsdl_ev *ev,
		     struct tsdl_type *t)
{
	struct tsdl_map names = { NULL, 0, 0 };
	const struct tsdl_member *m;
	struct tsdl_field *fields, *f;
	const char *ln;
	uint32_t i, j;
	int rc;

	if (t->kind != TK_STRUCT_T)
		return tsdl_err(P, t->line, "event fields must be a struct");
	if (P->general) {
		if (ev->cls.payload)
			return tsdl_err(P, t->line, "duplicate event fields");
		ev->cls.payload = t;
		return 0;
	}
	if (t->align > 8)
		return tsdl_err(P, t->line, "unsupported alignment of the event fields");
	if (ev->cls.fields)
		return tsdl_err(P, t->line, "duplicate event fields");
	fields = tsdl_alloc(&P->arena, (t->nmembers + 1) * sizeof(*fields));
	if (!fields)
		return tsdl_nomem(P);
	for (m = t->members, i = 0; m; m = m->next, i++) {
		const struct tsdl_type *mt = m->type;

		f = &fields[i];
		tsdl_name_field(f, m->name);
		switch (mt->kind) {
		case TK_INT_T:
			f->kind = TSDL_F_INT;
			rc = tsdl_lower_int(P, mt, f, m->line);
			break;
		case TK_FLOAT_T:
			if (mt->align > 8)
				return tsdl_err(P, m->line,
						"field '%s': unsupported alignment",
						m->name);
			f->kind = TSDL_F_FLOAT;
			f->bytes = mt->size / 8;
			rc = 0;
			break;
		case TK_STRING_T:
			f->kind = TSDL_F_STRING;
			rc = 0;
			break;
		case TK_ARRAY_T:
			f->kind = TSDL_F_ARRAY;
			f->length = mt->length;
			rc = tsdl_lower_int(P, mt->elem, f, m->line);
			break;
		case TK_SEQ_T:
			f->kind = TSDL_F_SEQUENCE;
			rc = tsdl_lower_int(P, mt->elem, f, m->line);
			if (rc)
				break;
			ln = mt->length_name;
			if (!strncmp(ln, "event.fields.", 13))
				ln += 13;
			/* the preceding fields are in the map, as index + 1 */
			j = (uint32_t)(uintptr_t)tsdl_map_get(&names, ln);
			if (!j-- || fields[j].kind != TSDL_F_INT ||
			    fields[j].is_signed)
				return tsdl_err(P, m->line,
						"field '%s': length field '%s' is not a preceding unsigned integer field",
						m->name, mt->length_name);
			f->len_field = j;
			break;
		default:
			rc = tsdl_err(P, m->line, "field '%s': unsupported type",
				      m->name);
			break;
		}
		if (rc)
			return rc;
		if (tsdl_map_put(&P->arena, &names, m->name,
				 (void *)(uintptr_t)(i + 1), NULL))
			return tsdl_nomem(P);
	}
	ev->cls.fields = fields;
	ev->cls.nfields = t->nmembers;
	return 0;
}

static int tsdl_cmp_sc(const void *a, const void *b)
{
	const struct tsdl_sc *x = *(const struct tsdl_sc *const *)a;
	const struct tsdl_sc *y = *(const struct tsdl_sc *const *)b;

	return x->cls.id < y->cls.id ? -1 : x->cls.id > y->cls.id;
}

static int tsdl_cmp_ev(const void *a, const void *b)
{
	const struct tsdl_event_class *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream->id < y->stream->id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The stream classes, sorted by id; each parsed one learns its index. */
static int tsdl_finish_streams(struct tsdl_parser *P)
{
	struct tsdl_stream_class *streams;
	struct tsdl_sc **order, *sc;
	uint32_t i;

	if (!P->nscs)
		return tsdl_err(P, P->line, "missing stream block");
	order = tsdl_alloc(&P->arena, P->nscs * sizeof(*order));
	streams = tsdl_alloc(&P->arena, P->nscs * sizeof(*streams));
	if (!order || !streams)
		return tsdl_nomem(P);
	for (sc = P->scs, i = 0; sc; sc = sc->next)
		order[i++] = sc;
	qsort(order, P->nscs, sizeof(*order), tsdl_cmp_sc);
	for (i = 0; i < P->nscs; i++) {
		order[i]->index = i;
		streams[i] = order[i]->cls;
	}
	P->streams = streams;
	P->m->streams = streams;
	P->m->nstreams = P->nscs;
	return 0;
}

/* Each stream class's slice of the events, and its dense id table. */
static int tsdl_finish_dense(struct tsdl_parser *P)
{
	struct tsdl_metadata *m = P->m;
	const struct tsdl_event_class **dense;
	const struct tsdl_event_class *evs = m->events;
	uint32_t i, j, k = 0;

	for (i = 0; i < m->nstreams; i++) {
		struct tsdl_stream_class *sc = &P->streams[i];
		uint64_t cap;

		sc->events = evs + k;
		while (k < m->nevents && evs[k].stream == sc)
			k++;
		sc->nevents = evs + k - sc->events;
		for (j = 0; j < sc->nevents; j++) {
			if (sc->events[j].nfields > sc->max_fields)
				sc->max_fields = sc->events[j].nfields;
		}
		sc->ndense = 0;
		if (sc->nevents) {
			cap = 1024 + 64 * (uint64_t)sc->nevents;
			if (cap > TSDL_DENSE_MAX)
				cap = TSDL_DENSE_MAX;
			sc->ndense = sc->events[sc->nevents - 1].id;
			sc->ndense = sc->ndense < cap ? sc->ndense + 1 : cap;
		}
		dense = tsdl_alloc(&P->arena, (sc->ndense + 1) * sizeof(*dense));
		if (!dense)
			return tsdl_nomem(P);
		for (j = 0; j < sc->nevents && sc->events[j].id < sc->ndense; j++)
			dense[sc->events[j].id] = &sc->events[j];
		sc->dense = (const struct tsdl_event_class *const *)dense;
	}
	return 0;
}

/*
 * The payload of @ev, of variable size, as runs to skip (tsdl.h): when
 * each member is a string or of a size fixed in whole bytes (sbits) and
 * aligned on a byte at most, consecutive fixed members merged. 0 (none
 * when the payload is not of that form), or -ENOMEM.
 */
static int tsdl_skip_plan(struct tsdl_parser *P, struct tsdl_event_class *ev)
{
	const struct tsdl_type *pl = ev->payload;
	const struct tsdl_member *mb;
	int64_t *ops;
	uint32_t n = 0;

	if (pl->kind != TK_STRUCT_T || pl->falign > 8)
		return 0;
	for (mb = pl->members; mb; mb = mb->next) {
		const struct tsdl_type *t = mb->type;

		if (t->kind != TK_STRING_T && (t->sbits < 0 || t->sbits % 8 || t->falign > 8))
			return 0;
	}
	ops = tsdl_alloc(&P->arena, (pl->nmembers + 1) * sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	for (mb = pl->members; mb; mb = mb->next) {
		if (mb->type->kind == TK_STRING_T)
			ops[n++] = TSDL_SKIP_STRING;
		else if (n && ops[n - 1] >= 0)
			ops[n - 1] += mb->type->sbits;
		else
			ops[n++] = mb->type->sbits;
	}
	ev->nskip = n;
	ev->skip = ops;
	return 0;
}

static int tsdl_finish_events(struct tsdl_parser *P)
{
	struct tsdl_metadata *m = P->m;
	struct tsdl_event_class *evs;
	struct tsdl_ev *e, *bad = NULL;
	uint32_t i;

	/* stream classes may be declared after their events, as in CTF */
	for (e = P->evs; e; e = e->next) {
		if (e->has_stream_id) {
			e->sc = tsdl_declared_stream(P, e->stream_id);
			if (!e->sc)
				bad = e;
		}
	}
	if (bad)
		return tsdl_err(P, bad->line,
				"event '%s' refers to unknown stream %" PRIu64,
				bad->cls.name, bad->stream_id);
	for (e = P->evs; e; e = e->next) {
		if (!e->sc && P->nscs > 1)
			bad = e;	/* the first declared one, in the end */
		e->cls.stream = &m->streams[e->sc ? e->sc->index : 0];
	}
	if (bad)
		return tsdl_err(P, bad->line,
				"event '%s' without stream_id in a trace of %" PRIu32 " stream classes",
				bad->cls.name, P->nscs);
	evs = tsdl_alloc(&P->arena, (P->nevs + 1) * sizeof(*evs));
	if (!evs)
		return tsdl_nomem(P);
	for (e = P->evs, i = P->nevs; e; e = e->next)
		evs[--i] = e->cls;	/* keep declaration order */
	qsort(evs, P->nevs, sizeof(*evs), tsdl_cmp_ev);
	for (i = 0; P->general && i < P->nevs; i++) {
		const struct tsdl_type *sctx = evs[i].stream->event_context;
		const struct tsdl_type *ectx = evs[i].context, *pl = evs[i].payload;

		evs[i].fixed_ctx_bits = -1;
		evs[i].fixed_payload_bits = pl ? pl->sbits : 0;
		if ((!sctx || sctx->sbits >= 0) && (!ectx || ectx->sbits >= 0))
			evs[i].fixed_ctx_bits = (sctx ? sctx->sbits : 0) + (ectx ? ectx->sbits : 0);
		if (pl && pl->sbits < 0 && tsdl_skip_plan(P, &evs[i]) < 0)
			return tsdl_nomem(P);
	}
	for (i = 0; i < P->nevs; i++) {
		if (i && !tsdl_cmp_ev(&evs[i], &evs[i - 1])) {
			for (e = P->evs; e && tsdl_cmp_ev(&e->cls, &evs[i]);
			     e = e->next)
				;
			return tsdl_err(P, e ? e->line : P->line,
					"duplicate event id %" PRIu32 " in stream %" PRIu32,
					evs[i].id, evs[i].stream->id);
		}
		evs[i].index = i;
		if (evs[i].nfields > m->max_fields)
			m->max_fields = evs[i].nfields;
	}
	m->events = evs;
	m->nevents = P->nevs;
	return tsdl_finish_dense(P);
}

/*
 * General traces: the alignment of each type's first bit (t->falign) and
 * its nesting (t->depth), once, for the decoder: a struct's alignment is
 * the largest of its own and its members', an array's and a sequence's
 * its element's, an enum's its container's, a variant's 0 (its option's,
 * known while reading). Types are shared (aliases), so a type already
 * done is skipped, and aliases may nest types deeper than the parser's
 * limit: a tree deeper than TSDL_MAX_GDEPTH is refused.
 */
#define TSDL_MAX_GDEPTH 64

static unsigned tsdl_gtype(const struct tsdl_type *tc, unsigned lvl)
{
	struct tsdl_type *t = (struct tsdl_type *)tc;
	const struct tsdl_member *mb;
	unsigned a = 1, d = 0;
	int64_t sb = -1;

	if (!t)
		return 1;
	if (t->depth)
		return t->depth;
	if (lvl > TSDL_MAX_GDEPTH) {
		t->sbits = -1;
		return TSDL_MAX_GDEPTH + 1;	/* too deep: refused, not walked */
	}
	t->depth = TSDL_MAX_GDEPTH + 1;	/* (a cycle cannot be made, but stop one) */
	switch (t->kind) {
	case TK_INT_T:
	case TK_FLOAT_T:
		a = t->align ? t->align : 1;
		if (t->size % 8 == 0 && a <= 8)
			sb = t->size;
		break;
	case TK_STRING_T:
		a = 8;
		break;
	case TK_ENUM_T:
	case TK_ARRAY_T:
	case TK_SEQ_T:
		d = tsdl_gtype(t->elem, lvl + 1);
		a = t->elem ? t->elem->falign : 1;
		if (t->kind == TK_ENUM_T)
			sb = t->elem->sbits;
		else if (t->kind == TK_ARRAY_T && t->elem->sbits >= 0 &&
			 t->elem->sbits <= (INT64_C(1) << 40) / ((int64_t)t->length + 1))
			sb = t->elem->sbits * (int64_t)t->length;
		break;
	case TK_STRUCT_T:
	case TK_VARIANT_T:
		a = t->align ? t->align : 1;
		sb = t->kind == TK_STRUCT_T && a <= 8 ? 0 : -1;
		for (mb = t->members; mb; mb = mb->next) {
			unsigned x = tsdl_gtype(mb->type, lvl + 1);

			if (x > d)
				d = x;
			if (mb->type->falign > a)
				a = mb->type->falign;
			if (sb >= 0 && mb->type->sbits >= 0 && mb->type->sbits < (INT64_C(1) << 40))
				sb += mb->type->sbits;
			else
				sb = -1;
		}
		if (sb > (INT64_C(1) << 40))
			sb = -1;
		if (t->kind == TK_VARIANT_T)
			a = 0;
		break;
	}
	t->sbits = sb;
	t->falign = a;
	t->depth = d + 1;
	return t->depth;
}

static int tsdl_general_align(struct tsdl_parser *P)
{
	const struct tsdl_type *deep = NULL;
	struct tsdl_sc *sc;
	struct tsdl_ev *e;

#define TSDL_G(t) do { if (tsdl_gtype(t, 1) > TSDL_MAX_GDEPTH) deep = (t); } while (0)
	TSDL_G(P->packet_header);
	for (sc = P->scs; sc; sc = sc->next) {
		TSDL_G(sc->packet_context);
		TSDL_G(sc->event_header);
		TSDL_G(sc->event_context);
	}
	for (e = P->evs; e; e = e->next) {
		TSDL_G(e->cls.payload);
		TSDL_G(e->cls.context);
	}
#undef TSDL_G
	if (deep)
		return tsdl_err(P, deep->line, "types nested more than %u deep",
				TSDL_MAX_GDEPTH);
	return 0;
}

/*
 * The clock's offset in ns since the Epoch, as babeltrace2 computes it:
 * whole seconds of the offset in ticks moved to offset_s, which, in ns,
 * plus the rest in ns must fit an int64_t. -ERANGE if it does not.
 */
static int tsdl_clock_base(struct tsdl_clock *c)
{
	int64_t s = c->offset_s, ns;
	uint64_t rest = c->offset % c->freq, q = c->offset / c->freq;

	if (q > INT64_MAX || __builtin_add_overflow(s, (int64_t)q, &s) ||
	    __builtin_mul_overflow(s, INT64_C(1000000000), &ns))
		return -ERANGE;
	q = tsdl_cycles_to_ns(c->freq, rest);
	if (q >= INT64_MAX || __builtin_add_overflow(ns, (int64_t)q, &c->base_ns))
		return -ERANGE;
	return 0;
}

int tsdl_finish(struct tsdl_parser *P)
{
	static const struct tsdl_expect hdr[] = {
		{ "magic", 32, 0 },
		{ "uuid", 8, 16 },
		{ "stream_id", 32, 0 },
		{ "stream_instance_id", 64, 0 },
	};
	struct tsdl_metadata *m = P->m;
	int rc;

	if (!P->seen_trace)
		return tsdl_err(P, P->line, "missing trace block");
	if (m->major != 1 || m->minor != 8)
		return tsdl_err(P, P->trace_line, "unsupported CTF version %u.%u",
				m->major, m->minor);
	if (!P->seen_clock)
		return tsdl_err(P, P->line, "missing clock block");
	if (!m->clock.freq)
		m->clock.freq = 1000000000;
	rc = tsdl_clock_base(&m->clock);
	if (rc)
		return tsdl_err(P, P->line,
				"clock offset out of range (offset_s %" PRId64 ", offset %" PRIu64 ")",
				m->clock.offset_s, m->clock.offset);
	if (P->general) {
		m->general = true;
		m->packet_header = P->packet_header;
		rc = tsdl_general_align(P);
	} else {
		rc = tsdl_check_layout(P, P->packet_header, hdr, 4,
				       "packet.header", P->trace_line);
	}
	if (!rc)
		rc = tsdl_finish_streams(P);
	if (!rc)
		rc = tsdl_finish_events(P);
	return rc;
}
