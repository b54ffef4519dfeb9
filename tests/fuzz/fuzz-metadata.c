/* SPDX-License-Identifier: MIT */
/*
 * fuzz-metadata.c - fuzz target for the TSDL (CTF 1.8 metadata) parser
 * (libreader/tsdl*.c) and for the reader's use of what it returns.
 *
 * Each input is metadata text:
 *  1. tsdl_parse() reads an exact-size copy (no NUL terminator, so that
 *     sanitizers see any read past the end). It must either fail with
 *     -EINVAL and a "metadata:LINE: what" message, or return a description
 *     whose invariants hold: event classes sorted by unique id, the dense
 *     table agreeing with the binary search, fields of valid kinds, sizes
 *     and bases, sequences counted by a preceding integer field, env keys
 *     unique, max_fields exact; stream classes sorted by unique id, each
 *     with integer context fields at consecutive offsets, its events one
 *     slice of the event classes (sorted by stream class, then id) and a
 *     dense table agreeing with its binary search.
 *  2. When it parsed, the text becomes the metadata file of a trace in a
 *     temporary directory (made once per process), next to one stream file
 *     per stream class (the first FM_MAX_STREAMS; the others of those files
 *     are empty) made here from the description: a packet with one event of
 *     every class of the stream class (compact and extended headers,
 *     timestamps picked by a hash of the input) whose context and payload
 *     fields all hold known values, then an empty packet that skips a
 *     sequence number. shmtrace_rd_open() must accept the
 *     trace exactly when the reader's own checks of the text pass (the
 *     "CTF 1.8" signature comment first, no NUL byte), and
 *     shmtrace_rd_next() must return exactly those events, with those
 *     values, at those offsets, in non-decreasing time; the clock
 *     conversion must be monotonic. A stream whose timestamps do not
 *     convert to an int64_t of ns since the Epoch (rare: most start low
 *     instead) is damaged at its first packet: no event of it, the others
 *     read to their end, then shmtrace_rd_next() fails naming the clock's
 *     range. One input in 16 that does not parse goes through
 *     shmtrace_rd_open() too: the trace is damage, no trace is opened, and
 *     the first shmtrace_rd_next() fails with a message that names the
 *     metadata file (or shmtrace_rd_open() fails, with such a message).
 *
 * Metadata that parses in the general form (LTTng's, tsdl.h) is read back
 * on stream files of pseudo-random bytes instead (fm_read_back_general()):
 * the general decoder must survive them.
 *
 * A broken invariant aborts, which both libFuzzer and driver.c report.
 * Under `make check` the target is linked with driver.c, whose seed corpus
 * here is tests/fuzz/corpus-metadata (whose real traces' metadata parse
 * in full; the driver's mutations of text rarely do, libFuzzer's often).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "fuzz.h"
#include "tsdl.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-metadata: %s:%d: %s\n", __FILE__,		\
			__LINE__, #cond);					\
		abort();							\
	}									\
} while (0)

#define FM_MAX_CLASSES	512		/* events written per stream */
#define FM_MAX_ARRAY	4096		/* bytes of a fixed array field */
#define FM_MAX_STREAM	(1 << 20)	/* bytes of events per stream */
#define FM_MAX_STREAMS	4		/* stream files (and classes) written */
#define FM_TID		4242u		/* plus the stream's number */
#define FM_INSTANCE	7u		/* plus the stream's number */
#define FM_DISCARDED	5u

static char fm_dir[256], fm_meta[300], fm_stream[FM_MAX_STREAMS][300];

static void fm_cleanup(void)
{
	unlink(fm_meta);
	for (int i = 0; i < FM_MAX_STREAMS; i++)
		unlink(fm_stream[i]);
	rmdir(fm_dir);
}

static void fm_init(void)
{
	const char *tmp = getenv("TMPDIR");

	if (fm_dir[0])
		return;
	if (!tmp || !*tmp || strlen(tmp) > 200)
		tmp = "/tmp";
	snprintf(fm_dir, sizeof(fm_dir), "%s/fuzz-metadata.XXXXXX", tmp);
	CHECK(mkdtemp(fm_dir) != NULL);
	snprintf(fm_meta, sizeof(fm_meta), "%s/metadata", fm_dir);
	for (int i = 0; i < FM_MAX_STREAMS; i++)
		snprintf(fm_stream[i], sizeof(fm_stream[i]), "%s/chan_%d", fm_dir, i);
	atexit(fm_cleanup);
}

/*
 * Rewrite a file, cut to its new size after writing: much faster than
 * O_TRUNC on file systems that flush data truncated to 0 at close.
 */
