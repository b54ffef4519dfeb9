/* SPDX-License-Identifier: MIT */
/*
 * chaos-app - a traced program for the chaos test (tests/chaos/chaos.sh):
 * it writes shmtrace_test:event {seq, thread, payload} until it is told
 * to stop, and says how many events each of its threads emitted.
 *
 * First it waits, up to WAIT_MS, until shmtrace_test:event is enabled
 * (shmtrace_enabled()), since events emitted before are neither recorded
 * nor counted by the tracer; then it prints "started PID" on standard
 * output. Each of THREADS threads (thread = 0..THREADS-1) emits bursts of
 * BURST events back to back, seq counting from 0, with PAUSE_US
 * microseconds between bursts (0: none, full speed), until SIGTERM or
 * SIGINT. At its end it prints one line per thread:
 *
 *	PID THREAD EMITTED DISABLED START
 *
 * EMITTED events were emitted with seq 0..EMITTED-1; DISABLED of them
 * while shmtrace_enabled() said the event was not enabled (it was, when
 * the thread started: such events are lost without being counted, which
 * the session active all along should never allow). START is the
 * process's start time (/proc/PID/stat), which tells apart two processes
 * that had the same pid.
 *
 * With -f EACH the main thread also forks: one child every INTERVAL_US
 * microseconds (-i), at most CONCURRENT alive at once (-k). Child number N
 * (from 0) emits EACH events (thread = 2000000 + N, so that a thread is
 * known by pid and thread even when a child has the pid of an earlier one)
 * in bursts of BURST with PAUSE_US between them,
 * prints its own line (one write(2): standard output should be opened in
 * append mode), and exits with status 0. Between forks the main thread
 * emits a burst of its own (thread = 1000000). At SIGTERM the parent stops
 * forking, waits for its children and prints its threads' lines; it exits
 * with status 1 when a child failed.
 *
 * usage: chaos-app [-t THREADS] [-b BURST] [-p PAUSE_US] [-s STRLEN]
 *        [-w WAIT_MS] [-f EACH [-i INTERVAL_US] [-k CONCURRENT]]
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

#define MAIN_THREAD 1000000u
#define CHILD_THREAD 2000000u

static unsigned long burst = 1000, pause_us, wait_ms = 30000, each, interval_us = 100000;
static unsigned int concurrent = 2, strlen_opt = 8;
static volatile sig_atomic_t stop;
static unsigned long long start_time;	/* of this process, in clock ticks since boot */

struct worker {
	pthread_t tid;
	uint32_t thread;
	uint64_t emitted;
	uint64_t disabled;
};

/* This process's start time, field 22 of /proc/self/stat. */
static unsigned long long read_start_time(void)
{
	char buf[1024], *p;
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f) {
		perror("chaos-app: /proc/self/stat");
		exit(2);
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold anything */
	/* after ") ": state (field 3), then fields 4 to 21, then 22 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
			 "%*d %*d %llu", &v) != 1) {
		fprintf(stderr, "chaos-app: cannot read the start time\n");
		exit(2);
	}
	return v;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

/* Wait up to wait_ms for the event to be enabled: 0 when it is. */
static int wait_enabled(void)
{
	for (unsigned long ms = 0; !shmtrace_enabled(shmtrace_test, event); ms++) {
		if (ms >= wait_ms)
			return -1;
		sleep_us(1000);
	}
	return 0;
}

static char *make_payload(uint32_t thread)
{
	char *p = malloc(strlen_opt + 1);

	if (!p) {
		perror("chaos-app: malloc");
		exit(2);
	}
	for (unsigned int i = 0; i < strlen_opt; i++)
		p[i] = (char)('a' + (i + thread) % 26);
	p[strlen_opt] = 0;
	return p;
}

/* One burst of @n events of thread @w (at most @n: none past @limit). */
static void emit_burst(struct worker *w, const char *payload, uint64_t n, uint64_t limit)
{
	for (uint64_t i = 0; i < n && w->emitted < limit; i++) {
		if (!shmtrace_enabled(shmtrace_test, event))
			w->disabled++;
		shmtrace(shmtrace_test, event, w->emitted, w->thread, payload);
		w->emitted++;
	}
}

/* The line of a thread, written at once (children share the file). */
static void report(const struct worker *w)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%d %u %llu %llu %llu\n", (int)getpid(), w->thread,
			 (unsigned long long)w->emitted, (unsigned long long)w->disabled, start_time);

	if (n <= 0 || write(1, line, (size_t)n) != n) {
		perror("chaos-app: write");
		exit(2);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char *payload = make_payload(w->thread);

	while (!stop) {
		emit_burst(w, payload, burst, UINT64_MAX);
		if (pause_us)
			sleep_us(pause_us);
	}
	free(payload);
	return NULL;
}

