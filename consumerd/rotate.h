// SPDX-License-Identifier: MIT
/*
 * rotate.h - tracectl rotate: the traces of a session's output into a
 * chunk (rotate.c).
 */
#ifndef SHMTRACE_CONSUMERD_ROTATE_H
#define SHMTRACE_CONSUMERD_ROTATE_H

/*
 * Everything committed in the channels writing to @output, out; the
 * traces in @output moved into @chunk; the next packets start new
 * traces. 0, or the -errno of the last thing that failed (a directory
 * that cannot be moved is logged).
 */
int rotate_output(const char *output, const char *chunk);

#endif
