// SPDX-License-Identifier: MIT
/*
 * progress.c - what the consumer wrote of each trace, kept on disk beside
 * it (`<trace>/.shmtrace-progress`, progress.h has the layout), so that a
 * consumer started after a crash, or after a SIGKILL at any instant,
 * continues the same trace exactly: nothing written twice, nothing
 * skipped, no packet cut short left in a file, the same stream files.
 *
 * The order of the writes is the whole protocol. For each range a stream
 * writes out (drain.c):
 *   1. the packet is appended to the stream file (a failed append is cut
 *      back, drain.c);
 *   2. the stream's record is written here (pwrite of one record, within
 *      one page: a process killed in the call leaves the old record or
 *      the new one, never a mix);
 *   3. only then does the slot's `consumed` (release) let the writer reuse
 *      the sub-buffer.
 * A crash after 1 leaves bytes past the record's `fsize`: the next
 * consumer cuts them off and writes that range again from the ring, which
 * still holds it (3 had not happened). A crash after 2 leaves `consumed`
 * one packet behind the record: the next consumer stores it. A partly
 * written open packet (a flush) is recorded as `flushed` bytes of packet
 * `rseq`, which the ring's `consumed` cannot say: resuming there is what
 * keeps a flushed prefix from being written twice.
 *
 * Metadata: the trace's uuid, clock and stream classes are in the header,
 * written when the trace starts (before its metadata) and when a class is
 * added (before any packet of it); so are, after every write of the
 * metadata, its size and the event ids it describes. A trace adopted
 * keeps its metadata up to that size (a description cut by a crash after
 * it goes) and appends the events it learns beyond them: it never
 * describes fewer events than its packets use, even when the process
 * that continues it has not told all of its events yet (one that
 * registers again on its way out). A header without a size (older, or
 * damaged metadata) has the file made again whole from the header and
 * the events known.
 *
 * Trust: the file lies in the user's output directory; every field read
 * back is checked (magic, version, sizes, a hash of each block, the
 * stream's name, counters that cannot move backwards), and a file that
 * fails is not adopted: the next consumer then starts a new trace beside
 * it, as before this file existed, and says so in its log.
 *
 * Who writes: the header, by the thread that starts or prepares the trace
 * (under the trace's lock, trace.c) or the main thread between rounds; a
 * record, by its stream's draining thread (one at a time, worker.c); a
 * new record's index is taken under the trace's lock. Records are at
 * distinct offsets, so writers never overlap.
 */
#include <dirent.h>
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
#include "progress.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "werr.h"

static uint64_t prog_hash(const void *p, size_t len)
{
	return hash_bytes(p, len - sizeof(uint64_t));
}

static void prog_fill_hdr(const struct c_trace *t, struct prog_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = PROG_MAGIC;
	h->version = PROG_VERSION;
	h->hdr_size = PROG_HDR_SIZE;
	h->rec_size = PROG_REC_SIZE;
	h->pid = t->app->pid;
	h->starttime = t->app->starttime;
	h->instance = t->app->instance;
	memcpy(h->uuid, t->info.uuid, sizeof(h->uuid));
	h->freq = t->info.freq;
	h->offset_s = t->info.offset_s;
	h->offset = t->info.offset;
	h->clock = t->app->clock;
	h->classes = t->classes;
	h->meta_size = t->meta_size;
	h->nev = t->nev_written;
	h->check = prog_hash(h, sizeof(*h));
}

int prog_save_header(struct c_trace *t)
{
	struct prog_hdr h;

	if (t->prog_fd < 0)
		return 0;
	prog_fill_hdr(t, &h);
	return pwrite_all(t->prog_fd, &h, sizeof(h), 0);
}

int prog_start(struct c_trace *t, int dirfd)
{
	int ret;

	t->prog_fd = openat(dirfd, PROG_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0640);
	if (t->prog_fd < 0)
		return -errno;
	t->prog_next = 0;
	ret = prog_save_header(t);
	if (ret < 0) {
		close(t->prog_fd);
		t->prog_fd = -1;
		unlinkat(dirfd, PROG_FILE, 0);
	}
	return ret;
}

