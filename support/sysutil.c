/* SPDX-License-Identifier: MIT */
/*
 * sysutil.c - helpers of the daemons and the tools about files,
 * directories, descriptors and other processes (sysutil.h). What is read
 * from /proc about another process is parsed with bounds (a line missing
 * or malformed is -EIO, never a guess). None of it runs in a traced
 * process: what that needs is in common/util.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "support/sysutil.h"

void rmdir_made(const char *path, size_t made)
{
	char buf[4096];
	size_t len = strlen(path);

	if (!made || len >= sizeof(buf) || made > len)
		return;
	memcpy(buf, path, len + 1);
	for (size_t i = len; i >= made; i--) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		rmdir(buf);
	}
}

int array_grow(void *arr, uint32_t *n, uint32_t want, size_t size)
{
	char *p;

	if (want <= *n)
		return 0;
	memcpy(&p, arr, sizeof(p));
	p = realloc(p, (size_t)want * size);
	if (!p)
		return -ENOMEM;
	memset(p + (size_t)*n * size, 0, (size_t)(want - *n) * size);
	memcpy(arr, &p, sizeof(p));
	*n = want;
	return 0;
}

long nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return -errno;
	}
	return rl.rlim_cur > LONG_MAX ? LONG_MAX : (long)rl.rlim_cur;
}

int dir_walk(int base, const char *rest, mode_t mode, size_t *made)
{
	const char *p = rest;
	/* a description of its own, not a dup: the caller may read it as a
	 * directory, and @base's offset is shared with whoever passed it */
	int fd = openat(base, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (made)
		*made = 0;
	if (fd < 0)
		return -errno;
	while (*p) {
		char comp[256];
		size_t n;
		int nfd;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n >= sizeof(comp) || (n == 2 && !strncmp(p, "..", 2))) {
			close(fd);
			return n >= sizeof(comp) ? -ENAMETOOLONG : -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		p += n;
		if (n == 1 && comp[0] == '.')
			continue;
		if (mode && mkdirat(fd, comp, mode) == 0 && made && !*made)
			*made = (size_t)(p - rest);
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0)
			return -errno;
		fd = nfd;
	}
	return fd;
}

int dir_base(const char *path, size_t *len)
{
	char buf[4096];
	size_t n = strlen(path);
	int fd;

	if (n >= sizeof(buf) || path[0] != '/')
		return -EINVAL;
	memcpy(buf, path, n + 1);
	for (;;) {
		fd = open(n ? buf : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || n == 0) {
			*len = n;
			return fd >= 0 ? fd : -errno;
		}
		while (n > 0 && buf[n - 1] != '/')
			n--;
		while (n > 0 && buf[n - 1] == '/')
			n--;
		buf[n] = 0;
	}
}

int proc_live(pid_t pid, uint64_t start)
{
	char path[48], buf[1024], *p;
	uint64_t now;

	if (proc_starttime(pid, &now) < 0 || now != start)
		return 0;
	proc_path(path, "/proc/", pid, "/stat");
	if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	return p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* The hexadecimal mask of line @name ("\nSigBlk:") of a status file: 0 or -EIO. */
static int status_mask(const char *buf, const char *name, unsigned long long *mask)
{
	const char *p = strstr(buf, name);

	return p && sscanf(p + strlen(name), "%llx", mask) == 1 ? 0 : -EIO;
}

/* Is the task of status file @buf gone or going (zombie, dead)? */
static int status_exiting(const char *buf)
{
	const char *p = strstr(buf, "\nState:");

	if (!p)
		return 1;
	p += strlen("\nState:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == 'Z' || *p == 'X';
}

int proc_catches(pid_t pid, int signo)
{
	char path[48], buf[4096];
	unsigned long long mask = 0;
	long n;

	proc_path(path, "/proc/", pid, "/status");
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (status_mask(buf, "\nSigCgt:", &mask) < 0 || signo < 1 || signo > 64)
		return -EIO;
	return (mask >> (signo - 1)) & 1;
}

/*
 * Does a thread of @pid other than its leader leave @bit unblocked? Looks
 * at PROC_RING_MAX_TASKS of them at most: 1, 0, or -errno.
 */
static int proc_task_takes(pid_t pid, unsigned long long bit)
{
	char path[64], buf[4096];
	struct dirent *de;
	int seen = 0, ret = 0;
	DIR *d;

	proc_path(path, "/proc/", pid, "/task");
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && seen < PROC_RING_MAX_TASKS && (de = readdir(d)) != NULL) {
		unsigned long long blk;
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || tid == pid || tid > INT32_MAX)
			continue;
		seen++;
		proc_path(path, "/proc/", pid, "/task/");
		proc_path(path + strlen(path), "", (pid_t)tid, "/status");
		if (read_small(path, buf, sizeof(buf)) < 0 || status_exiting(buf) ||
		    status_mask(buf, "\nSigBlk:", &blk) < 0)
			continue;	/* gone meanwhile */
		ret = !(blk & bit);
	}
	closedir(d);
	return ret;
}

int proc_ring_check(pid_t pid, int signo)
{
	char path[48], buf[4096];
	unsigned long long cgt, pnd, blk, bit;
	long n;

	if (signo < 1 || signo > 64)
		return -EINVAL;
	bit = 1ull << (signo - 1);
	proc_path(path, "/proc/", pid, "/status");
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (status_mask(buf, "\nSigCgt:", &cgt) < 0 || status_mask(buf, "\nShdPnd:", &pnd) < 0 ||
	    status_mask(buf, "\nSigBlk:", &blk) < 0)
		return -EIO;
	if (!(cgt & bit))
		return PROC_RING_UNCAUGHT;
	if (pnd & bit)
		return PROC_RING_PENDING;
	/* the leader's mask is in its status; a leader that exited takes nothing */
	if (!(blk & bit) && !status_exiting(buf))
		return PROC_RING_SEND;
	n = proc_task_takes(pid, bit);
	if (n < 0)
		return (int)n;
	return n ? PROC_RING_SEND : PROC_RING_BLOCKED;
}

int memfd_check(int fd, uint64_t size)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0)
		return -errno;
	if ((seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
		return -EPERM;
	if (fstat(fd, &st) < 0)
		return -errno;
	return (uint64_t)st.st_size == size ? 0 : -EINVAL;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int dir_used(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int used = 0;

	while (d && !used && (e = readdir(d)) != NULL)
		used = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return used;
}

int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int writev_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

void uuid_make(uint8_t raw[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	int j = 0;

	if (getrandom(raw, 16, 0) != 16) {
		uint64_t t = now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32);

		for (int i = 0; i < 16; i++, t = t * 6364136223846793005ull + 1442695040888963407ull)
			raw[i] = (uint8_t)(t >> 56);
	}
	raw[6] = (uint8_t)((raw[6] & 0x0f) | 0x40);
	raw[8] = (uint8_t)((raw[8] & 0x3f) | 0x80);
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[j++] = '-';
		out[j++] = hex[raw[i] >> 4];
		out[j++] = hex[raw[i] & 15];
	}
	out[j] = 0;
}