static void fm_write_file(const char *path, const void *data, size_t len)
{
	const unsigned char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	size_t left = len;

	CHECK(fd >= 0);
	while (left) {
		ssize_t n = write(fd, p, left);

		CHECK(n > 0);
		p += n;
		left -= (size_t)n;
	}
	CHECK(ftruncate(fd, (off_t)len) == 0);
	CHECK(close(fd) == 0);
}

/* ---- invariants of a parsed description ---------------------------------- */

static bool fm_int_bytes(unsigned b)
{
	return b == 1 || b == 2 || b == 4 || b == 8;
}

static void fm_check_field(const struct tsdl_event_class *c, uint32_t j)
{
	const struct tsdl_field *f = &c->fields[j];

	CHECK(f->name && f->decl_name);
	CHECK(f->name == f->decl_name || (f->decl_name[0] == '_' && f->name == f->decl_name + 1));
	CHECK(f->name[0] != '\0');
	switch (f->kind) {
	case TSDL_F_INT:
		CHECK(fm_int_bytes(f->bytes));
		CHECK(f->base == 2 || f->base == 8 || f->base == 10 || f->base == 16);
		break;
	case TSDL_F_FLOAT:
		CHECK(f->bytes == 4 || f->bytes == 8);
		break;
	case TSDL_F_STRING:
		break;
	case TSDL_F_SEQUENCE:
		CHECK(fm_int_bytes(f->bytes));
		CHECK(f->len_field < j);
		CHECK(c->fields[f->len_field].kind == TSDL_F_INT);
		break;
	case TSDL_F_ARRAY:
		CHECK(fm_int_bytes(f->bytes));
		CHECK(f->length <= 1U << 20);
		break;
	default:
		CHECK(!"unknown field kind");
	}
}

static void fm_check_stream_class(const struct tsdl_metadata *m, uint32_t k)
{
	const struct tsdl_stream_class *sc = &m->streams[k];
	uint32_t i, off = 0;

	if (k)
		CHECK(sc->id > m->streams[k - 1].id);
	CHECK(tsdl_find_stream(m, sc->id) == sc);
	CHECK(sc->nctx == 0 || sc->ctx != NULL);
	for (i = 0; i < sc->nctx; i++) {
		const struct tsdl_field *f = &sc->ctx[i];

		CHECK(f->kind == TSDL_F_INT && fm_int_bytes(f->bytes));
		CHECK(f->name && f->name[0] != '\0');
		CHECK(f->name == f->decl_name ||
		      (f->decl_name[0] == '_' && f->name == f->decl_name + 1));
		CHECK(f->offset == off);
		off += f->bytes;
	}
	CHECK(sc->ctx_bytes == off);
	CHECK(sc->events >= m->events && sc->events + sc->nevents <= m->events + m->nevents);
	for (i = 0; i < sc->nevents; i++) {
		CHECK(sc->events[i].stream == sc);
		CHECK(tsdl_stream_find_event(sc, sc->events[i].id) == &sc->events[i]);
		CHECK(tsdl_stream_find_event_slow(sc, sc->events[i].id) == &sc->events[i]);
	}
	CHECK(sc->ndense <= 65536);
	for (i = 0; i < sc->ndense; i++)
		CHECK(sc->dense[i] == tsdl_stream_find_event_slow(sc, i));
	/* ids no class has */
	for (i = 0; i < 4; i++) {
		static const uint32_t ids[] = { 255, 65535, 65536, UINT32_MAX };
		const struct tsdl_event_class *c = tsdl_stream_find_event(sc, ids[i]);

		CHECK(!c || (c->id == ids[i] && c->stream == sc));
	}
}

