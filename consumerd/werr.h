// SPDX-License-Identifier: MIT
/*
 * werr.h - the first write errors of traces and channels (werr.c).
 */
#ifndef SHMTRACE_CONSUMERD_WERR_H
#define SHMTRACE_CONSUMERD_WERR_H

struct c_chan;
struct c_trace;

/*
 * A write error @err (errno) on @path, for trace @t of channel @ch: the
 * first of each trace is logged and counted, the first of each channel
 * kept for status. Any thread.
 */
void werr_record(struct c_chan *ch, struct c_trace *t, const char *path, int err);

#endif