static int prog_rec_ok(const struct prog_rec *r)
{
	return r->magic == PROG_REC_MAGIC && r->check == prog_hash(r, sizeof(*r)) &&
	       memchr(r->name, 0, sizeof(r->name)) && r->name[0] &&
	       !strchr(r->name, '/') && r->name[0] != '.' &&
	       r->number < SHM_MAX_SLOTS && r->flushed <= SHM_MAX_SUBBUF &&
	       r->wlost <= r->events && r->lost_seen <= r->lost_packets;
}

int prog_adopt(struct c_trace *t, int dirfd)
{
	const struct c_app *a = t->app;
	struct prog_rec *recs = NULL;
	struct prog_hdr h;
	struct stat sb;
	uint32_t n;
	ssize_t got;
	int fd, ret;

	fd = openat(dirfd, PROG_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		goto fail;
	}
	got = pread(fd, &h, sizeof(h), 0);
	ret = -EBADMSG;
	if (got != (ssize_t)sizeof(h) || !S_ISREG(sb.st_mode) || h.magic != PROG_MAGIC ||
	    h.version != PROG_VERSION || h.hdr_size != PROG_HDR_SIZE ||
	    h.rec_size != PROG_REC_SIZE || h.check != prog_hash(&h, sizeof(h)) ||
	    (uint64_t)sb.st_size > PROG_HDR_SIZE + (uint64_t)PROG_MAX_RECS * PROG_REC_SIZE)
		goto fail;
	ret = -ESRCH;
	if (h.pid != a->pid || h.starttime != a->starttime || h.instance != a->instance ||
	    h.clock != a->clock || !a->instance)
		goto fail;
	ret = -EBADMSG;
	if (h.classes & ~((2u << SHMTRACE__CTX_ALL) - 1) || !(h.classes & 1) ||
	    h.nev > SHM_MAX_EVENTS || (h.nev && !h.meta_size))
		goto fail;
	n = (uint32_t)(((uint64_t)sb.st_size - PROG_HDR_SIZE) / PROG_REC_SIZE);
	if (n) {
		recs = malloc((size_t)n * sizeof(*recs));
		if (!recs) {
			ret = -ENOMEM;
			goto fail;
		}
		got = pread(fd, recs, (size_t)n * sizeof(*recs), PROG_HDR_SIZE);
		if (got != (ssize_t)((size_t)n * sizeof(*recs)))
			goto fail;
		for (uint32_t i = 0; i < n; i++)
			if (!prog_rec_ok(&recs[i]))
				goto fail;
	}
	memcpy(t->info.uuid, h.uuid, sizeof(h.uuid));
	snprintf(t->info.uuid_str, sizeof(t->info.uuid_str),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 h.uuid[0], h.uuid[1], h.uuid[2], h.uuid[3], h.uuid[4], h.uuid[5], h.uuid[6],
		 h.uuid[7], h.uuid[8], h.uuid[9], h.uuid[10], h.uuid[11], h.uuid[12], h.uuid[13],
		 h.uuid[14], h.uuid[15]);
	t->info.freq = h.freq;
	t->info.offset_s = h.offset_s;
	t->info.offset = h.offset;
	t->classes = h.classes;
	t->meta_size = h.meta_size;
	t->nev_written = h.nev;
	t->prog_fd = fd;
	t->prog_old = recs;
	t->prog_nold = n;
	t->prog_next = n;
	return 0;
fail:
	free(recs);
	close(fd);
	return ret;
}

/* The newest record of file @name in @t's adopted records, or -1. */
static int prog_find(const struct c_trace *t, const char *name)
{
	for (uint32_t i = t->prog_nold; i-- > 0;)
		if (!strcmp(t->prog_old[i].name, name))
			return (int)i;
	return -1;
}

static void prog_fill_rec(const struct c_seg *s, const struct c_stream *st, struct prog_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->magic = PROG_REC_MAGIC;
	r->number = st->number;
	r->chan_id = s->chan->id;
	snprintf(r->name, sizeof(r->name), "%s_%u", s->chan->name, st->number);
	r->fsize = st->fsize;
	r->rseq = st->rd.rseq;
	r->flushed = st->rd.flushed;
	r->nev_flushed = st->rd.nev_flushed;
	r->last_end = st->rd.last_end;
	r->seq = st->seq;
	r->fd_packets = st->fd_packets;
	r->discarded = st->discarded;
	r->disc_base = st->disc_base;
	r->lost_seen = st->lost_seen;
	r->lost_packets = st->rd.lost_packets;
	r->events = st->rd.events;
	r->wlost = st->wlost;
	r->bytes = st->bytes;
	r->nobuf_base = *s->nobuf_base;
	r->slot_disc = st->disc.val;
	r->overrun = st->over.val;
	r->nobuf = capp_nobuf_seen(s->trace->app, s->chan->slot);
	r->ev_base = st->ev_base;
	r->check = prog_hash(r, sizeof(*r));
}

