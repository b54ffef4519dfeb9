// SPDX-License-Identifier: MIT
/*
 * count.c - counters that a traced process writes in its own memory,
 * bounded before the consumer believes them.
 *
 * A traced process writes its own discard counters (each slot's
 * `discarded`, `lost_nested`, `overrun`, each packet's `disc_open`, its
 * page's `lost_nobuf`): a bug or a hostile program of an allowed uid may
 * write anything there, and what we believe goes into the trace files and
 * the session's status. So a counter is believed only as it can really
 * move: never backwards, and never faster than events can be dropped (one
 * per nanosecond per thread is far beyond what any writer does: an event
 * dropped costs a load, a compare and an add at least). The first look
 * at a counter bounds it by the age of its process. A value that fails is
 * not believed: what we believed stays, the process is counted as lying
 * (status names it), and later honest growth counts from the value seen.
 *
 * Each counter has one reader at a time: a stream's by its draining
 * thread or by the main thread between rounds (worker.c orders them).
 */
#include <time.h>
#include <unistd.h>
#include "count.h"
#include "common/util.h"

#define CNT_SLACK	1000u	/* growth believed whatever the time seen */

uint64_t cnt_now(void)
{
	return now_ns(CLOCK_BOOTTIME);
}

uint64_t cnt_born(uint64_t starttime)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	return starttime / (uint64_t)hz * 1000000000u +
	       starttime % (uint64_t)hz * (1000000000u / (uint64_t)hz);
}

void cnt_init(struct cnt *c, uint64_t born)
{
	c->val = 0;
	c->raw = 0;
	c->at = born;
}

int cnt_see(struct cnt *c, uint64_t raw, uint64_t now, uint64_t per_ns)
{
	uint64_t dt = now > c->at ? now - c->at : 0, max;

	if (raw == c->raw)
		return 1;
	max = dt > (UINT64_MAX - CNT_SLACK) / per_ns ? UINT64_MAX : dt * per_ns + CNT_SLACK;
	if (raw < c->raw || raw - c->raw > max) {
		c->raw = raw;
		c->at = now;
		return 0;
	}
	c->val += raw - c->raw;
	c->raw = raw;
	c->at = now;
	return 1;
}
