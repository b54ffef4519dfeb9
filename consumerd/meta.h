// SPDX-License-Identifier: MIT
/*
 * meta.h - the metadata of the consumer's traces (meta.c).
 */
#ifndef SHMTRACE_CONSUMERD_META_H
#define SHMTRACE_CONSUMERD_META_H

#include <stddef.h>
#include <stdint.h>
#include "support/ctfmeta.h"

struct c_app;
struct c_trace;

/*
 * The whole metadata of a trace of @a described by @info, with the stream
 * classes @classes (bit 1 << context; class 0 always), written to @fd.
 * 0 or -errno.
 */
/* The size of metadata file @fd, 0 when unknown. */
uint64_t meta_size_of(int fd);
int meta_write(int fd, const struct c_app *a, const struct ctf_trace_info *info,
	       uint32_t classes);
/*
 * The whole metadata of @t to its meta_fd: every event of its process, in
 * the classes of the segments writing into it. 0 or -errno.
 */
int meta_init(struct c_trace *t);
/* Append the events its process learnt since the last call, in every class of @t. */
int meta_append_events(struct c_trace *t);
/* Declare stream class @ctx in @t (if not yet), with every event known so far. */
int meta_add_class(struct c_trace *t, uint32_t ctx);
/* The metadata file of a file trace, to hear of a write the disk failed: 0 or -errno. */
int meta_sync(struct c_trace *t);
/* Where @t's metadata is, for messages. */
void meta_path(const struct c_trace *t, char *buf, size_t len);

#endif
