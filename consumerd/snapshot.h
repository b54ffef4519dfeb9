// SPDX-License-Identifier: MIT
/*
 * snapshot.h - tracectl snapshot (snapshot.c).
 */
#ifndef SHMTRACE_CONSUMERD_SNAPSHOT_H
#define SHMTRACE_CONSUMERD_SNAPSHOT_H

#include <stdint.h>

/*
 * Copy what the buffers of the channels writing where channel @chan_id
 * writes (its session's) hold into traces under @output, at most
 * @max_size bytes in all (0: no bound), the newest packets first.
 * -ENOENT, and nothing made, when no process has buffers in them;
 * -ENOSPC, nothing made, when @max_size holds no stream's newest packet
 * with its trace's metadata.
 */
int snapshot_chan(uint64_t chan_id, const char *output, uint64_t max_size);

#endif
