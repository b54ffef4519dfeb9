// SPDX-License-Identifier: MIT
/*
 * life.c - how sessions and what they hold end: stop (everything
 * committed written out, aggregations.json, the output's marker removed;
 * none of it for a memory-only session, which writes nothing but its
 * snapshots),
 * rotations (by command, by size or time), destroy (channels and
 * aggregations removed from every control page, the consumer and the
 * processes' segments), and the shutdown of every session.
 *
 * A stop whose consumer died or does not answer has a new one started and
 * given everything (replay_revive()) and asks again; when that fails too,
 * the session's flush_err says which channels and how many events their
 * buffers still hold.
 *
 * State: none of its own (the sessions are session.c's). The caller saves
 * the state after a change (state_save(): cmd.c after each command, the
 * loop after an automatic rotation, main at exit).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "life.h"
#include "aggdef.h"
#include "app.h"
#include "consumer.h"
#include "relayctl.h"
#include "notice.h"
#include "replay.h"
#include "seg.h"
#include "session.h"
#include "support/log.h"
#include "common/util.h"

/*
 * Everything committed in @s's channels written out, confirmed by the
 * consumer's reply. A consumer that died or does not answer is replaced
 * (replay_revive(): the new one continues its traces) and asked again;
 * when that fails too, s->flush_err says so, and each channel not
 * written out (unflushed) how many events its buffers still hold.
 */
static void session_flush(struct session *s)
{
	size_t len = 0;

	s->flush_err = 0;
	s->flush_msg[0] = 0;
	for (struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };
		uint64_t events, bufs;
		int ret;

		ch->unflushed = 0;
		ret = consumer_call(MSG_C_FLUSH, &m, sizeof(m), NULL, 0, NULL, 0);
		if (ret == -EPIPE && replay_revive() == 0)
			ret = consumer_call(MSG_C_FLUSH, &m, sizeof(m), NULL, 0, NULL, 0);
		if (ret != -EPIPE)
			continue;
		events = apps_pending(ch->id, &bufs);
		ch->unflushed = 1;
		ch->unflushed_events = events;
		ch->unflushed_buffers = bufs;
		s->flush_err = -EIO;
		if (len < sizeof(s->flush_msg))
			len += (size_t)snprintf(s->flush_msg + len, sizeof(s->flush_msg) - len,
						"%schannel %s: %" PRIu64 " events in %" PRIu64
						" buffers not written out (no consumer)",
						len ? "; " : "", ch->name, events, bufs);
		log_err("session %s: %s", s->name, s->flush_msg);
	}
}

void session_stop(struct session *s)
{
	struct timespec ts = { 0, 2000000 };

	s->active = 0;
	apps_update_all();
	/* let events already being written commit; with no process left (the
	 * gone ones taken in before each command), none is being written */
	if (apps_list())
		nanosleep(&ts, NULL);
	if (!s->memory)
		session_flush(s);	/* (a memory-only session writes nothing out) */
	if (s->aggs && !s->relay_id)
		apps_poll_all();	/* segments the processes sent before */
	s->agg_werr = aggs_write(s, s->agg_msg, sizeof(s->agg_msg));
	if (s->agg_werr)
		log_warn("session %s: %s", s->name, s->agg_msg);
	marker_remove(s);
}

void session_destroy(struct session *s)
{
	if (s->active)
		session_stop(s);
	if (s->nrotations)
		session_rotate(s);	/* the last chunk too: each chunk on its own */
	for (struct session **pp = &ss.list; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	while (s->chans) {
		struct channel *ch = s->chans;
		struct msg_c_id m = { .id = ch->id };

		s->chans = ch->next;
		consumer_call(MSG_C_CHANNEL_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
		ss.chan[ch->slot] = NULL;
		apps_update_all();
		apps_forget_segs(SEG_BUF, ch->id);
		enablers_free(ch->enablers);
		enablers_free(ch->combos);
		free(ch);
	}
	aggs_free(s);
	relayctl_close(s);
	if (s->base_fd >= 0)
		close(s->base_fd);
	log_info("session %s destroyed", s->name);
	notices_free(s);
	free(s);
	app_socket_update();
}

/* Close the current chunk of @s into OUTPUT/chunk-N; the next one begins. */
int session_rotate(struct session *s)
{
	struct msg_c_snapshot m;
	int ret;

	if (!s->chans)
		return -ENOENT;
	memset(&m, 0, sizeof(m));
	if (snprintf(m.output, sizeof(m.output), "%.4000s/chunk-%u", s->output, s->nrotations) >=
	    (int)sizeof(m.output))
		return -ENAMETOOLONG;
	m.chan_id = s->chans->id;	/* the consumer rotates the session's output */
	ret = consumer_call(MSG_C_ROTATE, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret < 0)
		return ret;
	s->nrotations++;
	s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
	log_info("session %s: chunk %u closed", s->name, s->nrotations - 1);
	return 0;
}

static uint64_t session_bytes(const struct session *s)
{
	uint64_t b = 0;

	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };
		struct msg_c_stats st;

		memset(&st, 0, sizeof(st));
		if (consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st)) == 0)
			b += st.bytes;
	}
	return b;
}

/* Automatic rotations due (called from the main loop): how many were made. */
int sessions_tick(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	int n = 0;

	for (struct session *s = ss.list; s; s = s->next) {
		if (!s->active || (!s->rot_ms && !s->rot_bytes))
			continue;
		if ((s->rot_ms && now - s->rot_last_ns >= s->rot_ms * 1000000u) ||
		    (s->rot_bytes && session_bytes(s) >= s->rot_bytes * (s->nrotations + 1))) {
			session_rotate(s);
			n++;	/* its chunk count changed */
		}
	}
	return n;
}

/* How often the main loop must call sessions_tick(), in ms. */
int sessions_tick_ms(void)
{
	for (const struct session *s = ss.list; s; s = s->next)
		if (s->rot_ms || s->rot_bytes)
			return 100;
	return 1000;
}

/* Every session stopped and destroyed (the caller saves: a daemon after us starts with none). */
void sessions_shutdown(void)
{
	while (ss.list)
		session_destroy(ss.list);
}

void agg_remove(struct aggregation *ag)
{
	struct msg_c_id m = { .id = ag->id };
	struct session *s = ag->session;

	for (struct aggregation **pp = &s->aggs; *pp; pp = &(*pp)->next) {
		if (*pp == ag) {
			*pp = ag->next;
			break;
		}
	}
	ss.agg[ag->slot] = NULL;
	apps_update_all();
	apps_forget_segs(SEG_AGG, ag->id);
	consumer_call(MSG_C_AGG_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	agg_free(ag);
}

void aggs_free(struct session *s)
{
	while (s->aggs)
		agg_remove(s->aggs);
}
