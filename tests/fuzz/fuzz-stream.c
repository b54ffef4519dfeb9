/* SPDX-License-Identifier: MIT */
/*
 * fuzz-stream.c - fuzz target for the reader's decoding of data stream
 * files (libreader/reader-*.c), plain or LZ4 frames (lz4file.c).
 *
 * Each input is a stream file. It is written into a temporary directory
 * (made once per process) next to a fixed valid metadata file, that of a
 * trace of `gen-events -T` (every field type, the state dump and process
 * events), and read with shmtrace_rd_open() then shmtrace_rd_next() to the
 * end, every field of every event read. The trace uuid of the metadata is
 * the one in the input's first packet header (none for an LZ4 input or one
 * shorter than that), so that seeds from any trace of that program, and
 * mutations of their first header, get past the uuid check that every
 * later packet still faces.
 *
 * The input, inflated here independently when it starts with the LZ4
 * frame magic, is the oracle:
 *  - shmtrace_rd_open() accepts every input; an LZ4 one that does not
 *    inflate whole is read as the frames before the first bad one, then
 *    the damage is said ("STREAM: byte N: what", -EIO), unless a packet of
 *    those frames was damaged first;
 *  - every event returned is inside the content of its packet, as told by
 *    the packet header at shmtrace_rd_stream_packet_offset(): its id, its
 *    timestamp (the low 24 bits of a compact header), its field values are
 *    those decoded here from the bytes at shmtrace_rd_event_offset();
 *    its timestamp lies in [timestamp_begin, timestamp_end] of the packet;
 *    timestamps and times never decrease; tid, sequence number, instance
 *    id and discarded count are those of the header;
 *  - at the end, the packets read cover the whole file;
 *  - an error is -EBADMSG or -EFBIG (or -EIO for LZ4), sticky, with a
 *    message that names the stream file and an offset inside it, the one
 *    entry of the damage list, and the stream's error.
 *
 *  - a healthy trace read at the same time (a second path) gives all its
 *    events, whatever the fuzzed stream holds: damage stays in its stream.
 *
 * A broken invariant aborts, which both libFuzzer and driver.c report.
 * Under `make check` the target is linked with driver.c, whose seed corpus
 * here is tests/fuzz/corpus-stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lz4frame.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "fuzz.h"
#include "tsdl.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-stream: %s:%d: %s\n", __FILE__,		\
			__LINE__, #cond);					\
		abort();							\
	}									\
} while (0)

#define FS_MAX_INFLATED	(64U << 20)

/* The metadata of the seed traces, cut where the trace uuid goes. */
static const char fs_meta_head[] =
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
	"\tminor = 8;\n";
