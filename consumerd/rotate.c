// SPDX-License-Identifier: MIT
/*
 * rotate.c - tracectl rotate (by hand, every SIZE written or every TIME):
 * the traces of a session's output into a chunk; tracectl clear: what the
 * session recorded so far, discarded, and tracing goes on.
 *
 * Everything committed in the channels writing to the output, open packets
 * too, goes into the current files, which are closed; the process
 * directories move into the chunk (renamed: each chunk is a set of
 * complete traces, of processes alive or gone), and the next packets
 * start new traces in the output (trace.c), their streams numbered from 0
 * again, their discard counts from the rotation on.
 *
 * A clear closes the current chunk the same way, then removes it: the
 * trace directories of the output (those with a progress file: the
 * consumer's, of processes alive or gone; not the chunks of earlier
 * rotations, nor anything else) are moved into OUTPUT/.shmtrace-clear
 * and emptied there, each counted first from its progress records (the
 * events each stream wrote into it: progress.c's ev_base). An event
 * committed before the drain is in a removed trace, counted; one
 * committed after it is in the new trace: none is in neither. A crash in
 * the middle leaves .shmtrace-clear, which the next clear empties. A
 * memory-only channel has no trace on disk: its clear marks every ring
 * (hold.c), those of processes gone but kept too.
 *
 * Main thread only, between rounds: no worker holds a stream file or
 * prepares a trace meanwhile, so stream and trace state change here
 * without a lock. Nothing of the shared memory is written here but
 * through the drain (`consumed`, drain.c) and a clear's marks (hold.c).
 *
 * A crash in the middle of a rotation leaves some process directories in
 * the chunk and others in the output, each a complete trace; each rename
 * is atomic.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "drain.h"
#include "hold.h"
#include "support/log.h"
#include "progress.h"
#include "rotate.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"

/*
 * The current chunk of @output closed: everything committed in its
 * channels written out into the current files, which are closed; the
 * next packets start new traces.
 */