int prog_save(const struct c_seg *s, const struct c_stream *st)
{
	struct prog_rec r;

	if (st->rec < 0 || s->trace->prog_fd < 0)
		return 0;
	prog_fill_rec(s, st, &r);
	return pwrite_all(s->trace->prog_fd, &r, sizeof(r),
			  PROG_HDR_SIZE + (off_t)st->rec * PROG_REC_SIZE);
}

int prog_stream_new(struct c_seg *s, struct c_stream *st)
{
	struct c_trace *t = s->trace;
	int ret;

	if (st->rec >= 0 || t->prog_fd < 0)
		return 0;
	pthread_mutex_lock(&t->lock);
	if (t->prog_next == PROG_MAX_RECS) {
		pthread_mutex_unlock(&t->lock);
		return -ENOSPC;
	}
	st->rec = (int32_t)t->prog_next++;
	pthread_mutex_unlock(&t->lock);
	/* what the stream wrote before this trace (chunks, cleared traces) */
	st->ev_base = st->rd.events - st->wlost;
	ret = prog_save(s, st);
	if (ret < 0)
		st->rec = -1;	/* (the slot stays taken: harmless) */
	return ret;
}

/* The file of @st, cut back to what @r counts; -errno. */
static int prog_reopen(struct c_seg *s, struct c_stream *st, const struct prog_rec *r)
{
	struct stat sb;
	int fd = openat(s->trace->dir_fd, r->name,
			O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0640);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)sb.st_size < r->fsize) {
		/* packets it had are gone (the file removed or cut by hand):
		 * a new file, counted from here, as after a removal */
		log_warn("%s/%s: %llu bytes, %llu expected: written anew", s->trace->dir, r->name,
			 (unsigned long long)sb.st_size, (unsigned long long)r->fsize);
		if (ftruncate(fd, 0) < 0) {
			int ret = -errno;

			close(fd);
			return ret;
		}
		st->fsize = 0;
		st->fd_packets = 0;
		st->disc_base = st->discarded;
	} else if ((uint64_t)sb.st_size > r->fsize) {
		log_info("%s/%s: %llu bytes past the last whole packet cut off",
			 s->trace->dir, r->name,
			 (unsigned long long)sb.st_size - r->fsize);
		if (ftruncate(fd, (off_t)r->fsize) < 0) {
			int ret = -errno;

			close(fd);
			return ret;
		}
	}
	st->fd = fd;
	return 0;
}

int prog_resume(struct c_seg *s, struct c_stream *st)
{
	struct c_trace *t = s->trace;
	const struct prog_rec *r;
	uint64_t consumed;
	char name[PROG_NAME_MAX];
	int i, ret;

	if (!t->prog_old || s->chan->relay)
		return 0;
	snprintf(name, sizeof(name), "%s_%u", s->chan->name, st->number);
	i = prog_find(t, name);
	if (i < 0)
		return 0;
	r = &t->prog_old[i];
	st->rec = i;
	st->fsize = r->fsize;
	st->seq = r->seq;
	st->fd_packets = r->fd_packets;
	st->discarded = r->discarded;
	st->disc_base = r->disc_base;
	st->lost_seen = r->lost_seen;
	st->wlost = r->wlost;
	st->bytes = r->bytes;
	st->rd.rseq = r->rseq;
	st->rd.flushed = r->flushed;
	st->rd.nev_flushed = r->nev_flushed;
	st->rd.last_end = r->last_end;
	st->rd.events = r->events;
	st->rd.lost_packets = r->lost_packets;
	st->ev_base = r->ev_base <= r->events - r->wlost ? r->ev_base : 0;
	t->app->nobuf_base[s->chan->slot] = r->nobuf_base;
	consumed = __atomic_load_n(&st->rb.hdr->consumed, __ATOMIC_ACQUIRE);
	if (consumed > r->rseq) {
		/*
		 * Packets let go without a record (overwritten ones, or a
		 * record that could not be written): lost, a gap in the
		 * packet numbers.
		 */
		st->rd.lost_packets += consumed - r->rseq;
		st->rd.rseq = consumed;
		st->rd.flushed = 0;
		st->rd.nev_flushed = 0;
	}
	ret = prog_reopen(s, st, r);
	if (ret < 0) {
		char path[PROTO_PATH_MAX + 256];

		snprintf(path, sizeof(path), "%s/%s", t->dir, name);
		werr_record(s->chan, t, path, -ret);
		st->fd = -1;
	}
	/* the record is ahead of `consumed` when the crash came between them */
	if (consumed != st->rd.rseq)
		rb_publish(&st->rb, &st->rd);
	prog_save(s, st);
	return 1;
}

