// SPDX-License-Identifier: MIT
/*
 * compress.h - packets of LZ4 channels, compressed (compress.c).
 */
#ifndef SHMTRACE_CONSUMERD_COMPRESS_H
#define SHMTRACE_CONSUMERD_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The packet of header @hdr (CTF_PACKET_HDR bytes) and @len bytes of
 * events @data as one LZ4 frame: its size, the frame in *@frame (the
 * calling thread's buffer, valid until its next call); -ENOMEM, -EIO.
 */
ssize_t compress_lz4(const uint8_t *hdr, const void *data, size_t len, const void **frame);
/* The calling thread's buffers, freed. */
void compress_thread_fini(void);

#endif
