/* SPDX-License-Identifier: MIT */
/*
 * daemonize - a traced program that becomes a daemon, for the tests of
 * tracectl record: it forks, the child starts a new session and forks
 * again, and both parents exit at once; the grandchild, reparented, writes
 * its pid to PIDFILE, points its standard streams at /dev/null and emits
 * COUNT shmtrace_test:event events (seq 0..COUNT-1, thread 0), one every
 * MS milliseconds, then exits. COUNT 0: emits until killed.
 *
 *	daemonize COUNT MS PIDFILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

int main(int argc, char **argv)
{
	unsigned long count, ms;
	struct timespec ts;
	FILE *f;
	int null;

	if (argc != 4) {
		fprintf(stderr, "usage: daemonize COUNT MS PIDFILE\n");
		return 2;
	}
	count = strtoul(argv[1], NULL, 0);
	ms = strtoul(argv[2], NULL, 0);
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	if (fork() != 0)
		return 0;
	setsid();
	if (fork() != 0)
		_exit(0);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	for (uint64_t i = 0; !count || i < count; i++) {
		shmtrace(shmtrace_test, event, i, 0, "daemon");
		nanosleep(&ts, NULL);
	}
	return 0;
}
