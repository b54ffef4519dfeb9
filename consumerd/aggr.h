/* SPDX-License-Identifier: MIT */
/*
 * aggr.h - the consumer's side of aggregations (aggr.c).
 */
#ifndef SHMTRACE_CONSUMERD_AGGR_H
#define SHMTRACE_CONSUMERD_AGGR_H

#include <stdint.h>
#include "common/proto.h"

/* An aggregation defined (MSG_C_AGG_ADD); 0, -EEXIST, -EINVAL, -ENOMEM. */
int cagg_add(const struct msg_c_agg *m);
/* Forget it, and every table of it. */
void cagg_del(uint64_t id);
/* A process's segment of tables (MSG_C_AGG_SEG); @fd stays the caller's. */
int cagg_seg(const struct msg_agg_seg *m, int fd);
/* The process is gone: its tables join the aggregations' retired results. */
void cagg_app_gone(uint64_t app_id);
/*
 * How many aggregations hold results of processes that are gone: results
 * only this consumer has (an orphan waits for a taker before exiting).
 */
unsigned int cagg_held(void);
/* The ids of the aggregations defined (@max at most); how many. */
uint32_t cagg_ids(uint64_t *ids, uint32_t max);
/* Print the aggregations @m names into @fd (text or JSON). 0 or -errno. */
int cagg_show(const struct msg_c_agg_show *m, int fd);
/* The keys of aggregation m->agg_id meeting m->cond, as struct msg_c_agg_hit into @fd. 0 or -errno. */
int cagg_eval(const struct msg_c_agg_eval *m, int fd);

#endif
