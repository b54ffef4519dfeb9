/* SPDX-License-Identifier: MIT */
/*
 * allow.h - processes of other uids that sessions allow (allow.c).
 */
#ifndef SHMTRACE_SESSIOND_ALLOW_H
#define SHMTRACE_SESSIOND_ALLOW_H

#include <sys/types.h>
#include "common/proto.h"
#include "session.h"

/* Does @s trace processes of @uid? Ours always. */
int allow_uid(const struct session *s, uid_t uid);
/* Does any session trace processes of @uid? */
int allow_any(uid_t uid);
/* Does a session allow processes of another uid than ours? */
int allow_others(void);
/* The channel slots that may record events of a process of @uid. */
unsigned int allow_chan_mask(uid_t uid);
/* create's allowed uids into @s; < 0 when refused, the failure in @r. */
int allow_create(struct reply *r, struct session *s, const struct cmd_create *c);
/* The uids @s allows besides ours, into its record. */
void allow_record(const struct session *s, struct rec_session *rs);

#endif
