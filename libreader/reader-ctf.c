/* SPDX-License-Identifier: MIT */
/*
 * reader-ctf.c - the general decoder (see reader-ctf.h): packets and
 * events of a stream whose metadata is in the general form, read by
 * walking the type trees of the metadata (tsdl-parse.h) bit by bit, as
 * CTF 1.8 lays them out: each type aligned on its first bit (t->falign,
 * computed once when the metadata was read), integers of 1 to 64 bits in
 * either byte order, floats, strings, enums, structs, variants selected by
 * the enum they name, arrays and sequences whose length is a field read
 * before.
 *
 * A packet: its header and context are read from the first bytes of the
 * packet (at most 64 KiB) to learn its sizes, then its content is read
 * whole into the stream's buffer, and the header and context again from
 * there (the packet context's own fields, cpu_id for LTTng, are values of
 * every event of the packet). An event: its header gives its id and its
 * timestamp, an integer of N bits that, when N < 64, holds the low bits of
 * the clock, which went forward since the previous value (CTF 1.8: when
 * the low bits are below the previous ones, the clock wrapped once).
 *
 * Values: each integer, float, string and enum read is a value with its
 * flattened name ("a.b" for a struct's member, "a[3]" for an element of an
 * array of anything but integers; a variant is its option, under its own
 * name); an array or a sequence of integers is one value (text when its
 * integers are characters); the length of a sequence is a value of its
 * own, as the metadata declares it. Strings and integer elements are read
 * where they lie when they can be (little-endian bytes, a NUL after a
 * string); else they are copied into the stream's pool.
 *
 * Speed: the types are lowered once, when the metadata is read, to what
 * the walk needs (each type's alignment, and its size when fixed: t->sbits).
 * LTTng's event header is recognised once per stream class and read
 * without a walk (hdr_fast()). An event whose contexts and payload are of
 * fixed size is skipped whole, its thread read from the vtid context at
 * its fixed place, and decoded only when an accessor asks for its values
 * (rd_ctf_payload()): analyses that need the name, the time and the thread
 * (--stats) never walk a type tree. A payload of variable size (strings,
 * sequences, variants) is walked for its end only, making no value, and
 * decoded likewise when asked for.
 *
 * Invariants: every read is checked against the content of the packet;
 * the work of one event is bounded (RD_MAX_WORK types visited, RD_MAX_VALUES
 * values, RD_MAX_POOL bytes of pool), as is the nesting of types (the
 * metadata's limit), so a hostile trace costs bounded time and memory;
 * whatever cannot be believed ends the stream as damage (reader-damage.h),
 * its events before it returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-ctf.h"
#include "reader-damage.h"
#include "reader-objects.h"
#include "tsdl-parse.h"
#include "tsdl.h"

#define MAX_PACKET (256U << 20)
#define FIRST_READ 65536U		/* bytes read to learn a packet's sizes */
#define RD_MAX_VALUES 65536U
#define RD_MAX_WORK (1U << 22)
#define RD_MAX_POOL (64U << 20)
#define RD_MAX_NAMED 65536U

struct rd_named {
	const char *name;		/* as declared */
	const struct tsdl_type *t;	/* integer or enum */
	uint64_t v;
};

/* One walk over a type tree in the stream's buffer. */
struct dctx {
	struct rd_gen *g;
	const unsigned char *buf;
	uint64_t bit, end;		/* in bits */
	bool emit;			/* make values (else: only named integers) */
	uint64_t uuid_bit;		/* packet header: where "uuid" is, or UINT64_MAX */
	const char *why;		/* the error, at bit err_bit */
	uint64_t err_bit;
};

/* ---- small helpers --------------------------------------------------------- */

static int fail(struct dctx *c, const char *why)
{
	if (!c->why) {
		c->why = why;
		c->err_bit = c->bit;
	}
	return -EBADMSG;
}

static const char *strip(const char *n)
{
	return n[0] == '_' && n[1] ? n + 1 : n;
}

/* The last component of a dotted reference ("event.fields.len" -> "len"). */
static const char *last_part(const char *n)
{
	const char *d = strrchr(n, '.');

	return d ? d + 1 : n;
}

/* @n bits at bit @bit of @p, little- or big-endian, unsigned. */
static uint64_t read_bits(const unsigned char *p, uint64_t bit, unsigned n, bool be)
{
	uint64_t v = 0;
	unsigned i;

	if (!(bit & 7) && !(n & 7)) {
		const unsigned char *q = p + bit / 8;

		if (!be && (n == 8 || n == 16 || n == 32 || n == 64))
			return read_uint(q, n / 8);	/* (reads exactly n / 8 bytes) */
		if (!be) {
			for (i = n / 8; i--;)
				v = v << 8 | q[i];
			return v;
		}
		for (i = 0; i < n / 8; i++)
			v = v << 8 | q[i];
		return v;
	}
	if (!be) {
		for (i = 0; i < n;) {
			uint64_t b = bit + i;
			unsigned sh = b & 7, take = 8 - sh;

			if (take > n - i)
				take = n - i;
			v |= (uint64_t)((p[b / 8] >> sh) & ((1U << take) - 1)) << i;
			i += take;
		}
		return v;
	}
	for (i = 0; i < n; i++) {
		uint64_t b = bit + i;

		v = v << 1 | ((p[b / 8] >> (7 - (b & 7))) & 1);
	}
	return v;
}