static const char fs_meta_tail[] =
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
	"\thostname = \"host\";\n"
	"\tdomain = \"ust\";\n"
	"\ttracer_name = \"shmtrace\";\n"
	"\ttracer_major = 0;\n"
	"\ttracer_minor = 1;\n"
	"\tvpid = 17022;\n"
	"\tprocname = \"gen-events\";\n"
	"};\n"
	"\n"
	"clock {\n"
	"\tname = \"tsc\";\n"
	"\tuuid = \"34acedbf-1d89-4fe3-a120-eefffe4742d0\";\n"
	"\tdescription = \"TSC, calibrated against CLOCK_MONOTONIC\";\n"
	"\tfreq = 2596097999;\n"
	"\tprecision = 1;\n"
	"\toffset_s = 1795312652;\n"
	"\toffset = 957907312;\n"
	"\tabsolute = false;\n"
	"};\n"
	"\n"
	"typealias integer { size = 24; align = 1; signed = false; map = clock.tsc.value; } "
	":= uint24_clock_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.tsc.value; } "
	":= uint64_clock_t;\n"
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
	"\n"
	"event {\n"
	"\tname = \"shmtrace_statedump:end\";\n"
	"\tid = 0;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 7;\n"
	"\tfields := struct {\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_statedump:bin_info\";\n"
	"\tid = 1;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 7;\n"
	"\tfields := struct {\n"
	"\t\txint64_t _base;\n"
	"\t\txint64_t _low;\n"
	"\t\txint64_t _high;\n"
	"\t\tstring _path;\n"
	"\t\tuint32_t _build_id_length;\n"
	"\t\tuint8_t _build_id[_build_id_length];\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_statedump:start\";\n"
	"\tid = 2;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 7;\n"
	"\tfields := struct {\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_proc:dlclose\";\n"
	"\tid = 3;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\txint64_t _base;\n"
	"\t\tint32_t _result;\n"
	"\t\txint64_t _caller;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_proc:dlopen\";\n"
	"\tid = 4;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tstring _path;\n"
	"\t\tint32_t _flags;\n"
	"\t\txint64_t _base;\n"
	"\t\txint64_t _caller;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_proc:exit\";\n"
	"\tid = 5;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tint32_t _status;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_proc:fork\";\n"
	"\tid = 6;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tint32_t _parent_pid;\n"
	"\t\tint32_t _child_pid;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_proc:exec\";\n"
	"\tid = 7;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tstring _path;\n"
	"\t\tint32_t _pid;\n"
	"\t\tint32_t _ppid;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_test:mark\";\n"
	"\tid = 8;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 5;\n"
	"\tfields := struct {\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_test:types\";\n"
	"\tid = 9;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 7;\n"
	"\tfields := struct {\n"
	"\t\tuint8_t _u8;\n"
	"\t\tuint16_t _u16;\n"
	"\t\tuint32_t _u32;\n"
	"\t\tuint64_t _u64;\n"
	"\t\tint8_t _s8;\n"
	"\t\tint16_t _s16;\n"
	"\t\tint32_t _s32;\n"
	"\t\tint64_t _s64;\n"
	"\t\tdouble _dbl;\n"
	"\t\txint64_t _ptr;\n"
	"\t\tstring _str;\n"
	"\t\tuint32_t _bytes_length;\n"
	"\t\tuint8_t _bytes[_bytes_length];\n"
	"\t\tuint32_t _ints_length;\n"
	"\t\tint32_t _ints[_ints_length];\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"shmtrace_test:event\";\n"
	"\tid = 10;\n"
	"\tstream_id = 0;\n"
	"\tloglevel = 6;\n"
	"\tfields := struct {\n"
	"\t\tuint64_t _seq;\n"
	"\t\tuint32_t _thread;\n"
	"\t\tstring _payload;\n"
	"\t};\n"
	"};\n"
	"\n";
static char fs_dir[256], fs_meta[300], fs_stream[300];
static struct tsdl_metadata *fs_m;	/* the metadata, parsed here */
static char fs_uuid_line[64] = "?";	/* that of the metadata file written */

/*
 * A healthy trace read with the fuzzed one (a second path): whatever the
 * input, its FS_OK_EVENTS events (shmtrace_proc:exit, status 0, 1, ...,
 * FS_OK_PACKETS packets) all come out, in order, its stream undamaged.
 */
#define FS_OK_EVENTS	40
#define FS_OK_PACKETS	2
#define FS_OK_UUID	"\tuuid = \"5d1c0a7e-0b6e-4c1a-9d3f-2e8a7c6b5a49\";\n"
#define FS_EXIT_ID	5			/* shmtrace_proc:exit { int32_t status } */
static char fs_ok_dir[300], fs_ok_meta[320], fs_ok_stream[320];

static void fs_cleanup(void)
{
	unlink(fs_ok_meta);
	unlink(fs_ok_stream);
	rmdir(fs_ok_dir);
	unlink(fs_meta);
	unlink(fs_stream);
	rmdir(fs_dir);
	tsdl_free(fs_m);
}

/*
 * Rewrite a file, cut to its new size after writing: much faster than
 * O_TRUNC on file systems that flush data truncated to 0 at close.
 */
static void fs_write_file(const char *path, const void *data, size_t len)
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

static void fs_put(uint8_t **p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		*(*p)++ = (uint8_t)(v >> (8 * i));
}

