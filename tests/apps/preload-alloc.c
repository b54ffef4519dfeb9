/* SPDX-License-Identifier: MIT */
/*
 * preload-alloc - exercises every function of the malloc family, for the
 * test of the libc preload helper. Not linked with libshmtrace.
 *
 * usage: preload-alloc THREADS ITERATIONS
 *
 * THREADS workers each run ITERATIONS rounds that allocate with malloc,
 * calloc, realloc (from NULL, growing, shrinking, to 0), reallocarray,
 * memalign, posix_memalign (one bad alignment too), aligned_alloc, valloc
 * and pvalloc, write into every block and free them all. Meanwhile the
 * main thread hands blocks to a signal handler that frees them and
 * allocates and frees its own (the handler runs on a thread of its own,
 * only inside sigsuspend(), so that it never interrupts the allocator),
 * and forks a child that allocates and frees CHILD_ALLOCS blocks and
 * leaves with _exit().
 *
 * Every block the program gets is freed exactly once (realloc to 0
 * included). Standard output holds only counts, the same from run to run,
 * with or without a preloaded helper:
 *	allocated N freed N failed F     (F: calls that returned no block)
 *	child allocated C freed C
 * Standard error holds the address range of the program's code, so that
 * a test can tell the program's own calls (their caller is in it) from
 * the C library's, then the child's pid:
 *	text 0xLOW 0xHIGH
 *	child PID
 * Exit status 0 when every call behaved as documented.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_ALLOCS	64
#define SIG_ROUNDS	50
#define SIG_BLOCKS	8

static unsigned long iterations;
static unsigned long allocated, freed, failed;	/* atomic adds */
static int bad;
/* NULL, but the compiler may not turn realloc(NULL, n) into malloc(n) */
static void *volatile null_block;

/* Blocks handed to the signal handler, and its acknowledgement. */
static void *sig_blocks[SIG_BLOCKS];
static sem_t sig_done;
static volatile sig_atomic_t sig_stop, sig_exit;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "preload-alloc: %s\n", what);
		__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
	}
}

static void count(unsigned long *c, unsigned long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Got a block of @size bytes: check it, write into it. */
static void *got(void *p, size_t size, size_t align, const char *what)
{
	check(p != NULL, what);
	if (!p)
		return NULL;
	check(((uintptr_t)p & (align - 1)) == 0, what);
	memset(p, 0x5a, size);
	count(&allocated, 1);
	return p;
}

static void release(void *p)
{
	free(p);
	count(&freed, 1);
}

static void round_trip(unsigned long i)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p[12];
	char *c;
	int ret;

	p[0] = got(malloc(16 + i % 200), 16 + i % 200, 1, "malloc");
	c = calloc(3, 40);
	check(c && c[0] == 0 && c[119] == 0, "calloc not zeroed");
	p[1] = got(c, 120, 1, "calloc");
	/* realloc: from NULL (an allocation), growing, shrinking */
	p[2] = got(realloc(null_block, 24), 24, 1, "realloc(NULL)");
	c = realloc(p[2], 4000);
	check(c != NULL && (unsigned char)c[23] == 0x5a, "realloc grow");
	p[2] = c;
	memset(c, 1, 4000);
	c = realloc(p[2], 8);
	check(c != NULL && c[7] == 1, "realloc shrink");
	p[2] = c;
	p[3] = got(memalign(64, 100), 100, 64, "memalign");
	p[4] = NULL;
	ret = posix_memalign(&p[4], 128, 200);
	check(ret == 0, "posix_memalign");
	p[4] = got(p[4], 200, 128, "posix_memalign");
	p[5] = got(aligned_alloc(256, 512), 512, 256, "aligned_alloc");
	p[6] = got(valloc(100), 100, page, "valloc");
	p[7] = got(pvalloc(100), page, page, "pvalloc");
	p[8] = got(reallocarray(null_block, 4, 8), 32, 1, "reallocarray(NULL)");
	c = reallocarray(p[8], 8, 8);
	check(c != NULL, "reallocarray");
	p[8] = c;
	/* realloc(p, 0) frees p and returns NULL, as glibc does */
	p[9] = got(malloc(10), 10, 1, "malloc");
	errno = 0;
	check(realloc(p[9], 0) == NULL, "realloc(p, 0)");
	count(&freed, 1);
	free(NULL);
	if (i == 0) {
		volatile size_t huge = SIZE_MAX / 2;	/* not a constant: no warning */
		void *q = (void *)1;

		/*
		 * failures: no block, errno or the result says why; the
		 * overflowing reallocarray never reaches the allocator
		 * (glibc checks the product first), so only two are counted
		 */
		check(posix_memalign(&q, 3, 10) == EINVAL && q == (void *)1,
		      "posix_memalign(3)");
		errno = 0;
		q = malloc(huge);
		check(q == NULL && errno == ENOMEM, "malloc(huge)");
		q = reallocarray(NULL, huge, 4);
		check(q == NULL && errno == ENOMEM, "reallocarray overflow");
		count(&failed, 2);
	}
	for (int k = 0; k < 9; k++)
		release(p[k]);
}

