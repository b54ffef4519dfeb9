/* SPDX-License-Identifier: MIT */
/*
 * reclaim.h - the pages of buffers no thread uses, given back to the
 * kernel (reclaim.c).
 */
#ifndef SHMTRACE_CONSUMERD_RECLAIM_H
#define SHMTRACE_CONSUMERD_RECLAIM_H

#include <stdint.h>
#include "seg.h"

/* drain.c, when it frees @st's slot (RELEASED -> FREE) at @now (monotonic ns). */
void reclaim_note_free(struct c_stream *st, uint64_t now);
/* seg.c, on a segment just mapped: a slot a dead consumer left RECLAIMING is finished. */
void reclaim_seg_added(struct c_seg *s);
/* The main thread, every loop: slots free for the reclaim delay are reclaimed. */
void reclaim_tick(uint64_t now);

#endif
