/* SPDX-License-Identifier: MIT */
/*
 * ownfd.c - the descriptors libshmtrace owns, and only while it owns them.
 *
 * A traced program may close every descriptor (closefrom, close_range, a
 * loop up to the limit), dup2 onto any number, and reuse the numbers it
 * freed. The library must then neither use nor close a number that now
 * belongs to the program: a write to the program's file, or a close of
 * it, is the worst harm a tracer can do.
 *
 * So every descriptor the library creates (socket, memfds, wake socket)
 * is moved at once above a floor, out of reach of the lowest-free-number
 * allocation the program relies on and of most "close 3 to N" loops:
 * the lowest free number at or above min(RLIMIT_NOFILE / 2, 1024). The
 * device and inode of the open file are recorded then. Sockets and memfds
 * have an inode of their own, so before every use and before every close
 * the library compares them with fstat(): a descriptor that no longer
 * matches was closed by the program (perhaps reused), and is forgotten
 * without being touched. The check and the use are two system calls; a
 * program thread that closes and reuses the number between them is a
 * window of a few hundred nanoseconds that only the kernel could close.
 *
 * Everything here is async-signal-safe (fcntl, fstat, close) and keeps
 * errno as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib.h"

#define OWNFD_FLOOR_MAX	1024

static int ownfd_floor = OWNFD_FLOOR_MAX;

void ownfd_init(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < OWNFD_FLOOR_MAX)
		ownfd_floor = rl.rlim_cur / 2 > 3 ? (int)(rl.rlim_cur / 2) : 3;
}

int ownfd_take(struct lib_fd *f, int fd)
{
	int saved = errno, hi;
	struct stat st;

	f->fd = -1;
	if (fd < 0)
		return fd;
	hi = fd < ownfd_floor ? fcntl(fd, F_DUPFD_CLOEXEC, ownfd_floor) : -1;
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	/* no room up there (a low limit): keep the number we got */
	if (fstat(fd, &st) < 0) {
		close(fd);
		errno = saved;
		return -EBADF;
	}
	f->fd = fd;
	f->dev = (uint64_t)st.st_dev;
	f->ino = (uint64_t)st.st_ino;
	errno = saved;
	return fd;
}

int ownfd_ok(const struct lib_fd *f)
{
	int saved = errno, ok;
	struct stat st;

	if (f->fd < 0)
		return 0;
	ok = fstat(f->fd, &st) == 0 && (uint64_t)st.st_dev == f->dev &&
	     (uint64_t)st.st_ino == f->ino;
	errno = saved;
	return ok;
}

int ownfd_get(struct lib_fd *f)
{
	if (f->fd >= 0 && !ownfd_ok(f)) {
		lib_dbg("a descriptor of ours was closed by the program", f->fd);
		f->fd = -1;
	}
	return f->fd;
}

void ownfd_close(struct lib_fd *f)
{
	int saved = errno;

	if (ownfd_ok(f))
		close(f->fd);
	f->fd = -1;
	errno = saved;
}
