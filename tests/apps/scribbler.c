/* SPDX-License-Identifier: MIT */
/*
 * scribbler - a traced program that scribbles over its own shared memory:
 * after N events it writes seeded random bytes over every header, counter,
 * commit word and sub-buffer descriptor of its buffer segments and over
 * part of their data, maps its control page read-write again through its
 * descriptor and scribbles there too, emits N more events, then prints
 * "done" and waits for a line on standard input. Only its own trace may
 * suffer; the consumer must neither crash nor spin.
 *
 * usage: scribbler N SEED
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "test-events.h"

static unsigned long long rnd_state;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void scribble(unsigned char *p, size_t len, unsigned int every)
{
	for (size_t i = 0; i < len; i++)
		if (rnd() % every == 0)
			p[i] = (unsigned char)rnd();
}

/* every mapping of ours named @name, scribbled over */
static int scribble_maps(const char *name)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];

		if (!strstr(line, name) || sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 ||
		    perms[1] != 'w')
			continue;
		/* the segment header and the slot headers: dense */
		scribble((unsigned char *)lo, 3 * 4096 < hi - lo ? 3 * 4096 : hi - lo, 3);
		/* the rest: sparse */
		scribble((unsigned char *)lo, hi - lo, 997);
		n++;
	}
	fclose(f);
	return n;
}

/* our control page, read-only for us, mapped again read-write */
static int scribble_control(void)
{
	char path[300], target[256];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		ssize_t len;
		void *p;
		int fd;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strstr(target, "shmtrace-ctl"))
			continue;
		fd = open(path, O_RDWR);
		if (fd < 0)
			continue;
		p = mmap(NULL, 94208, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			scribble(p, 94208, 5);
			n++;
		}
		close(fd);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long n;
	char buf[16];
	int segs, ctls;

	if (argc != 3)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	rnd_state = strtoull(argv[2], NULL, 10) * 2654435761u + 1;
	for (unsigned long i = 0; i < n; i++)
		shmtrace(shmtrace_test, event, i, 0, "before");
	segs = scribble_maps("shmtrace-buf");
	ctls = scribble_control();
	for (unsigned long i = 0; i < n; i++)
		shmtrace(shmtrace_test, event, n + i, 0, "after");
	printf("scribbled %d %d\n", segs, ctls);
	printf("done\n");
	fflush(stdout);
	if (!fgets(buf, sizeof(buf), stdin))
		return 1;
	return 0;
}
