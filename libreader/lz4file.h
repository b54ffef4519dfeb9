/* SPDX-License-Identifier: MIT */
/* lz4file.h - reading stream files compressed as LZ4 frames. */
#ifndef SHMTRACE_READER_LZ4FILE_H
#define SHMTRACE_READER_LZ4FILE_H

#include <stddef.h>
#include <stdint.h>

/* Does the file start with the LZ4 frame magic number? */
int lz4file_is_frame(int fd);

/*
 * Inflate the LZ4 frames of @fd into an unlinked temporary file (read-write,
 * read with pread). Returns:
 *  - 0 and *out: every frame inflated;
 *  - -EIO and *out: the file is damaged (a bad frame, one cut short, a read
 *    error) at byte *@bad of @fd, @err says "PATH: byte N: why"; *out holds
 *    the frames before the damaged one, whole;
 *  - another -errno and *out = -1: nothing to read (no temporary file, a
 *    failed write of the copy, no memory), @err says why.
 */
int lz4file_inflate(int fd, const char *path, int *out, uint64_t *bad, char *err,
		    size_t errlen);

#endif
