// SPDX-License-Identifier: MIT
/*
 * units.c - durations and sizes of the command lines (units.h).
 *
 * A number is read as an integer part and up to 9 fraction digits, both
 * exact; the result is integer * unit + fraction * unit / 10^digits, every
 * step checked for overflow.
 */
#include <errno.h>
#include <string.h>
#include "support/units.h"

struct unit {
	const char *name;
	uint64_t mul;
};

static const struct unit durations[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "m", 60000000000ull }, { "min", 60000000000ull }, { "h", 3600000000000ull },
};

static const struct unit sizes[] = {
	{ "", 1 }, { "b", 1 }, { "B", 1 },
	{ "k", 1ull << 10 }, { "K", 1ull << 10 }, { "KiB", 1ull << 10 },
	{ "M", 1ull << 20 }, { "m", 1ull << 20 }, { "MiB", 1ull << 20 },
	{ "G", 1ull << 30 }, { "g", 1ull << 30 }, { "GiB", 1ull << 30 },
};

/*
 * "INT[.FRAC]UNIT" with UNIT one of @tab (or "" when @bare_ok), into
 * @out. 0, or -EINVAL, -EDOM (no unit where one is needed), -ERANGE.
 */
static int units_parse(const char *s, const struct unit *tab, size_t n, int bare_ok,
		       uint64_t *out)
{
	uint64_t whole = 0, frac = 0, scale = 1, v;
	const char *p = s;
	int digits = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -ERANGE;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -EINVAL;
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits++ < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	}
	if (!*p && !bare_ok) {
		if (whole || frac)
			return -EDOM;
		*out = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p, tab[i].name))
			continue;
		/* frac < scale <= 1e9, mul < 2^42: the product fits */
		if (__builtin_mul_overflow(whole, tab[i].mul, &v) ||
		    __builtin_add_overflow(v, frac * tab[i].mul / scale, &v))
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

int units_duration(const char *s, uint64_t *ns)
{
	return units_parse(s, durations, sizeof(durations) / sizeof(durations[0]), 0, ns);
}

int units_size(const char *s, uint64_t *bytes)
{
	return units_parse(s, sizes, sizeof(sizes) / sizeof(sizes[0]), 1, bytes);
}

const char *units_why(int err, int size)
{
	if (err == -ERANGE)
		return "too large";
	if (err == -EDOM)
		return "a unit is needed: ns, us, ms, s, m or h";
	return size ? "expected " UNITS_SIZE_HELP : "expected " UNITS_DURATION_HELP;
}
