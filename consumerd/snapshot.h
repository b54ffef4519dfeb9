// SPDX-License-Identifier: MIT
/*
 * snapshot.h - tracectl snapshot (snapshot.c).
 */
#ifndef SHMTRACE_CONSUMERD_SNAPSHOT_H
#define SHMTRACE_CONSUMERD_SNAPSHOT_H

#include <stdint.h>

/*
 * Copy what the buffers of the channels writing where channel @chan_id
 * writes (its session's) hold into traces under @output. -ENOENT, and
 * nothing made, when no process has buffers in them.
 */
int snapshot_chan(uint64_t chan_id, const char *output);

#endif
