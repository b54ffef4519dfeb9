// SPDX-License-Identifier: MIT
/*
 * compress.c - packets of LZ4 channels, compressed.
 *
 * Each packet is one complete LZ4 frame, its content size in the frame
 * header, so that a stream file is readable (and `lz4 -d` works) at any
 * time, even after a crash of the consumer: a crash in the middle of an
 * append leaves at most one incomplete frame at the end of the file.
 *
 * Every thread that drains has its own input and output buffers
 * (thread-local, grown as packets need, freed by compress_thread_fini()
 * when the thread ends), so the workers compress at once without a lock.
 * Nothing here is shared with another thread or process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <lz4frame.h>
#include "compress.h"
#include "support/ctfmeta.h"

static __thread char *c_lz4_in, *c_lz4_out;
static __thread size_t c_lz4_in_size, c_lz4_out_size;

void compress_thread_fini(void)
{
	free(c_lz4_in);
	free(c_lz4_out);
	c_lz4_in = c_lz4_out = NULL;
	c_lz4_in_size = c_lz4_out_size = 0;
}

ssize_t compress_lz4(const uint8_t *hdr, const void *data, size_t len, const void **frame)
{
	LZ4F_preferences_t prefs;
	size_t in = CTF_PACKET_HDR + len, bound, n;

	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.contentSize = in;
	prefs.frameInfo.blockSizeID = LZ4F_max256KB;
	bound = LZ4F_compressFrameBound(in, &prefs);
	if (in > c_lz4_in_size) {
		char *p = realloc(c_lz4_in, in);

		if (!p)
			return -ENOMEM;
		c_lz4_in = p;
		c_lz4_in_size = in;
	}
	if (bound > c_lz4_out_size) {
		char *p = realloc(c_lz4_out, bound);

		if (!p)
			return -ENOMEM;
		c_lz4_out = p;
		c_lz4_out_size = bound;
	}
	memcpy(c_lz4_in, hdr, CTF_PACKET_HDR);
	if (len)
		memcpy(c_lz4_in + CTF_PACKET_HDR, data, len);
	n = LZ4F_compressFrame(c_lz4_out, bound, c_lz4_in, in, &prefs);
	*frame = c_lz4_out;
	return LZ4F_isError(n) ? -EIO : (ssize_t)n;
}