void prog_close(struct c_trace *t)
{
	if (t->prog_fd >= 0)
		close(t->prog_fd);
	t->prog_fd = -1;
	free(t->prog_old);
	t->prog_old = NULL;
	t->prog_nold = 0;
	t->prog_next = 0;
}

/*
 * The statistics of traces left by an earlier consumer (prog_scan()): per
 * process image and buffer slot, the newest record's counts; per image,
 * number PROG_NOBUF, its losses without a buffer.
 */
#define PROG_NOBUF	UINT32_MAX

struct prog_base {
	uint64_t instance;
	uint32_t number;
	uint32_t taken;
	uint64_t events, wlost, bytes, slot_disc, overrun, nobuf;
	uint64_t has_file;
};

static int prog_base_cmp(const void *x, const void *y)
{
	const struct prog_base *a = x, *b = y;

	if (a->instance != b->instance)
		return a->instance < b->instance ? -1 : 1;
	if (a->number != b->number)
		return a->number < b->number ? -1 : 1;
	/* the newest first: counts only grow */
	if (a->events + a->bytes + a->slot_disc != b->events + b->bytes + b->slot_disc)
		return a->events + a->bytes + a->slot_disc > b->events + b->bytes + b->slot_disc ?
		       -1 : 1;
	return 0;
}

struct prog_scan {
	struct prog_base *v;
	uint32_t n, cap;
};

static int prog_scan_add(struct prog_scan *sc, const struct prog_base *b)
{
	if (sc->n == sc->cap) {
		uint32_t cap = sc->cap ? 2 * sc->cap : 64;
		struct prog_base *nv = realloc(sc->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sc->v = nv;
		sc->cap = cap;
	}
	sc->v[sc->n++] = *b;
	return 0;
}

/* The records of channel @chan_id in trace directory @name of @dirfd. */
static int prog_scan_trace(struct prog_scan *sc, int dirfd, const char *name, uint64_t chan_id)
{
	struct prog_hdr h;
	struct prog_rec r;
	int dfd, fd, ret = 0;
	uint64_t nobuf = 0;

	dfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	fd = openat(dfd, PROG_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return 0;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != PROG_MAGIC ||
	    h.version != PROG_VERSION || h.check != prog_hash(&h, sizeof(h)))
		goto out;
	for (uint32_t k = 0; k < PROG_MAX_RECS && ret == 0; k++) {
		struct prog_base b = { .instance = h.instance };

		if (pread(fd, &r, sizeof(r), PROG_HDR_SIZE + (off_t)k * PROG_REC_SIZE) !=
		    (ssize_t)sizeof(r))
			break;
		if (!prog_rec_ok(&r) || r.chan_id != chan_id)
			continue;
		b.number = r.number;
		b.events = r.events;
		b.wlost = r.wlost;
		b.bytes = r.bytes;
		b.slot_disc = r.slot_disc;
		b.overrun = r.overrun;
		b.has_file = r.fd_packets || r.fsize;
		if (r.nobuf > nobuf)
			nobuf = r.nobuf;
		ret = prog_scan_add(sc, &b);
	}
	if (ret == 0 && nobuf) {
		struct prog_base b = { .instance = h.instance, .number = PROG_NOBUF, .nobuf = nobuf };

		ret = prog_scan_add(sc, &b);
	}
out:
	close(fd);
	return ret;
}

/* Every trace directory of @fd (the output, or one of its chunks). */
static int prog_scan_dir(struct prog_scan *sc, int fd, uint64_t chan_id, int chunks)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (chunks && !strncmp(de->d_name, "chunk-", 6)) {
			int cfd = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0)
				ret = prog_scan_dir(sc, cfd, chan_id, 0);
			continue;
		}
		ret = prog_scan_trace(sc, dirfd(d), de->d_name, chan_id);
	}
	closedir(d);
	return ret;
}

