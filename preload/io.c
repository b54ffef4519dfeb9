/* SPDX-License-Identifier: MIT */
/*
 * io.c - libshmtrace-io.so: LD_PRELOAD wrappers of the file descriptor
 * I/O calls, provider shmtrace_io.
 *
 *	open      { path, flags, mode, fd, err, dur_ns }
 *	openat    { dirfd, path, flags, mode, fd, err, dur_ns }
 *	close     { fd, result, err, dur_ns }
 *	read      { fd, count, result, err, dur_ns }
 *	write     { fd, count, result, err, dur_ns }
 *	pread     { fd, count, offset, result, err, dur_ns }
 *	pwrite    { fd, count, offset, result, err, dur_ns }
 *	readv     { fd, iovcnt, bytes, result, err, dur_ns }
 *	writev    { fd, iovcnt, bytes, result, err, dur_ns }
 *	fsync     { fd, result, err, dur_ns }
 *	fdatasync { fd, result, err, dur_ns }
 *
 * fd and result are what the call returned; err is the errno it left when
 * it failed, else 0; dur_ns its duration (CLOCK_MONOTONIC), read only
 * while the event is recorded. errno is what the real call left.
 *
 * The 64-bit aliases (open64, openat64, pread64, pwrite64) and the
 * entry points that _FORTIFY_SOURCE makes programs call (__open_2,
 * __open64_2, __openat_2, __openat64_2, __read_chk, __pread_chk,
 * __pread64_chk) record the same events: each of the latter checks its
 * arguments like glibc (on failure the real function reports it and
 * aborts the program, as without this library), then takes the plain
 * call's path.
 *
 * mode is read from the variadic argument only when the flags ask for one
 * (O_CREAT, O_TMPFILE), as open(2) does; it is 0 otherwise. The path is
 * recorded unless the call failed with EFAULT (it may be unreadable: the
 * event then says "(null)"). readv/writev's bytes is the total of the
 * vector's lengths, read after the call and only when the kernel accepted
 * the vector (0 when the call failed with EFAULT, EINVAL or EBADF).
 *
 * The tracer's own I/O (its wake socket, sockets, marker files) happens with
 * shmtrace__tls.nesting raised and is never recorded. Calls that glibc
 * makes internally (stdio, dlopen) do not go through these symbols and are
 * not recorded either.
 */
/* The plain names must declare the plain functions: no redirection to the
 * 64-bit or fortified variants, which are wrapped under their own names. */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/uio.h>
#include <unistd.h>
#include "helper.h"

SHMTRACE_EVENT(shmtrace_io, open, SHMTRACE_DEBUG,
	SHMTRACE_STRING(path),
	SHMTRACE_S32(flags),
	SHMTRACE_U32(mode),
	SHMTRACE_S32(fd),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, openat, SHMTRACE_DEBUG,
	SHMTRACE_S32(dirfd),
	SHMTRACE_STRING(path),
	SHMTRACE_S32(flags),
	SHMTRACE_U32(mode),
	SHMTRACE_S32(fd),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, close, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_S32(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, read, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_U64(count),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, write, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_U64(count),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, pread, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_U64(count),
	SHMTRACE_S64(offset),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, pwrite, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_U64(count),
	SHMTRACE_S64(offset),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, readv, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_S32(iovcnt),
	SHMTRACE_U64(bytes),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, writev, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_S32(iovcnt),
	SHMTRACE_U64(bytes),
	SHMTRACE_S64(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, fsync, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_S32(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))
SHMTRACE_EVENT(shmtrace_io, fdatasync, SHMTRACE_DEBUG,
	SHMTRACE_S32(fd),
	SHMTRACE_S32(result),
	SHMTRACE_S32(err),
	SHMTRACE_U64(dur_ns))

/* glibc's fortified entry points: declared only under _FORTIFY_SOURCE. */
HELPER_API int __open_2(const char *path, int flags);
HELPER_API int __open64_2(const char *path, int flags);
HELPER_API int __openat_2(int dirfd, const char *path, int flags);
HELPER_API int __openat64_2(int dirfd, const char *path, int flags);
HELPER_API ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen);
HELPER_API ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset, size_t buflen);
HELPER_API ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset,
				 size_t buflen);

