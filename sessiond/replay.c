// SPDX-License-Identifier: MIT
/*
 * replay.c - a consumer for the session daemon: the one a daemon before
 * us left running, taken over, or a new one, given everything it must
 * drain.
 *
 * A new consumer (at start-up, after one died or was given up) is told,
 * in this order, the streamed sessions' new relay sessions, the channels,
 * the aggregations, then every process with its events and segments, and
 * the processes that went while no consumer ran, at once gone
 * (apps_replay()). It continues each trace where the progress records say
 * (consumerd/progress.c): nothing is lost or written twice. One that keeps
 * dying is started again at most once a second (consumer_wait_ms()); a
 * command that needs one now (a stop's flush) asks replay_revive().
 *
 * A consumer taken over (consumerd/adopt.c) hands us its processes, which
 * are ours again, detached until they register with us, and says which
 * channels and aggregations it has: ours it lacks are given, the others
 * deleted (the sessions we took over from state.json are the truth).
 *
 * State: none of its own (the link is consumer.c's).
 */
#include <errno.h>
#include "replay.h"
#include "aggdef.h"
#include "app.h"
#include "consumer.h"
#include "loop.h"
#include "relayctl.h"
#include "session.h"
#include "support/log.h"

/* A new consumer daemon: tell it everything it must drain. */
static void replay_all(void)
{
	relayctl_replay();
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (ss.chan[i] && relayctl_ok(ss.chan[i]->session))
			channel_to_consumer(ss.chan[i]);
	aggs_replay();
	apps_replay();
}

/* The consumer taken over, told what the sessions we took over hold. */
static void replay_reconcile(const struct msg_c_adopt_end *end)
{
	uint32_t nch = end->nchans < SHM_MAX_CHAN ? end->nchans : SHM_MAX_CHAN;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		uint32_t k = 0;

		if (!ss.chan[i])
			continue;
		while (k < nch && end->chan_id[k] != ss.chan[i]->id)
			k++;
		if (k == nch)
			channel_to_consumer(ss.chan[i]);
	}
	for (uint32_t k = 0; k < nch; k++) {
		struct msg_c_id m = { .id = end->chan_id[k] };
		unsigned int i = 0;

		while (i < SHM_MAX_CHAN && !(ss.chan[i] && ss.chan[i]->id == m.id))
			i++;
		if (i == SHM_MAX_CHAN)
			consumer_call(MSG_C_CHANNEL_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	}
	aggs_reconcile(end->agg_id, end->naggs < SHM_MAX_AGG ? end->naggs : SHM_MAX_AGG);
}

void replay_init(const char *home)
{
	struct msg_c_adopt_end end;
	unsigned int napps;

	consumer_setup(home);
	if (consumer_adopt(app_adopt, &end, &napps) == 0) {
		apps_ids_after(end.max_app_id);
		log_info("took over the consumer daemon %d, with %u processes",
			 (int)consumer_pid(), napps);
		replay_reconcile(&end);
		apps_adopted();
		return;
	}
	consumer_stale();
	if (consumer_start() < 0)
		log_err("cannot start the consumer daemon %s", consumer_program());
	else if (ss.list)
		replay_all();	/* the sessions taken over (state.c) */
}

void replay_check(void)
{
	consumer_reap_exited();
	if (consumer_pid() == 0 && !ev_quitting() && consumer_wait_ms(1) == 0) {
		if (consumer_start() == 0)
			replay_all();
	}
}

int replay_revive(void)
{
	if (consumer_running())
		return 0;
	consumer_lost();
	if (ev_quitting() || consumer_start() < 0)
		return -EPIPE;
	replay_all();
	return consumer_running() ? 0 : -EPIPE;
}
