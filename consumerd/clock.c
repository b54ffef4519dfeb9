// SPDX-License-Identifier: MIT
/*
 * clock.c - the trace clocks as this consumer describes them.
 *
 * Both clocks are described once, by clock_init() on the main thread at
 * start-up, before any worker thread exists and before any trace is
 * started, and never written again: every thread reads the descriptions
 * without a lock, and every trace this consumer writes carries the same
 * ones, so that its traces merge exactly with each other.
 *
 * Both clocks count from boot: their uuid is the boot id (with the last
 * digit changed for the TSC), as readers merge traces only when their
 * clocks have the same uuid. The TSC is calibrated against CLOCK_MONOTONIC
 * (50 ms) when the processes may use it (tsc_choose_clock()), once per
 * boot and home: the frequency is kept in `$SHMTRACE_HOME/tsc-hz` with
 * the boot id (written aside, then renamed into place), and a consumer
 * started later in the same boot takes it from there and measures only
 * where the TSC stands (tsc_anchor()): a session's first start does not
 * wait 50 ms. The file is ours (the home is 0700) and is believed only
 * when its boot id is this boot's and its frequency plausible.
 *
 * Nothing else survives the consumer: a new one describes the clocks
 * afresh, with the same uuids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "common/home.h"
#include "support/log.h"
#include "common/tsc.h"
#include "common/util.h"
#include "support/sysutil.h"

struct c_clock {
	char name[16];
	char desc[64];
	char uuid[37];
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;		/* ticks */
};

static struct c_clock c_clocks[2];	/* by CLOCK_KIND_* */

/* The TSC calibrated: with the frequency kept in @home for this boot (@boot), else measured and kept. */
static int clock_tsc(const char *home, const char *boot, struct tsc_calib *cal)
{
	char path[4200], tmp[4300], buf[128];
	unsigned long long hz;
	int fd, n;

	if (!home[0] || !boot || home_path(path, sizeof(path), home, HOME_TSC) < 0)
		return tsc_calibrate(cal, 50);
	if (read_small(path, buf, sizeof(buf)) > 37 && !memcmp(buf, boot, 36) && buf[36] == ' ' &&
	    sscanf(buf + 37, "%llu", &hz) == 1 && tsc_anchor(cal, hz) == 0)
		return 0;
	if (tsc_calibrate(cal, 50) < 0)
		return -EIO;
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return 0;
	n = snprintf(buf, sizeof(buf), "%.36s %llu\n", boot, (unsigned long long)cal->hz);
	if (write(fd, buf, (size_t)n) != n || close(fd) < 0 || rename(tmp, path) < 0)
		unlink(tmp);	/* (measured again next time) */
	return 0;
}

void clock_init(const char *home)
{
	struct c_clock *m = &c_clocks[CLOCK_KIND_MONOTONIC], *t = &c_clocks[CLOCK_KIND_TSC];
	uint64_t off = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	struct tsc_calib cal;
	char boot[64];
	int have_boot = 0;

	if (read_small("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) >= 36) {
		have_boot = 1;
		memcpy(m->uuid, boot, 36);
	} else {
		uint8_t raw[16];

		uuid_make(raw, m->uuid);
	}
	strcpy(m->name, "monotonic");
	strcpy(m->desc, "CLOCK_MONOTONIC");
	m->freq = 1000000000u;
	m->offset_s = (int64_t)(off / 1000000000u);
	m->offset = off % 1000000000u;

	*t = *m;
	t->uuid[35] = t->uuid[35] == '0' ? '1' : '0';
	strcpy(t->name, "tsc");
	strcpy(t->desc, "TSC, calibrated against CLOCK_MONOTONIC");
	if (tsc_choose_clock() == CLOCK_KIND_TSC &&
	    clock_tsc(home, have_boot ? boot : NULL, &cal) == 0) {
		/* Epoch time of TSC value 0, in ns, split into seconds and ticks */
		long double zero = (long double)cal.real0_ns -
				   (long double)cal.tsc0 * 1e9L / (long double)cal.hz;
		int64_t secs = (int64_t)(zero / 1e9L);

		t->freq = cal.hz;
		t->offset_s = secs;
		t->offset = (uint64_t)((zero - (long double)secs * 1e9L) * (long double)cal.hz / 1e9L);
		log_info("TSC at %llu Hz", (unsigned long long)cal.hz);
	}
}

uint64_t clock_now(uint32_t kind)
{
	return kind == CLOCK_KIND_TSC ? tsc_read_ordered() : now_ns(CLOCK_MONOTONIC);
}

uint64_t clock_epoch_ns(uint32_t kind, uint64_t ticks)
{
	const struct c_clock *c = &c_clocks[kind == CLOCK_KIND_TSC ? CLOCK_KIND_TSC :
						    CLOCK_KIND_MONOTONIC];
	__int128 ns;

	if (!c->freq)
		return 0;
	ns = (__int128)c->offset_s * 1000000000 +
	     ((unsigned __int128)c->offset + ticks) * 1000000000u / c->freq;
	return ns > 0 && ns < (__int128)UINT64_MAX ? (uint64_t)ns : 0;
}

void clock_describe(uint32_t kind, struct ctf_trace_info *info)
{
	const struct c_clock *c = &c_clocks[kind];

	memcpy(info->clock_name, c->name, sizeof(c->name));
	memcpy(info->clock_desc, c->desc, sizeof(c->desc));
	memcpy(info->clock_uuid, c->uuid, sizeof(c->uuid));
	info->freq = c->freq;
	info->offset_s = c->offset_s;
	info->offset = c->offset;
}
