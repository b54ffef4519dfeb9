// SPDX-License-Identifier: MIT
/*
 * stats.c - a channel's statistics, for stop and status: events written,
 * lost to write errors, overwritten, discarded, lost without a buffer,
 * bytes, buffers and streams, events a relay did not confirm, and the
 * channel's first write error. So events emitted = written + discarded
 * (+ overwritten, + lost without a buffer) + lost to write errors. For a
 * memory-only channel, what its buffers hold now besides (hold.c): their
 * resident memory, the events past the last clear and the window they
 * cover, and the processes gone whose buffers are kept (app.c).
 *
 * Main thread only, between rounds: the stream counters it reads are
 * written by the draining threads during rounds, which the end of a
 * round orders before (worker.c). A request for them first drains every
 * complete packet (consumerd.c), so they count every packet completed
 * before the request.
 *
 * The counters of the slots (overrun, discarded, lost_nested) and of the
 * process page (lost_nobuf) are written by the processes and read
 * relaxed: they are counts, with nothing published after them. The counts
 * of streams already closed are kept in their channel (c_chan.gone).
 *
 * A crash loses nothing of them: a new consumer counts the traces already
 * in the output from their progress records (progress.c), and continues
 * the live streams' counts from theirs. The processes' counters are
 * believed only as far as they can move (count.c).
 */
#include <stdio.h>
#include <string.h>
#include "app.h"
#include "drain.h"
#include "hold.h"
#include "trace.h"
#include "chan.h"
#include "relaydata.h"
#include "seg.h"
#include "stats.h"

static void stats_add(struct msg_c_stats *st, const struct c_seg *s, struct c_stream *x)
{
	drain_counts(s, x);
	st->events += x->rd.events - x->wlost;
	st->wlost += x->wlost;
	st->overwritten += x->over.val;
	st->discarded += x->disc.val;
	st->bytes += x->bytes;
	st->damaged += x->dlost;
	if (x->broken && !st->damaged_streams++)
		st->damaged_pid = s->trace->app->pid;
	st->streams += seg_stream_is_open(x);
	st->unconfirmed += rdata_unconfirmed(s, x);
}

void stats_seg_gone(const struct c_seg *s)
{
	s->chan->gone.buffers += s->nslots;
	for (uint32_t i = 0; i < s->nslots; i++)
		stats_add(&s->chan->gone, s, &s->streams[i]);
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
	capp_for_each(&it, a) {
		int in = 0;

		for (struct c_seg *s = a->segs; s; s = s->next) {
			if (s->chan != ch)
				continue;
			in = 1;
			st->buffers += s->nslots;
			for (uint32_t i = 0; i < s->nslots; i++)
				stats_add(st, s, &s->streams[i]);
			if (ch->memory)
				hold_stats(s, st);
		}
		st->kept += in && capp_is_gone(a);
		/* a process caught writing counters no program can make */
		if (in && __atomic_load_n(&a->lies, __ATOMIC_RELAXED) && !st->liars++)
			st->liar_pid = a->pid;
	}
	/* streaming stopped: an error of the channel's output, said once */
	if (ch->relay && ch->relay->err && !st->werr) {
		st->werr = ch->relay->err;
		snprintf(st->werr_path, sizeof(st->werr_path), "%s (%s)", ch->relay->url,
			 ch->relay->why);
	}
}
