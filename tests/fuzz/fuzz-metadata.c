/* SPDX-License-Identifier: MIT */
/*
 * fuzz-metadata.c - fuzz target for the TSDL (CTF 1.8 metadata) parser of
 * tools/reader/tsdl.c and for the reader's use of what it returns.
 *
 * Each input is metadata text:
 *  1. tsdl_parse() reads an exact-size copy (no NUL terminator, so that
 *     sanitizers see any read past the end). It must either fail with
 *     -EINVAL and a "metadata:LINE: what" message, or return a description
 *     whose invariants hold: event classes sorted by unique id, the dense
 *     table agreeing with the binary search, fields of valid kinds, sizes
 *     and bases, sequences counted by a preceding integer field, env keys
 *     unique, max_fields exact.
 *  2. When it parsed, the text becomes the metadata file of a trace in a
 *     temporary directory (made once per process), next to a stream file
 *     made here from the description: a packet with one event of every
 *     class (compact and extended headers, timestamps picked by a hash of
 *     the input) whose fields all hold known values, then an empty packet
 *     that skips a sequence number. shmtrace_rd_open() must accept the
 *     trace exactly when the reader's own checks of the text pass (the
 *     "CTF 1." signature comment first, no NUL byte), and
 *     shmtrace_rd_next() must return exactly those events, with those
 *     values, at those offsets, in non-decreasing time; the clock
 *     conversion must be monotonic. One input in 16 that does not parse
 *     goes through shmtrace_rd_open() too: it must fail with a message
 *     that names the metadata file.
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
#include "../../tools/reader/tsdl.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-metadata: %s:%d: %s\n", __FILE__,		\
			__LINE__, #cond);					\
		abort();							\
	}									\
} while (0)

#define FM_MAX_CLASSES	512		/* events written per input */
#define FM_MAX_ARRAY	4096		/* bytes of a fixed array field */
#define FM_MAX_STREAM	(1 << 20)	/* bytes of events per input */
#define FM_TID		4242u
#define FM_INSTANCE	7u
#define FM_DISCARDED	5u

static char fm_dir[256], fm_meta[300], fm_stream[300];

