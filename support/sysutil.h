/* SPDX-License-Identifier: MIT */
/*
 * sysutil.h - helpers of the daemons and the tools (sysutil.c): files and
 * directories made and undone, descriptors written in full, other
 * processes looked at through /proc, the descriptor limit, UUIDs. Never
 * linked into a traced process.
 */
#ifndef SHMTRACE_SUPPORT_SYSUTIL_H
#define SHMTRACE_SUPPORT_SYSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "common/util.h"

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
/* Raise the soft limit of open descriptors to the hard limit (the daemons
 * hold some for every traced process); the new soft limit, or -errno. */
long nofile_raise(void);
/* Format a random version-4 UUID, 36 characters + NUL. */
void uuid_make(uint8_t raw[16], char out[37]);

#endif
