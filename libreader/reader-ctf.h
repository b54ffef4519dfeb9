/* SPDX-License-Identifier: MIT */
/*
 * reader-ctf.h - the general decoder: the streams of a trace whose
 * metadata is in the general form (tsdl.h: LTTng's traces, any CTF 1.8 a
 * type tree describes), read packet by packet and event by event, bit by
 * bit as the types say. shmtrace's own traces never come here
 * (reader-decode.c reads them).
 *
 * Each event's values are decoded once, when the stream reaches it, into
 * the stream's struct rd_gen: the context fields (the packet context's
 * own, the stream's event context, the event's context) then the payload
 * fields, flattened (doc/trace-format.md, "Other CTF traces").
 */
#ifndef SHMTRACE_READER_CTF_H
#define SHMTRACE_READER_CTF_H

#include <stdint.h>

#include "tsdl.h"

#include <shmtrace/reader.h>

struct shmtrace_rd_reader;
struct shmtrace_rd_stream;

/* One value of the current event, and its name (the reader's). */
struct rd_gval {
	const char *name;
	struct shmtrace_rd_value v;
	/* 1: str, 2: data, 4: name in the pool, at these offsets (the pool moves) */
	uint32_t pooled;
	uint32_t str_off, data_off, name_off;
};

/* An LTTng-style event header (id enum, then a compact or extended variant). */
struct rd_hdr {
	int known;		/* 0: not looked at yet, 1: this layout, -1: another */
	const struct tsdl_type *t, *id, *cs, *cts, *xs, *xid, *xts;
	uint64_t ext;		/* the id value that selects the extended option */
	int simple;		/* 1: LTTng's large header (16-bit id, 32-bit timestamp, bytes);
				 * 2: its compact one (5 + 27 bits in 32); 0: neither */
};

/* The general decoder's state of one stream. */
struct rd_gen {
	struct rd_gval *vals;	/* [0, nctx): context; [nctx, nvals): payload */
	uint32_t nvals, nctx, npkt, cap;	/* npkt: the packet context's */
	char *pool;		/* strings, names and elements made for the values */
	size_t pool_len, pool_pkt, pool_cap;
	struct rd_named *named;	/* integers read in this event, by name (tags, lengths) */
	uint32_t nnamed, named_cap;
	uint64_t bit;		/* position of the next event in the packet, in bits */
	uint64_t content_bits;
	uint64_t work;		/* types visited in this event (bounded) */
	struct rd_hdr hdr;	/* the stream class's event header, when of LTTng's layout */
	const struct tsdl_event_class *lazy;	/* payload not decoded yet (skipped, or walked for its end) */
	uint64_t lazy_bit;	/* ... where it starts */
	bool lazy_ctx;		/* the contexts not decoded yet either (fixed size) */
	uint64_t lazy_ctx_bit;	/* ... where they start */
	int ctx_known;		/* the stream class's event context looked at: 1 */
	int64_t tid_off;	/* bit offset of its vtid (or tid) member, -1: none */
	const struct tsdl_type *tid_t;
	int32_t tid_idx;	/* the vtid (or tid) context value's index, -1: none, -2: unknown */
	const char *tid_name;
};

/*
 * The contexts and payload of @s's current event, decoded now if they were
 * skipped (of fixed size, they are decoded when first asked for). Values
 * that cannot be made (no memory, limits) leave them empty.
 */
void rd_ctf_payload(struct shmtrace_rd_stream *s);

/*
 * Position @s on its next event: 1 if there is one, 0 at its end, < 0
 * when it ends damaged (recorded) or the reader stops (r->fatal).
 */
int rd_ctf_advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s);

/* Free the state of @s (NULL: nothing). */
void rd_ctf_free(struct rd_gen *g);

#endif