/* The healthy trace (see FS_OK_EVENTS), written once. */
static void fs_write_healthy(void)
{
	static const uint8_t uuid[16] = {
		0x5d, 0x1c, 0x0a, 0x7e, 0x0b, 0x6e, 0x4c, 0x1a,
		0x9d, 0x3f, 0x2e, 0x8a, 0x7c, 0x6b, 0x5a, 0x49,
	};
	enum { PER = FS_OK_EVENTS / FS_OK_PACKETS, PKT = TSDL_PACKET_HEADER_SIZE + 8 * PER };
	size_t h = strlen(fs_meta_head), u = strlen(FS_OK_UUID), t = strlen(fs_meta_tail);
	uint8_t file[FS_OK_PACKETS * PKT], *p = file;
	char *text = malloc(h + u + t);

	CHECK(text != NULL);
	memcpy(text, fs_meta_head, h);
	memcpy(text + h, FS_OK_UUID, u);
	memcpy(text + h + u, fs_meta_tail, t);
	fs_write_file(fs_ok_meta, text, h + u + t);
	free(text);
	for (unsigned k = 0; k < FS_OK_PACKETS; k++) {
		uint64_t ts0 = 1000 + 100 * (uint64_t)k * PER;

		fs_put(&p, 0xC1FC1FC1, 4);
		memcpy(p, uuid, 16);
		p += 16;
		fs_put(&p, 0, 4);			/* stream_id */
		fs_put(&p, 7, 8);			/* stream_instance_id */
		fs_put(&p, ts0, 8);			/* timestamp_begin */
		fs_put(&p, ts0 + 100 * (PER - 1), 8);	/* timestamp_end */
		fs_put(&p, 8 * PKT, 8);			/* content_size */
		fs_put(&p, 8 * PKT, 8);			/* packet_size */
		fs_put(&p, k, 8);			/* packet_seq_num */
		fs_put(&p, 0, 8);			/* events_discarded */
		fs_put(&p, 4242, 4);			/* tid */
		for (unsigned i = 0; i < PER; i++) {
			fs_put(&p, FS_EXIT_ID | (ts0 + 100 * i) << 8, 4);	/* compact */
			fs_put(&p, k * PER + i, 4);
		}
	}
	fs_write_file(fs_ok_stream, file, sizeof(file));
}

static void fs_init(void)
{
	const char *tmp = getenv("TMPDIR");
	char *text, err[512];
	size_t h = strlen(fs_meta_head), t = strlen(fs_meta_tail);

	if (fs_dir[0])
		return;
	if (!tmp || !*tmp || strlen(tmp) > 200)
		tmp = "/tmp";
	snprintf(fs_dir, sizeof(fs_dir), "%s/fuzz-stream.XXXXXX", tmp);
	CHECK(mkdtemp(fs_dir) != NULL);
	snprintf(fs_meta, sizeof(fs_meta), "%s/metadata", fs_dir);
	snprintf(fs_stream, sizeof(fs_stream), "%s/ch_0", fs_dir);
	/* inside the fuzzed trace's directory, which the reader does not search */
	snprintf(fs_ok_dir, sizeof(fs_ok_dir), "%s/healthy", fs_dir);
	snprintf(fs_ok_meta, sizeof(fs_ok_meta), "%s/metadata", fs_ok_dir);
	snprintf(fs_ok_stream, sizeof(fs_ok_stream), "%s/ch_0", fs_ok_dir);
	CHECK(mkdir(fs_ok_dir, 0700) == 0);
	atexit(fs_cleanup);
	fs_write_healthy();
	text = malloc(h + t);
	CHECK(text != NULL);
	memcpy(text, fs_meta_head, h);
	memcpy(text + h, fs_meta_tail, t);
	if (tsdl_parse(text, h + t, "metadata", &fs_m, err, sizeof(err))) {
		fprintf(stderr, "fuzz-stream: %s\n", err);
		abort();
	}
	free(text);
}

/* Write the metadata with this uuid line, unless the file has it already. */
static void fs_write_metadata(const char *uuid_line)
{
	size_t h = strlen(fs_meta_head), u = strlen(uuid_line), t = strlen(fs_meta_tail);
	char *text;

	if (!strcmp(uuid_line, fs_uuid_line))
		return;
	text = malloc(h + u + t);
	CHECK(text != NULL);
	memcpy(text, fs_meta_head, h);
	memcpy(text + h, uuid_line, u);
	memcpy(text + h + u, fs_meta_tail, t);
	fs_write_file(fs_meta, text, h + u + t);
	free(text);
	snprintf(fs_uuid_line, sizeof(fs_uuid_line), "%s", uuid_line);
}

static bool fs_is_lz4(const uint8_t *d, size_t n)
{
	return n >= 4 && d[0] == 0x04 && d[1] == 0x22 && d[2] == 0x4d && d[3] == 0x18;
}

/*
 * Inflate LZ4 frames as the reader must: 0 and *out (malloc'ed, *outlen
 * bytes) when every frame is complete and valid; -1 and *out holding the
 * frames before the first one that is not (whole frames only) otherwise;
 * -2 when it would take more than FS_MAX_INFLATED bytes.
 */
