/* SPDX-License-Identifier: MIT */
/*
 * reader-decode.c - packets and events of one stream (see
 * reader-decode.h): each stream file is read one packet at a time with
 * pread() into a buffer owned by the stream (never the whole file), so
 * memory is bounded by (number of streams) x (largest packet), whatever
 * the trace's size. A packet's header and context (doc/trace-format.md)
 * are checked against the file, the metadata and the stream's previous
 * packet; an event's header, context and fields against the packet's
 * content, its time against the packet's and the previous event's.
 *
 * Each stream file holds packets of one stream class (the stream_id of its
 * packet headers), which the stream keeps from its first packet: the class
 * gives the context fields that every event carries between its header and
 * its payload, and the dense table its event ids are looked up in.
 *
 * Invariants: those of reader-objects.h on the packet buffer, s->sc,
 * s->ev, its field offsets and s->last_ts; whatever cannot be believed
 * ends the stream as damage (reader-damage.h), its events before it
 * returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-ctf.h"
#include "reader-damage.h"
#include "reader-decode.h"
#include "reader-objects.h"
#include "tsdl.h"

#define MAX_PACKET (256U << 20)

/*
 * Does clock value @v convert to ns since the Epoch (an int64_t)? The
 * reader refuses a packet whose timestamp_begin or timestamp_end does not,
 * as babeltrace2 does; its events' timestamps lie between the two.
 */
static bool ns_ok(const struct shmtrace_rd_trace *t, uint64_t v)
{
	uint64_t ns = tsdl_cycles_to_ns(t->freq, v);
	int64_t r;

	return ns < INT64_MAX && !__builtin_add_overflow(t->base_ns, (int64_t)ns, &r);
}

static int load_packet(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	const struct tsdl_metadata *m = s->trace->meta;
	unsigned char h[TSDL_PACKET_HEADER_SIZE];
	uint64_t off = s->next_off, left = s->file_size - off;
	uint64_t content, psize, tsb, tse, seq, disc;
	const struct tsdl_stream_class *sc = s->sc;
	uint32_t magic, sid;
	int rc;

	if (left < TSDL_PACKET_HEADER_SIZE)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "truncated packet header (%" PRIu64 " bytes left)",
				  left);
	rc = rd_pread_full(s->fd, h, sizeof(h), off);
	if (rc)
		return rd_fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
				  "read error: %s", strerror(-rc));
	magic = le32(h);
	if (magic != TSDL_PACKET_MAGIC)
		return rd_fail_at(r, s, off, -EBADMSG,
				  "bad packet magic 0x%08" PRIx32, magic);
	if (m->has_uuid && memcmp(h + 4, m->uuid, 16))
		return rd_fail_at(r, s, off + 4, -EBADMSG,
				  "packet uuid does not match the metadata uuid");
	sid = le32(h + 20);
	if (!sc || sc->id != sid) {
		sc = tsdl_find_stream(m, sid);
		if (!sc)
			return rd_fail_at(r, s, off + 20, -EBADMSG,
					  "unknown stream id %" PRIu32, sid);
		if (s->sc)
			return rd_fail_at(r, s, off + 20, -EBADMSG,
					  "stream id %" PRIu32 " after packets of stream id %" PRIu32,
					  sid, s->sc->id);
	}
	tsb = le64(h + 32);
	tse = le64(h + 40);
	content = le64(h + 48);
	psize = le64(h + 56);
	seq = le64(h + 64);
	disc = le64(h + 72);
	if (content % 8 || psize % 8 || content < 8 * TSDL_PACKET_HEADER_SIZE ||
	    content > psize)
		return rd_fail_at(r, s, off + 48, -EBADMSG,
				  "invalid content_size %" PRIu64 " / packet_size %" PRIu64 " (bits)",
				  content, psize);
	if (psize / 8 > left)
		return rd_fail_at(r, s, off + 56, -EBADMSG,
				  "packet_size %" PRIu64 " bytes runs past the end of the file (%" PRIu64 " bytes left)",
				  psize / 8, left);
	if (psize / 8 > MAX_PACKET)
		return rd_fail_at(r, s, off + 56, -EFBIG,
				  "packet too large (%" PRIu64 " bytes)", psize / 8);
	if (tsb > tse)
		return rd_fail_at(r, s, off + 32, -EBADMSG,
				  "timestamp_begin %" PRIu64 " > timestamp_end %" PRIu64,
				  tsb, tse);
	if (!ns_ok(s->trace, tse))
		return rd_fail_at(r, s, off + 40, -EBADMSG,
				  "timestamp_end %" PRIu64 " is out of the clock's range",
				  tse);
	if (s->have_packet) {
		/* (the previous packet's events are in its time range) */
		if (tsb < s->ts_end)
			return rd_fail_at(r, s, off + 32, -EBADMSG,
					  "timestamp_begin %" PRIu64 " goes back before the previous packet's timestamp_end (%" PRIu64 ")",
					  tsb, s->ts_end);
		if (seq <= s->seq)
			return rd_fail_at(r, s, off + 64, -EBADMSG,
					  "packet_seq_num %" PRIu64 " does not follow %" PRIu64,
					  seq, s->seq);
		s->lost += seq - s->seq - 1;
		if (disc < s->discarded)
			return rd_fail_at(r, s, off + 72, -EBADMSG,
					  "events_discarded decreases (%" PRIu64 " < %" PRIu64 ")",
					  disc, s->discarded);
	}
	content /= 8;
	if (content > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		unsigned char *nb;

		while (cap < content)
			cap *= 2;
		nb = malloc(cap);
		if (!nb)
			return rd_fail_at(r, s, off, -ENOMEM, "out of memory");
		free(s->buf);
		s->buf = nb;
		s->cap = cap;
	}
	rc = rd_pread_full(s->fd, s->buf, content, off);
	if (rc)
		return rd_fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
				  "read error: %s", strerror(-rc));
	if (!s->foff) {
		/* field offsets for the largest event of the stream class */
		s->foff = calloc(sc->max_fields + 1, sizeof(*s->foff));
		if (!s->foff)
			return rd_fail_at(r, s, off, -ENOMEM, "out of memory");
	}
	s->have_packet = true;
	s->sc = sc;
	s->pkt_off = off;
	s->next_off = off + psize / 8;
	s->pos = TSDL_PACKET_HEADER_SIZE;
	s->content = content;
	s->ts_begin = tsb;
	s->ts_end = tse;
	s->last_ts = tsb;
	s->seq = seq;
	s->discarded = disc;
	s->instance_id = le64(h + 24);
	s->tid = le32(h + 80);
	return 0;
}

