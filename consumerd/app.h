// SPDX-License-Identifier: MIT
/*
 * app.h - the consumer's traced processes (app.c).
 */
#ifndef SHMTRACE_CONSUMERD_APP_H
#define SHMTRACE_CONSUMERD_APP_H

#include <stddef.h>
#include <stdint.h>
#include <urcu/urcu-memb.h>
#include <urcu/list.h>
#include <urcu/rculfhash.h>
#include "count.h"
#include "common/proto.h"
#include "common/shm.h"

struct c_trace;
struct c_seg;

/*
 * An event's payload as frame.c walks it, kept small so that checking a
 * range touches little memory: @fixed bytes of the fields before its first
 * string or sequence, then each later field's size code (1, 2, 4, 8;
 * FRAME_STR for a string; FRAME_SEQ | element size for a sequence).
 */
#define FRAME_STR	0x40
#define FRAME_SEQ	0x80
struct c_shape {
	uint16_t fixed;
	uint8_t known;			/* the process described this id */
	uint8_t nvar;
	uint8_t var[PROTO_MAX_FIELDS];
};

struct c_app {
	uint64_t id;
	uint32_t pid;
	uint32_t clock;			/* CLOCK_KIND_* */
	uint64_t starttime;		/* its image: start time and instance (progress.c) */
	uint64_t instance;
	uint32_t uid;			/* as the session daemon registered it, */
	uint32_t signo;			/* ... for a session daemon that takes us over */
	int proc_fd;			/* its process page, */
	int ctl_fd;			/* ... and control page: the same (adopt.c) */
	char procname[PROTO_PROCNAME];
	struct shm_proc_page *proc;
	uint64_t nobuf_base[SHM_MAX_CHAN];	/* lost_nobuf when each channel began */
	struct cnt nobuf[SHM_MAX_CHAN];	/* lost_nobuf as believed (count.c) */
	uint64_t born;			/* when it started (CLOCK_BOOTTIME ns) */
	uint64_t lies;			/* counters of its not believed (atomic) */
	uint32_t lied_in;		/* capp_free(): channel slots it was counted in */
	struct proto_event *ev;		/* by id; name[0] == 0: unknown */
	struct c_shape *shape;		/* by id: what frame.c checks, compact */
	uint32_t nshape;
	uint32_t nev;
	struct c_trace *traces;
	struct c_seg *segs;
	int wake_fd;		/* its wake socket (wake.c) */
	int asleep;			/* consumer_sleeping set: its streams parked (wake.c) */
	uint64_t last_data;		/* when its streams last gave something (ns) */
	struct cds_list_head awake;	/* in the list of polled processes, if !asleep */
	uint64_t gone_at;		/* when the session daemon said it was gone */
	uint64_t kept_until;		/* gone: its memory-only buffers kept until then
					 * (monotonic ns, the longest); 0 while it runs */
	struct cds_list_head kept;	/* gone: in the list of processes kept */
	struct cds_lfht_node node;	/* in c_app_ht, by id */
	struct rcu_head rcu;
};

/* The processes by id; see app.c for who may walk it and when. */
extern struct cds_lfht *c_app_ht;

#define capp_for_each(it, a)	cds_lfht_for_each_entry(c_app_ht, it, a, node)

/* The table; 0 or -ENOMEM. */
int capp_init(void);
/* Once every process was freed and no reader is left. */
void capp_fini(void);
struct c_app *capp_find(uint64_t id);
/*
 * A traced process (MSG_C_APP_ADD): its process page @fds[0], wake
 * socket @fds[1] and control page @fds[2], all taken (the pages kept
 * for a session daemon that takes us over); 0 or -EINVAL (all closed).
 * The same id again is the same process registering anew.
 */
int capp_add(const struct msg_c_app *m, const int *fds);
/* Event descriptions (a MSG_C_EVENTS body), and into every trace of @a. */
int capp_add_events(struct c_app *a, const char *body, size_t len);
/* Drain and close everything of @a; out of the table, freed after a grace period. */
void capp_free(struct c_app *a);
/*
 * The session daemon says @a is gone (at @now, monotonic ns): what it
 * wrote in written channels is drained out and closed at once; its
 * buffers of memory-only channels are kept for their flush interval, so
 * that a snapshot still holds them (app.c), then freed (capp_expire()).
 * Nothing else is done to a process already gone.
 */
void capp_gone(struct c_app *a, uint64_t now);
/* Processes gone whose buffers were kept until before @now: freed. */
void capp_expire(uint64_t now);
/* Is @a gone, its memory-only buffers kept? */
static inline int capp_is_gone(const struct c_app *a)
{
	return a->kept_until != 0;
}
/*
 * Events @a lost for want of any buffer in channel slot @slot since the
 * channel began, as believed now (its page read again: one thread per
 * slot at a time); capp_nobuf_seen(), as last believed (any thread).
 */
uint64_t capp_nobuf(struct c_app *a, unsigned int slot);
uint64_t capp_nobuf_seen(const struct c_app *a, unsigned int slot);
/* A counter of @a's that cannot be (@what): counted, said once in the log. */
void capp_lied(struct c_app *a, const char *what);
/* A channel begins in slot @slot: @a's losses without a buffer count from now. */
void capp_nobuf_start(struct c_app *a, unsigned int slot);

#endif
