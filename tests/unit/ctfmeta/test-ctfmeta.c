/* SPDX-License-Identifier: MIT */
/*
 * test-ctfmeta.c - unit tests of the CTF metadata and packet headers
 * (support/ctfmeta.c) against doc/trace-format.md.
 *
 * The preamble and event blocks are compared with the exact text of the
 * format document, -ENOSPC is checked at every buffer size, and the packet
 * header's byte offsets are checked one by one. When babeltrace2 is on the
 * PATH, a small complete trace (metadata, one stream file with a packet of
 * events encoded as the inline writer encodes them) is read back with it.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shmtrace/shmtrace.h>
#include "support/ctfmeta.h"
#include "common/proto.h"

static void trace_info(struct ctf_trace_info *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 16; i++)
		t->uuid[i] = (uint8_t)(i * 0x11 + 1);
	strcpy(t->uuid_str, "01122334-4556-6778-899a-abbccddeeff0");
	strcpy(t->clock_uuid, "c10c4000-0000-4000-8000-0000000000aa");
	strcpy(t->clock_name, "monotonic");
	strcpy(t->clock_desc, "CLOCK_MONOTONIC");
	strcpy(t->hostname, "testhost");
	strcpy(t->procname, "myproc");
	strcpy(t->trace_name, "sess");
	strcpy(t->created, "20231114T221320+0000");
	t->pid = 4321;
	t->freq = 1000000000;
	t->offset_s = 1700000000;
	t->offset = 123;
}

/* doc/trace-format.md, "Metadata", with the values of trace_info(). */
static const char expect_preamble[] =
	"/* CTF 1.8 */\n"
	"\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64_t;\n"
	"typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double;\n"
	"\n"
	"trace {\n"
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tuuid = \"01122334-4556-6778-899a-abbccddeeff0\";\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct {\n"
	"\t\tuint32_t magic;\n"
	"\t\tuint8_t uuid[16];\n"
	"\t\tuint32_t stream_id;\n"
	"\t\tuint64_t stream_instance_id;\n"
	"\t};\n"
	"};\n"
	"\n"
	"env {\n"
	"\thostname = \"testhost\";\n"
	"\tdomain = \"ust\";\n"
	"\ttracer_name = \"shmtrace\";\n"
	"\ttracer_major = 0;\n"
	"\ttracer_minor = 1;\n"
	"\ttracer_buffering_scheme = \"pid\";\n"
	"\ttracer_buffering_id = 4321;\n"
	"\tarchitecture_bit_width = 64;\n"
	"\ttrace_name = \"sess\";\n"
	"\ttrace_creation_datetime = \"20231114T221320+0000\";\n"
	"\tvpid = 4321;\n"
	"\tprocname = \"myproc\";\n"
	"};\n"
	"\n"
	"clock {\n"
	"\tname = \"monotonic\";\n"
	"\tuuid = \"c10c4000-0000-4000-8000-0000000000aa\";\n"
	"\tdescription = \"CLOCK_MONOTONIC\";\n"
	"\tfreq = 1000000000;\n"
	"\tprecision = 1;\n"
	"\toffset_s = 1700000000;\n"
	"\toffset = 123;\n"
	"\tabsolute = true;\n"
	"};\n"
	"\n"
	"typealias integer { size = 24; align = 1; signed = false; map = clock.monotonic.value; } := uint24_clock_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;\n"
	"\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_t timestamp_begin;\n"
	"\t\tuint64_clock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t tid;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tenum : uint8_t { compact = 0 ... 254, extended = 255 } id;\n"
	"\t\tvariant <id> {\n"
	"\t\t\tstruct { uint24_clock_t timestamp; } compact;\n"
	"\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
	"\t\t} v;\n"
	"\t} align(8);\n"
	"};\n"
	"\n";

typedef long (*gen_fn)(char *buf, size_t cap, const void *arg);

static long gen_preamble(char *buf, size_t cap, const void *arg)
{
	return ctfmeta_preamble(buf, cap, arg);
}

static long gen_event(char *buf, size_t cap, const void *arg)
{
	return ctfmeta_event(buf, cap, arg, 0);
}