static int64_t sext_bits(uint64_t v, unsigned n)
{
	unsigned sh = 64 - n;

	if (!sh)
		return (int64_t)v;
	return (int64_t)(v << sh) >> sh;
}

static uint8_t bytes_of(unsigned bits)
{
	return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

/* Room for @n bytes in the pool: their offset, or -1 (too much, no memory). */
static int64_t pool_take(struct rd_gen *g, size_t n)
{
	size_t off = g->pool_len;

	if (n > RD_MAX_POOL || off + n > RD_MAX_POOL)
		return -1;
	if (off + n > g->pool_cap) {
		size_t cap = g->pool_cap ? g->pool_cap : 4096;
		char *np;

		while (cap < off + n)
			cap *= 2;
		np = realloc(g->pool, cap);
		if (!np)
			return -1;
		g->pool = np;
		g->pool_cap = cap;
	}
	g->pool_len += n;
	return (int64_t)off;
}

/* "@prefix.@name" or "@prefix[@i]" in the pool: its offset + 1 (0: failed). */
static uint64_t pool_name(struct rd_gen *g, const char *prefix, const char *name, uint64_t idx)
{
	char tmp[32];
	size_t a = strlen(prefix), b;
	int64_t off;

	if (name) {
		b = strlen(name);
	} else {
		b = (size_t)snprintf(tmp, sizeof(tmp), "[%" PRIu64 "]", idx);
		name = tmp;
	}
	off = pool_take(g, a + b + 2);
	if (off < 0)
		return 0;
	memcpy(g->pool + off, prefix, a);
	if (name == tmp) {
		memcpy(g->pool + off + a, tmp, b + 1);
	} else {
		g->pool[off + a] = '.';
		memcpy(g->pool + off + a + 1, name, b + 1);
	}
	return (uint64_t)off + 1;
}

/*
 * A name that lives while the event does: a pool name is a pool offset + 1
 * until the event is read (the pool moves as it grows), tagged in @pooled.
 */
struct gname {
	const char *s;		/* a name of the metadata, or NULL */
	uint64_t off;		/* else: pool offset + 1 */
};

static const char *gname_str(const struct rd_gen *g, struct gname n)
{
	return n.s ? n.s : g->pool + n.off - 1;
}

static struct rd_gval *add_value(struct dctx *c, struct gname n, enum shmtrace_rd_kind kind)
{
	struct rd_gen *g = c->g;
	struct rd_gval *gv;

	if (g->nvals == g->cap) {
		uint32_t cap = g->cap ? g->cap * 2 : 64;
		struct rd_gval *nv;

		if (g->cap >= RD_MAX_VALUES) {
			fail(c, "more values than the reader takes in one event");
			return NULL;
		}
		nv = realloc(g->vals, cap * sizeof(*nv));
		if (!nv) {
			fail(c, "out of memory");
			return NULL;
		}
		g->vals = nv;
		g->cap = cap;
	}
	gv = &g->vals[g->nvals++];
	memset(gv, 0, sizeof(*gv));
	gv->v.kind = kind;
	if (n.s) {
		gv->name = n.s;
	} else {
		gv->name_off = (uint32_t)(n.off - 1);
		gv->pooled |= 4;
	}
	return gv;
}

static int add_named(struct dctx *c, const char *name, const struct tsdl_type *t, uint64_t v)
{
	struct rd_gen *g = c->g;

	if (g->nnamed == g->named_cap) {
		uint32_t cap = g->named_cap ? g->named_cap * 2 : 32;
		struct rd_named *nn;

		if (g->named_cap >= RD_MAX_NAMED)
			return fail(c, "more integers than the reader takes in one event");
		nn = realloc(g->named, cap * sizeof(*nn));
		if (!nn)
			return fail(c, "out of memory");
		g->named = nn;
		g->named_cap = cap;
	}
	g->named[g->nnamed++] = (struct rd_named){ name, t, v };
	return 0;
}

/* The last integer read under the name @ref refers to, or NULL. */
static const struct rd_named *find_named(const struct rd_gen *g, const char *ref)
{
	const char *key = last_part(ref);

	for (uint32_t i = g->nnamed; i--;) {
		if (!strcmp(g->named[i].name, key))
			return &g->named[i];
	}
	return NULL;
}

/* The label of @v in enum @t, or NULL. */
static const char *enum_label(const struct tsdl_type *t, uint64_t v)
{
	bool sign = t->elem->is_signed;

	for (const struct tsdl_enum_map *em = t->maps; em; em = em->next) {
		if (sign ? ((int64_t)v >= em->lo && (int64_t)v <= em->hi) :
			   (v >= (uint64_t)em->lo && v <= (uint64_t)em->hi))
			return em->label;
	}
	return NULL;
}

/* ---- the walk ----------------------------------------------------------------- */

static int dec(struct dctx *c, const struct tsdl_type *t, const char *raw, struct gname name);

static int align_to(struct dctx *c, unsigned a)
{
	if (a > 1) {
		uint64_t b = (c->bit + a - 1) & ~(uint64_t)(a - 1);

		if (b > c->end)
			return fail(c, "alignment padding runs past the end of the packet content");
		c->bit = b;
	}
	return 0;
}

/* The bits of integer or float @t (@what, for the error) at c->bit, aligned first. */
static int read_scalar(struct dctx *c, const struct tsdl_type *t, const char *what, uint64_t *v)
{
	if (align_to(c, t->falign))
		return -EBADMSG;
	if (c->end - c->bit < t->size)
		return fail(c, what);
	*v = read_bits(c->buf, c->bit, t->size, t->be);
	c->bit += t->size;
	return 0;
}

static int dec_int(struct dctx *c, const struct tsdl_type *t, const char *raw,
		   struct gname name, const struct tsdl_type *en)
{
	struct rd_gval *gv;
	uint64_t v;

	if (read_scalar(c, t, "an integer runs past the end of the packet content", &v))
		return -EBADMSG;
	if (t->is_signed)
		v = (uint64_t)sext_bits(v, t->size);
	if (raw && add_named(c, raw, en ? en : t, v))
		return -EBADMSG;
	if (!c->emit)
		return 0;
	gv = add_value(c, name, en ? SHMTRACE_RD_ENUM : SHMTRACE_RD_INT);
	if (!gv)
		return -EBADMSG;
	gv->v.u = v;
	gv->v.bytes = bytes_of(t->size);
	gv->v.is_signed = t->is_signed;
	gv->v.base = (uint8_t)t->base;
	if (en) {
		gv->v.str = enum_label(en, v);
		gv->v.len = gv->v.str ? strlen(gv->v.str) : 0;
	}
	return 0;
}

static int dec_float(struct dctx *c, const struct tsdl_type *t, struct gname name)
{
	struct rd_gval *gv;
	uint64_t v;

	if (read_scalar(c, t, "a float runs past the end of the packet content", &v))
		return -EBADMSG;
	if (!c->emit)
		return 0;
	gv = add_value(c, name, SHMTRACE_RD_FLOAT);
	if (!gv)
		return -EBADMSG;
	gv->v.bytes = (uint8_t)(t->size / 8);
	if (t->size == 64) {
		memcpy(&gv->v.d, &v, 8);
	} else {
		uint32_t x = (uint32_t)v;
		float f;

		memcpy(&f, &x, 4);
		gv->v.d = f;
	}
	return 0;
}

static int dec_string(struct dctx *c, struct gname name)
{
	const unsigned char *p, *z;
	struct rd_gval *gv;

	if (align_to(c, 8))
		return -EBADMSG;
	p = c->buf + c->bit / 8;
	z = memchr(p, 0, (c->end - c->bit) / 8);
	if (!z)
		return fail(c, "unterminated string");
	c->bit = (uint64_t)(z - c->buf + 1) * 8;
	if (!c->emit)
		return 0;
	gv = add_value(c, name, SHMTRACE_RD_STRING);
	if (!gv)
		return -EBADMSG;
	gv->v.str = (const char *)p;
	gv->v.len = (size_t)(z - p);
	gv->v.bytes = 1;
	return 0;
}

/* Can elements of @e be one value (byte-sized integers, packed)? */
static bool packed_ints(const struct tsdl_type *e)
{
	return e->kind == TK_INT_T && (e->size == 8 || e->size == 16 || e->size == 32 ||
				       e->size == 64) && e->falign <= e->size &&
	       e->falign >= 8;
}

static int dec_array(struct dctx *c, const struct tsdl_type *t, const char *raw,
		     struct gname name)
{
	const struct tsdl_type *e = t->elem;
	uint64_t n, i;

	if (t->kind == TK_ARRAY_T) {
		n = t->length;
	} else {
		const struct rd_named *ln = find_named(c->g, t->length_name);

		if (!ln)
			return fail(c, "a sequence's length field was not read before it");
		if (ln->t->kind == TK_INT_T && ln->t->is_signed && (int64_t)ln->v < 0)
			return fail(c, "negative sequence length");
		n = ln->v;
	}
	if (align_to(c, e->falign ? e->falign : 1))
		return -EBADMSG;
	if (raw && !c->emit && n == 16 && e->kind == TK_INT_T && e->size == 8 &&
	    !(c->bit & 7) && !strcmp(raw, "uuid"))
		c->uuid_bit = c->bit;	/* the packet header's uuid */
	if (packed_ints(e)) {
		size_t nb;

		if (n > (c->end - c->bit) / e->size)
			return fail(c, "an array runs past the end of the packet content");
		nb = (size_t)(n * e->size / 8);
		if (c->emit) {
			const unsigned char *p = c->buf + c->bit / 8;
			struct rd_gval *gv = add_value(c, name, t->kind == TK_ARRAY_T ?
						       SHMTRACE_RD_ARRAY : SHMTRACE_RD_SEQUENCE);
			int64_t off;

			if (!gv)
				return -EBADMSG;
			gv->v.bytes = (uint8_t)(e->size / 8);
			gv->v.is_signed = e->is_signed;
			gv->v.base = (uint8_t)e->base;
			gv->v.count = (uint32_t)n;
			if (e->text && e->size == 8) {
				/* characters: a string, up to the first NUL */
				const unsigned char *z = memchr(p, 0, nb);
				size_t len = z ? (size_t)(z - p) : nb;

				off = pool_take(c->g, len + 1);
				if (off < 0)
					return fail(c, "values too large for the reader");
				memcpy(c->g->pool + off, p, len);
				c->g->pool[off + len] = '\0';
				gv->v.kind = SHMTRACE_RD_STRING;
				gv->str_off = (uint32_t)off;
				gv->v.len = len;
				gv->pooled |= 1;
			} else if (!e->be) {
				gv->v.data = p;
			} else {
				unsigned k = e->size / 8;

				off = pool_take(c->g, nb);
				if (off < 0)
					return fail(c, "values too large for the reader");
				for (i = 0; i < n; i++)
					for (unsigned b = 0; b < k; b++)
						c->g->pool[off + i * k + b] = (char)p[i * k + k - 1 - b];
				gv->data_off = (uint32_t)off;
				gv->pooled |= 2;
			}
		}
		c->bit += n * e->size;
		return 0;
	}
	/* anything else: element by element, "name[i]" */
	if (n > RD_MAX_WORK)
		return fail(c, "array too long");
	for (i = 0; i < n; i++) {
		struct gname en = { NULL, 0 };

		if (c->emit) {
			en.off = pool_name(c->g, gname_str(c->g, name), NULL, i);
			if (!en.off)
				return fail(c, "values too large for the reader");
		}
		if (dec(c, e, NULL, en))
			return -EBADMSG;
	}
	(void)raw;
	return 0;
}

static int dec_struct(struct dctx *c, const struct tsdl_type *t, struct gname name)
{
	if (align_to(c, t->falign))
		return -EBADMSG;
	for (const struct tsdl_member *m = t->members; m; m = m->next) {
		struct gname mn = { NULL, 0 };

		if (c->emit) {
			if (!name.s && !name.off)
				mn.s = strip(m->name);	/* a top-level field */
			else if (!(mn.off = pool_name(c->g, gname_str(c->g, name),
						      strip(m->name), 0)))
				return fail(c, "values too large for the reader");
		}
		if (dec(c, m->type, m->name, mn))
			return -EBADMSG;
	}
	return 0;
}

static int dec_variant(struct dctx *c, const struct tsdl_type *t, struct gname name)
{
	const struct rd_named *tag = find_named(c->g, t->tag);
	const char *label;

	if (!tag || tag->t->kind != TK_ENUM_T)
		return fail(c, "a variant's tag was not read before it");
	label = enum_label(tag->t, tag->v);
	if (!label)
		return fail(c, "a variant's tag has no label for its value");
	for (const struct tsdl_member *m = t->members; m; m = m->next) {
		if (!strcmp(m->name, label) || (m->name[0] == '_' && !strcmp(m->name + 1, label)))
			return dec(c, m->type, m->name, name);
	}
	return fail(c, "a variant has no option for its tag's label");
}

/*
 * Read type @t at c->bit: @raw is the name it is declared under (for the
 * tags and lengths read later), @name its value's name when c->emit.
 */
static int dec(struct dctx *c, const struct tsdl_type *t, const char *raw, struct gname name)
{
	if (++c->g->work > RD_MAX_WORK)
		return fail(c, "an event too complex for the reader");
	switch (t->kind) {
	case TK_INT_T:
		return dec_int(c, t, raw, name, NULL);
	case TK_ENUM_T:
		return dec_int(c, t->elem, raw, name, t);
	case TK_FLOAT_T:
		return dec_float(c, t, name);
	case TK_STRING_T:
		return dec_string(c, name);
	case TK_STRUCT_T:
		return dec_struct(c, t, name);
	case TK_VARIANT_T:
		return dec_variant(c, t, name);
	case TK_ARRAY_T:
	case TK_SEQ_T:
		return dec_array(c, t, raw, name);
	}
	return fail(c, "unknown type");
}

/* Read struct @t, if any, from c->bit: its top-level members are named as declared. */
static int dec_top(struct dctx *c, const struct tsdl_type *t, bool emit)
{
	c->emit = emit;
	if (!t)
		return 0;
	return dec(c, t, NULL, (struct gname){ NULL, 0 });
}

/* The values' pointers into the pool, from their offsets (after it moved). */
static void fix_pool(struct rd_gen *g, uint32_t from)
{
	for (uint32_t i = from; i < g->nvals; i++) {
		struct rd_gval *gv = &g->vals[i];

		if (!gv->pooled)
			continue;
		if (gv->pooled & 4)
			gv->name = g->pool + gv->name_off;
		if (gv->pooled & 1)
			gv->v.str = g->pool + gv->str_off;
		if (gv->pooled & 2)
			gv->v.data = g->pool + gv->data_off;
	}
}

/* The value of the integer last read under @name, or @dflt. */
static uint64_t named_u(const struct rd_gen *g, const char *name, uint64_t dflt, bool *found)
{
	const struct rd_named *n = find_named(g, name);

	if (found)
		*found = n != NULL;
	return n ? n->v : dflt;
}

/* ---- packets ------------------------------------------------------------------ */

static struct rd_gen *gen_of(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	if (!s->gen) {
		s->gen = calloc(1, sizeof(*s->gen));
		if (!s->gen)
			rd_fail_at(r, s, s->next_off, -ENOMEM, "out of memory");
		else
			s->gen->tid_idx = -2;
	}
	return s->gen;
}

static int ensure_buf(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 4096;
	unsigned char *nb;

	if (n <= s->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	nb = malloc(cap);
	if (!nb)
		return rd_fail_at(r, s, s->next_off, -ENOMEM, "out of memory");
	free(s->buf);
	s->buf = nb;
	s->cap = cap;
	return 0;
}

/* Packet names babeltrace2 does not print: every other one is a value of the events. */
static bool known_packet_field(const char *n)
{
	static const char *const known[] = {
		"timestamp_begin", "timestamp_end", "content_size", "packet_size",
		"packet_seq_num", "events_discarded",
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(n, known[i]))
			return true;
	return false;
}

/* The packet header and context at c->buf: the stream class, in *@sc. */
static int read_pkt_head(struct dctx *c, const struct tsdl_metadata *m,
			 const struct tsdl_stream_class **sc, bool emit)
{
	bool has;
	uint64_t sid;

	c->g->nnamed = 0;
	c->uuid_bit = UINT64_MAX;
	if (dec_top(c, m->packet_header, false))
		return -EBADMSG;
	if (named_u(c->g, "magic", TSDL_PACKET_MAGIC, NULL) != TSDL_PACKET_MAGIC) {
		c->err_bit = 0;
		c->why = "bad packet magic";
		return -EBADMSG;
	}
	sid = named_u(c->g, "stream_id", 0, &has);
	*sc = has ? (sid <= UINT32_MAX ? tsdl_find_stream(m, (uint32_t)sid) : NULL) :
		    &m->streams[0];
	if (!*sc) {
		c->why = "unknown stream id";
		return -EBADMSG;
	}
	return dec_top(c, (*sc)->packet_context, emit);
}

static int load_packet(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	const struct tsdl_metadata *m = s->trace->meta;
	const struct tsdl_stream_class *sc;
	struct rd_gen *g = gen_of(r, s);
	uint64_t off = s->next_off, left = s->file_size - off;
	uint64_t content, psize, tsb, tse, seq, disc;
	size_t first = left < FIRST_READ ? (size_t)left : FIRST_READ;
	bool has_tsb, has_seq, has_size;
	struct dctx c;
	uint32_t i, k;
	int rc;

	if (!g)
		return -ENOMEM;
	rc = ensure_buf(r, s, first);
	if (rc)
		return rc;
	rc = rd_pread_full(s->fd, s->buf, first, off);
	if (rc)
		return rd_fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
				  "read error: %s", strerror(-rc));
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.buf = s->buf;
	c.end = (uint64_t)first * 8;
	g->nvals = 0;
	g->pool_len = 0;
	g->work = 0;
	if (read_pkt_head(&c, m, &sc, false))
		return rd_fail_at(r, s, off + c.err_bit / 8, -EBADMSG, "packet header: %s",
				  c.why);
	if (c.uuid_bit != UINT64_MAX && m->has_uuid &&
	    memcmp(s->buf + c.uuid_bit / 8, m->uuid, 16))
		return rd_fail_at(r, s, off + c.uuid_bit / 8, -EBADMSG,
				  "packet uuid does not match the metadata uuid");
	if (s->sc && sc != s->sc)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "stream id %" PRIu32 " after packets of stream id %" PRIu32,
				  sc->id, s->sc->id);
	psize = named_u(g, "packet_size", left * 8, &has_size);
	content = named_u(g, "content_size", psize, NULL);
	tsb = named_u(g, "timestamp_begin", s->last_ts, &has_tsb);
	tse = named_u(g, "timestamp_end", UINT64_MAX, NULL);
	seq = named_u(g, "packet_seq_num", s->seq + 1, &has_seq);
	disc = named_u(g, "events_discarded", s->discarded, NULL);
	if (psize % 8 || content > psize || content < c.bit || !psize)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "invalid content_size %" PRIu64 " / packet_size %" PRIu64 " (bits)",
				  content, psize);
	if (psize / 8 > left)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "packet_size %" PRIu64 " bytes runs past the end of the file (%" PRIu64 " bytes left)",
				  psize / 8, left);
	if (psize / 8 > MAX_PACKET)
		return rd_fail_at(r, s, off, -EFBIG, "packet too large (%" PRIu64 " bytes)",
				  psize / 8);
	if (tsb > tse)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "timestamp_begin %" PRIu64 " > timestamp_end %" PRIu64, tsb, tse);
	if (s->have_packet) {
		if (has_tsb && tsb < s->ts_end)
			return rd_fail_at(r, s, off, -EBADMSG,
					  "timestamp_begin %" PRIu64 " goes back before the previous packet's timestamp_end (%" PRIu64 ")",
					  tsb, s->ts_end);
		if (seq <= s->seq && has_seq)
			return rd_fail_at(r, s, off, -EBADMSG,
					  "packet_seq_num %" PRIu64 " does not follow %" PRIu64,
					  seq, s->seq);
		if (has_seq)
			s->lost += seq - s->seq - 1;
		/*
		 * LTTng-UST's last packet of a stream, written when the
		 * session stops, may say 0: the count so far stays.
		 */
		if (disc < s->discarded)
			disc = s->discarded;
	}
	/* the content, whole; then the header and context again, with values */
	rc = ensure_buf(r, s, (size_t)((content + 7) / 8));
	if (rc)
		return rc;
	rc = rd_pread_full(s->fd, s->buf, (size_t)((content + 7) / 8), off);
	if (rc)
		return rd_fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
				  "read error: %s", strerror(-rc));
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.buf = s->buf;
	c.end = content;
	g->nvals = 0;
	g->pool_len = 0;
	g->work = 0;
	if (read_pkt_head(&c, m, &sc, true))
		return rd_fail_at(r, s, off + c.err_bit / 8, -EBADMSG, "packet header: %s",
				  c.why);
	/* the packet context's own fields (cpu_id) stay, as babeltrace2 prints them */
	for (i = 0, k = 0; i < g->nvals; i++) {
		if (!(g->vals[i].pooled & 4) && known_packet_field(g->vals[i].name))
			continue;
		g->vals[k++] = g->vals[i];
	}
	g->nvals = k;
	g->npkt = k;
	g->lazy = NULL;
	g->lazy_ctx = false;
	if (s->sc != sc) {
		g->hdr.known = 0;
		g->ctx_known = 0;
	}
	g->pool_pkt = g->pool_len;
	g->bit = c.bit;
	g->content_bits = content;
	s->have_packet = true;
	s->sc = sc;
	s->pkt_off = off;
	s->next_off = off + psize / 8;
	s->content = (size_t)((content + 7) / 8);
	s->pos = 0;
	s->ts_begin = tsb;
	s->ts_end = tse;
	s->last_ts = tsb;
	s->seq = seq;
	s->discarded = disc;
	s->instance_id = named_u(g, "stream_instance_id", 0, NULL);
	return 0;
}