static void fm_check_meta(const struct tsdl_metadata *m)
{
	uint32_t i, j, maxf = 0, nev = 0;

	CHECK(m->major == 1);
	CHECK(m->clock.name != NULL);
	CHECK(m->clock.freq > 0);
	if (m->has_uuid)
		CHECK(strlen(m->uuid_str) == 36);
	for (i = 0; i < m->nenv; i++) {
		const struct tsdl_env_entry *e = &m->env[i];

		CHECK(e->key != NULL);
		CHECK(e->is_int || e->sval != NULL);
		for (j = 0; j < i; j++)
			CHECK(strcmp(e->key, m->env[j].key) != 0);
		if (!strcmp(e->key, "procname") && !e->is_int)
			CHECK(m->procname == e->sval);
		if (!strcmp(e->key, "vpid") && e->is_int)
			CHECK(m->has_vpid && m->vpid == e->ival);
	}
	CHECK(m->nstreams >= 1 && m->nstreams <= TSDL_MAX_STREAMS);
	for (i = 0; i < m->nstreams; i++) {
		fm_check_stream_class(m, i);
		nev += m->streams[i].nevents;
	}
	CHECK(nev == m->nevents);
	for (i = 0; i < m->nevents; i++) {
		const struct tsdl_event_class *c = &m->events[i];

		CHECK(c->name != NULL);
		CHECK(c->index == i);
		CHECK(c->stream >= m->streams && c->stream < m->streams + m->nstreams);
		if (i) {
			const struct tsdl_event_class *p = &m->events[i - 1];

			CHECK(c->stream->id > p->stream->id ||
			      (c->stream == p->stream && c->id > p->id));
		}
		CHECK(c->nfields == 0 || c->fields != NULL);
		for (j = 0; j < c->nfields; j++)
			fm_check_field(c, j);
		if (c->nfields > maxf)
			maxf = c->nfields;
		if (c->stream == m->streams)
			CHECK(tsdl_find_event(m, c->id) == c);
	}
	CHECK(m->max_fields == maxf);
}

/* ---- a stream made from a description ------------------------------------ */

struct fm_buf {
	unsigned char *p;
	size_t len, cap;
};