static void chunk_close(const char *output)
{
	struct cds_lfht_iter it;
	struct c_app *a;

	capp_for_each(&it, a) {
		for (struct c_seg *s = a->segs; s; s = s->next) {
			if (strcmp(s->chan->output, output))
				continue;
			drain_seg(s, DRAIN_PARTIAL);
			for (uint32_t i = 0; i < s->nslots; i++) {
				struct c_stream *st = &s->streams[i];

				if (st->fd >= 0)
					close(st->fd);
				st->fd = -1;
				st->rec = -1;	/* the new trace's progress file has its own */
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
}

/* Directory @name in directory @out, made with @mode when missing, opened
 * without following a link: its descriptor, or -errno. */
static int subdir_open(int out, const char *name, mode_t mode)
{
	int fd;

	if (mkdirat(out, name, mode) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int rotate_output(struct c_chan *ch, const char *chunk)
{
	const char *output = ch->output, *name;
	size_t olen = strlen(output);
	int out, cfd, ret = 0;
	struct dirent *d;
	DIR *dir;

	/* the chunk is a directory of the output: made there, no link followed */
	if (strncmp(chunk, output, olen) || chunk[olen] != '/' || strchr(chunk + olen + 1, '/'))
		return -EINVAL;
	name = chunk + olen + 1;
	out = chan_output(ch, 0750);
	if (out < 0)
		return out;
	cfd = subdir_open(out, name, 0750);
	if (cfd < 0) {
		close(out);
		return cfd;
	}
	chunk_close(output);
	/* every trace of the chunk, of processes alive or gone, moves into it */
	dir = fdopendir(out);
	while (dir && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' || !strncmp(d->d_name, "chunk-", 6))
			continue;
		if (renameat(out, d->d_name, cfd, d->d_name) < 0) {
			ret = -errno;
			log_err("rotation: cannot move %s/%s: %s", output, d->d_name,
				strerror(errno));
		}
	}
	if (dir)
		closedir(dir);
	else
		close(out);
	close(cfd);
	return ret;
}

#define CLEAR_DIR	".shmtrace-clear"

/*
 * Every trace directory in @cfd (the clear's) removed: its files, then
 * itself; nothing else (a directory inside one stays, and so does it).
 * 0, or the -errno of the last thing that failed (logged).
 */
static int clear_empty(int cfd, const char *where)
{
	int fd = openat(cfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *d;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((d = readdir(dir)) != NULL) {
		int tfd;
		DIR *tdir;
		struct dirent *f;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		tfd = openat(cfd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		tdir = tfd >= 0 ? fdopendir(tfd) : NULL;
		if (!tdir) {
			if (tfd >= 0)
				close(tfd);
			continue;
		}
		while ((f = readdir(tdir)) != NULL)
			if (f->d_type != DT_DIR)
				unlinkat(tfd, f->d_name, 0);
		closedir(tdir);
		if (unlinkat(cfd, d->d_name, AT_REMOVEDIR) < 0) {
			ret = -errno;
			log_err("clear: cannot remove %s/%s: %s", where, d->d_name, strerror(errno));
		}
	}
	closedir(dir);
	return ret;
}

/* The reply's entry of channel @id (added when new, at most 8); NULL: none. */
static uint64_t *clear_count(struct msg_c_clear_reply *rep, uint64_t id)
{
	for (uint32_t i = 0; i < rep->nchans; i++)
		if (rep->chan[i].chan_id == id)
			return &rep->chan[i].events;
	if (rep->nchans == ARRAY_SIZE(rep->chan))
		return NULL;
	rep->chan[rep->nchans].chan_id = id;
	return &rep->chan[rep->nchans++].events;
}

/* A memory-only session's rings marked: what they hold now is discarded. */
static void clear_rings(const char *output, struct msg_c_clear_reply *rep)
{
	struct cds_lfht_iter it;
	struct c_app *a;

	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next) {
			uint64_t *n = strcmp(s->chan->output, output) ? NULL :
				      clear_count(rep, s->chan->id);

			for (uint32_t i = 0; n && i < s->nslots; i++)
				*n += hold_clear(&s->streams[i]);
		}
}

int clear_output(struct c_chan *ch, struct msg_c_clear_reply *rep)
{
	char where[PROTO_PATH_MAX + 32];
	uint64_t ids[ARRAY_SIZE(rep->chan)];
	struct cds_lfht_iter it;
	struct c_chan *c;
	struct dirent *d;
	int out, cfd, ret = 0;
	unsigned int n = 0;
	DIR *dir;

	memset(rep, 0, sizeof(*rep));
	chan_for_each(&it, c)
		if (!strcmp(c->output, ch->output) && clear_count(rep, c->id))
			ids[n++] = c->id;
	if (ch->relay)
		return -EOPNOTSUPP;
	if (ch->memory) {
		clear_rings(ch->output, rep);
		return 0;
	}
	chunk_close(ch->output);
	out = chan_output(ch, 0);
	if (out == -ENOENT)
		return 0;	/* nothing written yet */
	if (out < 0)
		return out;
	snprintf(where, sizeof(where), "%s/%s", ch->output, CLEAR_DIR);
	cfd = subdir_open(out, CLEAR_DIR, 0700);
	if (cfd < 0) {
		close(out);
		return cfd;
	}
	clear_empty(cfd, where);	/* what a clear cut by a crash left */
	dir = fdopendir(out);
	while (dir && (d = readdir(dir)) != NULL) {
		uint64_t events[ARRAY_SIZE(rep->chan)] = { 0 };
		int tfd;

		if (d->d_name[0] == '.' || !strncmp(d->d_name, "chunk-", 6))
			continue;
		/* a trace of ours: its progress file says so, and what it holds */
		tfd = openat(out, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (tfd < 0)
			continue;
		if (prog_count(tfd, ids, n, events) < 0) {
			close(tfd);
			continue;
		}
		close(tfd);
		if (renameat(out, d->d_name, cfd, d->d_name) < 0) {
			ret = -errno;
			log_err("clear: cannot move %s/%s: %s", ch->output, d->d_name,
				strerror(errno));
			continue;
		}
		for (unsigned int i = 0; i < n; i++)
			*clear_count(rep, ids[i]) += events[i];
	}
	if (dir)
		closedir(dir);
	else
		close(out);
	clear_empty(cfd, where);
	close(cfd);
	/* the clear's directory itself */
	out = chan_output(ch, 0);
	if (out >= 0) {
		unlinkat(out, CLEAR_DIR, AT_REMOVEDIR);
		close(out);
	}
	return ret;
}
