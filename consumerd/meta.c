// SPDX-License-Identifier: MIT
/*
 * meta.c - the metadata of the consumer's traces.
 *
 * The metadata file is append-only: the preamble (with stream class 0)
 * and every event known when the trace starts, then each event learnt
 * later and each stream class a new segment needs, appended before any
 * packet that uses them can be written (the session daemon enables
 * events only after the consumer acknowledged their description, and a
 * packet is written only once its trace is ready, trace.c). So at any
 * time, and after a crash of the consumer, the metadata on disk describes
 * every packet on disk.
 *
 * An append that fails is undone (the file truncated back to its size
 * before), so the metadata holds whole descriptions only; the events are
 * then appended again before the trace's next packet. A torn append that
 * cannot be undone marks the trace unusable (meta_bad): no packet of it is
 * written until it starts again.
 *
 * A file trace holds no descriptor between appends (they are rare: a new
 * event, a new stream class), so that a traced process costs the
 * consumer a descriptor per stream and its wake socket only. A streamed
 * trace keeps its memfd, which relaydata.c sends to the relay as it grows.
 *
 * Who writes: a trace's metadata fields (meta_fd, meta_bad, nev_written,
 * classes) and file are written under the trace's lock by the thread that
 * prepares the trace for a packet (trace.c), or by the main thread between
 * rounds (new events, trace start and end). The process's event
 * descriptions are the main thread's, read here during rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "meta.h"
#include "progress.h"
#include "relaydata.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"

/* Describe events [@from, @to) of @a (those it knows) in stream class @ctx, to @fd. */
static int meta_write_events(int fd, const struct c_app *a, uint32_t ctx, uint32_t from,
			     uint32_t to)
{
	char buf[16384];

	if (to > a->nev)
		to = a->nev;

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

/* The size of metadata file @fd, 0 when unknown. */
uint64_t meta_size_of(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);

	return size > 0 ? (uint64_t)size : 0;
}

int meta_write(int fd, const struct c_app *a, const struct ctf_trace_info *info,
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

int meta_init(struct c_trace *t)
{
	struct c_app *a = t->app;
	uint32_t classes = 1;		/* stream class 0 is in the preamble */
	int ret;

	/* the classes of the segments already writing into this trace */
	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (s->trace == t)
			classes |= 1u << s->context;
	ret = meta_write(t->meta_fd, a, &t->info, classes);
	if (ret < 0)
		return ret;
	t->nev_written = a->nev;
	t->meta_size = meta_size_of(t->meta_fd);
	t->classes = classes;
	t->meta_bad = 0;
	return 0;
}

void meta_path(const struct c_trace *t, char *buf, size_t len)
{
	if (t->chan->relay)
		snprintf(buf, len, "%.255s/%.3700s/metadata", t->chan->relay->url, t->dir);
	else
		snprintf(buf, len, "%s/metadata", t->dir);
}

/* Open @t's metadata for an append: the size before it, or -errno. */
static off_t meta_append_begin(struct c_trace *t)
{
	if (t->meta_fd < 0) {
		t->meta_fd = openat(t->dir_fd, "metadata", O_WRONLY | O_APPEND | O_NOFOLLOW |
				    O_CLOEXEC);
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
	if (!err)
		t->meta_size = meta_size_of(t->meta_fd);
	if (!t->chan->relay && t->meta_fd >= 0) {
		close(t->meta_fd);
		t->meta_fd = -1;
	}
}

int meta_append_events(struct c_trace *t)
{
	struct c_app *a = t->app;
	off_t size = meta_append_begin(t);
	int ret = size < 0 ? (int)size : 0;

	for (uint32_t ctx = 0; ret == 0 && ctx <= SHMTRACE__CTX_ALL; ctx++)
		if (t->classes & (1u << ctx))
			ret = meta_write_events(t->meta_fd, a, ctx, t->nev_written, a->nev);
	if (size >= 0)
		meta_append_end(t, size, ret);
	if (ret < 0)
		return ret;
	if (a->nev > t->nev_written)
		t->nev_written = a->nev;
	/* what a consumer that continues the trace keeps of the file */
	return prog_save_header(t);
}

int meta_add_class(struct c_trace *t, uint32_t ctx)
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
	/* before any packet of the class: a consumer that continues the
	 * trace declares it again (progress.c) */
	return prog_save_header(t);
}

int meta_sync(struct c_trace *t)
{
	int err = 0;

	/* opened again: fsync reports what the disk failed after our writes */
	if (meta_append_begin(t) < 0) {
		if (t->meta_fd >= 0)
			close(t->meta_fd);
		t->meta_fd = -1;
		return 0;	/* (not there: nothing more to hear of) */
	}
	if (fsync(t->meta_fd) < 0 && errno != EINVAL)
		err = errno;
	if (close(t->meta_fd) < 0 && !err && errno != EINTR)
		err = errno;
	t->meta_fd = -1;
	return -err;
}
