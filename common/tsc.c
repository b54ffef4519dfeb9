/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - choosing and calibrating the trace clock (see tsc.h).
 *
 * Calibration reads CLOCK_MONOTONIC on both sides of a TSC read and keeps
 * the pair with the narrowest bracket, at the start and at the end of the
 * interval; the frequency is the ratio of the two deltas. Over 50 ms this
 * is within a few parts per million.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/tsc.h"
#include "common/util.h"

/* Do the first CPU's flags include constant_tsc and nonstop_tsc? */
static int cpu_has_flags(void)
{
	static char buf[65536];
	char *line, *end;

	if (read_small("/proc/cpuinfo", buf, sizeof(buf)) < 0)
		return 0;
	line = strstr(buf, "\nflags");
	if (!line)
		return 0;
	end = strchr(line + 1, '\n');
	if (end)
		*end = 0;
	return strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
}

int tsc_choose_clock(void)
{
	const char *e = getenv("SHMTRACE_CLOCK");
	char src[64];

#if !defined(__x86_64__) && !defined(__i386__)
	return CLOCK_KIND_MONOTONIC;
#endif
	if (e && !strcmp(e, "monotonic"))
		return CLOCK_KIND_MONOTONIC;
	if (read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		       src, sizeof(src)) < 0 || strncmp(src, "tsc", 3) || !cpu_has_flags())
		return CLOCK_KIND_MONOTONIC;
	return CLOCK_KIND_TSC;
}

/* A (tsc, monotonic) pair read as close together as possible. */
static void pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;

	*tsc = *mono = 0;
	for (int i = 0; i < 64; i++) {
		uint64_t a = now_ns(CLOCK_MONOTONIC), t = tsc_read_ordered();
		uint64_t b = now_ns(CLOCK_MONOTONIC);

		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*mono = a + (b - a) / 2;
		}
	}
}

int tsc_calibrate(struct tsc_calib *c, unsigned int ms)
{
	uint64_t t0, m0, t1, m1, r0, mr;
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	pair(&t0, &m0);
	/* the Epoch offset: CLOCK_REALTIME - CLOCK_MONOTONIC around the same time */
	mr = now_ns(CLOCK_MONOTONIC);
	r0 = now_ns(CLOCK_REALTIME);
	mr = (mr + now_ns(CLOCK_MONOTONIC)) / 2;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	pair(&t1, &m1);
	if (t1 <= t0 || m1 <= m0)
		return -EIO;
	c->hz = (uint64_t)((long double)(t1 - t0) * 1e9L / (long double)(m1 - m0) + 0.5L);
	c->tsc0 = t1;
	/* realtime at t1 = realtime at mr + (m1 - mr) */
	c->real0_ns = r0 + (m1 - mr);
	return 0;
}
