/* SPDX-License-Identifier: MIT */
/*
 * stream.c - turning a traced process's buffers into CTF traces.
 *
 * Each buffer slot of a segment is one CTF stream, written to
 * `<output>/<procname>-<pid>/<channel>_<slot>`. Every range that
 * rb_next() returns becomes one packet: an 84-byte header and context built
 * here, then the events copied as they are. A stream's events_discarded is
 * kept monotonic and includes, for the channel's first stream, the events
 * the process could not give any buffer to (lost_nobuf), so that events
 * emitted == events in the trace + events reported discarded.
 *
 * Shared memory is never trusted: geometry comes from the validated
 * segment message and the memfd's checked size; every index and length
 * read from the slots is checked by rb_next(); a slot with corrupt
 * counters is marked broken and skipped.
 *
 * The metadata file is append-only: the preamble and all known events when
 * the trace directory is created, and each event learnt later is appended
 * before any data that uses it can be drained (the session daemon enables
 * events only after the consumer acknowledged their description).
 *
 * Write errors (no space, I/O error, read-only file system, the trace
 * directory removed: a file whose link count fell to 0) never stop the
 * draining: the packet that could not be written is dropped and its events
 * counted as lost to write errors (events emitted == events in the trace +
 * reported discarded + lost to write errors), and the next packet is tried
 * as usual, so writers never wait and the consumer never spins. A failed
 * append is undone (the file truncated back), so a stream file holds whole
 * packets only; a lost packet leaves a gap in packet numbers. A trace whose
 * directory or metadata could not be made is tried again at its next
 * packet, nothing of it left behind. The first error of each trace is
 * logged with its errno; the first of each channel (path and errno) goes
 * to the session daemon with the statistics, for stop and status.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <lz4frame.h>
#include "seg.h"
#include "log.h"
#include "worker.h"
#include "tsc.h"
#include "util.h"

struct cds_lfht *c_app_ht, *c_chan_ht;
struct c_clock c_clocks[2];
/* overwrite mode: ranges are copied here before they are checked and written */
static __thread char *c_scratch;
static __thread size_t c_scratch_size;
/* the first write errors of traces and channels (write_error()) */
static pthread_mutex_t c_err_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t clock_now(uint32_t kind)
{
	return kind == CLOCK_KIND_TSC ? tsc_read_ordered() : now_ns(CLOCK_MONOTONIC);
}

/* Ids are unique counters: mix them so that buckets fill evenly. */
static unsigned long id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (unsigned long)id;
}

static int app_match(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct c_app, node)->id == *(const uint64_t *)key;
}

static int chan_match(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct c_chan, node)->id == *(const uint64_t *)key;
}

int registries_init(void)
{
	int flags = CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING;

	c_app_ht = cds_lfht_new_flavor(64, 64, 0, flags, &urcu_memb_flavor, NULL);
	c_chan_ht = cds_lfht_new_flavor(16, 16, 0, flags, &urcu_memb_flavor, NULL);
	return c_app_ht && c_chan_ht ? 0 : -ENOMEM;
}

/* Once every entry was removed and no reader is left. */
void registries_fini(void)
{
	urcu_memb_barrier();	/* deferred frees, and the tables' own */
	cds_lfht_destroy(c_app_ht, NULL);
	cds_lfht_destroy(c_chan_ht, NULL);
}

struct c_chan *chan_find(uint64_t id)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *n;

	cds_lfht_lookup(c_chan_ht, id_hash(id), chan_match, &id, &it);
	n = cds_lfht_iter_get_node(&it);
	return n ? caa_container_of(n, struct c_chan, node) : NULL;
}

struct c_app *capp_find(uint64_t id)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *n;

	cds_lfht_lookup(c_app_ht, id_hash(id), app_match, &id, &it);
	n = cds_lfht_iter_get_node(&it);
	return n ? caa_container_of(n, struct c_app, node) : NULL;
}

void chan_insert(struct c_chan *ch)
{
	cds_lfht_node_init(&ch->node);
	cds_lfht_add(c_chan_ht, id_hash(ch->id), &ch->node);
}

void capp_insert(struct c_app *a)
{
	cds_lfht_node_init(&a->node);
	cds_lfht_add(c_app_ht, id_hash(a->id), &a->node);
}

static void chan_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct c_chan, rcu));
}

void chan_remove(struct c_chan *ch)
{
	cds_lfht_del(c_chan_ht, &ch->node);
	urcu_memb_call_rcu(&ch->rcu, chan_free_rcu);
}

/*
 * A write error on @path, for trace @t of channel @ch: the first of each
 * trace is logged and counted, the first of each channel kept for status.
 */
static void write_error(struct c_chan *ch, struct c_trace *t, const char *path, int err)
{
	pthread_mutex_lock(&c_err_lock);
	if (!t->werr) {
		t->werr = err;
		ch->werr_traces++;
		log_err("cannot write %s: %s (errno %d): the trace's events are lost until "
			"writes succeed again", path, strerror(err), err);
	}
	if (!ch->werr) {
		ch->werr = err;
		snprintf(ch->werr_path, sizeof(ch->werr_path), "%s", path);
	}
	pthread_mutex_unlock(&c_err_lock);
}

