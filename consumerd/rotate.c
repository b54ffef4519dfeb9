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
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "drain.h"
#include "log.h"
#include "rotate.h"
#include "seg.h"
#include "trace.h"
#include "util.h"

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
