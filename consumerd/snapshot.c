/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - tracectl snapshot: what a session's buffers hold now, as
 * readable traces in another directory, while tracing goes on.
 *
 * Each process's snapshot is a trace of its own: a new uuid, and metadata
 * made afresh from the events known (the same descriptions as the main
 * trace's), so that readers never take it for the main trace or for
 * another snapshot and read each of its events once. A process whose
 * buffers hold no event (after a clear) has no trace in it. Nothing is
 * made when no process has an event in its buffers (-ENOENT), nor when a
 * bound (--max-size) holds not even one packet (-ENOSPC). The processes
 * are those alive and, for a memory-only session, those gone whose
 * buffers are still kept (app.c).
 *
 * A ring keeps its last num_subbuf - 1 complete packets and the open one,
 * whether the consumer wrote them out already or not (a sub-buffer is
 * reused only when the writer needs it); a memory-only ring, only those
 * past its last clear (hold.c). For each stream, its packets are read
 * from their descriptors once (hold_packets(): what it holds when the
 * snapshot comes to it, the open packet as far as it was committed then),
 * then copied one at a time into a scratch buffer of one sub-buffer,
 * checked still to be the same packet afterwards (its pseq, as the
 * overwrite-mode drain does), and appended with a packet header to the
 * snapshot's stream file. A packet that the writer reused meanwhile
 * breaks the sequence: what was copied before it is thrown away (the file
 * is truncated) and the copy starts again from what the ring then holds
 * (a bounded number of times), so each stream of a snapshot is contiguous
 * up to its newest event. Extra memory: one sub-buffer. The consumer's
 * own reading position is not touched.
 *
 * A bound on the size (--max-size) keeps the newest packets across every
 * stream of the session, in the order of their newest event, as long as
 * they and the metadata of their traces fit (snap_plan()): the snapshot
 * holds every event of every stream after some time, and nothing before
 * it, rather than a share of each stream, so a busy thread's last
 * milliseconds are not given up for an idle one's last minutes. Each
 * stream then has a budget of bytes that its copy never exceeds, a copy
 * started again included: the files of the snapshot hold at most the
 * bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "hold.h"
#include "support/log.h"
#include "meta.h"
#include "seg.h"
#include "snapshot.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"

#define SNAP_POOL_MAX	64

/* Unnamed files made ahead for the next snapshot, and the helper that makes them. */
static struct {
	int fd[SNAP_POOL_MAX];
	int n;
	dev_t dev;			/* their file system */
	int want;			/* how many the helper makes */
	int running;			/* the helper runs: nothing here is ours */
	pthread_t th;
	char dir[PROTO_PATH_MAX + 128];	/* where the snapshots go: synced, and where */
} snap_pool;

static int snap_files;			/* files of the snapshot being made */

static int snap_pool_busy(void)
{
	if (snap_pool.running && pthread_tryjoin_np(snap_pool.th, NULL) == 0)
		snap_pool.running = 0;
	return snap_pool.running;
}

/* The helper: the snapshot just made durable, then the pool filled again. */
static void *snap_pool_fill(void *arg)
{
	int dfd = open(snap_pool.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat sb;

	(void)arg;
	if (dfd < 0)
		return NULL;
	if (syncfs(dfd) < 0)
		log_warn("snapshot: cannot sync %s: %s", snap_pool.dir, strerror(errno));
	if (fstat(dfd, &sb) == 0) {
		if (sb.st_dev != snap_pool.dev)	/* snapshots go elsewhere now */
			while (snap_pool.n)
				close(snap_pool.fd[--snap_pool.n]);
		snap_pool.dev = sb.st_dev;
		while (snap_pool.n < snap_pool.want) {
			int fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0640);

			if (fd < 0)
				break;	/* (no O_TMPFILE here: files made as they come) */
			snap_pool.fd[snap_pool.n++] = fd;
		}
	}
	close(dfd);
	return NULL;
}

/*
 * After a snapshot into @dir that took @used files: its file system
 * synced and the pool refilled, in the background.
 */
static void snap_pool_after(const char *dir, int used)
{
	char *slash;

	if (snap_pool_busy())
		return;
	/* made in the directory of the snapshots, not in one of them */
	snprintf(snap_pool.dir, sizeof(snap_pool.dir), "%s", dir);
	slash = strrchr(snap_pool.dir, '/');
	if (slash && slash != snap_pool.dir)
		*slash = 0;
	snap_pool.want = used + 2 < SNAP_POOL_MAX ? used + 2 : SNAP_POOL_MAX;
	if (pthread_create(&snap_pool.th, NULL, snap_pool_fill, NULL) == 0)
		snap_pool.running = 1;
}

/* A new file to be named @path once written: from the pool, or -1 (make it then). */
static int snap_take(const char *path)
{
	char dir[PROTO_PATH_MAX + 160];
	struct stat sb;
	char *slash;

	if (snap_pool_busy() || !snap_pool.n)
		return -1;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (stat(dir, &sb) < 0 || sb.st_dev != snap_pool.dev)
		return -1;
	return snap_pool.fd[--snap_pool.n];
}

/*
 * Name unnamed file @fd, written, @path; closed either way. If it cannot
 * be linked there (another mount), its bytes are copied into @path made
 * now. 0 or -errno.
 */
static int snap_name(int fd, const char *path)
{
	char proc[64], buf[65536];
	int out, ret = 0;
	off_t off = 0;
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) {
		close(fd);
		return 0;
	}
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (out < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (ret == 0 && (n = pread(fd, buf, sizeof(buf), off)) > 0) {
		ret = write_all(out, buf, (size_t)n);
		off += n;
	}
	if (ret == 0 && n < 0)
		ret = -errno;
	if (close(out) < 0 && !ret)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Packet @p of @st (as hold_packets() read its descriptor), its bytes past
 * a clear's mark copied into @scratch, if the ring still holds it then:
 * 0, or -ESTALE when the writer reused it before or while we copied.
 */
static int snap_copy(const struct c_stream *st, const struct hold_pkt *p, char *scratch)
{
	uint32_t idx = (uint32_t)(p->seq % st->rb.num_subbuf);
	const struct shm_sbmeta *m = &st->rb.hdr->sb[idx];

	if (__atomic_load_n(&m->pseq, __ATOMIC_ACQUIRE) != p->seq)
		return -ESTALE;
	memcpy(scratch, st->rb.data + (size_t)idx * st->rb.subbuf_size + p->skip,
	       p->bytes - p->skip);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&m->pseq, __ATOMIC_RELAXED) != p->seq)
		return -ESTALE;		/* reused while we copied */
	return 0;
}