/* Describe events [@from, @to) of @a in stream class @ctx, to @fd. */
static int meta_write_events(int fd, const struct c_app *a, uint32_t ctx, uint32_t from,
			     uint32_t to)
{
	char buf[16384];

	for (uint32_t id = from; id < to; id++) {
		const struct proto_event *e = &a->ev[id];
		long n;
		int ret;

		if (!e->name[0])
			continue;
		n = ctfmeta_event(buf, sizeof(buf), e, ctx);
		if (n < 0)
			return -EIO;
		ret = write_all(fd, buf, (size_t)n);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Declare stream class @ctx with events [0, @nev) of @a, to @fd. */
static int meta_write_class(int fd, const struct c_app *a, uint32_t ctx, uint32_t nev)
{
	char buf[1024];
	long n = ctfmeta_stream(buf, sizeof(buf), ctx);
	int ret;

	if (n < 0)
		return -EIO;
	ret = write_all(fd, buf, (size_t)n);
	return ret < 0 ? ret : meta_write_events(fd, a, ctx, 0, nev);
}

int trace_meta_write(int fd, const struct c_app *a, const struct ctf_trace_info *info,
		     uint32_t classes)
{
	char buf[8192];
	long n = ctfmeta_preamble(buf, sizeof(buf), info);	/* stream class 0 */
	int ret;

	if (n < 0)
		return -EIO;
	ret = write_all(fd, buf, (size_t)n);
	if (ret == 0)
		ret = meta_write_events(fd, a, 0, 0, a->nev);
	for (uint32_t ctx = 1; ret == 0 && ctx <= SHMTRACE__CTX_ALL; ctx++)
		if (classes & (1u << ctx))
			ret = meta_write_class(fd, a, ctx, a->nev);
	return ret;
}

static void meta_path(const struct c_trace *t, char *buf, size_t len);

/*
 * A file trace holds no descriptor between appends to its metadata (they
 * are rare: a new event, a new stream class), so that a traced process
 * costs the consumer a descriptor per stream and its wake socket only.
 * A streamed trace keeps its memfd. Returns the size before the append,
 * or -errno.
 */
static off_t meta_append_begin(struct c_trace *t)
{
	char path[PROTO_PATH_MAX + 128];

	if (t->meta_fd < 0) {
		meta_path(t, path, sizeof(path));
		t->meta_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (t->meta_fd < 0)
			return -errno;
	}
	return lseek(t->meta_fd, 0, SEEK_END);
}

/*
 * End an append that began with @size bytes: undone if @err (a torn
 * description that cannot be undone makes the trace unusable), closed.
 */
static void meta_append_end(struct c_trace *t, off_t size, int err)
{
	if (err && (size < 0 || ftruncate(t->meta_fd, size) < 0))
		t->meta_bad = 1;	/* a torn description: no packet can use it */
	if (!t->chan->relay && t->meta_fd >= 0) {
		close(t->meta_fd);
		t->meta_fd = -1;
	}
}

/* Append the events learnt since the last call, in every declared class. */
static int trace_append_events(struct c_app *a, struct c_trace *t)
{
	off_t size = meta_append_begin(t);
	int ret = size < 0 ? (int)size : 0;

	for (uint32_t ctx = 0; ret == 0 && ctx <= SHMTRACE__CTX_ALL; ctx++)
		if (t->classes & (1u << ctx))
			ret = meta_write_events(t->meta_fd, a, ctx, t->nev_written, a->nev);
	if (size >= 0)
		meta_append_end(t, size, ret);
	if (ret < 0)
		return ret;
	t->nev_written = a->nev;
	return 0;
}

/* Declare stream class @ctx in @t, with every event known so far. */
static int trace_add_class(struct c_trace *t, uint32_t ctx)
{
	off_t size;
	int ret;

	if (t->classes & (1u << ctx))
		return 0;
	size = meta_append_begin(t);
	if (size < 0)
		return (int)size;
	ret = meta_write_class(t->meta_fd, t->app, ctx, t->nev_written);
	meta_append_end(t, size, ret);
	if (ret < 0)
		return ret;
	t->classes |= 1u << ctx;
	return 0;
}

static void meta_path(const struct c_trace *t, char *buf, size_t len)
{
	if (t->chan->relay)
		snprintf(buf, len, "%.255s/%.3700s/metadata", t->chan->relay->url, t->dir);
	else
		snprintf(buf, len, "%s/metadata", t->dir);
}

int capp_add_events(struct c_app *a, const char *body, size_t len)
{
	struct proto_event ev;
	size_t pos = sizeof(struct msg_events);
	int ret;

	while ((ret = proto_event_decode(body, len, &pos, &ev)) == 1) {
		if (ev.id >= SHM_MAX_EVENTS)
			return -EPROTO;
		if (ev.id >= a->nev) {
			struct proto_event *nv = realloc(a->ev, (ev.id + 1) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			memset(nv + a->nev, 0, (ev.id + 1 - a->nev) * sizeof(*nv));
			a->ev = nv;
			a->nev = ev.id + 1;
		}
		if (a->ev[ev.id].name[0])
			continue;	/* replayed after a restart */
		a->ev[ev.id] = ev;
	}
	if (ret < 0)
		return ret;
	/* (a trace that cannot take them now takes them before its next packet) */
	for (struct c_trace *t = a->traces; t; t = t->next) {
		char path[PROTO_PATH_MAX + 128];

		if (t->rotated || t->meta_bad)
			continue;
		ret = trace_append_events(a, t);
		if (ret < 0) {
			meta_path(t, path, sizeof(path));
			write_error(t->chan, t, path, -ret);
		}
	}
	return 0;
}

/* A new uuid, and the whole metadata of @t written to its meta_fd. */
static int trace_meta_init(struct c_app *a, struct c_trace *t)
{
	uint32_t classes = 1;		/* stream class 0 is in the preamble */
	int ret;

	uuid_make(t->info.uuid, t->info.uuid_str);
	/* the classes of the segments already writing into this trace */
	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (s->trace == t)
			classes |= 1u << s->context;
	ret = trace_meta_write(t->meta_fd, a, &t->info, classes);
	if (ret < 0)
		return ret;
	t->nev_written = a->nev;
	t->classes = classes;
	t->rotated = 0;
	t->meta_bad = 0;
	t->starts++;
	log_dbg("trace %s", t->dir);
	return 0;
}

/*
 * A trace streamed to a relay: the path BASE/PROC-PID there (-N after the
 * first start), the metadata in a memfd, announced (net.c).
 */
static int trace_start_net(struct c_app *a, struct c_trace *t, struct c_chan *ch)
{
	struct c_relay *r = ch->relay;
	char path[PROTO_PATH_MAX + 128];
	int ret;

	if (t->starts)
		snprintf(t->dir, sizeof(t->dir), "%s/%s-%u-%u", r->base, a->procname, a->pid,
			 t->starts);
	else
		snprintf(t->dir, sizeof(t->dir), "%s/%s-%u", r->base, a->procname, a->pid);
	ret = net_trace_start(t);
	if (ret == 0)
		ret = trace_meta_init(a, t);
	if (ret < 0) {
		meta_path(t, path, sizeof(path));
		write_error(ch, t, path, -ret);
		if (t->meta_fd >= 0)
			close(t->meta_fd);
		t->meta_fd = -1;
		net_trace_close(t);
	}
	return ret;
}

/*
 * (Re)start trace @t of process @a: a fresh directory named after the
 * process under its session's output, with a new trace uuid and the full
 * metadata. Called for a new trace, after a rotation, and at the next
 * packet after a failure (then nothing was left behind, and the error was
 * recorded for channel @ch).
 */
static int trace_start(struct c_app *a, struct c_trace *t, struct c_chan *ch)
{
	const char *out = t->chan->output;
	char path[PROTO_PATH_MAX + 128];
	struct stat sb;
	int made_out, ret;

	t->rotated = 1;
	if (t->chan->relay)
		return trace_start_net(a, t, ch);
	made_out = stat(out, &sb) < 0;
	ret = mkdir_p(out, 0750);
	if (ret < 0) {
		write_error(ch, t, out, -ret);
		return ret;
	}
	for (int i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(t->dir, sizeof(t->dir), "%s/%s-%u", out, a->procname, a->pid);
		else
			snprintf(t->dir, sizeof(t->dir), "%s/%s-%u-%d", out, a->procname, a->pid, i);
		ret = mkdir(t->dir, 0750) == 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
	}
	if (ret < 0) {
		write_error(ch, t, t->dir, -ret);
		goto undo_out;
	}
	meta_path(t, path, sizeof(path));
	t->meta_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0640);
	if (t->meta_fd < 0) {
		ret = -errno;
		write_error(ch, t, path, -ret);
		goto undo_dir;
	}
	ret = trace_meta_init(a, t);
	close(t->meta_fd);
	t->meta_fd = -1;
	if (ret < 0) {
		write_error(ch, t, path, -ret);
		unlink(path);
		goto undo_dir;
	}
	return 0;
undo_dir:
	rmdir(t->dir);
undo_out:
	if (made_out)
		rmdir(out);	/* only when empty: other traces may have come meanwhile */
	return ret;
}

/*
 * Make @s's trace ready for a packet: on disk, its metadata up to date.
 * Under the trace's lock: workers draining its other streams wait.
 */
static int trace_ready_locked(struct c_seg *s)
{
	struct c_trace *t = s->trace;
	char path[PROTO_PATH_MAX + 128];
	int ret;

	if (t->rotated && (ret = trace_start(t->app, t, s->chan)) < 0)
		return ret;
	if (t->meta_bad)
		return -EIO;	/* recorded when it happened */
	ret = t->nev_written < t->app->nev ? trace_append_events(t->app, t) : 0;
	if (ret == 0)
		ret = trace_add_class(t, s->context);
	if (ret == 0 && s->chan->relay)
		ret = net_trace_ready(t);
	if (ret < 0 && ret != -EAGAIN) {
		meta_path(t, path, sizeof(path));
		write_error(s->chan, t, path, -ret);
	}
	return ret;
}

static int trace_ready(struct c_seg *s)
{
	int ret;

	pthread_mutex_lock(&s->trace->lock);
	ret = trace_ready_locked(s);
	pthread_mutex_unlock(&s->trace->lock);
	return ret;
}

static struct c_trace *trace_get(struct c_app *a, struct c_chan *ch)
{
	struct c_trace *t;

	for (t = a->traces; t; t = t->next)
		if (!strcmp(t->chan->output, ch->output))
			return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->chan = ch;
	t->app = a;
	t->meta_fd = -1;
	if (gethostname(t->info.hostname, sizeof(t->info.hostname) - 1) < 0)
		strcpy(t->info.hostname, "localhost");
	for (char *p = t->info.hostname; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 32)
			*p = '_';
	memcpy(t->info.procname, a->procname, sizeof(t->info.procname));
	for (char *p = t->info.procname; *p; p++)
		if (*p == '"' || *p == '\\')
			*p = '_';
	t->info.pid = a->pid;
	{
		const struct c_clock *c = &c_clocks[a->clock];

		memcpy(t->info.clock_name, c->name, sizeof(c->name));
		memcpy(t->info.clock_desc, c->desc, sizeof(c->desc));
		memcpy(t->info.clock_uuid, c->uuid, sizeof(c->uuid));
		t->info.freq = c->freq;
		t->info.offset_s = c->offset_s;
		t->info.offset = c->offset;
	}
	/* when it cannot be made now (recorded), its next packet tries again */
	trace_start(a, t, ch);
	t->next = a->traces;
	a->traces = t;
	return t;
}

/*
 * Rotation: everything committed in the channels writing to @output goes
 * into the current files, which are closed; the process directories move
 * into @chunk (renamed: each chunk is a set of complete traces), and the
 * next packets start new traces in @output, numbered from 0 again, their
 * discard counts from the rotation on.
 */
int rotate_output(const char *output, const char *chunk)
{
	char from[PROTO_PATH_MAX + 300], to[PROTO_PATH_MAX * 2 + 300];
	int ret = mkdir_p(chunk, 0750);
	struct cds_lfht_iter it;
	struct c_app *a;
	struct dirent *d;
	DIR *dir;

	if (ret < 0)
		return ret;
	capp_for_each(&it, a) {
		for (struct c_seg *s = a->segs; s; s = s->next) {
			if (strcmp(s->chan->output, output))
				continue;
			seg_drain(s, DRAIN_PARTIAL);
			for (uint32_t i = 0; i < s->nslots; i++) {
				struct c_stream *st = &s->streams[i];

				if (st->fd >= 0)
					close(st->fd);
				st->fd = -1;
				st->fd_packets = 0;
				st->seq = 0;
				st->disc_base = st->discarded;
				st->torn = 0;	/* a new file */
			}
		}
		for (struct c_trace *t = a->traces; t; t = t->next) {
			if (strcmp(t->chan->output, output) || t->rotated)
				continue;
			t->rotated = 1;	/* a new directory at its next packet */
		}
	}
	/* every trace of the chunk, of processes alive or gone, moves into it */
	dir = opendir(output);
	while (dir && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' || !strncmp(d->d_name, "chunk-", 6))
			continue;
		snprintf(from, sizeof(from), "%s/%s", output, d->d_name);
		snprintf(to, sizeof(to), "%s/%s", chunk, d->d_name);
		if (rename(from, to) < 0) {
			ret = -errno;
			log_err("rotation: cannot move %s: %s", from, strerror(errno));
		}
	}
	if (dir)
		closedir(dir);
	return ret;
}

int seg_add(struct c_app *a, const struct msg_segment *m, int fd)
{
	struct c_chan *ch = chan_find(m->chan_id);
	uint32_t slot_hdr, slot_size;
	struct c_seg *s;
	void *base;

	if (!ch || m->chan_slot != ch->slot || !shm_geometry_ok(m->subbuf_size, m->num_subbuf) ||
	    m->nslots == 0 || m->nslots > SHM_MAX_SLOTS || m->first_slot > SHM_MAX_SLOTS ||
	    (m->context & ~SHMTRACE__CTX_ALL))
		return -EINVAL;
	slot_hdr = shm_slot_hdr_size(m->num_subbuf);
	slot_size = slot_hdr + m->subbuf_size * m->num_subbuf;
	if (m->size != SHM_PAGE + (uint64_t)slot_size * m->nslots || memfd_check(fd, m->size) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->streams = calloc(m->nslots, sizeof(*s->streams));
	s->trace = trace_get(a, ch);
	base = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* (a trace that could not be written is drained all the same, its
	 * events counted as lost: its class is declared before its packets) */
	if (!s->streams || !s->trace || base == MAP_FAILED) {
		if (base != MAP_FAILED)
			munmap(base, m->size);
		free(s->streams);
		free(s);
		return -ENOMEM;
	}
	s->chan = ch;
	s->clock = a->clock;
	s->context = m->context;
	s->proc = a->proc;
	s->nobuf_base = &a->nobuf_base[ch->slot];
	s->base = base;
	s->size = m->size;
	s->nslots = m->nslots;
	for (uint32_t i = 0; i < m->nslots; i++) {
		struct c_stream *st = &s->streams[i];
		char *sl = s->base + SHM_PAGE + (size_t)i * slot_size;

		st->seg = s;
		st->rb.hdr = (struct shm_slot *)(void *)sl;
		st->rb.data = sl + slot_hdr;
		st->rb.subbuf_size = m->subbuf_size;
		st->rb.num_subbuf = m->num_subbuf;
		st->rb.mode = ch->mode;
		st->number = m->first_slot + i;
		st->fd = -1;
		/* resume where a previous consumer stopped */
		st->rd.rseq = __atomic_load_n(&st->rb.hdr->consumed, __ATOMIC_ACQUIRE);
	}
	for (uint32_t i = 0; i < m->nslots; i++) {
		if (wk_stream_add(&s->streams[i], a->asleep) == 0)
			continue;
		while (i--)
			wk_stream_del(&s->streams[i]);
		munmap(base, m->size);
		free(s->streams);
		free(s);
		return -ENOMEM;
	}
	s->next = a->segs;
	a->segs = s;
	return 0;
}

/*
 * Events a process lost for want of any buffer in channel slot @slot since
 * the channel began (the process's counter is per slot, and a slot may have
 * served an earlier channel).
 */
uint64_t capp_nobuf(const struct c_app *a, unsigned int slot)
{
	if (!a->proc || slot >= SHM_MAX_CHAN)
		return 0;
	return __atomic_load_n(&a->proc->lost_nobuf[slot], __ATOMIC_RELAXED) - a->nobuf_base[slot];
}

void capp_nobuf_start(struct c_app *a, unsigned int slot)
{
	if (a->proc && slot < SHM_MAX_CHAN)
		a->nobuf_base[slot] = __atomic_load_n(&a->proc->lost_nobuf[slot], __ATOMIC_RELAXED);
}

/* Events the process could not give any buffer: charged to stream 0. */
static uint64_t stream_nobuf(const struct c_seg *s, const struct c_stream *st)
{
	if (st->number != 0 || !s->proc)
		return 0;
	return __atomic_load_n(&s->proc->lost_nobuf[s->chan->slot], __ATOMIC_RELAXED) -
	       *s->nobuf_base;
}

static uint64_t stream_discarded(const struct c_seg *s, const struct c_stream *st)
{
	return rb_discarded(&st->rb) + stream_nobuf(s, st);
}

/*
 * LZ4: each packet is one complete LZ4 frame, so that the file is readable
 * (and `lz4 -d` works) at any time, even after a crash of the consumer.
 * Returns the frame's size in c_lz4_out.
 */
static __thread char *c_lz4_in, *c_lz4_out;
static __thread size_t c_lz4_in_size, c_lz4_out_size;

void stream_thread_fini(void)
{
	free(c_lz4_in);
	free(c_lz4_out);
	free(c_scratch);
	c_lz4_in = c_lz4_out = c_scratch = NULL;
	c_lz4_in_size = c_lz4_out_size = c_scratch_size = 0;
}

static ssize_t stream_lz4(const uint8_t *hdr, const void *data, size_t len)
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
	return LZ4F_isError(n) ? -EIO : (ssize_t)n;
}

static void stream_path(const struct c_seg *s, const struct c_stream *st, char *buf, size_t len)
{
	if (s->chan->relay)
		snprintf(buf, len, "%.255s/%.3700s/%s_%u", s->chan->relay->url, s->trace->dir,
			 s->chan->name, st->number);
	else
		snprintf(buf, len, "%s/%s_%u", s->trace->dir, s->chan->name, st->number);
}

/* Has @st a file, or a stream on the relay? */
static int stream_is_open(const struct c_stream *st)
{
	return st->fd >= 0 || st->net.state == NET_READY;
}

static int stream_open(struct c_seg *s, struct c_stream *st)
{
	char path[PROTO_PATH_MAX + 256];
	struct stat sb;
	int ret;

	if (s->chan->relay) {
		ret = net_stream_open(s, st);
		if (ret < 0 && ret != -EAGAIN) {
			stream_path(s, st, path, sizeof(path));
			write_error(s->chan, s->trace, path, -ret);
		}
		return ret;
	}
	stream_path(s, st, path, sizeof(path));
	st->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (st->fd < 0 || fstat(st->fd, &sb) < 0) {
		ret = -errno;
		if (st->fd >= 0)
			close(st->fd);
		st->fd = -1;
		write_error(s->chan, s->trace, path, -ret);
		return ret;
	}
	st->fsize = (uint64_t)sb.st_size;
	st->nlink_at = now_ns(CLOCK_MONOTONIC);
	return 0;
}

/*
 * Append one packet of @len bytes to @st's file, all of it or nothing: a
 * partial write is truncated away. A file whose link count is 0 was
 * removed (it or its directory; looked at every NLINK_NS of writing):
 * -ENOENT, and the next packet opens the file again (a new file, counted
 * from there on, as after a rotation).
 */
#define NLINK_NS	100000000u

static int stream_write(struct c_stream *st, struct iovec *iov, int niov, size_t len)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	struct stat sb;
	int ret;

	if (now - st->nlink_at >= NLINK_NS) {
		st->nlink_at = now;
		if (fstat(st->fd, &sb) < 0)
			return -errno;
		if (sb.st_nlink == 0) {
			close(st->fd);
			st->fd = -1;
			st->fd_packets = 0;
			st->disc_base = st->discarded;
			return -ENOENT;
		}
	}
	ret = writev_all(st->fd, iov, niov);
	if (ret == 0)
		st->fsize += len;
	else if (ftruncate(st->fd, (off_t)st->fsize) < 0)
		st->torn = 1;	/* cut in the middle of a packet: no more writes */
	return ret;
}

/*
 * Write one packet around @rg; @disc is the stream's discard count to
 * report in it (kept monotonic). A stream's first packet reporting discards
 * or lost packets is preceded by an empty one reporting none, numbered 0,
 * so that readers can say between which times the events were lost.
 */
static int stream_packet(struct c_seg *s, struct c_stream *st, const struct rb_range *rg,
			 uint64_t disc)
{
	struct c_relay *relay = s->chan->relay;
	char path[PROTO_PATH_MAX + 256];
	uint8_t hdr[CTF_PACKET_HDR];
	struct ctf_packet p;
	struct iovec iov[2];
	ssize_t n = 0;
	int ret;

	if (st->torn)
		return -EIO;	/* recorded when it happened */
	if (relay && !net_room(s)) {
		net_deferred++;
		return -EAGAIN;
	}
	ret = trace_ready(s);
	if (ret < 0)
		return ret;
	if (!stream_is_open(st) && (ret = stream_open(s, st)) < 0)
		return ret;
	if (disc < st->discarded)
		disc = st->discarded;
	if (st->fd_packets == 0 && (disc > st->disc_base || st->seq > 0)) {
		struct rb_range empty = *rg;
		uint64_t seq = st->seq;

		/* what was lost before the first packet, said by an empty one */
		empty.len = 0;
		empty.end_ts = empty.begin_ts;
		st->seq = 0;
		ret = stream_packet(s, st, &empty, 0);
		if (seq > st->seq)
			st->seq = seq;
		if (ret < 0)
			return ret;
	}
	p.stream_id = s->context;
	p.stream_instance_id = stream_instance_id(s, st);
	p.ts_begin = rg->begin_ts;
	p.ts_end = rg->end_ts;
	p.content_bytes = CTF_PACKET_HDR + rg->len;
	p.seq = st->seq;
	p.discarded = disc - st->disc_base;	/* a chunk counts from its start */
	p.tid = (uint32_t)rg->tid;
	ctf_packet_header(hdr, &s->trace->info, &p);
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)rg->data;
	iov[1].iov_len = rg->len;
	if (relay) {
		n = (ssize_t)p.content_bytes;
		ret = net_packet(s, st, hdr, &p, rg->data, rg->len, rg->nev);
	} else if (s->chan->compress == PROTO_COMPRESS_LZ4) {
		n = stream_lz4(hdr, rg->data, rg->len);
		iov[0].iov_base = c_lz4_out;
		iov[0].iov_len = (size_t)n;
		ret = n < 0 ? (int)n : stream_write(st, iov, 1, (size_t)n);
	} else {
		n = (ssize_t)p.content_bytes;
		ret = stream_write(st, iov, rg->len ? 2 : 1, (size_t)n);
	}
	if (ret < 0) {
		stream_path(s, st, path, sizeof(path));
		write_error(s->chan, s->trace, path, -ret);
		return ret;
	}
	st->bytes += (uint64_t)n;	/* on disk */
	st->seq++;
	st->fd_packets++;
	st->discarded = disc;
	return 0;
}

