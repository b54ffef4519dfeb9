// SPDX-License-Identifier: MIT
/*
 * stats.h - a channel's statistics, for stop and status (stats.c).
 */
#ifndef SHMTRACE_CONSUMERD_STATS_H
#define SHMTRACE_CONSUMERD_STATS_H

#include <stdint.h>
#include "common/proto.h"

struct c_seg;

/* Channel @chan_id's statistics into @st (all zero for an unknown channel). */
void stats_chan(uint64_t chan_id, struct msg_c_stats *st);
/* Segment @s is going: its streams' counts kept in its channel's. */
void stats_seg_gone(const struct c_seg *s);

#endif
