/* SPDX-License-Identifier: MIT */
/*
 * sig-events - events from a signal handler that interrupts event writes.
 *
 * The main thread emits COUNT shmtrace_test:event events in a loop, GAP
 * nanoseconds apart (so that the consumer keeps up), while a ~10 kHz timer
 * signal emits shmtrace_test:sig events from its handler, some in the
 * middle of one of the main thread's events. It prints how many of each it
 * emitted: "main N sig M".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "test-events.h"

SHMTRACE_EVENT(shmtrace_test, sig, SHMTRACE_DEBUG,
	SHMTRACE_U64(seq),
	SHMTRACE_STRING(payload))

static volatile sig_atomic_t sig_seq;

static void on_timer(int sig)
{
	shmtrace(shmtrace_test, sig, (uint64_t)sig_seq, "from a signal handler");
	sig_seq = sig_seq + 1;
}

int main(int argc, char **argv)
{
	unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000;
	long gap = argc > 2 ? strtol(argv[2], NULL, 0) : 1000;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec its = { { 0, 100000 }, { 0, 100000 } };
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };
	sigset_t block;
	timer_t timer;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 || timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0 ||
	    timer_settime(timer, 0, &its, NULL) < 0) {
		perror("sig-events");
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		struct timespec t0, t;

		shmtrace(shmtrace_test, event, i, 0, "main loop event");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < gap);
	}
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	timer_delete(timer);
	printf("main %lu sig %lu\n", count, (unsigned long)sig_seq);
	return 0;
}
