/* SPDX-License-Identifier: MIT */
/*
 * ringbuf.h - the per-thread ring buffer protocol, writer and consumer
 * sides. See ringbuf.c for the invariants.
 */
#ifndef SHMTRACE_COMMON_RINGBUF_H
#define SHMTRACE_COMMON_RINGBUF_H

#include <stdint.h>
#include "common/shm.h"

/* A slot as seen by one process: where its header and data are mapped. */
struct rb_slot {
	struct shm_slot *hdr;
	char *data;			/* first sub-buffer */
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t mode;			/* SHM_MODE_DISCARD or SHM_MODE_OVERWRITE */
};

/* The descriptor a writer with no sub-buffer points at: always zero. */
extern struct shmtrace__commit rb_no_commit;

/* Writer side: only the thread that owns the slot calls these. */
void rb_wbuf_reset(struct shmtrace__wbuf *w);
int rb_open(const struct rb_slot *s, struct shmtrace__wbuf *w, uint64_t ts, int32_t tid);
int rb_close(const struct rb_slot *s, struct shmtrace__wbuf *w);
int rb_reserve_slow(const struct rb_slot *s, struct shmtrace__wbuf *w, uint64_t need,
		    uint64_t ts, int32_t tid, int *published);

/* Consumer side: the consumer's private position in one slot. */
struct rb_reader {
	uint64_t rseq;			/* packet being read */
	uint32_t flushed;		/* bytes of it already written out */
	uint32_t nev_flushed;		/* events of it already written out */
	uint64_t last_end;		/* timestamp_end of the last range written */
	uint64_t events;		/* events written out in all */
	uint64_t lost_packets;		/* packets overwritten before they were read */
};

/* A contiguous run of committed events, ready to become one CTF packet. */
struct rb_range {
	const char *data;
	uint32_t len;
	uint32_t nev;
	uint64_t begin_ts;
	uint64_t end_ts;
	int32_t tid;
	uint64_t disc;			/* discards before the packet began */
	int complete;			/* last range of a closed packet */
};

int rb_next(const struct rb_slot *s, struct rb_reader *r, int partial, struct rb_range *out);
void rb_done(const struct rb_slot *s, struct rb_reader *r, const struct rb_range *rg);
int rb_move(struct rb_reader *r, const struct rb_range *rg);
void rb_publish(const struct rb_slot *s, const struct rb_reader *r);
int rb_still_valid(const struct rb_slot *s, const struct rb_reader *r);
void rb_skip(const struct rb_slot *s, struct rb_reader *r);
uint64_t rb_discarded(const struct rb_slot *s);

#endif /* SHMTRACE_COMMON_RINGBUF_H */