/* @fn at every capacity: -ENOSPC up to @full (the NUL needs a byte), no overrun. */
static void check_enospc(gen_fn fn, const void *arg, long full)
{
	const size_t slack = 64, size = (size_t)full + slack;
	char *b = malloc(size);

	ck_assert_ptr_nonnull(b);
	for (size_t cap = 0; cap <= (size_t)full + 1; cap++) {
		long r;

		memset(b, 0x5c, size);
		r = fn(b, cap, arg);
		if (cap <= (size_t)full)
			ck_assert_msg(r == -ENOSPC, "cap %zu: %ld", cap, r);
		else
			ck_assert_int_eq(r, full);
		/* one assertion per capacity: each one costs the harness a write */
		size_t j = cap;

		while (j < size && b[j] == 0x5c)
			j++;
		ck_assert_msg(j == size, "cap %zu: byte %zu written", cap, j);
	}
	free(b);
}

START_TEST(test_preamble)
{
	struct ctf_trace_info t;
	static char buf[8192];
	long n;

	trace_info(&t);
	n = ctfmeta_preamble(buf, sizeof(buf), &t);
	ck_assert_int_eq(n, (long)strlen(expect_preamble));
	ck_assert_uint_eq(strlen(buf), (size_t)n);
	ck_assert_str_eq(buf, expect_preamble);
	check_enospc(gen_preamble, &t, n);

	/* varying values */
	t.pid = 0;
	t.freq = 1;
	t.offset_s = -5;
	t.offset = UINT64_MAX;
	n = ctfmeta_preamble(buf, sizeof(buf), &t);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(buf, "\n\tvpid = 0;\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\tfreq = 1;\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\toffset_s = -5;\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n\toffset = 18446744073709551615;\n"));
}
END_TEST

static void field(struct proto_event *ev, uint32_t type, const char *name)
{
	struct proto_field *f = &ev->fields[ev->nfields++];

	f->type = type;
	strcpy(f->name, name);
}

static const char expect_event[] =
	"event {\n"
	"\tname = \"myapp:all_types\";\n"
	"\tid = 300;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tuint8_t _u8;\n"
	"\t\tuint16_t _u16;\n"
	"\t\tuint32_t _u32;\n"
	"\t\tuint64_t _u64;\n"
	"\t\tint8_t _s8;\n"
	"\t\tint16_t _s16;\n"
	"\t\tint32_t _s32;\n"
	"\t\tint64_t _s64;\n"
	"\t\txint64_t _ptr;\n"
	"\t\tdouble _dbl;\n"
	"\t\tstring _str;\n"
	"\t\tuint32_t _q8_length;\n"
	"\t\tuint8_t _q8[_q8_length];\n"
	"\t\tuint32_t _qs16_length;\n"
	"\t\tint16_t _qs16[_qs16_length];\n"
	"\t\tuint32_t _q64_length;\n"
	"\t\tuint64_t _q64[_q64_length];\n"
	"\t\tuint32_t _qs64_length;\n"
	"\t\tint64_t _qs64[_qs64_length];\n"
	"\t};\n"
	"};\n"
	"\n";

static void all_types_event(struct proto_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "myapp:all_types");
	ev->id = 300;
	ev->loglevel = SHMTRACE_INFO;
	field(ev, SHMTRACE_TYPE_U8, "u8");
	field(ev, SHMTRACE_TYPE_U16, "u16");
	field(ev, SHMTRACE_TYPE_U32, "u32");
	field(ev, SHMTRACE_TYPE_U64, "u64");
	field(ev, SHMTRACE_TYPE_S8, "s8");
	field(ev, SHMTRACE_TYPE_S16, "s16");
	field(ev, SHMTRACE_TYPE_S32, "s32");
	field(ev, SHMTRACE_TYPE_S64, "s64");
	field(ev, SHMTRACE_TYPE_HEX64, "ptr");
	field(ev, SHMTRACE_TYPE_DOUBLE, "dbl");
	field(ev, SHMTRACE_TYPE_STRING, "str");
	field(ev, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U8, "q8");
	field(ev, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_S16, "qs16");
	field(ev, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U64, "q64");
	field(ev, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_S64, "qs64");
}

