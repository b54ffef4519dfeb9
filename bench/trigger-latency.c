/* SPDX-License-Identifier: MIT */
/*
 * trigger-latency - how long from an event that fires a snapshot trigger
 * to the snapshot complete on disk (bench/trigger-latency.sh).
 *
 * usage: trigger-latency DIR COUNT PREFIX
 *
 * Emits bench_trig:tick { seq, fire } once a millisecond; every 50th has
 * fire = 1 (the trigger's filter), COUNT of them in all, the time read
 * (CLOCK_MONOTONIC) just before each is emitted. A thread watches DIR
 * with inotify: every directory made in it whose name starts with PREFIX
 * is a snapshot (the Nth made is the Nth trigger's), watched with the
 * directories made in it; a snapshot is complete at the last file closed
 * after writing anywhere in its tree, metadata and streams alike, or
 * linked into it already written (IN_CREATE; a file made empty and then
 * written is closed after its IN_CREATE, so its close counts; a file
 * found already there counts as complete when it is found). Prints, per
 * trigger, the latency in microseconds.
 *
 * Built with -DBENCH_LTTNG, the event is an LTTng-UST tracepoint of the
 * same name and fields (tp-trig.h), and the rest is the same program.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#ifdef BENCH_LTTNG
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp-trig.h"
#define EMIT(seq, fire)	lttng_ust_tracepoint(bench_trig, tick, (seq), (fire))
#else
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench_trig, tick, SHMTRACE_INFO,
	SHMTRACE_U64(seq),
	SHMTRACE_U32(fire))
#define EMIT(seq, fire)	shmtrace(bench_trig, tick, (seq), (fire))
#endif

#define MAXN	4096
#define MAXW	65536

static uint64_t t0[MAXN], done_at[MAXN];
static int wd_snap[MAXW];		/* watch -> snapshot + 1, 0: the top */
static int ifd, nsnap;
static const char *prefix;
static volatile int stop;
static char paths[MAXW][256];	/* watch -> its directory; [0]: the top */

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void seen(int snap)
{
	if (snap >= 0 && snap < MAXN)
		done_at[snap] = now();
}

static void watch(const char *path, int snap)
{
	int wd = inotify_add_watch(ifd, path, IN_CREATE | IN_CLOSE_WRITE | IN_ONLYDIR);
	DIR *d;
	struct dirent *de;

	if (wd < 0 || wd >= MAXW)
		return;
	wd_snap[wd] = snap + 1;
	snprintf(paths[wd], sizeof(paths[wd]), "%s", path);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char sub[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (de->d_type == DT_DIR)
			watch(sub, snap);
		else
			seen(snap);	/* there already: closed no later than now */
	}
	if (d)
		closedir(d);
}

static void *watcher(void *arg)
{
	char buf[65536] __attribute__((aligned(8)));

	(void)arg;
	while (!stop) {
		ssize_t n = read(ifd, buf, sizeof(buf));

		for (char *p = buf; n > 0 && p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)(void *)p;

			p += sizeof(*e) + e->len;
			if (e->wd < 0 || e->wd >= MAXW)
				continue;
			if (wd_snap[e->wd] == 0) {	/* the top directory */
				char sub[PATH_MAX];

				if (!(e->mask & IN_ISDIR) || !e->len || strncmp(e->name, prefix, strlen(prefix)))
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", paths[0], e->name);
				watch(sub, nsnap++);
				continue;
			}
			if ((e->mask & IN_CREATE) && (e->mask & IN_ISDIR)) {
				char sub[PATH_MAX];

				snprintf(sub, sizeof(sub), "%s/%s", paths[e->wd], e->name);
				watch(sub, wd_snap[e->wd] - 1);
			} else if (e->mask & (IN_CLOSE_WRITE | IN_CREATE)) {
				/* closed after writing, or linked in written */
				seen(wd_snap[e->wd] - 1);
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int count, wd;
	uint64_t seq = 0;

	if (argc != 4)
		return 2;
	count = atoi(argv[2]);
	prefix = argv[3];
	if (count < 1 || count > MAXN)
		return 2;
	ifd = inotify_init1(IN_CLOEXEC);
	wd = inotify_add_watch(ifd, argv[1], IN_CREATE | IN_ONLYDIR);
	if (ifd < 0 || wd < 0 || wd >= MAXW)
		return 1;
	wd_snap[wd] = 0;
	snprintf(paths[0], sizeof(paths[0]), "%s", argv[1]);
	pthread_create(&th, NULL, watcher, NULL);
	for (int i = 0; i < count; i++) {
		for (int k = 0; k < 49; k++) {
			struct timespec ts = { 0, 1000000 };

			EMIT(seq++, 0);
			nanosleep(&ts, NULL);
		}
		t0[i] = now();
		EMIT(seq++, 1);
		{
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	sleep(2);	/* the last snapshots */
	for (int i = 0; i < count; i++) {
		if (done_at[i] > t0[i])
			printf("%llu\n", (unsigned long long)((done_at[i] - t0[i]) / 1000));
		else
			printf("missing %d\n", i);
	}
	return 0;
}