/*
 * Write out what @st holds; returns the number of ranges written (with
 * DRAIN_LAZY, 1 when complete packets were left for later). DRAIN_LAZY
 * leaves the complete packets of a writer that published one since the
 * previous look and has three quarters of its ring free: the consumer does
 * its work in the writer's pauses, or in large batches, rather than taking
 * the CPU from a busy writer every time it looks.
 */
int stream_drain(struct c_seg *s, struct c_stream *st, enum drain how)
{
	int partial = how >= DRAIN_PARTIAL, final = how == DRAIN_FINAL;
	struct rb_range rg;
	int ret, written = 0;

	if (st->broken)
		return 0;
	if (st->rb.mode == SHM_MODE_OVERWRITE && st->rb.subbuf_size > c_scratch_size) {
		char *nb = realloc(c_scratch, st->rb.subbuf_size);

		if (!nb)
			return 0;	/* nothing read: the next look tries again */
		c_scratch = nb;
		c_scratch_size = st->rb.subbuf_size;
	}
	if (how == DRAIN_LAZY) {
		uint64_t closed = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
		int busy = closed != st->last_closed;

		/* while its writer is busy and has room, leave it alone */
		st->last_closed = closed;
		if (busy && closed - st->rd.rseq < st->rb.num_subbuf / 4)
			return 1;
	}
	/* in the loop, at most a ring's worth per visit: requests wait for no
	 * writer; a flush or a final drain takes everything */
	while ((how >= DRAIN_PARTIAL || written <= (int)st->rb.num_subbuf) &&
	       (ret = rb_next(&st->rb, &st->rd, partial, &rg)) == 1) {
		if (st->rb.mode == SHM_MODE_OVERWRITE && rg.len) {
			/* copy, then check that the writer did not overwrite it meanwhile */
			memcpy(c_scratch, rg.data, rg.len);
			if (!rb_still_valid(&st->rb, &st->rd)) {
				rb_skip(&st->rb, &st->rd);
				continue;
			}
			rg.data = c_scratch;
		}
		/* packets overwritten before they were read: a gap in packet numbers */
		st->seq += st->rd.lost_packets - st->lost_seen;
		st->lost_seen = st->rd.lost_packets;
		if (rg.len) {
			int pr = stream_packet(s, st, &rg, rg.disc + stream_nobuf(s, st));

			if (pr == -EAGAIN)
				break;	/* the relay cannot take it now: it stays */
			if (pr < 0) {
				/* not written: lost, counted, a gap in packet numbers; go on */
				st->wlost += rg.nev;
				st->seq++;
			}
		}
		rb_done(&st->rb, &st->rd, &rg);
		written++;
	}
	if (ret < 0) {
		log_err("%s: stream %u has corrupt counters; no longer read", s->trace->dir,
			st->number);
		st->broken = 1;
		return written;
	}
	/* report discards that no packet carried yet */
	if (final && stream_discarded(s, st) > st->discarded &&
	    (stream_is_open(st) || st->number == 0)) {
		uint64_t now = clock_now(s->clock);

		rg.data = NULL;
		rg.len = 0;
		rg.nev = 0;
		rg.begin_ts = st->rd.last_end > now ? st->rd.last_end : now;
		rg.end_ts = rg.begin_ts;
		rg.tid = 0;
		if (stream_packet(s, st, &rg, stream_discarded(s, st)) == 0)
			st->rd.last_end = rg.end_ts;
	}
	/* a buffer whose thread is gone goes back to the pool once drained */
	if (__atomic_load_n(&st->rb.hdr->state, __ATOMIC_ACQUIRE) == SHM_SLOT_RELEASED &&
	    __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE) == st->rd.rseq) {
		uint32_t expect = SHM_SLOT_RELEASED;

		__atomic_compare_exchange_n(&st->rb.hdr->state, &expect, SHM_SLOT_FREE, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	return written;
}

int seg_drain(struct c_seg *s, enum drain how)
{
	int written = 0;

	for (uint32_t i = 0; i < s->nslots; i++)
		written += stream_drain(s, &s->streams[i], how);
	return written;
}

/*
 * Everything committed in @s's buffers, out (DRAIN_FINAL); streamed to a
 * relay, waiting (bounded: net_settle) for it to take what is left.
 */
static void seg_drain_out(struct c_seg *s)
{
	struct c_relay *r = s->chan->relay;

	for (;;) {
		net_deferred = 0;
		seg_drain(s, DRAIN_FINAL);
		if (!r || !net_deferred || r->err)
			return;
		net_settle(r, 0);
	}
}

void chan_flush(uint64_t chan_id)
{
	struct c_chan *ch = chan_find(chan_id);
	struct cds_lfht_iter it;
	struct c_app *a;

	if (!ch)
		return;
	if (!ch->relay) {
		/* files: every worker at once */
		wk_round(DRAIN_FINAL, ch, 1, now_ns(CLOCK_MONOTONIC));
		return;
	}
	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next)
			if (s->chan == ch)
				seg_drain_out(s);
	/* the relay's word that all of it is stored */
	net_settle(ch->relay, 1);
}

