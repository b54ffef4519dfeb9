// SPDX-License-Identifier: MIT
/*
 * chan.c - the consumer's channels: defined and destroyed by the session
 * daemon, found by id, flushed at their interval.
 *
 * The table (c_chan_ht) is a lock-free RCU hash table by id. Only the main
 * thread adds and removes channels; a removed channel is freed by call_rcu
 * after a grace period. Lookups and walks hold the RCU read lock, which the
 * main thread holds while it runs (consumerd.c), so that a reader on any
 * thread never sees freed memory.
 *
 * Fields: the definition (id, slot, mode, compress, memory, relay, name,
 * output, flush_ms) is written once, before the channel is in the table.
 * next_flush and flush_due are the main thread's, written between rounds
 * (chan_flush_due()); the workers read flush_due during a round, which the
 * hand-off of the round's job orders after the write (worker.c). `gone` is
 * the main thread's (stats.c); werr, werr_traces and werr_path are written
 * under werr.c's lock by any draining thread.
 *
 * Destroying a channel drains every segment of it out (everything
 * committed, open packets too), closes its streams, and closes the traces
 * that no other channel of the session writes into; a trace that another
 * channel still writes into is handed to that channel.
 *
 * A memory-only channel (memory, a session made with create --snapshot)
 * is never drained: its streams are in no draining list, its traces are
 * never made on disk, and only snapshots (snapshot.c) copy its rings; a
 * flush, a final drain, the end of a process write nothing of it.
 *
 * A channel is the consumer's memory only: after a crash, the session
 * daemon gives a new consumer every channel again, then the processes and
 * their segments, which resume where the slots' `consumed` counters say.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "drain.h"
#include "support/lfht.h"
#include "relaydata.h"
#include "progress.h"
#include "seg.h"
#include "common/shm.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"

struct cds_lfht *c_chan_ht;

static int chan_match(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct c_chan, node)->id == *(const uint64_t *)key;
}

int chan_init(void)
{
	c_chan_ht = lfht_new(16);
	return c_chan_ht ? 0 : -ENOMEM;
}

void chan_fini(void)
{
	lfht_destroy(c_chan_ht);
}

struct c_chan *chan_find(uint64_t id)
{
	struct cds_lfht_node *n = lfht_find(c_chan_ht, hash_id(id), chan_match, &id);

	return n ? caa_container_of(n, struct c_chan, node) : NULL;
}

int chan_add(const struct msg_c_channel *m, int fd)
{
	struct c_relay *relay = m->relay_id ? rdata_find(m->relay_id) : NULL;
	struct cds_lfht_iter it;
	struct c_chan *ch;
	struct c_app *a;
	struct stat sb;

	if (chan_find(m->chan_id) || m->chan_slot >= SHM_MAX_CHAN || m->compress > PROTO_COMPRESS_LZ4 ||
	    !memchr(m->name, 0, sizeof(m->name)) || !memchr(m->output, 0, sizeof(m->output)) ||
	    !memchr(m->session, 0, sizeof(m->session)) || m->created_s < 0 ||
	    (m->relay_id ? !relay || m->compress : m->output[0] != '/') || !m->name[0] ||
	    (m->flags & ~PROTO_CHAN_MEMORY) || ((m->flags & PROTO_CHAN_MEMORY) && m->relay_id) ||
	    strchr(m->name, '/') || fstat(fd, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    (!m->relay_id && (m->base_len > strlen(m->output) ||
			      (m->output[m->base_len] && m->output[m->base_len] != '/')))) {
		close(fd);
		return -EINVAL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		close(fd);
		return -ENOMEM;
	}
	ch->base_fd = fd;
	ch->base_len = m->base_len;
	ch->id = m->chan_id;
	ch->slot = m->chan_slot;
	ch->flush_ms = m->flush_ms;
	ch->mode = m->mode;
	ch->compress = m->compress;
	ch->memory = (m->flags & PROTO_CHAN_MEMORY) != 0;
	ch->relay = relay;
	memcpy(ch->name, m->name, sizeof(ch->name));
	memcpy(ch->output, m->output, sizeof(ch->output));
	memcpy(ch->session, m->session, sizeof(ch->session));
	ch->created_s = m->created_s;
	ch->out_fd = -1;
	/* traces a consumer before us left in the output still count */
	if (!ch->memory)
		prog_scan(ch);
	cds_lfht_node_init(&ch->node);
	cds_lfht_add(c_chan_ht, hash_id(ch->id), &ch->node);
	/* the processes' events lost without a buffer count from now on */
	capp_for_each(&it, a)
		capp_nobuf_start(a, ch->slot);
	return 0;
}

/* Final drain of a channel being destroyed; its traces closed or handed on. */
static void chan_drop(struct c_chan *ch)
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
			drain_seg_out(s);
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

static void chan_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct c_chan, rcu));
}

void chan_remove(struct c_chan *ch)
{
	if (ch->out_fd >= 0)
		close(ch->out_fd);
	ch->out_fd = -1;
	close(ch->base_fd);
	prog_scan_free(ch);
	cds_lfht_del(c_chan_ht, &ch->node);
	urcu_memb_call_rcu(&ch->rcu, chan_free_rcu);
}

void chan_del(uint64_t id)
{
	struct c_chan *ch = chan_find(id);

	if (!ch)
		return;
	chan_drop(ch);
	chan_remove(ch);
}

int chan_output(const struct c_chan *ch, mode_t mode)
{
	return dir_walk(ch->base_fd, ch->output + ch->base_len, mode, NULL);
}

int chan_flush_due(uint64_t now)
{
	struct cds_lfht_iter it;
	struct c_chan *ch;
	int any = 0;

	chan_for_each(&it, ch) {
		ch->flush_due = ch->flush_ms && now >= ch->next_flush;
		if (ch->flush_due)
			ch->next_flush = now + (uint64_t)ch->flush_ms * 1000000u;
		any |= ch->flush_due;
	}
	return any;
}

int chan_flush_timeout(uint64_t now, int max)
{
	uint64_t t = (uint64_t)max;
	struct cds_lfht_iter it;
	struct c_chan *ch;

	chan_for_each(&it, ch) {
		uint64_t ms;

		if (!ch->flush_ms)
			continue;
		ms = ch->next_flush > now ? (ch->next_flush - now) / 1000000u + 1 : 0;
		if (ms < t)
			t = ms;
	}
	return (int)t;
}
