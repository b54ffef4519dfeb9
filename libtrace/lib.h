/* SPDX-License-Identifier: MIT */
/*
 * lib.h - libshmtrace's internal state, shared by its modules.
 *
 * The library runs inside arbitrary programs: it never blocks on a daemon,
 * never crashes the program, and everything reachable from a signal
 * handler uses initial-exec TLS and async-signal-safe calls only.
 *
 * Locking: one process-wide spin flag (lib_lock) serialises the slow
 * paths that touch the socket or the pools: registration, event
 * registration, pool creation and growth. Its holder always has
 * shmtrace__tls.nesting > 0, so that a signal handler that interrupts it
 * on the same thread never tries to take it (nested events are dropped and
 * counted; the doorbell handler leaves work in `pending` for the holder).
 * doorbell.c's bell_lock serialises the doorbell's transitions; it is held
 * with every signal blocked in its holder, may be taken while lib_lock is
 * held (a new process page), and its holder never takes lib_lock.
 */
#ifndef SHMTRACE_LIBTRACE_LIB_H
#define SHMTRACE_LIBTRACE_LIB_H

#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <shmtrace/shmtrace.h>
#include "common/shm.h"
#include "common/ringbuf.h"
#include "common/util.h"

#define LIB_PENDING_REGISTER	1u
#define LIB_PENDING_TRIGGER	2u	/* tell the session daemon of firings (trigger.c) */

/* An event's `polled` byte (registry.c) */
#define REG_POLL_LOOK	1u	/* no doorbell: looks for control changes */
#define REG_POLL_AGG	2u	/* aggregated or a trigger's, recorded nowhere */

/* A descriptor of ours, with the identity of its open file (ownfd.c). */
struct lib_fd {
	int fd;				/* -1: none */
	uint64_t dev;
	uint64_t ino;
};

#define LIB_FD_NONE { .fd = -1 }

struct lib_seg {
	char *base;
	size_t size;
	uint32_t first;
	uint32_t nslots;
	struct lib_fd fd;		/* kept to describe it again */
	int described;			/* the session daemon has it */
};

struct lib_pool {
	uint64_t chan_id;		/* 0: none */
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t slot_size;
	uint32_t slot_hdr;
	uint32_t pool_size;
	uint32_t max_buffers;		/* the channel's budget: slots at most, 0: no limit */
	uint32_t mode;
	uint32_t context;		/* SHMTRACE__CTX_*: every event's context fields */
	uint32_t flags;			/* SHM_CHAN_* */
	uint64_t consumed_seen;		/* packets consumed, last seen to change */
	uint64_t consumed_seen_ns;	/* when (CLOCK_MONOTONIC) */
	uint32_t nseg;
	uint32_t nslots;
	struct lib_seg seg[SHM_MAX_SEGMENTS];
	uint8_t mapped[SHM_MAX_SLOTS];	/* by slot number: its sub-buffers whose
					 * pages are mapped here, from the
					 * first (atomic; num_subbuf: all) */
};

/* An aggregation's tables in this process (aggr.c): runs of segments. */
struct lib_aggseg {
	struct shm_agg_seg *hdr;	/* mapping; tables from SHM_AGG_SEG_HDR */
	size_t size;
	struct lib_fd fd;		/* kept to describe it again */
	int described;			/* the session daemon has it */
};

struct lib_agg {
	uint64_t agg_id;		/* 0: none */
	uint32_t capacity;
	uint32_t table_size;
	uint32_t def_hash;
	uint32_t nseg;			/* published with a release store */
	uint32_t ntables;
	struct lib_aggseg seg[SHM_AGG_MAX_SEGMENTS];
};