static void fm_put(struct fm_buf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		CHECK(b->p != NULL);
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void fm_put_le(struct fm_buf *b, uint64_t v, unsigned bytes)
{
	unsigned char x[8];

	for (unsigned i = 0; i < bytes; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	fm_put(b, x, bytes);
}

static void fm_set_le(struct fm_buf *b, size_t off, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		b->p[off + i] = (unsigned char)(v >> (8 * i));
}

/* One written event: what the reader must give back. */
struct fm_event {
	const struct tsdl_event_class *cls;
	size_t k;		/* its rank, which the field values derive from */
	uint64_t off;		/* header offset in the file */
	uint64_t ts;
};

static bool fm_is_len_field(const struct tsdl_event_class *c, uint32_t j)
{
	for (uint32_t i = j + 1; i < c->nfields; i++)
		if (c->fields[i].kind == TSDL_F_SEQUENCE && c->fields[i].len_field == j)
			return true;
	return false;
}

static uint64_t fm_mask(uint64_t v, unsigned bytes)
{
	return bytes >= 8 ? v : v & ((UINT64_C(1) << (8 * bytes)) - 1);
}

/* Value number n of an integer of @bytes bytes. */
static uint64_t fm_pattern(unsigned bytes, size_t n)
{
	switch (n % 6) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return fm_mask(UINT64_MAX, bytes);
	case 3:
		return UINT64_C(1) << (8 * bytes - 1);
	case 4:
		return fm_mask(UINT64_C(0x0123456789abcdef), bytes);
	default:
		return 0x80;
	}
}

/* The value of integer field j of event k; lengths stay small. */
static uint64_t fm_int_value(const struct tsdl_event_class *c, size_t k, uint32_t j)
{
	if (fm_is_len_field(c, j))
		return (k + j) % 4;
	return fm_pattern(c->fields[j].bytes, k + j);
}

/* The value of context field j of event k. */
static uint64_t fm_ctx_value(const struct tsdl_event_class *c, size_t k, uint32_t j)
{
	return fm_pattern(c->stream->ctx[j].bytes, k + j + 2);
}

static double fm_float_value(size_t k, uint32_t j)
{
	return (double)k + 0.25 * j - 3;
}

static uint32_t fm_count(const struct tsdl_event_class *c, size_t k, uint32_t j)
{
	const struct tsdl_field *f = &c->fields[j];

	if (f->kind == TSDL_F_ARRAY)
		return f->length;
	return (uint32_t)fm_int_value(c, k, f->len_field);
}

static unsigned char fm_elem_byte(size_t k, uint32_t j, size_t i)
{
	return (unsigned char)(k * 13 + j * 7 + i);
}

static void fm_string_value(char *s, size_t n, size_t k, uint32_t j)
{
	snprintf(s, n, "s%zu.%u", k, (unsigned)j);
}

/* Whether the fixed arrays of class c are small enough to be written. */
static bool fm_fits(const struct tsdl_event_class *c)
{
	for (uint32_t j = 0; j < c->nfields; j++)
		if (c->fields[j].kind == TSDL_F_ARRAY &&
		    (uint64_t)c->fields[j].length * c->fields[j].bytes > FM_MAX_ARRAY)
			return false;
	return true;
}

static void fm_put_payload(struct fm_buf *b, const struct tsdl_event_class *c, size_t k)
{
	char s[48];

	for (uint32_t j = 0; j < c->nfields; j++) {
		const struct tsdl_field *f = &c->fields[j];
		uint64_t x;
		uint32_t fx;
		double d;
		float fl;
		size_t n;

		switch (f->kind) {
		case TSDL_F_INT:
			fm_put_le(b, fm_int_value(c, k, j), f->bytes);
			break;
		case TSDL_F_FLOAT:
			d = fm_float_value(k, j);
			if (f->bytes == 8) {
				memcpy(&x, &d, 8);
				fm_put_le(b, x, 8);
			} else {
				fl = (float)d;
				memcpy(&fx, &fl, 4);
				fm_put_le(b, fx, 4);
			}
			break;
		case TSDL_F_STRING:
			fm_string_value(s, sizeof(s), k, j);
			fm_put(b, s, strlen(s) + 1);
			break;
		case TSDL_F_SEQUENCE:
		case TSDL_F_ARRAY:
			n = (size_t)fm_count(c, k, j) * f->bytes;
			for (size_t i = 0; i < n; i++) {
				unsigned char e = fm_elem_byte(k, j, i);

				fm_put(b, &e, 1);
			}
			break;
		}
	}
}

static uint64_t fm_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/* A packet of stream class @sc in stream file @i. */
static void fm_put_header(struct fm_buf *b, const struct tsdl_metadata *m,
			  const struct tsdl_stream_class *sc, unsigned i, uint64_t tsb,
			  uint64_t seq)
{
	static const uint8_t zero[16];

	fm_put_le(b, TSDL_PACKET_MAGIC, 4);
	fm_put(b, m->has_uuid ? m->uuid : zero, 16);
	fm_put_le(b, sc->id, 4);
	fm_put_le(b, FM_INSTANCE + i, 8);
	fm_put_le(b, tsb, 8);
	fm_put_le(b, tsb, 8);		/* timestamp_end, set later */
	fm_put_le(b, 0, 8);		/* content_size, set later */
	fm_put_le(b, 0, 8);		/* packet_size, set later */
	fm_put_le(b, seq, 8);
	fm_put_le(b, FM_DISCARDED * (seq + 1), 8);
	fm_put_le(b, FM_TID + i, 4);
}

static void fm_end_packet(struct fm_buf *b, size_t start, uint64_t tse)
{
	uint64_t bits = (uint64_t)(b->len - start) * 8;

	fm_set_le(b, start + 40, tse, 8);
	fm_set_le(b, start + 48, bits, 8);
	fm_set_le(b, start + 56, bits, 8);
}

/* Does clock value @v convert to ns since the Epoch (as the reader checks)? */
static bool fm_in_range(const struct tsdl_metadata *m, uint64_t v)
{
	uint64_t ns = tsdl_cycles_to_ns(m->clock.freq, v);
	int64_t r;

	return ns < INT64_MAX && !__builtin_add_overflow(m->clock.base_ns, (int64_t)ns, &r);
}

/*
 * Write stream file @i, of stream class @sc; returns the number of events
 * in *ev. *@in_range tells whether its timestamps convert to times: most
 * streams whose would not start at 1000 instead, the others must make the
 * reader fail.
 */
static size_t fm_make_stream(struct fm_buf *b, const struct tsdl_metadata *m,
			     const struct tsdl_stream_class *sc, unsigned i,
			     uint64_t h, struct fm_event *ev, bool *in_range)
{
	static const uint64_t begins[] = {
		0, 1000, 0xfffff0, (UINT64_C(1) << 32) - 3, UINT64_C(1) << 62,
		UINT64_MAX - (UINT64_C(1) << 30),
	};
	static const uint64_t steps[] = { 0, 1, 3, 0x10000, 0xfffff, 0xffffff };
	uint64_t ts = begins[h % 6], step = steps[(h >> 8) % 6];
	uint64_t last = ts + step * (uint64_t)FM_MAX_CLASSES;
	size_t n = 0, k;

	if ((last < ts || !fm_in_range(m, last)) && (h >> 24) % 8)
		ts = 1000;
	b->len = 0;
	fm_put_header(b, m, sc, i, ts, 0);
	for (k = 0; k < sc->nevents && n < FM_MAX_CLASSES; k++) {
		const struct tsdl_event_class *c = &sc->events[k];

		if (!fm_fits(c))
			continue;
		if (b->len > FM_MAX_STREAM)
			break;
		if (n)
			ts += step;
		ev[n].cls = c;
		ev[n].k = c->index;
		ev[n].off = b->len;
		ev[n].ts = ts;
		if (c->id <= 254 && (k + (h >> 16)) % 3 != 0) {
			fm_put_le(b, c->id | (ts & 0xffffff) << 8, 4);
		} else {
			fm_put_le(b, 255, 1);
			fm_put_le(b, c->id, 4);
			fm_put_le(b, ts, 8);
		}
		for (uint32_t j = 0; j < sc->nctx; j++)
			fm_put_le(b, fm_ctx_value(c, c->index, j), sc->ctx[j].bytes);
		fm_put_payload(b, c, c->index);
		n++;
	}
	fm_end_packet(b, 0, ts);
	/* an empty packet; one sequence number lost */
	k = b->len;
	fm_put_header(b, m, sc, i, ts, 2);
	fm_end_packet(b, k, ts);
	*in_range = fm_in_range(m, ts);
	return n;
}

/* ---- reading it back -------------------------------------------------------- */

/* An integer field @f read as *v, written as @u. */
static void fm_check_int(const struct shmtrace_rd_value *v, const struct tsdl_field *f,
			 uint64_t u)
{
	unsigned sh = 64 - 8 * f->bytes;

	CHECK(v->kind == SHMTRACE_RD_INT && v->bytes == f->bytes);
	CHECK(v->is_signed == f->is_signed && v->base == f->base);
	if (f->is_signed)
		CHECK(v->s == (sh ? (int64_t)(u << sh) >> sh : (int64_t)u));
	else
		CHECK(v->u == u);
}

static void fm_check_value(const struct shmtrace_rd_event *e, const struct fm_event *x,
			   uint32_t j)
{
	const struct tsdl_event_class *c = x->cls;
	const struct tsdl_field *f = &c->fields[j];
	struct shmtrace_rd_value v;
	char s[48];
	uint32_t n;

	memset(&v, 0, sizeof(v));
	CHECK(shmtrace_rd_event_field(e, j, &v) == 0);
	CHECK(!strcmp(shmtrace_rd_event_field_name(e, j), f->name));
	CHECK(v.bytes == f->bytes || f->kind == TSDL_F_STRING);
	switch (f->kind) {
	case TSDL_F_INT:
		fm_check_int(&v, f, fm_int_value(c, x->k, j));
		break;
	case TSDL_F_FLOAT:
		CHECK(v.kind == SHMTRACE_RD_FLOAT);
		if (f->bytes == 8)
			CHECK(v.d == fm_float_value(x->k, j));
		else
			CHECK(v.d == (double)(float)fm_float_value(x->k, j));
		break;
	case TSDL_F_STRING:
		CHECK(v.kind == SHMTRACE_RD_STRING);
		fm_string_value(s, sizeof(s), x->k, j);
		CHECK(v.len == strlen(s) && !strcmp(v.str, s));
		break;
	case TSDL_F_SEQUENCE:
	case TSDL_F_ARRAY:
		CHECK(v.kind == (f->kind == TSDL_F_ARRAY ? SHMTRACE_RD_ARRAY : SHMTRACE_RD_SEQUENCE));
		n = fm_count(c, x->k, j);
		CHECK(v.count == n);
		for (size_t i = 0; i < (size_t)n * f->bytes; i++)
			CHECK(((const unsigned char *)v.data)[i] == fm_elem_byte(x->k, j, i));
		for (uint32_t i = 0; i < n; i++) {
			uint64_t u = shmtrace_rd_value_elem_u(&v, i);

			CHECK((uint8_t)u == fm_elem_byte(x->k, j, (size_t)i * f->bytes));
			if (v.is_signed)
				shmtrace_rd_value_elem_s(&v, i);
		}
		break;
	}
}

static void fm_check_context(const struct shmtrace_rd_event *e, const struct fm_event *x)
{
	const struct tsdl_stream_class *sc = x->cls->stream;
	struct shmtrace_rd_value v;
	int idx;

	CHECK(shmtrace_rd_event_context_count(e) == sc->nctx);
	CHECK(shmtrace_rd_event_context_name(e, sc->nctx) == NULL);
	CHECK(shmtrace_rd_event_context(e, sc->nctx, &v) == -EINVAL);
	for (uint32_t j = 0; j < sc->nctx; j++) {
		memset(&v, 0, sizeof(v));
		CHECK(shmtrace_rd_event_context(e, j, &v) == 0);
		fm_check_int(&v, &sc->ctx[j], fm_ctx_value(x->cls, x->k, j));
		CHECK(!strcmp(shmtrace_rd_event_context_name(e, j), sc->ctx[j].name));
		idx = shmtrace_rd_event_context_index(e, sc->ctx[j].name);
		CHECK(idx >= 0 && (uint32_t)idx <= j);
		CHECK(!strcmp(sc->ctx[idx].name, sc->ctx[j].name));
	}
}

/* Event x of stream file @i. */
static void fm_check_event(const struct shmtrace_rd_event *e, const struct fm_event *x,
			   unsigned i)
{
	const struct tsdl_event_class *c = x->cls;
	int64_t level = 0;
	int idx;

	CHECK(shmtrace_rd_event_id(e) == c->id);
	CHECK(!strcmp(shmtrace_rd_event_name(e), c->name));
	CHECK(shmtrace_rd_event_class_index(e) == c->index);
	CHECK(shmtrace_rd_event_clock(e) == x->ts);
	CHECK(shmtrace_rd_event_offset(e) == x->off);
	CHECK(shmtrace_rd_event_tid(e) == FM_TID + i);
	CHECK(shmtrace_rd_event_loglevel(e, &level) == c->has_loglevel);
	if (c->has_loglevel)
		CHECK(level == c->loglevel);
	CHECK(shmtrace_rd_event_field_count(e) == c->nfields);
	CHECK(shmtrace_rd_event_field_name(e, c->nfields) == NULL);
	for (uint32_t j = 0; j < c->nfields; j++) {
		fm_check_value(e, x, j);
		idx = shmtrace_rd_event_field_index(e, c->fields[j].name);
		CHECK(idx >= 0 && (uint32_t)idx <= j);
		CHECK(!strcmp(c->fields[idx].name, c->fields[j].name));
	}
	fm_check_context(e, x);
}

static void fm_check_trace(const struct shmtrace_rd_reader *r, const struct tsdl_metadata *m)
{
	const struct shmtrace_rd_trace *t;
	const char *sval;
	int64_t ival;

	CHECK(shmtrace_rd_trace_count(r) == 1);
	CHECK(shmtrace_rd_stream_count(r) == FM_MAX_STREAMS);
	t = shmtrace_rd_trace_at(r, 0);
	CHECK(shmtrace_rd_trace_at(r, 1) == NULL);
	CHECK(!strcmp(shmtrace_rd_trace_path(t), fm_dir));
	CHECK(!strcmp(shmtrace_rd_trace_procname(t), m->procname ? m->procname : ""));
	CHECK(!strcmp(shmtrace_rd_trace_hostname(t), m->hostname ? m->hostname : ""));
	CHECK(shmtrace_rd_trace_vpid(t) == (m->has_vpid ? m->vpid : -1));
	CHECK(!strcmp(shmtrace_rd_trace_uuid(t), m->has_uuid ? m->uuid_str : ""));
	CHECK(!strcmp(shmtrace_rd_trace_clock_name(t), m->clock.name));
	CHECK(shmtrace_rd_trace_clock_freq(t) == m->clock.freq);
	CHECK(shmtrace_rd_trace_event_class_count(t) == m->nevents);
	for (uint32_t i = 0; i < m->nevents; i++)
		CHECK(!strcmp(shmtrace_rd_trace_event_class_name(t, i), m->events[i].name));
	CHECK(shmtrace_rd_trace_event_class_name(t, m->nevents) == NULL);
	for (uint32_t i = 0; i < m->nenv; i++) {
		sval = NULL;
		ival = 0;
		CHECK(shmtrace_rd_trace_env(t, m->env[i].key, &sval, &ival) == 1);
		if (m->env[i].is_int)
			CHECK(ival == m->env[i].ival);
		else
			CHECK(sval && !strcmp(sval, m->env[i].sval));
	}
	/* the clock conversion is monotonic */
	CHECK(shmtrace_rd_trace_clock_to_ns(t, 0) <= shmtrace_rd_trace_clock_to_ns(t, 1));
	CHECK(shmtrace_rd_trace_clock_to_ns(t, UINT64_MAX / 2) <=
	      shmtrace_rd_trace_clock_to_ns(t, UINT64_MAX));
}

/* Stream file @i: its events were written, or it was left empty. */
static void fm_check_stream(const struct shmtrace_rd_reader *r, const struct tsdl_metadata *m,
			    unsigned i, size_t nev)
{
	const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);

	CHECK(!strcmp(shmtrace_rd_stream_path(s), fm_stream[i]));
	CHECK(shmtrace_rd_stream_event_count(s) == nev);
	if (i >= m->nstreams)
		return;
	CHECK(shmtrace_rd_stream_lost_packets(s) == 1);
	CHECK(shmtrace_rd_stream_discarded(s) == 3 * FM_DISCARDED);
	CHECK(shmtrace_rd_stream_packet_seq(s) == 2);
	CHECK(shmtrace_rd_stream_instance_id(s) == FM_INSTANCE + i);
	CHECK(shmtrace_rd_stream_tid(s) == FM_TID + i);
}

