/* SPDX-License-Identifier: MIT */
/*
 * reader-decode.h - reading one stream (reader-objects.h) event by event:
 * its packets one at a time, each event decoded where it lies.
 */
#ifndef SHMTRACE_READER_DECODE_H
#define SHMTRACE_READER_DECODE_H

struct shmtrace_rd_reader;
struct shmtrace_rd_stream;

/*
 * Position @s on its next event (s->ev): 1 if there is one, 0 at its end,
 * < 0 when it ends damaged (recorded) or the reader stops (r->fatal).
 */
int rd_advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s);

#endif