struct lib_state {
	char home[1024];
	int signo;			/* our doorbell signal (our handler is on it), 0 = none */
	int bell;			/* 1 while the doorbell is armed (doorbell.c) */
	int debug;			/* SHMTRACE_DEBUG */
	pid_t pid;
	uint64_t starttime;
	uint64_t instance;		/* this process image (random), for the daemon */
	struct lib_fd sock;		/* to the session daemon */
	struct lib_fd ctl_fd;
	struct lib_fd proc_fd;
	struct lib_fd wake;		/* datagram socket: wakes the consumer */
	struct lib_fd wake_peer;	/* its other end, for the consumer */
	struct shm_ctl_page *ctl;	/* read-only mapping */
	struct shm_proc_page *proc;
	int lock;
	int sync_ms;			/* SHMTRACE_REGISTER_TIMEOUT */
	int late;			/* a sync was not answered in time, nor since */
	uint64_t late_events;		/* events enabled nowhere emitted meanwhile
					 * (counted with SHMTRACE_DEBUG only) */
	uint64_t applied_gen;		/* control generation reg_apply() last applied */
	unsigned int pending;
	int forking;			/* between our prepare and parent/child handlers */
	uint64_t fork_lost[SHM_MAX_CHAN]; /* events a forked child dropped before
					   * its handler ran (writer.c) */
	uint32_t next_id;
	struct lib_pool pool[SHM_MAX_CHAN];
	struct lib_agg agg[SHM_MAX_AGG];
	uint64_t agg_lost[SHM_MAX_AGG];	/* updates never made before a slot had
					 * its segments (atomic; moved there) */
};

extern struct lib_state lib;

/* A thread's private view of its buffer in one channel (initial-exec TLS). */
struct lib_wslot {
	uint64_t chan_id;
	struct rb_slot rb;		/* rb.hdr == NULL: none */
	uint32_t nobuf_skip;		/* events to go before asking the pool again */
	uint32_t slot;			/* rb's number in the pool */
	int ready;			/* all its pages are mapped (pool_prepare()) */
	int nowake;			/* SHM_CHAN_NOWAKE: never wake the consumer */
};

extern __thread struct lib_wslot lib_tls[SHM_MAX_CHAN] __attribute__((tls_model("initial-exec")));

/* ownfd.c */
void ownfd_init(void);
int ownfd_take(struct lib_fd *f, int fd);	/* @fd: just created by us */
int ownfd_ok(const struct lib_fd *f);
int ownfd_get(struct lib_fd *f);		/* the fd while ours, else -1 */
void ownfd_close(struct lib_fd *f);		/* closes it only while ours */

/* doorbell.c */
void bell_install(void);
void bell_after_fork(void);
/* Publish @p as lib.proc, with the doorbell_off the doorbell's state says. */
void bell_new_proc(struct shm_proc_page *p);
/* an event's channel mask, polled events counting as enabled nowhere */
static inline unsigned int lib_ev_mask(const struct shmtrace_event *ev)
{
	return ev->polled ? 0 : ev->enabled;
}

/*
 * The control page's generation once the session daemon is not writing
 * it: even, into *@gen, and 0; -EAGAIN when it was being written for all
 * of LIB_CTL_SPIN_NS (a page takes it a few microseconds; longer, it was
 * preempted half way: the caller decides without the page, and says so).
 * Spins, never sleeps; async-signal-safe.
 */
#define LIB_CTL_SPIN_NS		20000u
static inline int lib_ctl_gen(const struct shm_ctl_page *ctl, uint64_t *gen)
{
	uint64_t t0 = 0;

	for (unsigned int i = 0;; i++) {
		uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);

		if (!(g & 1)) {
			*gen = g;
			return 0;
		}
		if (!(i & 15)) {
			uint64_t t = now_ns(CLOCK_MONOTONIC);

			if (!t0)
				t0 = t;
			else if (t - t0 >= LIB_CTL_SPIN_NS)
				return -EAGAIN;
		}
		__builtin_ia32_pause();
	}
}

/* control.c */
void lib_init(void);
/*
 * Holding buffers or counted losses that no daemon has answered for (a
 * registration that died unread with a killed daemon): wait for an
 * answer, at most lib.sync_ms, registering again while the connection
 * is gone. At exit, and before a module's events are forgotten: their
 * descriptions must reach the daemon while they are there. Lock held.
 */