/* Is a complete packet waiting in this segment? */
int seg_pending(const struct c_seg *s)
{
	for (uint32_t i = 0; i < s->nslots; i++) {
		const struct c_stream *st = &s->streams[i];

		if (!st->broken &&
		    __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE) != st->rd.rseq)
			return 1;
	}
	return 0;
}

static void stats_add(struct msg_c_stats *st, const struct c_seg *s, const struct c_stream *x)
{
	st->events += x->rd.events - x->wlost;
	st->wlost += x->wlost;
	st->overwritten += __atomic_load_n(&x->rb.hdr->overrun, __ATOMIC_RELAXED);
	st->discarded += rb_discarded(&x->rb);
	st->bytes += x->bytes;
	st->streams += stream_is_open(x);
	st->unconfirmed += net_unconfirmed(s, x);
}

void seg_free(struct c_seg *s)
{
	s->chan->gone.buffers += s->nslots;
	for (uint32_t i = 0; i < s->nslots; i++) {
		stats_add(&s->chan->gone, s, &s->streams[i]);
		wk_stream_del(&s->streams[i]);
	}
	for (uint32_t i = 0; i < s->nslots; i++) {
		struct c_stream *st = &s->streams[i];
		char path[PROTO_PATH_MAX + 256];
		int err = 0;

		if (s->chan->relay)
			net_stream_close(s, st);
		if (st->fd < 0)
			continue;
		/* the last chance to hear of a write the disk failed after all */
		if (fsync(st->fd) < 0 && errno != EINVAL)
			err = errno;
		if (close(st->fd) < 0 && !err && errno != EINTR)
			err = errno;
		if (err) {
			stream_path(s, st, path, sizeof(path));
			write_error(s->chan, s->trace, path, err);
		}
	}
	munmap(s->base, s->size);
	free(s->streams);
	free(s);
}