static void child_main(uint32_t n)
{
	struct worker w = { .thread = CHILD_THREAD + n };
	char *payload;

	start_time = read_start_time();
	if (wait_enabled() < 0) {
		fprintf(stderr, "chaos-app: child %d: the event is not enabled\n", (int)getpid());
		exit(3);
	}
	payload = make_payload(w.thread);
	while (w.emitted < each) {
		emit_burst(&w, payload, burst, each);
		if (pause_us && w.emitted < each)
			sleep_us(pause_us);
	}
	free(payload);
	report(&w);
	exit(0);
}

/* Reap children; with @block, every one. Returns the failures seen. */
static unsigned int reap(unsigned int *alive, int block)
{
	unsigned int bad = 0;
	int st;
	pid_t pid;

	while (*alive && (pid = waitpid(-1, &st, block ? 0 : WNOHANG)) != 0) {
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			perror("chaos-app: waitpid");
			exit(2);
		}
		(*alive)--;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "chaos-app: child %d failed (status 0x%x)\n", (int)pid, st);
			bad++;
		}
	}
	return bad;
}

static unsigned int fork_loop(struct worker *m)
{
	char *payload = make_payload(MAIN_THREAD);
	unsigned int alive = 0, bad = 0;
	uint32_t n = 0;

	while (!stop) {
		bad += reap(&alive, 0);
		if (alive < concurrent) {
			pid_t pid;

			fflush(NULL);	/* nothing of ours printed twice */
			pid = fork();
			if (pid < 0) {
				perror("chaos-app: fork");
				bad++;
			} else if (pid == 0) {
				child_main(n);
			} else {
				alive++;
				n++;
			}
		}
		emit_burst(m, payload, burst, UINT64_MAX);
		sleep_us(interval_us);
	}
	free(payload);
	return bad + reap(&alive, 1);
}

static void usage(void)
{
	fprintf(stderr, "usage: chaos-app [-t THREADS] [-b BURST] [-p PAUSE_US] [-s STRLEN] "
		"[-w WAIT_MS] [-f EACH [-i INTERVAL_US] [-k CONCURRENT]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker *w, m = { .thread = MAIN_THREAD };
	struct sigaction sa;
	unsigned int threads = 1, bad = 0;
	int c;

	while ((c = getopt(argc, argv, "t:b:p:s:w:f:i:k:")) != -1) {
		switch (c) {
		case 't': threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'b': burst = strtoul(optarg, NULL, 0); break;
		case 'p': pause_us = strtoul(optarg, NULL, 0); break;
		case 's': strlen_opt = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w': wait_ms = strtoul(optarg, NULL, 0); break;
		case 'f': each = strtoul(optarg, NULL, 0); break;
		case 'i': interval_us = strtoul(optarg, NULL, 0); break;
		case 'k': concurrent = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (optind != argc || threads > 1024 || burst == 0 || strlen_opt > 4096 ||
	    (each && concurrent == 0))
		usage();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0) {
		perror("chaos-app: sigaction");
		return 2;
	}
	start_time = read_start_time();
	if (wait_enabled() < 0) {
		fprintf(stderr, "chaos-app: shmtrace_test:event not enabled after %lu ms\n", wait_ms);
		return 2;
	}
	w = calloc(threads ? threads : 1, sizeof(*w));
	if (!w) {
		perror("chaos-app: calloc");
		return 2;
	}
	printf("started %d\n", (int)getpid());
	fflush(stdout);
	for (unsigned int i = 0; i < threads; i++) {
		w[i].thread = i;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "chaos-app: cannot create a thread\n");
			return 2;
		}
	}
	if (each) {
		bad = fork_loop(&m);
	} else {
		while (!stop)
			sleep_us(10000);	/* the signal may land on any thread */
	}
	for (unsigned int i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		report(&w[i]);
	}
	if (each)
		report(&m);
	free(w);
	return bad ? 1 : 0;
}
