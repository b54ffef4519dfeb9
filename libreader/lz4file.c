/* SPDX-License-Identifier: MIT */
/*
 * lz4file.c - stream files written as LZ4 frames (tracectl enable-channel
 * --compress lz4) are inflated, once, into an unlinked temporary file
 * that the reader then reads like any plain stream: the reader's memory
 * stays bounded (64 KiB buffers here), the disk holds the plain copy while
 * the trace is open.
 *
 * The consumer writes one packet per frame, so the copy is cut back to the
 * end of the last whole frame when a later one is damaged (or cut short,
 * as a file being written is): the packets before the damage stay
 * readable, and the damage is said once they are read (reader-decode.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4frame.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lz4file.h"

#define LZ4FILE_CHUNK (64 * 1024)

int lz4file_is_frame(int fd)
{
	uint8_t m[4];

	return pread(fd, m, 4, 0) == 4 && m[0] == 0x04 && m[1] == 0x22 && m[2] == 0x4d &&
	       m[3] == 0x18;
}

static int lz4file_tmp(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/shmtrace-lz4.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int lz4file_write(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int lz4file_inflate(int fd, const char *path, int *out, uint64_t *bad, char *err,
		    size_t errlen)
{
	LZ4F_dctx *dctx = NULL;
	char *in = malloc(LZ4FILE_CHUNK), *dst = malloc(LZ4FILE_CHUNK);
	uint64_t off = 0, written = 0, whole = 0;	/* inflated; up to the last frame end */
	size_t hint = 1;
	int tmp = -1, rc = -ENOMEM;

	*out = -1;
	if (!in || !dst || LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		goto fail_msg;
	tmp = lz4file_tmp();
	if (tmp < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: no temporary file to inflate it: %s", path, strerror(-rc));
		goto out;
	}
	for (;;) {
		ssize_t n = pread(fd, in, LZ4FILE_CHUNK, (off_t)off);
		size_t pos = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*bad = off;
			snprintf(err, errlen, "%s: byte %llu: read error: %s", path,
				 (unsigned long long)off, strerror(errno));
			goto damaged;
		}
		if (n == 0)
			break;
		while (pos < (size_t)n) {
			size_t src = (size_t)n - pos, dlen = LZ4FILE_CHUNK;

			hint = LZ4F_decompress(dctx, dst, &dlen, in + pos, &src, NULL);
			if (LZ4F_isError(hint)) {
				*bad = off + pos;
				snprintf(err, errlen, "%s: byte %llu: bad LZ4 frame: %s", path,
					 (unsigned long long)(off + pos), LZ4F_getErrorName(hint));
				goto damaged;
			}
			if (dlen) {
				rc = lz4file_write(tmp, dst, dlen);
				if (rc < 0) {
					snprintf(err, errlen, "%s: cannot write the inflated copy: %s",
						 path, strerror(-rc));
					goto out;
				}
				written += dlen;
			}
			if (hint == 0)
				whole = written;	/* a frame ended */
			pos += src;
		}
		off += (uint64_t)n;
	}
	/* output the context still holds once every byte is taken */
	while (hint != 0) {
		size_t src = 0, dlen = LZ4FILE_CHUNK;

		hint = LZ4F_decompress(dctx, dst, &dlen, NULL, &src, NULL);
		if (LZ4F_isError(hint) || !dlen)
			break;
		rc = lz4file_write(tmp, dst, dlen);
		if (rc < 0) {
			snprintf(err, errlen, "%s: cannot write the inflated copy: %s", path,
				 strerror(-rc));
			goto out;
		}
		written += dlen;
		if (hint == 0)
			whole = written;
	}
	if (hint != 0) {
		*bad = off;
		snprintf(err, errlen, "%s: byte %llu: LZ4 frame cut short", path,
			 (unsigned long long)off);
		goto damaged;
	}
	*out = tmp;
	tmp = -1;
	rc = 0;
	goto out;
damaged:
	/* keep the frames before the damage, whole */
	if (ftruncate(tmp, (off_t)whole) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot cut the inflated copy: %s", path, strerror(-rc));
		goto out;
	}
	*out = tmp;
	tmp = -1;
	rc = -EIO;
	goto out;
fail_msg:
	snprintf(err, errlen, "out of memory");
out:
	if (tmp >= 0)
		close(tmp);
	LZ4F_freeDecompressionContext(dctx);
	free(in);
	free(dst);
	return rc;
}
