// SPDX-License-Identifier: MIT
/*
 * trace.c - the consumer's CTF traces: one per process and session
 * output, shared by the session's channels.
 *
 * A trace is the directory `<output>/<procname>-<pid>` (`-N` when that
 * exists and is another process image's), or `<base>/<procname>-<pid>` on
 * a relay (`-N` after its first start), with a new uuid at each start and
 * its metadata (meta.c); each buffer slot of its segments is one stream in
 * it (drain.c). A directory left by a consumer before us for the same
 * process image (pid, start time, instance) is continued, with its uuid
 * and its streams' files (progress.c). Directories and files are made
 * under the output's descriptor, following no link (chan.c). It starts at
 * its process's first segment, again at the next packet after a rotation
 * (rotate.c), and, when it could not be made (the error recorded,
 * werr.c, nothing of it left behind), at its next packet. The trace of a
 * memory-only channel is never made on disk: it keeps what a snapshot
 * needs (the process, its clock), and snapshot.c writes traces of their
 * own.
 *
 * Who writes: a trace is prepared for a packet (started, its metadata
 * brought up to date) by whichever thread drains the packet, under the
 * trace's lock, since workers may drain streams of the same trace at once.
 * Everything else (making and freeing a trace, the list of a process's
 * traces, `chan` handed on when a channel goes, `rotated` set by a
 * rotation, events appended when learnt) is the main thread's, between
 * rounds, when no worker runs.
 *
 * After a crash of the consumer, a trace on disk holds whole packets and
 * the metadata that describes them, but for the packet or description
 * being appended when it crashed; the next consumer cuts the first back
 * and makes the metadata again (progress.c), and goes on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "support/log.h"
#include "meta.h"
#include "relaydata.h"
#include "progress.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "werr.h"

/* A new uuid, and the whole metadata of @t written to its meta_fd. */
static int trace_begin(struct c_trace *t)
{
	int ret;

	if (t->chan->relay)
		uuid_make(t->info.uuid, t->info.uuid_str);
	ret = meta_init(t);
	if (ret < 0)
		return ret;
	t->rotated = 0;
	t->starts++;
	log_dbg("trace %s", t->dir);
	return 0;
}

/*
 * A trace streamed to a relay: the path BASE/PROC-PID there (-N after the
 * first start), the metadata in a memfd, announced (relaydata.c).
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
	ret = rdata_trace_start(t);
	if (ret == 0)
		ret = trace_begin(t);
	if (ret < 0) {
		meta_path(t, path, sizeof(path));
		werr_record(ch, t, path, -ret);
		if (t->meta_fd >= 0)
			close(t->meta_fd);
		t->meta_fd = -1;
		rdata_trace_close(t);
	}
	return ret;
}

/*
 * @ch's output directory, made the first time (under what existed of it
 * when its session was created, no link followed: chan.c) and then held
 * open; -errno.
 */
static int trace_output(struct c_chan *ch, int *made)
{
	int fd;

	*made = 0;
	if (ch->out_fd >= 0)
		return ch->out_fd;
	fd = chan_output(ch, 0);
	if (fd < 0) {
		*made = 1;
		fd = chan_output(ch, 0750);
	}
	if (fd < 0)
		return fd;
	ch->out_fd = fd;
	return fd;
}

/* @t's files closed, its directory let go (a rotation, a new start). */
static void trace_close_dir(struct c_trace *t)
{
	prog_close(t);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	t->dir_fd = -1;
}

/*
 * The metadata of an adopted trace whose header says how much of it was
 * whole (progress.c): kept to that size, a description a crash cut after
 * it removed; the events the process tells beyond those it describes are
 * appended before the next packet (trace_ready_locked()). 0, or -errno
 * when the file is not there whole.
 */
static int trace_meta_keep(struct c_trace *t)
{
	struct stat sb;
	int fd, ret = -EBADMSG;

	fd = openat(t->dir_fd, "metadata", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= t->meta_size)
		ret = (uint64_t)sb.st_size == t->meta_size ||
		      ftruncate(fd, (off_t)t->meta_size) == 0 ? 0 : -errno;
	close(fd);
	if (ret == 0)
		t->meta_bad = 0;
	return ret;
}

/*
 * The metadata of an adopted trace: kept when its header knows its size
 * (trace_meta_keep()), else made again, whole, from its header (uuid,
 * clock, classes) and the events known: a temporary file renamed over the
 * old one, which a crash may have cut in the middle of a description.
 */
