/* SPDX-License-Identifier: MIT */
/*
 * test-reader.c - unit tests of the trace reader library (libreader/).
 *
 * Traces are built byte by byte in a temporary directory following
 * doc/trace-format.md: the metadata text the writer emits, then packets
 * (84-byte header, compact and extended event headers, packed payloads).
 * The tests check decoding, the 24-bit timestamp wrap, the merge order of
 * several streams and traces, discarded events, the function names of
 * addresses (shmtrace_rd_sym_*(), with a state dump that describes the
 * test program itself), and that corrupt input (truncated or damaged
 * packets, bad metadata) yields errors, never a crash.
 *
 * "test-reader --write-samples DIR [N]" writes the sample traces (and a
 * random trace of N events) without running the tests, to compare the
 * output of trace-read with babeltrace2 by hand.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* asprintf, nftw */
#endif

#include <check.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "tsdl.h"

/*
 * Builders are also used outside tests (--write-samples), where ck_assert
 * must not be called: REQUIRE() aborts there instead.
 */
static bool outside_tests;

#define REQUIRE(cond) do {						\
	if (outside_tests) {						\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s failed\n", __FILE__,	\
				__LINE__, #cond);			\
			exit(1);					\
		}							\
	} else {							\
		ck_assert(cond);					\
	}								\
} while (0)

/* ---- byte buffers --------------------------------------------------------- */

struct tbuf {
	unsigned char *p;
	size_t len, cap;
};

static void tb_put(struct tbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		REQUIRE(b->p);
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* little-endian integer of n bytes */
static void tb_int(struct tbuf *b, uint64_t v, unsigned n)
{
	unsigned char x[8];
	unsigned i;

	for (i = 0; i < n; i++)
		x[i] = v >> (8 * i);
	tb_put(b, x, n);
}

static void tb_u8(struct tbuf *b, uint64_t v) { tb_int(b, v, 1); }
static void tb_u16(struct tbuf *b, uint64_t v) { tb_int(b, v, 2); }
static void tb_u32(struct tbuf *b, uint64_t v) { tb_int(b, v, 4); }
static void tb_u64(struct tbuf *b, uint64_t v) { tb_int(b, v, 8); }

static void tb_str(struct tbuf *b, const char *s)
{
	tb_put(b, s, strlen(s) + 1);
}

static void tb_dbl(struct tbuf *b, double d)
{
	uint64_t x;

	memcpy(&x, &d, sizeof(x));
	tb_u64(b, x);
}

static void tb_free(struct tbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- trace building ------------------------------------------------------- */

#define UUID_A "2a6422d0-6cee-11e0-8c08-cb07d7b3a564"
#define UUID_B "7b1f1a52-0d2c-4d8e-9a61-3f0e2c9b5d11"
/* clock uuid: the same for all traces of a host (babeltrace2 requires it) */
#define UUID_CLOCK "0c5f2ab4-1d3e-4f60-8a7b-9c8d7e6f5a4b"

static const char *events_tsdl =
	"event {\n\tname = \"prov:ev_a\";\n\tid = 0;\n\tstream_id = 0;\n"
	"\tloglevel = 13;\n\tfields := struct {\n\t\tint32_t _num;\n"
	"\t\txint64_t _ptr;\n\t\tstring _msg;\n\t\tdouble _val;\n\t};\n};\n\n"
	"event {\n\tname = \"prov:ev_seq\";\n\tid = 1;\n\tstream_id = 0;\n"
	"\tloglevel = 14;\n\tfields := struct {\n\t\tuint32_t _arr_length;\n"
	"\t\tint16_t _arr[_arr_length];\n\t};\n};\n\n"
	"event {\n\tname = \"prov:empty\";\n\tid = 2;\n\tstream_id = 0;\n"
	"\tloglevel = 6;\n\tfields := struct {\n\t};\n};\n\n"
	"event {\n\tname = \"prov:ints\";\n\tid = 3;\n\tstream_id = 0;\n"
	"\tloglevel = 6;\n\tfields := struct {\n\t\tuint8_t _a;\n"
	"\t\tuint16_t _b;\n\t\tuint32_t _c;\n\t\tuint64_t _d;\n"
	"\t\tint8_t _e;\n\t\tint16_t _f;\n\t\tint64_t _g;\n\t};\n};\n\n"
	"event {\n\tname = \"other:big_id\";\n\tid = 300;\n\tstream_id = 0;\n"
	"\tloglevel = 6;\n\tfields := struct {\n\t\tuint64_t _x;\n\t};\n};\n\n";

enum { EV_A = 0, EV_SEQ = 1, EV_EMPTY = 2, EV_INTS = 3, EV_BIN_INFO = 4, EV_BIG = 300 };

/* the event of a state dump that describes an object, as libshmtrace writes it */
static const char *bin_info_tsdl =
	"event {\n\tname = \"shmtrace_statedump:bin_info\";\n\tid = 4;\n\tstream_id = 0;\n"
	"\tloglevel = 6;\n\tfields := struct {\n\t\txint64_t _base;\n\t\txint64_t _low;\n"
	"\t\txint64_t _high;\n\t\tstring _path;\n\t\tuint32_t _build_id_length;\n"
	"\t\tuint8_t _build_id[_build_id_length];\n\t};\n};\n\n";

static char *metadata_text(const char *uuid, const char *procname, int vpid,
			   int64_t offset_s, int64_t offset, uint64_t freq,
			   const char *events)
{
	static const char fmt[] =
	"/* CTF 1.8 */\n\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64_t;\n"
	"typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double;\n\n"
	"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
	"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
	"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n"
	"env {\n\thostname = \"testhost\";\n\tdomain = \"ust\";\n"
	"\ttracer_name = \"shmtrace\";\n\ttracer_major = 0;\n\ttracer_minor = 1;\n"
	"\tvpid = %d;\n\tprocname = \"%s\";\n};\n\n"
	"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
	"\tdescription = \"Monotonic Clock\";\n\tfreq = %" PRIu64 ";\n"
	"\tprecision = 1;\n\toffset_s = %" PRId64 ";\n\toffset = %" PRId64 ";\n"
	"\tabsolute = false;\n};\n\n"
	"typealias integer { size = 24; align = 1; signed = false; map = clock.monotonic.value; } := uint24_clock_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n\n"
	"stream {\n\tid = 0;\n\tpacket.context := struct {\n"
	"\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t tid;\n\t};\n"
	"\tevent.header := struct {\n"
	"\t\tenum : uint8_t { compact = 0 ... 254, extended = 255 } id;\n"
	"\t\tvariant <id> {\n"
	"\t\t\tstruct { uint24_clock_t timestamp; } compact;\n"
	"\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
	"\t\t} v;\n\t} align(8);\n};\n\n%s";
	char *s;

	REQUIRE(asprintf(&s, fmt, uuid, vpid, procname, UUID_CLOCK, freq,
			 offset_s, offset, events) >= 0);
	return s;
}

static void write_file(const char *dir, const char *name, const void *d,
		       size_t n)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, d, n) == (ssize_t)n);
	close(fd);
}

static void write_meta(const char *dir, const char *uuid, const char *proc,
		       int vpid, int64_t offset_s, int64_t offset)
{
	char *m = metadata_text(uuid, proc, vpid, offset_s, offset,
				1000000000, events_tsdl);

	write_file(dir, "metadata", m, strlen(m));
	free(m);
}

static void parse_uuid(const char *s, unsigned char out[16])
{
	int i, n = 0;

	for (i = 0; s[i] && n < 16; i++) {
		unsigned x;

		if (s[i] == '-')
			continue;
		sscanf(s + i, "%2x", &x);
		out[n++] = x;
		i++;
	}
}

/* A stream being built: packets of events, compact headers when possible. */
struct sbuild {
	struct tbuf file;
	struct tbuf ev;		/* events of the open packet */
	unsigned char uuid[16];
	uint64_t tsb, prev, seq, disc, instance;
	uint32_t tid;
	bool open;
};

static void sb_init(struct sbuild *s, const char *uuid, uint64_t instance)
{
	memset(s, 0, sizeof(*s));
	parse_uuid(uuid, s->uuid);
	s->instance = instance;
}

