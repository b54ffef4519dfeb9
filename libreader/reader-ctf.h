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

#include <shmtrace/reader.h>

struct shmtrace_rd_reader;
struct shmtrace_rd_stream;

/* One value of the current event, and its name (the reader's). */
struct rd_gval {
	const char *name;
	struct shmtrace_rd_value v;
	uint32_t pooled;	/* 1: str in the pool, 2: data in the pool (offsets until fixed) */
};

/* The general decoder's state of one stream. */
struct rd_gen {
	struct rd_gval *vals;	/* [0, nctx): context; [nctx, nvals): payload */
	struct rd_gval *pktv;	/* the packet context's values, pool offsets unfixed */
	uint32_t nvals, nctx, npkt, cap;	/* npkt: the packet context's */
	char *pool;		/* strings, names and elements made for the values */
	size_t pool_len, pool_pkt, pool_cap;
	struct rd_named *named;	/* integers read in this event, by name (tags, lengths) */
	uint32_t nnamed, named_cap;
	uint64_t bit;		/* position of the next event in the packet, in bits */
	uint64_t content_bits;
	uint64_t work;		/* types visited in this event (bounded) */
};

/*
 * Position @s on its next event: 1 if there is one, 0 at its end, < 0
 * when it ends damaged (recorded) or the reader stops (r->fatal).
 */
int rd_ctf_advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s);

/* Free the state of @s (NULL: nothing). */
void rd_ctf_free(struct rd_gen *g);

#endif
