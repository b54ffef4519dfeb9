/* SPDX-License-Identifier: MIT */
/*
 * gen-events - emit a known sequence of events for tests.
 *
 * Each of THREADS threads emits COUNT shmtrace_test:event events with
 * seq = 0..COUNT-1, thread = its index and a payload of STRLEN characters,
 * pausing USEC microseconds after every 1000 with -p, after every one with -e.
 * With -w the program first prints "ready" and waits for a line on
 * standard input (so that a test can act once the process is registered);
 * with -m it emits one shmtrace_test:mark before that (which creates the
 * process's first buffer segment). With -X, once done it executes itself
 * again with the same options but -X (the new image emits as many again). With -T it also emits one
 * shmtrace_test:types event carrying every field type, and one
 * shmtrace_test:mark with no field. With -W it prints "done" once every
 * event was emitted and waits for a line on standard input before its
 * threads exit (so that a test can act while they are alive and idle).
 * With -R ROUNDS each thread emits COUNT events ROUNDS times (seq going on
 * from round to round); between two rounds, once every thread finished
 * one, the program prints "round N" and waits for a line on standard
 * input (so that a test can change the session between rounds).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

static unsigned long count = 1000;
static unsigned int strlen_opt = 16;
static unsigned long pause_us, every_us;
static unsigned long rounds = 1, round_done, round_go;
static int wait_after;
static unsigned int finished;
static int released;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	char *payload = malloc(strlen_opt + 1);

	if (!payload)
		return NULL;
	for (unsigned int i = 0; i < strlen_opt; i++)
		payload[i] = (char)('a' + (i + t) % 26);
	payload[strlen_opt] = 0;
	for (unsigned long r = 0; r < rounds; r++) {
		for (uint64_t i = 0; i < count; i++) {
			shmtrace(shmtrace_test, event, r * count + i, t, payload);
			if ((pause_us && i % 1000 == 999) || every_us) {
				unsigned long us = every_us ? every_us : pause_us;
				struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

				nanosleep(&ts, NULL);
			}
		}
		if (r + 1 == rounds)
			break;
		pthread_mutex_lock(&lock);
		round_done++;
		pthread_cond_broadcast(&cond);
		while (round_go <= r)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	free(payload);
	if (wait_after) {
		/* stay alive, idle, until released */
		pthread_mutex_lock(&lock);
		finished++;
		pthread_cond_broadcast(&cond);
		while (!released)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: gen-events [-n COUNT] [-t THREADS] [-s STRLEN] [-p USEC] [-e USEC] [-w] [-W] [-T]"
		" [-m] [-X] [-R ROUNDS]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned int threads = 1;
	int wait = 0, types = 0, mark = 0, exec_again = 0, c;
	pthread_t *tids;

	while ((c = getopt(argc, argv, "n:t:s:p:e:wWTmXR:h")) != -1) {
		switch (c) {
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 't': threads = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': strlen_opt = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'p': pause_us = strtoul(optarg, NULL, 0); break;
		case 'e': every_us = strtoul(optarg, NULL, 0); break;
		case 'w': wait = 1; break;
		case 'W': wait_after = 1; break;
		case 'T': types = 1; break;
		case 'm': mark = 1; break;
		case 'X': exec_again = 1; break;
		case 'R': rounds = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (threads == 0 || threads > 4096 || strlen_opt > 65535 || rounds == 0)
		usage();
	if (mark)
		shmtrace(shmtrace_test, mark);
	if (wait) {
		char line[64];

		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	if (types) {
		static const uint8_t bytes[] = { 1, 2, 255 };
		static const int32_t ints[] = { -1, 0, 2147483647 };

		shmtrace(shmtrace_test, types, 255, 65535, 4294967295u, UINT64_MAX,
			 -128, -32768, INT32_MIN, INT64_MIN, 3.25, (const void *)0xdeadbeef,
			 "quote\" back\\slash", bytes, 3, ints, 3);
		shmtrace(shmtrace_test, mark);
	}
	tids = calloc(threads, sizeof(*tids));
	if (!tids)
		return 1;
	for (unsigned int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i))
			return 1;
	for (unsigned long r = 0; r + 1 < rounds; r++) {
		char line[64];

		pthread_mutex_lock(&lock);
		while (round_done < threads * (r + 1))
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
		printf("round %lu\n", r + 1);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = 0;
		pthread_mutex_lock(&lock);
		round_go = r + 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	if (wait_after) {
		char line[64];

		pthread_mutex_lock(&lock);
		while (finished < threads)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
		printf("done\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = 0;
		pthread_mutex_lock(&lock);
		released = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	if (exec_again) {
		char n[32], t[32], sl[32];

		snprintf(n, sizeof(n), "%lu", count);
		snprintf(t, sizeof(t), "%u", threads);
		snprintf(sl, sizeof(sl), "%u", strlen_opt);
		execl("/proc/self/exe", argv[0], "-n", n, "-t", t, "-s", sl, (char *)NULL);
		perror("gen-events: exec");
		return 1;
	}
	return 0;
}