static void trace_free(struct c_trace *t)
{
	char path[PROTO_PATH_MAX + 128];
	int err = 0;

	if (t->chan->relay) {
		net_trace_close(t);
		if (t->meta_fd >= 0)
			close(t->meta_fd);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return;
	}
	/* opened again to hear of a write the disk failed after all */
	if (!t->rotated && meta_append_begin(t) >= 0) {
		if (fsync(t->meta_fd) < 0 && errno != EINVAL)
			err = errno;
		if (close(t->meta_fd) < 0 && !err && errno != EINTR)
			err = errno;
	}
	if (err) {
		meta_path(t, path, sizeof(path));
		write_error(t->chan, t, path, err);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void capp_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct c_app, rcu));
}

void capp_free(struct c_app *a)
{
	struct cds_lfht_iter it;
	struct c_chan *ch;

	cds_lfht_del(c_app_ht, &a->node);
	if (!a->asleep)
		cds_list_del(&a->awake);
	while (a->segs) {
		struct c_seg *s = a->segs;

		a->segs = s->next;
		seg_drain_out(s);
		seg_free(s);
	}
	while (a->traces) {
		struct c_trace *t = a->traces;

		a->traces = t->next;
		trace_free(t);
	}
	chan_for_each(&it, ch)
		ch->gone.nobuf += capp_nobuf(a, ch->slot);
	if (a->proc)
		munmap(a->proc, SHM_PROC_SIZE);
	a->proc = NULL;
	if (a->efd >= 0)
		close(a->efd);
	free(a->ev);
	urcu_memb_call_rcu(&a->rcu, capp_free_rcu);
}

