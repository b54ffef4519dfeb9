/* SPDX-License-Identifier: MIT */
/*
 * reader-damage.h - what ends a stream or a trace (damage: the trace's
 * own bytes), and what stops the reader (the rest: no memory), for the
 * parts of the reader (reader-objects.h). Damage is kept in the reader's
 * list, said by shmtrace_rd_next() once every other stream was read.
 */
#ifndef SHMTRACE_READER_DAMAGE_H
#define SHMTRACE_READER_DAMAGE_H

#include <stdbool.h>
#include <stdint.h>

struct shmtrace_rd_reader;
struct shmtrace_rd_stream;

/* Is @rc what a trace's own bytes cause (damage), rather than its surroundings? */
bool rd_is_damage(int rc);

/* Stop the reader: @rc (not damage) with @msg, unless it stopped already. Returns @rc. */
int rd_fatal(struct shmtrace_rd_reader *r, int rc, const char *msg);

/*
 * Add damage to the list: @path at byte @off (-1: none), error @rc, @msg;
 * of stream @s (whose error it becomes), or of a trace's metadata (@s
 * NULL). Returns @rc, or -ENOMEM (fatal) when it cannot be kept.
 */
int rd_add_damage(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
		  const char *path, int64_t off, int rc, const char *msg);

/*
 * Stream @s ends at byte @off of its file: "file: offset N: what" joins
 * the damage list (error @rc), or, for what is not damage (no memory),
 * stops the reader. Returns @rc.
 */
__attribute__((format(printf, 5, 6)))
int rd_fail_at(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
	       uint64_t off, int rc, const char *fmt, ...);

#endif
