// SPDX-License-Identifier: MIT
/*
 * frame.h - a range of events checked before it becomes a packet (frame.c).
 */
#ifndef SHMTRACE_CONSUMERD_FRAME_H
#define SHMTRACE_CONSUMERD_FRAME_H

#include <stdint.h>

struct c_app;
struct c_shape;
struct proto_event;
struct rb_range;

/* What frame_check() needs of event @e, in @out. */
void frame_shape(const struct proto_event *e, struct c_shape *out);

/*
 * Do the @rg->len bytes of @rg hold exactly @rg->nev whole events of
 * process @a, in stream class @ctx, with timestamps within the range,
 * never going back? 0, or -EBADMSG with the offset of the first bad byte
 * in *@bad.
 */
int frame_check(const struct c_app *a, uint32_t ctx, const struct rb_range *rg, uint32_t *bad);

#endif