START_TEST(test_event_block)
{
	struct proto_event ev;
	static char buf[4096];
	long n;

	all_types_event(&ev);
	n = ctfmeta_event(buf, sizeof(buf), &ev, 0);
	ck_assert_int_eq(n, (long)strlen(expect_event));
	ck_assert_str_eq(buf, expect_event);
	check_enospc(gen_event, &ev, n);

	/* no fields, negative level */
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "p:e");
	ev.id = 0;
	ev.loglevel = -1;
	n = ctfmeta_event(buf, sizeof(buf), &ev, 0);
	ck_assert_str_eq(buf, "event {\n\tname = \"p:e\";\n\tid = 0;\n\tstream_id = 0;\n"
			 "\tloglevel = -1;\n\tfields := struct {\n\t};\n};\n\n");
	ck_assert_int_eq(n, (long)strlen(buf));

	/* every sequence element type */
	for (uint32_t t = SHMTRACE_TYPE_U8; t <= SHMTRACE_TYPE_S64; t++) {
		static const char *const tn[] = {
			NULL, "uint8_t", "uint16_t", "uint32_t", "uint64_t",
			"int8_t", "int16_t", "int32_t", "int64_t",
		};
		char want[128];

		memset(&ev, 0, sizeof(ev));
		strcpy(ev.name, "p:e");
		field(&ev, SHMTRACE_TYPE_SEQ | t, "x");
		ck_assert_int_gt(ctfmeta_event(buf, sizeof(buf), &ev, 0), 0);
		snprintf(want, sizeof(want), "\t\tuint32_t _x_length;\n\t\t%s _x[_x_length];\n",
			 tn[t]);
		ck_assert_ptr_nonnull(strstr(buf, want));
	}
}
END_TEST

START_TEST(test_event_bad_types)
{
	static const uint32_t bad[] = {
		0, SHMTRACE_TYPE_STRING + 1, 0xff, SHMTRACE_TYPE_SEQ, SHMTRACE_TYPE_SEQ | 12,
		SHMTRACE_TYPE_SEQ | 0xff, 0x200, 0xffffffffu, 0x80000000u,
	};
	struct proto_event ev;
	char buf[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		strcpy(ev.name, "p:e");
		field(&ev, SHMTRACE_TYPE_U8, "ok");
		field(&ev, bad[i], "bad");
		ck_assert_msg(ctfmeta_event(buf, sizeof(buf), &ev, 0) == -EINVAL, "type %#x", bad[i]);
	}
	/* every type the decoder accepts is declared */
	for (uint32_t t = 0; t < 0x200; t++) {
		if (!proto_type_valid(t))
			continue;
		memset(&ev, 0, sizeof(ev));
		strcpy(ev.name, "p:e");
		field(&ev, t, "v");
		ck_assert_msg(ctfmeta_event(buf, sizeof(buf), &ev, 0) > 0, "type %#x", t);
	}
	/* a field count beyond the array is bounded */
	all_types_event(&ev);
	field(&ev, SHMTRACE_TYPE_U8, "last");
	ck_assert_uint_eq(ev.nfields, PROTO_MAX_FIELDS);
	{
		long n16 = ctfmeta_event(buf, sizeof(buf), &ev, 0);

		ck_assert_int_gt(n16, 0);
		ev.nfields = 1000;
		ck_assert_int_eq(ctfmeta_event(buf, sizeof(buf), &ev, 0), n16);
		ck_assert_ptr_nonnull(strstr(buf, "\t\tuint8_t _last;\n\t};\n};\n\n"));
	}
}
END_TEST

/*
 * Names in a decoded event's fields block must be unique, or the metadata
 * does not parse: a sequence "x" declares "_x_length" besides "_x".
 */
