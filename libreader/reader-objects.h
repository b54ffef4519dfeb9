/* SPDX-License-Identifier: MIT */
/*
 * reader-objects.h - the objects of the reader library (a reader, its
 * traces, streams and events, the damage found) as its parts share them,
 * and the small helpers they all use: little-endian loads, whole reads at
 * an offset, the clock. The parts: reader-discover.c finds the traces and
 * opens them, reader-decode.c reads packets and decodes events,
 * reader-merge.c merges the streams by time, reader-damage.c keeps the
 * damage, reader-access.c answers the accessors; each object is opaque
 * to the library's users (<shmtrace/reader.h>).
 *
 * Invariants:
 *  - every offset and length read from a file is checked against the packet
 *    content (for events) or the file size (for packets) before use; the
 *    packet buffer holds exactly content_size/8 bytes of the current packet;
 *  - a stream is in the heap only while it has an event to give: s->error
 *    is 0 there; a stream whose s->error is set has ended, retired, and its
 *    damage is in r->dmg (one entry per damaged stream or trace);
 *  - r->traces holds only traces whose metadata was read: every accessor
 *    of a trace may use t->meta;
 *  - s->sc is the stream class of every packet read so far (NULL before the
 *    first); a packet of another class is an error;
 *  - s->ev describes the stream's current event; its field offsets
 *    (s->foff[0..nfields]) are absolute positions in s->buf, foff[nfields]
 *    is the end of the event, and its context is the s->sc->ctx_bytes right
 *    before foff[0]; they stay valid until the stream advances;
 *  - s->last_ts is the clock value of the previous event of the stream
 *    (timestamp_begin at a packet start); timestamps never decrease;
 *  - errors are sticky: once shmtrace_rd_next() failed (every stream ended
 *    with damage recorded, or r->fatal) it keeps returning the error;
 *  - a stream of a trace in the general form (t->meta->general: LTTng's)
 *    is read by reader-ctf.c, whose state is s->gen (NULL for shmtrace's
 *    own traces, which keep the fixed-layout decoder): its events have no
 *    field offsets, their values are in s->gen;
 *  - the names of a trace directory that begin with '.' (bookkeeping of the
 *    consumer, as babeltrace2 ignores them), "metadata" and directories are
 *    not stream files.
 */
#ifndef SHMTRACE_READER_OBJECTS_H
#define SHMTRACE_READER_OBJECTS_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "tsdl.h"

struct rd_gen;

struct shmtrace_rd_trace {
	char *path;
	char *meta_path;
	struct tsdl_metadata *meta;
	size_t index;
	int64_t base_ns;	/* clock offset in ns since the Epoch */
	uint64_t freq;
};

struct shmtrace_rd_event {
	struct shmtrace_rd_stream *stream;
	const struct tsdl_event_class *cls;
	uint64_t ts;		/* raw clock value */
	int64_t ns;		/* ns since the Epoch */
	size_t pos;		/* header position in the packet */
};

struct shmtrace_rd_stream {
	struct shmtrace_rd_event ev;
	struct shmtrace_rd_trace *trace;
	char *path;
	int fd;
	size_t index;
	uint64_t file_size;
	unsigned char *buf;
	size_t cap;
	size_t pos;		/* next event position in buf */
	size_t content;		/* bytes of content in buf */
	uint64_t pkt_off;	/* file offset of the current packet */
	uint64_t next_off;	/* file offset of the next packet */
	uint64_t ts_begin, ts_end, last_ts;
	uint64_t seq, discarded, instance_id, lost, nevents;
	uint32_t tid;
	bool have_packet;
	int error;		/* 0, or the damage that ended the stream */
	int tail_error;		/* damage after the file's last byte (LZ4), or 0 */
	char *tail_msg;		/* ... its message */
	uint64_t tail_off;	/* ... its offset (in the compressed file) */
	const struct tsdl_stream_class *sc;
	uint32_t *foff;
	struct rd_gen *gen;	/* general traces (reader-ctf.h): the event's values; else NULL */
};

struct rd_damage {
	char *path;		/* the damaged file */
	char *msg;		/* "FILE: offset N: what", "FILE:LINE: what" */
	int64_t offset;		/* byte offset in FILE, -1 when none (metadata) */
	int error;
	const struct shmtrace_rd_stream *stream;	/* NULL: a trace's metadata */
};

struct shmtrace_rd_reader {
	struct shmtrace_rd_trace **traces;
	size_t ntraces, traces_cap;
	struct shmtrace_rd_stream **streams;
	size_t nstreams, streams_cap;
	struct shmtrace_rd_stream **heap;
	size_t nheap;
	struct shmtrace_rd_stream *cur;
	struct rd_damage *dmg;
	size_t ndmg, dmg_cap;
	size_t found;		/* trace directories found, damaged ones too */
	bool started;
	int fatal;		/* what stopped the reader (not damage), or 0 */
	int error;		/* what shmtrace_rd_next() returns again, or 0 */
	char err[SHMTRACE_RD_ERRLEN];
};

/* ---- helpers ----------------------------------------------------------- */

static inline uint32_t le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint64_t read_uint(const unsigned char *p, unsigned bytes)
{
	uint16_t v16;

	switch (bytes) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return le16toh(v16);
	case 4:
		return le32(p);
	default:
		return le64(p);
	}
}

static inline int64_t sext(uint64_t v, unsigned bytes)
{
	unsigned sh = 64 - 8 * bytes;

	if (!sh)
		return (int64_t)v;
	return (int64_t)(v << sh) >> sh;
}

static inline int rd_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA;	/* file shrank */
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* ---- clock ------------------------------------------------------------- */

/* Clock value to ns since the Epoch, saturated at INT64_MAX. */
static inline int64_t clock_ns(const struct shmtrace_rd_trace *t, uint64_t v)
{
	uint64_t ns = tsdl_cycles_to_ns(t->freq, v);
	int64_t r;

	/* base_ns + ns, saturated at INT64_MAX (it cannot go below INT64_MIN) */
	if (ns <= INT64_MAX)
		return __builtin_add_overflow(t->base_ns, (int64_t)ns, &r) ? INT64_MAX : r;
	if (t->base_ns >= 0)
		return INT64_MAX;
	ns += (uint64_t)t->base_ns;	/* ns - |base_ns|, which does not wrap */
	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

#endif