static void fm_read_back(const uint8_t *data, size_t size, const struct tsdl_metadata *m)
{
	static struct fm_buf b;
	static struct fm_event ev[FM_MAX_STREAMS][FM_MAX_CLASSES];
	const char *paths[1] = { fm_dir };
	char err[SHMTRACE_RD_ERRLEN];
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *e;
	size_t n[FM_MAX_STREAMS] = { 0 }, nev[FM_MAX_STREAMS] = { 0 };
	uint64_t h = fm_hash(data, size);
	int64_t last_ns = INT64_MIN;
	bool sig_ok, in_range = true, ok[FM_MAX_STREAMS];
	unsigned i;
	size_t d;
	int rc;

	sig_ok = tsdl_signature_ok((const char *)data, size) && !memchr(data, 0, size);
	fm_write_file(fm_meta, data, size);
	for (i = 0; i < FM_MAX_STREAMS; i++) {
		b.len = 0;
		ok[i] = true;
		if (m && i < m->nstreams) {
			nev[i] = fm_make_stream(&b, m, &m->streams[i], i, h >> i, ev[i], &ok[i]);
			in_range = in_range && ok[i];
			if (!ok[i])
				nev[i] = 0;	/* damaged at its first packet */
		}
		fm_write_file(fm_stream[i], b.p ? b.p : (const unsigned char *)"", b.len);
	}

	rc = shmtrace_rd_open(&r, paths, 1, err, sizeof(err));
	if (!m || !sig_ok) {
		/* damaged metadata: refused, or opened as damage alone */
		if (rc < 0) {
			CHECK(r == NULL);
			CHECK(!strncmp(err, fm_meta, strlen(fm_meta)));
			return;
		}
		CHECK(shmtrace_rd_trace_count(r) == 0 && shmtrace_rd_stream_count(r) == 0);
		rc = shmtrace_rd_next(r, &e);
		CHECK(rc < 0 && rc != -ENOMEM && shmtrace_rd_damage_count(r) == 1);
		CHECK(!strncmp(shmtrace_rd_errmsg(r), fm_meta, strlen(fm_meta)));
		CHECK(!strcmp(shmtrace_rd_damage_path(r, 0), fm_meta));
		CHECK(shmtrace_rd_damage_offset(r, 0) == -1);
		CHECK(shmtrace_rd_damage_stream(r, 0) == NULL);
		CHECK(shmtrace_rd_next(r, &e) == rc);
		shmtrace_rd_close(r);
		return;
	}
	if (rc) {
		fprintf(stderr, "fuzz-metadata: shmtrace_rd_open: %s\n", err);
		CHECK(rc == 0);
	}
	fm_check_trace(r, m);
	while ((rc = shmtrace_rd_next(r, &e)) > 0) {
		for (i = 0; shmtrace_rd_event_stream(e) != shmtrace_rd_stream_at(r, i); i++)
			CHECK(i + 1 < FM_MAX_STREAMS);
		CHECK(n[i] < nev[i]);
		fm_check_event(e, &ev[i][n[i]], i);
		CHECK(shmtrace_rd_event_time_ns(e) >= last_ns);
		last_ns = shmtrace_rd_event_time_ns(e);
		n[i]++;
	}
	if (in_range && rc) {
		fprintf(stderr, "fuzz-metadata: shmtrace_rd_next: %s\n", shmtrace_rd_errmsg(r));
		CHECK(rc == 0);
	}
	/* a first packet's timestamp_end out of range: that stream only */
	CHECK(in_range || rc == -EBADMSG);
	for (i = 0, d = 0; i < FM_MAX_STREAMS; i++) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);

		CHECK(n[i] == nev[i]);
		if (ok[i]) {
			CHECK(shmtrace_rd_stream_error(s) == 0);
			fm_check_stream(r, m, i, nev[i]);
			continue;
		}
		CHECK(shmtrace_rd_stream_error(s) == -EBADMSG);
		CHECK(d < shmtrace_rd_damage_count(r) && shmtrace_rd_damage_stream(r, d) == s);
		CHECK(!strcmp(shmtrace_rd_damage_path(r, d), fm_stream[i]));
		CHECK(strstr(shmtrace_rd_damage_message(r, d), "is out of the clock's range"));
		d++;
	}
	CHECK(d == shmtrace_rd_damage_count(r));
	/* the end is sticky */
	CHECK(shmtrace_rd_next(r, &e) == rc);
	shmtrace_rd_close(r);
}

