/* SPDX-License-Identifier: MIT */
/*
 * units.h - the one parser of durations and sizes given on a command line
 * (tracectl, trace-read), so that "10" never means milliseconds in one
 * option and seconds in another.
 *
 * A duration is a decimal number and a unit: ns, us, ms, s, m (minutes),
 * h; "1.5ms", "250us", "2s". The unit is required, except for 0. A size
 * is a decimal number of bytes, or with a binary suffix: k (KiB), M
 * (MiB), G (GiB), also written K, KiB, MiB, GiB; "512k", "1.5M", "4096".
 * Fractions are exact to the nanosecond or the byte (no floating point);
 * finer digits are cut. No sign, no spaces, no hexadecimal.
 *
 * Both return 0, or -EINVAL (not a number, or an unknown unit), -EDOM (a
 * duration other than 0 without a unit), -ERANGE (more than 2^64 - 1
 * nanoseconds or bytes); units_why() says which in words.
 */
#ifndef SHMTRACE_COMMON_UNITS_H
#define SHMTRACE_COMMON_UNITS_H

#include <stdint.h>

int units_duration(const char *s, uint64_t *ns);
int units_size(const char *s, uint64_t *bytes);

/* Why @err (a return of the above) refused a duration (@size 0) or a size. */
const char *units_why(int err, int size);

/* The units accepted, for usage texts. */
#define UNITS_DURATION_HELP	"a number and a unit: ns, us, ms, s, m or h (e.g. 200ms, 1.5s)"
#define UNITS_SIZE_HELP		"bytes, or with k, M or G (KiB, MiB, GiB; e.g. 512k)"

#endif