int prog_scan(struct c_chan *ch)
{
	struct prog_scan sc = { 0 };
	struct msg_c_stats *g = &ch->gone;
	uint32_t n = 0;
	int fd, ret;

	if (ch->relay)
		return 0;
	fd = chan_output(ch, 0);
	if (fd < 0)
		return 0;	/* no trace yet */
	ret = prog_scan_dir(&sc, fd, ch->id, 1);
	if (ret < 0) {
		free(sc.v);
		return ret;
	}
	if (!sc.n)
		return 0;
	/* the newest record of each stream, counted once */
	qsort(sc.v, sc.n, sizeof(*sc.v), prog_base_cmp);
	for (uint32_t i = 0; i < sc.n; i++) {
		const struct prog_base *b = &sc.v[i];

		if (n && sc.v[n - 1].instance == b->instance && sc.v[n - 1].number == b->number)
			continue;
		sc.v[n++] = *b;
		if (b->number == PROG_NOBUF) {
			g->nobuf += b->nobuf;
			continue;
		}
		g->events += b->events - b->wlost;
		g->wlost += b->wlost;
		g->bytes += b->bytes;
		g->discarded += b->slot_disc;
		g->overwritten += b->overrun;
		g->streams += b->has_file;
		g->buffers++;
	}
	ch->base = sc.v;
	ch->nbase = n;
	log_info("channel %s: %u streams of traces already in %s counted", ch->name, n,
		 ch->output);
	return 0;
}

static struct prog_base *prog_base_find(const struct c_chan *ch, uint64_t instance,
					uint32_t number)
{
	struct prog_base key = { .instance = instance, .number = number };
	size_t lo = 0, hi = ch->nbase;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct prog_base *b = &ch->base[mid];
		int c = b->instance != key.instance ? (b->instance < key.instance ? -1 : 1) :
			b->number != key.number ? (b->number < key.number ? -1 : 1) : 0;

		if (c == 0)
			return &ch->base[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void prog_take(struct c_seg *s, struct c_stream *st, int resumed)
{
	struct c_chan *ch = s->chan;
	struct msg_c_stats *g = &ch->gone;
	uint64_t instance = s->trace->app->instance;
	struct prog_base *b;

	if (!ch->nbase)
		return;
	b = prog_base_find(ch, instance, PROG_NOBUF);
	if (b && !b->taken) {
		b->taken = 1;
		g->nobuf -= b->nobuf;	/* the process counts them again, from its page */
	}
	b = prog_base_find(ch, instance, st->number);
	if (!b || b->taken)
		return;
	b->taken = 1;
	g->discarded -= b->slot_disc;	/* the slot counts them again */
	g->overwritten -= b->overrun;
	g->buffers--;
	if (resumed) {
		/* and the stream, from where its record left it */
		g->events -= b->events - b->wlost;
		g->wlost -= b->wlost;
		g->bytes -= b->bytes;
		g->streams -= b->has_file;
	}
}

int prog_count(int dirfd, const uint64_t *ids, unsigned int n, uint64_t *events)
{
	struct prog_hdr h;
	struct prog_rec r;
	int fd = openat(dirfd, PROG_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != PROG_MAGIC ||
	    h.version != PROG_VERSION || h.check != prog_hash(&h, sizeof(h))) {
		close(fd);
		return -EBADMSG;
	}
	for (uint32_t k = 0; k < PROG_MAX_RECS; k++) {
		if (pread(fd, &r, sizeof(r), PROG_HDR_SIZE + (off_t)k * PROG_REC_SIZE) !=
		    (ssize_t)sizeof(r))
			break;
		if (!prog_rec_ok(&r) || r.ev_base > r.events - r.wlost)
			continue;
		for (unsigned int i = 0; i < n; i++)
			if (r.chan_id == ids[i])
				events[i] += r.events - r.wlost - r.ev_base;
	}
	close(fd);
	return 0;
}

void prog_scan_free(struct c_chan *ch)
{
	free(ch->base);
	ch->base = NULL;
	ch->nbase = 0;
}