START_TEST(test_event_declared_names_unique)
{
	static const uint32_t types[] = { SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U8, SHMTRACE_TYPE_U32 };
	static const char *const names[] = { "buf", "buf_length" };
	struct proto_event ev;
	char wire[256], text[1024];
	size_t pos = 0;
	long n = proto_event_encode(wire, sizeof(wire), 1, 6, "myapp", "ev", 2, types, names);
	int ret;

	ck_assert_int_gt(n, 0);
	ret = proto_event_decode(wire, (size_t)n, &pos, &ev);
	ck_assert(ret == 1 || ret == -EPROTO);
	if (ret != 1)
		return;		/* rejected by the decoder: fine */
	ck_assert_int_gt(ctfmeta_event(text, sizeof(text), &ev, 0), 0);
	ck_assert_msg(strstr(strstr(text, "_buf_length;") + 1, "_buf_length;") == NULL,
		      "proto_event_decode accepted fields \"buf\" (sequence) and "
		      "\"buf_length\"; ctfmeta_event then declares _buf_length twice:\n%s", text);
}
END_TEST

/* Stream classes of context sets: declarations in bit order, ids = masks. */
START_TEST(test_context_classes)
{
	static char buf[4096];
	struct proto_event ev;
	long n;

	ck_assert_uint_eq(ctf_context_bit("ip"), SHMTRACE__CTX_IP);
	ck_assert_uint_eq(ctf_context_bit("cpu_id"), SHMTRACE__CTX_CPU);
	ck_assert_uint_eq(ctf_context_bit("cpu"), 0);
	ck_assert_uint_eq(ctf_context_bit(""), 0);
	n = ctfmeta_stream(buf, sizeof(buf), 0);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(buf, "stream {\n\tid = 0;\n"));
	ck_assert_ptr_null(strstr(buf, "event.context"));
	n = ctfmeta_stream(buf, sizeof(buf), SHMTRACE__CTX_ALL);
	ck_assert_int_eq(n, (long)strlen(buf));
	ck_assert_ptr_nonnull(strstr(buf, "stream {\n\tid = 3;\n"));
	ck_assert_ptr_nonnull(strstr(buf, "} align(8);\n\tevent.context := struct {\n"
				      "\t\txint64_t _ip;\n\t\tuint32_t _cpu_id;\n\t};\n};\n"));
	ctfmeta_stream(buf, sizeof(buf), SHMTRACE__CTX_CPU);
	ck_assert_ptr_nonnull(strstr(buf, "event.context := struct {\n\t\tuint32_t _cpu_id;\n\t};"));
	ck_assert_ptr_null(strstr(buf, "_ip"));
	ck_assert_int_eq(ctfmeta_stream(buf, sizeof(buf), SHMTRACE__CTX_ALL + 1), -EINVAL);
	ck_assert_int_eq(ctfmeta_stream(buf, 100, SHMTRACE__CTX_ALL), -ENOSPC);
	memset(&ev, 0, sizeof(ev));
	ev.id = 7;
	snprintf(ev.name, sizeof(ev.name), "p:e");
	ck_assert_int_gt(ctfmeta_event(buf, sizeof(buf), &ev, 2), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\tid = 7;\n\tstream_id = 2;\n"));
}
END_TEST