static int fs_inflate(const uint8_t *in, size_t n, uint8_t **out, size_t *outlen)
{
	LZ4F_dctx *dctx;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, pos = 0, hint = 1, whole = 0;
	int rc = -1;

	CHECK(!LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)));
	while (pos < n) {
		size_t src = n - pos, dlen;

		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			if (cap > FS_MAX_INFLATED) {
				rc = -2;
				goto out;
			}
			buf = realloc(buf, cap);
			CHECK(buf != NULL);
		}
		dlen = cap - len;
		hint = LZ4F_decompress(dctx, buf + len, &dlen, in + pos, &src, NULL);
		if (LZ4F_isError(hint))
			goto damaged;
		len += dlen;
		pos += src;
		if (hint == 0)
			whole = len;	/* a frame ended */
	}
	/* output still held by the context once all input is taken */
	while (hint != 0) {
		size_t src = 0, dlen;

		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			if (cap > FS_MAX_INFLATED) {
				rc = -2;
				goto out;
			}
			buf = realloc(buf, cap);
			CHECK(buf != NULL);
		}
		dlen = cap - len;
		hint = LZ4F_decompress(dctx, buf + len, &dlen, NULL, &src, NULL);
		if (LZ4F_isError(hint) || !dlen)
			break;
		len += dlen;
		if (hint == 0)
			whole = len;
	}
	if (hint == 0)
		rc = 0;
damaged:
	*out = buf;
	*outlen = rc == 0 ? len : whole;
	buf = NULL;
out:
	free(buf);
	LZ4F_freeDecompressionContext(dctx);
	return rc;
}

static uint64_t fs_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/* The reader's view of the file: the stream as plain bytes. */
struct fs_file {
	const uint8_t *p;
	size_t len;
};

struct fs_state {
	uint64_t last_clock;
	int64_t last_ns;
	uint64_t nevents;
};

/* Check field j of e, found at *pos in the file, and move *pos past it. */
static void fs_check_field(const struct fs_file *f, const struct shmtrace_rd_event *e,
			   const struct tsdl_event_class *c, uint32_t j, uint64_t *pos,
			   uint64_t end, uint64_t *ints)
{
	const struct tsdl_field *fd = &c->fields[j];
	const uint8_t *p = f->p + *pos;
	struct shmtrace_rd_value v;
	uint64_t n, x;
	const uint8_t *z;

	memset(&v, 0, sizeof(v));
	CHECK(shmtrace_rd_event_field(e, j, &v) == 0);
	CHECK(!strcmp(shmtrace_rd_event_field_name(e, j), fd->name));
	switch (fd->kind) {
	case TSDL_F_INT:
		CHECK(end - *pos >= fd->bytes);
		x = fs_le(p, fd->bytes);
		ints[j] = x;
		CHECK(v.kind == SHMTRACE_RD_INT && v.bytes == fd->bytes);
		if (fd->is_signed) {
			unsigned sh = 64 - 8 * fd->bytes;

			CHECK(v.s == (sh ? (int64_t)(x << sh) >> sh : (int64_t)x));
		} else {
			CHECK(v.u == x);
		}
		*pos += fd->bytes;
		break;
	case TSDL_F_FLOAT:
		CHECK(end - *pos >= fd->bytes);
		CHECK(v.kind == SHMTRACE_RD_FLOAT);
		x = fs_le(p, fd->bytes);
		if (fd->bytes == 8) {
			double d;

			memcpy(&d, &x, 8);
			CHECK(!memcmp(&d, &v.d, 8));
		} else {
			uint32_t x32 = (uint32_t)x;
			float fl;

			memcpy(&fl, &x32, 4);
			CHECK(v.d == fl || (v.d != v.d && fl != fl));
		}
		*pos += fd->bytes;
		break;
	case TSDL_F_STRING:
		z = memchr(p, 0, end - *pos);
		CHECK(z != NULL);
		CHECK(v.kind == SHMTRACE_RD_STRING);
		CHECK(v.len == (size_t)(z - p) && strlen(v.str) == v.len);
		CHECK(!memcmp(v.str, p, v.len));
		*pos += v.len + 1;
		break;
	case TSDL_F_SEQUENCE:
	case TSDL_F_ARRAY:
		if (fd->kind == TSDL_F_ARRAY) {
			n = fd->length;
			CHECK(v.kind == SHMTRACE_RD_ARRAY);
		} else {
			const struct tsdl_field *lf = &c->fields[fd->len_field];

			n = ints[fd->len_field];
			if (lf->is_signed)
				CHECK((int64_t)(n << (64 - 8 * lf->bytes)) >= 0);
			CHECK(v.kind == SHMTRACE_RD_SEQUENCE);
		}
		CHECK(v.count == n && v.bytes == fd->bytes);
		CHECK((end - *pos) / fd->bytes >= n);
		CHECK(!memcmp(v.data, p, n * fd->bytes));
		for (uint32_t i = 0; i < n; i++) {
			CHECK(shmtrace_rd_value_elem_u(&v, i) == fs_le(p + (size_t)i * fd->bytes, fd->bytes));
			shmtrace_rd_value_elem_s(&v, i);
		}
		*pos += n * fd->bytes;
		break;
	}
}

