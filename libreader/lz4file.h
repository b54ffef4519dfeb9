/* SPDX-License-Identifier: MIT */
/* lz4file.h - reading stream files compressed as LZ4 frames. */
#ifndef SHMTRACE_READER_LZ4FILE_H
#define SHMTRACE_READER_LZ4FILE_H

#include <stddef.h>

/* Does the file start with the LZ4 frame magic number? */
int lz4file_is_frame(int fd);

/*
 * Inflate the LZ4 frames of @fd into an unlinked temporary file: 0 and
 * *out (read-write, at offset 0 for pread), or -errno with @err naming
 * @path and the byte offset of a corrupt frame.
 */
int lz4file_inflate(int fd, const char *path, int *out, char *err, size_t errlen);

#endif
