// SPDX-License-Identifier: MIT
/*
 * rotate.c - tracectl rotate (by hand, every SIZE written or every TIME):
 * the traces of a session's output into a chunk.
 *
 * Everything committed in the channels writing to the output, open packets
 * too, goes into the current files, which are closed; the process
 * directories move into the chunk (renamed: each chunk is a set of
 * complete traces, of processes alive or gone), and the next packets
 * start new traces in the output (trace.c), their streams numbered from 0
 * again, their discard counts from the rotation on.
 *
 * Main thread only, between rounds: no worker holds a stream file or
 * prepares a trace meanwhile, so stream and trace state change here
 * without a lock. Nothing of the shared memory is written here but
 * through the drain (`consumed`, drain.c).
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
#include "support/log.h"
#include "rotate.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"

int rotate_output(struct c_chan *ch, const char *chunk)
{
	const char *output = ch->output, *name;
	size_t olen = strlen(output);
	struct cds_lfht_iter it;
	int out, cfd, ret = 0;
	struct c_app *a;
	struct dirent *d;
	DIR *dir;

	/* the chunk is a directory of the output: made there, no link followed */
	if (strncmp(chunk, output, olen) || chunk[olen] != '/' || strchr(chunk + olen + 1, '/'))
		return -EINVAL;
	name = chunk + olen + 1;
	out = chan_output(ch, 0750);
	if (out < 0)
		return out;
	if (mkdirat(out, name, 0750) < 0 && errno != EEXIST) {
		ret = -errno;
		close(out);
		return ret;
	}
	cfd = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0) {
		ret = -errno;
		close(out);
		return ret;
	}
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