static void fs_check_event(const struct fs_file *f, const struct shmtrace_rd_event *e,
			   struct fs_state *st)
{
	const struct shmtrace_rd_stream *s = shmtrace_rd_event_stream(e);
	uint64_t pkt = shmtrace_rd_stream_packet_offset(s);
	uint64_t off = shmtrace_rd_event_offset(e), clock = shmtrace_rd_event_clock(e);
	uint64_t end, pos, id, ints[64];
	const struct tsdl_event_class *c;
	const uint8_t *h;

	/* the packet, as its header tells */
	CHECK(pkt <= f->len && f->len - pkt >= TSDL_PACKET_HEADER_SIZE);
	h = f->p + pkt;
	CHECK(fs_le(h, 4) == TSDL_PACKET_MAGIC);
	CHECK(fs_le(h + 48, 8) / 8 <= f->len - pkt);
	end = pkt + fs_le(h + 48, 8) / 8;
	CHECK(fs_le(h + 48, 8) <= fs_le(h + 56, 8));
	CHECK(shmtrace_rd_stream_tid(s) == fs_le(h + 80, 4));
	CHECK(shmtrace_rd_event_tid(e) == fs_le(h + 80, 4));
	CHECK(shmtrace_rd_stream_packet_seq(s) == fs_le(h + 64, 8));
	CHECK(shmtrace_rd_stream_discarded(s) == fs_le(h + 72, 8));
	CHECK(shmtrace_rd_stream_instance_id(s) == fs_le(h + 24, 8));
	CHECK(fs_le(h + 32, 8) <= clock && clock <= fs_le(h + 40, 8));

	/* the event header */
	CHECK(off >= pkt + TSDL_PACKET_HEADER_SIZE && off < end);
	if (f->p[off] == 255) {
		CHECK(end - off >= 13);
		id = fs_le(f->p + off + 1, 4);
		CHECK(clock == fs_le(f->p + off + 5, 8));
		pos = off + 13;
	} else {
		CHECK(end - off >= 4);
		id = f->p[off];
		CHECK((clock & 0xffffff) == fs_le(f->p + off + 1, 3));
		pos = off + 4;
	}
	CHECK(shmtrace_rd_event_id(e) == id);
	c = tsdl_find_event(fs_m, (uint32_t)id);
	CHECK(c != NULL);
	CHECK(!strcmp(shmtrace_rd_event_name(e), c->name));
	CHECK(shmtrace_rd_event_class_index(e) == c->index);
	CHECK(shmtrace_rd_event_field_count(e) == c->nfields && c->nfields <= 64);
	for (uint32_t j = 0; j < c->nfields; j++)
		fs_check_field(f, e, c, j, &pos, end, ints);
	CHECK(shmtrace_rd_event_field_name(e, c->nfields) == NULL);

	/* time goes forward */
	CHECK(clock >= st->last_clock);
	CHECK(shmtrace_rd_event_time_ns(e) >= st->last_ns);
	CHECK(shmtrace_rd_event_time_ns(e) ==
	      shmtrace_rd_trace_clock_to_ns(shmtrace_rd_event_trace(e), clock));
	st->last_clock = clock;
	st->last_ns = shmtrace_rd_event_time_ns(e);
	st->nevents++;
}

/* An error message: "STREAM: offset N: what", N inside the file. */
static void fs_check_error(const struct fs_file *f, const char *msg)
{
	size_t n = strlen(fs_stream);
	unsigned long long off;

	if (strncmp(msg, fs_stream, n) || sscanf(msg + n, ": offset %llu: ", &off) != 1) {
		fprintf(stderr, "fuzz-stream: bad message: %s\n", msg);
		abort();
	}
	CHECK(off < f->len);
}