START_TEST(test_packet_header)
{
	struct ctf_trace_info t;
	struct ctf_packet p = {
		.stream_id = 3,
		.stream_instance_id = 0x0102030405060708ull,
		.ts_begin = 0x1112131415161718ull,
		.ts_end = 0x2122232425262728ull,
		.content_bytes = 84 + 1000,
		.seq = 0x3132333435363738ull,
		.discarded = 0x4142434445464748ull,
		.tid = 0x51525354u,
	};
	uint8_t out[CTF_PACKET_HDR + 8];
	uint64_t v;
	uint32_t v32;

	ck_assert_int_eq(CTF_PACKET_HDR, 84);
	trace_info(&t);
	memset(out, 0xab, sizeof(out));
	ctf_packet_header(out, &t, &p);
	/* magic 0xC1FC1FC1 little-endian */
	ck_assert_int_eq(out[0], 0xc1);
	ck_assert_int_eq(out[1], 0x1f);
	ck_assert_int_eq(out[2], 0xfc);
	ck_assert_int_eq(out[3], 0xc1);
	ck_assert_mem_eq(out + 4, t.uuid, 16);
	memcpy(&v32, out + 20, 4);
	ck_assert_uint_eq(v32, 3);		/* stream_id */
	memcpy(&v, out + 24, 8);
	ck_assert_uint_eq(v, p.stream_instance_id);
	memcpy(&v, out + 32, 8);
	ck_assert_uint_eq(v, p.ts_begin);
	memcpy(&v, out + 40, 8);
	ck_assert_uint_eq(v, p.ts_end);
	memcpy(&v, out + 48, 8);
	ck_assert_uint_eq(v, (84 + 1000) * 8);	/* content_size in bits */
	memcpy(&v, out + 56, 8);
	ck_assert_uint_eq(v, (84 + 1000) * 8);	/* packet_size = content_size */
	memcpy(&v, out + 64, 8);
	ck_assert_uint_eq(v, p.seq);
	memcpy(&v, out + 72, 8);
	ck_assert_uint_eq(v, p.discarded);
	memcpy(&v32, out + 80, 4);
	ck_assert_uint_eq(v32, p.tid);
	ck_assert_int_eq(out[80], 0x54);	/* little-endian */
	for (size_t i = CTF_PACKET_HDR; i < sizeof(out); i++)
		ck_assert_int_eq(out[i], 0xab);
}
END_TEST

/* ---- babeltrace2 --------------------------------------------------------- */

static int have_babeltrace2(void)
{
	FILE *f = popen("command -v babeltrace2 >/dev/null 2>&1 && echo yes", "r");
	char line[16] = "";

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	pclose(f);
	return strncmp(line, "yes", 3) == 0;
}

struct obuf {
	uint8_t b[4096];
	size_t len;
};

static void put(struct obuf *o, const void *p, size_t n)
{
	ck_assert_uint_le(o->len + n, sizeof(o->b));
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

#define PUT(o, T, v) do { T v_ = (v); put((o), &v_, sizeof(v_)); } while (0)

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* The event's payload, encoded as the SHMTRACE_* field writers do. */
static void payload(struct obuf *o, uint32_t a, int64_t neg, const char *s,
		    const uint16_t *v, uint32_t nv, uint64_t ptr, double d, uint8_t b)
{
	PUT(o, uint32_t, a);
	PUT(o, int64_t, neg);
	put(o, s, strlen(s) + 1);
	put(o, &nv, 4);
	if (nv)
		put(o, v, nv * sizeof(*v));
	PUT(o, uint64_t, ptr);
	put(o, &d, 8);
	PUT(o, uint8_t, b);
}

static char *run_babeltrace(const char *dir, int *status)
{
	char cmd[600];
	static char out[65536];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "babeltrace2 --clock-cycles '%s' 2>&1", dir);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (n < sizeof(out) - 1) {
		size_t k = fread(out + n, 1, sizeof(out) - 1 - n, f);

		if (!k)
			break;
		n += k;
	}
	out[n] = 0;
	*status = pclose(f);
	return out;
}

static void rm_trace(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/chan_0", dir);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
}