static void sb_begin(struct sbuild *s, uint64_t tsb, uint32_t tid)
{
	s->tsb = tsb;
	s->prev = tsb;
	s->tid = tid;
	s->ev.len = 0;
	s->open = true;
}

static void sb_packet(struct tbuf *f, const unsigned char uuid[16],
		      uint64_t instance, uint64_t tsb, uint64_t tse, uint64_t seq, uint64_t disc,
		      uint32_t tid, const struct tbuf *ev)
{
	uint64_t bits = (84 + ev->len) * 8;

	tb_u32(f, 0xC1FC1FC1);
	tb_put(f, uuid, 16);
	tb_u32(f, 0);
	tb_u64(f, instance);
	tb_u64(f, tsb);
	tb_u64(f, tse);
	tb_u64(f, bits);
	tb_u64(f, bits);
	tb_u64(f, seq);
	tb_u64(f, disc);
	tb_u32(f, tid);
	if (ev->len)
		tb_put(f, ev->p, ev->len);
}

static void sb_end(struct sbuild *s, uint64_t tse)
{
	sb_packet(&s->file, s->uuid, s->instance, s->tsb, tse, s->seq++,
		  s->disc, s->tid,
		  &s->ev);
	s->open = false;
}

/* Event header: compact when allowed, extended otherwise (or if forced). */
static void sb_hdr(struct sbuild *s, uint32_t id, uint64_t ts, bool ext)
{
	REQUIRE(ts >= s->prev);
	if (!ext && id < 255 && ts - s->prev < (1U << 24)) {
		tb_u32(&s->ev, id | (uint32_t)(ts & 0xffffff) << 8);
	} else {
		tb_u8(&s->ev, 255);
		tb_u32(&s->ev, id);
		tb_u64(&s->ev, ts);
	}
	s->prev = ts;
}

static void sb_ev_a(struct sbuild *s, uint64_t ts, int32_t num, uint64_t ptr,
		    const char *msg, double val)
{
	sb_hdr(s, EV_A, ts, false);
	tb_u32(&s->ev, (uint32_t)num);
	tb_u64(&s->ev, ptr);
	tb_str(&s->ev, msg);
	tb_dbl(&s->ev, val);
}

static void sb_ev_seq(struct sbuild *s, uint64_t ts, const int16_t *v,
		      uint32_t n)
{
	uint32_t i;

	sb_hdr(s, EV_SEQ, ts, false);
	tb_u32(&s->ev, n);
	for (i = 0; i < n; i++)
		tb_u16(&s->ev, (uint16_t)v[i]);
}

static void sb_ev_empty(struct sbuild *s, uint64_t ts, bool ext)
{
	sb_hdr(s, EV_EMPTY, ts, ext);
}

static void sb_ev_ints(struct sbuild *s, uint64_t ts, uint64_t x)
{
	sb_hdr(s, EV_INTS, ts, false);
	tb_u8(&s->ev, x);
	tb_u16(&s->ev, x);
	tb_u32(&s->ev, x);
	tb_u64(&s->ev, x);
	tb_u8(&s->ev, x);
	tb_u16(&s->ev, x);
	tb_u64(&s->ev, x);
}

static void sb_ev_big(struct sbuild *s, uint64_t ts, uint64_t x)
{
	sb_hdr(s, EV_BIG, ts, true);
	tb_u64(&s->ev, x);
}

static void sb_write(struct sbuild *s, const char *dir, const char *name)
{
	write_file(dir, name, s->file.p, s->file.len);
	tb_free(&s->file);
	tb_free(&s->ev);
}

/* A state dump's description of an object (event id EV_BIN_INFO of bin_info_tsdl). */
static void sb_ev_bin_info(struct sbuild *s, uint64_t ts, uint64_t base, uint64_t low,
			   uint64_t high, const char *path)
{
	sb_hdr(s, EV_BIN_INFO, ts, false);
	tb_u64(&s->ev, base);
	tb_u64(&s->ev, low);
	tb_u64(&s->ev, high);
	tb_str(&s->ev, path);
	tb_u32(&s->ev, 0);	/* no build id */
}

/* ---- temporary directories ------------------------------------------------ */

static char tmpdir[256];

