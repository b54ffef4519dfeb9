/* SPDX-License-Identifier: MIT */
/*
 * preload-mutex - threads contending for one mutex, for the test of the
 * pthread preload helper. Not linked with libshmtrace.
 *
 * usage: preload-mutex THREADS ITERATIONS HOLD_US
 *
 * Each of THREADS workers locks the mutex ITERATIONS times, holds it
 * HOLD_US microseconds (busy, on the clock), unlocks it and works as long
 * again before the next round. It measures every pthread_mutex_lock call
 * itself, clock_gettime(CLOCK_MONOTONIC) right around it. The first worker
 * leaves with pthread_exit(0x1234), the others return THREAD_RET. Then the
 * workers report to the main thread through a condition variable; the main
 * thread also times out once on another one, broadcasts once, and tries
 * the mutex while free and while held. Output (addresses in hex):
 *	mutex ADDR         the contended mutex
 *	done_mutex ADDR    the one the condition variables use
 *	cond ADDR          the workers signal it, the main thread waits on it
 *	timed_cond ADDR    timed wait (ETIMEDOUT), then broadcast
 *	worker ADDR        the workers' start routine
 *	lock_calls N       pthread_mutex_lock calls on mutex
 *	waited_ns NS       total of the calls measured at WAIT_MIN_NS or more
 *	waited_all_ns NS   total of all calls
 * A call measured that long waited for another thread: an uncontended
 * lock takes well under a microsecond. The first total is the one to
 * compare with the time a tracer saw pthread_mutex_lock wait.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WAIT_MIN_NS	2000u
#define THREAD_RET	((void *)0x5678)
#define EXIT_RET	((void *)0x1234)

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t done_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t timed_cond = PTHREAD_COND_INITIALIZER;
static unsigned long iterations, hold_ns, finished;
static uint64_t waited_ns, waited_all_ns;	/* atomic adds */
static long shared;				/* under mutex */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

static void *worker(void *arg)
{
	uint64_t mine = 0, all = 0;

	for (unsigned long i = 0; i < iterations; i++) {
		uint64_t t0 = now_ns(), d;

		pthread_mutex_lock(&mutex);
		d = now_ns() - t0;
		all += d;
		if (d >= WAIT_MIN_NS)
			mine += d;
		shared++;
		spin(hold_ns);
		pthread_mutex_unlock(&mutex);
		spin(hold_ns);
	}
	__atomic_fetch_add(&waited_ns, mine, __ATOMIC_RELAXED);
	__atomic_fetch_add(&waited_all_ns, all, __ATOMIC_RELAXED);
	pthread_mutex_lock(&done_mutex);
	finished++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&done_mutex);
	if (arg == NULL)
		pthread_exit(EXIT_RET);
	return THREAD_RET;
}

int main(int argc, char **argv)
{
	unsigned long nthreads;
	struct timespec deadline;
	pthread_t *tids;
	int bad = 0, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: preload-mutex THREADS ITERATIONS HOLD_US\n");
		return 2;
	}
	nthreads = strtoul(argv[1], NULL, 0);
	iterations = strtoul(argv[2], NULL, 0);
	hold_ns = strtoul(argv[3], NULL, 0) * 1000u;
	tids = calloc(nthreads, sizeof(*tids));
	if (!tids)
		return 1;

	/* trylock: free, then held (by us: a normal mutex says EBUSY) */
	bad |= pthread_mutex_trylock(&mutex) != 0;
	bad |= pthread_mutex_trylock(&mutex) != EBUSY;
	pthread_mutex_unlock(&mutex);

	for (unsigned long t = 0; t < nthreads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t))
			return 1;
	pthread_mutex_lock(&done_mutex);
	while (finished < nthreads)
		pthread_cond_wait(&cond, &done_mutex);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	do
		ret = pthread_cond_timedwait(&timed_cond, &done_mutex, &deadline);
	while (ret == 0);
	bad |= ret != ETIMEDOUT;
	pthread_cond_broadcast(&timed_cond);
	pthread_mutex_unlock(&done_mutex);
	for (unsigned long t = 0; t < nthreads; t++) {
		void *r;

		pthread_join(tids[t], &r);
		bad |= r != (t ? THREAD_RET : EXIT_RET);
	}
	free(tids);
	bad |= shared != (long)(nthreads * iterations);

	printf("mutex %p\ndone_mutex %p\ncond %p\ntimed_cond %p\nworker %p\n",
	       (void *)&mutex, (void *)&done_mutex, (void *)&cond, (void *)&timed_cond,
	       (void *)(uintptr_t)worker);
	printf("lock_calls %lu\nwaited_ns %" PRIu64 "\nwaited_all_ns %" PRIu64 "\n",
	       nthreads * iterations, waited_ns, waited_all_ns);
	return bad;
}
