// SPDX-License-Identifier: MIT
/*
 * rotate.h - tracectl rotate: the traces of a session's output into a
 * chunk; tracectl clear: what the session recorded, discarded (rotate.c).
 */
#ifndef SHMTRACE_CONSUMERD_ROTATE_H
#define SHMTRACE_CONSUMERD_ROTATE_H

#include "common/proto.h"

struct c_chan;

/*
 * Everything committed in the channels writing to @ch's output, out; the
 * traces in the output moved into @chunk (OUTPUT/NAME, made there without
 * following a link); the next packets start new traces. 0, or the -errno
 * of the last thing that failed (a directory that cannot be moved is
 * logged).
 */
int rotate_output(struct c_chan *ch, const char *chunk);
/*
 * What the session of @ch recorded so far, discarded, tracing going on:
 * in files, the current chunk closed then removed; in a memory-only
 * session, its rings' content (hold.c). @rep: per channel of the session,
 * the events discarded. 0, or the -errno of the last thing that failed
 * (logged); -EOPNOTSUPP for a session streamed to a relay.
 */
int clear_output(struct c_chan *ch, struct msg_c_clear_reply *rep);

#endif