static int rm_cb(const char *path, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-reader.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	nftw(tmpdir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static char *subdir(const char *parent, const char *name)
{
	char *p;

	REQUIRE(asprintf(&p, "%s/%s", parent, name) >= 0);
	mkdir(p, 0755);
	return p;
}

static struct shmtrace_rd_reader *open_one(const char *path)
{
	struct shmtrace_rd_reader *r = NULL;
	char err[SHMTRACE_RD_ERRLEN];
	int rc = shmtrace_rd_open(&r, &path, 1, err, sizeof(err));

	ck_assert_msg(rc == 0, "shmtrace_rd_open: %s", err);
	return r;
}

/* ---- the basic sample trace ----------------------------------------------- */

static const int16_t seq_vals[] = { 1, -2, 300, -32768, 32767 };

static void build_basic(const char *dir)
{
	struct sbuild s;

	write_meta(dir, UUID_A, "myproc", 1234, 1700000000, 123456789);
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 1000, 42);
	sb_ev_a(&s, 1000, -5, 0xdeadbeef, "he\"l\\lo\n\t\x01 w\xc3\xb6rld", 3.5);
	sb_ev_seq(&s, 2000, seq_vals, 5);
	sb_ev_seq(&s, 3000, NULL, 0);
	sb_ev_empty(&s, 0x2000000, false);	/* extended: delta >= 2^24 */
	sb_ev_ints(&s, 0x2000005, UINT64_MAX);
	sb_ev_ints(&s, 0x2000006, 0x80);
	sb_ev_big(&s, 0x2000006, 77);		/* same timestamp */
	sb_end(&s, 0x3000000);
	s.disc = 3;
	sb_begin(&s, 0x3000000, 43);
	sb_ev_a(&s, 0x3000001, 7, 0, "", 0.1);
	sb_ev_empty(&s, 0x3000002, true);
	sb_end(&s, 0x3000002);
	sb_write(&s, dir, "chan_0");
}

START_TEST(test_basic)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_value v;
	int64_t ll;

	build_basic(tmpdir);
	r = open_one(tmpdir);
	ck_assert_int_eq(shmtrace_rd_trace_count(r), 1);
	ck_assert_int_eq(shmtrace_rd_stream_count(r), 1);
	ck_assert_str_eq(shmtrace_rd_trace_procname(shmtrace_rd_trace_at(r, 0)), "myproc");
	ck_assert_str_eq(shmtrace_rd_trace_hostname(shmtrace_rd_trace_at(r, 0)), "testhost");
	ck_assert_int_eq(shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, 0)), 1234);
	ck_assert_str_eq(shmtrace_rd_trace_uuid(shmtrace_rd_trace_at(r, 0)), UUID_A);

	/* ev_a */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:ev_a");
	ck_assert_uint_eq(shmtrace_rd_event_clock(ev), 1000);
	ck_assert_int_eq(shmtrace_rd_event_time_ns(ev),
			 1700000000LL * 1000000000 + 123456789 + 1000);
	ck_assert_uint_eq(shmtrace_rd_event_tid(ev), 42);
	ck_assert_int_eq(shmtrace_rd_event_loglevel(ev, &ll), 1);
	ck_assert_int_eq(ll, 13);
	ck_assert_uint_eq(shmtrace_rd_event_field_count(ev), 4);
	ck_assert_str_eq(shmtrace_rd_event_field_name(ev, 0), "num");
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
	ck_assert_int_eq(v.kind, SHMTRACE_RD_INT);
	ck_assert(v.is_signed);
	ck_assert_int_eq(v.s, -5);
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 1, &v), 0);
	ck_assert_int_eq(v.base, 16);
	ck_assert_uint_eq(v.u, 0xdeadbeef);
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 2, &v), 0);
	ck_assert_int_eq(v.kind, SHMTRACE_RD_STRING);
	ck_assert_str_eq(v.str, "he\"l\\lo\n\t\x01 w\xc3\xb6rld");
	ck_assert_uint_eq(v.len, strlen(v.str));
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 3, &v), 0);
	ck_assert_int_eq(v.kind, SHMTRACE_RD_FLOAT);
	ck_assert(v.d == 3.5);
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 4, &v), -EINVAL);

	/* ev_seq with 5 elements */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:ev_seq");
	ck_assert_uint_eq(shmtrace_rd_event_clock(ev), 2000);
	ck_assert_str_eq(shmtrace_rd_event_field_name(ev, 0), "arr_length");
	ck_assert_str_eq(shmtrace_rd_event_field_name(ev, 1), "arr");
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
	ck_assert_uint_eq(v.u, 5);
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 1, &v), 0);
	ck_assert_int_eq(v.kind, SHMTRACE_RD_SEQUENCE);
	ck_assert_uint_eq(v.count, 5);
	ck_assert_int_eq(shmtrace_rd_value_elem_s(&v, 0), 1);
	ck_assert_int_eq(shmtrace_rd_value_elem_s(&v, 1), -2);
	ck_assert_int_eq(shmtrace_rd_value_elem_s(&v, 2), 300);
	ck_assert_int_eq(shmtrace_rd_value_elem_s(&v, 3), -32768);
	ck_assert_int_eq(shmtrace_rd_value_elem_s(&v, 4), 32767);

	/* empty sequence */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_int_eq(shmtrace_rd_event_field(ev, 1, &v), 0);
	ck_assert_uint_eq(v.count, 0);

	/* empty event, extended header */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:empty");
	ck_assert_uint_eq(shmtrace_rd_event_clock(ev), 0x2000000);
	ck_assert_uint_eq(shmtrace_rd_event_field_count(ev), 0);

	/* all integer sizes, all bits set */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:ints");
	ck_assert_uint_eq(shmtrace_rd_event_clock(ev), 0x2000005);
	shmtrace_rd_event_field(ev, 0, &v);
	ck_assert_uint_eq(v.u, 0xff);
	shmtrace_rd_event_field(ev, 1, &v);
	ck_assert_uint_eq(v.u, 0xffff);
	shmtrace_rd_event_field(ev, 2, &v);
	ck_assert_uint_eq(v.u, 0xffffffff);
	shmtrace_rd_event_field(ev, 3, &v);
	ck_assert_uint_eq(v.u, UINT64_MAX);
	shmtrace_rd_event_field(ev, 4, &v);
	ck_assert_int_eq(v.s, -1);
	shmtrace_rd_event_field(ev, 5, &v);
	ck_assert_int_eq(v.s, -1);
	shmtrace_rd_event_field(ev, 6, &v);
	ck_assert_int_eq(v.s, -1);
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	shmtrace_rd_event_field(ev, 4, &v);
	ck_assert_int_eq(v.s, -128);
	shmtrace_rd_event_field(ev, 5, &v);
	ck_assert_int_eq(v.s, 128);

	/* id 300, extended */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "other:big_id");
	ck_assert_uint_eq(shmtrace_rd_event_id(ev), 300);
	shmtrace_rd_event_field(ev, 0, &v);
	ck_assert_uint_eq(v.u, 77);

	/* second packet */
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:ev_a");
	ck_assert_uint_eq(shmtrace_rd_event_clock(ev), 0x3000001);
	ck_assert_uint_eq(shmtrace_rd_event_tid(ev), 43);
	ck_assert_uint_eq(shmtrace_rd_stream_discarded(shmtrace_rd_event_stream(ev)), 3);
	shmtrace_rd_event_field(ev, 2, &v);
	ck_assert_str_eq(v.str, "");
	ck_assert_uint_eq(v.len, 0);
	shmtrace_rd_event_field(ev, 3, &v);
	ck_assert(v.d == 0.1);
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	ck_assert_str_eq(shmtrace_rd_event_name(ev), "prov:empty");
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 0);
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 0);
	ck_assert_uint_eq(shmtrace_rd_stream_event_count(shmtrace_rd_stream_at(r, 0)), 9);
	shmtrace_rd_close(r);
}
END_TEST

START_TEST(test_wrap)
{
	static const uint64_t ts[] = {
		0xfffff0, 0x1000010, 0x1ffffff, 0x2000000, 0x2fffffe,
		0x3000001, 0x3000001, 0x12345678,
	};
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct sbuild s;
	size_t i;

	write_meta(tmpdir, UUID_A, "p", 1, 0, 0);
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 0xffff00, 1);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		sb_ev_empty(&s, ts[i], false);
	sb_end(&s, 0x12345678);
	/* the compact headers above all wrapped or not as expected */
	sb_write(&s, tmpdir, "s");
	r = open_one(tmpdir);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
		ck_assert_uint_eq(shmtrace_rd_event_clock(ev), ts[i]);
		ck_assert_int_eq(shmtrace_rd_event_time_ns(ev), (int64_t)ts[i]);
	}
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 0);
	shmtrace_rd_close(r);
}
END_TEST

/*
 * Two traces with different clock offsets, two streams each, plus an empty
 * stream file, a hidden file and an index directory. Event x field = the
 * expected rank in the merged output.
 */
static void build_session(const char *dir)
{
	struct { const char *name; int64_t off_s, off; const char *uuid; } tr[] = {
		{ "procb-20", 99, 500000000, UUID_B },
		{ "proca-10", 100, 0, UUID_A },
	};
	/* global ns (relative to 100 s) of the events, per trace and stream */
	static const uint64_t at[2][2][4] = {
		{ { 0, 30, 60, 90 }, { 10, 40, 70, 100 } },
		{ { 20, 50, 80, 100 }, { 5, 55, 85, 200 } },
	};
	int t, st, i;

	for (t = 0; t < 2; t++) {
		char *td = subdir(dir, tr[t].name);
		char *idx = subdir(td, "index");
		int64_t base = (tr[t].off_s - 100) * 1000000000 + tr[t].off;

		write_meta(td, tr[t].uuid, tr[t].name, 10 + 10 * t, tr[t].off_s,
			   tr[t].off);
		for (st = 0; st < 2; st++) {
			struct sbuild s;
			char name[24];

			sb_init(&s, tr[t].uuid, st);
			/* clock value = global ns - trace base */
			sb_begin(&s, at[t][st][0] - base, 100 + st);
			for (i = 0; i < 4; i++)
				sb_ev_big(&s, at[t][st][i] - base,
					  t * 100 + st * 10 + i);
			sb_end(&s, at[t][st][3] - base);
			snprintf(name, sizeof(name), "chan_%d", st);
			sb_write(&s, td, name);
		}
		write_file(td, "chan_empty", "", 0);
		write_file(td, ".hidden", "junk", 4);
		write_file(idx, "chan_0.idx", "junk", 4);
		free(idx);
		free(td);
	}
}

START_TEST(test_merge)
{
	/*
	 * expected x values in merged order (x = 100 * builder trace + 10 *
	 * stream + i; builder trace 0 is procb-20, sorted after proca-10, so
	 * at the tie at 100 ns proca's event (103) comes before procb's (13))
	 */
	static const uint64_t order[] = {
		0, 110, 10, 100, 1, 11, 101, 111, 2, 12, 102, 112,
		3, 103, 13, 113,
	};
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_value v;
	char *sess = subdir(tmpdir, "session");
	char *deep = subdir(sess, "deeper");
	size_t i;
	int64_t prev = INT64_MIN;

	build_session(deep);
	r = open_one(sess);
	ck_assert_int_eq(shmtrace_rd_trace_count(r), 2);
	/* 3 stream files per trace, hidden file and index/ ignored */
	ck_assert_int_eq(shmtrace_rd_stream_count(r), 6);
	/* traces sorted by path: proca-10 first */
	ck_assert_str_eq(shmtrace_rd_trace_procname(shmtrace_rd_trace_at(r, 0)), "proca-10");
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint64_t x;

		ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
		shmtrace_rd_event_field(ev, 0, &v);
		x = v.u;
		ck_assert_msg(x == order[i], "event %zu: got %" PRIu64
			      " expected %" PRIu64, i, x, order[i]);
		ck_assert_int_ge(shmtrace_rd_event_time_ns(ev), prev);
		prev = shmtrace_rd_event_time_ns(ev);
	}
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 0);
	shmtrace_rd_close(r);
	free(deep);
	free(sess);
}
END_TEST