static void fm_cleanup(void)
{
	unlink(fm_meta);
	unlink(fm_stream);
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
	snprintf(fm_stream, sizeof(fm_stream), "%s/chan_0", fm_dir);
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

static void fm_check_meta(const struct tsdl_metadata *m)
{
	uint32_t i, j, maxf = 0;

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
	for (i = 0; i < m->nevents; i++) {
		const struct tsdl_event_class *c = &m->events[i];

		CHECK(c->name != NULL);
		CHECK(c->index == i);
		if (i)
			CHECK(c->id > m->events[i - 1].id);
		CHECK(c->nfields == 0 || c->fields != NULL);
		for (j = 0; j < c->nfields; j++)
			fm_check_field(c, j);
		if (c->nfields > maxf)
			maxf = c->nfields;
		CHECK(tsdl_find_event(m, c->id) == c);
		CHECK(tsdl_find_event_slow(m, c->id) == c);
	}
	CHECK(m->max_fields == maxf);
	CHECK(m->ndense <= 65536);
	for (i = 0; i < m->ndense; i++)
		CHECK(m->dense[i] == tsdl_find_event_slow(m, i));
	/* ids no class has */
	for (i = 0; i < 4; i++) {
		static const uint32_t ids[] = { 255, 65535, 65536, UINT32_MAX };
		const struct tsdl_event_class *c = tsdl_find_event(m, ids[i]);

		CHECK(!c || c->id == ids[i]);
	}
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

/* The value of integer field j of event k; lengths stay small. */
static uint64_t fm_int_value(const struct tsdl_event_class *c, size_t k, uint32_t j)
{
	const struct tsdl_field *f = &c->fields[j];

	if (fm_is_len_field(c, j))
		return (k + j) % 4;
	switch ((k + j) % 6) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return fm_mask(UINT64_MAX, f->bytes);
	case 3:
		return UINT64_C(1) << (8 * f->bytes - 1);
	case 4:
		return fm_mask(UINT64_C(0x0123456789abcdef), f->bytes);
	default:
		return 0x80;
	}
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

static void fm_put_header(struct fm_buf *b, const struct tsdl_metadata *m, uint64_t tsb,
			  uint64_t seq)
{
	static const uint8_t zero[16];

	fm_put_le(b, TSDL_PACKET_MAGIC, 4);
	fm_put(b, m->has_uuid ? m->uuid : zero, 16);
	fm_put_le(b, (uint32_t)m->stream_id, 4);
	fm_put_le(b, FM_INSTANCE, 8);
	fm_put_le(b, tsb, 8);
	fm_put_le(b, tsb, 8);		/* timestamp_end, set later */
	fm_put_le(b, 0, 8);		/* content_size, set later */
	fm_put_le(b, 0, 8);		/* packet_size, set later */
	fm_put_le(b, seq, 8);
	fm_put_le(b, FM_DISCARDED * (seq + 1), 8);
	fm_put_le(b, FM_TID, 4);
}

static void fm_end_packet(struct fm_buf *b, size_t start, uint64_t tse)
{
	uint64_t bits = (uint64_t)(b->len - start) * 8;

	fm_set_le(b, start + 40, tse, 8);
	fm_set_le(b, start + 48, bits, 8);
	fm_set_le(b, start + 56, bits, 8);
}

/* Write the stream; returns the number of events in *ev. */
static size_t fm_make_stream(struct fm_buf *b, const struct tsdl_metadata *m,
			     uint64_t h, struct fm_event *ev)
{
	static const uint64_t begins[] = {
		0, 1000, 0xfffff0, (UINT64_C(1) << 32) - 3, UINT64_C(1) << 62,
		UINT64_MAX - (UINT64_C(1) << 30),
	};
	static const uint64_t steps[] = { 0, 1, 3, 0x10000, 0xfffff, 0xffffff };
	uint64_t ts = begins[h % 6], step = steps[(h >> 8) % 6];
	size_t n = 0, k;

	b->len = 0;
	fm_put_header(b, m, ts, 0);
	for (k = 0; k < m->nevents && k < FM_MAX_CLASSES; k++) {
		const struct tsdl_event_class *c = &m->events[k];

		if (!fm_fits(c))
			continue;
		if (b->len > FM_MAX_STREAM)
			break;
		if (n)
			ts += step;
		ev[n].cls = c;
		ev[n].k = k;
		ev[n].off = b->len;
		ev[n].ts = ts;
		if (c->id <= 254 && (k + (h >> 16)) % 3 != 0) {
			fm_put_le(b, c->id | (ts & 0xffffff) << 8, 4);
		} else {
			fm_put_le(b, 255, 1);
			fm_put_le(b, c->id, 4);
			fm_put_le(b, ts, 8);
		}
		fm_put_payload(b, c, k);
		n++;
	}
	fm_end_packet(b, 0, ts);
	/* an empty packet; one sequence number lost */
	k = b->len;
	fm_put_header(b, m, ts, 2);
	fm_end_packet(b, k, ts);
	return n;
}

/* ---- reading it back -------------------------------------------------------- */

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
		CHECK(v.kind == SHMTRACE_RD_INT);
		CHECK(v.is_signed == f->is_signed && v.base == f->base);
		if (f->is_signed) {
			uint64_t u = fm_int_value(c, x->k, j);
			unsigned sh = 64 - 8 * f->bytes;

			CHECK(v.s == (sh ? (int64_t)(u << sh) >> sh : (int64_t)u));
		} else {
			CHECK(v.u == fm_int_value(c, x->k, j));
		}
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

static void fm_check_event(const struct shmtrace_rd_event *e, const struct fm_event *x)
{
	const struct tsdl_event_class *c = x->cls;
	int64_t level = 0;
	int idx;

	CHECK(shmtrace_rd_event_id(e) == c->id);
	CHECK(!strcmp(shmtrace_rd_event_name(e), c->name));
	CHECK(shmtrace_rd_event_class_index(e) == c->index);
	CHECK(shmtrace_rd_event_clock(e) == x->ts);
	CHECK(shmtrace_rd_event_offset(e) == x->off);
	CHECK(shmtrace_rd_event_tid(e) == FM_TID);
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
}

static void fm_check_trace(const struct shmtrace_rd_reader *r, const struct tsdl_metadata *m)
{
	const struct shmtrace_rd_trace *t;
	const char *sval;
	int64_t ival;

	CHECK(shmtrace_rd_trace_count(r) == 1);
	CHECK(shmtrace_rd_stream_count(r) == 1);
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

static void fm_read_back(const uint8_t *data, size_t size, const struct tsdl_metadata *m)
{
	static struct fm_buf b;
	static struct fm_event ev[FM_MAX_CLASSES];
	const char *paths[1] = { fm_dir };
	char err[SHMTRACE_RD_ERRLEN];
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *e;
	const struct shmtrace_rd_stream *s;
	bool sig_ok, id_ok = true;
	size_t n = 0, nev = 0;
	int64_t last_ns = INT64_MIN;
	int rc;

	sig_ok = size >= 9 && !memcmp(data, "/* CTF 1.", 9) && !memchr(data, 0, size);
	fm_write_file(fm_meta, data, size);
	if (m) {
		nev = fm_make_stream(&b, m, fm_hash(data, size), ev);
		id_ok = m->stream_id <= UINT32_MAX;
	} else {
		b.len = 0;
	}
	fm_write_file(fm_stream, b.p ? b.p : (const unsigned char *)"", b.len);

	rc = shmtrace_rd_open(&r, paths, 1, err, sizeof(err));
	if (!m || !sig_ok) {
		CHECK(rc < 0 && r == NULL);
		CHECK(!strncmp(err, fm_meta, strlen(fm_meta)));
		return;
	}
	if (rc) {
		fprintf(stderr, "fuzz-metadata: shmtrace_rd_open: %s\n", err);
		CHECK(rc == 0);
	}
	fm_check_trace(r, m);
	while ((rc = shmtrace_rd_next(r, &e)) > 0) {
		CHECK(n < nev);
		fm_check_event(e, &ev[n]);
		CHECK(shmtrace_rd_event_time_ns(e) >= last_ns);
		last_ns = shmtrace_rd_event_time_ns(e);
		n++;
	}
	s = shmtrace_rd_stream_at(r, 0);
	if (!id_ok) {
		CHECK(rc == -EBADMSG && n == 0);
		CHECK(!strncmp(shmtrace_rd_errmsg(r), fm_stream, strlen(fm_stream)));
	} else {
		if (rc) {
			fprintf(stderr, "fuzz-metadata: shmtrace_rd_next: %s\n", shmtrace_rd_errmsg(r));
			CHECK(rc == 0);
		}
		CHECK(n == nev);
		CHECK(shmtrace_rd_stream_event_count(s) == nev);
		CHECK(shmtrace_rd_stream_lost_packets(s) == 1);
		CHECK(shmtrace_rd_stream_discarded(s) == 3 * FM_DISCARDED);
		CHECK(shmtrace_rd_stream_packet_seq(s) == 2);
		CHECK(shmtrace_rd_stream_instance_id(s) == FM_INSTANCE);
		CHECK(shmtrace_rd_stream_tid(s) == FM_TID);
	}
	/* errors and the end are sticky */
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
	fm_read_back(data, size, m);
	tsdl_free(m);
	return 0;
}

#ifdef FUZZ_DRIVER_CORPUS
/*
 * make check: driver.c runs the target; without a path given it reads this
 * target's own corpus instead of the protocol one.
 */
static int driver_main(int argc, char **argv);
#define main driver_main
#include "driver.c"
#undef main

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	static char corpus[4096];
	char **args;
	int i;

	/* a path among the arguments? (-n, -t and -s take a value) */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-')
			return driver_main(argc, argv);
		if (argv[i][1] && strchr("nts", argv[i][1]) && !argv[i][2])
			i++;
	}
	snprintf(corpus, sizeof(corpus), "%s/%s", srcdir ? srcdir : ".", FUZZ_DRIVER_CORPUS);
	args = calloc(argc + 2, sizeof(*args));
	if (!args)
		return 1;
	memcpy(args, argv, argc * sizeof(*args));
	args[argc] = corpus;
	return driver_main(argc + 1, args);
}
#endif