/* The damage of an LZ4 file of @size bytes: "STREAM: byte N: what", N inside. */
static void fs_check_lz4_error(const char *msg, size_t size)
{
	size_t n = strlen(fs_stream);
	unsigned long long off;

	if (strncmp(msg, fs_stream, n) || sscanf(msg + n, ": byte %llu: ", &off) != 1) {
		fprintf(stderr, "fuzz-stream: bad message: %s\n", msg);
		abort();
	}
	CHECK(off <= size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *paths[2];
	char err[SHMTRACE_RD_ERRLEN], uuid_line[64];
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *e;
	struct fs_state st = { 0, INT64_MIN, 0 };
	struct fs_file f = { data, size };
	uint8_t *plain = NULL;
	bool lz4 = fs_is_lz4(data, size);
	const struct shmtrace_rd_stream *ok;
	int rc, inflated = 0;
	unsigned nok = 0;

	fs_init();
	if (!lz4 && size >= 20) {
		const uint8_t *u = data + 4;

		snprintf(uuid_line, sizeof(uuid_line),
			 "\tuuid = \"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x\";\n", u[0], u[1], u[2], u[3], u[4],
			 u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	} else {
		uuid_line[0] = '\0';
	}
	fs_write_metadata(uuid_line);
	fs_write_file(fs_stream, data, size);
	if (lz4) {
		rc = fs_inflate(data, size, &plain, &f.len);
		if (rc == -2)
			return 0;	/* a bomb: more than is worth checking */
		inflated = rc == 0;
		f.p = plain;
	}

	paths[0] = fs_dir;
	paths[1] = fs_ok_dir;
	rc = shmtrace_rd_open(&r, paths, 2, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "fuzz-stream: shmtrace_rd_open: %s\n", err);
		abort();
	}
	CHECK(shmtrace_rd_stream_count(r) == 2);
	ok = shmtrace_rd_stream_at(r, 1);
	CHECK(!strcmp(shmtrace_rd_stream_path(ok), fs_ok_stream));
	while ((rc = shmtrace_rd_next(r, &e)) > 0) {
		struct shmtrace_rd_value v;

		if (shmtrace_rd_event_stream(e) != ok) {
			fs_check_event(&f, e, &st);
			continue;
		}
		/* the healthy trace: every event, in order, whatever the other */
		CHECK(shmtrace_rd_event_id(e) == FS_EXIT_ID);
		CHECK(shmtrace_rd_event_field(e, 0, &v) == 0 && v.s == (int64_t)nok);
		nok++;
	}
	CHECK(nok == FS_OK_EVENTS);
	CHECK(shmtrace_rd_stream_error(ok) == 0);
	CHECK(shmtrace_rd_stream_event_count(shmtrace_rd_stream_at(r, 0)) == st.nevents);
	if (lz4 && !inflated && rc == -EIO) {
		/* the frames before the damage read whole, then the damage said */
		fs_check_lz4_error(shmtrace_rd_errmsg(r), size);
		CHECK(shmtrace_rd_damage_count(r) == 1);
		CHECK(shmtrace_rd_damage_offset(r, 0) >= 0 &&
		      (uint64_t)shmtrace_rd_damage_offset(r, 0) <= size);
	} else if (rc == 0) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, 0);
		uint64_t pkt = shmtrace_rd_stream_packet_offset(s);

		/* the packets cover the file */
		if (f.len) {
			CHECK(f.len - pkt >= TSDL_PACKET_HEADER_SIZE);
			CHECK(fs_le(f.p + pkt + 56, 8) / 8 == f.len - pkt);
		}
	} else {
		CHECK(rc == -EBADMSG || rc == -EFBIG);
		fs_check_error(&f, shmtrace_rd_errmsg(r));
		CHECK(shmtrace_rd_damage_count(r) == 1);
		CHECK(shmtrace_rd_damage_offset(r, 0) >= 0 &&
		      (uint64_t)shmtrace_rd_damage_offset(r, 0) < f.len);
	}
	/* a whole inflated file, or a damaged one, said as such */
	CHECK(!lz4 || inflated || rc < 0);
	CHECK(shmtrace_rd_stream_error(shmtrace_rd_stream_at(r, 0)) == (rc < 0 ? rc : 0));
	CHECK(shmtrace_rd_next(r, &e) == rc);
	shmtrace_rd_close(r);
	free(plain);
	return 0;
}