/*
 * Metadata in the general form (not shmtrace's fixed layout: LTTng's): its
 * classes keep their type trees and no flat fields. Each stream file holds
 * bytes of a generator seeded by the input (a packet header with the
 * first stream class's magic and uuid first when the input's hash says
 * so): the general decoder must read them without a crash, in bounded
 * memory, every event's values answering their accessors, in
 * non-decreasing time, to the end or to damage.
 */
static void fm_read_back_general(const uint8_t *data, size_t size, const struct tsdl_metadata *m)
{
	static unsigned char bytes[8192];
	const char *paths[1] = { fm_dir };
	char err[SHMTRACE_RD_ERRLEN];
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *e;
	uint64_t h = fm_hash(data, size);
	int64_t last_ns = INT64_MIN;
	unsigned i, j;
	int rc;

	CHECK(m->general);
	for (i = 0; i < m->nevents; i++)
		CHECK(m->events[i].nfields == 0);
	fm_write_file(fm_meta, data, size);
	for (i = 0; i < FM_MAX_STREAMS; i++) {
		size_t n = (size_t)((h >> (8 * i)) % sizeof(bytes));
		uint64_t x = h ^ (i + 1);

		for (size_t k = 0; k < n; k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			/* mostly small bytes, so that sizes and lengths are often sane */
			bytes[k] = (unsigned char)((x >> 33) % ((x >> 60) < 12 ? 4 : 256));
		}
		if (n >= 20 && (h >> (20 + i)) & 1) {
			uint32_t magic = TSDL_PACKET_MAGIC;

			memcpy(bytes, &magic, 4);
			memcpy(bytes + 4, m->uuid, 16);
		}
		fm_write_file(fm_stream[i], bytes, n);
	}
	rc = shmtrace_rd_open(&r, paths, 1, err, sizeof(err));
	if (rc < 0) {
		CHECK(r == NULL);
		return;
	}
	while ((rc = shmtrace_rd_next(r, &e)) > 0) {
		struct shmtrace_rd_value v;
		unsigned nf = shmtrace_rd_event_field_count(e), nc = shmtrace_rd_event_context_count(e);

		CHECK(shmtrace_rd_event_time_ns(e) >= last_ns);
		last_ns = shmtrace_rd_event_time_ns(e);
		CHECK(shmtrace_rd_event_name(e) != NULL);
		for (j = 0; j < nf; j++) {
			const char *fn = shmtrace_rd_event_field_name(e, j);

			CHECK(fn != NULL && shmtrace_rd_event_field(e, j, &v) == 0);
			CHECK(shmtrace_rd_event_field_index(e, fn) >= 0);
			if (v.kind == SHMTRACE_RD_STRING)
				CHECK(strlen(v.str) == v.len);
			if ((v.kind == SHMTRACE_RD_ARRAY || v.kind == SHMTRACE_RD_SEQUENCE) && v.count)
				shmtrace_rd_value_elem_s(&v, v.count - 1);
		}
		CHECK(shmtrace_rd_event_field(e, nf, &v) == -EINVAL);
		for (j = 0; j < nc; j++) {
			CHECK(shmtrace_rd_event_context_name(e, j) != NULL);
			CHECK(shmtrace_rd_event_context(e, j, &v) == 0);
			if (v.kind == SHMTRACE_RD_STRING)
				CHECK(strlen(v.str) == v.len);
		}
		CHECK(shmtrace_rd_event_context(e, nc, &v) == -EINVAL);
	}
	CHECK(rc <= 0 && (rc == 0 || shmtrace_rd_damage_count(r) > 0 || rc == -ENOMEM));
	CHECK(shmtrace_rd_next(r, &e) == rc);
	shmtrace_rd_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tsdl_metadata *m = NULL;
	char err[512];
	char *text;
	int rc;

	fm_init();
	/* an exact-size copy, so that sanitizers see the text's real end */
	text = malloc(size ? size : 1);
	CHECK(text != NULL);
	memcpy(text, data, size);
	err[0] = 'x';
	rc = tsdl_parse(text, size, "metadata", &m, err, sizeof(err));
	free(text);
	if (rc) {
		CHECK(rc == -EINVAL || rc == -ENOMEM);
		CHECK(m == NULL);
		CHECK(!strncmp(err, "metadata:", 9) && memchr(err, 0, sizeof(err)));
		if (size % 16 == 0)
			fm_read_back(data, size, NULL);
		return 0;
	}
	CHECK(m != NULL);
	fm_check_meta(m);
	if (m->general)
		fm_read_back_general(data, size, m);
	else
		fm_read_back(data, size, m);
	tsdl_free(m);
	return 0;
}
