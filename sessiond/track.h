/* SPDX-License-Identifier: MIT */
/*
 * track.h - which processes a session records (track.c): tracectl track
 * and untrack by pid, uid and executable.
 */
#ifndef SHMTRACE_SESSIOND_TRACK_H
#define SHMTRACE_SESSIOND_TRACK_H

#include <stdint.h>
#include <sys/types.h>
#include "common/proto.h"
#include "session.h"

struct reply;

/* Does @s's tracking take process @pid of @uid running @exe ("" or NULL: unknown)? */
int track_takes(const struct session *s, pid_t pid, uid_t uid, const char *exe);
/*
 * track (@add) or untrack the kinds and values of @c and the @nexe globs
 * @exe in @s's tracking, all or nothing: 0, or the failure in @r.
 */
int track_change(struct reply *r, struct session *s, const struct cmd_track *c,
		 const char *const *exe, uint32_t nexe, int add);
/* @s's tracking of @kind (PROTO_TRACK_*) as a record. */
void track_record(const struct session *s, uint32_t kind, struct rec_track *rt);
/* Is @t what a command could have made? (a saved state read back) */
int track_valid(const struct tracking *t);

#endif
