/* SPDX-License-Identifier: MIT */
/*
 * ctlpage.h - the traced processes' control pages and doorbell (ctlpage.c).
 */
#ifndef SHMTRACE_SESSIOND_CTLPAGE_H
#define SHMTRACE_SESSIOND_CTLPAGE_H

#include <sys/types.h>
#include "session.h"
#include "common/shm.h"
#include "support/sysutil.h"

struct app;

/*
 * Write @a's control page. Nothing is written, and the generation stays,
 * when the page already says all of it, unless @ring is 0: a new
 * generation regardless, the caller rings. With @ring, the doorbell rings
 * when an event becomes enabled or aggregated.
 */
void ctl_update(struct app *a, int ring);
/* A new generation of @a's control page, its contents unchanged: its threads read it again. */
void ctl_touch(struct app *a);
/* Ask @a for its state dump again: dump_req changed under a new generation. */
void ctl_dump(struct app *a);
/* Ring @a's doorbell, when /proc says it may be (the handshake of shm.h). */
void ctl_ring(struct app *a);
/* May @pid be sent @signo? (proc_ring_check(), once more after fds_exhausted()) */
int ctl_may_ring(pid_t pid, int signo);
/* Append @e's filter code to @fl: its number (1..255), or 0 when it does not fit. */
unsigned int ctl_filter_add(struct shm_ctl_filters *fl, const struct enabler *e);

#endif