/* ---- events ------------------------------------------------------------------- */

static const struct tsdl_member *member(const struct tsdl_type *t, const char *name)
{
	for (const struct tsdl_member *m = t->members; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static bool plain_int(const struct tsdl_type *t)
{
	return t && t->kind == TK_INT_T && !t->be && !t->is_signed && t->size;
}

/*
 * Is @t LTTng's event header: struct { enum : uintN { compact = 0 ...
 * E - 1, extended = E } id; variant <id> { struct { uintM timestamp; }
 * compact; struct { uintK id; uintL timestamp; } extended; } v; } with E
 * = 2^N - 1? Then it is read without walking its tree (hdr_fast()).
 */
static void hdr_look(struct rd_hdr *h, const struct tsdl_type *t)
{
	const struct tsdl_member *mid, *mv, *c, *x, *xid, *xts, *cts;
	const struct tsdl_enum_map *em;
	uint64_t ext = 0;
	bool has_c = false, has_x = false;

	h->known = -1;
	if (!t || t->kind != TK_STRUCT_T || t->nmembers != 2)
		return;
	mid = t->members;
	mv = mid->next;
	if (strcmp(mid->name, "id") || mid->type->kind != TK_ENUM_T || !plain_int(mid->type->elem) ||
	    mid->type->elem->size > 32 || mv->type->kind != TK_VARIANT_T ||
	    strcmp(mv->type->tag, "id") || mv->type->nmembers != 2)
		return;
	ext = (UINT64_C(1) << mid->type->elem->size) - 1;
	for (em = mid->type->maps; em; em = em->next) {
		if (!strcmp(em->label, "compact") && em->lo == 0 && (uint64_t)em->hi == ext - 1)
			has_c = true;
		else if (!strcmp(em->label, "extended") && (uint64_t)em->lo == ext &&
			 (uint64_t)em->hi == ext)
			has_x = true;
		else
			return;
	}
	c = member(mv->type, "compact");
	x = member(mv->type, "extended");
	if (!has_c || !has_x || !c || !x || c->type->kind != TK_STRUCT_T ||
	    x->type->kind != TK_STRUCT_T || c->type->nmembers != 1 || x->type->nmembers != 2)
		return;
	cts = c->type->members;
	xid = x->type->members;
	xts = xid->next;
	if (strcmp(cts->name, "timestamp") || !plain_int(cts->type) ||
	    strcmp(xid->name, "id") || !plain_int(xid->type) ||
	    strcmp(xts->name, "timestamp") || !plain_int(xts->type))
		return;
	*h = (struct rd_hdr){ 1, t, mid->type->elem, c->type, cts->type, x->type, xid->type,
			      xts->type, ext, 0 };
	/* the two forms LTTng writes, read in one load (their compact option) */
	if (t->falign == 8 && h->id->size == 16 && h->id->falign == 8 && h->cs->falign <= 8 &&
	    h->cts->size == 32 && h->cts->falign == 8)
		h->simple = 1;
	else if (t->falign == 8 && h->id->size == 5 && h->id->falign == 1 &&
		 h->cs->falign == 1 && h->cts->size == 27 && h->cts->falign == 1)
		h->simple = 2;
}

/* One unsigned little-endian integer of type @t at c->bit, aligned. */
static int fast_int(struct dctx *c, const struct tsdl_type *t, uint64_t *v)
{
	if (align_to(c, t->falign))
		return -EBADMSG;
	if (c->end - c->bit < t->size)
		return fail(c, "the event header runs past the end of the packet content");
	if (!(c->bit & 7) && (t->size == 16 || t->size == 32 || t->size == 64))
		*v = read_uint(c->buf + c->bit / 8, t->size / 8);	/* (the common case) */
	else
		*v = read_bits(c->buf, c->bit, t->size, false);
	c->bit += t->size;
	return 0;
}

static int hdr_fast(struct dctx *c, const struct rd_hdr *h, uint64_t *id, uint64_t *ts,
		    unsigned *tsbits)
{
	if (align_to(c, h->t->falign) || fast_int(c, h->id, id))
		return -EBADMSG;
	if (*id != h->ext) {
		*tsbits = h->cts->size;
		return align_to(c, h->cs->falign) || fast_int(c, h->cts, ts) ? -EBADMSG : 0;
	}
	*tsbits = h->xts->size;
	if (align_to(c, h->xs->falign) || fast_int(c, h->xid, id) || fast_int(c, h->xts, ts))
		return -EBADMSG;
	return 0;
}

void rd_ctf_payload(struct shmtrace_rd_stream *s)
{
	struct rd_gen *g = s->gen;
	struct dctx c;

	if (!g || !g->lazy)
		return;
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.buf = s->buf;
	c.end = g->content_bits;
	if (g->lazy_ctx) {
		c.bit = g->lazy_ctx_bit;
		g->nvals = g->npkt;
		if (dec_top(&c, s->sc->event_context, true) ||
		    dec_top(&c, g->lazy->context, true))
			g->nvals = g->npkt;
		g->nctx = g->nvals;
		g->lazy_ctx = false;
	}
	c.bit = g->lazy_bit;
	if (dec_top(&c, g->lazy->payload, true))
		g->nvals = g->nctx;	/* (no memory, limits: no payload) */
	g->lazy = NULL;
	fix_pool(g, 0);
}

/* The stream class's event context: where its vtid (or tid) lies, when of fixed layout. */
static void ctx_look(struct rd_gen *g, const struct tsdl_type *t)
{
	int64_t off = 0;

	g->ctx_known = 1;
	g->tid_off = -1;
	if (!t || t->kind != TK_STRUCT_T || t->sbits < 0)
		return;
	for (const struct tsdl_member *m = t->members; m; m = m->next) {
		const char *n = strip(m->name);

		if (m->type->kind == TK_INT_T && (!strcmp(n, "vtid") || !strcmp(n, "tid"))) {
			g->tid_off = off;
			g->tid_t = m->type;
			return;
		}
		off += m->type->sbits;
	}
}

/*
 * The size in bits (*@pb) of @cls's payload starting at byte-aligned @bit,
 * by its runs (tsdl.h: whole bytes and strings, so every run starts on a
 * byte). 0, or -EBADMSG when it runs past the content.
 */
static int skip_runs(const struct dctx *c, const struct tsdl_event_class *cls, uint64_t bit,
		     uint64_t *pb)
{
	uint64_t at = bit;

	for (uint32_t i = 0; i < cls->nskip; i++) {
		const unsigned char *p, *z;

		if (cls->skip[i] >= 0) {
			if ((uint64_t)cls->skip[i] > c->end - at)
				return -EBADMSG;
			at += (uint64_t)cls->skip[i];
			continue;
		}
		p = c->buf + at / 8;
		z = memchr(p, 0, (c->end - at) / 8);
		if (!z)
			return -EBADMSG;
		at = (uint64_t)(z - c->buf + 1) * 8;
	}
	*pb = at - bit;
	return 0;
}

static int decode_event(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	struct rd_gen *g = s->gen;
	const struct tsdl_stream_class *sc = s->sc;
	const struct tsdl_event_class *cls;
	const struct rd_named *tsn;
	uint64_t start = g->bit, id, ts = s->last_ts, tsv = 0;
	unsigned tsbits = 0;
	struct dctx c;
	uint32_t i;

	memset(&c, 0, sizeof(c));
	c.g = g;
	c.buf = s->buf;
	c.end = g->content_bits;
	c.bit = start;
	g->nnamed = 0;
	g->nvals = g->npkt;
	g->pool_len = g->pool_pkt;
	g->lazy = NULL;
	g->lazy_ctx = false;
	g->work = 0;
	if (!g->hdr.known)
		hdr_look(&g->hdr, sc->event_header);
	if (g->hdr.simple && !(c.bit & 7) && c.end - c.bit >= 48) {
		const unsigned char *p = c.buf + c.bit / 8;

		if (g->hdr.simple == 1) {
			id = read_uint(p, 2);
			tsv = le32(p + 2);
			tsbits = 32;
			c.bit += 48;
		} else {
			uint32_t w = le32(p);

			id = w & 31;
			tsv = w >> 5;
			tsbits = 27;
			c.bit += 32;
		}
		if (id == g->hdr.ext) {
			c.bit = start;	/* the extended form: read in full */
			if (hdr_fast(&c, &g->hdr, &id, &tsv, &tsbits))
				goto bad;
		}
	} else if (g->hdr.known > 0) {
		if (hdr_fast(&c, &g->hdr, &id, &tsv, &tsbits))
			goto bad;
	} else {
		if (dec_top(&c, sc->event_header, false))
			goto bad;
		id = named_u(g, "id", 0, NULL);
		tsn = find_named(g, "timestamp");
		if (tsn) {
			const struct tsdl_type *tt = tsn->t->kind == TK_ENUM_T ? tsn->t->elem : tsn->t;

			tsv = tsn->v;
			tsbits = tt->size;
		}
	}
	if (tsbits >= 64) {
		ts = tsv;
	} else if (tsbits) {
		uint64_t mask = (UINT64_C(1) << tsbits) - 1;

		ts = (s->last_ts & ~mask) | (tsv & mask);
		if ((tsv & mask) < (s->last_ts & mask))
			ts += mask + 1;
	}
	if (ts < s->last_ts)
		return rd_fail_at(r, s, s->pkt_off + start / 8, -EBADMSG,
				  "event timestamp %" PRIu64 " goes back (previous %" PRIu64 ")",
				  ts, s->last_ts);
	cls = id <= UINT32_MAX ? tsdl_stream_find_event(sc, (uint32_t)id) : NULL;
	if (!cls)
		return rd_fail_at(r, s, s->pkt_off + start / 8, -EBADMSG,
				  "unknown event id %" PRIu64, id);
	if (!g->ctx_known)
		ctx_look(g, sc->event_context);
	if (!(c.bit & 7) && cls->fixed_ctx_bits >= 0 &&
	    (cls->fixed_payload_bits >= 0 || (cls->nskip && !(cls->fixed_ctx_bits & 7)))) {
		/* contexts of fixed size, a payload of fixed size or of fixed
		 * members and strings: skipped now, decoded when asked for */
		uint64_t cb = (uint64_t)cls->fixed_ctx_bits, pb = (uint64_t)cls->fixed_payload_bits;

		if (cb > c.end - c.bit ||
		    (cls->fixed_payload_bits >= 0 ? pb > c.end - c.bit - cb :
		     skip_runs(&c, cls, c.bit + cb, &pb))) {
			c.why = "the event runs past the end of the packet content";
			c.err_bit = c.bit;
			goto bad;
		}
		if (g->tid_off >= 0 && g->tid_t->size == 32 && !g->tid_t->be)
			s->tid = le32(c.buf + (c.bit + (uint64_t)g->tid_off) / 8);	/* (bytes) */
		else if (g->tid_off >= 0)
			s->tid = (uint32_t)read_bits(c.buf, c.bit + (uint64_t)g->tid_off,
						     g->tid_t->size, g->tid_t->be);
		g->lazy = cls;
		g->lazy_ctx = true;
		g->lazy_ctx_bit = c.bit;
		g->lazy_bit = c.bit + cb;
		g->nctx = g->npkt;
		c.bit += cb + pb;
		g->bit = c.bit;
		s->ev.cls = cls;
		s->ev.ts = ts;
		s->ev.ns = clock_ns(s->trace, ts);
		s->ev.pos = (size_t)(start / 8);
		s->last_ts = ts;
		s->nevents++;
		return 1;
	}
	if (dec_top(&c, sc->event_context, true) || dec_top(&c, cls->context, true))
		goto bad;
	g->nctx = g->nvals;
	if (cls->payload && cls->payload->sbits >= 0 && !(c.bit & 7)) {
		/* of fixed size: skipped now, decoded when asked for */
		if ((uint64_t)cls->payload->sbits > c.end - c.bit) {
			c.why = "the payload runs past the end of the packet content";
			c.err_bit = c.bit;
			goto bad;
		}
		g->lazy = cls;
		g->lazy_bit = c.bit;
		c.bit += (uint64_t)cls->payload->sbits;
	} else if (cls->payload && !(c.bit & 7)) {
		/* of variable size: walked for its end only (strings, the lengths
		 * of sequences and the tags of variants read, no value made),
		 * decoded when asked for */
		uint32_t named = g->nnamed;

		g->lazy_bit = c.bit;
		if (dec_top(&c, cls->payload, false))
			goto bad;
		g->nnamed = named;	/* (the decoding reads them again) */
		g->lazy = cls;
	} else if (dec_top(&c, cls->payload, true)) {
		goto bad;
	}
	if (c.bit == start)
		return rd_fail_at(r, s, s->pkt_off + start / 8, -EBADMSG,
				  "event %s takes no room in the packet", cls->name);
	fix_pool(g, 0);
	/* the thread: the vtid (or tid) context field (its place is kept) */
	i = (uint32_t)g->tid_idx;
	if (g->tid_idx == -2 || (g->tid_idx >= 0 && (i >= g->nctx || g->vals[i].name != g->tid_name))) {
		g->tid_idx = -1;
		for (i = 0; i < g->nctx; i++) {
			const struct rd_gval *gv = &g->vals[i];

			if (gv->v.kind == SHMTRACE_RD_INT &&
			    (!strcmp(gv->name, "vtid") || !strcmp(gv->name, "tid"))) {
				g->tid_idx = (int32_t)i;
				g->tid_name = gv->name;
				break;
			}
		}
	}
	if (g->tid_idx >= 0)
		s->tid = (uint32_t)g->vals[g->tid_idx].v.u;
	g->bit = c.bit;
	s->ev.cls = cls;
	s->ev.ts = ts;
	s->ev.ns = clock_ns(s->trace, ts);
	s->ev.pos = (size_t)(start / 8);
	s->last_ts = ts;
	s->nevents++;
	return 1;
bad:
	return rd_fail_at(r, s, s->pkt_off + c.err_bit / 8, -EBADMSG, "event at offset %" PRIu64 ": %s",
			  s->pkt_off + start / 8, c.why ? c.why : "cannot be read");
}

int rd_ctf_advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	int rc;

	while (!s->have_packet || s->gen->bit >= s->gen->content_bits) {
		if (s->next_off >= s->file_size) {
			if (s->tail_error)
				return rd_add_damage(r, s, s->path, (int64_t)s->tail_off,
						     s->tail_error, s->tail_msg);
			return 0;
		}
		rc = load_packet(r, s);
		if (rc)
			return rc;
	}
	return decode_event(r, s);
}

void rd_ctf_free(struct rd_gen *g)
{
	if (!g)
		return;
	free(g->vals);
	free(g->pool);
	free(g->named);
	free(g);
}