HELPER_NEXT(open, NULL)
HELPER_NEXT(open64, NULL)
HELPER_NEXT(openat, NULL)
HELPER_NEXT(openat64, NULL)
HELPER_NEXT(__open_2, NULL)
HELPER_NEXT(__open64_2, NULL)
HELPER_NEXT(__openat_2, NULL)
HELPER_NEXT(__openat64_2, NULL)
HELPER_NEXT(close, NULL)
HELPER_NEXT(read, NULL)
HELPER_NEXT(__read_chk, NULL)
HELPER_NEXT(write, NULL)
HELPER_NEXT(pread, NULL)
HELPER_NEXT(pread64, NULL)
HELPER_NEXT(__pread_chk, NULL)
HELPER_NEXT(__pread64_chk, NULL)
HELPER_NEXT(pwrite, NULL)
HELPER_NEXT(pwrite64, NULL)
HELPER_NEXT(readv, NULL)
HELPER_NEXT(writev, NULL)
HELPER_NEXT(fsync, NULL)
HELPER_NEXT(fdatasync, NULL)

/* As open(2): the mode argument exists only with these flags. */
#define NEEDS_MODE(flags) (((flags) & O_CREAT) != 0 || ((flags) & O_TMPFILE) == O_TMPFILE)

/* The mode argument of a variadic open call whose last named one is @last. */
#define MODE_ARG(flags, last) __extension__ ({ \
	unsigned int io__mode = 0; \
	if (NEEDS_MODE(flags)) { \
		va_list io__ap; \
		va_start(io__ap, last); \
		io__mode = va_arg(io__ap, unsigned int); \
		va_end(io__ap); \
	} \
	io__mode; })

/* errno of a call that returned @ret, 0 when it succeeded. */
static inline int io_err(int64_t ret)
{
	return ret < 0 ? errno : 0;
}

/* The path as recorded: not when the kernel could not read it. */
static inline const char *io_path(const char *path, int err)
{
	return err == EFAULT ? NULL : path;
}

/* What a wrapper whose real function is missing returns (never, with glibc). */
static inline int io_nosys(void)
{
	errno = ENOSYS;
	return -1;
}

/* ---- open, openat and their aliases ------------------------------------- */

static inline int open_common(int (*next)(const char *, int, ...), const char *path,
			      int flags, unsigned int mode)
{
	uint64_t t0;
	int fd, err;

	if (__builtin_expect(!next, 0))
		return io_nosys();
	if (!helper_tracing(shmtrace_io, open))
		return next(path, flags, mode);
	t0 = helper_now_ns();
	fd = next(path, flags, mode);
	err = io_err(fd);
	helper_emit(shmtrace_io, open, io_path(path, err), flags, mode, fd, err,
		    helper_now_ns() - t0);
	return fd;
}

static inline int openat_common(int (*next)(int, const char *, int, ...), int dirfd,
				const char *path, int flags, unsigned int mode)
{
	uint64_t t0;
	int fd, err;

	if (__builtin_expect(!next, 0))
		return io_nosys();
	if (!helper_tracing(shmtrace_io, openat))
		return next(dirfd, path, flags, mode);
	t0 = helper_now_ns();
	fd = next(dirfd, path, flags, mode);
	err = io_err(fd);
	helper_emit(shmtrace_io, openat, dirfd, io_path(path, err), flags, mode, fd, err,
		    helper_now_ns() - t0);
	return fd;
}

HELPER_API int open(const char *path, int flags, ...)
{
	return open_common(helper_next_open(), path, flags, MODE_ARG(flags, flags));
}

HELPER_API int open64(const char *path, int flags, ...)
{
	return open_common(helper_next_open64(), path, flags, MODE_ARG(flags, flags));
}

HELPER_API int openat(int dirfd, const char *path, int flags, ...)
{
	return openat_common(helper_next_openat(), dirfd, path, flags, MODE_ARG(flags, flags));
}

