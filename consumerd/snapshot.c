/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - tracectl snapshot: what a session's buffers hold now, as
 * readable traces in another directory, while tracing goes on.
 *
 * Each process's snapshot is a trace of its own: a new uuid, and metadata
 * made afresh from the events known (the same descriptions as the main
 * trace's), so that readers never take it for the main trace or for
 * another snapshot and read each of its events once. Nothing is made when
 * no process has buffers in the session (-ENOENT).
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
#include "app.h"
#include "chan.h"
#include "support/log.h"
#include "meta.h"
#include "seg.h"
#include "snapshot.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"

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
		       const struct ctf_trace_info *info, char *scratch)
{
	const uint32_t num = st->rb.num_subbuf;
	uint64_t closed = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
	uint64_t seq = closed >= num - 1 ? closed - (num - 1) : 0;
	uint8_t hdr[CTF_PACKET_HDR];
	char path[PROTO_PATH_MAX + 256];
	int fd = -1, written = 0, restarts = 0, tries = 0, ret;

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
			if (fd >= 0 && (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
				ret = -errno;
				goto fail;
			}
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
		p.stream_instance_id = seg_instance_id(s, st);
		ctf_packet_header(hdr, info, &p);
		ret = write_all(fd, hdr, sizeof(hdr));
		if (ret == 0)
			ret = write_all(fd, scratch, (size_t)n);
		if (ret < 0)
			goto fail;
		written++;
		seq++;
	}
	if (fd >= 0 && close(fd) < 0)
		return -errno;
	return written;
fail:
	log_err("snapshot: cannot write %s: %s", path, strerror(-ret));
	close(fd);
	return ret;
}

/* Does @s write into the traces of @output? */
static int snap_seg_in(const struct c_seg *s, const char *output)
{
	return s->trace && s->nslots && !strcmp(s->chan->output, output);
}

/*
 * Snapshot of trace @t of @a: a directory named after the process under
 * @output, its metadata with a new uuid, then every stream of the
 * segments writing into @t. Returns the packets copied, or -errno.
 */
static int snap_trace(struct c_app *a, struct c_trace *t, const char *output, char **scratch,
		      size_t *cap)
{
	struct ctf_trace_info info = t->info;
	char dir[PROTO_PATH_MAX + 128], path[PROTO_PATH_MAX + 160];
	uint32_t classes = 1;
	int fd, ret = 0, packets = 0;

	for (int i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(dir, sizeof(dir), "%s/%s-%u", output, a->procname, a->pid);
		else
			snprintf(dir, sizeof(dir), "%s/%s-%u-%d", output, a->procname, a->pid, i);
		ret = mkdir(dir, 0750) == 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
	}
	if (ret < 0) {
		log_err("snapshot: cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	uuid_make(info.uuid, info.uuid_str);	/* a trace of its own */
	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (s->trace == t)
			classes |= 1u << s->context;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0)
		ret = -errno;
	else if ((ret = meta_write(fd, a, &info, classes)) == 0 && close(fd) < 0)
		ret = -errno;
	else if (ret < 0)
		close(fd);
	if (ret < 0) {
		log_err("snapshot: cannot write %s: %s", path, strerror(-ret));
		return ret;
	}
	for (struct c_seg *s = a->segs; s; s = s->next) {
		if (s->trace != t || !s->nslots)
			continue;
		if (s->streams[0].rb.subbuf_size > *cap) {
			char *nb = realloc(*scratch, s->streams[0].rb.subbuf_size);

			if (!nb)
				return -ENOMEM;
			*scratch = nb;
			*cap = s->streams[0].rb.subbuf_size;
		}
		for (uint32_t i = 0; i < s->nslots; i++) {
			int n = snap_stream(s, &s->streams[i], dir, &info, *scratch);

			if (n < 0)
				return n;
			packets += n;
		}
	}
	return packets;
}

int snapshot_chan(uint64_t chan_id, const char *output)
{
	struct c_chan *ch = chan_find(chan_id);
	struct cds_lfht_iter it;
	struct c_app *a;
	char *scratch = NULL;
	size_t cap = 0;
	int ret = 0, packets = 0, any = 0;

	if (!ch || output[0] != '/')
		return -EINVAL;
	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s && !any; s = s->next)
			any = snap_seg_in(s, ch->output);
	if (!any)
		return -ENOENT;		/* nothing to copy: nothing made */
	ret = mkdir_p(output, 0750);
	if (ret < 0) {
		log_err("snapshot: cannot create %s: %s", output, strerror(-ret));
		return ret;
	}
	capp_for_each(&it, a) {
		if (ret < 0)
			break;
		for (struct c_trace *t = a->traces; t && ret == 0; t = t->next) {
			int n;

			any = 0;
			for (const struct c_seg *s = a->segs; s && !any; s = s->next)
				any = s->trace == t && snap_seg_in(s, ch->output);
			if (!any)
				continue;
			n = snap_trace(a, t, output, &scratch, &cap);
			if (n < 0)
				ret = n;
			else
				packets += n;
		}
	}
	free(scratch);
	if (ret == 0)
		log_info("snapshot of %s: %d packets in %s", ch->output, packets, output);
	return ret;
}
