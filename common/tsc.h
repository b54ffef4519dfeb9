/* SPDX-License-Identifier: MIT */
/*
 * tsc.h - the time-stamp counter as a trace clock.
 *
 * Traced processes stamp events with the TSC when it is invariant
 * (constant_tsc and nonstop_tsc) and the kernel itself trusts it (so it is
 * synchronised across CPUs): as its clocksource, or, under another one
 * such as a virtual machine's kvm-clock (whose clock_gettime() costs a few
 * times the TSC's), by still listing it among the valid clocksources, which
 * it stops doing once its watchdog finds the TSC unstable. Otherwise, or
 * when SHMTRACE_CLOCK=monotonic, with CLOCK_MONOTONIC in nanoseconds. The
 * consumer calibrates the TSC against CLOCK_MONOTONIC and CLOCK_REALTIME
 * and describes it in each trace's metadata (frequency and Epoch offset).
 */
#ifndef SHMTRACE_COMMON_TSC_H
#define SHMTRACE_COMMON_TSC_H

#include <stdint.h>

#define CLOCK_KIND_MONOTONIC	0	/* CLOCK_MONOTONIC, nanoseconds */
#define CLOCK_KIND_TSC		1	/* rdtsc, calibrated */

/* Which clock should this process use? Not async-signal-safe (reads /proc). */
int tsc_choose_clock(void);
/*
 * The verdict on what the kernel and the CPU say: @current and @available,
 * the contents of current_clocksource and available_clocksource (sysfs),
 * @flags the first CPU's flags (/proc/cpuinfo). CLOCK_KIND_TSC or _MONOTONIC.
 */
int tsc_verdict(const char *current, const char *available, const char *flags);

/* The TSC, ordered after every earlier instruction (lfence; rdtsc). */
static inline uint64_t tsc_read_ordered(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

struct tsc_calib {
	uint64_t hz;			/* ticks per second */
	uint64_t tsc0;			/* a TSC value ... */
	uint64_t real0_ns;		/* ... and CLOCK_REALTIME at that moment */
};

/* A believable TSC frequency (Hz): what a frequency read back is checked against. */
#define TSC_HZ_MIN	100000000ull
#define TSC_HZ_MAX	20000000000ull

/* Measure the TSC frequency over @ms milliseconds; 0 or -errno. */
int tsc_calibrate(struct tsc_calib *c, unsigned int ms);
/* The frequency @hz measured earlier since boot, and where the TSC stands now; 0 or -EINVAL. */
int tsc_anchor(struct tsc_calib *c, uint64_t hz);

#endif
