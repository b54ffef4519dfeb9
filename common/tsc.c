/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - choosing and calibrating the trace clock (see tsc.h).
 *
 * Calibration reads CLOCK_MONOTONIC on both sides of a TSC read and keeps
 * the pair with the narrowest bracket, at the start and at the end of the
 * interval; the frequency is the ratio of the two deltas. Over 50 ms this
 * is within a few parts per million. The frequency of an invariant TSC does
 * not change until the next boot: tsc_anchor() takes one measured before
 * and reads only where the TSC stands now.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/tsc.h"
#include "common/util.h"

/* Is @word one of the blank-separated words of @list? */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == 0 || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return 1;
	return 0;
}

int tsc_verdict(const char *current, const char *available, const char *flags)
{
	if (!has_word(flags, "constant_tsc") || !has_word(flags, "nonstop_tsc"))
		return CLOCK_KIND_MONOTONIC;	/* its rate changes, or it stops */
	if (has_word(current, "tsc"))
		return CLOCK_KIND_TSC;
	/*
	 * Another clocksource (kvm-clock, hyperv_clocksource_tsc_page, a
	 * clocksource= choice): the kernel still lists the TSC as valid only
	 * while its watchdog has not marked it unstable (an unstable one
	 * loses CLOCK_SOURCE_VALID_FOR_HRES and leaves the list).
	 */
	return has_word(available, "tsc") ? CLOCK_KIND_TSC : CLOCK_KIND_MONOTONIC;
}

/* The "flags" line of the first CPU in @buf (/proc/cpuinfo), cut there; "" if none. */
static const char *cpu_flags(char *buf)
{
	char *line = strstr(buf, "\nflags"), *end;

	if (!line)
		return "";
	end = strchr(line + 1, '\n');
	if (end)
		*end = 0;
	line = strchr(line, ':');
	return line ? line + 1 : "";
}

int tsc_choose_clock(void)
{
	static char cpuinfo[65536];
	const char *e = getenv("SHMTRACE_CLOCK");
	char cur[64] = "", avail[256] = "";

#if !defined(__x86_64__) && !defined(__i386__)
	return CLOCK_KIND_MONOTONIC;
#endif
	if (e && !strcmp(e, "monotonic"))
		return CLOCK_KIND_MONOTONIC;
	if (read_small("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) < 0)
		return CLOCK_KIND_MONOTONIC;
	if (read_small("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		       cur, sizeof(cur)) < 0)
		cur[0] = 0;
	if (read_small("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		       avail, sizeof(avail)) < 0)
		avail[0] = 0;
	return tsc_verdict(cur, avail, cpu_flags(cpuinfo));
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

/* CLOCK_REALTIME - CLOCK_MONOTONIC, read around the same time. */
static uint64_t epoch_offset(void)
{
	uint64_t m = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_REALTIME);

	m = (m + now_ns(CLOCK_MONOTONIC)) / 2;
	return r - m;
}

int tsc_calibrate(struct tsc_calib *c, unsigned int ms)
{
	uint64_t t0, m0, t1, m1;
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	pair(&t0, &m0);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	pair(&t1, &m1);
	if (t1 <= t0 || m1 <= m0)
		return -EIO;
	c->hz = (uint64_t)((long double)(t1 - t0) * 1e9L / (long double)(m1 - m0) + 0.5L);
	c->tsc0 = t1;
	c->real0_ns = m1 + epoch_offset();	/* CLOCK_REALTIME at t1 */
	return 0;
}

int tsc_anchor(struct tsc_calib *c, uint64_t hz)
{
	uint64_t t, m;

	if (hz < TSC_HZ_MIN || hz > TSC_HZ_MAX)
		return -EINVAL;
	pair(&t, &m);
	c->hz = hz;
	c->tsc0 = t;
	c->real0_ns = m + epoch_offset();
	return 0;
}