static char *make_tmpdir(void)
{
	static char dir[256];
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test-ctfmeta-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

START_TEST(test_babeltrace2)
{
	struct ctf_trace_info t;
	struct proto_event ev;
	static char meta[16384];
	static struct obuf pk;
	struct ctf_packet p;
	static const uint16_t v[] = { 1, 2, 65535 };
	const uint64_t begin = 1000000;
	const uint64_t ts1 = begin + 100, ts2 = ts1 + (1u << 25);
	long n, m;
	char *dir, *out;
	char *hdr;
	int status;

	if (!have_babeltrace2()) {
		fprintf(stderr, "babeltrace2 not found: skipping the babeltrace2 check\n");
		return;
	}
	trace_info(&t);
	n = ctfmeta_preamble(meta, sizeof(meta), &t);
	ck_assert_int_gt(n, 0);
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "myapp:request");
	ev.id = 1;
	ev.loglevel = SHMTRACE_INFO;
	field(&ev, SHMTRACE_TYPE_U32, "a");
	field(&ev, SHMTRACE_TYPE_S64, "neg");
	field(&ev, SHMTRACE_TYPE_STRING, "s");
	field(&ev, SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U16, "v");
	field(&ev, SHMTRACE_TYPE_HEX64, "p");
	field(&ev, SHMTRACE_TYPE_DOUBLE, "d");
	field(&ev, SHMTRACE_TYPE_U8, "b");
	m = ctfmeta_event(meta + n, sizeof(meta) - (size_t)n, &ev, 0);
	ck_assert_int_gt(m, 0);

	/* one packet: a compact then an extended event header */
	pk.len = CTF_PACKET_HDR;
	hdr = (char *)pk.b + pk.len;
	ck_assert_uint_eq(shmtrace__hdr_size(1, ts1, begin), 4);
	pk.len = (size_t)(shmtrace__put_hdr(hdr, 4, 1, ts1) - (char *)pk.b);
	payload(&pk, 42, -5, "hello", v, 3, 0x1234, 1.5, 7);
	hdr = (char *)pk.b + pk.len;
	ck_assert_uint_eq(shmtrace__hdr_size(1, ts2, ts1), 13);
	pk.len = (size_t)(shmtrace__put_hdr(hdr, 13, 1, ts2) - (char *)pk.b);
	payload(&pk, 43, INT64_MIN, "", NULL, 0, 0xdeadbeefcafeull, -0.25, 255);
	p = (struct ctf_packet){
		.stream_instance_id = 0, .ts_begin = begin, .ts_end = ts2,
		.content_bytes = pk.len, .seq = 0, .discarded = 0, .tid = 99,
	};
	ctf_packet_header(pk.b, &t, &p);

	dir = make_tmpdir();
	write_file(dir, "metadata", meta, (size_t)(n + m));
	write_file(dir, "chan_0", pk.b, pk.len);
	out = run_babeltrace(dir, &status);
	rm_trace(dir);

	ck_assert_msg(status == 0, "babeltrace2 failed (%d):\n%s", status, out);
	ck_assert_msg(!strstr(out, "WARNING") && !strstr(out, "ERROR") && !strstr(out, "Error"),
		      "babeltrace2 complained:\n%s", out);
#define HAS(s) ck_assert_msg(strstr(out, s) != NULL, "\"%s\" not in:\n%s", s, out)
	HAS("[00000000000001000100]");
	HAS("[00000000000034554532]");	/* 1000100 + 2^25 */
	HAS("testhost:myproc:(4321) myapp:request: { tid = 99 }");
	HAS("v_length = 3,");
	HAS("v_length = 0,");
	HAS("a = 42,");
	HAS("neg = -5,");
	HAS("s = \"hello\"");
	HAS("[0] = 1, [1] = 2, [2] = 65535");
	HAS("p = 0x1234,");
	HAS("d = 1.5");
	HAS("b = 7 }");
	HAS("a = 43,");
	HAS("neg = -9223372036854775808,");
	HAS("s = \"\"");
	HAS("p = 0xDEADBEEFCAFE,");
	HAS("d = -0.25");
	HAS("b = 255 }");
#undef HAS
	/* exactly two events */
	ck_assert_ptr_nonnull(strstr(strstr(out, "myapp:request:") + 1, "myapp:request:"));
	ck_assert_ptr_null(strstr(strstr(strstr(out, "myapp:request:") + 1, "myapp:request:") + 1,
				  "myapp:request:"));
}
END_TEST

static Suite *ctfmeta_suite(void)
{
	Suite *s = suite_create("ctfmeta");
	TCase *tc = tcase_create("core");
	TCase *tb = tcase_create("babeltrace2");

	tcase_add_test(tc, test_preamble);
	tcase_add_test(tc, test_event_block);
	tcase_add_test(tc, test_event_bad_types);
	tcase_add_test(tc, test_event_declared_names_unique);
	tcase_add_test(tc, test_packet_header);
	tcase_add_test(tc, test_context_classes);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tb, 30);
	tcase_add_test(tb, test_babeltrace2);
	suite_add_tcase(s, tb);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ctfmeta_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