static int trace_meta_again(struct c_trace *t)
{
	static const char tmp[] = ".metadata.new";
	int fd, ret;

	if (t->meta_size && trace_meta_keep(t) == 0)
		return 0;

	for (const struct c_seg *s = t->app->segs; s; s = s->next)
		if (s->trace == t)
			t->classes |= 1u << s->context;
	fd = openat(t->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	ret = meta_write(fd, t->app, &t->info, t->classes);
	t->meta_size = ret == 0 ? meta_size_of(fd) : 0;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && renameat(t->dir_fd, tmp, t->dir_fd, "metadata") < 0)
		ret = -errno;
	if (ret < 0) {
		unlinkat(t->dir_fd, tmp, 0);
		return ret;
	}
	t->nev_written = t->app->nev;
	t->meta_bad = 0;
	return prog_save_header(t);
}

/*
 * Trace directory @dirfd, whose progress file is missing or unreadable:
 * did a consumer die while making it, before any packet? Then it holds
 * at most its metadata and a progress file cut short, which are removed:
 * 1, the directory is free for a new trace. 0: it holds more, not ours.
 */
static int trace_leftover(int dirfd)
{
	static const char *const made[] = { "metadata", PROG_FILE, ".metadata.new" };
	struct dirent *de;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ours = 1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (ours && (de = readdir(d)) != NULL) {
		int known = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");

		for (size_t i = 0; i < ARRAY_SIZE(made) && !known; i++)
			known = !strcmp(de->d_name, made[i]);
		ours = known;
	}
	closedir(d);
	for (size_t i = 0; ours && i < ARRAY_SIZE(made); i++)
		unlinkat(dirfd, made[i], 0);
	return ours;
}

/*
 * Directory @name of the output, which exists: is it @t's process image,
 * left by a consumer that stopped (crashed, killed)? Then @t continues it
 * (progress.c): 1. Left by a consumer that died while making it, before
 * any packet: emptied, 2 (a new trace is made in it). 0: not ours. Only at
 * a trace's first start: after a rotation the output holds no directory
 * of this trace.
 */
static int trace_adopt(struct c_trace *t, int out_fd, const char *name)
{
	int ret;

	if (t->adopt_tried)
		return 0;
	t->dir_fd = openat(out_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dir_fd < 0)
		return 0;
	ret = prog_adopt(t, t->dir_fd);
	if (ret == 0)
		ret = trace_meta_again(t);
	if ((ret == -ENOENT || ret == -EBADMSG) && trace_leftover(t->dir_fd)) {
		trace_close_dir(t);
		log_info("%s: made by a consumer that stopped before its first packet: "
			 "made again", t->dir);
		return 2;
	}
	if (ret < 0) {
		if (ret != -ESRCH)
			log_err("%s: its progress cannot be taken over (%s): a new trace beside it",
				t->dir, strerror(-ret));
		trace_close_dir(t);
		return 0;
	}
	t->rotated = 0;
	t->starts++;
	log_info("%s: trace continued", t->dir);
	return 1;
}

/*
 * (Re)start trace @t of process @a: the directory named after the process
 * under its session's output, continued when a consumer before us left it
 * (trace_adopt()), else a fresh one with a new trace uuid, its progress
 * file and the full metadata. Called for a new trace, after a rotation,
 * and at the next packet after a failure (then nothing was left behind,
 * and the error was recorded for channel @ch).
 */