/*
 * Stream @st of @s into @dir: the newest packets its ring holds whose
 * packets on disk (header and events) fit in its budget (snap_budget),
 * oldest first. Returns the packets written, or -errno.
 */
static int snap_stream(const struct c_seg *s, struct c_stream *st, const char *dir,
		       const struct ctf_trace_info *info, char *scratch)
{
	struct hold_pkt pk[SHM_MAX_NUM_SUBBUF];
	uint8_t hdr[CTF_PACKET_HDR];
	char path[PROTO_PATH_MAX + 256];
	int fd = -1, written = 0, restarts = 0, ret, n, k, pooled = 0;
	uint64_t used;

again:
	n = hold_packets(st, s->chan->memory, pk, SHM_MAX_NUM_SUBBUF);
	/* the newest that fit */
	for (k = n, used = 0; k > 0; k--) {
		uint64_t len = pk[k - 1].bytes - pk[k - 1].skip;

		if (len && used + CTF_PACKET_HDR + len > st->snap_budget)
			break;
		used += len ? CTF_PACKET_HDR + len : 0;
	}
	for (int i = k; i < n; i++) {
		const struct hold_pkt *p = &pk[i];
		uint32_t len = p->bytes - p->skip;
		struct ctf_packet cp;

		if (!len)
			continue;
		if (snap_copy(st, p, scratch) < 0) {
			if (restarts++ < 16) {
				/* overwritten before we got there: start again from what
				 * the ring holds now, so the copy stays contiguous */
				if (fd >= 0 && (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
					ret = -errno;
					goto fail;
				}
				written = 0;
				goto again;
			}
			continue;
		}
		if (fd < 0) {
			snprintf(path, sizeof(path), "%s/%s_%u", dir, s->chan->name, st->number);
			fd = snap_take(path);
			pooled = fd >= 0;
			snap_files++;
			if (fd < 0)
				fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
			if (fd < 0)
				return -errno;
		}
		memset(&cp, 0, sizeof(cp));
		cp.stream_id = s->context;
		cp.stream_instance_id = seg_instance_id(s, st);
		cp.ts_begin = p->begin_ts;
		cp.ts_end = p->end_ts;
		cp.discarded = p->disc;
		cp.tid = (uint32_t)p->tid;
		cp.seq = p->seq;
		cp.content_bytes = CTF_PACKET_HDR + len;
		ctf_packet_header(hdr, info, &cp);
		ret = write_all(fd, hdr, sizeof(hdr));
		if (ret == 0)
			ret = write_all(fd, scratch, len);
		if (ret < 0)
			goto fail;
		written++;
	}
	if (pooled) {
		ret = snap_name(fd, path);	/* named once whole */
		if (ret < 0) {
			log_err("snapshot: cannot write %s: %s", path, strerror(-ret));
			return ret;
		}
		return written;
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

/* The stream classes of trace @t of @a: bit 1 << context of each segment in it. */
static uint32_t snap_classes(const struct c_app *a, const struct c_trace *t)
{
	uint32_t classes = 1;

	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (s->trace == t)
			classes |= 1u << s->context;
	return classes;
}

/*
 * Snapshot of trace @t of @a: a directory named after the process under
 * @output, its metadata with a new uuid, then every stream of the
 * segments writing into @t, within its budget. Returns the packets
 * copied, or -errno.
 */
static int snap_trace(struct c_app *a, struct c_trace *t, const char *output, char **scratch,
		      size_t *cap)
{
	struct ctf_trace_info info = t->info;
	char dir[PROTO_PATH_MAX + 128], path[PROTO_PATH_MAX + 160];
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
	snprintf(path, sizeof(path), "%s/metadata", dir);
	fd = snap_take(path);
	snap_files++;
	if (fd >= 0) {
		/* written whole, then named: never seen cut */
		ret = meta_write(fd, a, &info, snap_classes(a, t));
		if (ret == 0)
			ret = snap_name(fd, path);
		else
			close(fd);
	} else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) < 0) {
		ret = -errno;
	} else if ((ret = meta_write(fd, a, &info, snap_classes(a, t))) == 0 && close(fd) < 0) {
		ret = -errno;
	} else if (ret < 0) {
		close(fd);
	}
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
			int n = s->streams[i].snap_budget ?
				snap_stream(s, &s->streams[i], dir, &info, *scratch) : 0;

			if (n < 0)
				return n;
			packets += n;
		}
	}
	return packets;
}