START_TEST(test_discarded)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct sbuild s;
	int n = 0;

	write_meta(tmpdir, UUID_A, "p", 1, 0, 0);
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 10, 1);
	sb_ev_empty(&s, 10, false);
	sb_end(&s, 10);
	s.disc = 2;
	sb_begin(&s, 20, 1);
	sb_ev_empty(&s, 20, false);
	sb_end(&s, 20);
	s.disc = 7;
	s.seq++;		/* one lost packet */
	sb_begin(&s, 30, 1);
	sb_end(&s, 30);		/* empty packet */
	sb_write(&s, tmpdir, "s");
	write_file(tmpdir, "empty", "", 0);
	r = open_one(tmpdir);
	while (shmtrace_rd_next(r, &ev) > 0)
		n++;
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(r, 1)), 7);
	ck_assert_uint_eq(shmtrace_rd_stream_lost_packets(shmtrace_rd_stream_at(r, 1)), 1);
	ck_assert_uint_eq(shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(r, 0)), 0);
	shmtrace_rd_close(r);
}
END_TEST

START_TEST(test_tsdl)
{
	struct tsdl_metadata *m;
	const struct tsdl_event_class *ec;
	char *text = metadata_text(UUID_A, "pr", 5, -3, 1500, 1000000,
				   events_tsdl);
	char err[256];

	ck_assert_int_eq(tsdl_parse(text, strlen(text), "x/metadata", &m, err,
				    sizeof(err)), 0);
	ck_assert_str_eq(m->clock.name, "monotonic");
	ck_assert_uint_eq(m->clock.freq, 1000000);
	ck_assert_int_eq(m->clock.offset_s, -3);
	ck_assert_int_eq(m->clock.offset, 1500);
	ck_assert_str_eq(m->procname, "pr");
	ck_assert_str_eq(m->hostname, "testhost");
	ck_assert_int_eq(m->vpid, 5);
	ck_assert_str_eq(m->uuid_str, UUID_A);
	ck_assert_uint_eq(m->nevents, 5);
	ec = tsdl_find_event(m, 1);
	ck_assert_ptr_nonnull(ec);
	ck_assert_str_eq(ec->name, "prov:ev_seq");
	ck_assert_int_eq(ec->loglevel, 14);
	ck_assert_uint_eq(ec->nfields, 2);
	ck_assert_int_eq(ec->fields[1].kind, TSDL_F_SEQUENCE);
	ck_assert_uint_eq(ec->fields[1].len_field, 0);
	ck_assert_uint_eq(ec->fields[1].bytes, 2);
	ck_assert(ec->fields[1].is_signed);
	ec = tsdl_find_event(m, 300);
	ck_assert_ptr_nonnull(ec);
	ck_assert_str_eq(ec->name, "other:big_id");
	ck_assert_ptr_null(tsdl_find_event(m, 4));
	ck_assert_ptr_null(tsdl_find_event(m, 100000));
	tsdl_free(m);
	free(text);
}
END_TEST

/* Non-1 GHz clock: conversion like babeltrace2. */
START_TEST(test_freq)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct sbuild s;
	char *m = metadata_text(UUID_A, "p", 1, 10, 2500, 1000, events_tsdl);

	write_file(tmpdir, "metadata", m, strlen(m));
	free(m);
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 7, 1);
	sb_ev_empty(&s, 7, false);
	sb_end(&s, 7);
	sb_write(&s, tmpdir, "s");
	r = open_one(tmpdir);
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), 1);
	/* 10 s + 2500 ms + 7 ms */
	ck_assert_int_eq(shmtrace_rd_event_time_ns(ev), 12507000000LL);
	shmtrace_rd_close(r);
}
END_TEST

/* ---- corrupt input ---------------------------------------------------------- */

/* Iterate to the end; return the error (or 0) and the message. */
static int drain(const char *dir, char *msg, size_t len, int *nev)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r = NULL;
	int rc, n = 0;

	rc = shmtrace_rd_open(&r, &dir, 1, msg, len);
	if (rc)
		return rc;
	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		unsigned i;

		for (i = 0; i < shmtrace_rd_event_field_count(ev); i++) {
			struct shmtrace_rd_value v;

			ck_assert_int_eq(shmtrace_rd_event_field(ev, i, &v), 0);
			if (v.kind == SHMTRACE_RD_STRING)
				ck_assert_uint_eq(strlen(v.str), v.len);
			if (v.kind == SHMTRACE_RD_SEQUENCE && v.count)
				(void)shmtrace_rd_value_elem_u(&v, v.count - 1);
		}
		n++;
	}
	if (rc)
		snprintf(msg, len, "%s", shmtrace_rd_errmsg(r));
	if (nev)
		*nev = n;
	shmtrace_rd_close(r);
	return rc;
}

/* One packet with an ev_a, an ev_seq; returns the file image. */
static struct tbuf one_packet(void)
{
	struct sbuild s;
	struct tbuf f;

	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 100, 1);
	sb_ev_a(&s, 100, 1, 2, "abc", 1.0);
	sb_ev_seq(&s, 200, seq_vals, 3);
	sb_end(&s, 200);
	f = s.file;
	tb_free(&s.ev);
	return f;
}

static void expect_corrupt(struct tbuf *f, const char *what)
{
	char msg[SHMTRACE_RD_ERRLEN];
	int rc;

	write_meta(tmpdir, UUID_A, "p", 1, 0, 0);
	write_file(tmpdir, "s", f->p, f->len);
	rc = drain(tmpdir, msg, sizeof(msg), NULL);
	ck_assert_int_lt(rc, 0);
	ck_assert_msg(strstr(msg, what) != NULL, "message '%s' lacks '%s'",
		      msg, what);
	ck_assert_msg(strstr(msg, "/s: offset ") != NULL,
		      "message '%s' lacks file and offset", msg);
}

START_TEST(test_truncated)
{
	struct tbuf f = one_packet();

	f.len -= 3;
	expect_corrupt(&f, "runs past the end of the file");
	f.len = 50;
	expect_corrupt(&f, "truncated packet header");
	tb_free(&f);
}
END_TEST

START_TEST(test_bad_magic)
{
	struct tbuf f = one_packet();

	f.p[0] ^= 1;
	expect_corrupt(&f, "bad packet magic");
	tb_free(&f);
}
END_TEST

START_TEST(test_content_size)
{
	struct tbuf f = one_packet();
	uint64_t big = (f.len + 8) * 8;

	memcpy(f.p + 48, &big, 8);	/* content_size > packet_size */
	expect_corrupt(&f, "invalid content_size");
	memcpy(f.p + 56, &big, 8);	/* both beyond the file */
	expect_corrupt(&f, "runs past the end of the file");
	big = 16;
	memcpy(f.p + 48, &big, 8);	/* smaller than the header */
	expect_corrupt(&f, "invalid content_size");
	tb_free(&f);
}
END_TEST

START_TEST(test_unknown_id)
{
	struct tbuf f = one_packet();

	f.p[84] = 17;		/* first event header id */
	expect_corrupt(&f, "unknown event id 17");
	tb_free(&f);
}
END_TEST

START_TEST(test_unterminated)
{
	struct sbuild s;

	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 100, 1);
	sb_hdr(&s, EV_A, 100, false);
	tb_u32(&s.ev, 1);
	tb_u64(&s.ev, 2);
	tb_put(&s.ev, "abc", 3);	/* no NUL up to the content end */
	sb_end(&s, 100);
	expect_corrupt(&s.file, "unterminated string");
	tb_free(&s.file);
	tb_free(&s.ev);
}
END_TEST

START_TEST(test_seq_past_end)
{
	struct sbuild s;

	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 100, 1);
	sb_hdr(&s, EV_SEQ, 100, false);
	tb_u32(&s.ev, 0x7fffffff);
	tb_u16(&s.ev, 1);
	sb_end(&s, 100);
	expect_corrupt(&s.file, "runs past the end of the packet");
	tb_free(&s.file);
	tb_free(&s.ev);
}
END_TEST

