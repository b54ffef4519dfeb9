/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the out-of-line parts of the event writer: taking a buffer,
 * switching sub-buffers, following control changes, thread exit.
 *
 * All state is the calling thread's own (shmtrace__tls for the inline fast
 * path, lib_tls for the rest, both initial-exec TLS), so nothing here takes
 * a lock except pool_take() when the thread has no buffer yet. The caller
 * of every function here is inside an event (nesting == 1), which is what
 * keeps a signal handler on the same thread out.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#if HAVE_DECL___RSEQ_OFFSET
#include <sys/rseq.h>
#endif
#include "lib.h"
#include "common/tsc.h"

#define WRITER_NOBUF_RETRY	63
#define W_NONE { NULL, 0, 0, 0, &rb_no_commit }
SHMTRACE_API __thread struct shmtrace__tls shmtrace__tls
	__attribute__((tls_model("initial-exec"))) = {
	.w = { W_NONE, W_NONE, W_NONE, W_NONE, W_NONE, W_NONE, W_NONE, W_NONE },
	.agg = aggr_no_plans,
};
_Static_assert(SHMTRACE__MAX_CHAN == 8, "W_NONE initialisers");
__thread struct lib_wslot lib_tls[SHM_MAX_CHAN] __attribute__((tls_model("initial-exec")));

static pthread_key_t writer_key;
static __thread int writer_key_set __attribute__((tls_model("initial-exec")));

int32_t writer_tid(void)
{
	if (!shmtrace__tls.tid)
		shmtrace__tls.tid = (int32_t)gettid();
	return shmtrace__tls.tid;
}

/* Publish what the thread wrote in channel slot @c and give the buffer back. */
static void writer_put(unsigned int c)
{
	struct lib_wslot *ws = &lib_tls[c];
	struct shmtrace__wbuf *w = &shmtrace__tls.w[c];

	if (ws->rb.hdr) {
		/* the release store of `closed`, then the full barrier and the
		 * look at consumer_sleeping (the writer's side of the wake-up) */
		if (rb_close(&ws->rb, w) && !ws->nowake)
			lib_wake_consumer();
		pool_release(&ws->rb);
	}
	rb_wbuf_reset(w);
	ws->chan_id = 0;
}

static void writer_thread_exit(void *arg)
{
	writer_key_set = 0;	/* an event emitted later arms it again */
	shmtrace__tls.nesting++;
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		writer_put(c);
	aggr_thread_exit();
	evf_thread_exit();
	shmtrace__tls.nesting--;
}

void writer_arm_exit(void)
{
	if (!writer_key_set) {
		writer_key_set = 1;
		pthread_setspecific(writer_key, (void *)1);
	}
}

void writer_thread_init(void)
{
	pthread_key_create(&writer_key, writer_thread_exit);
}

/* After fork: the parent's buffers are not mapped here; forget them. */
void writer_drop_all(void)
{
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		rb_wbuf_reset(&shmtrace__tls.w[c]);
	memset(lib_tls, 0, sizeof(lib_tls));
}

/*
 * The kernel keeps the CPU number of a thread in its rseq area, which the C
 * library registers for every thread: reading it costs one load. NULL when
 * there is none (the fast path then asks shmtrace__cpu_slow()).
 */
static const volatile int32_t *writer_rseq_cpu(void)
{
#if HAVE_DECL___RSEQ_OFFSET
	if (__rseq_size >= offsetof(struct rseq, cpu_id) + sizeof(uint32_t))
		return (const volatile int32_t *)(void *)((char *)__builtin_thread_pointer() +
							  __rseq_offset +
							  offsetof(struct rseq, cpu_id));
#endif
	return NULL;
}

SHMTRACE_API uint32_t shmtrace__cpu_slow(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? UINT32_MAX : (uint32_t)cpu;
}

/*
 * Make room for an event of @need bytes in channel slot @c. When the thread
 * takes a buffer here, *ts is read again: the buffer's previous owner may
 * have written events after the caller read its clock, and a stream's
 * timestamps must never go back.
 */