HELPER_API int openat64(int dirfd, const char *path, int flags, ...)
{
	return openat_common(helper_next_openat64(), dirfd, path, flags,
			     MODE_ARG(flags, flags));
}

/* Fortified opens: a mode-less call with flags that need one aborts in glibc. */
HELPER_API int __open_2(const char *path, int flags)
{
	int (*next)(const char *, int) = helper_next___open_2();

	if (NEEDS_MODE(flags))
		return next ? next(path, flags) : io_nosys();
	return open_common(helper_next_open(), path, flags, 0);
}

HELPER_API int __open64_2(const char *path, int flags)
{
	int (*next)(const char *, int) = helper_next___open64_2();

	if (NEEDS_MODE(flags))
		return next ? next(path, flags) : io_nosys();
	return open_common(helper_next_open64(), path, flags, 0);
}

HELPER_API int __openat_2(int dirfd, const char *path, int flags)
{
	int (*next)(int, const char *, int) = helper_next___openat_2();

	if (NEEDS_MODE(flags))
		return next ? next(dirfd, path, flags) : io_nosys();
	return openat_common(helper_next_openat(), dirfd, path, flags, 0);
}

HELPER_API int __openat64_2(int dirfd, const char *path, int flags)
{
	int (*next)(int, const char *, int) = helper_next___openat64_2();

	if (NEEDS_MODE(flags))
		return next ? next(dirfd, path, flags) : io_nosys();
	return openat_common(helper_next_openat64(), dirfd, path, flags, 0);
}

/*
 * The wrappers below differ only in their arguments and event fields; each
 * macro defines do_NAME(), the traced call (also used by the fortified
 * entry points), and the exported NAME().
 */

/* close, fsync, fdatasync: { fd, result, err, dur_ns } */
#define FD_CALL(name) \
static inline int do_##name(int fd) \
{ \
	int (*next)(int) = helper_next_##name(); \
	uint64_t t0; \
	int ret; \
	\
	if (__builtin_expect(!next, 0)) \
		return io_nosys(); \
	if (!helper_tracing(shmtrace_io, name)) \
		return next(fd); \
	t0 = helper_now_ns(); \
	ret = next(fd); \
	helper_emit(shmtrace_io, name, fd, ret, io_err(ret), helper_now_ns() - t0); \
	return ret; \
} \
HELPER_API int name(int fd) \
{ \
	return do_##name(fd); \
}

FD_CALL(close)
FD_CALL(fsync)
FD_CALL(fdatasync)

/* read, write: { fd, count, result, err, dur_ns } */
#define RW_CALL(name, buf_t) \
static inline ssize_t do_##name(int fd, buf_t buf, size_t count) \
{ \
	ssize_t (*next)(int, buf_t, size_t) = helper_next_##name(); \
	uint64_t t0; \
	ssize_t ret; \
	\
	if (__builtin_expect(!next, 0)) \
		return io_nosys(); \
	if (!helper_tracing(shmtrace_io, name)) \
		return next(fd, buf, count); \
	t0 = helper_now_ns(); \
	ret = next(fd, buf, count); \
	helper_emit(shmtrace_io, name, fd, count, ret, io_err(ret), helper_now_ns() - t0); \
	return ret; \
} \
HELPER_API ssize_t name(int fd, buf_t buf, size_t count) \
{ \
	return do_##name(fd, buf, count); \
}

RW_CALL(read, void *)
RW_CALL(write, const void *)

HELPER_API ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	ssize_t (*next)(int, void *, size_t, size_t) = helper_next___read_chk();

	if (count > buflen)	/* glibc reports the overflow */
		return next ? next(fd, buf, count, buflen) : io_nosys();
	return do_read(fd, buf, count);
}

/*
 * pread, pwrite (off_t offset) and pread64, pwrite64 (off64_t), recorded
 * as event @ev: { fd, count, offset, result, err, dur_ns }
 */