void lib_heard_locked(void);
void lib_register_soon(void);
int lib_trylock(void);
void lib_lock(void);
void lib_unlock(void);
int lib_register_locked(int may_wait);
void lib_sync_locked(void);
/* A late session daemon answered? (lib.late; async-signal-safe, no wait) */
void lib_late_check(void);
/* An event enabled nowhere was emitted while lib.late (evfilter.c). */
void lib_late_event(void);
void lib_wake_consumer(void);
void lib_dbg(const char *msg, long val);
void lib_write_marker(void);
/* A memfd of @size bytes, sealed against resizing: its fd, or -errno. */
int lib_memfd(const char *name, size_t size);
/*
 * Send @body with the descriptor @f to the session daemon (lock held;
 * async-signal-safe): 0, -EBADF when the program closed @f (the daemon
 * that has it keeps it), -EPIPE when it could not be sent.
 */
int lib_send_fd(unsigned int type, const void *body, size_t len, struct lib_fd *f);
void lib_remove_marker(void);

/* registry.c */
void reg_apply(void);
void reg_after_fork(int disable);
int reg_send_events(uint32_t from, uint32_t to);

/* procev.c */
void procev_applied(void);
int procev_resync(void);
void procev_after_fork(void);

/* evfilter.c */
void evf_thread_exit(void);
/*
 * What a field name of a filter or an aggregation is bound to: a field of
 * the event (>= 0), or one of these. Names not among the event's fields
 * may name the thread's context, as in trace-read: "$ctx.cpu_id" (or a
 * bare "cpu_id"), "$ctx.vtid" / "$ctx.tid", "$ctx.vpid" / "$ctx.pid".
 */
#define EVF_NONE	(-1)		/* nothing: its comparisons are false */
#define EVF_CPU		(-2)
#define EVF_TID		(-3)
#define EVF_PID		(-4)
int8_t evf_ctx_kind(const char *name);
uint64_t evf_ctx(int kind);
/* How a field of SHMTRACE_TYPE_* @type is seen: enum flt_type, and the shift
 * that sign-extends its raw bits (signed integers narrower than 64 bits). */
void evf_kind(uint32_t type, uint8_t *vtype, uint8_t *sext);
/*
 * Does filter number @num (0: none) of control generation @gen keep the
 * event of values @v? 1 or 0; -EAGAIN when the page is no longer at @gen
 * and the thread has no copy of that filter; -EINVAL when @num names no
 * valid code at @gen (a damaged page).
 */
int evf_keep(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev, unsigned int num,
	     uint64_t gen, const struct shmtrace__fval *v);

/* trigger.c */
/*
 * The triggers of event @ev (trigen in @ctl) decided with its field values
 * @v: 1 when some fired and shmtrace__fire() must tell them once the event
 * is committed (SHMTRACE__FIRE), 0 otherwise.
 */
int trig_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
	       const struct shmtrace__fval *v);
/* Tell the session daemon to read the firings (lock held; lib_unlock()). */
void trig_wake_locked(void);

/* aggr.c */
/* Plans of a thread that has none of its own: every one empty. */
extern const struct shmtrace__aggp aggr_no_plans[SHMTRACE__AGGP];
/* The thread applies another control generation: its plans are emptied. */
void aggr_new_gen(void);
/*
 * @slots: ctl->aggen[ev->id], nonzero; @ts: the event's time, 0 until read
 * (a profile reads it; the recording uses it)
 */
void aggr_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
		const struct shmtrace__fval *v, uint64_t *ts, unsigned int slots);
void aggr_lost(unsigned int slots);
void aggr_thread_exit(void);
void aggr_after_fork(void);
void aggr_describe_all(void);

/* pool.c */
int pool_take(unsigned int chan, uint64_t chan_id, struct rb_slot *out, uint32_t *slot,
	      int *ready, int *nowake);
int pool_prepare(unsigned int chan, uint64_t chan_id, uint32_t slot, const struct rb_slot *s,
		 uint32_t cur);
/* Has any channel of ours buffers (something a consumer may have to drain)? */
int pool_in_use(void);
void pool_release(struct rb_slot *s);
void pool_reset_after_fork(void);
void pool_describe_all(void);

/* writer.c */
void writer_drop_all(void);
int32_t writer_tid(void);		/* the calling thread's id, cached in its TLS */
void writer_thread_init(void);
void writer_arm_exit(void);		/* thread exit gives back what the thread holds */

#endif
