/* SPDX-License-Identifier: MIT */
/*
 * aggcmd.h - the verbs of aggregations (aggcmd.c).
 */
#ifndef SHMTRACE_SESSIOND_AGGCMD_H
#define SHMTRACE_SESSIOND_AGGCMD_H

#include "common/proto.h"
#include "session.h"

struct reply;

int cmd_aggregate(struct reply *r, struct session *s, const struct proto_cmd *c);
int cmd_disable_agg(struct reply *r, struct session *s, const struct proto_cmd *c);
int cmd_show_agg(struct reply *r, struct session *s, const struct cmd_show_agg *c);

#endif