START_TEST(test_bad_timestamps)
{
	struct sbuild s;

	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 100, 1);
	sb_ev_empty(&s, 500, false);
	sb_end(&s, 200);	/* event after timestamp_end */
	expect_corrupt(&s.file, "after the packet's timestamp_end");
	tb_free(&s.file);
	tb_free(&s.ev);
}
END_TEST

/* Metadata that cannot be read: the trace is damage, said at the first read. */
static void expect_bad_meta(const char *text, const char *what)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	const char *msg;
	int rc;

	write_file(tmpdir, "metadata", text, strlen(text));
	r = open_one(tmpdir);
	ck_assert_uint_eq(shmtrace_rd_trace_count(r), 0);
	ck_assert_uint_eq(shmtrace_rd_stream_count(r), 0);
	rc = shmtrace_rd_next(r, &ev);
	ck_assert_int_lt(rc, 0);
	ck_assert_int_ne(rc, -ENOMEM);
	msg = shmtrace_rd_errmsg(r);
	ck_assert_msg(strstr(msg, what) != NULL, "message '%s' lacks '%s'",
		      msg, what);
	ck_assert_msg(strstr(msg, "/metadata:") != NULL,
		      "message '%s' lacks the file name", msg);
	ck_assert_uint_eq(shmtrace_rd_damage_count(r), 1);
	ck_assert_str_eq(shmtrace_rd_damage_message(r, 0), msg);
	ck_assert_int_eq(shmtrace_rd_damage_error(r, 0), rc);
	ck_assert_int_eq(shmtrace_rd_damage_offset(r, 0), -1);
	ck_assert_ptr_null(shmtrace_rd_damage_stream(r, 0));
	ck_assert_ptr_nonnull(strstr(shmtrace_rd_damage_path(r, 0), "/metadata"));
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), rc);
	shmtrace_rd_close(r);
}

static char *meta_replace(const char *from, const char *to)
{
	char *m = metadata_text(UUID_A, "p", 1, 0, 0, 1000000000, events_tsdl);
	char *pos = strstr(m, from), *out;

	ck_assert_ptr_nonnull(pos);
	ck_assert_int_ge(asprintf(&out, "%.*s%s%s", (int)(pos - m), m, to,
				  pos + strlen(from)), 0);
	free(m);
	return out;
}

START_TEST(test_bad_metadata)
{
	static const struct { const char *from, *to, *what; } cases[] = {
		{ "int32_t _num;", "int32_t _num", ":78: expected ';'" },
		{ "int32_t _num;", "int31_t _num;", ":77: unknown type 'int31_t'" },
		{ "_arr[_arr_length]", "_arr[_nope]", "length field '_nope'" },
		{ "id = 3;", "id = 1;", "duplicate event id 1" },
		{ "uint32_t tid;", "uint16_t tid;", "unsupported packet.context" },
		{ "uint32_t magic;", "uint64_t magic;", "unsupported packet.header" },
		{ "size = 24;", "size = 16;", "unsupported event.header" },
		{ "byte_order = le;", "byte_order = be;", "unsupported byte_order" },
		{ "freq = 1000000000;", "freq = 0;", "invalid clock freq 0" },
		{ "/* CTF 1.8 */", "/* CTF", "signature" },
		{ "major = 1;", "major = \"x;", "malformed integer literal" },
		{ "\"other:big_id\"", "\"other:big_id", "unterminated string" },
		{ "uuid = \"2a", "uuid = \"zz", "malformed uuid" },
		{ "stream {", "/* stream {", "missing stream block" },
		{ "double _val;", "double _val[4];", "unsupported element type" },
		{ "clock {", "clock2 {", "unexpected 'clock2'" },
		{ "size = 8; align = 8; signed = false; } := uint8_t;",
		  "size = 8; align = 8; signed = false; := uint8_t;",
		  "expected" },
		{ "offset_s = 0;", "offset_s = 99999999999999999999999;",
		  "out of range" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m = meta_replace(cases[i].from, cases[i].to);

		expect_bad_meta(m, cases[i].what);
		free(m);
	}
	expect_bad_meta("", "signature");
	expect_bad_meta("/* CTF 1.8 */\n", "missing trace block");
}
END_TEST

/* Every truncation and every single-byte flip: errors only, no crash. */
START_TEST(test_fuzz_stream)
{
	struct sbuild s;
	struct tbuf img;
	char msg[SHMTRACE_RD_ERRLEN];
	size_t i, len;
	int n;

	build_basic(tmpdir);	/* metadata */
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 1000, 42);
	sb_ev_a(&s, 1000, -5, 0xdeadbeef, "hello", 3.5);
	sb_ev_seq(&s, 2000, seq_vals, 5);
	sb_ev_empty(&s, 0x2000000, false);
	sb_ev_big(&s, 0x2000001, 1);
	sb_end(&s, 0x3000000);
	sb_begin(&s, 0x3000000, 43);
	sb_ev_ints(&s, 0x3000001, 9);
	sb_end(&s, 0x3000002);
	img = s.file;
	len = img.len;
	tb_free(&s.ev);
	for (i = 0; i < len; i++) {
		write_file(tmpdir, "chan_0", img.p, i);
		ck_assert_int_lt(drain(tmpdir, msg, sizeof(msg), &n), 1);
	}
	for (i = 0; i < len; i++) {
		unsigned char save = img.p[i];

		img.p[i] ^= 0xa5;
		write_file(tmpdir, "chan_0", img.p, len);
		ck_assert_int_lt(drain(tmpdir, msg, sizeof(msg), &n), 1);
		img.p[i] = save;
	}
	write_file(tmpdir, "chan_0", img.p, len);
	ck_assert_int_eq(drain(tmpdir, msg, sizeof(msg), &n), 0);
	ck_assert_int_eq(n, 5);
	tb_free(&img);
}
END_TEST

START_TEST(test_fuzz_metadata)
{
	char *m = metadata_text(UUID_A, "p", 1, 0, 0, 1000000000, events_tsdl);
	size_t i, len = strlen(m);
	struct tsdl_metadata *md;
	char err[256];
	int ok = 0;

	for (i = 0; i <= len; i++) {
		if (!tsdl_parse(m, i, "metadata", &md, err, sizeof(err))) {
			tsdl_free(md);
			ok++;
		}
	}
	/* cuts right after an event block's "};" still parse */
	ck_assert_int_ge(ok, 3);
	ck_assert_int_le(ok, 3 * 6);
	for (i = 0; i < len; i++) {
		char save = m[i];

		m[i] = (char)(save ^ 0x21);
		if (!tsdl_parse(m, len, "metadata", &md, err, sizeof(err)))
			tsdl_free(md);
		m[i] = save;
	}
	free(m);
}
END_TEST

/*
 * Damage stays in its stream: a session of three traces where one stream
 * file has a second packet with an unknown event id, one LZ4 stream file
 * has its second frame cut short, a trace has garbage for metadata and a
 * trace directory holds a hidden file of garbage. Every other event comes
 * out, in time order; the damaged streams give their first packet's; then
 * the damage is said, each with its file and offset.
 */
static void lz4_frames(struct tbuf *out, const struct tbuf *plain, const size_t *cuts, int n)
{
	size_t from = 0;

	for (int i = 0; i < n; i++) {
		size_t len = cuts[i] - from, cap = LZ4F_compressFrameBound(len, NULL);
		unsigned char *z = malloc(cap);
		size_t zn;

		ck_assert_ptr_nonnull(z);
		zn = LZ4F_compressFrame(z, cap, plain->p + from, len, NULL);
		ck_assert(!LZ4F_isError(zn));
		tb_put(out, z, zn);
		free(z);
		from = cuts[i];
	}
}