/* Final drain of a channel being destroyed, then forget it. */
void chan_drop(struct c_chan *ch)
{
	struct cds_lfht_iter it;
	struct c_app *a;

	capp_for_each(&it, a) {
		struct c_seg **pp = &a->segs;
		struct c_trace **tp = &a->traces;

		while (*pp) {
			struct c_seg *s = *pp;

			if (s->chan != ch) {
				pp = &s->next;
				continue;
			}
			*pp = s->next;
			seg_drain_out(s);
			seg_free(s);
		}
		while (*tp) {
			struct c_trace *t = *tp;
			struct c_seg *user = a->segs;

			if (t->chan != ch) {
				tp = &t->next;
				continue;
			}
			/* another channel of the session still writes into it */
			while (user && user->trace != t)
				user = user->next;
			if (user) {
				t->chan = user->chan;
				tp = &t->next;
				continue;
			}
			*tp = t->next;
			trace_free(t);
		}
	}
}

void stats_chan(uint64_t chan_id, struct msg_c_stats *st)
{
	const struct c_chan *ch = chan_find(chan_id);
	struct cds_lfht_iter it;
	struct c_app *a;

	memset(st, 0, sizeof(*st));
	if (!ch)
		return;
	*st = ch->gone;
	st->werr = ch->werr;
	st->werr_traces = ch->werr_traces;
	memcpy(st->werr_path, ch->werr_path, sizeof(st->werr_path));
	capp_for_each(&it, a)
		st->nobuf += capp_nobuf(a, ch->slot);
	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next) {
			if (s->chan != ch)
				continue;
			st->buffers += s->nslots;
			for (uint32_t i = 0; i < s->nslots; i++)
				stats_add(st, s, &s->streams[i]);
		}
	/* streaming stopped: an error of the channel's output, said once */
	if (ch->relay && ch->relay->err && !st->werr) {
		st->werr = ch->relay->err;
		snprintf(st->werr_path, sizeof(st->werr_path), "%s (%s)", ch->relay->url,
			 ch->relay->why);
	}
}