static int trace_start(struct c_app *a, struct c_trace *t, struct c_chan *ch)
{
	char name[PROTO_PROCNAME + 32];
	int out_fd, made_out, ret, fd, adopted;

	t->rotated = 1;
	if (t->chan->relay)
		return trace_start_net(a, t, ch);
	trace_close_dir(t);
	out_fd = trace_output(t->chan, &made_out);
	if (out_fd < 0) {
		werr_record(ch, t, t->chan->output, -out_fd);
		return out_fd;
	}
	for (int i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(name, sizeof(name), "%s-%u", a->procname, a->pid);
		else
			snprintf(name, sizeof(name), "%s-%u-%d", a->procname, a->pid, i);
		snprintf(t->dir, sizeof(t->dir), "%s/%s", t->chan->output, name);
		ret = mkdirat(out_fd, name, 0750) == 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
		adopted = trace_adopt(t, out_fd, name);
		if (adopted == 1)
			return 0;
		if (adopted == 2) {
			ret = 0;
			break;
		}
	}
	if (ret < 0) {
		werr_record(ch, t, t->dir, -ret);
		goto undo_out;
	}
	t->dir_fd = openat(out_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dir_fd < 0) {
		ret = -errno;
		werr_record(ch, t, t->dir, -ret);
		goto undo_dir;
	}
	uuid_make(t->info.uuid, t->info.uuid_str);
	t->classes = 1;
	ret = prog_start(t, t->dir_fd);
	if (ret < 0) {
		werr_record(ch, t, t->dir, -ret);
		goto undo_fd;
	}
	fd = openat(t->dir_fd, "metadata", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND |
		    O_NOFOLLOW, 0640);
	if (fd < 0) {
		ret = -errno;
		werr_record(ch, t, t->dir, -ret);
		goto undo_prog;
	}
	t->meta_fd = fd;
	ret = trace_begin(t);
	close(t->meta_fd);
	t->meta_fd = -1;
	if (ret == 0)
		ret = prog_save_header(t);	/* the classes meta_init() declared */
	if (ret < 0) {
		werr_record(ch, t, t->dir, -ret);
		unlinkat(t->dir_fd, "metadata", 0);
		goto undo_prog;
	}
	return 0;
undo_prog:
	prog_close(t);
	unlinkat(t->dir_fd, PROG_FILE, 0);
undo_fd:
	close(t->dir_fd);
	t->dir_fd = -1;
undo_dir:
	unlinkat(out_fd, name, AT_REMOVEDIR);
undo_out:
	if (made_out) {
		/* only when empty: other traces may have come meanwhile */
		close(t->chan->out_fd);
		t->chan->out_fd = -1;
		rmdir(t->chan->output);
	}
	return ret;
}

/* trace_ready(), under the trace's lock: workers draining its other streams wait. */
static int trace_ready_locked(struct c_seg *s)
{
	struct c_trace *t = s->trace;
	char path[PROTO_PATH_MAX + 128];
	int ret;

	if (t->rotated && (ret = trace_start(t->app, t, s->chan)) < 0)
		return ret;
	if (t->meta_bad)
		return -EIO;	/* recorded when it happened */
	ret = t->nev_written < t->app->nev ? meta_append_events(t) : 0;
	if (ret == 0)
		ret = meta_add_class(t, s->context);
	if (ret == 0 && s->chan->relay)
		ret = rdata_trace_ready(t);
	if (ret < 0 && ret != -EAGAIN) {
		meta_path(t, path, sizeof(path));
		werr_record(s->chan, t, path, -ret);
	}
	return ret;
}

int trace_ready(struct c_seg *s)
{
	int ret;

	pthread_mutex_lock(&s->trace->lock);
	ret = trace_ready_locked(s);
	pthread_mutex_unlock(&s->trace->lock);
	return ret;
}

/* @s made fit for a TSDL string: no quote, backslash or control character */
static void tsdl_safe(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 32)
			*s = '_';
}

/* What the trace's env says of its session: its name and when it was created. */
static void trace_session_env(struct ctf_trace_info *info, const struct c_chan *ch)
{
	time_t when = (time_t)ch->created_s;
	struct tm tm;

	snprintf(info->trace_name, sizeof(info->trace_name), "%s", ch->session);
	tsdl_safe(info->trace_name);
	info->created[0] = 0;
	if (ch->created_s > 0 && localtime_r(&when, &tm))
		strftime(info->created, sizeof(info->created), "%Y%m%dT%H%M%S%z", &tm);
}

struct c_trace *trace_get(struct c_app *a, struct c_chan *ch)
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
	t->dir_fd = -1;
	t->prog_fd = -1;
	if (gethostname(t->info.hostname, sizeof(t->info.hostname) - 1) < 0)
		strcpy(t->info.hostname, "localhost");
	tsdl_safe(t->info.hostname);
	trace_session_env(&t->info, ch);
	memcpy(t->info.procname, a->procname, sizeof(t->info.procname));
	tsdl_safe(t->info.procname);
	t->info.pid = a->pid;
	clock_describe(a->clock, &t->info);
	/* when it cannot be made now (recorded), its next packet tries again,
	 * then always as a new trace: its streams began without records; a
	 * memory-only channel's is never made (only snapshots are written) */
	if (ch->memory)
		t->rotated = 1;
	else
		trace_start(a, t, ch);
	t->adopt_tried = 1;
	t->next = a->traces;
	a->traces = t;
	return t;
}

void trace_free(struct c_trace *t)
{
	char path[PROTO_PATH_MAX + 128];
	int ret;

	if (t->chan->relay) {
		rdata_trace_close(t);
		if (t->meta_fd >= 0)
			close(t->meta_fd);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return;
	}
	if (!t->rotated && (ret = meta_sync(t)) < 0) {
		meta_path(t, path, sizeof(path));
		werr_record(t->chan, t, path, -ret);
	}
	trace_close_dir(t);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