START_TEST(test_damage_isolated)
{
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_value v;
	struct sbuild s;
	struct tbuf z = { 0 };
	char *sess = subdir(tmpdir, "session");
	char *ta = subdir(sess, "a-1"), *tb = subdir(sess, "b-2"), *tc = subdir(sess, "c-3");
	size_t cuts[2], bad_off, n[5] = { 0 };
	int64_t prev = INT64_MIN;
	int rc, i;
	char want[512];

	/* a-1/ok: 2 packets of 5 events; a-1/bad: 3 events, then an unknown id */
	write_meta(ta, UUID_A, "a", 1, 0, 0);
	sb_init(&s, UUID_A, 0);
	for (int k = 0; k < 2; k++) {
		sb_begin(&s, 100 + 1000 * k, 1);
		for (i = 0; i < 5; i++)
			sb_ev_ints(&s, 100 + 1000 * k + 10 * i, 0);
		sb_end(&s, 100 + 1000 * k + 40);
	}
	sb_write(&s, ta, "ok");
	sb_init(&s, UUID_A, 1);
	sb_begin(&s, 105, 2);
	for (i = 0; i < 3; i++)
		sb_ev_ints(&s, 105 + 10 * i, 1);
	sb_end(&s, 125);
	bad_off = s.file.len + 84;	/* the second packet's first event */
	sb_begin(&s, 200, 2);
	sb_ev_ints(&s, 200, 1);
	sb_end(&s, 3000);
	ck_assert_uint_eq(s.file.p[bad_off], EV_INTS);
	s.file.p[bad_off] = 99;
	sb_write(&s, ta, "bad");
	write_file(ta, ".bookkeeping", "\xff\xfe not a stream", 17);

	/* b-2: metadata that is not */
	write_file(tb, "metadata", "garbage", 7);
	sb_init(&s, UUID_B, 0);
	sb_begin(&s, 150, 3);
	sb_ev_ints(&s, 150, 2);
	sb_end(&s, 150);
	sb_write(&s, tb, "ch");

	/* c-3/ok: 4 events; c-3/z: LZ4, two frames, the second cut short */
	write_meta(tc, UUID_B, "c", 3, 0, 0);
	sb_init(&s, UUID_B, 0);
	sb_begin(&s, 110, 4);
	for (i = 0; i < 4; i++)
		sb_ev_ints(&s, 110 + 10 * i, 3);
	sb_end(&s, 140);
	sb_write(&s, tc, "ok");
	sb_init(&s, UUID_B, 1);
	sb_begin(&s, 115, 5);
	sb_ev_ints(&s, 115, 4);
	sb_ev_ints(&s, 116, 4);
	sb_end(&s, 116);
	cuts[0] = s.file.len;
	sb_begin(&s, 500, 5);
	sb_ev_ints(&s, 500, 4);
	sb_end(&s, 500);
	cuts[1] = s.file.len;
	lz4_frames(&z, &s.file, cuts, 2);
	z.len -= 5;
	write_file(tc, "z", z.p, z.len);
	tb_free(&s.file);
	tb_free(&s.ev);

	r = open_one(sess);
	ck_assert_uint_eq(shmtrace_rd_trace_count(r), 2);	/* b-2 is damage */
	ck_assert_uint_eq(shmtrace_rd_stream_count(r), 4);	/* .bookkeeping ignored */
	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		ck_assert_int_ge(shmtrace_rd_event_time_ns(ev), prev);
		prev = shmtrace_rd_event_time_ns(ev);
		ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
		ck_assert_uint_lt(v.u, 5);
		ck_assert_uint_ne(v.u, 2);
		n[v.u]++;
	}
	ck_assert_uint_eq(n[0], 10);	/* a-1/ok whole */
	ck_assert_uint_eq(n[1], 3);	/* a-1/bad up to its damage */
	ck_assert_uint_eq(n[3], 4);	/* c-3/ok whole */
	ck_assert_uint_eq(n[4], 2);	/* c-3/z: its whole frame */
	ck_assert_uint_eq(shmtrace_rd_damage_count(r), 3);
	/* found in that order: metadata at open, then each stream as it ends */
	ck_assert_int_eq(rc, shmtrace_rd_damage_error(r, 0));
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_null(shmtrace_rd_damage_stream(r, 0));
	ck_assert_int_eq(shmtrace_rd_damage_offset(r, 0), -1);
	ck_assert_ptr_nonnull(strstr(shmtrace_rd_damage_message(r, 0), "b-2/metadata:1: "));
	ck_assert_str_eq(shmtrace_rd_errmsg(r), shmtrace_rd_damage_message(r, 0));
	for (size_t d = 1; d < 3; d++) {
		const struct shmtrace_rd_stream *st = shmtrace_rd_damage_stream(r, d);

		ck_assert_ptr_nonnull(st);
		ck_assert_int_eq(shmtrace_rd_stream_error(st), shmtrace_rd_damage_error(r, d));
		ck_assert_str_eq(shmtrace_rd_stream_path(st), shmtrace_rd_damage_path(r, d));
		if (strstr(shmtrace_rd_damage_path(r, d), "a-1/bad")) {
			snprintf(want, sizeof(want), "%s/bad: offset %zu: unknown event id 99", ta,
				 bad_off);
			ck_assert_str_eq(shmtrace_rd_damage_message(r, d), want);
			ck_assert_int_eq(shmtrace_rd_damage_offset(r, d), (int64_t)bad_off);
			ck_assert_int_eq(shmtrace_rd_damage_error(r, d), -EBADMSG);
		} else {
			snprintf(want, sizeof(want), "%s/z: byte %zu: LZ4 frame cut short", tc,
				 z.len);
			ck_assert_str_eq(shmtrace_rd_damage_message(r, d), want);
			ck_assert_int_eq(shmtrace_rd_damage_offset(r, d), (int64_t)z.len);
			ck_assert_int_eq(shmtrace_rd_damage_error(r, d), -EIO);
		}
	}
	ck_assert_int_eq(shmtrace_rd_next(r, &ev), rc);	/* sticky */
	shmtrace_rd_close(r);
	tb_free(&z);
	free(ta);
	free(tb);
	free(tc);
	free(sess);
}
END_TEST

/* ---- function names ---------------------------------------------------- */

/* A function of this program whose addresses the trace records (some bytes long). */
static __attribute__((noinline, used)) int reader_test_target(int n)
{
	volatile int x = 0;

	for (int k = 0; k < n; k++)
		x += k;
	return x;
}

struct self_map {
	uint64_t base, low, high;
};

/* The load bias and the span of the PT_LOAD segments of the program itself. */
static int self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_map *m = arg;

	m->base = info->dlpi_addr;
	m->low = UINT64_MAX;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < m->low)
			m->low = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > m->high)
			m->high = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;	/* the first object is the program */
}

static int warnings;

static void count_warning(void *arg, const char *msg)
{
	ck_assert_ptr_eq(arg, &warnings);
	ck_assert_ptr_nonnull(strstr(msg, "/nonexistent/libgone.so"));
	warnings++;
}