static void *worker(void *arg)
{
	for (unsigned long i = 0; i < iterations; i++)
		round_trip(i);
	return arg;
}

/* Async-signal context, but never inside the allocator: see sig_thread. */
static void on_signal(int sig)
{
	void *own;

	for (int k = 0; k < SIG_BLOCKS; k++) {
		release(sig_blocks[k]);
		sig_blocks[k] = NULL;
	}
	own = got(malloc(48), 48, 1, "malloc in handler");
	release(own);
	if (sig_stop)
		sig_exit = 1;	/* the round after sig_stop was set: the last */
	sem_post(&sig_done);
}

/* The only thread that takes the signal, and only inside sigsuspend(). */
static void *sig_thread(void *arg)
{
	sigset_t wait_set;

	pthread_sigmask(SIG_BLOCK, NULL, &wait_set);
	sigdelset(&wait_set, SIGUSR1);
	while (!sig_exit)
		sigsuspend(&wait_set);
	return arg;
}

/* Hand SIG_BLOCKS blocks to the handler; return once it freed them. */
static void signal_round(pthread_t sig_tid)
{
	for (int k = 0; k < SIG_BLOCKS; k++)
		sig_blocks[k] = got(malloc(32 + (size_t)k), 32 + (size_t)k, 1, "malloc");
	pthread_kill(sig_tid, SIGUSR1);
	while (sem_wait(&sig_done) < 0 && errno == EINTR)
		;
}

/* The child: its own blocks only, then _exit (no stdio, no atexit). */
static void child(void)
{
	void *p[CHILD_ALLOCS];
	int ok = 1;

	for (int k = 0; k < CHILD_ALLOCS; k++) {
		p[k] = k % 2 ? malloc(64) : calloc(2, 32);
		ok &= p[k] != NULL;
	}
	for (int k = 0; k < CHILD_ALLOCS; k += 4) {
		void *q = realloc(p[k], 1000);

		ok &= q != NULL;
		if (q)
			p[k] = q;
	}
	for (int k = 0; k < CHILD_ALLOCS; k++)
		free(p[k]);
	_exit(ok ? 0 : 1);
}

/* The program's code: the executable mapping that holds main(). */
static void print_text_range(void)
{
	uintptr_t self = (uintptr_t)&print_text_range;
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && self >= lo && self < hi) {
			fprintf(stderr, "text 0x%lx 0x%lx\n", lo, hi);
			break;
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	unsigned long nthreads;
	pthread_t *tids, sig_tid;
	struct sigaction sa;
	sigset_t set;
	pid_t pid;
	int status;

	if (argc != 3) {
		fprintf(stderr, "usage: preload-alloc THREADS ITERATIONS\n");
		return 2;
	}
	nthreads = strtoul(argv[1], NULL, 0);
	iterations = strtoul(argv[2], NULL, 0);
	print_text_range();
	sem_init(&sig_done, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* inherited by every thread */

	tids = calloc(nthreads, sizeof(*tids));
	check(tids != NULL, "calloc");
	if (!tids)
		return 1;
	count(&allocated, 1);
	if (pthread_create(&sig_tid, NULL, sig_thread, NULL))
		return 1;
	for (unsigned long t = 0; t < nthreads; t++)
		if (pthread_create(&tids[t], NULL, worker, NULL))
			return 1;

	pid = fork();	/* while the workers allocate */
	if (pid == 0)
		child();
	check(pid > 0, "fork");
	if (pid > 0)
		fprintf(stderr, "child %d\n", (int)pid);
	for (int r = 0; r < SIG_ROUNDS; r++)
		signal_round(sig_tid);

	for (unsigned long t = 0; t < nthreads; t++)
		pthread_join(tids[t], NULL);
	release(tids);
	sig_stop = 1;
	signal_round(sig_tid);	/* the last: the thread leaves after it */
	pthread_join(sig_tid, NULL);
	check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child");

	printf("allocated %lu freed %lu failed %lu\n", allocated, freed, failed);
	printf("child allocated %d freed %d\n", CHILD_ALLOCS, CHILD_ALLOCS);
	return bad;
}
