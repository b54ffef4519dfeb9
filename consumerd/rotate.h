// SPDX-License-Identifier: MIT
/*
 * rotate.h - tracectl rotate: the traces of a session's output into a
 * chunk (rotate.c).
 */
#ifndef SHMTRACE_CONSUMERD_ROTATE_H
#define SHMTRACE_CONSUMERD_ROTATE_H

struct c_chan;

/*
 * Everything committed in the channels writing to @ch's output, out; the
 * traces in the output moved into @chunk (OUTPUT/NAME, made there without
 * following a link); the next packets start new traces. 0, or the -errno
 * of the last thing that failed (a directory that cannot be moved is
 * logged).
 */
int rotate_output(struct c_chan *ch, const char *chunk);

#endif