START_TEST(test_symbols)
{
	uint64_t fn = (uint64_t)(uintptr_t)&reader_test_target;
	struct shmtrace_rd_symbols *syms = (void *)1;
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_symbol sym;
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_value v;
	struct self_map self = { 0 };
	char exe[4096], *events, *meta;
	ssize_t n;
	int named[6] = { 0 }, i = 0;
	struct sbuild s;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	dl_iterate_phdr(self_cb, &self);
	ck_assert(self.low < fn && fn < self.high);
	ck_assert_int_ge(asprintf(&events, "%s%s", events_tsdl, bin_info_tsdl), 0);
	meta = metadata_text(UUID_A, "myproc", 1234, 1700000000, 0, 1000000000, events);
	write_file(tmpdir, "metadata", meta, strlen(meta));
	free(meta);
	free(events);
	sb_init(&s, UUID_A, 0);
	sb_begin(&s, 1000, 42);
	sb_ev_a(&s, 1000, 1, fn, "before the state dump", 0);
	sb_ev_bin_info(&s, 1001, self.base, self.low, self.high, exe);
	sb_ev_bin_info(&s, 1002, 0x1000, 0x1000, 0x2000, "/nonexistent/libgone.so");
	sb_ev_bin_info(&s, 1003, 0x1000, 0x1000, 0x2000, "/nonexistent/libgone.so");
	sb_ev_a(&s, 1004, 2, fn, "the function", 0);
	sb_ev_a(&s, 1005, 3, fn + 4, "inside it", 0);
	sb_end(&s, 1005);
	sb_write(&s, tmpdir, "chan_0");

	r = open_one(tmpdir);
	ck_assert_int_eq(shmtrace_rd_sym_open(NULL, r, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_sym_open(&syms, NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(syms);
	shmtrace_rd_sym_close(NULL);
	ck_assert_int_eq(shmtrace_rd_sym_open(&syms, r, "", count_warning, &warnings), 0);
	while (shmtrace_rd_next(r, &ev) > 0) {
		struct shmtrace_rd_value code;
		bool bin_info = shmtrace_rd_event_id(ev) == EV_BIN_INFO;

		shmtrace_rd_sym_track(syms, ev);
		/* the first field: an int32_t, or a bin_info's base (its bounds) */
		ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
		ck_assert_int_eq(shmtrace_rd_value_is_address(&v), bin_info);
		ck_assert_int_eq(shmtrace_rd_sym_value(syms, ev, false, &v, &sym), 0);
		/* an address in the function: ev_a's _ptr, or the bin_info's base made one */
		if (!bin_info)
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 1, &v), 0);
		code = v;
		code.u = bin_info ? fn : v.u;
		ck_assert(shmtrace_rd_value_is_address(&code));
		named[i++] = shmtrace_rd_sym_value(syms, ev, false, &code, &sym);
		if (named[i - 1]) {
			ck_assert_str_eq(sym.name, "reader_test_target");
			ck_assert_uint_eq(sym.offset, code.u - fn);
			ck_assert_str_eq(sym.path, exe);
		}
		/* as a context field, named in every event once the program is described */
		ck_assert_int_eq(shmtrace_rd_sym_value(syms, ev, true, &code, &sym), i > 1);
	}
	ck_assert_int_eq(i, 6);
	/* not before the state dump, nor in the payload of the dumps; the function twice */
	ck_assert(!named[0] && !named[1] && !named[2] && !named[3] && named[4] && named[5]);
	ck_assert_int_eq(warnings, 1);
	ck_assert_int_eq(shmtrace_rd_sym_lookup(syms, shmtrace_rd_trace_at(r, 0), fn, &sym), 1);
	ck_assert_str_eq(sym.name, "reader_test_target");
	ck_assert_int_eq(shmtrace_rd_sym_lookup(syms, shmtrace_rd_trace_at(r, 0), 0x1800, &sym), 0);
	shmtrace_rd_sym_close(syms);
	shmtrace_rd_close(r);
}
END_TEST

START_TEST(test_no_trace)
{
	char msg[SHMTRACE_RD_ERRLEN];
	struct shmtrace_rd_reader *r = NULL;
	const char *p = tmpdir, *missing = "/nonexistent/trace";

	ck_assert_int_eq(shmtrace_rd_open(&r, &p, 1, msg, sizeof(msg)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(msg, "no CTF trace"));
	ck_assert_int_eq(shmtrace_rd_open(&r, &missing, 1, msg, sizeof(msg)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(msg, "/nonexistent/trace"));
}
END_TEST

/* ---- samples for babeltrace2 comparison ------------------------------------ */

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* N random events over 2 traces x 3 streams, packets of ~64 KiB. */
static void build_random(const char *dir, long n)
{
	static const char *const words[] = {
		"", "a", "hello world", "tab\there", "quote\"back\\slash",
		"nl\nesc\x1b", "utf8 \xc3\xa9t\xc3\xa9",
	};
	int t, st;

	for (t = 0; t < 2; t++) {
		char name[32], *td;

		snprintf(name, sizeof(name), "rnd%d-%d", t, 4000 + t);
		td = subdir(dir, name);
		write_meta(td, t ? UUID_B : UUID_A, name, 4000 + t,
			   1700000000 + t, 250000000 * t);
		for (st = 0; st < 3; st++) {
			struct sbuild s;
			uint64_t ts = 1000000 + rnd() % 1000;
			long i, per = n / 6;

			sb_init(&s, t ? UUID_B : UUID_A, st);
			sb_begin(&s, ts, 500 + st);
			for (i = 0; i < per; i++) {
				int16_t sv[8];
				uint32_t k, cnt;

				ts += rnd() % 64 == 0 ? rnd() % (1ULL << 26) :
					rnd() % 2000;
				switch (rnd() % 5) {
				case 0:
					sb_ev_a(&s, ts, (int32_t)rnd(), rnd() >> (rnd() % 64),
						words[rnd() % 7],
						(double)(int64_t)(rnd() % 20000 - 10000) / 4);
					break;
				case 1:
					cnt = rnd() % 8;
					for (k = 0; k < cnt; k++)
						sv[k] = (int16_t)rnd();
					sb_ev_seq(&s, ts, sv, cnt);
					break;
				case 2:
					sb_ev_empty(&s, ts, rnd() % 4 == 0);
					break;
				case 3:
					sb_ev_ints(&s, ts, rnd() >> (rnd() % 64));
					break;
				default:
					sb_ev_big(&s, ts, rnd());
					break;
				}
				if (s.ev.len > 65000) {
					sb_end(&s, ts);
					if (rnd() % 4 == 0)
						s.disc += rnd() % 10;
					sb_begin(&s, ts, 500 + st);
				}
			}
			sb_end(&s, ts);
			snprintf(name, sizeof(name), "chan_%d", st);
			sb_write(&s, td, name);
		}
		free(td);
	}
}

static int write_samples(const char *dir, long n)
{
	char *d;

	mkdir(dir, 0755);
	d = subdir(dir, "basic");
	build_basic(d);
	free(d);
	d = subdir(dir, "session");
	build_session(d);
	free(d);
	d = subdir(dir, "random");
	build_random(d, n);
	free(d);
	return 0;
}


/*
 * A trace in LTTng's form (the general decoder, reader-ctf.c): packetized
 * metadata; the compact event header of a 5-bit id and a 27-bit
 * timestamp, which wraps (the clock is rebuilt from the previous value),
 * and its extended form (id 31, then a 32-bit id and a 64-bit timestamp);
 * a vtid event context; a string, a sequence of big-endian integers and an
 * enumeration; a struct, a variant and an array of strings, flattened; the
 * packet context's cpu_id as a context field.
 */
static const char lt_meta[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	"trace { major = 1; minor = 8; uuid = \"" UUID_A "\"; byte_order = le;\n"
	"  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
	"    uint64_t stream_instance_id; }; };\n"
	"env { tracer_name = \"lttng-ust\"; procname = \"lt\"; vpid = 12; };\n"
	"clock { name = \"monotonic\"; freq = 1000000000; offset = 0; };\n"
	"typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n"
	"struct packet_context { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;\n"
	"  uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
	"  unsigned long events_discarded; uint32_t cpu_id; };\n"
	"struct event_header_compact {\n"
	"  enum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	"  variant <id> { struct { uint27_clock_t timestamp; } compact;\n"
	"    struct { uint32_t id; uint64_clock_t timestamp; } extended; } v;\n"
	"} align(8);\n"
	"stream { id = 0; event.header := struct event_header_compact;\n"
	"  packet.context := struct packet_context;\n"
	"  event.context := struct { integer { size = 32; align = 8; signed = 1; } _vtid; }; };\n"
	"event { name = \"t:a\"; id = 0; stream_id = 0; fields := struct { uint32_t _v; }; };\n"
	"event { name = \"t:s\"; id = 1; stream_id = 0; fields := struct { string _s; uint8_t _n;\n"
	"  integer { size = 16; align = 8; signed = 0; byte_order = be; base = 16; } _q[_n];\n"
	"  enum : uint8_t { X = 1, Y = 2 } _e; }; };\n"
	"event { name = \"t:n\"; id = 2; stream_id = 0; fields := struct {\n"
	"  struct { uint8_t _x; uint16_t _y; } _st; enum : uint8_t { A = 0, B = 1 } _tag;\n"
	"  variant <_tag> { string A; uint32_t B; } _v; string _names[2]; }; };\n";

START_TEST(test_lttng_form)
{
	static const uint64_t want_ts[] = { 0x7FFFFF8, 0x8000010, 0x12345678, 0x1234567D,
					    0x12345680 };
	static const char *const want_n[] = { "st.x", "st.y", "tag", "v", "names[0]", "names[1]" };
	struct tbuf md = { 0 }, f = { 0 };
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_value v;
	size_t tlen = strlen(lt_meta), ctx_off;
	unsigned char uuid[16];
	int rc, n = 0;

	/* the metadata, in one packet of 4096 bytes */
	tb_u32(&md, 0x75D11D57);
	parse_uuid(UUID_A, uuid);
	tb_put(&md, uuid, 16);
	tb_u32(&md, 0);				/* checksum */
	tb_u32(&md, (uint32_t)(37 + tlen) * 8);	/* content_size */
	tb_u32(&md, 4096 * 8);			/* packet_size */
	tb_put(&md, "\0\0\0\1\10", 5);		/* schemes, major 1, minor 8 */
	tb_put(&md, lt_meta, tlen);
	REQUIRE(md.len <= 4096);
	while (md.len < 4096)
		tb_u8(&md, 0);
	write_file(tmpdir, "metadata", md.p, md.len);

	/* one packet: header, context, 5 events */
	tb_u32(&f, 0xC1FC1FC1);
	tb_put(&f, uuid, 16);
	tb_u32(&f, 0);
	tb_u64(&f, 0);
	tb_u64(&f, 0x7FFFFF0);			/* timestamp_begin */
	tb_u64(&f, 0x12345680);			/* timestamp_end */
	ctx_off = f.len;
	tb_u64(&f, 0);				/* content_size, below */
	tb_u64(&f, 0);				/* packet_size, below */
	tb_u64(&f, 7);				/* packet_seq_num */
	tb_u64(&f, 0);				/* events_discarded */
	tb_u32(&f, 1);				/* cpu_id */
	tb_u32(&f, 0 | (0x7FFFFF8 & 0x7FFFFFF) << 5);	/* t:a, compact */
	tb_u32(&f, 77);
	tb_u32(&f, 1);
	tb_u32(&f, 0 | (0x8000010 & 0x7FFFFFF) << 5);	/* wrapped */
	tb_u32(&f, 77);
	tb_u32(&f, 2);
	tb_u8(&f, 31);				/* extended */
	tb_u32(&f, 1);
	tb_u64(&f, 0x12345678);
	tb_u32(&f, 78);
	tb_put(&f, "hi", 3);
	tb_u8(&f, 2);
	tb_put(&f, "\1\2\3\4", 4);		/* 0x0102, 0x0304 big-endian */
	tb_u8(&f, 2);				/* Y */
	tb_u32(&f, 0 | (0x1234567D & 0x7FFFFFF) << 5);
	tb_u32(&f, 77);
	tb_u32(&f, 4);
	tb_u32(&f, 2 | (0x12345680 & 0x7FFFFFF) << 5);	/* t:n: nested, flattened */
	tb_u32(&f, 77);
	tb_u8(&f, 5);
	tb_u16(&f, 0x0102);
	tb_u8(&f, 1);				/* B */
	tb_u32(&f, 99);
	tb_put(&f, "ab\0c", 5);
	for (int i = 0; i < 8; i++) {
		f.p[ctx_off + i] = (unsigned char)((f.len * 8) >> (8 * i));
		f.p[ctx_off + 8 + i] = (unsigned char)((f.len * 8) >> (8 * i));
	}
	write_file(tmpdir, "channel0_0", f.p, f.len);

	r = open_one(tmpdir);
	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		ck_assert_int_lt(n, 5);
		ck_assert_uint_eq(shmtrace_rd_event_clock(ev), want_ts[n]);
		ck_assert_uint_eq(shmtrace_rd_event_tid(ev), n == 2 ? 78 : 77);
		ck_assert_uint_eq(shmtrace_rd_event_context_count(ev), 2);
		ck_assert_str_eq(shmtrace_rd_event_context_name(ev, 0), "cpu_id");
		ck_assert_int_eq(shmtrace_rd_event_context(ev, 0, &v), 0);
		ck_assert_uint_eq(v.u, 1);
		ck_assert_int_eq(shmtrace_rd_event_context_index(ev, "vtid"), 1);
		if (n == 4) {
			ck_assert_str_eq(shmtrace_rd_event_name(ev), "t:n");
			ck_assert_uint_eq(shmtrace_rd_event_field_count(ev), 6);
			for (unsigned i = 0; i < 6; i++)
				ck_assert_str_eq(shmtrace_rd_event_field_name(ev, i), want_n[i]);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 1, &v), 0);
			ck_assert_uint_eq(v.u, 0x0102);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 2, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_ENUM);
			ck_assert_str_eq(v.str, "B");
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 3, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_INT);
			ck_assert_uint_eq(v.u, 99);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 5, &v), 0);
			ck_assert_str_eq(v.str, "c");
			ck_assert_int_eq(shmtrace_rd_event_field_index(ev, "names[0]"), 4);
		} else if (n != 2) {
			ck_assert_str_eq(shmtrace_rd_event_name(ev), "t:a");
			ck_assert_uint_eq(shmtrace_rd_event_field_count(ev), 1);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_INT);
			ck_assert_uint_eq(v.u, (uint64_t)n + 1);
		} else {
			ck_assert_str_eq(shmtrace_rd_event_name(ev), "t:s");
			ck_assert_uint_eq(shmtrace_rd_event_field_count(ev), 4);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 0, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_STRING);
			ck_assert_str_eq(v.str, "hi");
			ck_assert_int_eq(shmtrace_rd_event_field_index(ev, "q"), 2);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 2, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_SEQUENCE);
			ck_assert_uint_eq(v.count, 2);
			ck_assert_uint_eq(v.base, 16);
			ck_assert_uint_eq(shmtrace_rd_value_elem_u(&v, 0), 0x0102);
			ck_assert_uint_eq(shmtrace_rd_value_elem_u(&v, 1), 0x0304);
			ck_assert_int_eq(shmtrace_rd_event_field(ev, 3, &v), 0);
			ck_assert_int_eq(v.kind, SHMTRACE_RD_ENUM);
			ck_assert_uint_eq(v.u, 2);
			ck_assert_str_eq(v.str, "Y");
		}
		n++;
	}
	ck_assert_msg(rc == 0, "%s", shmtrace_rd_errmsg(r));
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(shmtrace_rd_stream_packet_seq(shmtrace_rd_stream_at(r, 0)), 7);
	ck_assert_int_eq(shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, 0)), 12);
	shmtrace_rd_close(r);
	tb_free(&md);
	tb_free(&f);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("decode");
	TCase *tcc = tcase_create("corrupt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_discarded);
	tcase_add_test(tc, test_tsdl);
	tcase_add_test(tc, test_freq);
	tcase_add_test(tc, test_symbols);
	tcase_add_test(tc, test_lttng_form);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tcc, setup, teardown);
	tcase_set_timeout(tcc, 60);
	tcase_add_test(tcc, test_truncated);
	tcase_add_test(tcc, test_bad_magic);
	tcase_add_test(tcc, test_content_size);
	tcase_add_test(tcc, test_unknown_id);
	tcase_add_test(tcc, test_unterminated);
	tcase_add_test(tcc, test_seq_past_end);
	tcase_add_test(tcc, test_bad_timestamps);
	tcase_add_test(tcc, test_bad_metadata);
	tcase_add_test(tcc, test_fuzz_stream);
	tcase_add_test(tcc, test_fuzz_metadata);
	tcase_add_test(tcc, test_no_trace);
	tcase_add_test(tcc, test_damage_isolated);
	suite_add_tcase(s, tcc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc >= 3 && !strcmp(argv[1], "--write-samples")) {
		outside_tests = true;
		return write_samples(argv[2], argc >= 4 ? atol(argv[3]) : 60000);
	}
	sr = srunner_create(reader_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
