/* SPDX-License-Identifier: MIT */
/*
 * util.c - the small helpers the traced process calls, also used by the
 * daemons and the tools (util.h). Everything here uses only
 * async-signal-safe system calls; what is read from /proc is parsed with
 * bounds (a line missing or malformed is -EIO, never a guess). The
 * helpers only the daemons and the tools use are support/sysutil.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common/util.h"

int mkdir_p_made(const char *path, mode_t mode, size_t *made)
{
	char buf[4096];
	size_t len = strlen(path);

	*made = 0;
	if (len == 0 || len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, mode) == 0) {
			if (!*made)
				*made = i;
		} else if (errno != EEXIST) {
			return -errno;
		}
		buf[i] = path[i];
	}
	return 0;
}

int mkdir_p(const char *path, mode_t mode)
{
	size_t made;

	return mkdir_p_made(path, mode, &made);
}

uint64_t now_ns(int clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got + 1 < cap && (n = read(fd, buf + got, cap - 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	return (long)got;
}

void proc_path(char *out, const char *pre, pid_t pid, const char *post)
{
	char num[16];
	int n = 0;
	unsigned int v = (unsigned int)pid;

	do {
		num[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (*pre)
		*out++ = *pre++;
	while (n)
		*out++ = num[--n];
	while (*post)
		*out++ = *post++;
	*out = 0;
}

int proc_starttime(pid_t pid, uint64_t *out)
{
	char path[48], buf[1024], *p;
	long n;
	int field;

	proc_path(path, "/proc/", pid, "/stat");
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	p = strrchr(buf, ')');	/* the command name may hold anything */
	if (!p)
		return -EIO;
	/* field 3 starts at p + 2; starttime is field 22 */
	for (field = 2, p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field != 22)
		return -EIO;
	*out = 0;
	while (*p >= '0' && *p <= '9')
		*out = *out * 10 + (uint64_t)(*p++ - '0');
	return 0;
}

