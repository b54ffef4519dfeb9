/* SPDX-License-Identifier: MIT */
/*
 * aggcmd.h - the verbs of aggregations (aggcmd.c).
 */
#ifndef SHMTRACE_SESSIOND_AGGCMD_H
#define SHMTRACE_SESSIOND_AGGCMD_H

#include "proto.h"
#include "session.h"

int cmd_aggregate(int fd, struct session *s, const struct proto_cmd *c);
int cmd_disable_agg(int fd, struct session *s, const struct proto_cmd *c);
int cmd_show_agg(int fd, struct session *s, const struct cmd_show_agg *c);

#endif