/* Does a stream of trace @t of @a in @output hold an event? */
static int snap_has_events(const struct c_app *a, const struct c_trace *t, const char *output)
{
	struct hold_pkt pk[SHM_MAX_NUM_SUBBUF];

	for (const struct c_seg *s = a->segs; s; s = s->next) {
		if (s->trace != t || !snap_seg_in(s, output))
			continue;
		for (uint32_t i = 0; i < s->nslots; i++) {
			int n = hold_packets(&s->streams[i], s->chan->memory, pk, SHM_MAX_NUM_SUBBUF);

			for (int k = 0; k < n; k++)
				if (pk[k].bytes > pk[k].skip)
					return 1;
		}
	}
	return 0;
}

/* A trace of the snapshot: its process, and whether it is in it. */
struct snap_tr {
	struct c_app *a;
	struct c_trace *t;
	uint64_t meta;			/* bytes of its metadata */
	int in;
};

/* A packet a snapshot of bounded size may take: by the time of its newest event. */
struct snap_cand {
	uint64_t end_ns;
	uint64_t seq;
	uint64_t cost;			/* bytes on disk: its header and its events */
	struct c_stream *st;
	uint32_t tr;			/* its trace, in the plan */
};

static int snap_cand_cmp(const void *x, const void *y)
{
	const struct snap_cand *a = x, *b = y;

	if (a->end_ns != b->end_ns)
		return a->end_ns > b->end_ns ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* Bytes of the metadata of trace @t of @a, as snap_trace() writes it. */
static long snap_meta_size(const struct c_app *a, const struct c_trace *t)
{
	struct ctf_trace_info info = t->info;
	struct stat sb;
	int fd = memfd_create("shmtrace-meta", MFD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	uuid_make(info.uuid, info.uuid_str);
	ret = meta_write(fd, a, &info, snap_classes(a, t));
	if (ret == 0 && fstat(fd, &sb) < 0)
		ret = -errno;
	close(fd);
	return ret < 0 ? ret : (long)sb.st_size;
}

/*
 * The budget of each stream of the traces @tr (@ntr) for a snapshot of at
 * most @max_size bytes: the newest packets across every stream, in the
 * order of their newest event, as long as they fit with the metadata of
 * their traces; so the snapshot holds every event after some time of
 * every stream (each stream a contiguous run up to its newest), and
 * nothing older. Returns the packets taken (0: not even one fits), or
 * -errno.
 */
static long snap_plan(struct snap_tr *tr, uint32_t ntr, const char *output, uint64_t max_size)
{
	struct hold_pkt pk[SHM_MAX_NUM_SUBBUF];
	struct snap_cand *c = NULL;
	uint32_t nc = 0, cap = 0;
	uint64_t total = 0;
	long taken = 0;

	for (uint32_t i = 0; i < ntr; i++) {
		long m = snap_meta_size(tr[i].a, tr[i].t);

		if (m < 0) {
			free(c);
			return m;
		}
		tr[i].meta = (uint64_t)m;
		for (struct c_seg *s = tr[i].a->segs; s; s = s->next) {
			if (s->trace != tr[i].t || !snap_seg_in(s, output))
				continue;
			for (uint32_t k = 0; k < s->nslots; k++) {
				struct c_stream *st = &s->streams[k];
				int n = hold_packets(st, s->chan->memory, pk, SHM_MAX_NUM_SUBBUF);

				for (int j = 0; j < n; j++) {
					if (pk[j].bytes == pk[j].skip)
						continue;
					if (nc == cap &&
					    array_grow(&c, &cap, cap ? 2 * cap : 256, sizeof(*c)) < 0) {
						free(c);
						return -ENOMEM;
					}
					c[nc++] = (struct snap_cand){
						.end_ns = clock_epoch_ns(s->clock, pk[j].end_ts),
						.seq = pk[j].seq,
						.cost = CTF_PACKET_HDR + pk[j].bytes - pk[j].skip,
						.st = st, .tr = i,
					};
				}
			}
		}
	}
	qsort(c, nc, sizeof(*c), snap_cand_cmp);
	for (uint32_t k = 0; k < nc; k++) {
		uint64_t add = c[k].cost + (tr[c[k].tr].in ? 0 : tr[c[k].tr].meta);

		if (total + add > max_size)
			break;	/* and nothing older: one window for every stream */
		total += add;
		tr[c[k].tr].in = 1;
		c[k].st->snap_budget += c[k].cost;
		taken++;
	}
	free(c);
	return taken;
}

int snapshot_chan(uint64_t chan_id, const char *output, uint64_t max_size)
{
	struct c_chan *ch = chan_find(chan_id);
	struct snap_tr *tr = NULL;
	struct cds_lfht_iter it;
	struct c_app *a;
	char *scratch = NULL;
	size_t cap = 0;
	uint32_t ntr = 0, tcap = 0;
	int ret = 0, packets = 0, any = 0;

	if (!ch || output[0] != '/')
		return -EINVAL;
	/* the traces of the session, every stream given its budget */
	capp_for_each(&it, a)
		for (struct c_trace *t = a->traces; t; t = t->next) {
			int segs = 0;

			for (struct c_seg *s = a->segs; s; s = s->next) {
				if (s->trace != t || !snap_seg_in(s, ch->output))
					continue;
				segs = 1;
				for (uint32_t i = 0; i < s->nslots; i++)
					s->streams[i].snap_budget = max_size ? 0 : UINT64_MAX;
			}
			if (!segs)
				continue;
			if (ntr == tcap && array_grow(&tr, &tcap, tcap ? 2 * tcap : 16, sizeof(*tr)) < 0) {
				free(tr);
				return -ENOMEM;
			}
			/* (a process whose buffers hold nothing, after a clear: no trace) */
			tr[ntr++] = (struct snap_tr){ .a = a, .t = t,
				.in = !max_size && snap_has_events(a, t, ch->output) };
			any += tr[ntr - 1].in;
		}
	if (!ntr || (!max_size && !any)) {
		free(tr);
		return -ENOENT;		/* nothing to copy: nothing made */
	}
	if (max_size) {
		long n = snap_plan(tr, ntr, ch->output, max_size);

		ret = n < 0 ? (int)n : n == 0 ? -ENOSPC : 0;
	}
	snap_files = 0;
	if (ret == 0 && (ret = mkdir_p(output, 0750)) < 0)
		log_err("snapshot: cannot create %s: %s", output, strerror(-ret));
	for (uint32_t i = 0; i < ntr && ret == 0; i++) {
		int n = tr[i].in ? snap_trace(tr[i].a, tr[i].t, output, &scratch, &cap) : 0;

		if (n < 0)
			ret = n;
		else
			packets += n;
	}
	free(scratch);
	free(tr);
	if (ret == 0) {
		log_info("snapshot of %s: %d packets in %s", ch->output, packets, output);
		snap_pool_after(output, snap_files);	/* durable, and the next one's files */
	}
	return ret;
}
