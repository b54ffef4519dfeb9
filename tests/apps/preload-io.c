/* SPDX-License-Identifier: MIT */
/*
 * preload-io - makes every call the I/O preload helper wraps, with known
 * arguments and results, for its test. Not linked with libshmtrace.
 *
 * usage: preload-io DIR
 *
 * In DIR (which must exist and hold nothing named "data" or "missing"):
 *	open("DIR/data", O_CREAT|O_RDWR|O_TRUNC, 0640)   fd A
 *	write(A, 10000)  pwrite(A, 100 at 20000)  pwrite64(A, 50 at 30000)
 *	fsync(A)  fdatasync(A)
 *	pread(A, 50 at 9990)  pread64(A, 30 at 20050)
 *	read(A, 4096) from 0, then read(A, 100000): 30050 - 4096 = 25954
 *	writev(A, 10+20+30)  at the end: 60
 *	readv(A, 7+8) from 0: 15; readv(A, bad vector): EFAULT
 *	close(A)
 *	open("DIR/missing", O_RDONLY)                     ENOENT
 *	open64("DIR/data", O_RDONLY)                      fd B, close(B)
 *	openat(dirfd, "data", O_RDONLY)                   fd C, close(C)
 *	openat64(dirfd, "data", O_WRONLY|O_APPEND)        fd D, close(D)
 *	__open_2("DIR/data", O_RDONLY), __read_chk(E, 10, buflen 64), close(E)
 *	open("DIR", O_TMPFILE|O_RDWR, 0600)               any result
 *	open(bad pointer, O_RDONLY)                       EFAULT
 *	read(-1, 1)                                       EBADF
 *	close(999)                                        EBADF
 * and checks every result and errno: exit status 0 when all are as
 * expected, else 1 with a message on standard error. It prints nothing
 * else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* glibc's fortified entry points, called directly */
extern int __open_2(const char *path, int flags);
extern ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);

static int bad;
/* an address that cannot be read (hidden from the compiler's checks) */
static void *volatile bad_ptr = (void *)(uintptr_t)8;

static void expect(long got, long want, int err, const char *what)
{
	if (got != want || (want < 0 && errno != err)) {
		fprintf(stderr, "preload-io: %s: %ld (errno %d), expected %ld (errno %d)\n",
			what, got, errno, want, err);
		bad = 1;
	}
}

int main(int argc, char **argv)
{
	static char buf[100000];
	char path[4096], small[64];
	struct iovec iov[3];
	int a, fd, dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: preload-io DIR\n");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	a = open(path, O_CREAT | O_RDWR | O_TRUNC, 0640);
	expect(a >= 3, 1, 0, "open data");
	expect(write(a, buf, 10000), 10000, 0, "write");
	expect(pwrite(a, buf, 100, 20000), 100, 0, "pwrite");
	expect(pwrite64(a, buf, 50, 30000), 50, 0, "pwrite64");
	expect(fsync(a), 0, 0, "fsync");
	expect(fdatasync(a), 0, 0, "fdatasync");
	expect(pread(a, buf, 50, 9990), 50, 0, "pread");
	expect(pread64(a, buf, 30, 20050), 30, 0, "pread64");
	expect(lseek(a, 0, SEEK_SET), 0, 0, "lseek");
	expect(read(a, buf, 4096), 4096, 0, "read");
	expect(read(a, buf, sizeof(buf)), 30050 - 4096, 0, "read rest");
	iov[0] = (struct iovec){ buf, 10 };
	iov[1] = (struct iovec){ buf + 10, 20 };
	iov[2] = (struct iovec){ buf + 30, 30 };
	expect(writev(a, iov, 3), 60, 0, "writev");
	expect(lseek(a, 0, SEEK_SET), 0, 0, "lseek");
	iov[0].iov_len = 7;
	iov[1].iov_len = 8;
	expect(readv(a, iov, 2), 15, 0, "readv");
	expect(readv(a, bad_ptr, 2), -1, EFAULT, "readv(bad)");
	expect(close(a), 0, 0, "close");

	snprintf(path, sizeof(path), "%s/missing", argv[1]);
	expect(open(path, O_RDONLY), -1, ENOENT, "open missing");
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	fd = open64(path, O_RDONLY);
	expect(fd >= 0, 1, 0, "open64");
	close(fd);
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	expect(dirfd >= 0, 1, 0, "open dir");
	fd = openat(dirfd, "data", O_RDONLY);
	expect(fd >= 0, 1, 0, "openat");
	close(fd);
	fd = openat64(dirfd, "data", O_WRONLY | O_APPEND);
	expect(fd >= 0, 1, 0, "openat64");
	close(fd);
	close(dirfd);
	fd = __open_2(path, O_RDONLY);
	expect(fd >= 0, 1, 0, "__open_2");
	expect(__read_chk(fd, small, 10, sizeof(small)), 10, 0, "__read_chk");
	close(fd);
	fd = open(argv[1], O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0)
		close(fd);
	expect(open(bad_ptr, O_RDONLY), -1, EFAULT, "open(bad)");
	expect(read(-1, small, 1), -1, EBADF, "read(-1)");
	expect(close(999), -1, EBADF, "close(999)");
	return bad;
}
