/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers of every component, the traced process included
 * (util.c): directories made, the clock, a process's start time, hashes.
 * The daemons' and the tools' own are in support/sysutil.h.
 */
#ifndef SHMTRACE_COMMON_UTIL_H
#define SHMTRACE_COMMON_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

/* Linux 5.14: a buffer's pages made before they are written (libtrace/pool.c,
 * consumerd/drain.c); an older kernel answers EINVAL */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

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
/* Nanoseconds of @clk. */
uint64_t now_ns(int clk);
/* Start time of a process in clock ticks since boot (/proc/PID/stat); 0 or -errno. */
int proc_starttime(pid_t pid, uint64_t *out);
/* Read a whole small file into @buf (NUL-terminated); bytes or -errno. */
long read_small(const char *path, char *buf, size_t cap);
/* "@pre" PID "@post" into @out (room for both and 10 digits). */
void proc_path(char *out, const char *pre, pid_t pid, const char *post);

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
