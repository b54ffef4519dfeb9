/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - tracectl snapshot: what a channel's buffers hold now, as
 * readable traces in another directory, while tracing goes on.
 *
 * A ring keeps its last num_subbuf - 1 complete packets and the open one,
 * whether the consumer wrote them out already or not (a sub-buffer is
 * reused only when the writer needs it). For each stream, the packets from
 * the oldest still in the ring to the open one are copied one at a time
 * into a scratch buffer of one sub-buffer, checked still to be the same
 * packet afterwards (its pseq, as the overwrite-mode drain does), and
 * appended with a packet header to the snapshot's stream file. A packet
 * that the writer reused meanwhile breaks the sequence: what was copied
 * before it is thrown away (the file is truncated) and the copy starts
 * again from the oldest packet the ring then holds (a bounded number of
 * times), so each stream of a snapshot is contiguous up to its newest
 * event. Extra memory: one
 * sub-buffer. The consumer's own reading position is not touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stream.h"
#include "log.h"
#include "util.h"

static int snap_copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, ret = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, (size_t)n) < 0) {
			ret = -EIO;
			break;
		}
	if (n < 0)
		ret = -errno;
	close(in);
	close(out);
	return ret;
}

/* Copy packet @seq of @st if the ring still holds it: its length, or < 0. */
static long snap_packet(const struct c_stream *st, uint64_t seq, int open_packet, char *scratch,
			struct ctf_packet *p)
{
	const struct shm_slot *h = st->rb.hdr;
	const struct shm_sbmeta *m = &h->sb[seq % st->rb.num_subbuf];
	uint64_t w1, w2, last;
	uint32_t bytes;

	if (__atomic_load_n(&m->pseq, __ATOMIC_ACQUIRE) != seq)
		return -ESTALE;
	w1 = __atomic_load_n(&m->commit.word, __ATOMIC_ACQUIRE);
	last = __atomic_load_n(&m->commit.last_ts, __ATOMIC_ACQUIRE);
	w2 = __atomic_load_n(&m->commit.word, __ATOMIC_ACQUIRE);
	if (open_packet && w1 != w2)
		return -EAGAIN;
	bytes = (uint32_t)w1;
	if (bytes > st->rb.subbuf_size)
		return -EIO;
	memcpy(scratch, st->rb.data + (size_t)(seq % st->rb.num_subbuf) * st->rb.subbuf_size,
	       bytes);
	p->ts_begin = m->begin_ts;
	p->ts_end = last > p->ts_begin ? last : p->ts_begin;
	p->discarded = m->disc_open;
	p->tid = (uint32_t)m->tid;
	p->seq = seq;
	p->content_bytes = CTF_PACKET_HDR + bytes;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&m->pseq, __ATOMIC_RELAXED) != seq)
		return -ESTALE;		/* reused while we copied */
	return bytes;
}

static int snap_stream(const struct c_seg *s, const struct c_stream *st, const char *dir,
		       char *scratch)
{
	const uint32_t num = st->rb.num_subbuf;
	uint64_t closed = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
	uint64_t seq = closed >= num - 1 ? closed - (num - 1) : 0;
	uint8_t hdr[CTF_PACKET_HDR];
	char path[PROTO_PATH_MAX + 256];
	int fd = -1, written = 0, restarts = 0, tries = 0;

	if (st->broken)
		return 0;
	while (seq <= closed) {
		struct ctf_packet p;
		long n = snap_packet(st, seq, seq == closed, scratch, &p);

		if (n == -EAGAIN && ++tries < 64)
			continue;	/* the open packet is being written: look again */
		tries = 0;
		if (n == -ESTALE && seq < closed && restarts++ < 16) {
			/* overwritten before we got there: start again from the
			 * oldest packet the ring holds now, so the copy stays contiguous */
			if (fd >= 0 && (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0))
				goto fail;
			written = 0;
			closed = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
			seq = closed >= num - 1 ? closed - (num - 1) : 0;
			continue;
		}
		if (n <= 0) {
			seq++;
			continue;
		}
		if (fd < 0) {
			snprintf(path, sizeof(path), "%s/%s_%u", dir, s->chan->name, st->number);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
			if (fd < 0)
				return -errno;
		}
		p.stream_id = s->context;
		p.stream_instance_id = stream_instance_id(s, st);
		ctf_packet_header(hdr, &s->trace->info, &p);
		if (write_all(fd, hdr, sizeof(hdr)) < 0 || write_all(fd, scratch, (size_t)n) < 0)
			goto fail;
		written++;
		seq++;
	}
	if (fd >= 0)
		close(fd);
	return written;
fail:
	close(fd);
	return -EIO;
}

int snapshot_chan(uint64_t chan_id, const char *output)
{
	struct c_chan *ch = chan_find(chan_id);
	char dir[PROTO_PATH_MAX + 128], meta[PROTO_PATH_MAX + 128];
	char *scratch = NULL;
	size_t cap = 0;
	int ret = 0, packets = 0;

	if (!ch || output[0] != '/')
		return -EINVAL;
	ret = mkdir_p(output, 0750);
	if (ret < 0)
		return ret;
	for (struct c_app *a = c_apps; a; a = a->next) {
		for (struct c_seg *s = a->segs; s; s = s->next) {
			const char *base;

			if (s->chan != ch || !s->trace)
				continue;
			base = strrchr(s->trace->dir, '/');
			snprintf(dir, sizeof(dir), "%s/%s", output, base ? base + 1 : s->trace->dir);
			snprintf(meta, sizeof(meta), "%s/metadata", s->trace->dir);
			if (mkdir_p(dir, 0750) < 0)
				continue;
			/* the metadata already describes every event the buffers can hold */
			snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/metadata");
			if (access(dir, F_OK) < 0 && snap_copy_file(meta, dir) < 0) {
				log_err("snapshot: cannot copy %s", meta);
				continue;
			}
			*strrchr(dir, '/') = 0;
			if (s->streams && s->streams[0].rb.subbuf_size > cap) {
				free(scratch);
				cap = s->streams[0].rb.subbuf_size;
				scratch = malloc(cap);
				if (!scratch)
					return -ENOMEM;
			}
			for (uint32_t i = 0; i < s->nslots; i++) {
				int n = snap_stream(s, &s->streams[i], dir, scratch);

				if (n < 0)
					ret = n;
				else
					packets += n;
			}
		}
	}
	free(scratch);
	log_info("snapshot of channel %s: %d packets in %s", ch->name, packets, output);
	return ret;
}