static int decode_event(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	const unsigned char *buf = s->buf;
	const struct tsdl_stream_class *sc = s->sc;
	const struct tsdl_event_class *cls;
	size_t start = s->pos, pos = start, end = s->content;
	uint32_t id, i, *foff = s->foff;
	uint64_t ts;

	if (buf[pos] != 255) {
		uint32_t w, low, prev_low;

		if (end - pos < 4)
			return rd_fail_at(r, s, s->pkt_off + pos, -EBADMSG,
					  "truncated event header");
		w = le32(buf + pos);
		id = w & 0xff;
		low = w >> 8;
		prev_low = s->last_ts & 0xffffff;
		ts = (s->last_ts & ~(uint64_t)0xffffff) | low;
		if (low < prev_low)
			ts += 1 << 24;
		pos += 4;
	} else {
		if (end - pos < 13)
			return rd_fail_at(r, s, s->pkt_off + pos, -EBADMSG,
					  "truncated extended event header");
		id = le32(buf + pos + 1);
		ts = le64(buf + pos + 5);
		pos += 13;
	}
	/* extended: any value; compact: its wrap may pass 2^64 and start over */
	if (ts < s->last_ts)
		return rd_fail_at(r, s, s->pkt_off + start, -EBADMSG,
				  "event timestamp %" PRIu64 " goes back (previous %" PRIu64 ")",
				  ts, s->last_ts);
	if (ts > s->ts_end)
		return rd_fail_at(r, s, s->pkt_off + start, -EBADMSG,
				  "event timestamp %" PRIu64 " is after the packet's timestamp_end %" PRIu64,
				  ts, s->ts_end);
	cls = tsdl_stream_find_event(sc, id);
	if (!cls)
		return rd_fail_at(r, s, s->pkt_off + start, -EBADMSG,
				  "unknown event id %" PRIu32, id);
	if (end - pos < sc->ctx_bytes)
		return rd_fail_at(r, s, s->pkt_off + pos, -EBADMSG,
				  "event %s: context runs past the end of the packet content",
				  cls->name);
	pos += sc->ctx_bytes;

	for (i = 0; i < cls->nfields; i++) {
		const struct tsdl_field *f = &cls->fields[i];
		const unsigned char *z;
		uint64_t n;

		foff[i] = pos;
		switch (f->kind) {
		case TSDL_F_INT:
		case TSDL_F_FLOAT:
			if (end - pos < f->bytes)
				goto past_end;
			pos += f->bytes;
			break;
		case TSDL_F_STRING:
			z = memchr(buf + pos, 0, end - pos);
			if (!z)
				return rd_fail_at(r, s, s->pkt_off + pos, -EBADMSG,
						  "event %s: unterminated string in field %s",
						  cls->name, f->name);
			pos = z - buf + 1;
			break;
		case TSDL_F_SEQUENCE:
		case TSDL_F_ARRAY:
			if (f->kind == TSDL_F_ARRAY) {
				n = f->length;
			} else {
				const struct tsdl_field *lf =
					&cls->fields[f->len_field];

				n = read_uint(buf + foff[f->len_field],
					      lf->bytes);
				if (lf->is_signed && sext(n, lf->bytes) < 0)
					return rd_fail_at(r, s, s->pkt_off + foff[f->len_field],
							  -EBADMSG,
							  "event %s: negative length for field %s",
							  cls->name, f->name);
				if (n > UINT32_MAX)
					goto past_end;
			}
			if (n * f->bytes > end - pos)
				goto past_end;
			pos += n * f->bytes;
			break;
		}
	}
	foff[i] = pos;
	s->ev.cls = cls;
	s->ev.ts = ts;
	s->ev.ns = clock_ns(s->trace, ts);
	s->ev.pos = start;
	s->last_ts = ts;
	s->pos = pos;
	s->nevents++;
	return 1;
past_end:
	return rd_fail_at(r, s, s->pkt_off + start, -EBADMSG,
			  "event %s: field %s runs past the end of the packet content",
			  cls->name, cls->fields[i].name);
}

/*
 * Position s on its next event: 1 if there is one, 0 at its end, < 0 when
 * it ends damaged (recorded) or the reader stops (r->fatal).
 */
int rd_advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	int rc;

	if (__builtin_expect(s->trace->meta->general, 0))
		return rd_ctf_advance(r, s);
	while (s->pos >= s->content) {
		if (s->next_off >= s->file_size) {
			if (s->tail_error)	/* what follows could not be inflated */
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
