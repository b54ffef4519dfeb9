/* SPDX-License-Identifier: MIT */
/* util.h - small helpers shared by every component. */
#ifndef SHMTRACE_COMMON_UTIL_H
#define SHMTRACE_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

/* mkdir -p; 0 or -errno. Async-signal-safe. */
int mkdir_p(const char *path, mode_t mode);
/*
 * mkdir -p that says what it made: *@made is the length of the prefix of
 * @path naming the first directory it created (0: it created none), also
 * on error, for rmdir_made() to undo.
 */
int mkdir_p_made(const char *path, mode_t mode, size_t *made);
/* Remove @path and its parents up to the one mkdir_p_made() reported in
 * @made, deepest first, each only when empty. */
void rmdir_made(const char *path, size_t made);
/*
 * Directory @rest (a relative path; "" is @base itself) under directory
 * descriptor @base, walked one component at a time without following a
 * link ("..", and a link where a directory should be, are refused), each
 * missing component made with @mode when @mode is not 0. Its descriptor
 * (O_RDONLY | O_DIRECTORY, close-on-exec, a new open file description
 * even for "": never @base's, whose offset others share), or -errno.
 * *@made, if given:
 * the length of the prefix of @rest naming the first directory it made,
 * 0 when none.
 */
int dir_walk(int base, const char *rest, mode_t mode, size_t *made);
/*
 * The deepest directory of @path that exists, opened (links followed, as
 * the path says now); *@len: its length in @path. A descriptor or -errno.
 */
int dir_base(const char *path, size_t *len);
/*
 * Make the array *@arr of *@n elements of @size bytes hold at least @want,
 * the new ones zeroed; 0, or -ENOMEM (the array unchanged).
 */
int array_grow(void *arr, uint32_t *n, uint32_t want, size_t size);
/* Nanoseconds of @clk. */
uint64_t now_ns(int clk);
/* Start time of a process in clock ticks since boot (/proc/PID/stat); 0 or -errno. */
int proc_starttime(pid_t pid, uint64_t *out);
/* Is @pid still the process that started at @start, and not a zombie? 1 or 0. */
int proc_live(pid_t pid, uint64_t start);
/* Does process @pid catch signal @signo (SigCgt in /proc/PID/status)? 1, 0 or -errno. */
int proc_catches(pid_t pid, int signo);
/*
 * May signal @signo be sent to process @pid so that one of its threads
 * runs its handler, with never more than one instance pending? From
 * /proc/PID/status and, when its leader blocks it, the status of at most
 * PROC_RING_MAX_TASKS other threads (a process with more threads, all of
 * those blocking it, counts as blocking it). One of PROC_RING_*, or -errno.
 */
#define PROC_RING_UNCAUGHT	0	/* no handler (SigCgt) */
#define PROC_RING_SEND		1	/* caught, not pending, a thread leaves it unblocked */
#define PROC_RING_PENDING	2	/* an instance is pending for the process (ShdPnd) */
#define PROC_RING_BLOCKED	3	/* every thread blocks it (SigBlk) */
#define PROC_RING_MAX_TASKS	256
int proc_ring_check(pid_t pid, int signo);
/* Check that a memfd is sealed against resizing and has @size bytes. */
int memfd_check(int fd, uint64_t size);
/* Does directory @path hold anything? 1, 0 (empty, or not there). */
int dir_used(const char *path);
/* Write everything, retrying on EINTR and short writes; 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
int writev_all(int fd, struct iovec *iov, int n);
/* pwrite() everything at @off, retrying on EINTR and short writes; 0 or -errno. */
int pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* Read a whole small file into @buf (NUL-terminated); bytes or -errno. */
long read_small(const char *path, char *buf, size_t cap);
/* Raise the soft limit of open descriptors to the hard limit (the daemons
 * hold some for every traced process); the new soft limit, or -errno. */
long nofile_raise(void);
/* Format a random version-4 UUID, 36 characters + NUL. */
void uuid_make(uint8_t raw[16], char out[37]);

/* A hash of an integer key (an id given by a counter, a descriptor, a pid,
 * an address), every bit mixed (murmur3's finaliser) so that a table's
 * buckets fill evenly. */
static inline uint64_t hash_id(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	id *= 0xc4ceb9fe1a85ec53ull;
	return id ^ (id >> 33);
}

/* A hash of @len bytes (FNV-1a). */
static inline uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	while (len--)
		h = (h ^ *b++) * 1099511628211ull;
	return h;
}

#endif
