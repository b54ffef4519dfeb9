// SPDX-License-Identifier: MIT
/*
 * frame.c - a range of events checked before it becomes a packet.
 *
 * A traced process writes its events into memory it can also scribble
 * over (a bug, or a hostile program of an allowed uid): a range whose
 * bytes are not the events it claims would be copied to disk as a packet
 * that no reader can decode past, and a reader that stops at it would hide
 * the other streams. So the consumer walks each range before writing it,
 * as a reader will (doc/trace-format.md): every event header (compact or
 * extended), its context fields, an id the process described, each field
 * in its declared size (strings ending within the range, sequences within
 * it), the events' count, and timestamps that never go back and stay
 * within the range's begin and end. A range that fails is not written:
 * the stream is closed there (drain.c), what it wrote before stays whole.
 *
 * Pure function of its arguments: any draining thread; the process's
 * event descriptions are the main thread's, read during a round.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <shmtrace/shmtrace.h>
#include "app.h"
#include "frame.h"
#include "common/ringbuf.h"

static uint8_t frame_size(uint32_t type)
{
	switch (type & 0xff) {
	case SHMTRACE_TYPE_U8:
	case SHMTRACE_TYPE_S8:
		return 1;
	case SHMTRACE_TYPE_U16:
	case SHMTRACE_TYPE_S16:
		return 2;
	case SHMTRACE_TYPE_U32:
	case SHMTRACE_TYPE_S32:
		return 4;
	case SHMTRACE_TYPE_U64:
	case SHMTRACE_TYPE_S64:
	case SHMTRACE_TYPE_HEX64:
	case SHMTRACE_TYPE_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

void frame_shape(const struct proto_event *e, struct c_shape *out)
{
	uint32_t f = 0;

	memset(out, 0, sizeof(*out));
	out->known = 1;
	/* the fixed-size fields up to the first string or sequence, in one */
	for (; f < e->nfields && f < PROTO_MAX_FIELDS; f++) {
		uint8_t sz = frame_size(e->fields[f].type);

		if (e->fields[f].type == SHMTRACE_TYPE_STRING || (e->fields[f].type & SHMTRACE_TYPE_SEQ) ||
		    !sz)
			break;
		out->fixed += sz;
	}
	for (; f < e->nfields && f < PROTO_MAX_FIELDS; f++) {
		uint32_t type = e->fields[f].type;

		out->var[out->nvar++] = type == SHMTRACE_TYPE_STRING ? FRAME_STR :
					type & SHMTRACE_TYPE_SEQ ? FRAME_SEQ | frame_size(type) :
					frame_size(type);
	}
}

static uint32_t frame_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t frame_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

int frame_check(const struct c_app *a, uint32_t ctx, const struct rb_range *rg, uint32_t *bad)
{
	const unsigned char *p = (const unsigned char *)rg->data;
	uint32_t len = rg->len, off = 0, n = 0;
	uint32_t ctx_bytes = (ctx & SHMTRACE__CTX_IP ? 8 : 0) + (ctx & SHMTRACE__CTX_CPU ? 4 : 0);
	uint64_t prev = rg->begin_ts;

	while (off < len) {
		const struct c_shape *e;
		uint64_t ts;
		uint32_t id;

		*bad = off;
		if (len - off < 4)
			return -EBADMSG;
		if (p[off] == 255) {
			if (len - off < 13)
				return -EBADMSG;
			id = frame_le32(p + off + 1);
			ts = frame_le64(p + off + 5);
			off += 13;
		} else {
			uint32_t low = frame_le32(p + off) >> 8;

			id = p[off];
			ts = (prev & ~(uint64_t)0xffffff) | low;
			if (low < (prev & 0xffffff))
				ts += 1u << 24;
			off += 4;
		}
		if (ts < prev || ts > rg->end_ts || id >= a->nshape || !a->shape[id].known)
			return -EBADMSG;
		prev = ts;
		e = &a->shape[id];
		if (len - off < ctx_bytes + e->fixed)
			return -EBADMSG;
		off += ctx_bytes + e->fixed;
		for (uint32_t f = 0; f < e->nvar; f++) {
			uint8_t v = e->var[f];

			if (v == FRAME_STR) {
				const unsigned char *z = memchr(p + off, 0, len - off);

				if (!z)
					return -EBADMSG;
				off = (uint32_t)(z - p) + 1;
			} else if (v & FRAME_SEQ) {
				uint64_t count;

				if (len - off < 4 || !(v & ~FRAME_SEQ))
					return -EBADMSG;
				count = frame_le32(p + off);
				off += 4;
				if (count * (v & ~FRAME_SEQ) > len - off)
					return -EBADMSG;
				off += (uint32_t)(count * (v & ~FRAME_SEQ));
			} else {
				if (!v || len - off < v)
					return -EBADMSG;
				off += v;
			}
		}
		n++;
	}
	*bad = off;
	return n == rg->nev ? 0 : -EBADMSG;
}