SHMTRACE_API int shmtrace__reserve_slow(unsigned int c, uint64_t need, uint64_t *ts)
{
	struct lib_wslot *ws = &lib_tls[c];
	struct shmtrace__wbuf *w = &shmtrace__tls.w[c];
	int published, ret;

	if (c >= SHM_MAX_CHAN)
		return 0;
	if (!ws->rb.hdr) {
		const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
		uint64_t id = ctl ? __atomic_load_n(&ctl->chan[c].chan_id, __ATOMIC_RELAXED) : 0;

		/* every buffer owned: ask again only every WRITER_NOBUF_RETRY events */
		if (ws->nobuf_skip ||
		    pool_take(c, id, &ws->rb, &ws->slot, &ws->ready, &ws->nowake) < 0) {
			ws->nobuf_skip = ws->nobuf_skip ? ws->nobuf_skip - 1 : WRITER_NOBUF_RETRY;
			if (lib.proc)
				__atomic_fetch_add(&lib.proc->lost_nobuf[c], 1, __ATOMIC_RELAXED);
			return 0;
		}
		ws->chan_id = id;
		ws->rb.hdr->owner_tid = writer_tid();
		rb_wbuf_reset(w);
		w->ctx = (uint16_t)lib.pool[c].context;
		w->ctx_size = (uint16_t)shmtrace__ctx_size(w->ctx);
		if (!shmtrace__tls.cpu_id)	/* for the context and for filters */
			shmtrace__tls.cpu_id = writer_rseq_cpu();
		*ts = shmtrace__clock_tsc ? tsc_read_ordered() : shmtrace__clock();
		writer_arm_exit();
	}
	ret = rb_reserve_slow(&ws->rb, w, need + w->ctx_size, *ts, writer_tid(),
			      &published);
	if (published) {
		/* a sub-buffer filled: the next ones of the first lap without
		 * faults; the consumer woken after, not to compete with it (its
		 * packet is published already: rb_close() stored `closed`, and
		 * lib_wake_consumer() orders that store before its look at
		 * consumer_sleeping) */
		if (!ws->ready && w->end)
			ws->ready = pool_prepare(c, ws->chan_id, ws->slot, &ws->rb,
						 (uint32_t)((w->data - ws->rb.data) / ws->rb.subbuf_size));
		/* (a memory-only channel: no consumer drains it) */
		if (!ws->nowake)
			lib_wake_consumer();
	}
	return ret;
}

SHMTRACE_API void shmtrace__resync(void)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	uint64_t gen = *shmtrace__ctl_gen;

	if (gen & 1)
		return;	/* being written: keep the old state until the next event */
	reg_apply();
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++) {
		uint64_t id = ctl ? __atomic_load_n(&ctl->chan[c].chan_id, __ATOMIC_RELAXED) : 0;

		if (lib_tls[c].rb.hdr && lib_tls[c].chan_id != id)
			writer_put(c);
	}
	if (shmtrace__tls.gen != gen)
		aggr_new_gen();	/* no plan holds at another generation */
	shmtrace__tls.gen = gen;
	/* the daemon bumps our generation when our connection closed while we
	 * run (the program closed it): register again */
	lib_register_soon();
	lib_late_check();	/* a late session daemon that wrote our page answered */
	procev_resync();	/* a session started: the state dump it needs */
}

/*
 * An event emitted while the thread is inside the tracer (a signal handler
 * that interrupted an event), or while it forks: counted, never written.
 * In a forked child whose libshmtrace child handler has not run yet (the
 * program's earlier atfork handlers: jemalloc's takes its locks through
 * the pthread helper), the buffers and the process page are the parent's
 * and not mapped here: the count goes to lib_fork_lost, which the child's
 * new process page starts with (control.c).
 */
SHMTRACE_API void shmtrace__nested_drop(unsigned int mask)
{
	/* called by modules built before shmtrace__nested_drop_ev() */
	if (__builtin_expect(__atomic_load_n(&lib.forking, __ATOMIC_RELAXED) != 0, 0) &&
	    getpid() != lib.pid) {
		while (mask) {
			unsigned int c = (unsigned int)__builtin_ctz(mask);

			mask &= mask - 1;
			if (c < SHM_MAX_CHAN)
				lib.fork_lost[c]++;	/* one thread in the child */
		}
		return;
	}
	while (mask) {
		unsigned int c = (unsigned int)__builtin_ctz(mask);

		mask &= mask - 1;
		if (c >= SHM_MAX_CHAN)
			break;
		if (lib_tls[c].rb.hdr)
			__atomic_fetch_add(&lib_tls[c].rb.hdr->lost_nested, 1, __ATOMIC_RELAXED);
		else if (lib.proc)
			__atomic_fetch_add(&lib.proc->lost_nobuf[c], 1, __ATOMIC_RELAXED);
	}
}

/*
 * The same for event @ev, whose channel mask is @mask: a polled event is
 * recorded nowhere; its aggregations count the update as lost.
 */
SHMTRACE_API void shmtrace__nested_drop_ev(const struct shmtrace_event *ev, unsigned int mask)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);

	shmtrace__nested_drop(ev->polled ? 0 : mask);
	if (ctl && ev->id < SHM_MAX_EVENTS && ev->registered)
		aggr_lost(__atomic_load_n(&ctl->aggen[ev->id], __ATOMIC_RELAXED));
}