#define PRW_CALL(ev, name, buf_t, off) \
static inline ssize_t do_##name(int fd, buf_t buf, size_t count, off offset) \
{ \
	ssize_t (*next)(int, buf_t, size_t, off) = helper_next_##name(); \
	uint64_t t0; \
	ssize_t ret; \
	\
	if (__builtin_expect(!next, 0)) \
		return io_nosys(); \
	if (!helper_tracing(shmtrace_io, ev)) \
		return next(fd, buf, count, offset); \
	t0 = helper_now_ns(); \
	ret = next(fd, buf, count, offset); \
	helper_emit(shmtrace_io, ev, fd, count, offset, ret, io_err(ret), \
		    helper_now_ns() - t0); \
	return ret; \
} \
HELPER_API ssize_t name(int fd, buf_t buf, size_t count, off offset) \
{ \
	return do_##name(fd, buf, count, offset); \
}

PRW_CALL(pread, pread, void *, off_t)
PRW_CALL(pread, pread64, void *, off64_t)
PRW_CALL(pwrite, pwrite, const void *, off_t)
PRW_CALL(pwrite, pwrite64, const void *, off64_t)

HELPER_API ssize_t __pread_chk(int fd, void *buf, size_t count, off_t offset, size_t buflen)
{
	ssize_t (*next)(int, void *, size_t, off_t, size_t) = helper_next___pread_chk();

	if (count > buflen)	/* glibc reports the overflow */
		return next ? next(fd, buf, count, offset, buflen) : io_nosys();
	return do_pread(fd, buf, count, offset);
}

HELPER_API ssize_t __pread64_chk(int fd, void *buf, size_t count, off64_t offset,
				 size_t buflen)
{
	ssize_t (*next)(int, void *, size_t, off64_t, size_t) = helper_next___pread64_chk();

	if (count > buflen)	/* glibc reports the overflow */
		return next ? next(fd, buf, count, offset, buflen) : io_nosys();
	return do_pread64(fd, buf, count, offset);
}

/* Bytes the vector asked for, when the kernel accepted it (see the top). */
static uint64_t iov_bytes(const struct iovec *iov, int iovcnt, int err)
{
	uint64_t n = 0;

	if (err == EFAULT || err == EINVAL || err == EBADF || !iov || iovcnt <= 0 ||
	    iovcnt > IOV_MAX)
		return 0;
	for (int i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	return n;
}

/* readv, writev: { fd, iovcnt, bytes, result, err, dur_ns } */
#define IOV_CALL(name) \
HELPER_API ssize_t name(int fd, const struct iovec *iov, int iovcnt) \
{ \
	ssize_t (*next)(int, const struct iovec *, int) = helper_next_##name(); \
	uint64_t t0; \
	ssize_t ret; \
	int err; \
	\
	if (__builtin_expect(!next, 0)) \
		return io_nosys(); \
	if (!helper_tracing(shmtrace_io, name)) \
		return next(fd, iov, iovcnt); \
	t0 = helper_now_ns(); \
	ret = next(fd, iov, iovcnt); \
	err = io_err(ret); \
	helper_emit(shmtrace_io, name, fd, iovcnt, iov_bytes(iov, iovcnt, err), ret, err, \
		    helper_now_ns() - t0); \
	return ret; \
}

IOV_CALL(readv)
IOV_CALL(writev)

/* Look everything up now, before any signal handler may need it. */
static void __attribute__((constructor)) io_helper_init(void)
{
	helper_next_open();
	helper_next_open64();
	helper_next_openat();
	helper_next_openat64();
	helper_next___open_2();
	helper_next___open64_2();
	helper_next___openat_2();
	helper_next___openat64_2();
	helper_next_close();
	helper_next_read();
	helper_next___read_chk();
	helper_next_write();
	helper_next_pread();
	helper_next_pread64();
	helper_next___pread_chk();
	helper_next___pread64_chk();
	helper_next_pwrite();
	helper_next_pwrite64();
	helper_next_readv();
	helper_next_writev();
	helper_next_fsync();
	helper_next_fdatasync();
}
